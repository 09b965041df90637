// gemm_simd (gemm.h): register-blocked f32x4 micro-kernels over packed panels, in the same
// per-element order as gemm_ref, so the two agree bit for bit.
//
// Legend: M/K/N matrix sizes; MR = 4 rows and NR = 8 columns (2 vectors) of C per micro-kernel
// call; NB panels per column block.
//
// The micro-kernel (micro_kernel.h) keeps an MR × 8 block of C in 2·MR vector registers for the
// whole K loop, over both operands packed first:
//   B: each 8 columns for all K rows into a (K × 8) panel, zero-padded on the right;
//   A: each MR rows into (K × MR), element (r, p) at p·MR + r (a 4 × 4 transpose per step
//      when A's rows are contiguous, a plain copy when its columns are).
// K is not cut into slices: an element's sum runs from p = 0 to K − 1 in one register, which is
// what makes it equal to the reference's. Rows are cut into bands of packed A (kBandFloats),
// packed once; within a band, columns into blocks of NB panels (kBlockFloats, in L2), packed
// once per band (or all of B once, see gemm_simd), which every row block of the band (in L1)
// runs over.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/detail/micro_kernel.h"
#include "kernels/f32x4.h"
#include "kernels/gemm.h"
#include "kernels/half.h"

namespace attn::kernels {

namespace {

using micro::kMr;
using micro::kNr;
using simd::f32x4;
constexpr std::size_t kBlockFloats = 64 * 1024;  // 256 KB of B panels per column block
constexpr std::size_t kBandFloats = 96 * 1024;   // 384 KB of packed A rows per band
constexpr std::size_t kWholeFloats = 4 << 20;    // 16 MB: the largest b packed whole

// A float buffer aligned to a 64-byte line that only grows, one per thread, so a product does
// not allocate (and page-fault) each time it runs.
class Workspace {
 public:
  float* get(std::size_t n) {
    if (n + kPad > raw_.size()) raw_.assign(n + kPad, 0.0f);
    const auto addr = reinterpret_cast<std::uintptr_t>(raw_.data());
    return raw_.data() + ((64 - addr % 64) % 64) / sizeof(float);
  }

 private:
  static constexpr std::size_t kPad = 64 / sizeof(float);
  std::vector<float> raw_;
};
thread_local Workspace t_panels, t_rows;

// B's elements: float32, finite halves or bfloat16s, converted as they are packed (f32x4's
// load_f16_finite and load_bf16, and half.h's weight_to_f32 for single values: they agree bit
// for bit).
inline f32x4 load4(const float* p) { return simd::load(p); }
inline f32x4 load4(const std::uint16_t* p) { return simd::load_f16_finite(p); }
inline f32x4 load4(const Bf16* p) { return simd::load_bf16(p); }

// Packs columns [j0, j0 + n) of b (n ≤ 8), rows [0, K), into panel (K × 8), zero-padded.
template <typename BT>
void pack_b_panel(float* panel, MatrixOf<BT> b, int K, int j0, int n) {
  const BT* src = b.data + j0 * b.cols;
  int p = 0;
  if (n == kNr && b.rows == 1) {  // columns of b contiguous (w (N, K) read as wᵀ): 4 × 4 transposes
    for (; p + 4 <= K; p += 4) {
      for (int g = 0; g < 2; ++g) {
        const BT* col = src + (4 * g) * b.cols + p;
        f32x4 r0 = load4(col), r1 = load4(col + b.cols), r2 = load4(col + 2 * b.cols), r3 = load4(col + 3 * b.cols);
        simd::transpose4(r0, r1, r2, r3);
        float* out = panel + p * kNr + 4 * g;
        simd::store(out, r0);
        simd::store(out + kNr, r1);
        simd::store(out + 2 * kNr, r2);
        simd::store(out + 3 * kNr, r3);
      }
    }
  }
  for (; p < K; ++p) {
    for (int j = 0; j < n; ++j) panel[p * kNr + j] = weight_to_f32(src[p * b.rows + j * b.cols]);
    for (int j = n; j < kNr; ++j) panel[p * kNr + j] = 0.0f;
  }
}

// Packs columns [j0, j1) of b, rows [0, K), into consecutive panels of (K × 8). Rows of b that
// are contiguous are walked once, row by row, for all the panels (one pass over b's rows
// instead of one per panel).
template <typename BT>
void pack_b_block(float* panels, MatrixOf<BT> b, int K, int /*N*/, int j0, int j1) {
  const std::size_t panel_floats = static_cast<std::size_t>(std::max(K, 1)) * kNr;
  const int full = (j1 - j0) / kNr;  // whole panels
  if (b.cols == 1 && full > 0) {
    for (int p = 0; p < K; ++p) {
      const BT* row = b.data + p * b.rows + j0;
      float* out = panels + p * kNr;
      for (int q = 0; q < full; ++q, row += kNr, out += panel_floats) {
        simd::store(out, load4(row));
        simd::store(out + 4, load4(row + 4));
      }
    }
  } else {
    for (int q = 0; q < full; ++q) pack_b_panel(panels + q * panel_floats, b, K, j0 + q * kNr, kNr);
  }
  if (j0 + full * kNr < j1) pack_b_panel(panels + full * panel_floats, b, K, j0 + full * kNr, j1 - j0 - full * kNr);
}

// The same from b kept in panels (gemm.h; j0 a multiple of 8): each 8 columns are converted by
// one straight pass down their panel's rows, the last (narrower) ones zero-padded to 8 columns.
template <typename BT>
void pack_b_block(float* panels, PanelsOf<BT> b, int K, int N, int j0, int j1) {
  // panels: ((j1 − j0) / 8 rounded up) × (K × 8); b: (K, N) in panels (gemm.h)
  const std::size_t panel_floats = static_cast<std::size_t>(std::max(K, 1)) * kNr;
  for (int j = j0; j < j1; j += kNr, panels += panel_floats) {
    const int q0 = j - j % kPanel, width = std::min(kPanel, N - q0);          // the panel holding column j
    const BT* src = b.data + static_cast<std::ptrdiff_t>(q0) * K + (j - q0);  // row p at src + p·width
    const int n = std::min(kNr, width - (j - q0));
    if (n == kNr) {
      for (int p = 0; p < K; ++p) {
        simd::store(panels + p * kNr, load4(src + p * width));
        simd::store(panels + p * kNr + 4, load4(src + p * width + 4));
      }
    } else {
      for (int p = 0; p < K; ++p) {
        for (int c = 0; c < n; ++c) panels[p * kNr + c] = weight_to_f32(src[p * width + c]);
        for (int c = n; c < kNr; ++c) panels[p * kNr + c] = 0.0f;
      }
    }
  }
}
// Whether b's rows are contiguous (gemm_packed packs such a b whole when it has many rows).
template <typename BT>
bool rows_contiguous(MatrixOf<BT> b) {
  return b.cols == 1;
}
template <typename BT>
bool rows_contiguous(PanelsOf<BT>) {
  return true;
}

// Packs rows [i0, i0 + mr) of a, columns [0, K), into out (K × mr): element (r, p) at p·mr + r.
void pack_a_rows(float* out, MatrixOf<float> a, int K, int i0, int mr) {
  const float* src = a.data + i0 * a.rows;
  if (mr == kMr && a.rows == 1) {  // the rows' values for one p are adjacent: one vector per p
    for (int p = 0; p < K; ++p) simd::store(out + p * kMr, simd::load(src + p * a.cols));
    return;
  }
  int p = 0;
  if (mr == kMr && a.cols == 1) {  // rows contiguous: 4 × 4 transposes
    for (; p + 4 <= K; p += 4) {
      f32x4 r0 = simd::load(src + p), r1 = simd::load(src + a.rows + p), r2 = simd::load(src + 2 * a.rows + p),
            r3 = simd::load(src + 3 * a.rows + p);
      simd::transpose4(r0, r1, r2, r3);
      simd::store(out + p * kMr, r0);
      simd::store(out + p * kMr + 4, r1);
      simd::store(out + p * kMr + 8, r2);
      simd::store(out + p * kMr + 12, r3);
    }
  }
  for (; p < K; ++p)
    for (int r = 0; r < mr; ++r) out[p * mr + r] = src[r * a.rows + p * a.cols];
}

// c (MR × n, row stride ldc, n ≤ 8) = [c +] (init + A' (MR × K) · panel (K × 8)), A' packed
// (K × MR), init8 the 8 starting values of each row's sums (the bias, or zeros).
template <int MR>
void micro_block(float* c, std::ptrdiff_t ldc, int n, const float* ap, const float* bp, int K, const float* init8,
                 bool accumulate) {
  f32x4 acc[MR][2];
  const f32x4 i0 = simd::load(init8), i1 = simd::load(init8 + 4);
  for (int r = 0; r < MR; ++r) acc[r][0] = i0, acc[r][1] = i1;
  micro::kernel<MR>(acc, ap, bp, K);
  for (int r = 0; r < MR; ++r) {
    float* row = c + r * ldc;
    if (n == kNr) {
      if (accumulate) {
        acc[r][0] = simd::add(simd::load(row), acc[r][0]);
        acc[r][1] = simd::add(simd::load(row + 4), acc[r][1]);
      }
      simd::store(row, acc[r][0]);
      simd::store(row + 4, acc[r][1]);
    } else {
      float tmp[kNr];
      simd::store(tmp, acc[r][0]);
      simd::store(tmp + 4, acc[r][1]);
      for (int j = 0; j < n; ++j) row[j] = accumulate ? row[j] + tmp[j] : tmp[j];
    }
  }
}

// Rows [i0, i0 + mr) against one panel, by the micro-kernel of that height.
void micro_rows(int mr, float* c, std::ptrdiff_t ldc, int n, const float* ap, const float* bp, int K,
                const float* init8, bool accumulate) {
  switch (mr) {
    case 4: micro_block<4>(c, ldc, n, ap, bp, K, init8, accumulate); break;
    case 3: micro_block<3>(c, ldc, n, ap, bp, K, init8, accumulate); break;
    case 2: micro_block<2>(c, ldc, n, ap, bp, K, init8, accumulate); break;
    default: micro_block<1>(c, ldc, n, ap, bp, K, init8, accumulate); break;
  }
}

// One row of a against a b whose columns are contiguous (b.rows == 1: a weight w (N, K) read as
// wᵀ), the shape of generating one token: c (1, N) = [c +] (bias + a (1, K) · b). Packing B's
// panels would write and read every weight once more for one row's use, so nothing is packed:
// 16 columns at a time, each 4 × 4 block of them (4 columns × 4 steps of K) is loaded (halves
// converted), transposed in registers and multiplied by 4 broadcasts of a; the 16 sums live in 4
// vectors for the whole K loop, each element's sum in gemm_ref's order (bias first, p = 0 … K − 1).
template <typename BT>
void gemv_columns(float* c, MatrixOf<float> a, MatrixOf<BT> b, const float* bias, bool accumulate, int K, int N) {
  constexpr int kGroups = 4;  // of 4 columns
  auto finish = [&](float* out, f32x4 sum) { simd::store(out, accumulate ? simd::add(simd::load(out), sum) : sum); };
  int j = 0;
  for (; j + 4 * kGroups <= N; j += 4 * kGroups) {
    f32x4 acc[kGroups];
    const BT* col[kGroups];
    for (int g = 0; g < kGroups; ++g) {
      acc[g] = bias ? simd::load(bias + j + 4 * g) : simd::zero();
      col[g] = b.data + static_cast<std::ptrdiff_t>(j + 4 * g) * b.cols;
    }
    int p = 0;
    for (; p + 4 <= K; p += 4) {
      const f32x4 x0 = simd::load_splat(a.data + p * a.cols), x1 = simd::load_splat(a.data + (p + 1) * a.cols),
                  x2 = simd::load_splat(a.data + (p + 2) * a.cols), x3 = simd::load_splat(a.data + (p + 3) * a.cols);
      for (int g = 0; g < kGroups; ++g) {
        f32x4 r0 = load4(col[g] + p), r1 = load4(col[g] + b.cols + p), r2 = load4(col[g] + 2 * b.cols + p),
              r3 = load4(col[g] + 3 * b.cols + p);
        simd::transpose4(r0, r1, r2, r3);  // r_k: the 4 columns' values at step p + k
        acc[g] = simd::add(acc[g], simd::mul(x0, r0));
        acc[g] = simd::add(acc[g], simd::mul(x1, r1));
        acc[g] = simd::add(acc[g], simd::mul(x2, r2));
        acc[g] = simd::add(acc[g], simd::mul(x3, r3));
      }
    }
    for (; p < K; ++p) {
      const f32x4 x = simd::load_splat(a.data + p * a.cols);
      for (int g = 0; g < kGroups; ++g) {
        alignas(16) float w[4];
        for (int k = 0; k < 4; ++k) w[k] = weight_to_f32(col[g][k * b.cols + p]);
        acc[g] = simd::add(acc[g], simd::mul(x, simd::load(w)));
      }
    }
    for (int g = 0; g < kGroups; ++g) finish(c + j + 4 * g, acc[g]);
  }
  for (; j < N; ++j) {  // the last columns, one at a time, in the same order
    const BT* column = b.data + static_cast<std::ptrdiff_t>(j) * b.cols;
    float sum = bias ? bias[j] : 0.0f;
    for (int p = 0; p < K; ++p) sum += a.data[p * a.cols] * weight_to_f32(column[p]);
    c[j] = accumulate ? c[j] + sum : sum;
  }
}

// One row of a against a row-major b (b.cols == 1: a weight kept (in, out), as an F16 model keeps
// its linear layers): c (1, N) = [c +] (bias + a (1, K) · b). Each step of K broadcasts a(p) and
// reads b's row p along 16 columns (4 vectors, halves converted): no transposes, every weight
// read once; each element's sum in gemm_ref's order.
template <typename BT>
void gemv_rows(float* c, MatrixOf<float> a, MatrixOf<BT> b, const float* bias, bool accumulate, int K, int N) {
  auto finish = [&](float* out, f32x4 sum) { simd::store(out, accumulate ? simd::add(simd::load(out), sum) : sum); };
  int j = 0;
  for (; j + 16 <= N; j += 16) {
    f32x4 s0 = bias ? simd::load(bias + j) : simd::zero(), s1 = bias ? simd::load(bias + j + 4) : simd::zero(),
          s2 = bias ? simd::load(bias + j + 8) : simd::zero(), s3 = bias ? simd::load(bias + j + 12) : simd::zero();
    const BT* row = b.data + j;
    for (int p = 0; p < K; ++p, row += b.rows) {
      const f32x4 x = simd::load_splat(a.data + p * a.cols);
      s0 = simd::add(s0, simd::mul(x, load4(row)));
      s1 = simd::add(s1, simd::mul(x, load4(row + 4)));
      s2 = simd::add(s2, simd::mul(x, load4(row + 8)));
      s3 = simd::add(s3, simd::mul(x, load4(row + 12)));
    }
    finish(c + j, s0), finish(c + j + 4, s1), finish(c + j + 8, s2), finish(c + j + 12, s3);
  }
  for (; j + 4 <= N; j += 4) {
    f32x4 s0 = bias ? simd::load(bias + j) : simd::zero();
    const BT* row = b.data + j;
    for (int p = 0; p < K; ++p, row += b.rows)
      s0 = simd::add(s0, simd::mul(simd::load_splat(a.data + p * a.cols), load4(row)));
    finish(c + j, s0);
  }
  for (; j < N; ++j) {
    float sum = bias ? bias[j] : 0.0f;
    for (int p = 0; p < K; ++p)
      sum += a.data[p * a.cols] * weight_to_f32(b.data[static_cast<std::ptrdiff_t>(p) * b.rows + j]);
    c[j] = accumulate ? c[j] + sum : sum;
  }
}

// One row against b in panels (gemm.h), the shape of generating one token: c (1, N) = [c +]
// (bias + x (1, K) · b). A full panel (32 columns) at a time: per step of K one broadcast of
// x(p) and 8 vectors of weights, the panel read in order from its first element to its last,
// one stream; the 32 sums live in 8 registers for the whole K loop, each in gemm_ref's order
// (bias first, p = 0 … K − 1). The last, narrower panel: 4 columns at a time, then one at a time.
// x: (K) contiguous. kScaled (halves only): x holds a·2^112 and the weights are read as h·2^−112
// (load_f16_finite_scaled), whose products are the same reals as a·h, so the same floats, with
// one op fewer per 4 weights; a: the row itself, for the last columns.
template <bool kScaled>
inline f32x4 load_weights(const float* p) {
  return simd::load(p);
}
template <bool kScaled>
inline f32x4 load_weights(const std::uint16_t* p) {
  return kScaled ? simd::load_f16_finite_scaled(p) : simd::load_f16_finite(p);
}

template <bool kScaled, typename BT>
void gemv_panels(float* c, const float* x, MatrixOf<float> a, const BT* b, const float* bias, bool accumulate, int K,
                 int N) {
  // c: (1, N); x: (K), a·2^112 when kScaled; a: (1, K) strided; b: (K, N) in panels; bias: (N) or null
  static_assert(kPanel == 32, "one panel is 8 vectors of sums");
  const f32x4 zero = simd::zero();
  auto start = [&](int j) { return bias ? simd::load(bias + j) : zero; };
  auto finish = [&](float* out, f32x4 sum) { simd::store(out, accumulate ? simd::add(simd::load(out), sum) : sum); };
  int j = 0;
  for (; j + kPanel <= N; j += kPanel) {
    const BT* w = b + j * static_cast<std::ptrdiff_t>(K);
    f32x4 s0 = start(j), s1 = start(j + 4), s2 = start(j + 8), s3 = start(j + 12), s4 = start(j + 16),
          s5 = start(j + 20), s6 = start(j + 24), s7 = start(j + 28);
    for (int p = 0; p < K; ++p, w += kPanel) {
      const f32x4 xp = simd::load_splat(x + p);
      s0 = simd::add(s0, simd::mul(xp, load_weights<kScaled>(w)));
      s1 = simd::add(s1, simd::mul(xp, load_weights<kScaled>(w + 4)));
      s2 = simd::add(s2, simd::mul(xp, load_weights<kScaled>(w + 8)));
      s3 = simd::add(s3, simd::mul(xp, load_weights<kScaled>(w + 12)));
      s4 = simd::add(s4, simd::mul(xp, load_weights<kScaled>(w + 16)));
      s5 = simd::add(s5, simd::mul(xp, load_weights<kScaled>(w + 20)));
      s6 = simd::add(s6, simd::mul(xp, load_weights<kScaled>(w + 24)));
      s7 = simd::add(s7, simd::mul(xp, load_weights<kScaled>(w + 28)));
    }
    finish(c + j, s0), finish(c + j + 4, s1), finish(c + j + 8, s2), finish(c + j + 12, s3);
    finish(c + j + 16, s4), finish(c + j + 20, s5), finish(c + j + 24, s6), finish(c + j + 28, s7);
  }
  if (j < N) {  // the last panel, n < 32 columns wide, its rows n apart
    const int n = N - j;
    const BT* w0 = b + j * static_cast<std::ptrdiff_t>(K);
    int col = 0;
    for (; col + 4 <= n; col += 4) {
      f32x4 s0 = start(j + col);
      const BT* w = w0 + col;
      for (int p = 0; p < K; ++p, w += n)
        s0 = simd::add(s0, simd::mul(simd::load_splat(x + p), load_weights<kScaled>(w)));
      finish(c + j + col, s0);
    }
    for (; col < n; ++col) {  // column by column, in the same order
      float sum = bias ? bias[j + col] : 0.0f;
      for (int p = 0; p < K; ++p) sum += a.data[p * a.cols] * weight_to_f32(w0[p * n + col]);
      c[j + col] = accumulate ? c[j + col] + sum : sum;
    }
  }
}

// gemv_panels over bfloat16 weights: per step of K one broadcast of x(p) and 4 loads of 8
// weights, each load's even columns (0 2 4 6 of its 8) read by a shift and its odd ones by a mask
// (simd::load_bf16_pairs), so the 8 registers of sums hold, per 8 columns, the even and the odd
// ones; the end interleaves them into column order. Each sum is still gemm_ref's (bias first,
// p = 0 … K − 1). The last, narrower panel: 4 columns at a time (load_bf16), then one at a time.
void gemv_panels_bf16(float* c, const float* x, const Bf16* b, const float* bias, bool accumulate, int K, int N) {
  // c: (1, N); x: (K) contiguous; b: (K, N) in panels; bias: (N) or null
  static_assert(kPanel == 32, "one panel is 4 loads of 8 weights");
  const f32x4 zero = simd::zero();
  // the starting sums of columns j, j + 2, j + 4, j + 6 (odd = false) or j + 1, … (odd = true)
  auto start = [&](int j, bool odd) {
    if (!bias) return zero;
    alignas(16) float v[4];
    for (int k = 0; k < 4; ++k) v[k] = bias[j + 2 * k + odd];
    return simd::load(v);
  };
  auto finish = [&](float* out, f32x4 sum) { simd::store(out, accumulate ? simd::add(simd::load(out), sum) : sum); };
  int j = 0;
  for (; j + kPanel <= N; j += kPanel) {
    const Bf16* w = b + j * static_cast<std::ptrdiff_t>(K);
    // e_g / o_g: the even / odd columns of columns j + 8g … j + 8g + 7
    f32x4 e0 = start(j, false), o0 = start(j, true), e1 = start(j + 8, false), o1 = start(j + 8, true),
          e2 = start(j + 16, false), o2 = start(j + 16, true), e3 = start(j + 24, false), o3 = start(j + 24, true);
    for (int p = 0; p < K; ++p, w += kPanel) {
      const f32x4 xp = simd::load_splat(x + p);
      f32x4 even, odd;
      simd::load_bf16_pairs(w, even, odd);
      e0 = simd::add(e0, simd::mul(xp, even)), o0 = simd::add(o0, simd::mul(xp, odd));
      simd::load_bf16_pairs(w + 8, even, odd);
      e1 = simd::add(e1, simd::mul(xp, even)), o1 = simd::add(o1, simd::mul(xp, odd));
      simd::load_bf16_pairs(w + 16, even, odd);
      e2 = simd::add(e2, simd::mul(xp, even)), o2 = simd::add(o2, simd::mul(xp, odd));
      simd::load_bf16_pairs(w + 24, even, odd);
      e3 = simd::add(e3, simd::mul(xp, even)), o3 = simd::add(o3, simd::mul(xp, odd));
    }
    finish(c + j, simd::interleave_low(e0, o0)), finish(c + j + 4, simd::interleave_high(e0, o0));
    finish(c + j + 8, simd::interleave_low(e1, o1)), finish(c + j + 12, simd::interleave_high(e1, o1));
    finish(c + j + 16, simd::interleave_low(e2, o2)), finish(c + j + 20, simd::interleave_high(e2, o2));
    finish(c + j + 24, simd::interleave_low(e3, o3)), finish(c + j + 28, simd::interleave_high(e3, o3));
  }
  if (j < N) {  // the last panel, n < 32 columns wide, its rows n apart
    const int n = N - j;
    const Bf16* w0 = b + j * static_cast<std::ptrdiff_t>(K);
    int col = 0;
    for (; col + 4 <= n; col += 4) {
      f32x4 s0 = bias ? simd::load(bias + j + col) : zero;
      const Bf16* w = w0 + col;
      for (int p = 0; p < K; ++p, w += n) s0 = simd::add(s0, simd::mul(simd::load_splat(x + p), simd::load_bf16(w)));
      finish(c + j + col, s0);
    }
    for (; col < n; ++col) {  // column by column, in the same order
      float sum = bias ? bias[j + col] : 0.0f;
      for (int p = 0; p < K; ++p) sum += x[p] * bf16_to_f32_ref(w0[p * n + col]);
      c[j + col] = accumulate ? c[j + col] + sum : sum;
    }
  }
}

// gemv_panels with x prepared: a's row gathered into a contiguous buffer (float32 and bfloat16
// weights, when a's elements are not adjacent), or scaled by 2^112 (halves, when every |a(p)| < 2^15 so that
// a·2^112 is finite and exact; otherwise the weights are scaled instead, as gemm_f16_simd does).
template <typename BT>
void gemv_panels_row(float* c, MatrixOf<float> a, const BT* b, const float* bias, bool accumulate, int K, int N) {
  // c: (1, N); a: (1, K) strided; b: (K, N) in panels; bias: (N) or null
  constexpr bool kHalves = std::is_same_v<BT, std::uint16_t>;
  // the row contiguous: a's own elements where they are adjacent, else gathered (halves always:
  // they may be scaled below)
  const float* row = a.data;
  float* x = nullptr;
  if (a.cols != 1 || kHalves) {
    x = t_rows.get(static_cast<std::size_t>(std::max(K, 1)));
    for (int p = 0; p < K; ++p) x[p] = a.data[p * a.cols];
    row = x;
  }
  if constexpr (std::is_same_v<BT, Bf16>) {  // bfloat16s convert exactly without a scale
    gemv_panels_bf16(c, row, b, bias, accumulate, K, N);
  } else if constexpr (!kHalves) {
    gemv_panels<false>(c, row, a, b, bias, accumulate, K, N);
  } else {
    bool scale = true;
    for (int p = 0; p < K; ++p)
      if (!(std::fabs(x[p]) < 0x1.0p15f)) scale = false;  // NaN too
    if (!scale) return gemv_panels<false>(c, x, a, b, bias, accumulate, K, N);
    for (int p = 0; p < K; ++p) x[p] *= 0x1.0p112f;
    gemv_panels<true>(c, x, a, b, bias, accumulate, K, N);
  }
}

template <typename BM>
void gemm_packed(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, BM b, const float* bias, bool accumulate, int M,
                 int K, int N) {
  // c: (M, N) row stride ldc; a: (M, K), b: (K, N) strided (MatrixOf) or in panels (PanelsOf);
  // bias: (N) or null
  if (M <= 0 || N <= 0) return;

  K = std::max(K, 0);
  const std::size_t k_floats = static_cast<std::size_t>(std::max(K, 1));
  const int panels = (N + kNr - 1) / kNr;
  const std::size_t panel_floats = k_floats * kNr;
  const int block = static_cast<int>(std::clamp<std::size_t>(kBlockFloats / panel_floats, 1, panels));
  const int band = static_cast<int>(std::max<std::size_t>(1, kBandFloats / (k_floats * kMr))) * kMr;
  // With more than one band of rows, a row-major b (rows contiguous) not too large is packed
  // whole, once, in one pass over its rows: packed block by block it was walked, all K rows, once
  // per block and band, a TLB miss per row when K is in the thousands (dx += dy·w, K = out
  // features): measured 10–20% faster at 64 and 256 rows, and slower at 16 (one band).
  const bool whole = rows_contiguous(b) && M > band && panel_floats * panels <= kWholeFloats;
  float* packed_b = t_panels.get(panel_floats * (whole ? panels : block));
  if (whole) pack_b_block(packed_b, b, K, N, 0, N);
  float* packed_a = t_rows.get(k_floats * std::min(band, (M + kMr - 1) / kMr * kMr));
  for (int r0 = 0; r0 < M; r0 += band) {  // a band of rows, packed once
    const int r1 = std::min(M, r0 + band);
    for (int i0 = r0; i0 < r1; i0 += kMr)
      pack_a_rows(packed_a + (i0 - r0) * k_floats, a, K, i0, std::min(kMr, r1 - i0));
    for (int q0 = 0; q0 < panels; q0 += block) {  // a block of columns, packed once per band
      const int q1 = std::min(panels, q0 + block);
      if (!whole) pack_b_block(packed_b, b, K, N, q0 * kNr, std::min(N, q1 * kNr));
      const float* block_b = whole ? packed_b + q0 * panel_floats : packed_b;
      for (int i0 = r0; i0 < r1; i0 += kMr) {
        const int mr = std::min(kMr, r1 - i0);
        float* crow = c + i0 * ldc;
        for (int q = q0; q < q1; ++q) {
          const int j0 = q * kNr, n = std::min(kNr, N - j0);
          alignas(16) float init8[kNr] = {};
          if (bias) std::copy(bias + j0, bias + j0 + n, init8);
          micro_rows(mr, crow + j0, ldc, n, packed_a + (i0 - r0) * k_floats, block_b + (q - q0) * panel_floats, K,
                     init8, accumulate);
        }
      }
    }
  }
}

}  // namespace

void gemm_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, MatrixOf<float> b, const float* bias, bool accumulate,
               int M, int K, int N) {
  gemm_packed(c, ldc, a, b, bias, accumulate, M, K, N);
}

void gemm_f16_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, MatrixOf<std::uint16_t> b, const float* bias,
                   bool accumulate, int M, int K, int N) {
  gemm_packed(c, ldc, a, b, bias, accumulate, M, K, N);
}

void gemm_row_simd(float* c, MatrixOf<float> a, MatrixOf<float> b, const float* bias, bool accumulate, int K, int N) {
  if (N <= 0) return;
  if (b.cols == 1) return gemv_rows(c, a, b, bias, accumulate, std::max(K, 0), N);
  if (b.rows != 1) return gemm_packed(c, N, a, b, bias, accumulate, 1, K, N);
  gemv_columns(c, a, b, bias, accumulate, std::max(K, 0), N);
}

void gemm_row_f16_simd(float* c, MatrixOf<float> a, MatrixOf<std::uint16_t> b, const float* bias, bool accumulate,
                       int K, int N) {
  if (N <= 0) return;
  if (b.cols == 1) return gemv_rows(c, a, b, bias, accumulate, std::max(K, 0), N);
  if (b.rows != 1) return gemm_packed(c, N, a, b, bias, accumulate, 1, K, N);
  gemv_columns(c, a, b, bias, accumulate, std::max(K, 0), N);
}

void gemm_panels_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<float> b, const float* bias,
                      bool accumulate, int M, int K, int N) {
  if (M == 1 && N > 0) return gemv_panels_row(c, a, b.data, bias, accumulate, std::max(K, 0), N);
  gemm_packed(c, ldc, a, b, bias, accumulate, M, K, N);
}

void gemm_panels_f16_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<std::uint16_t> b, const float* bias,
                          bool accumulate, int M, int K, int N) {
  if (M == 1 && N > 0) return gemv_panels_row(c, a, b.data, bias, accumulate, std::max(K, 0), N);
  gemm_packed(c, ldc, a, b, bias, accumulate, M, K, N);
}

void gemm_panels_bf16_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<Bf16> b, const float* bias,
                           bool accumulate, int M, int K, int N) {
  if (M == 1 && N > 0) return gemv_panels_row(c, a, b.data, bias, accumulate, std::max(K, 0), N);
  gemm_packed(c, ldc, a, b, bias, accumulate, M, K, N);
}

}  // namespace attn::kernels

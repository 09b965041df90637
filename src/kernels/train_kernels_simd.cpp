// f32x4 versions of the training kernels (train_kernels.h): the same sums as
// train_kernels_ref.cpp in a different order, and GELU with a vector erf and exp.
//
// Legend: M/K/N matrix sizes, n element count; MR rows of C per micro-kernel call, 8 = panel
// width (2 vectors), KC = the slice of K one packed panel holds.
//
// Products:
// One micro-kernel serves both products: C (MR × 8) += A' (MR × KC) · B (KC × 8), where A' is
// read in place through two strides (element (r, p) at a[r·ar + p·ap]: ar = K, ap = 1 for
// a (M, K); ar = 1, ap = M for the transposed a (K, M), whose MR values for one p are
// adjacent) and B is packed into zero-padded panels of 8 columns. The MR × 8 block of C is
// loaded into 2·MR vector registers, updated for the whole slice and stored back, so each B
// vector is used MR times and no horizontal sum is needed. K is cut into slices of KC = 256 so
// a panel (8 KB) and the MR rows of A' it meets (4 KB) stay in L1 for K in the thousands (the
// weight gradient has K = rows). MR = 4: 8 accumulators + 2 B vectors + 1 broadcast fit the
// 16 vector registers of x86 and V8 without spills.
//
// This is the same register tiling as kernels_simd.cpp's attention products (C = A·B with a
// scale and bias, no accumulation); that file's helpers are private to it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "f32x4.h"
#include "train_kernels.h"

namespace attn::kernels {

namespace {

using simd::f32x4;
constexpr int kNr = 8;    // panel width: 2 vectors
constexpr int kMr = 4;    // rows per micro-kernel call
constexpr int kKc = 256;  // rows of B per packed slice

// A zero-filled float buffer whose data starts on a 64-byte line (std::vector's storage is
// only 8- or 16-byte aligned under Emscripten's malloc; see kernels_simd.cpp's Scratch).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t n) : raw_(n + kPad, 0.0f) {
    const auto addr = reinterpret_cast<std::uintptr_t>(raw_.data());
    data_ = raw_.data() + ((64 - addr % 64) % 64) / sizeof(float);
  }
  float* data() { return data_; }

 private:
  static constexpr std::size_t kPad = 64 / sizeof(float);
  std::vector<float> raw_;
  float* data_;
};

// Packs rows [k0, k0 + kc) of b (K, N) into ceil(N / 8) panels of (kc × 8), zero-padded on the
// right. Panel q starts at out + q·kc·8.
void pack_panels(float* out, const float* b, int N, int k0, int kc) {
  for (int j0 = 0; j0 < N; j0 += kNr) {
    float* panel = out + static_cast<std::ptrdiff_t>(j0 / kNr) * kc * kNr;
    const int n = std::min(kNr, N - j0);
    for (int p = 0; p < kc; ++p) {
      const float* row = b + static_cast<std::ptrdiff_t>(k0 + p) * N + j0;
      for (int j = 0; j < n; ++j) panel[p * kNr + j] = row[j];
      for (int j = n; j < kNr; ++j) panel[p * kNr + j] = 0.0f;
    }
  }
}

// c (MR × n, row stride ldc, n ≤ 8) += A' (MR × kc) · panel (kc × 8), A'(r, p) = a[r·ar + p·ap].
// The sums live in a local array for the whole loop (accumulating through memory makes clang
// store every accumulator on every step: a v128 may alias the float inputs).
template <int MR>
inline void block_acc(float* c, std::ptrdiff_t ldc, int n, const float* a, std::ptrdiff_t ar, std::ptrdiff_t ap,
                      const float* panel, int kc) {
  f32x4 acc[MR][2];
  for (int r = 0; r < MR; ++r) {
    float* crow = c + r * ldc;
    if (n == kNr) {
      acc[r][0] = simd::load(crow);
      acc[r][1] = simd::load(crow + 4);
    } else {
      float tmp[kNr] = {};
      for (int j = 0; j < n; ++j) tmp[j] = crow[j];
      acc[r][0] = simd::load(tmp);
      acc[r][1] = simd::load(tmp + 4);
    }
  }
  std::ptrdiff_t offset[MR];
  for (int r = 0; r < MR; ++r) offset[r] = r * ar;
  const float* ak = a;
  for (int p = 0; p < kc; ++p, ak += ap) {
    const f32x4 b0 = simd::load(panel + p * kNr);
    const f32x4 b1 = simd::load(panel + p * kNr + 4);
    for (int r = 0; r < MR; ++r) {
      const f32x4 x = simd::load_splat(ak + offset[r]);
      acc[r][0] = simd::add(acc[r][0], simd::mul(x, b0));
      acc[r][1] = simd::add(acc[r][1], simd::mul(x, b1));
    }
  }
  for (int r = 0; r < MR; ++r) {
    float* crow = c + r * ldc;
    if (n == kNr) {
      simd::store(crow, acc[r][0]);
      simd::store(crow + 4, acc[r][1]);
    } else {
      float tmp[kNr];
      simd::store(tmp, acc[r][0]);
      simd::store(tmp + 4, acc[r][1]);
      for (int j = 0; j < n; ++j) crow[j] = tmp[j];
    }
  }
}

// c (M, N) += A' (M, K) · b (K, N) with A'(i, p) = a[i·ai + p·ap].
void gemm_acc(float* c, const float* a, std::ptrdiff_t ai, std::ptrdiff_t ap, const float* b, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const int panels_n = (N + kNr - 1) / kNr;
  AlignedBuffer panels(static_cast<std::size_t>(panels_n) * kNr * std::min(K, kKc));
  for (int k0 = 0; k0 < K; k0 += kKc) {
    const int kc = std::min(kKc, K - k0);
    pack_panels(panels.data(), b, N, k0, kc);
    const float* a0 = a + k0 * ap;
    for (int i0 = 0; i0 < M; i0 += kMr) {
      const int mr = std::min(kMr, M - i0);
      float* crow = c + static_cast<std::ptrdiff_t>(i0) * N;
      for (int q = 0; q < panels_n; ++q) {
        const float* panel = panels.data() + static_cast<std::ptrdiff_t>(q) * kc * kNr;
        const int n = std::min(kNr, N - q * kNr);
        if (mr == kMr) {
          block_acc<kMr>(crow + q * kNr, N, n, a0 + i0 * ai, ai, ap, panel, kc);
        } else {
          for (int r = 0; r < mr; ++r)
            block_acc<1>(crow + r * static_cast<std::ptrdiff_t>(N) + q * kNr, N, n, a0 + (i0 + r) * ai, ai, ap, panel,
                         kc);
        }
      }
    }
  }
}

// erf(x) by Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7 for every x), as torch's
// Vectorized<float>::erf: with t = 1/(1 + p·|x|),
//   erf(|x|) = 1 − t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·e^(−x²),  erf(−x) = −erf(x).
// For |x| > 9.3, e^(−x²) underflows to exactly 0 in the f32x4 exp, so erf is exactly ±1.
inline f32x4 erf4(f32x4 x) {
  const f32x4 zero = simd::zero(), one = simd::splat(1.0f);
  const f32x4 ax = simd::max(x, simd::sub(zero, x));
  const f32x4 t = simd::div(one, simd::add(one, simd::mul(simd::splat(0.3275911f), ax)));
  f32x4 r = simd::splat(1.061405429f);
  r = simd::add(simd::mul(r, t), simd::splat(-1.453152027f));
  r = simd::add(simd::mul(r, t), simd::splat(1.421413741f));
  r = simd::add(simd::mul(r, t), simd::splat(-0.284496736f));
  r = simd::add(simd::mul(r, t), simd::splat(0.254829592f));
  const f32x4 e = simd::exp(simd::sub(zero, simd::mul(x, x)));
  const f32x4 y = simd::sub(one, simd::mul(simd::mul(r, t), e));
  return simd::select(simd::less(x, zero), y, simd::sub(zero, y));  // odd: −y where x < 0
}

constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;

// y = x · 0.5 · (1 + erf(x·√½)) for 4 lanes.
inline f32x4 gelu4(f32x4 x) {
  const f32x4 cdf2 = simd::add(simd::splat(1.0f), erf4(simd::mul(x, simd::splat(kSqrtHalf))));
  return simd::mul(simd::mul(x, simd::splat(0.5f)), cdf2);
}

// dy · (cdf + x·pdf) for 4 lanes.
inline f32x4 gelu_grad4(f32x4 dy, f32x4 x) {
  const f32x4 cdf =
      simd::mul(simd::splat(0.5f), simd::add(simd::splat(1.0f), erf4(simd::mul(x, simd::splat(kSqrtHalf)))));
  const f32x4 pdf = simd::mul(simd::splat(kInvSqrt2Pi), simd::exp(simd::mul(simd::mul(x, x), simd::splat(-0.5f))));
  return simd::mul(dy, simd::add(cdf, simd::mul(x, pdf)));
}

constexpr float kSqrtTwoOverPi = 0.79788456080286535588f;  // √(2/π), GPT-2's gelu_new
constexpr float kGeluCubic = 0.044715f;

// s = 0.5·(1 + tanh u) = 1/(1 + e^(−2u)) and e^(−2u) for 4 lanes, u = √(2/π)·(x + 0.044715·x³).
// Where −2u > 87 (e^(−2u) beyond float's range), s is exactly 0, as 1 + tanh u is in float.
inline f32x4 gelu_tanh_sigmoid4(f32x4 x, f32x4& e) {
  const f32x4 u = simd::mul(simd::splat(kSqrtTwoOverPi),
                            simd::add(x, simd::mul(simd::splat(kGeluCubic), simd::mul(simd::mul(x, x), x))));
  const f32x4 minus_2u = simd::mul(u, simd::splat(-2.0f));
  e = simd::exp(minus_2u);
  const f32x4 s = simd::div(simd::splat(1.0f), simd::add(simd::splat(1.0f), e));
  return simd::select(simd::less(simd::splat(87.0f), minus_2u), s, simd::zero());
}

// y = x · s for 4 lanes.
inline f32x4 gelu_tanh4(f32x4 x) {
  f32x4 e;
  return simd::mul(x, gelu_tanh_sigmoid4(x, e));
}

// dy · (s + 2·x·s·(1 − s)·√(2/π)·(1 + 3·0.044715·x²)) for 4 lanes, with 1 − s = e·s (exact where s ≈ 1).
inline f32x4 gelu_tanh_grad4(f32x4 dy, f32x4 x) {
  f32x4 e;
  const f32x4 s = gelu_tanh_sigmoid4(x, e);
  const f32x4 du = simd::mul(simd::splat(kSqrtTwoOverPi),
                             simd::add(simd::splat(1.0f), simd::mul(simd::splat(3.0f * kGeluCubic), simd::mul(x, x))));
  const f32x4 slope = simd::mul(simd::mul(simd::mul(simd::splat(2.0f), x), simd::mul(s, simd::mul(e, s))), du);
  return simd::mul(dy, simd::add(s, slope));
}

}  // namespace

void matmul_acc_simd(float* c, const float* a, const float* b, int M, int K, int N) {
  // c: (M, N) +=, a: (M, K) read in place (ai = K, ap = 1), b: (K, N) packed
  gemm_acc(c, a, K, 1, b, M, K, N);
}

void matmul_tn_simd(float* c, const float* a, const float* b, int M, int K, int N) {
  // c: (M, N) +=, a: (K, M) read transposed in place (ai = 1, ap = M), b: (K, N) packed
  gemm_acc(c, a, 1, M, b, M, K, N);
}

namespace {

// y (n) = op(x (n)) lane by lane; the last n mod 4 values go through the same vector code, padded.
template <f32x4 (*op)(f32x4)>
void map_lanes(float* y, const float* x, long long n) {
  long long i = 0;
  for (; i + 4 <= n; i += 4) simd::store(y + i, op(simd::load(x + i)));
  if (i < n) {
    float in[4] = {}, out[4];
    for (long long k = i; k < n; ++k) in[k - i] = x[k];
    simd::store(out, op(simd::load(in)));
    for (long long k = i; k < n; ++k) y[k] = out[k - i];
  }
}

// dx (n) += grad(dy, x) lane by lane, padded likewise.
template <f32x4 (*grad)(f32x4, f32x4)>
void accumulate_lanes(float* dx, const float* dy, const float* x, long long n) {
  long long i = 0;
  for (; i + 4 <= n; i += 4)
    simd::store(dx + i, simd::add(simd::load(dx + i), grad(simd::load(dy + i), simd::load(x + i))));
  if (i < n) {
    float g[4] = {}, in[4] = {}, out[4];
    for (long long k = i; k < n; ++k) g[k - i] = dy[k], in[k - i] = x[k];
    simd::store(out, grad(simd::load(g), simd::load(in)));
    for (long long k = i; k < n; ++k) dx[k] += out[k - i];
  }
}

}  // namespace

void gelu_forward_simd(float* y, const float* x, long long n) { map_lanes<gelu4>(y, x, n); }
void gelu_backward_simd(float* dx, const float* dy, const float* x, long long n) {
  accumulate_lanes<gelu_grad4>(dx, dy, x, n);
}
void gelu_tanh_forward_simd(float* y, const float* x, long long n) { map_lanes<gelu_tanh4>(y, x, n); }
void gelu_tanh_backward_simd(float* dx, const float* dy, const float* x, long long n) {
  accumulate_lanes<gelu_tanh_grad4>(dx, dy, x, n);
}

}  // namespace attn::kernels

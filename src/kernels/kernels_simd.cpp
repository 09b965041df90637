// f32x4 kernels: the same math as kernels_ref.cpp, written for 4-lane vectors.
//
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
//
// Every product here is one micro-kernel: C (MR × 8) = A (MR × K) · B (K × 8), where a row of
// A is broadcast one element at a time and B is a packed panel (8 consecutive columns stored
// row after row, zero-padded). The MR × 8 block of C lives in 2·MR vector registers for the
// whole K loop, so each loaded B vector is used MR times and each broadcast A value twice:
// no horizontal reductions inside the hot loop. MR = 4 keeps 8 accumulators + 2 B vectors +
// 1 broadcast within the 16 vector registers V8 and x86 have, with no spills.
//
// Packing costs K·N copies per call (T·hk for the keys), small next to the T²·hk products.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "f32x4.h"
#include "gemm.h"
#include "kernels.h"

namespace attn::kernels {

namespace {

using simd::f32x4;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
constexpr int kNr = 8;  // panel width: 2 vectors
constexpr int kMr = 4;  // rows per micro-kernel call

inline int round_up(int n, int m) { return (n + m - 1) / m * m; }

// A zero-filled float scratch buffer aligned to a 64-byte cache line. std::vector's storage is
// only 8- or 16-byte aligned under Emscripten's malloc, and whether a packed panel happens to
// straddle cache lines then changes from call to call: measured 2x swings in the fused kernel.
class Scratch {
 public:
  explicit Scratch(std::size_t n) : raw_(n + kPad, 0.0f) {
    const auto addr = reinterpret_cast<std::uintptr_t>(raw_.data());
    data_ = raw_.data() + ((64 - addr % 64) % 64) / sizeof(float);
  }
  float* data() { return data_; }
  float& operator[](std::size_t i) { return data_[i]; }

 private:
  static constexpr std::size_t kPad = 64 / sizeof(float);
  std::vector<float> raw_;
  float* data_;
};

// acc (MR × 8) += a (MR rows, stride lda) · b (K × 8 panel).
// The sums live in a local array for the whole loop: accumulating through the `acc`
// reference instead makes clang store every accumulator on every step (a v128 may alias
// the float inputs), which halves the speed under V8.
template <int MR>
inline void micro_acc(f32x4 (&acc)[MR][2], const float* a, std::ptrdiff_t lda, const float* b, int K) {
  f32x4 c[MR][2];
  for (int r = 0; r < MR; ++r) {
    c[r][0] = acc[r][0];
    c[r][1] = acc[r][1];
  }
  for (int p = 0; p < K; ++p) {
    const f32x4 b0 = simd::load(b + p * kNr);
    const f32x4 b1 = simd::load(b + p * kNr + 4);
    for (int r = 0; r < MR; ++r) {
      const f32x4 x = simd::load_splat(a + r * lda + p);
      c[r][0] = simd::add(c[r][0], simd::mul(x, b0));
      c[r][1] = simd::add(c[r][1], simd::mul(x, b1));
    }
  }
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = c[r][0];
    acc[r][1] = c[r][1];
  }
}

// acc (MR × 8) = a · b, same shapes as micro_acc().
template <int MR>
inline void micro(f32x4 (&acc)[MR][2], const float* a, std::ptrdiff_t lda, const float* b, int K) {
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = simd::zero();
  micro_acc<MR>(acc, a, lda, b, K);
}

// Stores columns [0, n) of an MR × 8 block (n ≤ 8) into c (stride ldc), scaled by alpha and
// plus bias (8 values, may be null).
template <int MR>
inline void store_block(float* c, std::ptrdiff_t ldc, const f32x4 (&acc)[MR][2], int n, float alpha,
                        const float* bias8) {
  const f32x4 va = simd::splat(alpha);
  for (int r = 0; r < MR; ++r) {
    f32x4 v0 = simd::mul(acc[r][0], va), v1 = simd::mul(acc[r][1], va);
    if (bias8) {
      v0 = simd::add(v0, simd::load(bias8));
      v1 = simd::add(v1, simd::load(bias8 + 4));
    }
    if (n == kNr) {
      simd::store(c + r * ldc, v0);
      simd::store(c + r * ldc + 4, v1);
    } else {
      float tmp[kNr];
      simd::store(tmp, v0);
      simd::store(tmp + 4, v1);
      for (int j = 0; j < n; ++j) c[r * ldc + j] = tmp[j];
    }
  }
}

// Packs the (K × N) matrix whose element (p, j) is src[p·sp + j·sj] into ceil(N/8) panels of
// (K × 8), zero-padded on the right. Panel q starts at out + q·K·8.
void pack_panels(float* out, const float* src, int K, int N, std::ptrdiff_t sp, std::ptrdiff_t sj) {
  for (int j0 = 0; j0 < N; j0 += kNr) {
    float* panel = out + static_cast<std::ptrdiff_t>(j0 / kNr) * K * kNr;
    const int n = std::min(kNr, N - j0);
    for (int p = 0; p < K; ++p) {
      for (int j = 0; j < n; ++j) panel[p * kNr + j] = src[p * sp + (j0 + j) * sj];
      for (int j = n; j < kNr; ++j) panel[p * kNr + j] = 0.0f;
    }
  }
}

// Vectorised row max over n floats (n ≥ 0; −∞ when n = 0).
inline float row_max(const float* x, int n) {
  int j = 0;
  f32x4 m = simd::splat(kMinusInf);
  for (; j + 4 <= n; j += 4) m = simd::max(m, simd::load(x + j));
  float r = simd::hmax(m);
  for (; j < n; ++j) r = x[j] > r ? x[j] : r;
  return r;
}

// x[j] = e^(x[j] − shift) for j < n, in place; returns the sum.
inline float exp_shift_sum(float* x, int n, float shift) {
  const f32x4 vs = simd::splat(shift);
  f32x4 s0 = simd::zero();
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    const f32x4 e = simd::exp(simd::sub(simd::load(x + j), vs));
    simd::store(x + j, e);
    s0 = simd::add(s0, e);
  }
  float sum = simd::hsum(s0);
  if (j < n) {  // the tail through one padded vector, so every element uses the same exp
    float tmp[4] = {kMinusInf, kMinusInf, kMinusInf, kMinusInf};
    for (int t = 0; j + t < n; ++t) tmp[t] = x[j + t];
    const f32x4 e = simd::exp(simd::sub(simd::load(tmp), vs));
    simd::store(tmp, e);
    for (int t = 0; j + t < n; ++t) {
      x[j + t] = tmp[t];
      sum += tmp[t];
    }
  }
  return sum;
}

inline void scale_in_place(float* x, int n, float s) {
  const f32x4 vs = simd::splat(s);
  int j = 0;
  for (; j + 4 <= n; j += 4) simd::store(x + j, simd::mul(simd::load(x + j), vs));
  for (; j < n; ++j) x[j] *= s;
}

}  // namespace

// The projections are gemm_simd (gemm.h), equal to matmul_ref / matmul_nt_ref bit for bit.
void matmul_simd(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (K, N), bias: (N) or null
  gemm_simd(y, N, {x, K, 1}, {w, N, 1}, bias, false, M, K, N);
}

void matmul_nt_simd(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (N, K) nn.Linear layout, bias: (N) or null
  gemm_simd(y, N, {x, K, 1}, {w, 1, K}, bias, false, M, K, N);
}

void qk_scores_simd(float* scores, const float* q, const float* k, int T, int hk, float alpha, bool causal) {
  // scores: (T, T), q: (T, hk), k: (T, hk); kᵀ is packed into panels of 8 keys (hk × 8).
  if (T <= 0) return;
  Scratch kt(static_cast<std::size_t>(round_up(T, kNr)) * std::max(hk, 1));
  pack_panels(kt.data(), k, hk, T, 1, hk);
  f32x4 acc4[kMr][2];
  f32x4 acc1[1][2];
  for (int i0 = 0; i0 < T; i0 += kMr) {
    const int mr = std::min(kMr, T - i0);
    // Causal: this block of rows needs keys j ≤ i0 + mr − 1 only; panels past it are skipped.
    const int ncols = causal ? i0 + mr : T;
    float* srow = scores + static_cast<std::ptrdiff_t>(i0) * T;
    for (int j0 = 0; j0 < ncols; j0 += kNr) {
      const float* panel = kt.data() + static_cast<std::ptrdiff_t>(j0 / kNr) * hk * kNr;
      const int n = std::min(kNr, T - j0);
      if (mr == kMr) {
        micro<kMr>(acc4, q + static_cast<std::ptrdiff_t>(i0) * hk, hk, panel, hk);
        store_block<kMr>(srow + j0, T, acc4, n, alpha, nullptr);
      } else {
        for (int r = 0; r < mr; ++r) {
          micro<1>(acc1, q + static_cast<std::ptrdiff_t>(i0 + r) * hk, hk, panel, hk);
          store_block<1>(srow + static_cast<std::ptrdiff_t>(r) * T + j0, T, acc1, n, alpha, nullptr);
        }
      }
    }
    if (causal) {  // the masked half: −∞, including the few entries the last panel computed
      for (int r = 0; r < mr; ++r) {
        float* row = srow + static_cast<std::ptrdiff_t>(r) * T;
        std::fill(row + i0 + r + 1, row + T, kMinusInf);
      }
    }
  }
}

void softmax_rows_simd(float* w, int rows, int cols, bool causal) {
  // w: (rows, cols), in place; passes as in the reference: max, exp and sum, normalise.
  for (int i = 0; i < rows; ++i) {
    float* row = w + static_cast<std::ptrdiff_t>(i) * cols;
    const int live = causal ? std::min(i + 1, cols) : cols;
    const float max = row_max(row, live);  // 1. row max
    if (max == kMinusInf) {                // fully masked row
      std::fill(row, row + cols, 0.0f);
      continue;
    }
    const float sum = exp_shift_sum(row, live, max);  // 2. exp and sum
    scale_in_place(row, live, 1.0f / sum);            // 3. normalise
    std::fill(row + live, row + cols, 0.0f);
  }
}

void weighted_sum_simd(float* out, const float* w, const float* v, int T, int hv, bool causal) {
  // out: (T, hv), w: (T, T), v: (T, hv); v is packed into panels of 8 columns (T × 8).
  if (T <= 0 || hv <= 0) return;
  Scratch vp(static_cast<std::size_t>(round_up(hv, kNr)) * T);
  pack_panels(vp.data(), v, T, hv, hv, 1);
  f32x4 acc4[kMr][2];
  f32x4 acc1[1][2];
  for (int i0 = 0; i0 < T; i0 += kMr) {
    const int mr = std::min(kMr, T - i0);
    const float* wrow = w + static_cast<std::ptrdiff_t>(i0) * T;
    for (int c0 = 0; c0 < hv; c0 += kNr) {
      const float* panel = vp.data() + static_cast<std::ptrdiff_t>(c0 / kNr) * T * kNr;
      const int n = std::min(kNr, hv - c0);
      if (mr == kMr) {
        // Keys j ≤ i0 are live for all four rows; the triangle j ∈ (i0, i0 + 3] row by row,
        // so weights above the diagonal are never read.
        const int shared = causal ? i0 + 1 : T;
        micro<kMr>(acc4, wrow, T, panel, shared);
        if (causal) {
          for (int r = 1; r < kMr; ++r) {
            f32x4 one[1][2] = {{acc4[r][0], acc4[r][1]}};
            micro_acc<1>(one, wrow + static_cast<std::ptrdiff_t>(r) * T + shared, T, panel + shared * kNr, r);
            acc4[r][0] = one[0][0];
            acc4[r][1] = one[0][1];
          }
        }
        store_block<kMr>(out + static_cast<std::ptrdiff_t>(i0) * hv + c0, hv, acc4, n, 1.0f, nullptr);
      } else {
        for (int r = 0; r < mr; ++r) {
          const int live = causal ? i0 + r + 1 : T;
          micro<1>(acc1, wrow + static_cast<std::ptrdiff_t>(r) * T, T, panel, live);
          store_block<1>(out + static_cast<std::ptrdiff_t>(i0 + r) * hv + c0, hv, acc1, n, 1.0f, nullptr);
        }
      }
    }
  }
}

// Fused attention, FlashAttention style, for one head.
//
//   out (T, hv) = softmax(alpha · q kᵀ, masked) · v
//
// Keys that key_keep drops are removed while packing (they contribute nothing), so padding
// costs nothing in the loops; cnt[i] = number of kept keys among 0..i is then the causal
// limit of row i in the packed order. Memory beyond inputs and output: packed kᵀ and v
// (T·hk + T·hv, rounded up to 8 columns) plus one (Br × Bc) score tile and (Br × hv)
// accumulator: O(T·hs), never T×T.
//
// For each block of Br query rows, for each tile of Bc keys:
//   1. scores   S = alpha · Q_blk · Kᵀ_tile (micro-kernel, MR rows at a time)
//   2. row max  m_new = max(m, max_j S), masked entries −∞
//   3. exp, sum P = e^(S − m_new), l = l · e^(m − m_new) + Σ P; O rescaled by e^(m − m_new)
//   4. weighted sum  O_blk += P · V_tile (micro-kernel over panels of 8 value columns)
// and at the end 5. normalise O / l (0 for a row with no kept key).
void attention_tiled_simd(float* out, float* lse, const float* q, const float* k, const float* v,
                          const std::uint8_t* key_keep, int T, int hk, int hv, float alpha, bool causal) {
  // out: (T, hv), lse: (T) or null, q: (T, hk), k: (T, hk), v: (T, hv), key_keep: (T) or null
  if (T <= 0 || hv <= 0) return;
#ifndef ATTN_TILE_BR
#define ATTN_TILE_BR 32
#define ATTN_TILE_BC 64
#endif
  constexpr int kBr = ATTN_TILE_BR;  // query rows per block: a Kᵀ tile is reused by 8 micro-kernel calls
  constexpr int kBc = ATTN_TILE_BC;  // keys per tile: Kᵀ and V tiles (64 × 64 floats each) stay in L1

  // Compact the kept keys and count them per row.
  std::vector<int> cnt(T);
  std::vector<int> kept;
  kept.reserve(T);
  for (int j = 0; j < T; ++j) {
    if (!key_keep || key_keep[j]) kept.push_back(j);
    cnt[j] = static_cast<int>(kept.size());
  }
  const int Tk = static_cast<int>(kept.size());
  const int hvp = round_up(hv, kNr);
  const int Tkp = round_up(std::max(Tk, 1), kBc);
  // kᵀ panels: (hk × 8) per 8 kept keys; v panels: (Tkp × 8) per 8 value columns.
  Scratch kt(static_cast<std::size_t>(Tkp) * std::max(hk, 1));
  Scratch vp(static_cast<std::size_t>(hvp) * Tkp);
  for (int jj = 0; jj < Tk; ++jj) {
    const float* krow = k + static_cast<std::ptrdiff_t>(kept[jj]) * hk;
    float* kdst = kt.data() + static_cast<std::ptrdiff_t>(jj / kNr) * hk * kNr + jj % kNr;
    for (int c = 0; c < hk; ++c) kdst[c * kNr] = krow[c];
    const float* vrow = v + static_cast<std::ptrdiff_t>(kept[jj]) * hv;
    for (int c = 0; c < hv; ++c) vp[static_cast<std::ptrdiff_t>(c / kNr) * Tkp * kNr + jj * kNr + c % kNr] = vrow[c];
  }

  Scratch s_tile(static_cast<std::size_t>(kBr) * kBc);
  Scratch o_blk(static_cast<std::size_t>(kBr) * hvp);
  float m[kBr], l[kBr];
  int limit[kBr];
  f32x4 acc[kMr][2];
  f32x4 acc1[1][2];

  for (int i0 = 0; i0 < T; i0 += kBr) {
    const int br = std::min(kBr, T - i0);
    for (int r = 0; r < br; ++r) {
      m[r] = kMinusInf;
      l[r] = 0.0f;
      limit[r] = causal ? cnt[i0 + r] : Tk;  // kept keys visible to row i0 + r
    }
    std::fill(o_blk.data(), o_blk.data() + static_cast<std::size_t>(kBr) * hvp, 0.0f);
    const int block_limit = causal ? cnt[i0 + br - 1] : Tk;

    for (int j0 = 0; j0 < block_limit; j0 += kBc) {
      const int bc = std::min(kBc, block_limit - j0);
      // 1. scores for the tile, MR rows at a time; sub-blocks entirely above the diagonal skipped.
      for (int r0 = 0; r0 < br; r0 += kMr) {
        const int mr = std::min(kMr, br - r0);
        const int sub_limit = std::min(bc, limit[r0 + mr - 1] - j0);
        for (int jp = 0; jp < sub_limit; jp += kNr) {
          const float* panel = kt.data() + static_cast<std::ptrdiff_t>((j0 + jp) / kNr) * hk * kNr;
          if (mr == kMr) {
            micro<kMr>(acc, q + static_cast<std::ptrdiff_t>(i0 + r0) * hk, hk, panel, hk);
            store_block<kMr>(s_tile.data() + r0 * kBc + jp, kBc, acc, kNr, alpha, nullptr);
          } else {
            for (int r = 0; r < mr; ++r) {
              micro<1>(acc1, q + static_cast<std::ptrdiff_t>(i0 + r0 + r) * hk, hk, panel, hk);
              store_block<1>(s_tile.data() + (r0 + r) * kBc + jp, kBc, acc1, kNr, alpha, nullptr);
            }
          }
        }
      }
      // 2–3. online softmax per row over its live columns [0, n).
      for (int r = 0; r < br; ++r) {
        const int n = std::min(bc, limit[r] - j0);
        float* srow = s_tile.data() + r * kBc;
        if (n <= 0) {  // nothing visible in this tile: weight 0 for the whole row
          std::fill(srow, srow + bc, 0.0f);
          continue;
        }
        const float m_new = std::max(m[r], row_max(srow, n));
        const float correction = std::exp(m[r] - m_new);  // 0 on the first tile (m = −∞)
        const float sum = exp_shift_sum(srow, n, m_new);
        std::fill(srow + n, srow + bc, 0.0f);
        l[r] = l[r] * correction + sum;
        if (correction != 1.0f) scale_in_place(o_blk.data() + r * hvp, hvp, correction);
        m[r] = m_new;
      }
      // 4. O_blk += P · V_tile, keeping each (MR × 8) block of O in registers over the tile.
      for (int r0 = 0; r0 < br; r0 += kMr) {
        const int mr = std::min(kMr, br - r0);
        const int kk = std::max(0, std::min(bc, limit[r0 + mr - 1] - j0));
        if (kk == 0) continue;
        for (int c0 = 0; c0 < hvp; c0 += kNr) {
          const float* panel =
              vp.data() + static_cast<std::ptrdiff_t>(c0 / kNr) * Tkp * kNr + static_cast<std::ptrdiff_t>(j0) * kNr;
          float* o = o_blk.data() + r0 * hvp + c0;
          if (mr == kMr) {
            for (int r = 0; r < kMr; ++r) {
              acc[r][0] = simd::load(o + r * hvp);
              acc[r][1] = simd::load(o + r * hvp + 4);
            }
            micro_acc<kMr>(acc, s_tile.data() + r0 * kBc, kBc, panel, kk);
            for (int r = 0; r < kMr; ++r) {
              simd::store(o + r * hvp, acc[r][0]);
              simd::store(o + r * hvp + 4, acc[r][1]);
            }
          } else {
            for (int r = 0; r < mr; ++r) {
              acc1[0][0] = simd::load(o + r * hvp);
              acc1[0][1] = simd::load(o + r * hvp + 4);
              micro_acc<1>(acc1, s_tile.data() + (r0 + r) * kBc, kBc, panel, kk);
              simd::store(o + r * hvp, acc1[0][0]);
              simd::store(o + r * hvp + 4, acc1[0][1]);
            }
          }
        }
      }
    }
    // 5. normalise and write out.
    for (int r = 0; r < br; ++r) {
      float* dst = out + static_cast<std::ptrdiff_t>(i0 + r) * hv;
      const float* o = o_blk.data() + r * hvp;
      const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
      for (int c = 0; c < hv; ++c) dst[c] = o[c] * inv;
      if (lse) lse[i0 + r] = l[r] > 0.0f ? m[r] + std::log(l[r]) : kMinusInf;
    }
  }
}

void softmax_rows_backward_simd(float* ds, const float* dw, const float* w, int rows, int cols, bool causal) {
  // ds, dw, w: (rows, cols); ds = w ⊙ (dw − Σ w·dw) per row (ds may alias dw)
  for (int i = 0; i < rows; ++i) {
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(i) * cols;
    const int live = causal ? std::min(i + 1, cols) : cols;
    f32x4 acc = simd::zero();
    int j = 0;
    for (; j + 4 <= live; j += 4) acc = simd::add(acc, simd::mul(simd::load(w + at + j), simd::load(dw + at + j)));
    float dot = simd::hsum(acc);
    for (; j < live; ++j) dot += w[at + j] * dw[at + j];
    const f32x4 vd = simd::splat(dot);
    j = 0;
    for (; j + 4 <= live; j += 4) {
      simd::store(ds + at + j, simd::mul(simd::load(w + at + j), simd::sub(simd::load(dw + at + j), vd)));
    }
    for (; j < live; ++j) ds[at + j] = w[at + j] * (dw[at + j] - dot);
    std::fill(ds + at + live, ds + at + cols, 0.0f);
  }
}

// FlashAttention's backward for one head (kernels.h), in tiles of Br query rows × Bc keys held
// in scratch of O(Br·Bc + (Br + Bc)·hs), never T×T. Per tile, the forward's passes in reverse:
//   1. scores  S = Q_blk · K_tileᵀ, then P = exp(α·S − lse) with masked pairs 0 (the weights again)
//   6. weighted sum   dV_tile += Pᵀ · dO_blk,   dP = dO_blk · V_tileᵀ
//   4. softmax        dS = P ⊙ (dP − D), D = rowsum(dO ⊙ O)
//   2–1. scale, scores  dQ_blk += α·dS · K_tile,   dK_tile += α·dSᵀ · Q_blk
// The products run on the same micro-kernels as the forward (matmul_simd / matmul_nt_simd).
void attention_tiled_backward_simd(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                                   const float* v, const float* out, const float* lse, const std::uint8_t* key_keep,
                                   int T, int hk, int hv, float alpha, bool causal) {
  // dq, dk, q, k: (T, hk); dv, dout, v, out: (T, hv); lse: (T); key_keep: (T) or null
  constexpr int kBr = 32, kBc = 64;
  std::fill(dq, dq + static_cast<std::ptrdiff_t>(T) * hk, 0.0f);
  std::fill(dk, dk + static_cast<std::ptrdiff_t>(T) * hk, 0.0f);
  std::fill(dv, dv + static_cast<std::ptrdiff_t>(T) * hv, 0.0f);
  if (T <= 0) return;
  std::vector<float> D(static_cast<size_t>(T));
  for (int i = 0; i < T; ++i) {
    float d = 0.0f;
    for (int c = 0; c < hv; ++c)
      d += dout[static_cast<std::ptrdiff_t>(i) * hv + c] * out[static_cast<std::ptrdiff_t>(i) * hv + c];
    D[static_cast<size_t>(i)] = d;
  }
  const int hmax = std::max(hk, hv);
  std::vector<float> P(kBr * kBc), dP(kBr * kBc), Pt(kBc * kBr), tmp(static_cast<size_t>(std::max(kBr, kBc)) * hmax);
  for (int i0 = 0; i0 < T; i0 += kBr) {
    const int br = std::min(kBr, T - i0);
    const int key_end = causal ? i0 + br : T;
    for (int j0 = 0; j0 < key_end; j0 += kBc) {
      const int bc = std::min(kBc, key_end - j0);
      // 1. the tile's weights P (br × bc), recomputed
      matmul_nt_simd(P.data(), q + static_cast<std::ptrdiff_t>(i0) * hk, k + static_cast<std::ptrdiff_t>(j0) * hk,
                     nullptr, br, hk, bc);
      bool any = false;
      for (int r = 0; r < br; ++r) {
        const int i = i0 + r;
        float* row = P.data() + r * bc;
        const float shift = lse[i];
        if (shift == kMinusInf) {
          std::fill(row, row + bc, 0.0f);
          continue;
        }
        const f32x4 va = simd::splat(alpha), vs = simd::splat(shift);
        int c = 0;
        for (; c + 4 <= bc; c += 4) simd::store(row + c, simd::exp(simd::sub(simd::mul(simd::load(row + c), va), vs)));
        for (; c < bc; ++c) row[c] = std::exp(alpha * row[c] - shift);
        for (int c2 = 0; c2 < bc; ++c2) {
          const int j = j0 + c2;
          if ((causal && j > i) || (key_keep && !key_keep[j])) row[c2] = 0.0f;
        }
        any = true;
      }
      if (!any) continue;
      // 6. dV_tile += Pᵀ · dO_blk;  dP = dO_blk · V_tileᵀ
      for (int r = 0; r < br; ++r)
        for (int c = 0; c < bc; ++c) Pt[static_cast<size_t>(c) * br + r] = P[static_cast<size_t>(r) * bc + c];
      matmul_simd(tmp.data(), Pt.data(), dout + static_cast<std::ptrdiff_t>(i0) * hv, nullptr, bc, br, hv);
      float* dv_tile = dv + static_cast<std::ptrdiff_t>(j0) * hv;
      for (std::ptrdiff_t n = 0; n < static_cast<std::ptrdiff_t>(bc) * hv; ++n)
        dv_tile[n] += tmp[static_cast<size_t>(n)];
      matmul_nt_simd(dP.data(), dout + static_cast<std::ptrdiff_t>(i0) * hv, v + static_cast<std::ptrdiff_t>(j0) * hv,
                     nullptr, br, hv, bc);
      // 4. dS = P ⊙ (dP − D), in P's buffer
      for (int r = 0; r < br; ++r) {
        const f32x4 vd = simd::splat(D[static_cast<size_t>(i0 + r)]);
        float* p = P.data() + r * bc;
        const float* g = dP.data() + r * bc;
        int c = 0;
        for (; c + 4 <= bc; c += 4) simd::store(p + c, simd::mul(simd::load(p + c), simd::sub(simd::load(g + c), vd)));
        for (; c < bc; ++c) p[c] = p[c] * (g[c] - D[static_cast<size_t>(i0 + r)]);
      }
      // 2–1. dQ_blk += α·dS·K_tile;  dK_tile += α·dSᵀ·Q_blk
      matmul_simd(tmp.data(), P.data(), k + static_cast<std::ptrdiff_t>(j0) * hk, nullptr, br, bc, hk);
      float* dq_blk = dq + static_cast<std::ptrdiff_t>(i0) * hk;
      for (std::ptrdiff_t n = 0; n < static_cast<std::ptrdiff_t>(br) * hk; ++n)
        dq_blk[n] += alpha * tmp[static_cast<size_t>(n)];
      for (int r = 0; r < br; ++r)
        for (int c = 0; c < bc; ++c) Pt[static_cast<size_t>(c) * br + r] = P[static_cast<size_t>(r) * bc + c];
      matmul_simd(tmp.data(), Pt.data(), q + static_cast<std::ptrdiff_t>(i0) * hk, nullptr, bc, br, hk);
      float* dk_tile = dk + static_cast<std::ptrdiff_t>(j0) * hk;
      for (std::ptrdiff_t n = 0; n < static_cast<std::ptrdiff_t>(bc) * hk; ++n)
        dk_tile[n] += alpha * tmp[static_cast<size_t>(n)];
    }
  }
}

bool simd_enabled() { return simd::kF32x4Native; }

}  // namespace attn::kernels

// f32x4 kernels: the same math as kernels_ref.cpp, written for 4-lane vectors.
//
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
//
// Every product here runs on the micro-kernel of micro_kernel.h: C (4 × 8) += A' · B, A' four
// rows packed (K × 4) and B a packed panel (8 consecutive columns stored row after row,
// zero-padded), the 4 × 8 block of C in 8 vector registers for the whole K loop.
//
// Packing costs K·N copies per call (T·hk for the keys), small next to the T²·hk products.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/detail/micro_kernel.h"
#include "kernels/f32x4.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"

namespace attn::kernels {

namespace {

using simd::f32x4;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2 = 0.693147180559945309f;
using micro::kMr;  // rows per micro-kernel call
using micro::kNr;  // panel width: 2 vectors

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

// Packs rows [i0, i0 + 4) of the (rows × K) matrix whose element (r, p) is src[r·sr + p·sp] as
// the micro-kernel's A operand (K × 4): element (r, p) at out[4·p + r]. Rows at or past `rows`,
// and in each row r the columns at or past limit[r] (when limit is given), are zeros.
void pack_group(float* out, const float* src, int rows, int K, std::ptrdiff_t sr, std::ptrdiff_t sp, int i0,
                const int* limit = nullptr) {
  for (int r = 0; r < kMr; ++r) {
    const int i = i0 + r;
    const int live = i >= rows ? 0 : limit ? std::min(limit[r], K) : K;
    const float* row = src + static_cast<std::ptrdiff_t>(i) * sr;
    for (int p = 0; p < live; ++p) out[p * kMr + r] = row[p * sp];
    for (int p = live; p < K; ++p) out[p * kMr + r] = 0.0f;
  }
}

// Stores rows [0, mr) and columns [0, n) of a 4 × 8 block (n ≤ 8) into c (stride ldc), each
// scaled by alpha.
inline void store_block(float* c, std::ptrdiff_t ldc, const f32x4 (&acc)[kMr][2], int mr, int n, float alpha) {
  const f32x4 va = simd::splat(alpha);
  for (int r = 0; r < mr; ++r) {
    const f32x4 v0 = simd::mul(acc[r][0], va), v1 = simd::mul(acc[r][1], va);
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

// c (mr × n, row stride ldc; mr ≤ 4, n ≤ 8) += A' (K × 4) · panel (K × 8): a sum held in the
// output, loaded and stored around one micro-kernel call.
void accumulate_block(float* c, std::ptrdiff_t ldc, int mr, int n, const float* ap, const float* bp, int K) {
  f32x4 acc[kMr][2];
  alignas(16) float tmp[kMr][kNr] = {};
  const bool whole = mr == kMr && n == kNr;
  for (int r = 0; r < kMr; ++r) {
    if (whole) {
      acc[r][0] = simd::load(c + r * ldc), acc[r][1] = simd::load(c + r * ldc + 4);
    } else {
      for (int j = 0; r < mr && j < n; ++j) tmp[r][j] = c[r * ldc + j];
      acc[r][0] = simd::load(tmp[r]), acc[r][1] = simd::load(tmp[r] + 4);
    }
  }
  micro::kernel<kMr>(acc, ap, bp, K);
  for (int r = 0; r < mr; ++r) {
    if (whole) {
      simd::store(c + r * ldc, acc[r][0]), simd::store(c + r * ldc + 4, acc[r][1]);
    } else {
      simd::store(tmp[r], acc[r][0]), simd::store(tmp[r] + 4, acc[r][1]);
      for (int j = 0; j < n; ++j) c[r * ldc + j] = tmp[r][j];
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
  // scores: (T, T), q: (T, hk), k: (T, hk); kᵀ packed into panels of 8 keys (hk × 8), each 4
  // rows of q packed as the micro-kernel's A. Each score is alpha · (Σ_c q·k in order), as in
  // the reference, bit for bit.
  if (T <= 0) return;
  Scratch kt(static_cast<std::size_t>(round_up(T, kNr)) * std::max(hk, 1));
  pack_panels(kt.data(), k, hk, T, 1, hk);
  Scratch qg(static_cast<std::size_t>(std::max(hk, 1)) * kMr);
  for (int i0 = 0; i0 < T; i0 += kMr) {
    const int mr = std::min(kMr, T - i0);
    pack_group(qg.data(), q, T, hk, hk, 1, i0);
    // Causal: this group of rows needs keys j ≤ i0 + mr − 1 only; panels past it are skipped.
    const int ncols = causal ? i0 + mr : T;
    float* srow = scores + static_cast<std::ptrdiff_t>(i0) * T;
    for (int j0 = 0; j0 < ncols; j0 += kNr) {
      f32x4 acc[kMr][2];
      for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = simd::zero();
      micro::kernel<kMr>(acc, qg.data(), kt.data() + static_cast<std::ptrdiff_t>(j0) * hk, hk);
      store_block(srow + j0, T, acc, mr, std::min(kNr, T - j0), alpha);
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
  // out: (T, hv), w: (T, T), v: (T, hv); v packed into panels of 8 columns (T × 8), each 4 rows
  // of w packed as the micro-kernel's A. Causal: a group's sums stop at its last row's diagonal,
  // and the packed copy holds zeros where a row's weights are masked (never read), so each
  // output is Σ_j w·v in order as in the reference (plus exact zeros).
  if (T <= 0 || hv <= 0) return;
  Scratch vp(static_cast<std::size_t>(round_up(hv, kNr)) * T);
  pack_panels(vp.data(), v, T, hv, hv, 1);
  Scratch wg(static_cast<std::size_t>(T) * kMr);
  for (int i0 = 0; i0 < T; i0 += kMr) {
    const int mr = std::min(kMr, T - i0);
    const int live = causal ? i0 + mr : T;  // keys the group reads
    const int limit[kMr] = {i0 + 1, i0 + 2, i0 + 3, i0 + 4};
    pack_group(wg.data(), w, T, live, T, 1, i0, causal ? limit : nullptr);
    for (int c0 = 0; c0 < hv; c0 += kNr) {
      f32x4 acc[kMr][2];
      for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = simd::zero();
      micro::kernel<kMr>(acc, wg.data(), vp.data() + static_cast<std::ptrdiff_t>(c0) * T, live);
      store_block(out + static_cast<std::ptrdiff_t>(i0) * hv + c0, hv, acc, mr, std::min(kNr, hv - c0), 1.0f);
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
// (T·hk + T·hv, rounded up to 8 columns), the block's packed queries and output (Br·hk +
// Br·hv) and one group's weights (Bc × 4): O(T·hs), never T×T.
//
// Queries go in groups of 4 rows, the micro-kernel's height (micro_kernel.h), packed as its A
// operand; a group's scores for a tile of keys are written key-major (key j, row r at 4·j + r),
// which is at once the A operand of the weighted sum and a layout where the online softmax of
// the 4 rows is one vector per key: the rows' max, sum and rescale are vector operations.
// For each block of Br query rows (8 groups), for each tile of Bc keys (the tile's kᵀ and v
// panels stay in L1 across the groups), for each group:
//   1. scores   S = alpha · Q_g · Kᵀ_tile (micro-kernel per 8 keys, then a 4 × 4 transpose into
//               key-major order), −∞ where the key is masked for that row
//   2. row max  m_new = max(m, max_j S)                                    (4 rows: one vector)
//   3. exp, sum P = e^(S − m_new), l = l · e^(m − m_new) + Σ_j P  (in base 2, log₂e folded into
//               alpha: the f32x4 exp2 needs no ln 2 range reduction)
//   4. weighted sum  O_g = O_g · e^(m − m_new) + P · V_tile (micro-kernel per 8 value columns,
//               the rescale applied as O_g is loaded)
// and at the end 5. normalise O / l (0 for a row with no kept key).
void attention_tiled_simd(float* out, float* lse, const float* q, const float* k, const float* v,
                          const std::uint8_t* key_keep, int T, int hk, int hv, float alpha, bool causal) {
  // out: (T, hv), lse: (T) or null, q: (T, hk), k: (T, hk), v: (T, hv), key_keep: (T) or null
  if (T <= 0 || hv <= 0) return;
  constexpr int kBr = 32;  // query rows per block: the tile's panels serve 8 groups from L1
  constexpr int kBc = 64;  // keys per tile: its kᵀ and v panels (64 × 64 floats each) stay in L1
  constexpr int kGroups = kBr / kMr;

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
  // kᵀ panels: (hk × 8) per 8 kept keys; v panels: (Tkp × 8) per 8 value columns; zero-padded.
  Scratch kt(static_cast<std::size_t>(Tkp) * std::max(hk, 1));
  Scratch vp(static_cast<std::size_t>(hvp) * Tkp);
  for (int jj = 0; jj < Tk; ++jj) {
    const float* krow = k + static_cast<std::ptrdiff_t>(kept[jj]) * hk;
    float* kdst = kt.data() + static_cast<std::ptrdiff_t>(jj / kNr) * hk * kNr + jj % kNr;
    for (int c = 0; c < hk; ++c) kdst[c * kNr] = krow[c];
    const float* vrow = v + static_cast<std::ptrdiff_t>(kept[jj]) * hv;
    for (int c = 0; c < hv; ++c) vp[static_cast<std::ptrdiff_t>(c / kNr) * Tkp * kNr + jj * kNr + c % kNr] = vrow[c];
  }

  Scratch q_blk(static_cast<std::size_t>(kBr) * std::max(hk, 1));  // group g at g·4·hk: (hk × 4)
  Scratch o_blk(static_cast<std::size_t>(kBr) * hvp);              // (Br × hvp), row-major
  Scratch p_tile(static_cast<std::size_t>(kBc) * kMr);             // one group's weights, key-major
  alignas(16) float m_blk[kBr], l_blk[kBr];
  alignas(16) float rows_limit[kBr];  // kept keys visible to each row, as floats for the mask compare
  const f32x4 minus_inf = simd::splat(kMinusInf), lowest = simd::splat(-std::numeric_limits<float>::max());
  const float alpha2 = alpha * kLog2e;  // scores in base 2: e^(αs) = 2^(α·log₂e·s)

  for (int i0 = 0; i0 < T; i0 += kBr) {
    const int br = std::min(kBr, T - i0), groups = (br + kMr - 1) / kMr;
    // Pack the block's queries, rows past T zero (their outputs are never written).
    for (int g = 0; g < groups; ++g) {
      float* dst = q_blk.data() + static_cast<std::ptrdiff_t>(g) * hk * kMr;
      for (int r = 0; r < kMr; ++r) {
        const int i = i0 + g * kMr + r;
        for (int c = 0; c < hk; ++c) dst[c * kMr + r] = i < T ? q[static_cast<std::ptrdiff_t>(i) * hk + c] : 0.0f;
      }
    }
    int group_limit[kGroups];  // kept keys any row of the group sees
    for (int r = 0; r < groups * kMr; ++r) {
      const int i = i0 + r;
      rows_limit[r] = static_cast<float>(i >= T ? 0 : causal ? cnt[i] : Tk);
      m_blk[r] = kMinusInf;
      l_blk[r] = 0.0f;
    }
    for (int g = 0; g < groups; ++g) {
      const int last = std::min(T - 1, i0 + g * kMr + kMr - 1);
      group_limit[g] = causal ? cnt[last] : Tk;
    }
    std::fill(o_blk.data(), o_blk.data() + static_cast<std::size_t>(kBr) * hvp, 0.0f);
    const int block_limit = causal ? cnt[i0 + br - 1] : Tk;

    for (int j0 = 0; j0 < block_limit; j0 += kBc) {
      for (int g = 0; g < groups; ++g) {
        const int n = std::min(kBc, group_limit[g] - j0);  // keys of this tile any row of the group sees
        if (n <= 0) continue;
        const float* qg = q_blk.data() + static_cast<std::ptrdiff_t>(g) * hk * kMr;
        const f32x4 row_limit = simd::load(rows_limit + g * kMr);
        // A key vector may hold masked lanes when some row of the group sees fewer keys than
        // the tile reaches.
        const float min_limit = std::min(std::min(rows_limit[g * kMr], rows_limit[g * kMr + 1]),
                                         std::min(rows_limit[g * kMr + 2], rows_limit[g * kMr + 3]));
        // 1. scores, 8 keys at a time, into key-major order, in base 2: alpha·log₂e·q·k
        const f32x4 va = simd::splat(alpha2);
        const int n8 = round_up(n, kNr);
        for (int jp = 0; jp < n8; jp += kNr) {
          f32x4 acc[kMr][2];
          for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = simd::zero();
          micro::kernel<kMr>(acc, qg, kt.data() + static_cast<std::ptrdiff_t>(j0 + jp) * hk, hk);
          for (int half = 0; half < 2; ++half) {
            f32x4 c0 = simd::mul(acc[0][half], va), c1 = simd::mul(acc[1][half], va), c2 = simd::mul(acc[2][half], va),
                  c3 = simd::mul(acc[3][half], va);
            simd::transpose4(c0, c1, c2, c3);  // now c_u = key j0 + jp + 4·half + u, rows 0…3
            const int key = j0 + jp + 4 * half;
            float* dst = p_tile.data() + (jp + 4 * half) * kMr;
            f32x4 cols[4] = {c0, c1, c2, c3};
            for (int u = 0; u < 4; ++u) {
              if (key + u + 1 > min_limit) {  // lanes whose row sees fewer than key + u + 1 keys: −∞
                cols[u] =
                    simd::select(simd::less(simd::splat(static_cast<float>(key + u)), row_limit), minus_inf, cols[u]);
              }
              simd::store(dst + u * kMr, cols[u]);
            }
          }
        }
        // 2. row max of the 4 rows over the tile (keys past n are −∞ by the mask above)
        f32x4 mt = minus_inf;
        for (int j = 0; j < n; ++j) mt = simd::max(mt, simd::load(p_tile.data() + j * kMr));
        const f32x4 m_old = simd::load(m_blk + g * kMr);
        const f32x4 m_new = simd::max(m_old, mt);
        // A row with nothing visible yet keeps m = −∞: shift by 0 so e^(−∞ − 0) = 0, not NaN.
        const f32x4 shift = simd::select(simd::less(m_new, lowest), m_new, simd::zero());
        // 3. exp and sum; the rows' correction e^(m − m_new) (0 on the first tile: m = −∞)
        const f32x4 correction = simd::exp2(simd::sub(m_old, shift));
        f32x4 sum = simd::zero();
        for (int j = 0; j < n; ++j) {
          float* pj = p_tile.data() + j * kMr;
          const f32x4 e = simd::exp2(simd::sub(simd::load(pj), shift));
          simd::store(pj, e);
          sum = simd::add(sum, e);
        }
        simd::store(l_blk + g * kMr, simd::add(simd::mul(simd::load(l_blk + g * kMr), correction), sum));
        simd::store(m_blk + g * kMr, m_new);
        // 4. O_g = O_g · correction + P · V_tile, per 8 value columns
        const f32x4 corr[kMr] = {simd::broadcast_lane<0>(correction), simd::broadcast_lane<1>(correction),
                                 simd::broadcast_lane<2>(correction), simd::broadcast_lane<3>(correction)};
        float* og = o_blk.data() + static_cast<std::ptrdiff_t>(g) * kMr * hvp;
        for (int c0 = 0; c0 < hvp; c0 += kNr) {
          const float* panel =
              vp.data() + static_cast<std::ptrdiff_t>(c0 / kNr) * Tkp * kNr + static_cast<std::ptrdiff_t>(j0) * kNr;
          f32x4 acc[kMr][2];
          for (int r = 0; r < kMr; ++r) {
            acc[r][0] = simd::mul(simd::load(og + r * hvp + c0), corr[r]);
            acc[r][1] = simd::mul(simd::load(og + r * hvp + c0 + 4), corr[r]);
          }
          micro::kernel<kMr>(acc, p_tile.data(), panel, n);
          for (int r = 0; r < kMr; ++r) {
            simd::store(og + r * hvp + c0, acc[r][0]);
            simd::store(og + r * hvp + c0 + 4, acc[r][1]);
          }
        }
      }
    }
    // 5. normalise and write out.
    for (int r = 0; r < br; ++r) {
      float* dst = out + static_cast<std::ptrdiff_t>(i0 + r) * hv;
      const float* o = o_blk.data() + r * hvp;
      const float inv = l_blk[r] > 0.0f ? 1.0f / l_blk[r] : 0.0f;
      for (int c = 0; c < hv; ++c) dst[c] = o[c] * inv;
      // m is in base 2: log Σ e^(αs) = m·ln 2 + log l.
      if (lse) lse[i0 + r] = l_blk[r] > 0.0f ? m_blk[r] * kLn2 + std::log(l_blk[r]) : kMinusInf;
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

// FlashAttention's backward for one head (kernels.h), in tiles of Bc keys × Bq query rows held in
// scratch of O((Bc + Bq)·Bc), never T×T, on the micro-kernel of micro_kernel.h. Keys go in
// tiles (outer loop), each meeting the query rows that see it in blocks; per block, the
// forward's passes in reverse:
//   1. scores  S = Q_g · K_tileᵀ per group of 4 rows and 8 keys, then P = e^(α·S − lse), 0 where
//              masked: the weights again
//   6. weighted sum   dP = dO_g · V_tileᵀ (same shapes);   dV_tile += Pᵀ · dO_blk
//   4. softmax        dS = P ⊙ (dP − D), D = rowsum(dO ⊙ O)
//   2–1. scale, scores  dK_tile += (α·dS)ᵀ · Q_blk,   dQ_blk += (α·dS) · K_tile
// P and α·dS are kept in the order the first two products leave them: per group of 4 keys,
// query-major (row p, key r at 4·p + r), which is the A operand of dV and dK (a sum over query
// rows); dQ (a sum over keys) takes them through 4 × 4 transposes. Every operand is packed once
// per head: q and dO as groups of 4 rows, kᵀ and vᵀ as panels of 8 keys, k, q and dO as panels
// of 8 columns. dq, dk and dv are sums held in the outputs (loaded and stored per micro-kernel
// call, whose sums run over 64 rows or keys).
void attention_tiled_backward_simd(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                                   const float* v, const float* out, const float* lse, const std::uint8_t* key_keep,
                                   int T, int hk, int hv, float alpha, bool causal) {
  // dq, dk, q, k: (T, hk); dv, dout, v, out: (T, hv); lse: (T); key_keep: (T) or null
  std::fill(dq, dq + static_cast<std::ptrdiff_t>(T) * hk, 0.0f);
  std::fill(dk, dk + static_cast<std::ptrdiff_t>(T) * hk, 0.0f);
  std::fill(dv, dv + static_cast<std::ptrdiff_t>(T) * hv, 0.0f);
  if (T <= 0 || hk <= 0 || hv <= 0) return;
  constexpr int kBc = 64;  // keys per tile
  constexpr int kBq = 64;  // query rows per block (the length of dV's and dK's sums per call)
  const int T4 = round_up(T, kMr), T8 = round_up(T, kNr);
  const std::size_t hk1 = static_cast<std::size_t>(hk), hv1 = static_cast<std::size_t>(hv);
  // Packed operands (zero-padded): q, dO as groups of 4 rows (hs × 4); kᵀ, vᵀ as panels of 8
  // keys (hs × 8); k, q, dO as panels of 8 columns (T × 8).
  Scratch qg(T4 * hk1), dog(T4 * hv1), kt(T8 * hk1), vt(T8 * hv1);
  Scratch kp(round_up(hk, kNr) * static_cast<std::size_t>(T)), qp(round_up(hk, kNr) * static_cast<std::size_t>(T)),
      dop(round_up(hv, kNr) * static_cast<std::size_t>(T));
  for (int i0 = 0; i0 < T; i0 += kMr) {
    pack_group(qg.data() + i0 * hk1, q, T, hk, hk, 1, i0);
    pack_group(dog.data() + i0 * hv1, dout, T, hv, hv, 1, i0);
  }
  pack_panels(kt.data(), k, hk, T, 1, hk);
  pack_panels(vt.data(), v, hv, T, 1, hv);
  pack_panels(kp.data(), k, T, hk, hk, 1);
  pack_panels(qp.data(), q, T, hk, hk, 1);
  pack_panels(dop.data(), dout, T, hv, hv, 1);
  // Per row: D = dO·O, and the shift of e^(α·S − lse) in base 2 (+∞ for a row with no weights: P = 0).
  Scratch D(T4), shift(T4);
  for (int i = 0; i < T4; ++i) {
    float d = 0.0f;
    if (i < T) {
      for (int c = 0; c < hv; ++c)
        d += dout[static_cast<std::ptrdiff_t>(i) * hv + c] * out[static_cast<std::ptrdiff_t>(i) * hv + c];
    }
    D[i] = d;
    shift[i] = i < T && lse[i] != kMinusInf ? lse[i] * kLog2e : std::numeric_limits<float>::infinity();
  }
  // Kept keys as lane masks (all ones = kept), padded keys dropped.
  std::vector<float> keep_bits(static_cast<std::size_t>(T8) + kNr);
  for (int j = 0; j < T8; ++j) {
    const std::uint32_t bits = j < T && (!key_keep || key_keep[j]) ? 0xffffffffu : 0u;
    std::memcpy(&keep_bits[static_cast<std::size_t>(j)], &bits, 4);
  }

  Scratch p_t(kBc * kBq), ds_t(kBc * kBq);  // key group kg, row p, key r at (kg·Bq + p)·4 + r
  Scratch ds_q(kBq * kBc);                  // row group g, key j, row r at (g·Bc + j)·4 + r
  const f32x4 va = simd::splat(alpha), va2 = simd::splat(alpha * kLog2e);  // P = 2^(α·log₂e·S − lse·log₂e)

  for (int j0 = 0; j0 < T; j0 += kBc) {
    const int bc = std::min(kBc, T - j0), key_groups = (bc + kMr - 1) / kMr;
    // Causal: rows before the tile see none of its keys.
    for (int q0 = causal ? j0 : 0; q0 < T; q0 += kBq) {
      const int bq = std::min(kBq, T - q0), row_groups = (bq + kMr - 1) / kMr;
      // 1. P and 4. α·dS, per group of 4 rows and 8 keys
      for (int g = 0; g < row_groups; ++g) {
        const int p0 = q0 + g * kMr;
        const float* qa = qg.data() + p0 * hk1;
        const float* da = dog.data() + p0 * hv1;
        for (int jp = 0; jp < bc; jp += kNr) {
          const int key0 = j0 + jp;
          float* pdst = p_t.data() + (static_cast<std::ptrdiff_t>(jp / kMr) * kBq + g * kMr) * kMr;
          float* ddst = ds_t.data() + (static_cast<std::ptrdiff_t>(jp / kMr) * kBq + g * kMr) * kMr;
          if (causal && key0 > p0 + kMr - 1) {  // every key after every row: no weight
            for (int half = 0; half < 2; ++half)
              for (int r = 0; r < kMr; ++r) {
                simd::store(pdst + (half * kBq + r) * kMr, simd::zero());
                simd::store(ddst + (half * kBq + r) * kMr, simd::zero());
              }
            continue;
          }
          f32x4 s[kMr][2], dp[kMr][2];
          for (int r = 0; r < kMr; ++r) s[r][0] = s[r][1] = dp[r][0] = dp[r][1] = simd::zero();
          micro::kernel<kMr>(s, qa, kt.data() + static_cast<std::ptrdiff_t>(key0) * hk, hk);
          micro::kernel<kMr>(dp, da, vt.data() + static_cast<std::ptrdiff_t>(key0) * hv, hv);
          for (int half = 0; half < 2; ++half) {
            const int kk = key0 + 4 * half;  // lanes: keys kk … kk + 3
            const f32x4 kept = simd::load(keep_bits.data() + kk);
            for (int r = 0; r < kMr; ++r) {
              f32x4 p = simd::exp2(simd::sub(simd::mul(s[r][half], va2), simd::splat(shift[p0 + r])));
              f32x4 live = kept;
              if (causal && kk + 3 > p0 + r) {  // keys after row p0 + r: no weight
                alignas(16) float after[4];
                for (int u = 0; u < 4; ++u) after[u] = static_cast<float>(kk + u);
                live = simd::select(simd::less(simd::load(after), simd::splat(static_cast<float>(p0 + r) + 0.5f)),
                                    simd::zero(), live);
              }
              p = simd::select(live, simd::zero(), p);
              const f32x4 ds = simd::mul(va, simd::mul(p, simd::sub(dp[r][half], simd::splat(D[p0 + r]))));
              simd::store(pdst + (half * kBq + r) * kMr, p);
              simd::store(ddst + (half * kBq + r) * kMr, ds);
            }
          }
        }
      }
      // 6. dV_tile += Pᵀ · dO_blk and 2–1. dK_tile += (α·dS)ᵀ · Q_blk, per group of 4 keys and
      //    8 columns; causal: a key's sum starts at its own row (earlier rows gave it no weight).
      for (int kg = 0; kg < key_groups; ++kg) {
        const int key = j0 + kg * kMr, keys = std::min(kMr, T - key);
        const int start = causal ? std::max(0, key - q0) : 0, rows = bq - start;
        if (rows <= 0) continue;
        const float* pa = p_t.data() + (static_cast<std::ptrdiff_t>(kg) * kBq + start) * kMr;
        const float* sa = ds_t.data() + (static_cast<std::ptrdiff_t>(kg) * kBq + start) * kMr;
        for (int c0 = 0; c0 < hv; c0 += kNr)
          accumulate_block(dv + static_cast<std::ptrdiff_t>(key) * hv + c0, hv, keys, std::min(kNr, hv - c0), pa,
                           dop.data() + static_cast<std::ptrdiff_t>(c0) * T + (q0 + start) * kNr, rows);
        for (int c0 = 0; c0 < hk; c0 += kNr)
          accumulate_block(dk + static_cast<std::ptrdiff_t>(key) * hk + c0, hk, keys, std::min(kNr, hk - c0), sa,
                           qp.data() + static_cast<std::ptrdiff_t>(c0) * T + (q0 + start) * kNr, rows);
      }
      // 2–1. dQ_blk += (α·dS) · K_tile: α·dS per group of 4 rows, key-major (4 × 4 transposes)
      for (int g = 0; g < row_groups; ++g)
        for (int kg = 0; kg < key_groups; ++kg) {
          const float* src = ds_t.data() + (static_cast<std::ptrdiff_t>(kg) * kBq + g * kMr) * kMr;
          f32x4 r0 = simd::load(src), r1 = simd::load(src + 4), r2 = simd::load(src + 8), r3 = simd::load(src + 12);
          simd::transpose4(r0, r1, r2, r3);
          float* dst = ds_q.data() + (static_cast<std::ptrdiff_t>(g) * kBc + kg * kMr) * kMr;
          simd::store(dst, r0);
          simd::store(dst + 4, r1);
          simd::store(dst + 8, r2);
          simd::store(dst + 12, r3);
        }
      for (int g = 0; g < row_groups; ++g) {
        const int p0 = q0 + g * kMr, rows = std::min(kMr, T - p0);
        const int keys = causal ? std::min(bc, p0 + kMr - j0) : bc;  // keys after the group's last row: 0
        if (keys <= 0) continue;
        for (int c0 = 0; c0 < hk; c0 += kNr)
          accumulate_block(dq + static_cast<std::ptrdiff_t>(p0) * hk + c0, hk, rows, std::min(kNr, hk - c0),
                           ds_q.data() + static_cast<std::ptrdiff_t>(g) * kBc * kMr,
                           kp.data() + static_cast<std::ptrdiff_t>(c0) * T + static_cast<std::ptrdiff_t>(j0) * kNr,
                           keys);
      }
    }
  }
}

bool simd_enabled() { return simd::kF32x4Native; }

}  // namespace attn::kernels

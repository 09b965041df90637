// Scalar reference kernels: the plain loops every faster version is checked against, and the
// reference of the core (src/core/head.cpp runs its passes over them for kernel 'reference').
// Templates over the scalar type, instantiated below for float (the reference the _simd and
// Eigen kernels are cross-tested against) and double (finite-difference checks).
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/gemm.h"
#include "kernels/kernels.h"

namespace attn::kernels {

// The two products are gemm_ref (gemm.h) with x's rows and w read as (K, N) or, transposed, as (N, K).
template <typename Real>
void matmul_ref(Real* y, const Real* x, const Real* w, const Real* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (K, N), bias: (N) or null
  gemm_ref<Real>(y, N, {x, K, 1}, {w, N, 1}, bias, false, M, K, N);
}

template <typename Real>
void matmul_nt_ref(Real* y, const Real* x, const Real* w, const Real* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (N, K) nn.Linear layout, bias: (N) or null
  gemm_ref<Real>(y, N, {x, K, 1}, {w, 1, K}, bias, false, M, K, N);
}

template <typename Real>
void qk_scores_ref(Real* scores, const Real* q, const Real* k, int T, int hk, Real alpha, bool causal) {
  // scores: (T, T), q: (T, hk), k: (T, hk)
  constexpr Real kMinusInf = -std::numeric_limits<Real>::infinity();
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      if (causal && j > i) {
        scores[i * T + j] = kMinusInf;
        continue;
      }
      Real dot = 0;
      for (int c = 0; c < hk; ++c) dot += q[i * hk + c] * k[j * hk + c];
      scores[i * T + j] = alpha * dot;
    }
  }
}

template <typename Real>
void softmax_rows_ref(Real* w, int rows, int cols, bool causal) {
  // w: (rows, cols), in place
  constexpr Real kMinusInf = -std::numeric_limits<Real>::infinity();
  for (int i = 0; i < rows; ++i) {
    Real* row = w + static_cast<long long>(i) * cols;
    const int live = causal ? (i + 1 < cols ? i + 1 : cols) : cols;
    // 1. row max
    Real max = kMinusInf;
    for (int j = 0; j < live; ++j) max = row[j] > max ? row[j] : max;
    if (max == kMinusInf) {  // fully masked row
      for (int j = 0; j < cols; ++j) row[j] = 0;
      continue;
    }
    // 2. exp and sum
    Real sum = 0;
    for (int j = 0; j < live; ++j) {
      row[j] = std::exp(row[j] - max);
      sum += row[j];
    }
    // 3. normalise
    const Real inv = 1 / sum;
    for (int j = 0; j < live; ++j) row[j] *= inv;
    for (int j = live; j < cols; ++j) row[j] = 0;
  }
}

template <typename Real>
void weighted_sum_ref(Real* out, const Real* w, const Real* v, int T, int hv, bool causal) {
  // out: (T, hv), w: (T, T), v: (T, hv)
  for (int i = 0; i < T; ++i) {
    for (int c = 0; c < hv; ++c) out[i * hv + c] = 0;
    const int live = causal ? i + 1 : T;
    for (int j = 0; j < live; ++j) {
      const Real a = w[i * T + j];
      for (int c = 0; c < hv; ++c) out[i * hv + c] += a * v[j * hv + c];
    }
  }
}

template <typename Real>
void softmax_rows_backward_ref(Real* ds, const Real* dw, const Real* w, int rows, int cols, bool causal) {
  // ds, dw, w: (rows, cols); the softmax's three passes undone at once: ds = w ⊙ (dw − Σ w·dw)
  for (int i = 0; i < rows; ++i) {
    const long long at = static_cast<long long>(i) * cols;
    const int live = causal ? (i + 1 < cols ? i + 1 : cols) : cols;
    Real dot = 0;
    for (int j = 0; j < live; ++j) dot += w[at + j] * dw[at + j];
    for (int j = 0; j < live; ++j) ds[at + j] = w[at + j] * (dw[at + j] - dot);
    for (int j = live; j < cols; ++j) ds[at + j] = 0;
  }
}

template <typename Real>
void attention_tiled_ref(Real* out, Real* lse, const Real* q, const Real* k, const Real* v,
                         const std::uint8_t* key_keep, int T, int hk, int hv, Real alpha, bool causal) {
  // out: (T, hv), lse: (T) or null, q: (T, hk), k: (T, hk), v: (T, hv), key_keep: (T) or null.
  // One key at a time is the smallest tile; the running max m and sum l make it exact.
  constexpr Real kMinusInf = -std::numeric_limits<Real>::infinity();
  for (int i = 0; i < T; ++i) {
    Real m = kMinusInf, l = 0;
    Real* o = out + static_cast<long long>(i) * hv;
    for (int c = 0; c < hv; ++c) o[c] = 0;
    const int live = causal ? i + 1 : T;
    for (int j = 0; j < live; ++j) {
      if (key_keep && !key_keep[j]) continue;
      Real s = 0;
      for (int c = 0; c < hk; ++c) s += q[i * hk + c] * k[j * hk + c];
      s *= alpha;
      const Real m_new = s > m ? s : m;
      const Real correction = std::exp(m - m_new);  // exp(−∞) = 0 on the first key
      const Real p = std::exp(s - m_new);
      l = l * correction + p;
      for (int c = 0; c < hv; ++c) o[c] = o[c] * correction + p * v[j * hv + c];
      m = m_new;
    }
    if (l > 0) {
      const Real inv = 1 / l;
      for (int c = 0; c < hv; ++c) o[c] *= inv;
    }
    if (lse) lse[i] = l > 0 ? m + std::log(l) : kMinusInf;
  }
}

template <typename Real>
void attention_tiled_backward_ref(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* q, const Real* k,
                                  const Real* v, const Real* out, const Real* lse, const std::uint8_t* key_keep, int T,
                                  int hk, int hv, Real alpha, bool causal) {
  // dq, q, k: (T, hk); dk: (T, hk); dv, v, dout, out: (T, hv); lse: (T). The forward's passes in
  // reverse, one (query, key) pair at a time, with p recomputed from lse:
  //   6. weighted sum: dv_j += p·dout_i,  dp = dout_i·v_j
  //   4. softmax:      ds = p·(dp − D_i),  D_i = dout_i·out_i = Σⱼ p·dp
  //   2–1. scale, scores: dq_i += α·ds·k_j,  dk_j += α·ds·q_i
  constexpr Real kMinusInf = -std::numeric_limits<Real>::infinity();
  for (long long n = 0; n < static_cast<long long>(T) * hk; ++n) dq[n] = dk[n] = 0;
  for (long long n = 0; n < static_cast<long long>(T) * hv; ++n) dv[n] = 0;
  for (int i = 0; i < T; ++i) {
    if (lse[i] == kMinusInf) continue;  // every key masked: the row had no weights
    Real D = 0;
    for (int c = 0; c < hv; ++c) D += dout[i * hv + c] * out[i * hv + c];
    const int live = causal ? i + 1 : T;
    for (int j = 0; j < live; ++j) {
      if (key_keep && !key_keep[j]) continue;
      Real s = 0, dp = 0;
      for (int c = 0; c < hk; ++c) s += q[i * hk + c] * k[j * hk + c];
      const Real p = std::exp(alpha * s - lse[i]);
      for (int c = 0; c < hv; ++c) {
        dp += dout[i * hv + c] * v[j * hv + c];
        dv[j * hv + c] += p * dout[i * hv + c];
      }
      const Real ds = p * (dp - D);
      for (int c = 0; c < hk; ++c) {
        dq[i * hk + c] += alpha * ds * k[j * hk + c];
        dk[j * hk + c] += alpha * ds * q[i * hk + c];
      }
    }
  }
}

// The two instantiations kernels.h promises.
#define ATTN_INSTANTIATE_REF(Real)                                                                                  \
  template void matmul_ref<Real>(Real*, const Real*, const Real*, const Real*, int, int, int);                      \
  template void matmul_nt_ref<Real>(Real*, const Real*, const Real*, const Real*, int, int, int);                   \
  template void qk_scores_ref<Real>(Real*, const Real*, const Real*, int, int, Real, bool);                         \
  template void softmax_rows_ref<Real>(Real*, int, int, bool);                                                      \
  template void weighted_sum_ref<Real>(Real*, const Real*, const Real*, int, int, bool);                            \
  template void softmax_rows_backward_ref<Real>(Real*, const Real*, const Real*, int, int, bool);                   \
  template void attention_tiled_ref<Real>(Real*, Real*, const Real*, const Real*, const Real*, const std::uint8_t*, \
                                          int, int, int, Real, bool);                                               \
  template void attention_tiled_backward_ref<Real>(Real*, Real*, Real*, const Real*, const Real*, const Real*,      \
                                                   const Real*, const Real*, const Real*, const std::uint8_t*, int, \
                                                   int, int, Real, bool);
ATTN_INSTANTIATE_REF(float)
ATTN_INSTANTIATE_REF(double)
#undef ATTN_INSTANTIATE_REF

}  // namespace attn::kernels

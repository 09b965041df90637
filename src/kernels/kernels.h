// Hot loops of attention, each as a scalar `_ref` twin and a `_simd` version (f32x4 layer).
//
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
// Every buffer is row-major and contiguous; outputs first, then inputs, then sizes.
// The `_ref` loops are templates over the scalar type, instantiated for float (the reference
// of every float kernel) and double (finite-difference checks); the `_simd` ones are float32.
// The `_simd` versions must agree with `_ref` within the tolerance stated in
// tests/cpp/kernels/kernels_test.cpp; nothing here validates arguments (src/core/ does that first).
#pragma once

#include <cstdint>

namespace attn::kernels {

// The two products are gemm.h's (matmul_simd equals matmul_ref bit for bit, and so on).
// y (M, N) = x (M, K) · w (K, N) [+ bias (N)]. bias may be null.
template <typename Real>
void matmul_ref(Real* y, const Real* x, const Real* w, const Real* bias, int M, int K, int N);
void matmul_simd(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);

// y (M, N) = x (M, K) · wᵀ [+ bias (N)] with w (N, K): the nn.Linear layout.
template <typename Real>
void matmul_nt_ref(Real* y, const Real* x, const Real* w, const Real* bias, int M, int K, int N);
void matmul_nt_simd(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);

// scores (T, T) = alpha · q (T, hk) · k (T, hk)ᵀ.
// causal: only j ≤ i is computed; entries j > i are set to −∞ and never computed.
template <typename Real>
void qk_scores_ref(Real* scores, const Real* q, const Real* k, int T, int hk, Real alpha, bool causal);
void qk_scores_simd(float* scores, const float* q, const float* k, int T, int hk, float alpha, bool causal);

// In place over (rows, cols): each row becomes softmax(row) after subtracting the row max.
// −∞ entries become exactly 0; a row that is entirely −∞ becomes all 0 (PyTorch gives NaN).
// causal (rows == cols): entries j > i are treated as −∞ without being read.
template <typename Real>
void softmax_rows_ref(Real* w, int rows, int cols, bool causal);
void softmax_rows_simd(float* w, int rows, int cols, bool causal);

// out (T, hv) = w (T, T) · v (T, hv). causal: weights with j > i are not read (taken as 0).
template <typename Real>
void weighted_sum_ref(Real* out, const Real* w, const Real* v, int T, int hv, bool causal);
void weighted_sum_simd(float* out, const float* w, const float* v, int T, int hv, bool causal);

// Backward of softmax_rows, row by row (w = softmax(s)): the gradient of the scores from the
// gradient of the weights, ds (rows, cols) = w ⊙ (dw − Σⱼ w·dw). Masked entries (w = 0) get 0;
// causal (rows == cols): entries j > i are set to 0 without being read. ds may alias dw.
template <typename Real>
void softmax_rows_backward_ref(Real* ds, const Real* dw, const Real* w, int rows, int cols, bool causal);
void softmax_rows_backward_simd(float* ds, const float* dw, const float* w, int rows, int cols, bool causal);

// Fused attention for one head without materialising T×T: tiles of keys with an online
// softmax (running max m and sum l per query row, as in FlashAttention).
//   out (T, hv) = softmax(alpha · q kᵀ, masked) · v,   q (T, hk), k (T, hk), v (T, hv)
// key_keep: (T) bytes, nonzero = keep, or null for all. A fully masked row gives zeros.
// lse (T) or null receives each row's log Σⱼ exp(alpha·q·kⱼ) over its visible keys (−∞ for a
// fully masked row): what the backward needs to recompute the weights without T×T memory.
template <typename Real>
void attention_tiled_ref(Real* out, Real* lse, const Real* q, const Real* k, const Real* v,
                         const std::uint8_t* key_keep, int T, int hk, int hv, Real alpha, bool causal);
void attention_tiled_simd(float* out, float* lse, const float* q, const float* k, const float* v,
                          const std::uint8_t* key_keep, int T, int hk, int hv, float alpha, bool causal);

// Backward of attention_tiled, FlashAttention style: the weights are recomputed tile by tile
// from q, k and the forward's lse (never T×T), then
//   dv = Pᵀ·dout,  dS = P ⊙ (dout·vᵀ − D) with D = rowsum(dout ⊙ out),  dq = α·dS·k,  dk = α·dSᵀ·q.
// dq (T, hk), dk (T, hk), dv (T, hv) are overwritten; out and lse are the forward's.
template <typename Real>
void attention_tiled_backward_ref(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* q, const Real* k,
                                  const Real* v, const Real* out, const Real* lse, const std::uint8_t* key_keep, int T,
                                  int hk, int hv, Real alpha, bool causal);
void attention_tiled_backward_simd(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                                   const float* v, const float* out, const float* lse, const std::uint8_t* key_keep,
                                   int T, int hk, int hv, float alpha, bool causal);

// True when the _simd versions use vector instructions (WASM SIMD128 or SSE), false when
// they fall back to the scalar f32x4 emulation.
bool simd_enabled();

}  // namespace attn::kernels

// Hot loops of attention, each as a scalar `_ref` twin and a `_simd` version (f32x4 layer).
//
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
// Every buffer is row-major and contiguous; outputs first, then inputs, then sizes.
// The `_ref` loops are templates over the scalar type, instantiated for float (the reference
// of every float kernel) and double (finite-difference checks); the `_simd` ones are float32.
// The `_simd` versions must agree with `_ref` within the tolerance stated in
// tests/cpp/kernels_test.cpp; nothing here validates arguments (src/core/ does that first).
#pragma once

#include <cstdint>

namespace attn::kernels {

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

// Fused attention for one head without materialising T×T: tiles of keys with an online
// softmax (running max m and sum l per query row, as in FlashAttention).
//   out (T, hv) = softmax(alpha · q kᵀ, masked) · v,   q (T, hk), k (T, hk), v (T, hv)
// key_keep: (T) bytes, nonzero = keep, or null for all. A fully masked row gives zeros.
template <typename Real>
void attention_tiled_ref(Real* out, const Real* q, const Real* k, const Real* v, const std::uint8_t* key_keep, int T,
                         int hk, int hv, Real alpha, bool causal);
void attention_tiled_simd(float* out, const float* q, const float* k, const float* v, const std::uint8_t* key_keep,
                          int T, int hk, int hv, float alpha, bool causal);

// True when the _simd versions use vector instructions (WASM SIMD128 or SSE), false when
// they fall back to the scalar f32x4 emulation.
bool simd_enabled();

}  // namespace attn::kernels

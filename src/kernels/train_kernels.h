// Hot loops of training: the matrix products a linear layer's backward pass needs, and GELU,
// each as a `_ref` template over the scalar type (float: the reference every fast kernel is
// checked against; double: finite-difference checks) and a float32 `_simd` version (f32x4 layer).
//
// Legend: M/K/N matrix sizes, n element count; every buffer is row-major and contiguous; outputs
// first, then inputs, then sizes. Gradients ACCUMULATE (C += …, dx += …): a weight used twice (a
// tied embedding) or an activation read by two branches (a residual) sums its gradients for
// free, and the caller zeroes the gradient buffers once per step (the llm.c convention).
// The products are gemm.h's (the `_simd` ones equal their `_ref` twins bit for bit); GELU's
// `_simd` agrees with `_ref` within the bound stated in tests/cpp/kernels/train_kernels_test.cpp.
// Nothing here validates arguments.
#pragma once

namespace attn::kernels {

// c (M, N) += a (M, K) · b (K, N)          e.g. dx (rows, in) += dy (rows, out) · W (out, in)
template <typename Real>
void matmul_acc_ref(Real* c, const Real* a, const Real* b, int M, int K, int N);
void matmul_acc_simd(float* c, const float* a, const float* b, int M, int K, int N);

// c (M, N) += a (K, M)ᵀ · b (K, N)         e.g. dW (out, in) += dy (rows, out)ᵀ · x (rows, in)
template <typename Real>
void matmul_tn_ref(Real* c, const Real* a, const Real* b, int M, int K, int N);
void matmul_tn_simd(float* c, const float* a, const float* b, int M, int K, int N);

// GELU, exact form, in torch's order of operations (nn.GELU(), approximate='none'):
//   y = x · 0.5 · (1 + erf(x·√½));   dy/dx = cdf + x·pdf, cdf = 0.5·(1 + erf(x·√½)), pdf = e^(−x²/2)/√(2π).
// _ref calls std::erf and std::exp, as torch's scalar kernel does. _simd evaluates erf by
// Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7), the approximation torch's own AVX2 kernel
// (Vectorized<float>::erf) uses, and e^x by the f32x4 layer's polynomial.
// y (n) = gelu(x (n)); y may alias x.
template <typename Real>
void gelu_forward_ref(Real* y, const Real* x, long long n);
void gelu_forward_simd(float* y, const float* x, long long n);
// dx (n) += dy (n) · gelu'(x (n)).
template <typename Real>
void gelu_backward_ref(Real* dx, const Real* dy, const Real* x, long long n);
void gelu_backward_simd(float* dx, const float* dy, const float* x, long long n);

// GELU, tanh form: GPT-2's gelu_new (Hugging Face's NewGELUActivation), in its order of operations:
//   u = √(2/π)·(x + 0.044715·x³),   y = 0.5·x·(1 + tanh(u))
//   dy/dx = 0.5·(1 + tanh u) + 0.5·x·(1 − tanh²u)·√(2/π)·(1 + 3·0.044715·x²)
// _ref calls std::tanh as torch does. _simd uses 1 + tanh(u) = 2/(1 + e^(−2u)) (no cancellation
// near u = 0, and e^(−2u) overflowing to +∞ gives exactly 0 for large negative x) with the f32x4
// exp (relative error < 2e-7).
// y (n) = gelu_tanh(x (n)); y may alias x.
template <typename Real>
void gelu_tanh_forward_ref(Real* y, const Real* x, long long n);
void gelu_tanh_forward_simd(float* y, const float* x, long long n);
// dx (n) += dy (n) · gelu_tanh'(x (n)).
template <typename Real>
void gelu_tanh_backward_ref(Real* dx, const Real* dy, const Real* x, long long n);
void gelu_tanh_backward_simd(float* dx, const float* dy, const float* x, long long n);

}  // namespace attn::kernels

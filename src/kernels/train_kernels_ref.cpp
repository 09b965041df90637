// Scalar reference loops of training (train_kernels.h), instantiated for float and double.
// Legend: M/K/N matrix sizes, n element count.
#include <cmath>
#include <cstddef>

#include "kernels/gemm.h"
#include "kernels/train_kernels.h"

namespace attn::kernels {

// The products are gemm_ref (gemm.h), accumulating, with a read as (M, K) or, transposed, as (K, M).
template <typename Real>
void matmul_acc_ref(Real* c, const Real* a, const Real* b, int M, int K, int N) {
  // c: (M, N) +=, a: (M, K), b: (K, N)
  gemm_ref<Real>(c, N, {a, K, 1}, {b, N, 1}, nullptr, true, M, K, N);
}

template <typename Real>
void matmul_tn_ref(Real* c, const Real* a, const Real* b, int M, int K, int N) {
  // c: (M, N) +=, a: (K, M) read transposed, b: (K, N)
  gemm_ref<Real>(c, N, {a, 1, M}, {b, N, 1}, nullptr, true, M, K, N);
}

namespace {
constexpr double kSqrtHalf = 0.70710678118654752440;    // √½ (M_SQRT1_2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/√(2π) = M_2_SQRTPI · M_SQRT1_2 / 2
}  // namespace

template <typename Real>
void gelu_forward_ref(Real* y, const Real* x, long long n) {
  // y: (n), x: (n)
  const Real alpha = static_cast<Real>(kSqrtHalf);
  // 1. y = x · 0.5 · (1 + erf(x·√½)), torch's order of operations
  for (long long i = 0; i < n; ++i) y[i] = x[i] * Real(0.5) * (Real(1) + std::erf(x[i] * alpha));
}

template <typename Real>
void gelu_backward_ref(Real* dx, const Real* dy, const Real* x, long long n) {
  // dx: (n) +=, dy: (n), x: (n)
  const Real alpha = static_cast<Real>(kSqrtHalf);
  const Real beta = static_cast<Real>(kInvSqrt2Pi);
  // 1 (reversed). d/dx [x·cdf(x)] = cdf + x·pdf, as torch's GeluBackward computes it
  for (long long i = 0; i < n; ++i) {
    const Real cdf = Real(0.5) * (Real(1) + std::erf(x[i] * alpha));
    const Real pdf = beta * std::exp(x[i] * x[i] * Real(-0.5));
    dx[i] += dy[i] * (cdf + x[i] * pdf);
  }
}

namespace {
// GPT-2's constants as Python floats (doubles), which torch rounds to float for a float tensor.
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // math.sqrt(2.0 / math.pi)
constexpr double kGeluCubic = 0.044715;
}  // namespace

template <typename Real>
void gelu_tanh_forward_ref(Real* y, const Real* x, long long n) {
  // y: (n), x: (n)
  const Real beta = static_cast<Real>(kSqrtTwoOverPi), kappa = static_cast<Real>(kGeluCubic);
  // 1. u = √(2/π)·(x + 0.044715·x³) with torch.pow(x, 3.0) = x·x·x;  2. y = (0.5·x)·(1 + tanh u)
  for (long long i = 0; i < n; ++i) {
    const Real v = x[i];
    const Real u = beta * (v + kappa * (v * v * v));
    y[i] = Real(0.5) * v * (Real(1) + std::tanh(u));
  }
}

template <typename Real>
void gelu_tanh_backward_ref(Real* dx, const Real* dy, const Real* x, long long n) {
  // dx: (n) +=, dy: (n), x: (n)
  const Real beta = static_cast<Real>(kSqrtTwoOverPi), kappa = static_cast<Real>(kGeluCubic);
  // 2 (reversed). d/dx [0.5·x·(1 + tanh u)] = 0.5·(1 + tanh u) + 0.5·x·(1 − tanh²u)·du/dx;
  // 1 (reversed). du/dx = √(2/π)·(1 + 3·0.044715·x²)
  for (long long i = 0; i < n; ++i) {
    const Real v = x[i];
    const Real t = std::tanh(beta * (v + kappa * (v * v * v)));
    const Real du = beta * (Real(1) + Real(3) * kappa * v * v);
    dx[i] += dy[i] * (Real(0.5) * (Real(1) + t) + Real(0.5) * v * (Real(1) - t * t) * du);
  }
}

template void matmul_acc_ref<float>(float*, const float*, const float*, int, int, int);
template void matmul_acc_ref<double>(double*, const double*, const double*, int, int, int);
template void matmul_tn_ref<float>(float*, const float*, const float*, int, int, int);
template void matmul_tn_ref<double>(double*, const double*, const double*, int, int, int);
template void gelu_forward_ref<float>(float*, const float*, long long);
template void gelu_forward_ref<double>(double*, const double*, long long);
template void gelu_backward_ref<float>(float*, const float*, const float*, long long);
template void gelu_backward_ref<double>(double*, const double*, const double*, long long);
template void gelu_tanh_forward_ref<float>(float*, const float*, long long);
template void gelu_tanh_forward_ref<double>(double*, const double*, long long);
template void gelu_tanh_backward_ref<float>(float*, const float*, const float*, long long);
template void gelu_tanh_backward_ref<double>(double*, const double*, const double*, long long);

}  // namespace attn::kernels

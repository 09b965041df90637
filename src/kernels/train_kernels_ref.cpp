// Scalar reference loops of training (train_kernels.h), instantiated for float and double.
// Legend: M/K/N matrix sizes, n element count.
#include <cmath>
#include <cstddef>

#include "gemm.h"
#include "train_kernels.h"

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

template void matmul_acc_ref<float>(float*, const float*, const float*, int, int, int);
template void matmul_acc_ref<double>(double*, const double*, const double*, int, int, int);
template void matmul_tn_ref<float>(float*, const float*, const float*, int, int, int);
template void matmul_tn_ref<double>(double*, const double*, const double*, int, int, int);
template void gelu_forward_ref<float>(float*, const float*, long long);
template void gelu_forward_ref<double>(double*, const double*, long long);
template void gelu_backward_ref<float>(float*, const float*, const float*, long long);
template void gelu_backward_ref<double>(double*, const double*, const double*, long long);

}  // namespace attn::kernels

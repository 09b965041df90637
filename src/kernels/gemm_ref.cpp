// gemm_ref (gemm.h): the reference product, instantiated for float and double.
// Legend: M/K/N matrix sizes.
#include <cstddef>

#include "kernels/gemm.h"
#include "kernels/half.h"

namespace attn::kernels {

template <typename Real>
void gemm_ref(Real* c, std::ptrdiff_t ldc, MatrixOf<Real> a, MatrixOf<Real> b, const Real* bias, bool accumulate, int M,
              int K, int N) {
  // c: (M, N) row stride ldc; a: (M, K), b: (K, N) strided; bias: (N) or null
  for (std::ptrdiff_t i = 0; i < M; ++i) {
    for (std::ptrdiff_t j = 0; j < N; ++j) {
      Real sum = bias ? bias[j] : Real(0);
      for (std::ptrdiff_t p = 0; p < K; ++p) sum += a.data[i * a.rows + p * a.cols] * b.data[p * b.rows + j * b.cols];
      Real& out = c[i * ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

void gemm_f16_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, MatrixOf<std::uint16_t> b, const float* bias,
                  bool accumulate, int M, int K, int N) {
  // as gemm_ref, with b(p, j) = f16_to_f32_ref(b's half)
  for (std::ptrdiff_t i = 0; i < M; ++i) {
    for (std::ptrdiff_t j = 0; j < N; ++j) {
      float sum = bias ? bias[j] : 0.0f;
      for (std::ptrdiff_t p = 0; p < K; ++p)
        sum += a.data[i * a.rows + p * a.cols] * f16_to_f32_ref(b.data[p * b.rows + j * b.cols]);
      float& out = c[i * ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

namespace {

// as gemm_ref, with b(p, j) = weight_to_f32(b's element at panel_index(p, j, K, N))
template <typename W>
void panels_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<W> b, const float* bias, bool accumulate,
                int M, int K, int N) {
  for (std::ptrdiff_t i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = bias ? bias[j] : 0.0f;
      for (int p = 0; p < K; ++p)
        sum += a.data[i * a.rows + p * a.cols] * weight_to_f32(b.data[panel_index(p, j, K, N)]);
      float& out = c[i * ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

}  // namespace

void gemm_panels_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<float> b, const float* bias,
                     bool accumulate, int M, int K, int N) {
  panels_ref(c, ldc, a, b, bias, accumulate, M, K, N);
}

void gemm_panels_f16_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<std::uint16_t> b, const float* bias,
                         bool accumulate, int M, int K, int N) {
  panels_ref(c, ldc, a, b, bias, accumulate, M, K, N);
}

void gemm_panels_bf16_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<Bf16> b, const float* bias,
                          bool accumulate, int M, int K, int N) {
  panels_ref(c, ldc, a, b, bias, accumulate, M, K, N);
}

template void gemm_ref<float>(float*, std::ptrdiff_t, MatrixOf<float>, MatrixOf<float>, const float*, bool, int, int,
                              int);
template void gemm_ref<double>(double*, std::ptrdiff_t, MatrixOf<double>, MatrixOf<double>, const double*, bool, int,
                               int, int);

}  // namespace attn::kernels

// Seed 002's causal averaging ("bag of words"), three equivalent ways.
// Legend: B batch, T tokens, D width.
#include <Eigen/Core>
#include <cmath>

#include "core/detail/internal.h"

namespace attn {

AveragingTrace causal_average(const TensorView& x) {
  // x: (T, D) or (B, T, D). Validate through the attention checks (same shapes and limits).
  Inputs inputs;
  inputs.x = x;
  Options options;
  const detail::Plan plan = detail::validate(inputs, options);
  const int B = plan.B, T = plan.T, D = plan.D;
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  AveragingTrace out;
  out.batched = plan.batched;

  // 1. the loop: xbow[b, t] = mean(x[b, :t+1])
  out.loop = detail::zeros({B, T, D});
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < D; ++c) {
        float sum = 0.0f;
        for (int s = 0; s <= t; ++s) sum += x.data[(static_cast<long long>(b) * T + s) * D + c];
        out.loop.data[(static_cast<size_t>(b) * T + t) * D + c] = sum / static_cast<float>(t + 1);
      }

  // 2. normalised lower-triangular matrix times x
  out.tril_weights = detail::zeros({T, T});
  Eigen::Map<RowMatrix> tril(out.tril_weights.data.data(), T, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j) tril(i, j) = 1.0f / static_cast<float>(i + 1);
  out.matmul = detail::zeros({B, T, D});
  for (int b = 0; b < B; ++b) {
    Eigen::Map<const RowMatrix> xb(x.data + static_cast<long long>(b) * T * D, T, D);
    Eigen::Map<RowMatrix>(out.matmul.data.data() + static_cast<long long>(b) * T * D, T, D).noalias() = tril * xb;
  }

  // 3. softmax of zeros with −∞ above the diagonal, times x
  out.masked_zeros = detail::zeros({T, T});
  out.softmax_weights = detail::zeros({T, T});
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j)
      out.masked_zeros.data[static_cast<size_t>(i) * T + j] = j > i ? detail::kMinusInf : 0.0f;
    // row softmax: max is 0, exp(0) = 1 for the i+1 live entries, exp(−∞) = 0 for the rest
    float sum = 0.0f;
    for (int j = 0; j < T; ++j) sum += std::exp(out.masked_zeros.data[static_cast<size_t>(i) * T + j]);
    for (int j = 0; j < T; ++j)
      out.softmax_weights.data[static_cast<size_t>(i) * T + j] =
          std::exp(out.masked_zeros.data[static_cast<size_t>(i) * T + j]) / sum;
  }
  out.softmax = detail::zeros({B, T, D});
  Eigen::Map<const RowMatrix> soft(out.softmax_weights.data.data(), T, T);
  for (int b = 0; b < B; ++b) {
    Eigen::Map<const RowMatrix> xb(x.data + static_cast<long long>(b) * T * D, T, D);
    Eigen::Map<RowMatrix>(out.softmax.data.data() + static_cast<long long>(b) * T * D, T, D).noalias() = soft * xb;
  }
  return out;
}

}  // namespace attn

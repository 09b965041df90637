// One head's attention, three ways: the unravelled loops (reference), Eigen (vectorized) and
// the f32x4 kernels (simd). All write the same intermediates.
// Legend: T tokens, hk query/key head width, hv value head width.
//   q (T, hk), k (T, hk), v (T, hv) → scores, scaled, masked, weights, dropped (T, T), out (T, hv)
#include <Eigen/Core>
#include <cmath>

#include "internal.h"
#include "kernels.h"

namespace attn::detail {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;
using Map = Eigen::Map<RowMatrix>;

bool is_masked(const HeadInputs& in, int i, int j) {
  return (in.causal && j > i) || (in.key_keep != nullptr && in.key_keep[j] == 0);
}

// Passes 2–3 shared by the reference and simd paths: scaled = scores · alpha, then −∞ where masked.
void scale_and_mask(const HeadInputs& in, const HeadBuffers& out) {
  const int T = in.T;
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      const long long ij = static_cast<long long>(i) * T + j;
      out.scaled[ij] = out.scores[ij] * in.alpha;
      out.masked[ij] = is_masked(in, i, j) ? kMinusInf : out.scaled[ij];
    }
  }
}

// Pass 5: dropped = weights · keep / (1 − p), or a copy when dropout is off.
void apply_dropout(const HeadInputs& in, const HeadBuffers& out) {
  const long long n = static_cast<long long>(in.T) * in.T;
  const float inverse_keep = in.keep ? 1.0f / (1.0f - in.dropout) : 1.0f;
  for (long long ij = 0; ij < n; ++ij) {
    out.dropped[ij] = in.keep ? (in.keep[ij] ? out.weights[ij] * inverse_keep : 0.0f) : out.weights[ij];
  }
}

}  // namespace

void head_reference(const HeadInputs& in, const HeadBuffers& out) {
  const int T = in.T;
  // 1. scores: for each query i, for each key j, a dot product (seed 000's loops)
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      float dot = 0.0f;
      for (int c = 0; c < in.hk; ++c) dot += in.q[i * in.hk + c] * in.k[j * in.hk + c];
      out.scores[static_cast<long long>(i) * T + j] = dot;
    }
  }
  // 2–3. scale, mask
  scale_and_mask(in, out);
  // 4. softmax per row: row max, exp and sum, normalise
  for (int i = 0; i < T; ++i) {
    const float* row = out.masked + static_cast<long long>(i) * T;
    float* weights = out.weights + static_cast<long long>(i) * T;
    float max = kMinusInf;
    for (int j = 0; j < T; ++j) max = row[j] > max ? row[j] : max;
    if (max == kMinusInf) {  // every key masked: zero weights (PyTorch gives NaN)
      for (int j = 0; j < T; ++j) weights[j] = 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (int j = 0; j < T; ++j) {
      weights[j] = row[j] == kMinusInf ? 0.0f : std::exp(row[j] - max);
      sum += weights[j];
    }
    for (int j = 0; j < T; ++j) weights[j] /= sum;
  }
  // 5. dropout
  apply_dropout(in, out);
  // 6. for each row, the weighted sum of value rows
  for (int i = 0; i < T; ++i) {
    float* row_out = out.out + static_cast<long long>(i) * in.hv;
    for (int c = 0; c < in.hv; ++c) row_out[c] = 0.0f;
    for (int j = 0; j < T; ++j) {
      const float a = out.dropped[static_cast<long long>(i) * T + j];
      for (int c = 0; c < in.hv; ++c) row_out[c] += a * in.v[j * in.hv + c];
    }
  }
}

void head_vectorized(const HeadInputs& in, const HeadBuffers& out) {
  const int T = in.T;
  ConstMap q(in.q, T, in.hk), k(in.k, T, in.hk), v(in.v, T, in.hv);
  Map scores(out.scores, T, T), scaled(out.scaled, T, T), masked(out.masked, T, T);
  Map weights(out.weights, T, T), dropped(out.dropped, T, T), result(out.out, T, in.hv);

  // 1–3. scores, scale, mask
  scores.noalias() = q * k.transpose();
  scaled = scores * in.alpha;
  masked = scaled;
  if (in.causal) masked.triangularView<Eigen::StrictlyUpper>().setConstant(kMinusInf);
  if (in.key_keep) {
    for (int j = 0; j < T; ++j) {
      if (!in.key_keep[j]) masked.col(j).setConstant(kMinusInf);
    }
  }
  // 4. row softmax; a fully masked row (max = −∞) stays all zero
  Eigen::VectorXf row_max = masked.rowwise().maxCoeff();
  const Eigen::VectorXf safe_max = (row_max.array() == kMinusInf).select(0.0f, row_max);
  weights = (masked.colwise() - safe_max).array().exp().matrix();
  const Eigen::VectorXf sums = weights.rowwise().sum();
  for (int i = 0; i < T; ++i) {
    if (sums[i] > 0.0f) weights.row(i) /= sums[i];
    else weights.row(i).setZero();
  }
  // 5. dropout
  if (in.keep) {
    const float inverse_keep = 1.0f / (1.0f - in.dropout);
    Eigen::Map<const Eigen::Array<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> keep(in.keep, T, T);
    dropped = ((keep != 0).cast<float>() * weights.array() * inverse_keep).matrix();  // nonzero = keep
  } else {
    dropped = weights;
  }
  // 6. weighted sum of values
  result.noalias() = dropped * v;
}

void head_simd(const HeadInputs& in, const HeadBuffers& out) {
  const int T = in.T;
  const long long n = static_cast<long long>(T) * T;
  // 1. every score, masked or not, so the page can show what the mask hides
  kernels::qk_scores_simd(out.scores, in.q, in.k, T, in.hk, 1.0f, false);
  // 2–3. scale, mask
  scale_and_mask(in, out);
  // 4. row softmax in place on a copy of the masked scores
  for (long long ij = 0; ij < n; ++ij) out.weights[ij] = out.masked[ij];
  kernels::softmax_rows_simd(out.weights, T, T, in.causal);
  // 5. dropout
  apply_dropout(in, out);
  // 6. weighted sum
  kernels::weighted_sum_simd(out.out, out.dropped, in.v, T, in.hv, in.causal);
}

void project(Kernel kernel, float* y, const float* x, const float* w, const float* bias, int M, int K, int N,
             bool transposed_w) {
  // y: (M, N), x: (M, K), w: (K, N) or (N, K) when transposed_w, bias: (N) or null
  switch (kernel) {
    case Kernel::kReference:
      transposed_w ? kernels::matmul_nt_ref(y, x, w, bias, M, K, N) : kernels::matmul_ref(y, x, w, bias, M, K, N);
      return;
    case Kernel::kVectorized: {
      ConstMap xs(x, M, K);
      Map ys(y, M, N);
      if (transposed_w) ys.noalias() = xs * ConstMap(w, N, K).transpose();
      else ys.noalias() = xs * ConstMap(w, K, N);
      if (bias) ys.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, N);
      return;
    }
    default:
      transposed_w ? kernels::matmul_nt_simd(y, x, w, bias, M, K, N) : kernels::matmul_simd(y, x, w, bias, M, K, N);
      return;
  }
}

}  // namespace attn::detail

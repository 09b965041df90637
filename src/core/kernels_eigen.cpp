// The Eigen kernel table's functions: the contracts of src/kernels/kernels.h written as matrix
// expressions (the seeds' "vectorized" form). They live in src/core/ because src/kernels/ does
// not depend on Eigen. Legend: T tokens, hk/hv head widths, M/K/N matrix sizes.
#include <Eigen/Core>
#include <algorithm>

#include "core/detail/internal.h"

namespace attn::detail {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;
using Map = Eigen::Map<RowMatrix>;
using ConstRowVector = Eigen::Map<const Eigen::RowVectorXf>;

}  // namespace

void matmul_eigen(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (K, N), bias: (N) or null
  Map ys(y, M, N);
  ys.noalias() = ConstMap(x, M, K) * ConstMap(w, K, N);
  if (bias) ys.rowwise() += ConstRowVector(bias, N);
}

void matmul_nt_eigen(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (N, K) nn.Linear layout, bias: (N) or null
  Map ys(y, M, N);
  ys.noalias() = ConstMap(x, M, K) * ConstMap(w, N, K).transpose();
  if (bias) ys.rowwise() += ConstRowVector(bias, N);
}

void qk_scores_eigen(float* scores, const float* q, const float* k, int T, int hk, float alpha, bool causal) {
  // scores: (T, T), q: (T, hk), k: (T, hk); causal: the product is whole, then j > i is −∞
  Map s(scores, T, T);
  s.noalias() = alpha * (ConstMap(q, T, hk) * ConstMap(k, T, hk).transpose());
  if (causal) s.triangularView<Eigen::StrictlyUpper>().setConstant(kMinusInf);
}

void softmax_rows_eigen(float* w, int rows, int cols, bool causal) {
  // w: (rows, cols), in place; causal: row i's entries j > i are not read and become 0
  Map m(w, rows, cols);
  for (int i = 0; i < rows; ++i) {
    const int live = causal ? std::min(i + 1, cols) : cols;
    m.row(i).tail(cols - live).setZero();
    auto row = m.row(i).head(live).array();
    const float max = row.maxCoeff();  // 1. row max
    if (max == kMinusInf) {            // fully masked row
      row.setZero();
      continue;
    }
    // 2. exp and sum. Eigen's packet exp clamps −∞ to e^−88.7 ≈ 3e-39, so masked entries are
    //    set to exactly 0 here.
    row = (row == kMinusInf).select(0.0f, (row - max).exp());
    row /= row.sum();  // 3. normalise
  }
}

void weighted_sum_eigen(float* out, const float* w, const float* v, int T, int hv, bool causal) {
  // out: (T, hv), w: (T, T), v: (T, hv); causal: a lower-triangular product never reads j > i
  Map o(out, T, hv);
  if (causal)
    o.noalias() = ConstMap(w, T, T).triangularView<Eigen::Lower>() * ConstMap(v, T, hv);
  else
    o.noalias() = ConstMap(w, T, T) * ConstMap(v, T, hv);
}

void softmax_rows_backward_eigen(float* ds, const float* dw, const float* w, int rows, int cols, bool causal) {
  // ds, dw, w: (rows, cols); ds = w ⊙ (dw − Σ w·dw) per row; causal: row i's j > i are 0
  for (int i = 0; i < rows; ++i) {
    const int live = causal ? std::min(i + 1, cols) : cols;
    const Eigen::Map<const Eigen::ArrayXf> wi(w + static_cast<long long>(i) * cols, live);
    const Eigen::Map<const Eigen::ArrayXf> gi(dw + static_cast<long long>(i) * cols, live);
    const float dot = (wi * gi).sum();
    Eigen::Map<Eigen::ArrayXf> out(ds + static_cast<long long>(i) * cols, cols);
    out.head(live) = wi * (gi - dot);
    out.tail(cols - live).setZero();
  }
}

}  // namespace attn::detail

// Principal components in 2-D with Eigen's symmetric eigensolver, in double.
// Legend: N points, D width.
#include "core/pca.h"

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "core/detail/internal.h"

namespace attn {

Projection2D pca2(const TensorView& x) {
  // x: (N, D) row-major
  if (!x.given() || x.shape.size() != 2) {
    throw Error("x: expected shape (N, D) of points, got " + shape_string(x.shape));
  }
  // The attention checks cover positive dims, element count, finiteness and magnitude.
  Inputs inputs;
  inputs.x = x;
  detail::validate(inputs, Options{});
  const int N = x.shape[0], D = x.shape[1];
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Matrix points =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(x.data, N, D)
          .cast<double>();

  // 1. centre
  const Eigen::RowVectorXd mean = points.colwise().mean();
  const Matrix centred = points.rowwise() - mean;
  // 2. covariance (divisor N) and its eigenvectors, ascending eigenvalues
  const Matrix covariance = (centred.transpose() * centred) / static_cast<double>(N);
  Eigen::SelfAdjointEigenSolver<Matrix> solver(covariance);
  const double total = covariance.trace();

  Projection2D out;
  out.mean = detail::zeros({D});
  out.components = detail::zeros({2, D});
  out.projected = detail::zeros({N, 2});
  out.explained = detail::zeros({2});
  out.total_variance = static_cast<float>(total);
  for (int c = 0; c < D; ++c) out.mean.data[c] = static_cast<float>(mean[c]);
  // 3. the two largest, each signed so its largest-magnitude entry is positive
  for (int k = 0; k < 2 && k < D; ++k) {
    Eigen::VectorXd v = solver.eigenvectors().col(D - 1 - k);
    Eigen::Index at = 0;
    v.cwiseAbs().maxCoeff(&at);
    if (v[at] < 0) v = -v;
    const double value = std::max(0.0, solver.eigenvalues()[D - 1 - k]);
    out.explained.data[k] = total > 0 ? static_cast<float>(value / total) : 0.0f;
    for (int c = 0; c < D; ++c) out.components.data[static_cast<size_t>(k) * D + c] = static_cast<float>(v[c]);
    // 4. project
    const Eigen::VectorXd p = centred * v;
    for (int n = 0; n < N; ++n) out.projected.data[static_cast<size_t>(n) * 2 + k] = static_cast<float>(p[n]);
  }
  return out;
}

}  // namespace attn

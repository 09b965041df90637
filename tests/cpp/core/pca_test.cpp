// pca2: the plane view's projection of wide vectors onto their two directions of largest spread.
#include "core/pca.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

attn::TensorView view(const std::vector<float>& data, int n, int d) { return {data.data(), {n, d}}; }

TEST(Pca2, PointsOnALineHaveAllTheirVarianceOnTheFirstComponent) {
  // (t, 2t, −t) for t = −2 … 2, shifted by (1, 1, 1)
  std::vector<float> x;
  for (int t = -2; t <= 2; ++t) x.insert(x.end(), {1.0f + t, 1.0f + 2.0f * t, 1.0f - t});
  const attn::Projection2D p = attn::pca2(view(x, 5, 3));
  EXPECT_NEAR(p.explained.data[0], 1.0f, 1e-6);
  EXPECT_NEAR(p.explained.data[1], 0.0f, 1e-6);
  const float norm = std::sqrt(6.0f);
  EXPECT_NEAR(p.components.data[0], 1.0f / norm, 1e-6);
  EXPECT_NEAR(p.components.data[1], 2.0f / norm, 1e-6);  // the largest entry is positive
  EXPECT_NEAR(p.components.data[2], -1.0f / norm, 1e-6);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(p.mean.data[c], 1.0f, 1e-6);
  for (int t = -2; t <= 2; ++t) EXPECT_NEAR(p.projected.data[(t + 2) * 2], t * norm, 1e-5);
}

TEST(Pca2, TwoDimensionalPointsAreOnlyRotatedAndCentred) {
  // For D = 2 the projection keeps every distance: it is a rotation of the centred points.
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(2 * 9);
  for (float& v : x) v = normal(rng);
  const attn::Projection2D p = attn::pca2(view(x, 9, 2));
  EXPECT_NEAR(p.explained.data[0] + p.explained.data[1], 1.0f, 1e-6);
  EXPECT_GE(p.explained.data[0], p.explained.data[1]);
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b) {
      const float dx = x[a * 2] - x[b * 2], dy = x[a * 2 + 1] - x[b * 2 + 1];
      const float px = p.projected.data[a * 2] - p.projected.data[b * 2];
      const float py = p.projected.data[a * 2 + 1] - p.projected.data[b * 2 + 1];
      EXPECT_NEAR(dx * dx + dy * dy, px * px + py * py, 1e-4);
    }
}

TEST(Pca2, ExplainedVarianceMatchesTheSpreadAlongEachComponent) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int N = 40, D = 7;
  std::vector<float> x(N * D);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < D; ++c) x[n * D + c] = normal(rng) * static_cast<float>(c + 1);  // widest spread last
  const attn::Projection2D p = attn::pca2(view(x, N, D));
  for (int k = 0; k < 2; ++k) {
    double spread = 0;
    for (int n = 0; n < N; ++n)
      spread += static_cast<double>(p.projected.data[n * 2 + k]) * p.projected.data[n * 2 + k];
    EXPECT_NEAR(spread / N / p.total_variance, p.explained.data[k], 1e-5);
  }
  double dot = 0;
  for (int c = 0; c < D; ++c) dot += static_cast<double>(p.components.data[c]) * p.components.data[D + c];
  EXPECT_NEAR(dot, 0.0, 1e-5) << "the components are orthogonal";
  EXPECT_GT(std::fabs(p.components.data[D - 1]), 0.7f) << "the first component follows the widest dimension";
}

TEST(Pca2, DegenerateInputsGiveZerosNotNaN) {
  const std::vector<float> one = {3.0f, -1.0f};
  const attn::Projection2D single = attn::pca2(view(one, 1, 2));
  EXPECT_EQ(single.explained.data[0], 0.0f);
  EXPECT_EQ(single.projected.data[0], 0.0f);
  const std::vector<float> column = {1.0f, 2.0f, 4.0f};
  const attn::Projection2D narrow = attn::pca2(view(column, 3, 1));
  EXPECT_NEAR(narrow.explained.data[0], 1.0f, 1e-6);
  EXPECT_EQ(narrow.explained.data[1], 0.0f);
  EXPECT_EQ(narrow.components.data[1], 0.0f) << "no second direction in one dimension";
}

TEST(Pca2, BadPointsAreErrorsNamingX) {
  const std::vector<float> nan = {1.0f, NAN};
  const auto expect_x = [](const attn::TensorView& v) {
    try {
      attn::pca2(v);
      ADD_FAILURE() << "no error";
    } catch (const attn::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("x:", 0), 0u) << e.what();
    }
  };
  expect_x(view(nan, 1, 2));
  expect_x({nan.data(), {2}});
  expect_x({nan.data(), {1, 1, 2}});
  expect_x({});
}

}  // namespace

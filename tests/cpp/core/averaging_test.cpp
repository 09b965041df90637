// Seed 002's causal averaging: the loop, the normalised tril product and the softmax of masked
// zeros agree with each other and with PyTorch (tests/fixtures/causal_average.json).
//
// Tolerance 1e-6 abs + 1e-5 rel: each value is a mean of at most 8 float32 numbers of size
// ≲ 3, so any summation order is within 8·ε·3 ≈ 3e-6 of another; measured differences are
// a few 1e-7.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "fixture_loader.h"
#include "test_util.h"

namespace {

using attn_test::TensorsNear;
using attn_test::Tolerance;

constexpr Tolerance kAverageTolerance{1e-6, 1e-5};

TEST(CausalAverage, MatchesPyTorchSeed002InAllThreeForms) {
  const attn_test::Fixture f = attn_test::load_fixture("causal_average");
  const attn::AveragingTrace a = attn::causal_average(f.make_inputs().x);
  EXPECT_TRUE(a.batched);
  EXPECT_TRUE(TensorsNear(a.loop, f.want("loop"), kAverageTolerance, "loop"));
  EXPECT_TRUE(TensorsNear(a.tril_weights, f.want("tril_weights"), kAverageTolerance, "tril_weights"));
  EXPECT_TRUE(TensorsNear(a.matmul, f.want("matmul"), kAverageTolerance, "matmul"));
  EXPECT_TRUE(TensorsNear(a.masked_zeros, f.want("masked_zeros"), {0, 0}, "masked_zeros"));
  EXPECT_TRUE(TensorsNear(a.softmax_weights, f.want("softmax_weights"), kAverageTolerance, "softmax_weights"));
  EXPECT_TRUE(TensorsNear(a.softmax, f.want("softmax"), kAverageTolerance, "softmax"));
}

TEST(CausalAverage, ThreeFormsAgreeOnRandomShapes) {
  std::mt19937 rng(2002);
  for (int trial = 0; trial < 24; ++trial) {
    const int B = attn_test::uniform_int(rng, 1, 3), T = attn_test::uniform_int(rng, 1, 67),
              D = attn_test::uniform_int(rng, 1, 17);
    const attn_test::Owned x = attn_test::random_tensor(rng, {B, T, D}, -3.0f, 3.0f);
    const attn::AveragingTrace a = attn::causal_average(x.view());
    // Means of up to 67 values of size ≤ 3: 67·ε·3 ≈ 2.4e-5 worst case.
    const Tolerance tol{3e-5, 1e-5};
    SCOPED_TRACE("B=" + std::to_string(B) + " T=" + std::to_string(T) + " D=" + std::to_string(D));
    EXPECT_TRUE(TensorsNear(a.matmul, a.loop, tol, "matmul vs loop"));
    EXPECT_TRUE(TensorsNear(a.softmax, a.loop, tol, "softmax vs loop"));
    EXPECT_TRUE(TensorsNear(a.softmax_weights, a.tril_weights, {1e-7, 1e-6}, "softmax weights vs tril"));
  }
}

TEST(CausalAverage, MaskedZerosAreZeroOnAndBelowTheDiagonalAndMinusInfinityAbove) {
  const attn_test::Owned x = attn_test::filled({5, 2}, 1.0f);
  const attn::AveragingTrace a = attn::causal_average(x.view());
  EXPECT_FALSE(a.batched);
  ASSERT_EQ(a.masked_zeros.shape, (std::vector<int>{5, 5}));
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      const float m = a.masked_zeros.at({i, j});
      if (j > i) {
        EXPECT_EQ(m, -std::numeric_limits<float>::infinity());
        EXPECT_EQ(a.softmax_weights.at({i, j}), 0.0f);
        EXPECT_EQ(a.tril_weights.at({i, j}), 0.0f);
      } else {
        EXPECT_EQ(m, 0.0f);
        EXPECT_FLOAT_EQ(a.tril_weights.at({i, j}), 1.0f / static_cast<float>(i + 1));
      }
    }
}

TEST(CausalAverage, EachTokenIsTheMeanOfItselfAndThePast) {
  // x[t] = t: the mean of 0..t is t/2.
  attn_test::Owned x = attn_test::filled({6, 1}, 0.0f);
  for (int t = 0; t < 6; ++t) x.data[static_cast<size_t>(t)] = static_cast<float>(t);
  const attn::AveragingTrace a = attn::causal_average(x.view());
  ASSERT_EQ(a.loop.shape, (std::vector<int>{1, 6, 1}));
  for (int t = 0; t < 6; ++t) {
    EXPECT_FLOAT_EQ(a.loop.data[static_cast<size_t>(t)], t / 2.0f);
    EXPECT_FLOAT_EQ(a.matmul.data[static_cast<size_t>(t)], t / 2.0f);
    EXPECT_FLOAT_EQ(a.softmax.data[static_cast<size_t>(t)], t / 2.0f);
  }
}

TEST(CausalAverage, BadInputThrowsNamingX) {
  attn_test::Owned x = attn_test::filled({3, 2}, 1.0f);
  x.data[4] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::causal_average(x.view()); }, {"x"}, {"finite"}));
  const attn_test::Owned flat = attn_test::filled({6}, 1.0f);
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::causal_average(flat.view()); }, {"x"}, {"(6,)"}));
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::causal_average(attn::TensorView{}); }, {"x"}));
}

}  // namespace

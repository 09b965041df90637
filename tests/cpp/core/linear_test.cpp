// attn::linear, the plain linear layer y = x·w + b: values, shapes, every kernel, and every bad
// input named. Legend: B batch, T tokens, D width, N output width.
//
// Tolerance between kernels: each y element is a dot product of D terms plus the bias, summed in
// another order by the simd and Eigen matmuls, so it may differ from the reference loops by
// 2·γ_(D+1)·(Σ|x·w| + |b|), γ_n = n·u/(1 − n·u), u = 2⁻²⁴ (Higham §3.1), as in kernels/kernels_test.cpp.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "core/examples.h"
#include "test_util.h"

namespace {

using attn_test::filled;
using attn_test::Owned;
using attn_test::ThrowsNaming;

double gamma(int n) {
  const double u = 1.0 / (1 << 24);
  return n * u / (1.0 - n * u);
}

// y (rows, N) = x (rows, D) · w (D, N) + b, in double.
std::vector<double> linear_in_double(const Owned& x, const Owned& w, const Owned* b) {
  const int D = w.shape[0], N = w.shape[1];
  const int rows = static_cast<int>(x.data.size()) / D;
  std::vector<double> y(static_cast<size_t>(rows) * N);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = b ? b->data[j] : 0.0;
      for (int c = 0; c < D; ++c) sum += static_cast<double>(x.data[i * D + c]) * w.data[c * N + j];
      y[static_cast<size_t>(i) * N + j] = sum;
    }
  return y;
}

TEST(Linear, SeedBankExampleIsXTimesWAndCannotTellTheBanksApart) {
  const auto& ex = attn::examples::bank();
  const std::vector<float> river = attn::examples::embed(ex.river), finance = attn::examples::embed(ex.finance);
  const attn::TensorView w{ex.linear.data.data(), {4, 3}};
  const attn::Tensor yr = attn::linear({river.data(), {3, 4}}, w);
  const attn::Tensor yf = attn::linear({finance.data(), {3, 4}}, w);
  ASSERT_EQ(yr.shape, (std::vector<int>{3, 3}));
  // stream (1.2, 0, 0, 0.3) · W = (1.2, 0.33, 0.24); bank (0.8, 0.8, 0.2, 0) · W = (0.98, 1.14, 0.2)
  EXPECT_NEAR(yr.at({0, 0}), 1.2f, 1e-6);
  EXPECT_NEAR(yr.at({0, 1}), 0.33f, 1e-6);
  EXPECT_NEAR(yr.at({0, 2}), 0.24f, 1e-6);
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(yr.at({1, j}), (std::vector<float>{0.98f, 1.14f, 0.2f})[j], 1e-6);
    EXPECT_EQ(yr.at({1, j}), yf.at({1, j})) << "a linear layer sees only the word, not its context";
  }
  EXPECT_FLOAT_EQ(attn::cosine_similarity(&yr.data[3], &yf.data[3], 3), 1.0f);
}

TEST(Linear, BiasIsAddedToEveryRow) {
  std::mt19937 rng(5);
  const Owned x = attn_test::random_tensor(rng, {4, 3}), w = attn_test::random_tensor(rng, {3, 2});
  const Owned b = attn_test::random_tensor(rng, {2});
  const attn::Tensor without = attn::linear(x.view(), w.view());
  const attn::Tensor with = attn::linear(x.view(), w.view(), b.view());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_FLOAT_EQ(with.at({i, j}), without.at({i, j}) + b.data[j]);
}

TEST(Linear, BatchedInputKeepsItsBatchAndEachBatchIsItsOwnCall) {
  std::mt19937 rng(6);
  const Owned x = attn_test::random_tensor(rng, {3, 5, 4}), w = attn_test::random_tensor(rng, {4, 7});
  const attn::Tensor y = attn::linear(x.view(), w.view());
  ASSERT_EQ(y.shape, (std::vector<int>{3, 5, 7}));
  for (int b = 0; b < 3; ++b) {
    const attn::Tensor one = attn::linear({x.data.data() + b * 5 * 4, {5, 4}}, w.view());
    for (int i = 0; i < 5 * 7; ++i) EXPECT_EQ(y.data[static_cast<size_t>(b) * 35 + i], one.data[i]);
  }
}

TEST(Linear, EveryKernelMatchesXTimesWPlusBInDoubleOnOddShapes) {
  std::mt19937 rng(7);
  for (int T : {1, 3, 4, 5, 17, 67})
    for (int D : {1, 3, 5, 16, 17})
      for (int N : {1, 3, 8, 9, 67})
        for (bool with_bias : {false, true})
          for (attn::Kernel kernel : {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd,
                                      attn::Kernel::kTiled, attn::Kernel::kAuto}) {
            SCOPED_TRACE("T=" + std::to_string(T) + " D=" + std::to_string(D) + " N=" + std::to_string(N) +
                         " bias=" + std::to_string(with_bias) + " kernel=" + attn::kernel_name(kernel));
            const Owned x = attn_test::random_tensor(rng, {T, D}), w = attn_test::random_tensor(rng, {D, N});
            const Owned b = attn_test::random_tensor(rng, {N});
            const attn::Tensor y = attn::linear(x.view(), w.view(), with_bias ? b.view() : attn::TensorView{}, kernel);
            const std::vector<double> want = linear_in_double(x, w, with_bias ? &b : nullptr);
            ASSERT_EQ(y.shape, (std::vector<int>{T, N}));
            for (int i = 0; i < T; ++i)
              for (int j = 0; j < N; ++j) {
                double abs_sum = with_bias ? std::fabs(b.data[j]) : 0.0;
                for (int c = 0; c < D; ++c) abs_sum += std::fabs(x.data[i * D + c] * w.data[c * N + j]);
                ASSERT_NEAR(y.data[static_cast<size_t>(i) * N + j], want[static_cast<size_t>(i) * N + j],
                            2.0 * gamma(D + 1) * abs_sum + 1e-30)
                    << "at (" << i << ", " << j << ")";
              }
          }
}

// The message must start with "name:" (the engine and the fuzzer read the argument from there)
// and contain every one of `must`.
::testing::AssertionResult FailsNaming(const std::string& name, const Owned* x, const Owned* w, const Owned* b,
                                       std::initializer_list<std::string> must) {
  std::string message;
  const auto result = ThrowsNaming(
      [&] {
        try {
          attn::linear(x ? x->view() : attn::TensorView{}, w ? w->view() : attn::TensorView{},
                       b ? b->view() : attn::TensorView{});
        } catch (const attn::Error& e) {
          message = e.what();
          throw;
        }
      },
      must);
  if (!result) return result;
  if (message.rfind(name + ": ", 0) != 0) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not start with \"" << name << ": \"";
  }
  return ::testing::AssertionSuccess() << message;
}

TEST(LinearErrors, EveryBadInputNamesItsArgumentAndTheExpectedShape) {
  const Owned x = filled({3, 4}, 0.5f), w = filled({4, 2}, 0.5f), b = filled({2}, 0.5f);
  Owned nan_x = x, big_x = x, inf_w = w, nan_b = b;
  nan_x.data[5] = std::nanf("");
  big_x.data[0] = 2e4f;
  inf_w.data[1] = INFINITY;
  nan_b.data[1] = std::nanf("");
  const Owned x1 = filled({4}, 1.0f), x4 = filled({1, 1, 3, 4}, 1.0f), x0 = filled({0, 4}, 1.0f);
  const Owned wide_x = filled({1, 4097}, 0.0f), batch_x = filled({1025, 1, 4}, 0.0f);
  const Owned w1 = filled({4}, 1.0f), w_rows = filled({3, 2}, 1.0f), wide_w = filled({4, 4097}, 0.0f);
  const Owned b2 = filled({1, 2}, 1.0f), b3 = filled({3}, 1.0f);
  // B·T·N = 1024·128·4096 = 2^29 outputs > kMaxTraceElements = 2^27
  const Owned many_x = filled({1024, 128, 1}, 0.0f), many_w = filled({1, 4096}, 0.0f);

  EXPECT_TRUE(FailsNaming("x", nullptr, &w, nullptr, {"required", "(T, D) or (B, T, D)"}));
  EXPECT_TRUE(FailsNaming("x", &x1, &w, nullptr, {"2 or 3 dimensions", "(4,)"}));
  EXPECT_TRUE(FailsNaming("x", &x4, &w, nullptr, {"2 or 3 dimensions", "(1, 1, 3, 4)"}));
  EXPECT_TRUE(FailsNaming("x", &x0, &w, nullptr, {"≥ 1", "(0, 4)"}));
  EXPECT_TRUE(FailsNaming("x", &nan_x, &w, nullptr, {"finite", "flat index 5"}));
  EXPECT_TRUE(FailsNaming("x", &big_x, &w, nullptr, {"|value| must be at most 10000", "20000"}));
  EXPECT_TRUE(FailsNaming("x", &wide_x, &w, nullptr, {"width", "4097", "4096"}));
  EXPECT_TRUE(FailsNaming("x", &batch_x, &w, nullptr, {"batch 1025", "1024"}));
  EXPECT_TRUE(FailsNaming("x", &many_x, &many_w, nullptr, {"536870912", "limit"}));
  EXPECT_TRUE(FailsNaming("w", &x, nullptr, nullptr, {"required", "(4, N)", "4 = x width"}));
  EXPECT_TRUE(FailsNaming("w", &x, &w1, nullptr, {"2 dimensions", "(4,)"}));
  EXPECT_TRUE(FailsNaming("w", &x, &w_rows, nullptr, {"expected shape (4, 2)", "4 = x width", "got (3, 2)"}));
  EXPECT_TRUE(FailsNaming("w", &x, &wide_w, nullptr, {"width", "4097"}));
  EXPECT_TRUE(FailsNaming("w", &x, &inf_w, nullptr, {"finite", "flat index 1"}));
  EXPECT_TRUE(FailsNaming("b", &x, &w, &b2, {"1 dimensions", "(1, 2)"}));
  EXPECT_TRUE(FailsNaming("b", &x, &w, &b3, {"expected shape (2,)", "columns of w", "got (3,)"}));
  EXPECT_TRUE(FailsNaming("b", &x, &w, &nan_b, {"finite", "flat index 1"}));
  // and a good call still answers
  EXPECT_EQ(attn::linear(x.view(), w.view(), b.view()).shape, (std::vector<int>{3, 2}));
}

}  // namespace

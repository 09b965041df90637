// Every PyTorch fixture (tests/fixtures/*.json, written by make_fixtures.py) through attn::attend
// with each materialising kernel, comparing every intermediate of the Trace.
//
// Tolerance, |got − want| ≤ 1e-5 + 1e-5·|want|: both sides are float32 (ε = 1.19e-7) and differ
// only in summation order and in where the scale is applied (nn.MultiheadAttention scales q
// before the product, we scale the scores). Each fixture value passes through at most three
// dot products of length ≤ 8 with |terms| ≲ 10, whose worst-case float32 error is n·ε·Σ|aᵢbᵢ|
// ≈ 8 · 1.2e-7 · 10 ≈ 1e-5 absolute; softmax turns an absolute score error δ into a relative
// weight error of about δ. The largest error measured on these fixtures is printed by
// FixtureTolerance.MeasuredErrorIsWellInsideTheStatedTolerance (about 1e-6 for every kernel).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "fixture_loader.h"
#include "test_util.h"

namespace {

using attn_test::Fixture;
using attn_test::load_fixture;
using attn_test::Tolerance;

constexpr Tolerance kFixtureTolerance{1e-5, 1e-5};

const attn::Kernel kMaterialisingKernels[] = {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd};

class FixtureAgreesWithPyTorch : public ::testing::TestWithParam<std::tuple<std::string, attn::Kernel>> {};

TEST_P(FixtureAgreesWithPyTorch, EveryIntermediateWithinTolerance) {
  const auto& [name, kernel] = GetParam();
  const Fixture f = load_fixture(name);
  attn::Options options = f.options;
  options.kernel = kernel;
  const attn::Trace trace = attn::attend(f.make_inputs(), options);

  EXPECT_EQ(trace.kernel, kernel);
  EXPECT_EQ(trace.batched, f.batched);
  EXPECT_FLOAT_EQ(trace.scale, f.scale);
  EXPECT_EQ(trace.heads, f.options.heads);
  for (const std::string& tensor : attn_test::trace_tensor_names()) {
    SCOPED_TRACE(tensor);
    EXPECT_TRUE(attn_test::TensorsNear(attn_test::trace_tensor(trace, tensor), f.want(tensor), kFixtureTolerance,
                                       name + "." + tensor));
  }
}

// The tiled kernel keeps no T×T tensors; what it does keep must match the same fixtures.
class TiledFixtureAgreesWithPyTorch : public ::testing::TestWithParam<std::string> {};

TEST_P(TiledFixtureAgreesWithPyTorch, OutputsWithinToleranceWithoutMaterialising) {
  const Fixture f = load_fixture(GetParam());
  attn::Options options = f.options;
  options.kernel = attn::Kernel::kTiled;
  options.materialize = false;
  const attn::Trace trace = attn::attend(f.make_inputs(), options);
  EXPECT_TRUE(trace.weights.data.empty());
  EXPECT_TRUE(trace.scores.data.empty());
  for (const char* tensor : {"q", "k", "v", "head_outputs", "merged", "output"}) {
    SCOPED_TRACE(tensor);
    EXPECT_TRUE(attn_test::TensorsNear(attn_test::trace_tensor(trace, tensor), f.want(tensor), kFixtureTolerance,
                                       f.name + "." + tensor));
  }
}

std::vector<std::tuple<std::string, attn::Kernel>> all_cases() {
  std::vector<std::tuple<std::string, attn::Kernel>> cases;
  for (const std::string& name : attn_test::attention_fixture_names())
    for (attn::Kernel k : kMaterialisingKernels) cases.emplace_back(name, k);
  return cases;
}

std::vector<std::string> tiled_cases() {
  std::vector<std::string> names;
  for (const std::string& name : attn_test::attention_fixture_names())
    if (name != "dropout_keep_mask") names.push_back(name);  // the tiled kernel does no dropout
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, FixtureAgreesWithPyTorch, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + attn::kernel_name(std::get<1>(info.param));
});
INSTANTIATE_TEST_SUITE_P(AllFixtures, TiledFixtureAgreesWithPyTorch, ::testing::ValuesIn(tiled_cases()),
                         [](const auto& info) { return info.param; });

TEST(FixtureTolerance, MeasuredErrorIsWellInsideTheStatedTolerance) {
  // Reports the largest |got − want| per kernel, and requires it to be 10× inside the abs part
  // of the tolerance relative to the values' size, so a drift towards the limit is seen early.
  for (attn::Kernel kernel : kMaterialisingKernels) {
    double worst = 0.0, worst_relative = 0.0;
    std::string where;
    for (const std::string& name : attn_test::attention_fixture_names()) {
      const Fixture f = load_fixture(name);
      attn::Options options = f.options;
      options.kernel = kernel;
      const attn::Trace trace = attn::attend(f.make_inputs(), options);
      for (const std::string& tensor : attn_test::trace_tensor_names()) {
        const attn::Tensor& got = attn_test::trace_tensor(trace, tensor);
        const attn::Tensor& want = f.want(tensor);
        ASSERT_EQ(got.data.size(), want.data.size()) << name << "." << tensor;
        for (size_t i = 0; i < want.data.size(); ++i) {
          if (!std::isfinite(want.data[i])) continue;
          const double err = std::fabs(static_cast<double>(got.data[i]) - want.data[i]);
          const double relative = err / (1e-5 + 1e-5 * std::fabs(static_cast<double>(want.data[i])));
          if (err > worst) {
            worst = err;
            where = name + "." + tensor;
          }
          worst_relative = std::max(worst_relative, relative);
        }
      }
    }
    std::printf("[ measured ] fixtures, kernel %-10s: max |got - want| = %.3g (%s); %.0f%% of the tolerance\n",
                attn::kernel_name(kernel), worst, where.c_str(), 100.0 * worst_relative);
    EXPECT_LT(worst_relative, 0.5) << attn::kernel_name(kernel) << " uses more than half the tolerance at " << where;
  }
}

TEST(FixtureMasks, MaskedPositionsAreMinusInfinityExactlyWhereTorchHasThem) {
  // −∞ is compared by TensorsNear too; this states it on its own for the causal fixtures.
  for (const char* name : {"seed001_single_head_causal", "multihead_fused_qkv", "key_padding_causal"}) {
    const Fixture f = load_fixture(name);
    const attn::Trace trace = attn::attend(f.make_inputs(), f.options);
    const attn::Tensor& want = f.want("masked");
    ASSERT_EQ(trace.masked.data.size(), want.data.size());
    int masked = 0;
    for (size_t i = 0; i < want.data.size(); ++i) {
      EXPECT_EQ(std::isinf(trace.masked.data[i]), std::isinf(want.data[i])) << name << " at " << i;
      if (std::isinf(want.data[i])) {
        ++masked;
        EXPECT_LT(trace.masked.data[i], 0.0f);
        EXPECT_EQ(trace.weights.data[i], 0.0f) << name << " at " << i;
      }
    }
    EXPECT_GT(masked, 0) << name;
  }
}

TEST(KeyPadding, FullyMaskedRowGivesZeroWeightsAndZeroOutputWherePyTorchGivesNaN) {
  for (const char* name : {"key_padding", "key_padding_causal"}) {
    const Fixture f = load_fixture(name);
    const attn_test::json& torch = f.raw.at("torch");
    const attn::Tensor torch_weights = attn_test::json_tensor(torch.at("weights"));  // (B, H, T, T)
    const attn::Tensor torch_output = attn_test::json_tensor(torch.at("output"));    // (B, T, D)
    for (attn::Kernel kernel : kMaterialisingKernels) {
      attn::Options options = f.options;
      options.kernel = kernel;
      const attn::Trace trace = attn::attend(f.make_inputs(), options);
      const int T = trace.tokens, D = trace.d_out;
      int nan_rows = 0;
      for (size_t row = 0; row < torch_weights.data.size() / T; ++row) {
        if (!std::isnan(torch_weights.data[row * T])) continue;
        ++nan_rows;
        for (int j = 0; j < T; ++j) {
          EXPECT_EQ(trace.weights.data[row * T + j], 0.0f) << name << " row " << row;
          EXPECT_EQ(trace.dropped.data[row * T + j], 0.0f) << name << " row " << row;
        }
      }
      EXPECT_GT(nan_rows, 0) << name << ": the fixture should hold a fully masked row";
      for (size_t row = 0; row < torch_output.data.size() / D; ++row) {
        if (!std::isnan(torch_output.data[row * D])) continue;
        for (int c = 0; c < D; ++c) EXPECT_EQ(trace.output.data[row * D + c], 0.0f) << name << " output row " << row;
      }
    }
  }
}

TEST(FixtureFiles, EveryJsonFileIsTestedAndEveryNamedFixtureExists) {
  std::set<std::string> named(attn_test::attention_fixture_names().begin(), attn_test::attention_fixture_names().end());
  named.insert("causal_average");
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(ATTN_FIXTURES_DIR)) {
    if (entry.path().extension() == ".json") on_disk.insert(entry.path().stem().string());
  }
  EXPECT_EQ(on_disk, named) << "a fixture written by make_fixtures.py is not run by the tests, or one is missing";
  for (const std::string& name : named) EXPECT_NO_THROW(load_fixture(name)) << name;
}

}  // namespace

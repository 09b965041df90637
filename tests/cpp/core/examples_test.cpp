// Seed 003's "bank" example through attn::examples and attn::attend: the data is exactly the
// seed's, the outputs reproduce the seed's printed numbers to 3 decimals, and attention (but
// not a plain linear layer) tells the two "bank"s apart.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "core/examples.h"
#include "fixture_loader.h"
#include "test_util.h"

namespace {

namespace ex = attn::examples;
using Rows = std::vector<std::vector<double>>;

attn::TensorView view(const std::vector<float>& data, std::vector<int> shape) {
  attn::TensorView v;
  v.data = data.data();
  v.shape = std::move(shape);
  return v;
}
attn::TensorView view(const ex::Matrix& m) { return view(m.data, {m.rows, m.cols}); }

// got (rows·cols, row-major) printed to 3 decimals equals `printed` (torch rounds half to even;
// no value here sits on a half).
void ExpectPrinted(const std::vector<float>& got, const Rows& printed, const std::string& what) {
  size_t i = 0;
  for (size_t r = 0; r < printed.size(); ++r)
    for (size_t c = 0; c < printed[r].size(); ++c, ++i) {
      ASSERT_LT(i, got.size()) << what;
      EXPECT_EQ(std::lround(got[i] * 1000.0), std::lround(printed[r][c] * 1000.0))
          << what << " [" << r << ", " << c << "]: got " << got[i] << ", printed " << printed[r][c];
    }
  EXPECT_EQ(i, got.size()) << what;
}

attn::Trace raw(const std::vector<std::string>& tokens, attn::Kernel kernel) {
  static std::vector<float> x;
  x = ex::embed(tokens);
  attn::Inputs in;
  in.x = view(x, {static_cast<int>(tokens.size()), 4});
  attn::Options opt;
  opt.scale_mode = attn::ScaleMode::kNone;
  opt.kernel = kernel;
  return attn::attend(in, opt);
}

attn::Trace projected(const std::vector<std::string>& tokens, attn::Kernel kernel) {
  static std::vector<float> x;
  x = ex::embed(tokens);
  attn::Inputs in;
  in.x = view(x, {static_cast<int>(tokens.size()), 4});
  in.wq = view(ex::bank().w_query);
  in.wk = view(ex::bank().w_key);
  in.wv = view(ex::bank().w_value);
  attn::Options opt;  // default scale 1/√2
  opt.kernel = kernel;
  return attn::attend(in, opt);
}

// x (T, 4) · W (4, 3), the plain linear layer.
std::vector<float> linear(const std::vector<float>& x, const ex::Matrix& w) {
  const int T = static_cast<int>(x.size()) / w.rows;
  std::vector<float> y(static_cast<size_t>(T) * w.cols, 0.0f);
  for (int t = 0; t < T; ++t)
    for (int c = 0; c < w.cols; ++c)
      for (int r = 0; r < w.rows; ++r)
        y[static_cast<size_t>(t) * w.cols + c] +=
            x[static_cast<size_t>(t) * w.rows + r] * w.data[static_cast<size_t>(r) * w.cols + c];
  return y;
}

const attn::Kernel kKernels[] = {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd};

TEST(BankExample, DataIsExactlySeed003s) {
  const ex::BankExample& b = ex::bank();
  const std::vector<std::pair<std::string, std::vector<float>>> vocabulary = {{"stream", {1.2f, 0.0f, 0.0f, 0.3f}},
                                                                              {"mud", {0.9f, 0.0f, 0.0f, 0.9f}},
                                                                              {"money", {0.0f, 1.4f, 0.0f, 0.1f}},
                                                                              {"loan", {0.0f, 1.1f, 0.0f, 0.6f}},
                                                                              {"bank", {0.8f, 0.8f, 0.2f, 0.0f}}};
  ASSERT_EQ(b.vocabulary.size(), vocabulary.size());
  for (const auto& [name, vec] : vocabulary) {
    EXPECT_EQ(ex::embed({name}), vec) << name;
  }
  EXPECT_EQ(b.linear.rows, 4);
  EXPECT_EQ(b.linear.cols, 3);
  EXPECT_EQ(b.linear.data, (std::vector<float>{1, 0.2f, 0, 0.1f, 1.1f, 0, 0.5f, 0.5f, 1, 0, 0.3f, 0.8f}));
  EXPECT_EQ(b.w_query.rows, 4);
  EXPECT_EQ(b.w_query.cols, 2);
  EXPECT_EQ(b.w_query.data, (std::vector<float>{1, 0, 0, 1, 0.2f, 0.2f, 0, 0}));
  EXPECT_EQ(b.w_key.rows, 4);
  EXPECT_EQ(b.w_key.cols, 2);
  EXPECT_EQ(b.w_key.data, (std::vector<float>{1, 0, 0, 1, 0, 0, 0.1f, 0.1f}));
  EXPECT_EQ(b.w_value.rows, 4);
  EXPECT_EQ(b.w_value.cols, 3);
  EXPECT_EQ(b.w_value.data, (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0.5f}));
  EXPECT_EQ(b.river, (std::vector<std::string>{"stream", "bank", "mud"}));
  EXPECT_EQ(b.finance, (std::vector<std::string>{"money", "bank", "loan"}));
}

TEST(BankExample, EmbedRejectsAnUnknownWordNamingIt) {
  EXPECT_TRUE(attn_test::ThrowsNaming([] { ex::embed({"stream", "river"}); }, {"river"}));
}

TEST(BankExample, RawScoresMatchTheSeedsPrintedDotProducts) {
  for (attn::Kernel k : kKernels) {
    ExpectPrinted(raw(ex::bank().river, k).scores.data,
                  {{1.530, 0.960, 1.350}, {0.960, 1.320, 0.720}, {1.350, 0.720, 1.620}}, "river scores");
    ExpectPrinted(raw(ex::bank().finance, k).scores.data,
                  {{1.970, 1.120, 1.600}, {1.120, 1.320, 0.880}, {1.600, 0.880, 1.570}}, "finance scores");
  }
}

TEST(BankExample, RawAttentionReproducesThePrintedOutputsTo3Decimals) {
  for (attn::Kernel k : kKernels) {
    SCOPED_TRACE(attn::kernel_name(k));
    ExpectPrinted(raw(ex::bank().river, k).output.data,
                  {{1.001, 0.188, 0.047, 0.438}, {0.949, 0.356, 0.089, 0.313}, {0.987, 0.150, 0.037, 0.520}}, "river");
    ExpectPrinted(raw(ex::bank().finance, k).output.data,
                  {{0.161, 1.181, 0.040, 0.243}, {0.325, 1.078, 0.081, 0.190}, {0.158, 1.163, 0.040, 0.278}},
                  "finance");
  }
}

TEST(BankExample, ProjectedAttentionScaledByInverseSqrt2ReproducesThePrintedOutputs) {
  for (attn::Kernel k : kKernels) {
    SCOPED_TRACE(attn::kernel_name(k));
    const attn::Trace river = projected(ex::bank().river, k);
    EXPECT_FLOAT_EQ(river.scale, 1.0f / std::sqrt(2.0f));
    ExpectPrinted(river.output.data, {{0.992, 0.221, 0.261}, {0.957, 0.314, 0.256}, {0.986, 0.232, 0.263}}, "river");
    ExpectPrinted(projected(ex::bank().finance, k).output.data,
                  {{0.188, 1.158, 0.169}, {0.297, 1.089, 0.180}, {0.204, 1.146, 0.172}}, "finance");
  }
}

TEST(BankExample, PlainLinearLayerReproducesThePrintedProducts) {
  ExpectPrinted(linear(ex::embed(ex::bank().river), ex::bank().linear),
                {{1.200, 0.330, 0.240}, {0.980, 1.140, 0.200}, {0.900, 0.450, 0.720}}, "river @ W");
  ExpectPrinted(linear(ex::embed(ex::bank().finance), ex::bank().linear),
                {{0.140, 1.570, 0.080}, {0.980, 1.140, 0.200}, {0.110, 1.390, 0.480}}, "finance @ W");
}

TEST(BankExample, AttentionTellsTheTwoBanksApartWhereALinearLayerCannot) {
  const std::vector<float> river_x = ex::embed(ex::bank().river), finance_x = ex::embed(ex::bank().finance);
  // Row 1 is "bank" in both contexts.
  EXPECT_EQ(attn::cosine_similarity(river_x.data() + 4, finance_x.data() + 4, 4), 1.0f) << "identical inputs";
  const std::vector<float> river_w = linear(river_x, ex::bank().linear),
                           finance_w = linear(finance_x, ex::bank().linear);
  EXPECT_EQ(attn::cosine_similarity(river_w.data() + 3, finance_w.data() + 3, 3), 1.0f) << "after x·W";

  for (attn::Kernel k : kKernels) {
    const attn::Trace r = raw(ex::bank().river, k), f = raw(ex::bank().finance, k);
    const float raw_cos = attn::cosine_similarity(r.output.data.data() + 4, f.output.data.data() + 4, 4);
    const attn::Trace rp = projected(ex::bank().river, k), fp = projected(ex::bank().finance, k);
    const float projected_cos = attn::cosine_similarity(rp.output.data.data() + 3, fp.output.data.data() + 3, 3);
    // Computed in double from the printed 3-decimal rows: raw ≈ 0.623, projected ≈ 0.566.
    EXPECT_NEAR(raw_cos, 0.623f, 0.005f) << attn::kernel_name(k);
    EXPECT_NEAR(projected_cos, 0.566f, 0.005f) << attn::kernel_name(k);
    EXPECT_LT(raw_cos, 1.0f);
    EXPECT_LT(projected_cos, 1.0f);
  }
}

TEST(BankExample, SelfAttentionClassAfterManualSeed0ReproducesThePrintedOutputs) {
  // W_query, W_key, W_value are torch.rand(4, 3) draws: they come from the fixtures, which
  // also hold the seed's printed rows.
  for (const char* name :
       {"seed003_class_river", "seed003_class_finance", "seed003_raw_river", "seed003_projected_finance"}) {
    const attn_test::Fixture f = attn_test::load_fixture(name);
    const Rows printed = f.raw.at("printed_output").get<Rows>();
    for (attn::Kernel k : kKernels) {
      attn::Options opt = f.options;
      opt.kernel = k;
      ExpectPrinted(attn::attend(f.make_inputs(), opt).output.data, printed,
                    std::string(name) + "/" + attn::kernel_name(k));
    }
  }
}

TEST(CosineSimilarity, IsOneZeroOrMinusOneForParallelOrthogonalOrOppositeAndZeroForAZeroVector) {
  const float a[] = {1, 0, 0}, b[] = {0, 2, 0}, c[] = {3, 0, 0}, d[] = {-1, 0, 0}, z[] = {0, 0, 0};
  EXPECT_FLOAT_EQ(attn::cosine_similarity(a, b, 3), 0.0f);
  EXPECT_FLOAT_EQ(attn::cosine_similarity(a, c, 3), 1.0f);
  EXPECT_FLOAT_EQ(attn::cosine_similarity(a, d, 3), -1.0f);
  EXPECT_EQ(attn::cosine_similarity(a, z, 3), 0.0f);
}

}  // namespace

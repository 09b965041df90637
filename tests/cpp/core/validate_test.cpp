// Every bad input throws attn::Error (a std::invalid_argument) whose message names the argument
// and, where the test can pin it down, the expected and the actual shape or value.
// A valid call is built first (Valid), then one thing is broken per check.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "test_util.h"

namespace {

using attn_test::filled;
using attn_test::Owned;
using attn_test::ThrowsNaming;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A valid batched call: x (2, 3, 4), wq/wk (4, 2), wv (4, 4), biases, wo (4, 3), bo (3), H = 2;
// or (fused) wqkv (12, 4), bqkv (12) in place of the separate weights.
struct Valid {
  Owned x = filled({2, 3, 4}, 0.5f);
  Owned wq = filled({4, 2}, 0.1f), wk = filled({4, 2}, 0.2f), wv = filled({4, 4}, 0.3f);
  Owned bq = filled({2}, 0.0f), bk = filled({2}, 0.0f), bv = filled({4}, 0.0f);
  Owned wqkv = filled({12, 4}, 0.1f), bqkv = filled({12}, 0.0f);  // fused: d_k = d_v = 4
  Owned wo = filled({4, 3}, 0.1f), bo = filled({3}, 0.0f);
  attn::Options options;
  bool fused = false;

  Valid() { options.heads = 2; }

  attn::Inputs inputs() const {
    attn::Inputs in;
    in.x = x.view();
    if (fused) {
      in.wqkv = wqkv.view();
      in.bqkv = bqkv.view();
    } else {
      in.wq = wq.view();
      in.wk = wk.view();
      in.wv = wv.view();
      in.bq = bq.view();
      in.bk = bk.view();
      in.bv = bv.view();
    }
    in.wo = wo.view();
    in.bo = bo.view();
    return in;
  }
  void run() const { attn::attend(inputs(), options); }
};

TEST(BadInput, TheValidBaselineRuns) {
  Valid v;
  EXPECT_NO_THROW(v.run());
  v.fused = true;
  EXPECT_NO_THROW(v.run());
  static_assert(std::is_base_of<std::invalid_argument, attn::Error>::value, "attn::Error is an invalid_argument");
}

TEST(BadInput, XWidthDifferentFromWeightRowsNamesTheWeight) {
  Valid v;
  v.wq = filled({5, 2}, 0.1f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wq", "(5, 2)", "4"}));
  v = Valid();
  v.wk = filled({3, 2}, 0.1f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wk", "(3, 2)"}));
  v = Valid();
  v.wv = filled({6, 4}, 0.1f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wv", "(6, 4)"}));
  v = Valid();
  v.fused = true;
  v.wqkv = filled({12, 5}, 0.1f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wqkv", "(12, 5)"}));
  v.wqkv = filled({13, 4}, 0.1f);  // rows not a multiple of 3
  v.bqkv = filled({13}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wqkv", "(13, 4)"}));
}

TEST(BadInput, QueryAndKeyWidthsMustMatch) {
  Valid v;
  v.wk = filled({4, 4}, 0.1f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wk", "(4, 4)"}));
}

TEST(BadInput, OutputProjectionRowsMustEqualValueWidth) {
  Valid v;
  v.wo = filled({2, 3}, 0.1f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wo", "(2, 3)"}));
}

TEST(BadInput, HeadsThatDoNotDivideTheWidthsNameHeads) {
  Valid v;
  v.options.heads = 3;
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"heads", "3"}));
  v.options.heads = 4;  // divides d_v = 4, not d_k = 2
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"heads", "4", "2"}));
  v.options.heads = 0;
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"heads", "0"}));
  v.options.heads = -2;
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"heads", "-2"}));
}

TEST(BadInput, EmptyOrMissingXNamesX) {
  Valid v;
  v.x = filled({2, 0, 4}, 0.0f);  // T = 0
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"x", "(2, 0, 4)"}));
  v.x = filled({0, 4}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"x", "(0, 4)"}));
  v.x = filled({0, 3, 4}, 0.0f);  // B = 0
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"x", "(0, 3, 4)"}));
  v.x = filled({12}, 0.0f);  // rank 1
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"x", "(12,)"}));
  v.x = filled({1, 2, 3, 4}, 0.0f);  // rank 4
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"x", "(1, 2, 3, 4)"}));
  attn::Inputs in = Valid().inputs();
  in.x = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, Valid().options); }, {"x"}, {"required"}));
  in.x.shape = {3, 4};  // a shape without data
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, Valid().options); }, {"x"}, {"data"}));
}

TEST(BadInput, WrongBiasLengthNamesTheBias) {
  Valid v;
  v.bq = filled({3}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"bq", "(3,)", "(2,)"}));
  v = Valid();
  v.bk = filled({4}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"bk", "(4,)"}));
  v = Valid();
  v.bv = filled({2}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"bv", "(2,)"}));
  v = Valid();
  v.bo = filled({4}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"bo", "(4,)", "(3,)"}));
  v = Valid();
  v.bq = filled({1, 2}, 0.0f);  // right count, wrong rank
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"bq", "(1, 2)"}));
  v = Valid();
  v.fused = true;
  v.bqkv = filled({6}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"bqkv", "(6,)", "(12,)"}));
}

TEST(BadInput, WrongKeyPaddingSizeNamesTheMask) {
  Valid v;  // B = 2, T = 3
  v.options.key_padding = {1, 1, 1, 1};
  v.options.key_padding_shape = {4};
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"keyPadding", "(4,)", "(3,)"}));
  v.options.key_padding = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  v.options.key_padding_shape = {3, 3};  // (B, T) with the wrong B
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"keyPadding", "(3, 3)", "(2, 3)"}));
  v.options.key_padding = {1, 1};
  v.options.key_padding_shape = {3};  // shape and flags disagree
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"keyPadding", "2"}));
  v.options.key_padding = {1, 1, 1};
  v.options.key_padding_shape = {};  // flags without a shape
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"keyPadding"}));
  // (B, T) is only for batched x.
  Valid u;
  u.x = filled({3, 4}, 0.5f);
  u.options.key_padding = {1, 1, 1};
  u.options.key_padding_shape = {1, 3};
  EXPECT_TRUE(ThrowsNaming([&] { u.run(); }, {"keyPadding", "(1, 3)"}));
}

TEST(BadInput, WrongDropoutKeepMaskSizeNamesTheMask) {
  Valid v;  // (B, H, T, T) = (2, 2, 3, 3) = 36 flags
  v.options.training = true;
  v.options.dropout = 0.5f;
  v.options.dropout_keep.assign(35, 1);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"dropoutKeep", "36", "35"}));
  v.options.dropout_keep.assign(37, 1);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"dropoutKeep", "37"}));
}

TEST(BadInput, DropoutOutsideZeroToOneNamesDropout) {
  for (float p : {-0.1f, 1.0f, 1.5f, kNaN, kInf, -kInf}) {
    Valid v;
    v.options.dropout = p;
    v.options.training = true;
    EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"dropout", "[0, 1)"})) << p;
    v.options.training = false;  // checked even when it would not apply
    EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"dropout"})) << p;
  }
  Valid v;
  v.options.dropout = 1.5f;
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"dropout", "1.5"}));
}

// Every tensor input, with the layout (fused or separate projections) that uses it.
struct InputSlot {
  const char* name;
  Owned Valid::*tensor;
  bool fused;
};
const InputSlot kEveryInput[] = {{"x", &Valid::x, false},   {"wq", &Valid::wq, false},    {"wk", &Valid::wk, false},
                                 {"wv", &Valid::wv, false}, {"bq", &Valid::bq, false},    {"bk", &Valid::bk, false},
                                 {"bv", &Valid::bv, false}, {"wqkv", &Valid::wqkv, true}, {"bqkv", &Valid::bqkv, true},
                                 {"wo", &Valid::wo, false}, {"bo", &Valid::bo, false}};

TEST(BadInput, NonFiniteValueInEveryInputNamesThatInput) {
  for (const InputSlot& slot : kEveryInput) {
    for (float bad : {kNaN, kInf, -kInf}) {
      Valid v;
      v.fused = slot.fused;
      Owned& t = v.*(slot.tensor);
      t.data[t.data.size() - 1] = bad;  // the last element: every value is checked
      const std::string index = std::to_string(t.data.size() - 1);
      EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {std::string(slot.name) + ":", "finite", index}))
          << slot.name << " = " << bad;
    }
  }
}

TEST(BadInput, NonFiniteOrNonPositiveScaleAndTemperatureNameTheOption) {
  for (float t : {0.0f, -1.0f, kNaN, kInf}) {
    Valid v;
    v.options.temperature = t;
    EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"temperature"})) << t;
  }
  Valid tiny;  // s / temperature = (1/√1) / 1e-38 overflows float
  tiny.options.temperature = 1e-38f;
  EXPECT_TRUE(ThrowsNaming([&] { tiny.run(); }, {"temperature"}));
  for (float s : {kNaN, kInf, -kInf, 0.0f}) {
    Valid v;
    v.options.scale_mode = attn::ScaleMode::kFactor;
    v.options.scale_factor = s;
    EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"scale"})) << s;
  }
}

TEST(BadInput, MixingFusedWqkvWithSeparateWeightsNamesWqkv) {
  Valid v;
  attn::Inputs in = v.inputs();
  in.wqkv = v.wqkv.view();
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"wqkv", "wq"}));
  in = v.inputs();
  in.wk = in.wv = in.bq = in.bk = in.bv = attn::TensorView{};
  in.wqkv = v.wqkv.view();  // wqkv with only wq
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"wqkv"}));
  v.fused = true;
  in = v.inputs();
  in.bq = v.bq.view();  // a separate bias with the fused weight
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"wqkv"}));
}

TEST(BadInput, OnlySomeOfWqWkWvNamesTheMissingOne) {
  Valid v;
  attn::Inputs in = v.inputs();
  in.wv = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"wv"}));
  in = v.inputs();
  in.wq = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"wq"}));
  in = v.inputs();
  in.wk = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"wk"}));
}

TEST(BadInput, BiasWithoutItsWeightNamesTheBias) {
  Valid v;
  attn::Inputs in = v.inputs();
  in.wq = in.wk = in.wv = attn::TensorView{};  // biases left, no projections
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"bq"}));
  in = v.inputs();
  in.wo = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"bo", "wo"}));
  v.fused = true;
  in = v.inputs();
  in.wqkv = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, v.options); }, {"bqkv", "wqkv"}));
}

TEST(BadInput, ZeroSizedWeightNamesIt) {
  Valid v;
  v.wq = filled({4, 0}, 0.0f);
  v.wk = filled({4, 0}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"wq", "(4, 0)"}));
}

TEST(BadKernelName, ParseKernelNamesTheArgumentAndTheBadValue) {
  EXPECT_TRUE(ThrowsNaming([] { attn::parse_kernel("fast"); }, {"kernel", "'fast'", "reference", "tiled"}));
  EXPECT_TRUE(ThrowsNaming([] { attn::parse_kernel("", "options.kernel"); }, {"options.kernel"}));
  EXPECT_TRUE(ThrowsNaming([] { attn::parse_kernel("SIMD"); }, {"SIMD"}));
  for (attn::Kernel k : {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd, attn::Kernel::kTiled,
                         attn::Kernel::kAuto}) {
    EXPECT_EQ(attn::parse_kernel(attn::kernel_name(k)), k);
  }
}

TEST(BadKernelChoice, TiledKernelRefusesWhatItCannotDoNamingKernel) {
  Valid v;
  v.options.kernel = attn::Kernel::kTiled;  // materialize defaults to true
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"kernel", "materialize"}));
  v.options.materialize = false;
  v.options.training = true;
  v.options.dropout = 0.2f;
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"kernel", "dropout"}));
  v.options.training = false;
  EXPECT_NO_THROW(v.run());
}

// ---- documented limits (attn::Limits) ----

TEST(Limits, BatchBeyondTheLimitNamesX) {
  Valid v;
  v.x = filled({attn::Limits::kMaxBatch + 1, 1, 4}, 0.0f);
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"x", std::to_string(attn::Limits::kMaxBatch)}));
}

TEST(Limits, TokensBeyondTheLimitNamesX) {
  Valid v;
  v.x = filled({attn::Limits::kMaxTokens + 1, 4}, 0.0f);
  v.options.materialize = false;
  v.options.kernel = attn::Kernel::kTiled;
  EXPECT_TRUE(ThrowsNaming(
      [&] { v.run(); }, {"x", std::to_string(attn::Limits::kMaxTokens + 1), std::to_string(attn::Limits::kMaxTokens)}));
}

TEST(Limits, WidthBeyondTheLimitNamesTheInput) {
  const int too_wide = attn::Limits::kMaxWidth + 1;
  Valid v;
  v.x = filled({2, too_wide}, 0.0f);
  attn::Inputs in;
  in.x = v.x.view();
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, attn::Options{}); }, {"x", std::to_string(too_wide)}));
  // The projection widths d_k, d_v and d_o come from wq, wv and wo: the message names the matrix.
  v = Valid();
  v.wq = filled({4, too_wide}, 0.0f);
  v.wk = filled({4, too_wide}, 0.0f);
  v.bq = v.bk = Owned{};
  attn::Options one_head;
  attn::Inputs separate = v.inputs();
  separate.bq = separate.bk = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(separate, one_head); }, {"wq", std::to_string(too_wide)}));
  v = Valid();
  v.wo = filled({4, too_wide}, 0.0f);
  attn::Inputs with_wo = v.inputs();
  with_wo.bo = attn::TensorView{};
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(with_wo, v.options); }, {"wo", std::to_string(too_wide)}));
}

TEST(Limits, ValuesBeyondTheMagnitudeLimitNameTheInput) {
  const float too_big = attn::Limits::kMaxMagnitude * 1.5f;
  for (const InputSlot& slot : kEveryInput) {
    Valid v;
    v.fused = slot.fused;
    Owned& t = v.*(slot.tensor);
    t.data[0] = -too_big;
    EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {std::string(slot.name) + ":", "15000"})) << slot.name;
    t.data[0] = -attn::Limits::kMaxMagnitude;  // the limit itself is allowed
    EXPECT_NO_THROW(v.run()) << slot.name;
  }
}

TEST(Limits, ScaleOverTemperatureBeyondTheLimitNamesTheOptionThatCausedIt) {
  Valid v;
  v.options.scale_mode = attn::ScaleMode::kFactor;
  v.options.scale_factor = attn::Limits::kMaxAlpha * 2.0f;
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"scale"}));
  v.options.scale_factor = attn::Limits::kMaxAlpha;  // at the limit: allowed
  EXPECT_NO_THROW(v.run());
  v = Valid();
  v.options.temperature = 1e-7f;  // default s = 1/√2: s / temperature ≈ 7e6
  EXPECT_TRUE(ThrowsNaming([&] { v.run(); }, {"temperature"}));
}

TEST(Limits, CallsNeedingTooManyIntermediateValuesNameX) {
  // x (1024, 16, 1) with 4096-wide projections: q, k, v and their per-head copies alone are
  // 1024·16·4096·6 ≈ 4e8 values, beyond kMaxTraceElements, though every input is small.
  const Owned x = filled({1024, 16, 1}, 0.1f), w = filled({1, 4096}, 0.1f);
  attn::Inputs in;
  in.x = x.view();
  in.wq = in.wk = in.wv = w.view();
  EXPECT_TRUE(
      ThrowsNaming([&] { attn::attend(in, attn::Options{}); }, {"x", std::to_string(attn::Limits::kMaxTraceElements)}));
}

TEST(Limits, CallsNeedingTooMuchWorkNameX) {
  // T = 16384, x (T, 1024) (exactly 2^24 values), wq/wk (1024, 2046), wv (1024, 1), tiled:
  // within every size limit and the trace limit, but T·T·(h_k + h_v) + projections ≈ 6.2e11
  // multiply-adds > kMaxWork = 2^39 ≈ 5.5e11.
  static const Owned x = filled({attn::Limits::kMaxTokens, 1024}, 0.0f);
  static const Owned wqk = filled({1024, 2046}, 0.0f), wv = filled({1024, 1}, 0.0f);
  attn::Inputs in;
  in.x = x.view();
  in.wq = in.wk = wqk.view();
  in.wv = wv.view();
  attn::Options opt;
  opt.kernel = attn::Kernel::kTiled;
  opt.materialize = false;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, opt); }, {"x", std::to_string(attn::Limits::kMaxWork)},
                           {"multiply-adds", "work"}));
}

TEST(Limits, HeadsBeyondTheLimitNamesHeads) {
  const int heads = attn::Limits::kMaxHeads + 1;
  const Owned x = filled({2, heads}, 0.1f);  // d = 257 so the heads would divide it
  attn::Inputs in;
  in.x = x.view();
  attn::Options opt;
  opt.heads = heads;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, opt); }, {"heads", std::to_string(heads)}));
}

TEST(Limits, InputTensorWithTooManyElementsNamesIt) {
  // (4097, 4096) is within every per-dimension limit but has more than 2^24 elements.
  static const Owned big = filled({attn::Limits::kMaxWidth + 1, attn::Limits::kMaxWidth}, 0.0f);
  ASSERT_GT(attn_test::element_count(big.shape), attn::Limits::kMaxInputElements);
  attn::Inputs in;
  in.x = big.view();
  attn::Options opt;
  opt.materialize = false;
  opt.kernel = attn::Kernel::kTiled;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, opt); }, {"x", std::to_string(attn::Limits::kMaxInputElements)}));
}

TEST(Limits, MaterialisedScoresBeyondTheLimitNeedTheTiledKernel) {
  // T = 4097: B·H·T·T = 16.8M > 2^24 when the T×T tensors are kept.
  const Owned x = filled({attn::Limits::kMaxWidth + 1, 1}, 0.5f);
  attn::Inputs in;
  in.x = x.view();
  attn::Options opt;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, opt); }, {std::to_string(attn::Limits::kMaxScoreElements)},
                           {"materialize", "tiled"}));
  opt.kernel = attn::Kernel::kReference;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend(in, opt); }, {std::to_string(attn::Limits::kMaxScoreElements)}));
  // Without the T×T tensors the tiled kernel runs it.
  opt.kernel = attn::Kernel::kTiled;
  opt.materialize = false;
  attn::Trace t;
  ASSERT_NO_THROW(t = attn::attend(in, opt));
  EXPECT_EQ(t.output.shape, (std::vector<int>{1, attn::Limits::kMaxWidth + 1, 1}));
  EXPECT_TRUE(t.weights.data.empty());
  for (float value : t.output.data) ASSERT_FLOAT_EQ(value, 0.5f);  // every token is 0.5: so is any average
}

TEST(BadInput, HeadsSeparatelyAndAveragingValidateToo) {
  Valid v;
  v.options.heads = 3;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend_heads_separately(v.inputs(), v.options); }, {"heads"}));
  v = Valid();
  v.bq.data[0] = kNaN;
  EXPECT_TRUE(ThrowsNaming([&] { attn::attend_heads_separately(v.inputs(), v.options); }, {"bq", "finite"}));
}

TEST(TensorAt, OutOfRangeIndexThrowsAttnError) {
  const attn::Trace t = [] {
    Valid v;
    return attn::attend(v.inputs(), v.options);
  }();
  EXPECT_TRUE(ThrowsNaming([&] { (void)t.output.at({0, 3, 0}); }, {"index"}));
  EXPECT_TRUE(ThrowsNaming([&] { (void)t.output.at({0, 0}); }, {"index"}));
}

}  // namespace

// Seed 001's two multi-head forms: a list of independent single heads concatenated
// (attend_heads_separately, and a hand-made loop of single-head attend calls) equals the fused
// view/transpose computation (attend) for corresponding weights.
//
// Tolerance 1e-5 abs + 1e-5 rel: the two forms do the same arithmetic per head; only the
// projection products may be blocked differently (a (D, hk) slice instead of (D, dk)), which
// changes summation order by a few ulps of values of size ≲ 10.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "fixture_loader.h"
#include "test_util.h"

namespace {

using attn_test::Owned;
using attn_test::Tolerance;

constexpr Tolerance kFormsTolerance{1e-5, 1e-5};

void ExpectSameTrace(const attn::Trace& got, const attn::Trace& want, const std::string& what) {
  EXPECT_EQ(got.heads, want.heads) << what;
  EXPECT_EQ(got.batched, want.batched) << what;
  EXPECT_FLOAT_EQ(got.scale, want.scale) << what;
  for (const std::string& name : attn_test::trace_tensor_names()) {
    EXPECT_TRUE(attn_test::TensorsNear(attn_test::trace_tensor(got, name), attn_test::trace_tensor(want, name),
                                       kFormsTolerance, what + "." + name));
  }
}

TEST(MultiHeadForms, HeadsSeparatelyEqualsFusedOnEveryMultiHeadFixture) {
  for (const char* name : {"multihead_fused_qkv", "multihead_separate_nobias", "multihead_output_projection",
                           "dropout_keep_mask", "key_padding", "key_padding_causal", "scale_factor_temperature"}) {
    const attn_test::Fixture f = attn_test::load_fixture(name);
    for (attn::Kernel kernel : {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd}) {
      attn::Options opt = f.options;
      opt.kernel = kernel;
      const attn::Trace fused = attn::attend(f.make_inputs(), opt);
      const attn::Trace separately = attn::attend_heads_separately(f.make_inputs(), opt);
      ExpectSameTrace(separately, fused, std::string(name) + "/" + attn::kernel_name(kernel));
      // And both equal PyTorch.
      for (const std::string& tensor : attn_test::trace_tensor_names()) {
        EXPECT_TRUE(attn_test::TensorsNear(attn_test::trace_tensor(separately, tensor), f.want(tensor), {1e-5, 1e-5},
                                           std::string(name) + " separately ." + tensor));
      }
    }
  }
}

// Seed 001's list form written out here: H calls of single-head attend, head h with columns
// [h·hk, (h+1)·hk) of wq, wk and [h·hv, (h+1)·hv) of wv, outputs concatenated in order.
TEST(MultiHeadForms, AListOfSingleHeadsConcatenatedEqualsTheFusedMerge) {
  std::mt19937 rng(1001);
  for (int trial = 0; trial < 20; ++trial) {
    const int B = attn_test::uniform_int(rng, 1, 3), T = attn_test::uniform_int(rng, 1, 19),
              D = attn_test::uniform_int(rng, 1, 17), H = attn_test::uniform_int(rng, 1, 4),
              hk = attn_test::uniform_int(rng, 1, 5), hv = attn_test::uniform_int(rng, 1, 5);
    const bool causal = trial % 2 == 0;
    const Owned x = attn_test::random_tensor(rng, {B, T, D});
    const Owned wq = attn_test::random_tensor(rng, {D, H * hk}), wk = attn_test::random_tensor(rng, {D, H * hk}),
                wv = attn_test::random_tensor(rng, {D, H * hv});
    attn::Inputs in;
    in.x = x.view();
    in.wq = wq.view();
    in.wk = wk.view();
    in.wv = wv.view();
    attn::Options opt;
    opt.heads = H;
    opt.causal = causal;
    const attn::Trace fused = attn::attend(in, opt);

    std::vector<float> merged(static_cast<size_t>(B) * T * H * hv);
    for (int h = 0; h < H; ++h) {
      auto slice = [&](const Owned& w, int width) {
        Owned s;
        s.shape = {D, width};
        for (int r = 0; r < D; ++r)
          for (int c = 0; c < width; ++c) s.data.push_back(w.data[static_cast<size_t>(r) * w.shape[1] + h * width + c]);
        return s;
      };
      const Owned q = slice(wq, hk), k = slice(wk, hk), v = slice(wv, hv);
      attn::Inputs head_in;
      head_in.x = x.view();
      head_in.wq = q.view();
      head_in.wk = k.view();
      head_in.wv = v.view();
      attn::Options head_opt;
      head_opt.causal = causal;  // one head of width hk: the default scale is 1/√hk as in the fused form
      const attn::Trace head = attn::attend(head_in, head_opt);
      ASSERT_EQ(head.output.shape, (std::vector<int>{B, T, hv}));
      for (int row = 0; row < B * T; ++row)
        for (int c = 0; c < hv; ++c)
          merged[static_cast<size_t>(row) * H * hv + h * hv + c] = head.output.data[static_cast<size_t>(row) * hv + c];
    }
    SCOPED_TRACE("B=" + std::to_string(B) + " T=" + std::to_string(T) + " D=" + std::to_string(D) +
                 " H=" + std::to_string(H) + " hk=" + std::to_string(hk) + " hv=" + std::to_string(hv));
    EXPECT_TRUE(attn_test::ValuesNear(fused.merged.data, merged, kFormsTolerance, "merged"));
    EXPECT_TRUE(attn_test::ValuesNear(fused.output.data, merged, kFormsTolerance, "output"));
  }
}

TEST(MultiHeadForms, HeadsSeparatelyEqualsFusedOnRandomShapesForEveryProjection) {
  std::mt19937 rng(4004);
  for (int trial = 0; trial < 30; ++trial) {
    const int B = attn_test::uniform_int(rng, 1, 2), T = attn_test::uniform_int(rng, 1, 23),
              H = attn_test::uniform_int(rng, 1, 4), hs = attn_test::uniform_int(rng, 1, 4);
    const int projection = trial % 3;  // 0 none, 1 separate with biases and W_O, 2 fused with bias
    const int D = projection == 0 ? H * hs : attn_test::uniform_int(rng, 1, 17), d = H * hs;
    const Owned x = attn_test::random_tensor(rng, {B, T, D});
    const Owned wq = attn_test::random_tensor(rng, {D, d}), wk = attn_test::random_tensor(rng, {D, d}),
                wv = attn_test::random_tensor(rng, {D, d}), bq = attn_test::random_tensor(rng, {d}),
                bk = attn_test::random_tensor(rng, {d}), bv = attn_test::random_tensor(rng, {d}),
                wo = attn_test::random_tensor(rng, {d, 3}), bo = attn_test::random_tensor(rng, {3}),
                wqkv = attn_test::random_tensor(rng, {3 * d, D}), bqkv = attn_test::random_tensor(rng, {3 * d});
    attn::Inputs in;
    in.x = x.view();
    if (projection == 1) {
      in.wq = wq.view();
      in.wk = wk.view();
      in.wv = wv.view();
      in.bq = bq.view();
      in.bk = bk.view();
      in.bv = bv.view();
      in.wo = wo.view();
      in.bo = bo.view();
    } else if (projection == 2) {
      in.wqkv = wqkv.view();
      in.bqkv = bqkv.view();
    }
    attn::Options opt;
    opt.heads = H;
    opt.causal = trial % 2 == 1;
    if (trial % 4 == 3) {  // seeded dropout: each head must see its slice of the same (B, H, T, T) draw
      opt.training = true;
      opt.dropout = 0.3f;
      opt.seed = static_cast<std::uint64_t>(trial);
    }
    const std::string what = "projection " + std::to_string(projection) + " B=" + std::to_string(B) +
                             " T=" + std::to_string(T) + " D=" + std::to_string(D) + " H=" + std::to_string(H) +
                             (opt.training ? " dropout" : "");
    ExpectSameTrace(attn::attend_heads_separately(in, opt), attn::attend(in, opt), what);
  }
}

TEST(MultiHeadForms, HeadsSeparatelyNeedsMaterialisedIntermediates) {
  const attn_test::Fixture f = attn_test::load_fixture("multihead_fused_qkv");
  attn::Options opt = f.options;
  opt.materialize = false;
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::attend_heads_separately(f.make_inputs(), opt); }, {"materialize"}));
}

TEST(MultiHeadLayout, HeadHOwnsMergedColumnsHTimesHvToNext) {
  const attn_test::Fixture f = attn_test::load_fixture("multihead_separate_nobias");
  const attn::Trace t = attn::attend(f.make_inputs(), f.options);
  const int B = t.batch, T = t.tokens, H = t.heads, hv = t.dv / t.heads;
  ASSERT_EQ(H, 2);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < T; ++i)
        for (int c = 0; c < hv; ++c) EXPECT_EQ(t.merged.at({b, i, h * hv + c}), t.head_outputs.at({b, h, i, c}));
}

}  // namespace

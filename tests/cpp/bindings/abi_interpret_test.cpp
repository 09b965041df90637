// The interpretability calls of the ABI (src/bindings/abi_interpret.cpp), natively: modelAblate,
// modelAblationSweep, modelAttribute and modelLogitLens, packed by name (abi_client.h) as
// web/engine/model.js packs them, give the direct calls' numbers (src/model/interpret.h, tested
// against PyTorch in tests/cpp/model/interpret_test.cpp) bit for bit on the fixtures' nanoGPT
// and Hugging Face GPT-2 checkpoints; a bad argument comes back named.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "abi_client.h"
#include "model/checkpoint.h"
#include "model/gpt.h"
#include "model/interpret.h"

namespace {

using attn_test::AbiCall;
using attn_test::Reply;

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + path);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A fixture checkpoint loaded both ways: through modelLoad (a handle) and directly.
struct Loaded {
  int handle = 0;
  std::unique_ptr<attn::model::Gpt> gpt;
};
Loaded load(const std::string& file, const std::string& config_file) {
  const std::string dir = std::string(ATTN_FIXTURES_DIR) + "/";
  const std::vector<std::uint8_t> bytes = read_bytes(dir + file);
  std::string config;
  if (!config_file.empty()) {
    const std::vector<std::uint8_t> text = read_bytes(dir + config_file);
    config.assign(text.begin(), text.end());
  }
  AbiCall call("modelLoad");
  call.blob("file", bytes.data(), bytes.size()).text("config", config);
  const Reply r = call.run();
  EXPECT_FALSE(r.failed) << r.error;
  return {r.failed ? 0 : static_cast<int>(r.report.at("model")),
          attn::model::load_checkpoint(bytes.data(), bytes.size(), {}, config)};
}

struct Case {
  const char* name;
  const char* file;
  const char* config;
};
const Case kCases[] = {{"nanogpt", "interpret/nanogpt_tiny.safetensors", ""},
                       {"gpt2", "gpt2/gpt2_tiny.safetensors", "gpt2/config.json"}};
const std::vector<int> kTokens = {5, 17, 2, 40, 9, 33, 1, 21, 8, 60};
const std::vector<int> kReference = {3, 14, 15, 9, 26, 5};

bool same_bits(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
void expect_same(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(same_bits(got[i], want[i])) << what << "[" << i << "]";
}

TEST(AbiInterpret, AblateGivesTheDirectCallsNumbers) {
  for (const Case& c : kCases) {
    const Loaded m = load(c.file, c.config);
    const int T = static_cast<int>(kTokens.size()), V = m.gpt->config().vocab_size;
    for (const char* mode : {"zero", "mean"}) {
      const Reply r = AbiCall("modelAblate")
                          .set("model", m.handle)
                          .list("tokens", kTokens)
                          .set("layer", 1)
                          .set("head", 1)
                          .set("position", 4)
                          .set("logits", 1)
                          .choice("mode", mode)
                          .list("reference", kReference)
                          .run();
      ASSERT_FALSE(r.failed) << r.error;
      attn::model::AblationOptions o;
      o.mode = std::string(mode) == "mean" ? attn::model::AblationMode::kMean : attn::model::AblationMode::kZero;
      o.reference = kReference;
      attn::model::HeadAblation want;
      attn::model::ablate_head(want, *m.gpt, kTokens.data(), T, 1, 1, 4, true, o);
      const std::string at = std::string(c.name) + " " + mode + " ";
      expect_same(r.tensor("probs").floats(), want.probs, at + "probs");
      expect_same(r.tensor("ablatedProbs").floats(), want.ablated_probs, at + "ablatedProbs");
      expect_same(r.tensor("logits").floats(), want.logits, at + "logits");
      expect_same(r.tensor("ablatedLogits").floats(), want.ablated_logits, at + "ablatedLogits");
      expect_same(r.tensor("losses").floats(), want.losses, at + "losses");
      expect_same(r.tensor("ablatedLosses").floats(), want.ablated_losses, at + "ablatedLosses");
      expect_same(r.tensor("value").floats(), want.value, at + "value");
      EXPECT_EQ(r.tensor("ablatedLogits").shape, (std::vector<int>{T, V}));
      EXPECT_EQ(r.report.at("loss"), want.loss);
      EXPECT_EQ(r.report.at("ablatedLoss"), want.ablated_loss);
    }
    // Without logits they are left out.
    const Reply r = AbiCall("modelAblate").set("model", m.handle).list("tokens", kTokens).set("position", 2).run();
    ASSERT_FALSE(r.failed) << r.error;
    EXPECT_FALSE(r.has("logits"));
    EXPECT_FALSE(r.has("ablatedLogits"));
    AbiCall("modelDelete").set("model", m.handle).run();
  }
}

TEST(AbiInterpret, SweepBlockByBlockGivesTheWholeSweepsBits) {
  for (const Case& c : kCases) {
    const Loaded m = load(c.file, c.config);
    const int T = static_cast<int>(kTokens.size()), L = m.gpt->config().n_layer, H = m.gpt->config().n_head;
    attn::model::SweepOptions o;
    o.loss = true;
    attn::model::AblationSweep want;
    attn::model::ablation_sweep(want, *m.gpt, kTokens.data(), T, 6, 21, o);
    std::vector<float> log_probs(static_cast<std::size_t>(L * H), NAN), losses = log_probs;
    for (int l = 0; l < L; ++l) {
      const Reply r = AbiCall("modelAblationSweep")
                          .set("model", m.handle)
                          .list("tokens", kTokens)
                          .list("layers", {l})
                          .set("position", 6)
                          .set("token", 21)
                          .set("loss", 1)
                          .run();
      ASSERT_FALSE(r.failed) << r.error;
      EXPECT_EQ(r.tensor("layers").ints(), std::vector<int>{l});
      EXPECT_EQ(r.report.at("logProb"), want.log_prob);
      EXPECT_EQ(r.report.at("loss"), want.loss);
      const std::vector<float> lp = r.tensor("ablatedLogProb").floats(), lo = r.tensor("ablatedLoss").floats();
      for (int h = 0; h < H; ++h) log_probs[l * H + h] = lp[l * H + h], losses[l * H + h] = lo[l * H + h];
      for (int other = 0; other < L; ++other)
        if (other != l) {
          EXPECT_TRUE(std::isnan(lp[other * H])) << c.name << " block " << other << " not swept";
        }
    }
    expect_same(log_probs, want.ablated_log_prob, std::string(c.name) + " log p");
    expect_same(losses, want.ablated_loss, std::string(c.name) + " loss");
    // Without the loss it is left out; without reuse the same bits from more rows.
    const Reply reused = AbiCall("modelAblationSweep")
                             .set("model", m.handle)
                             .list("tokens", kTokens)
                             .set("position", 6)
                             .set("token", 21)
                             .run();
    const Reply whole = AbiCall("modelAblationSweep")
                            .set("model", m.handle)
                            .list("tokens", kTokens)
                            .set("position", 6)
                            .set("token", 21)
                            .set("reuse", 0)
                            .run();
    ASSERT_FALSE(reused.failed || whole.failed) << reused.error << whole.error;
    EXPECT_FALSE(reused.has("ablatedLoss"));
    EXPECT_TRUE(std::isnan(reused.report.at("loss")));
    expect_same(reused.tensor("ablatedLogProb").floats(), whole.tensor("ablatedLogProb").floats(), "reuse");
    EXPECT_LT(reused.report.at("rowsRun"), whole.report.at("rowsRun"));
    AbiCall("modelDelete").set("model", m.handle).run();
  }
}

TEST(AbiInterpret, AttributeAndLensGiveTheDirectCallsNumbers) {
  for (const Case& c : kCases) {
    const Loaded m = load(c.file, c.config);
    const int T = static_cast<int>(kTokens.size()), L = m.gpt->config().n_layer, H = m.gpt->config().n_head;
    for (int other : {-1, 7}) {
      AbiCall call("modelAttribute");
      call.set("model", m.handle).list("tokens", kTokens).set("position", 5).set("token", 12);
      if (other >= 0) call.set("other", other);
      const Reply r = call.run();
      ASSERT_FALSE(r.failed) << r.error;
      attn::model::LogitAttribution want;
      attn::model::attribute_logit(want, *m.gpt, kTokens.data(), T, 5, 12, other);
      EXPECT_EQ(r.tensor("heads").shape, (std::vector<int>{L, H}));
      expect_same(r.tensor("heads").floats(), want.heads, std::string(c.name) + " heads");
      expect_same(r.tensor("mlps").floats(), want.mlps, std::string(c.name) + " mlps");
      EXPECT_EQ(r.report.at("embed"), want.embed);
      EXPECT_EQ(r.report.at("posEmbed"), want.pos_embed);
      EXPECT_EQ(r.report.at("attentionBias"), want.attention_bias);
      EXPECT_EQ(r.report.at("lnBias"), want.ln_bias);
      EXPECT_EQ(r.report.at("logit"), want.logit);
      EXPECT_EQ(r.report.at("scale"), want.scale);
      EXPECT_EQ(r.report.at("total"), want.total);
    }
    const Reply r = AbiCall("modelLogitLens")
                        .set("model", m.handle)
                        .list("tokens", kTokens)
                        .list("positions", {1, 5, 9})
                        .set("k", 4)
                        .set("position", 5)
                        .set("token", 12)
                        .run();
    ASSERT_FALSE(r.failed) << r.error;
    attn::model::LensOptions o;
    o.positions = {1, 5, 9}, o.k = 4, o.position = 5, o.token = 12;
    attn::model::LogitLens want;
    attn::model::logit_lens(want, *m.gpt, kTokens.data(), T, o);
    EXPECT_EQ(r.tensor("positions").ints(), want.positions);
    EXPECT_EQ(r.tensor("topTokens").shape, (std::vector<int>{L + 1, 3, 4}));
    EXPECT_EQ(r.tensor("topTokens").ints(), want.top_tokens);
    expect_same(r.tensor("topProbs").floats(), want.top_probs, std::string(c.name) + " lens probs");
    EXPECT_EQ(r.tensor("tokenRanks").ints(), want.token_ranks);
    expect_same(r.tensor("tokenProbs").floats(), want.token_probs, std::string(c.name) + " token probs");
    expect_same(r.tensor("tokenLogits").floats(), want.token_logits, std::string(c.name) + " token logits");
    // Without a token its rank is left out; without positions every one is read.
    const Reply all = AbiCall("modelLogitLens").set("model", m.handle).list("tokens", kTokens).run();
    ASSERT_FALSE(all.failed) << all.error;
    EXPECT_FALSE(all.has("tokenRanks"));
    EXPECT_EQ(all.tensor("topTokens").shape, (std::vector<int>{L + 1, T, 5}));
    AbiCall("modelDelete").set("model", m.handle).run();
  }
}

TEST(AbiInterpret, BadArgumentsComeBackNamed) {
  const Loaded m = load("interpret/nanogpt_tiny.safetensors", "");
  const int V = m.gpt->config().vocab_size;
  const auto starts = [](const Reply& r, const std::string& name) {
    EXPECT_TRUE(r.failed) << name;
    EXPECT_EQ(r.error.rfind(name + ":", 0), 0u) << r.error;
  };
  const auto ablate = [&] {
    AbiCall c("modelAblate");
    c.set("model", m.handle).list("tokens", kTokens);
    return c;
  };
  starts(ablate().set("layer", 3).run(), "layer");
  starts(ablate().set("head", -1).run(), "head");
  starts(ablate().set("position", 10).run(), "position");
  starts(ablate().choice("mode", "mean").run(), "reference");
  starts(ablate().list("tokens", {}).run(), "tokens");
  starts(ablate().list("tokens", {V}).run(), "tokens[0]");
  starts(AbiCall("modelAblate").set("model", 999).list("tokens", kTokens).run(), "model");
  const auto sweep = [&] {
    AbiCall c("modelAblationSweep");
    c.set("model", m.handle).list("tokens", kTokens).set("position", 1).set("token", 2);
    return c;
  };
  starts(sweep().set("token", V).run(), "token");
  starts(sweep().list("layers", {1, 1}).run(), "layers[1]");
  starts(sweep().list("layers", {5}).run(), "layers[0]");
  starts(AbiCall("modelAttribute").set("model", m.handle).list("tokens", kTokens).set("other", V).run(), "other");
  const auto lens = [&] {
    AbiCall c("modelLogitLens");
    c.set("model", m.handle).list("tokens", kTokens);
    return c;
  };
  starts(lens().set("k", 0).run(), "k");
  starts(lens().list("positions", {4, 2}).run(), "positions[1]");
  starts(lens().set("position", 3).run(), "token");
  AbiCall("modelDelete").set("model", m.handle).run();
}

}  // namespace

// The model calls of the ABI (src/bindings/abi_model.cpp, abi_inference.cpp, abi_loader.cpp),
// natively: what web/engine/model.js does, call by call, packed by name (abi_client.h), gives the
// direct calls' numbers; errors come back named and change nothing; a handle no longer alive is
// refused naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "abi_client.h"
#include "bindings/abi.h"
#include "core/torch_random.h"
#include "model/gpt.h"
#include "model/inference.h"

namespace {

using attn_test::AbiCall;
using attn_test::Reply;

AbiCall small_model() {
  AbiCall c("modelCreate");
  c.set("vocabSize", 7).set("contextLength", 4).set("layers", 1).set("heads", 2).set("width", 4);
  c.set("bias", 1).set("mlp", 1).set("layerNorm", 1).set("dropout", 0).set("seed", 3);
  return c;
}

int handle_of(const Reply& r, const char* field = "model") {
  EXPECT_FALSE(r.failed) << r.error;
  return r.failed ? 0 : static_cast<int>(r.report.at(field));
}

TEST(AbiModel, StepEvaluateExportAndLoadBackByHandle) {
  const int handle = handle_of(small_model().run());
  ASSERT_GT(handle, 0);
  EXPECT_EQ(AbiCall("modelSteps").set("model", handle).run().report.at("steps"), 0);
  const std::vector<int> tokens = {1, 2, 3, 4, 5, 6, 0, 1}, targets = {2, 3, 4, 5, 6, 0, 1, -1};
  AbiCall step("modelStep");
  step.set("model", handle).list("tokens", tokens).list("targets", targets).set("batch", 2).set("context", 4);
  step.set("lr", 1e-2).set("warmup", 2).set("decaySteps", 10);
  const Reply r = step.run();
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_EQ(r.report.at("step"), 1);
  EXPECT_DOUBLE_EQ(r.report.at("lr"), 1e-2 * 1 / 3);  // nanoGPT's warmup: lr · (it + 1) / (warmup + 1)
  EXPECT_GT(r.report.at("loss"), 0);
  const Reply e = AbiCall("modelEvaluate")
                      .set("model", handle)
                      .list("tokens", tokens)
                      .list("targets", targets)
                      .set("batch", 2)
                      .set("context", 4)
                      .run();
  ASSERT_FALSE(e.failed) << e.error;
  EXPECT_GE(e.report.at("accuracy"), 0);
  EXPECT_LE(e.report.at("accuracy"), 1);
  EXPECT_EQ(e.tensor("predictions").shape, (std::vector<int>{2, 4}));

  const Reply exported = AbiCall("modelExport").set("model", handle).run();
  ASSERT_FALSE(exported.failed) << exported.error;
  const std::vector<std::uint8_t> file = exported.tensor("file").bytes();
  ASSERT_GT(file.size(), 8u);
  const int loaded =
      handle_of(AbiCall("modelLoad").blob("file", file.data(), file.size()).run());  // all from the metadata
  ASSERT_GT(loaded, 0);
  const Reply c = AbiCall("modelConfig").set("model", loaded).run();
  EXPECT_EQ(c.report.at("vocabSize"), 7);
  EXPECT_EQ(c.report.at("heads"), 2);
  EXPECT_EQ(c.report.at("gelu"), 0);  // "exact", by enum value
  const Reply table = AbiCall("modelParamTable").set("model", loaded).run();
  ASSERT_FALSE(table.failed) << table.error;
  const std::vector<double> offsets = table.tensor("offsets").doubles(), sizes = table.tensor("sizes").doubles();
  ASSERT_FALSE(offsets.empty());
  EXPECT_EQ(table.tensor("names").text().substr(0, 48), "transformer.wte.weight\ntransformer.wpe.weight\ntr");
  const auto params = [](int model) {
    return AbiCall("modelParams").set("model", model).run().tensor("params").floats();
  };
  const std::vector<float> a = params(handle);
  EXPECT_EQ(a.size(), static_cast<std::size_t>(offsets.back() + sizes.back()));
  EXPECT_EQ(params(loaded), a);

  // setParams: a NaN is refused and changes nothing; a finite value is written where the table says.
  std::vector<float> wpe(static_cast<std::size_t>(sizes[1]), 0.25f);
  wpe[0] = std::nanf("");
  const Reply nan =
      AbiCall("modelSetParams").set("model", loaded).list("params", {1}).tensor("values", {16}, wpe).run();
  EXPECT_TRUE(nan.failed);
  EXPECT_EQ(nan.error.rfind("transformer.wpe.weight: every value must be finite", 0), 0u) << nan.error;
  EXPECT_EQ(params(loaded), a);
  wpe[0] = 0.5f;
  ASSERT_FALSE(
      AbiCall("modelSetParams").set("model", loaded).list("params", {1}).tensor("values", {16}, wpe).run().failed);
  const std::vector<float> b = params(loaded);
  EXPECT_EQ(std::vector<float>(b.begin() + static_cast<long>(offsets[1]), b.begin() + static_cast<long>(offsets[2])),
            wpe);
  const Reply wrong_size =
      AbiCall("modelSetParams").set("model", loaded).list("params", {1}).tensor("values", {3}, {1, 2, 3}).run();
  EXPECT_EQ(wrong_size.error.rfind("values: the parameters named hold 16 floats, values has 3", 0), 0u)
      << wrong_size.error;

  EXPECT_FALSE(AbiCall("modelDelete").set("model", loaded).run().failed);
  EXPECT_FALSE(AbiCall("modelDelete").set("model", handle).run().failed);
  const Reply gone = AbiCall("modelSteps").set("model", handle).run();
  EXPECT_TRUE(gone.failed);
  EXPECT_EQ(gone.error, "model: this model was disposed");
  EXPECT_TRUE(step.run().failed);
}

TEST(AbiModel, ErrorsComeBackNamedAndAFileWithoutMetadataNeedsOnlyTheHeadCount) {
  const Reply bad = small_model().set("heads", 3).run();
  EXPECT_TRUE(bad.failed);
  EXPECT_EQ(bad.error.rfind("n_head: 3 must divide", 0), 0u) << bad.error;
  const Reply no_width =
      AbiCall("modelCreate").set("vocabSize", 7).set("contextLength", 4).set("layers", 1).set("heads", 2).run();
  EXPECT_EQ(no_width.error.rfind("n_embd: expected 1 ≤ n_embd ≤ 4096, got -1", 0), 0u) << no_width.error;

  const int handle = handle_of(small_model().run());
  AbiCall step("modelStep");
  step.set("model", handle)
      .list("tokens", {1, 2, 3, 9})
      .list("targets", {1, 2, 3, 4})
      .set("batch", 1)
      .set("context", 4);
  Reply r = step.run();
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.error.rfind("tokens[3]: 9", 0), 0u) << r.error;
  step.list("tokens", {1, 2, 3, 4}).set("optimizer", 2);  // no third optimizer
  r = step.run();
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.error.rfind("optimizer: expected ", 0), 0u) << r.error;
  step.choice("optimizer", "sgd").set("batch", 2);
  r = step.run();
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.error.rfind("batch:", 0), 0u) << r.error;
  step.set("batch", 1).list("targets", {1, 2, 3});
  r = step.run();
  EXPECT_EQ(r.error.rfind("targets: 3 ids, but tokens holds 4", 0), 0u) << r.error;
  step.list("targets", {1, 2, 3, 4}).set("warmup", 5).set("decaySteps", 3);
  r = step.run();
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.error.rfind("decaySteps: expected more than warmup = 5", 0), 0u) << r.error;
  step.set("warmup", 1.5).set("decaySteps", 0);
  EXPECT_EQ(step.run().error.rfind("warmup: expected a whole number of steps", 0), 0u);
  EXPECT_EQ(AbiCall("modelSteps").set("model", handle).run().report.at("steps"), 0);
  AbiCall("modelDelete").set("model", handle).run();

  // torch's own state_dict file records no config: its tensors give all of it but the head
  // count, and the error says to pass that.
  std::ifstream in(std::string(ATTN_FIXTURES_DIR) + "/training/gpt_tiny_torch113.safetensors", std::ios::binary);
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(file.empty());
  const auto load = [&] {
    AbiCall c("modelLoad");
    c.blob("file", file.data(), file.size());
    return c;
  };
  r = load().run();
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.error.rfind("heads: the file does not record n_head", 0), 0u) << r.error;
  const int inferred = handle_of(load().set("heads", 2).run());
  ASSERT_GT(inferred, 0);
  const Reply seen = AbiCall("modelConfig").set("model", inferred).run();
  EXPECT_EQ(seen.report.at("vocabSize"), 11);  // the fixture's config, from the tensors
  EXPECT_EQ(seen.report.at("contextLength"), 8);
  EXPECT_EQ(seen.report.at("layers"), 2);
  EXPECT_EQ(seen.report.at("heads"), 2);
  EXPECT_EQ(seen.report.at("width"), 8);
  EXPECT_EQ(seen.report.at("bias"), 1);
  EXPECT_EQ(seen.report.at("mlp"), 1);
  EXPECT_EQ(seen.report.at("layerNorm"), 1);
  AbiCall("modelDelete").set("model", inferred).run();
  // Or all of it given (overrides win over what the tensors say); bias: nanoGPT's default.
  AbiCall tiny = load();
  tiny.set("vocabSize", 11).set("contextLength", 8).set("layers", 2).set("heads", 2).set("width", 8);
  const int loaded = handle_of(tiny.run());
  ASSERT_GT(loaded, 0);
  AbiCall("modelDelete").set("model", loaded).run();
  r = tiny.set("width", 16).run();  // a wrong override: the tensors' shapes refuse it, naming the tensor
  EXPECT_TRUE(r.failed);
  EXPECT_NE(r.error.find("shape (11, 8), expected (11, 16)"), std::string::npos) << r.error;
}

TEST(AbiModel, TraceGenerationAndSessionsGiveTheDirectCallsNumbers) {
  attn::model::ModelConfig cfg;
  cfg.vocab_size = 13, cfg.block_size = 6, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 8;
  attn::model::Gpt direct(cfg, 5);
  AbiCall create("modelCreate");
  create.set("vocabSize", 13).set("contextLength", 6).set("layers", 2).set("heads", 2).set("width", 8).set("seed", 5);
  const int handle = handle_of(create.run());
  ASSERT_GT(handle, 0);
  const std::vector<int> tokens = {3, 1, 4, 1, 5};

  // A trace of layer 1, head 0: its weights, and the stream.
  attn::model::CaptureRequest request;
  request.layers = {1}, request.heads = {0}, request.logits = attn::model::LogitRows::kAll;
  const attn::model::SequenceCapture want = attn::model::trace_sequence(direct, tokens, request);
  const Reply trace = AbiCall("modelTrace")
                          .set("model", handle)
                          .list("tokens", tokens)
                          .list("layers", {1})
                          .list("heads", {0})
                          .choice("logits", "all")
                          .run();
  ASSERT_FALSE(trace.failed) << trace.error;
  EXPECT_EQ(trace.report.at("layers"), 1);
  EXPECT_EQ(trace.tensor("residual").floats(), want.residual);
  EXPECT_EQ(trace.tensor("logits").shape, (std::vector<int>{5, 13}));
  EXPECT_EQ(trace.tensor("logits").floats(), want.logits);
  EXPECT_FALSE(trace.has("afterAttention"));
  EXPECT_FALSE(trace.has("timings"));
  const Reply layer = AbiCall("modelTraceLayer").set("model", handle).set("layer", 0).run();
  ASSERT_FALSE(layer.failed) << layer.error;
  EXPECT_EQ(layer.tensor("weights").shape, (std::vector<int>{1, 5, 5}));
  EXPECT_EQ(layer.tensor("weights").floats(), want.attention[0].weights);
  EXPECT_EQ(AbiCall("modelTraceLayer").set("model", handle).set("layer", 1).run().error,
            "layer: expected 0 ≤ index < 1, got 1");
  // Timings need the host's clock, which a native run has not set.
  EXPECT_EQ(AbiCall("modelTrace").set("model", handle).list("tokens", tokens).set("timings", 1).run().error,
            "timings: this build of the engine has no clock");

  // generate, and a session drawing the same tokens one at a time.
  attn::model::GenerateOptions o;
  o.temperature = 0.8, o.top_k = 5, o.seed = attn::TorchGenerator::seed_from_number(9);
  const std::vector<int> generated = attn::model::generate(direct, tokens, 4, o);
  const Reply g = AbiCall("modelGenerate")
                      .set("model", handle)
                      .list("prompt", tokens)
                      .set("count", 4)
                      .set("temperature", 0.8)
                      .set("topK", 5)
                      .set("seed", 9)
                      .run();
  ASSERT_FALSE(g.failed) << g.error;
  EXPECT_EQ(g.tensor("tokens").ints(), generated);
  const int session = handle_of(AbiCall("sessionCreate")
                                    .set("model", handle)
                                    .list("prompt", tokens)
                                    .set("temperature", 0.8)
                                    .set("topK", 5)
                                    .set("seed", 9)
                                    .run(),
                                "session");
  ASSERT_GT(session, 0);
  for (int k = 0; k < 4; ++k) {
    const Reply s = AbiCall("sessionStep").set("session", session).run();
    ASSERT_FALSE(s.failed) << s.error;
    EXPECT_EQ(s.report.at("token"), generated[static_cast<std::size_t>(k)]) << k;
    EXPECT_EQ(s.tensor("topTokens").shape, (std::vector<int>{10}));
    EXPECT_EQ(s.tensor("attention").shape[0], 2);
  }
  std::vector<int> all = tokens;
  all.insert(all.end(), generated.begin(), generated.end());
  EXPECT_EQ(AbiCall("sessionTokens").set("session", session).run().tensor("tokens").ints(), all);

  // nextToken: the distribution of the last logits row, and its draw.
  const std::vector<float> last(want.logits.end() - 13, want.logits.end());
  const Reply next =
      AbiCall("nextToken").tensor("logits", {13}, last).set("top", 3).set("sample", 1).set("seed", 2).run();
  ASSERT_FALSE(next.failed) << next.error;
  const attn::model::SamplingOptions sampling;
  EXPECT_EQ(next.tensor("probs").floats(), attn::model::next_token_probs(last.data(), 13, sampling));
  EXPECT_EQ(next.tensor("topTokens").ints(),
            attn::model::top_tokens(attn::model::next_token_probs(last.data(), 13, sampling), 3));
  attn::TorchGenerator generator(2);
  EXPECT_EQ(next.tensor("token").ints(),
            std::vector<int>{attn::model::sample_token(last.data(), 13, sampling, generator)});
  EXPECT_FALSE(AbiCall("nextToken").tensor("logits", {13}, last).run().has("token")) << "sample: false by default";

  // A session refuses to step once the weights changed, and dies with its model.
  const Reply table = AbiCall("modelParamTable").set("model", handle).run();
  const double wpe = table.tensor("sizes").doubles()[1];
  ASSERT_FALSE(AbiCall("modelSetParams")
                   .set("model", handle)
                   .list("params", {1})
                   .tensor("values", {static_cast<int>(wpe)}, std::vector<float>(static_cast<std::size_t>(wpe), 0.0f))
                   .run()
                   .failed);
  EXPECT_EQ(AbiCall("sessionStep").set("session", session).run().error.rfind("session: the model's weights changed", 0),
            0u);
  AbiCall("modelDelete").set("model", handle).run();
  EXPECT_EQ(AbiCall("sessionTokens").set("session", session).run().error,
            "session: this session was disposed (or its model was)");
}

TEST(AbiModel, ACheckpointReadInSlicesIsTheModelOfTheWholeFile) {
  const int handle = handle_of(small_model().run());
  const std::vector<std::uint8_t> file = AbiCall("modelExport").set("model", handle).run().tensor("file").bytes();
  const Reply length = AbiCall("modelHeaderLength").blob("head", file.data(), 8).set("fileSize", file.size()).run();
  ASSERT_FALSE(length.failed) << length.error;
  const std::size_t n = static_cast<std::size_t>(length.report.at("length"));
  const Reply opened =
      AbiCall("modelOpen").blob("header", file.data(), 8 + n).set("fileSize", static_cast<double>(file.size())).run();
  ASSERT_FALSE(opened.failed) << opened.error;
  const int loader = static_cast<int>(opened.report.at("loader"));
  EXPECT_EQ(opened.report.at("fileEnd"), static_cast<double>(file.size()));
  const std::vector<double> begins = opened.tensor("begins").doubles(), ends = opened.tensor("ends").doubles();
  ASSERT_EQ(begins.size(), ends.size());
  for (std::size_t i = 0; i < begins.size(); ++i)
    for (double at = begins[i]; at < ends[i]; at += 5) {  // slices of 5 bytes, splitting floats
      const std::size_t count = static_cast<std::size_t>(std::min(5.0, ends[i] - at));
      const Reply w = AbiCall("modelOpenWrite")
                          .set("loader", loader)
                          .set("copy", static_cast<double>(i))
                          .set("offset", at - begins[i])
                          .blob("bytes", file.data() + static_cast<std::size_t>(at), count)
                          .run();
      ASSERT_FALSE(w.failed) << w.error;
    }
  const int model = handle_of(AbiCall("modelOpenFinish").set("loader", loader).run());
  ASSERT_GT(model, 0);
  const auto params = [](int m) { return AbiCall("modelParams").set("model", m).run().tensor("params").floats(); };
  EXPECT_EQ(params(model), params(handle));
  // The loader is gone once finished; a write out of order frees it too.
  EXPECT_EQ(
      AbiCall("modelOpenFinish").set("loader", loader).run().error.rfind("model: this checkpoint is no longer", 0), 0u);
  const Reply again =
      AbiCall("modelOpen").blob("header", file.data(), 8 + n).set("fileSize", static_cast<double>(file.size())).run();
  const int second = static_cast<int>(again.report.at("loader"));
  const Reply skipped = AbiCall("modelOpenWrite")
                            .set("loader", second)
                            .set("copy", 0)
                            .set("offset", 4)
                            .blob("bytes", file.data() + static_cast<std::size_t>(begins[0]) + 4, 4)
                            .run();
  EXPECT_TRUE(skipped.failed);
  EXPECT_TRUE(AbiCall("modelOpenFinish").set("loader", second).run().failed);
  AbiCall("modelDelete").set("model", model).run();
  AbiCall("modelDelete").set("model", handle).run();
}

TEST(AbiModel, WeightsChooseTheModelsPrecisionAndModelWeightsReportsIt) {
  const int handle = handle_of(small_model().run());
  const std::vector<std::uint8_t> file = AbiCall("modelExport").set("model", handle).run().tensor("file").bytes();
  const auto weights = [](int m) { return AbiCall("modelWeights").set("model", m).run().report; };
  const auto load = [&](const std::string& choice, double budget) {
    AbiCall c("modelLoad");
    c.blob("file", file.data(), file.size()).choice("weights", choice);
    if (!std::isnan(budget)) c.set("budget", budget);
    return c.run();
  };
  const double f32_bytes = weights(handle).at("bytes");
  EXPECT_EQ(weights(handle).at("weights"), 0);  // "f32", the precision enum's first
  const int f16 = handle_of(load("f16", NAN));
  EXPECT_EQ(weights(f16).at("weights"), 1);        // "f16"
  EXPECT_LT(weights(f16).at("bytes"), f32_bytes);  // 2 bytes a weight; this tiny model is mostly vectors (float32)
  EXPECT_EQ(
      AbiCall("modelParams").set("model", f16).run().error.rfind("params: this model keeps its weights as F16", 0), 0u);
  // auto: F16 when float32 exceeds the budget, F32 when it fits; no budget is an error naming it
  const int small_budget = handle_of(load("auto", f32_bytes - 1));
  const int enough = handle_of(load("auto", f32_bytes));
  EXPECT_EQ(weights(small_budget).at("weights"), 1);
  EXPECT_EQ(weights(enough).at("weights"), 0);
  EXPECT_EQ(load("auto", NAN).error.rfind("budget:", 0), 0u);
  // modelOpen takes the same arguments
  const Reply length = AbiCall("modelHeaderLength").blob("head", file.data(), 8).set("fileSize", file.size()).run();
  const std::size_t n = static_cast<std::size_t>(length.report.at("length"));
  const Reply opened = AbiCall("modelOpen")
                           .blob("header", file.data(), 8 + n)
                           .set("fileSize", static_cast<double>(file.size()))
                           .choice("weights", "f16")
                           .run();
  ASSERT_FALSE(opened.failed) << opened.error;
  const int loader = static_cast<int>(opened.report.at("loader"));
  const std::vector<double> begins = opened.tensor("begins").doubles(), ends = opened.tensor("ends").doubles();
  for (std::size_t i = 0; i < begins.size(); ++i) {
    const Reply w = AbiCall("modelOpenWrite")
                        .set("loader", loader)
                        .set("copy", static_cast<double>(i))
                        .set("offset", 0)
                        .blob("bytes", file.data() + static_cast<std::size_t>(begins[i]),
                              static_cast<std::size_t>(ends[i] - begins[i]))
                        .run();
    ASSERT_FALSE(w.failed) << w.error;
  }
  const int opened_f16 = handle_of(AbiCall("modelOpenFinish").set("loader", loader).run());
  EXPECT_EQ(weights(opened_f16).at("weights"), 1);
  for (int m : {handle, f16, small_budget, enough, opened_f16}) AbiCall("modelDelete").set("model", m).run();
}

}  // namespace

// Hugging Face GPT-2 checkpoints (src/model/checkpoint.h) and running one sequence
// (src/model/inference.h): the files of tests/fixtures/gpt2/ (written by
// tests/fixtures/make_gpt2_fixtures.py with Hugging Face's forward written out in torch) load in
// every layout and compute torch's logits, q, k, v, scores, weights and residual stream; reading
// in slices gives the same model; hostile files and configs are refused naming what is wrong; the
// KV cache gives the full forward's numbers and generate()'s tokens; sampling follows Hugging
// Face's top-k and top-p.
//
// Legend: T tokens, C n_embd, H n_head, hs head size, V vocab_size, L n_layer.
//
// Tolerance against PyTorch (float32 both sides), as gpt_test.cpp derives it: every output is a
// chain of dot products of length K ≤ 4C = 128, each within γ_K·Σ|terms| of the exact value
// (γ_128 ≈ 7.6e-6), through two blocks whose LayerNorms keep the terms at the tensor's own scale;
// so |ours − torch| ≤ 1e-6 + 4e-5·max|tensor| per tensor, for every kernel. The tanh GELU's f32x4
// form adds at most 2e-7 relative (train_kernels_test.cpp), well inside. Each test prints the
// largest error it measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "core/torch_random.h"
#include "model/checkpoint.h"
#include "model/gpt.h"
#include "model/inference.h"
#include "model/safetensors.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;
using attn_test::ThrowsNaming;
using Bytes = std::vector<std::uint8_t>;

std::string gpt2_path(const std::string& file) { return std::string(ATTN_FIXTURES_DIR) + "/gpt2/" + file; }

Bytes read_bytes(const std::string& file) {
  std::ifstream in(gpt2_path(file), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + gpt2_path(file));
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
std::string read_text(const std::string& file) {
  const Bytes b = read_bytes(file);
  return std::string(b.begin(), b.end());
}
const json& reference() {
  static const json fx = [] {
    std::ifstream in(gpt2_path("reference.json"));
    return json::parse(in);
  }();
  return fx;
}
std::vector<int> fixture_tokens() { return attn_test::json_ints(reference().at("tokens")); }

// |got − want| ≤ abs + rel·max|want| over a tensor (the bound of the header comment).
struct ScaledCompare {
  double abs = 1e-6, rel = 4e-5;
  double worst = 0.0;
  void operator()(const std::string& what, const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double scale = 0.0;
    for (float w : want) scale = std::max(scale, std::fabs(static_cast<double>(w)));
    const double allowed = abs + rel * scale;
    std::size_t failures = 0, at = 0;
    double largest = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
      if (!(err <= allowed)) ++failures;
      if (!(err <= largest)) largest = err, at = i;
    }
    worst = std::max(worst, scale > 0 ? largest / scale : largest);
    EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << want.size() << " beyond " << allowed
                            << "; worst at " << at << ": got " << got[at] << ", want " << want[at];
  }
};

std::unique_ptr<Gpt> load_case(const json& c, const ConfigFields& overrides = {}) {
  const Bytes file = read_bytes(c.at("file").get<std::string>());
  return load_checkpoint(file.data(), file.size(), overrides, read_text(c.at("config_json").get<std::string>()));
}

// The logits of the last forward of a model, all rows (T, V).
std::vector<float> forward_logits(Gpt& model, const std::vector<int>& tokens) {
  model.forward({tokens.data(), nullptr, 1, static_cast<int>(tokens.size())});
  return model.logits();
}

// ---------------------------------------------------------------------------------------------
// Against Hugging Face's forward

TEST(Gpt2Checkpoint, EveryLayoutAndDtypeComputesTorchsLogits) {
  const std::vector<int> tokens = fixture_tokens();
  ScaledCompare compare;
  int cases = 0;
  for (const auto& [name, c] : reference().at("cases").items()) {
    std::unique_ptr<Gpt> model = load_case(c);
    EXPECT_EQ(model->config().gelu, Gelu::kTanh) << name;
    EXPECT_EQ(model->config().layer_norm_eps, name == "eps" ? 0.01 : 1e-5) << name;
    EXPECT_EQ(model->config().n_head, 4) << name;
    for (Kernel kernel : {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled}) {
      model->set_kernel(kernel);
      compare(name + " logits (" + kernel_name(kernel) + ")", forward_logits(*model, tokens),
              attn_test::json_floats(c.at("logits")));
    }
    ++cases;
  }
  EXPECT_EQ(cases, 4);
  std::printf("  [gpt2] logits of 4 files × 4 kernels: worst error %.2g of max|logits|\n", compare.worst);
}

TEST(Gpt2Checkpoint, TraceHoldsTorchsQKVScoresWeightsAndResidualStream) {
  const json& c = reference().at("cases").at("f32");
  std::unique_ptr<Gpt> model = load_case(c);
  const std::vector<int> tokens = fixture_tokens();
  ScaledCompare compare;
  for (Kernel kernel : {Kernel::kReference, Kernel::kSimd, Kernel::kTiled}) {
    CaptureRequest all;
    all.logits = LogitRows::kAll;
    const SequenceCapture got = trace_sequence(*model, tokens, all, kernel);
    const std::string k = std::string(" (") + kernel_name(kernel) + ")";
    ASSERT_EQ(got.attention.size(), 2u);
    for (std::size_t l = 0; l < 2; ++l) {
      const json& want = c.at("layers").at(l);
      const std::string at = "layer " + std::to_string(l) + " ";
      compare(at + "q" + k, got.attention[l].q, attn_test::json_floats(want.at("q")));
      compare(at + "k" + k, got.attention[l].k, attn_test::json_floats(want.at("k")));
      compare(at + "v" + k, got.attention[l].v, attn_test::json_floats(want.at("v")));
      compare(at + "scores" + k, got.attention[l].scores, attn_test::json_floats(want.at("scores")));
      compare(at + "weights" + k, got.attention[l].weights, attn_test::json_floats(want.at("weights")));
    }
    compare("residual" + k, got.residual, attn_test::json_floats(c.at("residual")));
    compare("logits" + k, got.logits, attn_test::json_floats(c.at("logits")));
    // The trace's logits are the model's own forward's (the same passes, the same kernels).
    model->set_kernel(kernel);
    compare("trace against forward" + k, got.logits, forward_logits(*model, tokens));
  }
  std::printf("  [gpt2] q, k, v, scores, weights, residual, logits × 3 kernels: worst error %.2g of max|tensor|\n",
              compare.worst);
}

TEST(Gpt2Checkpoint, WithoutConfigJsonTheTensorsTellAllButTheHeadCount) {
  // The F16 file has no prefix and no lm_head.weight, as gpt2's own model.safetensors.
  const Bytes file = read_bytes("gpt2_tiny_f16.safetensors");
  EXPECT_TRUE(ThrowsNaming([&] { load_checkpoint(file.data(), file.size(), {}); },
                           {"heads: the file does not record n_head", "pass heads"}));
  ConfigFields heads;
  heads.n_head = 4;
  std::unique_ptr<Gpt> model = load_checkpoint(file.data(), file.size(), heads);
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.vocab_size, 211);
  EXPECT_EQ(c.block_size, 64);
  EXPECT_EQ(c.n_layer, 2);
  EXPECT_EQ(c.n_embd, 32);
  EXPECT_EQ(c.gelu, Gelu::kTanh);  // a Conv1D file is GPT-2's: gelu_new, eps 1e-5
  EXPECT_EQ(c.layer_norm_eps, 1e-5);
  EXPECT_TRUE(model->grads().empty());  // only run: no gradient buffer
  ScaledCompare compare;
  compare("f16 without config.json", forward_logits(*model, fixture_tokens()),
          attn_test::json_floats(reference().at("cases").at("f16").at("logits")));
  // The head count decides nothing but the split: a wrong one computes other numbers, not an error.
  heads.n_head = 2;
  EXPECT_NO_THROW(load_checkpoint(file.data(), file.size(), heads));
}

TEST(Gpt2Checkpoint, ReadInSlicesOfAnyLengthGivesTheSameModel) {
  for (const char* name : {"gpt2_tiny.safetensors", "gpt2_tiny_f16.safetensors", "gpt2_tiny_bf16.safetensors"}) {
    const Bytes file = read_bytes(name);
    const std::string config = read_text("config.json");
    const std::vector<float> whole = load_checkpoint(file.data(), file.size(), {}, config)->params();
    // The header alone first, as engine.openModel reads it; then slices of 1, 2, 3, … 13 bytes
    // and a big one, so that values are split across writes in every way.
    const std::uint64_t n = safetensors_header_length(file.data(), file.size());
    CheckpointLoader loader(file.data(), static_cast<std::size_t>(8 + n), file.size(), {}, config);
    EXPECT_EQ(loader.layout(), CheckpointLayout::kConv1d);
    std::uint64_t read = 0;
    int slice = 1;
    for (std::size_t i = 0; i < loader.copies().size(); ++i) {
      const TensorCopy& c = loader.copies()[i];
      for (std::uint64_t at = 0; at < c.end - c.begin;) {
        const std::uint64_t len = std::min<std::uint64_t>(slice == 14 ? 4096 : slice, c.end - c.begin - at);
        loader.write(i, at, file.data() + c.begin + at, static_cast<std::size_t>(len));
        at += len, read += len;
        slice = slice % 14 + 1;
      }
    }
    EXPECT_EQ(read, loader.bytes_to_read());
    EXPECT_LT(read, file.size());  // the mask buffers are never read
    EXPECT_EQ(loader.finish()->params(), whole) << name;
  }
}

TEST(Gpt2Checkpoint, AnUnfinishedOrDisorderedReadIsRefusedNamingTheTensor) {
  const Bytes file = read_bytes("gpt2_tiny_bf16.safetensors");
  const std::uint64_t n = safetensors_header_length(file.data(), file.size());
  CheckpointLoader loader(file.data(), static_cast<std::size_t>(8 + n), file.size(), {}, read_text("config.json"));
  const TensorCopy& first = loader.copies()[0];
  loader.write(0, 0, file.data() + first.begin, 10);
  EXPECT_TRUE(
      ThrowsNaming([&] { loader.write(0, 12, file.data() + first.begin + 12, 2); }, {"expects its bytes from 10"}));
  EXPECT_TRUE(ThrowsNaming([&] { loader.finish(); }, {"safetensors: tensor \"" + first.name + "\": only 10 of its",
                                                      "the file ends at byte " + std::to_string(first.begin + 10)}));
}

TEST(Gpt2Checkpoint, ExportedAgainItIsNanoGptsLayoutWithTheGeluInTheMetadata) {
  std::unique_ptr<Gpt> model = load_case(reference().at("cases").at("f32"));
  const Bytes exported = export_safetensors(model->table(), model->params().data());
  const SafetensorsHeader h = parse_safetensors(exported.data(), exported.size());
  EXPECT_EQ(h.metadata.at("gelu"), "tanh");
  EXPECT_EQ(h.metadata.count("layer_norm_eps"), 0u);  // 1e-5, the default
  EXPECT_EQ(h.find("transformer.h.0.attn.c_attn.weight")->shape, (std::vector<std::uint64_t>{96, 32}));
  std::unique_ptr<Gpt> again = load_checkpoint(exported.data(), exported.size(), {});
  EXPECT_EQ(again->config().gelu, Gelu::kTanh);
  EXPECT_EQ(again->config().n_head, 4);
  EXPECT_EQ(again->params(), model->params());

  std::unique_ptr<Gpt> eps = load_case(reference().at("cases").at("eps"));
  const Bytes with_eps = export_safetensors(eps->table(), eps->params().data());
  EXPECT_EQ(parse_safetensors(with_eps.data(), with_eps.size()).metadata.at("layer_norm_eps"), "0.01");
  EXPECT_EQ(load_checkpoint(with_eps.data(), with_eps.size(), {})->config().layer_norm_eps, 0.01);
}

// ---------------------------------------------------------------------------------------------
// Hostile files and configs

// A GPT-2 file as (name, dtype, shape, bytes) specs, edited, then written back.
struct Spec {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  Bytes data;
};
std::vector<Spec> specs_of(const Bytes& file) {
  const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
  std::vector<Spec> out;
  for (const TensorRecord& t : h.tensors) {
    out.push_back({t.name, dtype_name(t.dtype), t.shape,
                   Bytes(file.begin() + static_cast<std::ptrdiff_t>(h.buffer_offset + t.begin),
                         file.begin() + static_cast<std::ptrdiff_t>(h.buffer_offset + t.end))});
  }
  return out;
}
Bytes build(const std::vector<Spec>& specs) {
  std::string header = "{";
  Bytes buffer;
  for (const Spec& s : specs) {
    if (header.size() > 1) header += ",";
    header += json(s.name).dump() + ":{\"dtype\":\"" + s.dtype + "\",\"shape\":" + json(s.shape).dump() +
              ",\"data_offsets\":[" + std::to_string(buffer.size()) + "," +
              std::to_string(buffer.size() + s.data.size()) + "]}";
    buffer.insert(buffer.end(), s.data.begin(), s.data.end());
  }
  header += "}";
  Bytes out(8);
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), buffer.begin(), buffer.end());
  return out;
}
Spec& named(std::vector<Spec>& specs, const std::string& name) {
  for (Spec& s : specs)
    if (s.name == name) return s;
  throw std::runtime_error("no tensor " + name);
}

struct Hostile {
  std::string name;
  std::function<Bytes()> file;
  std::string config;  // config.json text ("" none)
  std::vector<std::string> message;
};

std::vector<Hostile> hostile_cases() {
  const auto f32 = [] { return specs_of(read_bytes("gpt2_tiny.safetensors")); };
  const auto f16 = [] { return specs_of(read_bytes("gpt2_tiny_f16.safetensors")); };
  const std::string config = read_text("config.json");
  auto config_with = [config](const std::string& key, const std::string& value) {
    json c = json::parse(config);
    c[key] = json::parse(value);
    return c.dump();
  };
  std::vector<Hostile> h;
  h.push_back({"NotSafetensors",
               [] { return Bytes{0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13}; },
               config,
               {"safetensors: header length", "exceeds the 100000000-byte limit"}});
  h.push_back({"JsonNotSafetensors",
               [] { return Bytes{'{', '"', 'a', '"', ':', '1', '}', ' ', ' ', ' '}; },
               config,
               {"safetensors: not a safetensors file: it begins with text (\"{\"a\":1} …\")"}});
  h.push_back({"HeaderClaimingTenGigabytes",
               [] {
                 Bytes b(64, 0);
                 const std::uint64_t ten_gb = 10000000000ULL;
                 for (int i = 0; i < 8; ++i)
                   b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(ten_gb >> (8 * i));
                 return b;
               },
               config,
               {"header length 10000000000 (file bytes 0-7) exceeds the 100000000-byte limit"}});
  h.push_back({"TensorClaimingTenGigabytes",
               [] {
                 const std::string header =
                     "{\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[50000,50000],\"data_offsets\":[0,10000000000]}}";
                 Bytes b(8);
                 for (int i = 0; i < 8; ++i)
                   b[static_cast<std::size_t>(i)] =
                       static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * i));
                 b.insert(b.end(), header.begin(), header.end());
                 b.resize(b.size() + 16, 0);
                 return b;
               },
               config,
               {"tensor \"wte.weight\": data_offsets [0, 10000000000) run past the 16-byte buffer"}});
  h.push_back({"Truncated",
               [] {
                 Bytes b = read_bytes("gpt2_tiny.safetensors");
                 b.resize(b.size() - 1000);
                 return b;
               },
               config,
               {"run past the", "-byte buffer"}});
  h.push_back({"WrongArchitecture",
               [] {
                 return build({{"model.embed_tokens.weight", "F32", {4, 2}, Bytes(32, 0)},
                               {"model.layers.0.self_attn.q_proj.weight", "F32", {2, 2}, Bytes(16, 0)}});
               },
               "",
               {"not a GPT-2 or nanoGPT checkpoint", "\"model.embed_tokens.weight\""}});
  h.push_back({"ConfigOfAnotherModel",
               [f32] { return build(f32()); },
               config_with("model_type", "\"llama\""),
               {"config.json: model_type \"llama\" is not GPT-2's"}});
  h.push_back({"ConfigOfAnotherArchitecture",
               [f32] { return build(f32()); },
               config_with("architectures", "[\"LlamaForCausalLM\"]"),
               {"config.json: architectures"}});
  h.push_back({"ConfigWithReluActivation",
               [f32] { return build(f32()); },
               config_with("activation_function", "\"relu\""),
               {"config.json: activation_function \"relu\" is not supported"}});
  h.push_back({"ConfigWithAnotherMlpWidth",
               [f32] { return build(f32()); },
               config_with("n_inner", "64"),
               {"config.json: n_inner 64"}});
  h.push_back({"ConfigScalingByLayer",
               [f32] { return build(f32()); },
               config_with("scale_attn_by_inverse_layer_idx", "true"),
               {"scale_attn_by_inverse_layer_idx true"}});
  h.push_back({"ConfigNotJson", [f32] { return build(f32()); }, "{\"n_embd\": 32,", {"config.json: not valid JSON"}});
  h.push_back({"ConfigWidthAsAString",
               [f32] { return build(f32()); },
               config_with("n_embd", "\"32\""),
               {"config.json: n_embd must be a whole number, got \"32\""}});
  json too_big = json::parse(config);
  too_big["n_embd"] = 4096, too_big["n_layer"] = 64, too_big["n_head"] = 64;
  h.push_back({"ConfigTooBigToRun",
               [f32] { return build(f32()); },
               too_big.dump(),
               {"config: ", "parameters; at most 536870912"}});
  h.push_back({"MissingTensor",
               [f32] {
                 auto s = f32();
                 s.erase(std::find_if(s.begin(), s.end(),
                                      [](const Spec& x) { return x.name == "transformer.h.1.mlp.c_fc.bias"; }));
                 return build(s);
               },
               config,
               {"missing 1 tensor: transformer.h.1.mlp.c_fc.bias"}});
  h.push_back({"MissingTensorWithoutPrefix",
               [f16] {
                 auto s = f16();
                 s.erase(std::find_if(s.begin(), s.end(), [](const Spec& x) { return x.name == "ln_f.bias"; }));
                 return build(s);
               },
               config,
               {"missing 1 tensor: ln_f.bias"}});
  h.push_back({"ExtraLayer",
               [f32] {
                 auto s = f32();
                 s.push_back({"transformer.h.2.ln_1.weight", "F32", {32}, Bytes(128, 0)});
                 return build(s);
               },
               config,
               {"unexpected tensor \"transformer.h.2.ln_1.weight\"", "(the model has n_layer = 2)"}});
  h.push_back({"ExtraHead",
               [f32] {
                 auto s = f32();
                 s.push_back({"score.weight", "F32", {2, 32}, Bytes(256, 0)});
                 return build(s);
               },
               config,
               {"unexpected tensor \"score.weight\": not a parameter of this model"}});
  h.push_back({"Conv1DWeightMisshaped",
               [f32] {
                 auto s = f32();
                 Spec& w = named(s, "transformer.h.0.mlp.c_fc.weight");
                 w.shape = {32, 127};
                 w.data.resize(32 * 127 * 4);
                 return build(s);
               },
               config,
               {"tensor \"transformer.h.0.mlp.c_fc.weight\": shape (32, 127), expected (32, 128)",
                "Conv1D layout: (in, out)"}});
  h.push_back({"OneBlockInNanoGptsLayout",
               [f32] {
                 auto s = f32();
                 Spec& w = named(s, "transformer.h.1.attn.c_attn.weight");
                 w.shape = {96, 32};
                 return build(s);
               },
               config,
               {"tensor \"transformer.h.1.attn.c_attn.weight\": shape (96, 32), expected (32, 96)"}});
  h.push_back({"NanInAConv1DWeight",
               [f16] {
                 auto s = f16();
                 Spec& w = named(s, "h.0.mlp.c_fc.weight");
                 w.data[10] = 0x01, w.data[11] = 0x7e;  // F16 NaN at element 5
                 return build(s);
               },
               config,
               {"tensor \"h.0.mlp.c_fc.weight\": element 5 is nan (file byte", "every parameter must be finite"}});
  h.push_back({"InfInBF16",
               [] {
                 auto s = specs_of(read_bytes("gpt2_tiny_bf16.safetensors"));
                 Spec& w = named(s, "transformer.wpe.weight");
                 w.data[6] = 0x80, w.data[7] = 0x7f;  // BF16 +inf at element 3
                 return build(s);
               },
               config,
               {"tensor \"transformer.wpe.weight\": element 3 is inf"}});
  h.push_back({"LmHeadDiffersFromWte",
               [f32] {
                 auto s = f32();
                 named(s, "lm_head.weight").data[40] ^= 0x01;  // element 10; lm_head comes first in the file
                 return build(s);
               },
               config,
               {"lm_head.weight differs from transformer.wte.weight at element 10", "must be equal"}});
  // Two faults in one tensor: the earlier element is named, however the bytes arrive (F12).
  h.push_back({"LmHeadDiffersBeforeANan",
               [f32] {
                 auto s = f32();
                 Spec& w = named(s, "transformer.wte.weight");          // after lm_head: the compared copy
                 w.data[40] ^= 0x01;                                    // element 10 differs
                 w.data[20 * 4 + 2] = 0xc0, w.data[20 * 4 + 3] = 0x7f;  // element 20 is NaN
                 return build(s);
               },
               config,
               {"lm_head.weight differs from transformer.wte.weight at element 10"}});
  h.push_back({"ANanBeforeLmHeadDiffers",
               [f32] {
                 auto s = f32();
                 Spec& w = named(s, "transformer.wte.weight");
                 w.data[5 * 4 + 2] = 0xc0, w.data[5 * 4 + 3] = 0x7f;  // element 5 is NaN
                 w.data[40] ^= 0x01;                                  // element 10 differs
                 return build(s);
               },
               config,
               {"tensor \"transformer.wte.weight\": element 5 is nan"}});
  h.push_back({"WteTwiceUnderBothNames",
               [f32] {
                 auto s = f32();
                 Spec copy = named(s, "transformer.wte.weight");
                 copy.name = "wte.weight";
                 s.push_back(copy);
                 return build(s);
               },
               config,
               {"tensors \"transformer.wte.weight\" and \"wte.weight\" are the same parameter"}});
  h.push_back({"BoolParameter",
               [f32] {
                 auto s = f32();
                 Spec& w = named(s, "transformer.ln_f.bias");
                 w.dtype = "BOOL";
                 w.data.resize(32);
                 return build(s);
               },
               config,
               {"tensor \"transformer.ln_f.bias\": dtype BOOL is not supported for a parameter"}});
  return h;
}

void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name; }

class HostileGpt2 : public ::testing::TestWithParam<Hostile> {};

// The message of reading `file` as engine.openModel does: the header, then every tensor in
// slices of 7 bytes (values split across writes); "" if it is accepted.
std::string sliced_read_error(const Bytes& file, const std::string& config) {
  try {
    const std::uint64_t n = safetensors_header_length(file.data(), file.size());
    const std::size_t header = static_cast<std::size_t>(std::min<std::uint64_t>(8 + n, file.size()));
    CheckpointLoader loader(file.data(), header, file.size(), {}, config);
    for (std::size_t i = 0; i < loader.copies().size(); ++i) {
      const TensorCopy& c = loader.copies()[i];
      for (std::uint64_t at = 0; at < c.end - c.begin; at += 7) {
        const std::uint64_t len = std::min<std::uint64_t>(7, c.end - c.begin - at);
        loader.write(i, at, file.data() + c.begin + at, static_cast<std::size_t>(len));
      }
    }
    loader.finish();
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST_P(HostileGpt2, IsRefusedWithAnErrorNamingTheProblem) {
  const Hostile& c = GetParam();
  const Bytes file = c.file();
  try {
    load_checkpoint(file.data(), file.size(), {}, c.config);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    for (const std::string& s : c.message)
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << "\"" << e.what() << "\" lacks \"" << s << "\"";
    // Read in slices, as the page reads a File or a URL, the file is refused with the same
    // message (tests/fuzz F12: of two faults, the sliced read named the other one).
    if (file.size() >= 8) {
      EXPECT_EQ(sliced_read_error(file, c.config), std::string(e.what()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, HostileGpt2, ::testing::ValuesIn(hostile_cases()),
                         [](const ::testing::TestParamInfo<Hostile>& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// The KV cache

TEST(CachedSequence, TokenByTokenGivesTheFullForwardsNumbersWithinFloatError) {
  std::unique_ptr<Gpt> model = load_case(reference().at("cases").at("f32"));
  const std::vector<int> tokens = fixture_tokens();
  const int T = static_cast<int>(tokens.size()), V = 211, H = 4;
  CaptureRequest all;
  all.logits = LogitRows::kAll;
  const SequenceCapture full = trace_sequence(*model, tokens, all);
  ScaledCompare compare;
  // One token at a time, then in chunks of 5, 3, 4: each row's logits, its weights row (H, K),
  // and the cached keys against the full forward's.
  for (const std::vector<int>& chunks : {std::vector<int>(12, 1), std::vector<int>{5, 3, 4}}) {
    CachedSequence cache(*model, 64);
    int at = 0;
    for (int n : chunks) {
      SequenceCapture step;
      cache.append(tokens.data() + at, n, all, step);
      EXPECT_EQ(step.keys, at + n);
      const std::vector<float> want_logits(full.logits.begin() + at * V, full.logits.begin() + (at + n) * V);
      compare("logits rows " + std::to_string(at), step.logits, want_logits);
      for (std::size_t l = 0; l < 2; ++l) {
        std::vector<float> want_weights, want_k;
        for (int h = 0; h < H; ++h) {
          for (int i = at; i < at + n; ++i) {
            const auto row = full.attention[l].weights.begin() + (h * T + i) * T;
            want_weights.insert(want_weights.end(), row, row + at + n);  // the keys so far
          }
          const auto k = full.attention[l].k.begin() + h * T * 8;
          want_k.insert(want_k.end(), k, k + (at + n) * 8);
        }
        compare("weights rows " + std::to_string(at), step.attention[l].weights, want_weights);
        compare("cached keys " + std::to_string(at), step.attention[l].k, want_k);
      }
      at += n;
    }
    EXPECT_EQ(cache.length(), T);
    SequenceCapture none;
    EXPECT_TRUE(
        ThrowsNaming([&] { cache.append(tokens.data(), 64 - T + 1, all, none); }, {"tokens", "capacity of 64"}));
  }
  std::printf("  [kv cache] rows appended 1 and 5/3/4 at a time against the full forward: worst error %.2g\n",
              compare.worst);
}

TEST(CachedSequence, CaptureIsWhatIsAskedForAndGuardedByItsCap) {
  std::unique_ptr<Gpt> model = load_case(reference().at("cases").at("f32"));
  const std::vector<int> tokens = fixture_tokens();
  CaptureRequest some;
  some.layers = {1};
  some.heads = {0, 3};
  some.qkv = false;
  some.residual = false;
  const SequenceCapture got = trace_sequence(*model, tokens, some);
  ASSERT_EQ(got.attention.size(), 1u);
  EXPECT_TRUE(got.attention[0].q.empty());
  EXPECT_EQ(got.attention[0].weights.size(), 2u * 12 * 12);
  EXPECT_TRUE(got.residual.empty());
  EXPECT_EQ(got.logits.size(), 211u);  // the last row
  const std::vector<float> want =
      attn_test::json_floats(reference().at("cases").at("f32").at("layers").at(1).at("weights"));
  for (int i = 0; i < 144; ++i) {
    EXPECT_NEAR(got.attention[0].weights[i], want[i], 1e-5);
    EXPECT_NEAR(got.attention[0].weights[144 + i], want[3 * 144 + i], 1e-5);
  }
  some.heads = {3, 0};
  EXPECT_TRUE(ThrowsNaming([&] { trace_sequence(*model, tokens, some); }, {"heads[1]: 0", "ascending"}));
  some.heads = {4};
  EXPECT_TRUE(ThrowsNaming([&] { trace_sequence(*model, tokens, some); }, {"heads[0]: 4", "[0, 4)"}));

  // Every layer and head of a long input is more than the cap: the error says what to drop.
  ModelConfig wide;
  wide.vocab_size = 10, wide.block_size = 1024, wide.n_layer = 8, wide.n_head = 16, wide.n_embd = 64;
  Gpt big(wide, Gpt::ZeroParams{});
  const std::vector<int> long_input(1024, 1);
  EXPECT_TRUE(ThrowsNaming([&] { trace_sequence(big, long_input, CaptureRequest{}); },
                           {"capture: 8 layers × 16 heads over 1024 × 1024 tokens need", "2^26", "fewer layers"}));
  CaptureRequest one;
  one.layers = {7};
  EXPECT_EQ(trace_sequence(big, long_input, one).attention.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Sampling and generation

TEST(Sampling, TopPKeepsTheMostLikelyTokensWhoseProbabilitiesReachP) {
  // softmax of these logits: 0.0320586, 0.0871443, 0.2368828, 0.6439143 (ids 0 … 3)
  const float row[] = {0.0f, 1.0f, 2.0f, 3.0f};
  auto probs = [&](double p, int k = 0) { return next_token_probs(row, 4, {1.0, k, p}); };
  // Ascending running sums 0.032, 0.119, 0.356, 1: top-p drops while the sum stays ≤ 1 − p.
  EXPECT_EQ(probs(0.6)[2], 0.0f);  // 0.356 ≤ 0.4: dropped; only id 3 kept
  EXPECT_EQ(probs(0.6)[3], 1.0f);
  const std::vector<float> two = probs(0.7);  // 0.356 > 0.3: ids 2 and 3 kept
  EXPECT_EQ(two[1], 0.0f);
  EXPECT_NEAR(two[2], 0.2368828 / (0.2368828 + 0.6439143), 1e-7);
  EXPECT_EQ(probs(0.01)[3], 1.0f);  // the most likely token always stays
  EXPECT_EQ(probs(1.0)[0], next_token_probs(row, 4, {})[0]);
  // top-k first, then top-p over what top-k kept (Hugging Face's order).
  const std::vector<float> k2 = probs(0.8, 2);
  EXPECT_EQ(k2[1], 0.0f);
  EXPECT_NEAR(k2[2], 0.2689414, 1e-7);
  EXPECT_EQ(top_tokens(probs(1.0), 3), (std::vector<int>{3, 2, 1}));
  EXPECT_TRUE(ThrowsNaming([&] { probs(0.0); }, {"topP: expected 0 < topP ≤ 1"}));
  EXPECT_TRUE(ThrowsNaming([&] { probs(1.5); }, {"topP"}));
  EXPECT_TRUE(ThrowsNaming([&] { probs(1.0, 5); }, {"topK: expected an integer in [0, 4]"}));
  EXPECT_TRUE(ThrowsNaming([&] { next_token_probs(row, 4, {-1.0, 0, 1.0}); }, {"temperature"}));
}

TEST(Sampling, NoLogitsThrowNamingLogitsInsteadOfReadingPastTheRow) {
  // tests/fuzz F8: V = 0 read row[0] (and, at temperature 0, wrote probs[0] of an empty vector).
  const float row[] = {1.0f};
  TorchGenerator generator(1);
  for (double temperature : {0.0, 1.0}) {
    EXPECT_TRUE(ThrowsNaming([&] { next_token_probs(row, 0, {temperature, 0, 1.0}); }, {"logits", "V ≥ 1", "got 0"}));
    EXPECT_TRUE(ThrowsNaming([&] { sample_token(row, 0, {temperature, 0, 1.0}, generator); }, {"logits"}));
  }
  EXPECT_EQ(next_token_probs(row, 1, {}), std::vector<float>{1.0f});
}

TEST(Sampling, NonFiniteLogitsThrowNamingTheirIndex) {
  // tests/fuzz F10: a NaN or ±∞ logit made every probability NaN (∞ − ∞ after the max shift) and
  // sample_token return a token regardless; the ABI refused them, the C++ API (generate, sessions)
  // did not.
  const float inf = std::numeric_limits<float>::infinity();
  TorchGenerator generator(1);
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), inf, -inf}) {
    const float row[] = {0.5f, bad, 1.0f};
    for (double temperature : {0.0, 0.7}) {
      EXPECT_TRUE(ThrowsNaming(
          [&] {
            next_token_probs(row, 3, {temperature, 0, 1.0});
          },
          {"logits[1]: must be finite"}));
      EXPECT_TRUE(ThrowsNaming([&] { sample_token(row, 3, {temperature, 0, 1.0}, generator); }, {"logits[1]"}));
    }
  }
}

// Hugging Face's sampling (temperature, top-k, top-p, torch.multinomial after
// torch.manual_seed) with nanoGPT's crop, in torch 1.13: generate() and a cached session draw the
// same tokens, and past the 64-token context the session recomputes as nanoGPT does.
TEST(GenerationSession, DrawsGeneratesTokensWhichAreTorchsForTheSameSeed) {
  std::unique_ptr<Gpt> model = load_case(reference().at("cases").at("f32"));
  int cases = 0;
  for (const json& c : reference().at("generate")) {
    GenerateOptions o;
    o.temperature = c.at("temperature"), o.top_k = c.at("top_k"), o.top_p = c.at("top_p"), o.seed = c.at("seed");
    const std::vector<int> prompt = c.at("prompt"), want = c.at("tokens");
    const int count = c.at("count");
    EXPECT_EQ(generate(*model, prompt, count, o), want) << "case " << cases;
    GenerationSession session(*model, prompt, o);
    std::vector<int> got;
    bool recomputed = false;
    for (int i = 0; i < count; ++i) {
      const GenerationSession::Step s = session.step();
      got.push_back(s.token);
      recomputed = recomputed || s.recomputed;
      EXPECT_EQ(s.attention.size(), static_cast<std::size_t>(2 * 4 * s.keys));
      EXPECT_EQ(s.top_tokens.size(), 10u);
    }
    EXPECT_EQ(got, want) << "session, case " << cases;
    EXPECT_EQ(recomputed, prompt.size() + count > 64) << "case " << cases;
    ++cases;
  }
  EXPECT_EQ(cases, 5);
}

TEST(GenerationSession, StepsCountTheirMultiplyAddsFromTheShapes) {
  std::unique_ptr<Gpt> model = load_case(reference().at("cases").at("f32"));
  GenerateOptions greedy;
  greedy.temperature = 0;
  GenerationSession session(*model, {1, 2, 3}, greedy);
  const GenerationSession::Step s = session.step();
  // L = 2, C = 32, V = 211; the new token is the 4th: keys = 4.
  const long long C = 32, L = 2, V = 211, keys = 4;
  EXPECT_EQ(s.keys, 4);
  EXPECT_EQ(s.position, 3);
  EXPECT_EQ(s.macs_cached, L * (12 * C * C + 2 * C * keys) + C * V);
  EXPECT_EQ(s.macs_full, L * (12 * C * C * keys + C * keys * (keys + 1)) + C * V);
  // Greedy is the argmax of the last logits, which are the full forward's.
  const std::vector<float> full = trace_sequence(*model, {1, 2, 3}, CaptureRequest{}).logits;
  EXPECT_EQ(s.token, static_cast<int>(std::max_element(full.begin(), full.end()) - full.begin()));
  EXPECT_EQ(s.top_probs[0], 1.0f);
  // Each head's row of weights sums to 1 over the keys so far.
  for (int lh = 0; lh < 8; ++lh) {
    double sum = 0;
    for (int j = 0; j < keys; ++j) sum += s.attention[lh * keys + j];
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // A forced token draws nothing and is appended as given.
  EXPECT_EQ(session.step(7).token, 7);
  EXPECT_EQ(session.tokens(), (std::vector<int>{1, 2, 3, s.token, 7}));
  EXPECT_TRUE(ThrowsNaming([&] { session.step(211); }, {"token: 211"}));
}

// ---------------------------------------------------------------------------------------------
// Models larger than training allows

TEST(GptTraining, AModelAboveTheTrainingCapRunsButRefusesToStepNamingTheCap) {
  ModelConfig big;
  big.vocab_size = 65536, big.block_size = 16, big.n_layer = 1, big.n_head = 1, big.n_embd = 1040;
  ASSERT_GT(parameter_count(big), ModelLimits::kMaxTrainParams);
  Gpt model(big, Gpt::ZeroParams{});
  EXPECT_TRUE(model.grads().empty());
  const std::vector<int> tokens = {1, 2, 3}, targets = {2, 3, 4};
  EXPECT_NO_THROW(model.forward({tokens.data(), nullptr, 1, 3}));
  Trainer trainer(model);
  EXPECT_TRUE(ThrowsNaming(
      [&] {
        trainer.step({tokens.data(), targets.data(), 1, 3}, StepOptions{});
      },
      {"step: this model has", "training is limited to 67108864 (2^26)"}));
  EXPECT_TRUE(model.grads().empty());
  EXPECT_EQ(trainer.steps(), 0);
}

}  // namespace
}  // namespace attn::model

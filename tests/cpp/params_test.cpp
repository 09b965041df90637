// ModelConfig validation, the parameter table in nanoGPT's state_dict names and order, and
// nanoGPT's initialisation (src/model/config.h, params.h), against the nanoGPT mirror of
// tests/fixtures/make_training_fixtures.py run under torch 1.13 (training/params.json).
//
// Legend: V vocab_size, T block_size, L n_layer, H n_head, C n_embd.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "model/params.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;
using attn_test::ThrowsNaming;

using attn_test::config_from_json;

// ---------------------------------------------------------------------------------------------
// Validation

struct BadConfig {
  const char* name;
  void (*edit)(ModelConfig&);
  std::vector<std::string> message;  // substrings the error must contain
};

const std::vector<BadConfig>& bad_configs() {
  static const std::vector<BadConfig> cases = {
      {"vocab_size_zero",
       [](ModelConfig& c) { c.vocab_size = 0; },
       {"vocab_size: expected 1 ≤ vocab_size ≤ 131072, got 0"}},
      {"vocab_size_too_big", [](ModelConfig& c) { c.vocab_size = 131073; }, {"vocab_size", "131073"}},
      {"vocab_size_int_max", [](ModelConfig& c) { c.vocab_size = INT_MAX; }, {"vocab_size", "2147483647"}},
      {"block_size_zero", [](ModelConfig& c) { c.block_size = 0; }, {"block_size: expected 1 ≤ block_size ≤ 16384"}},
      {"block_size_too_big", [](ModelConfig& c) { c.block_size = 16385; }, {"block_size", "16385"}},
      {"n_layer_negative", [](ModelConfig& c) { c.n_layer = -1; }, {"n_layer: expected 0 ≤ n_layer ≤ 64, got -1"}},
      {"n_layer_too_many", [](ModelConfig& c) { c.n_layer = 65; }, {"n_layer", "65"}},
      {"n_head_zero", [](ModelConfig& c) { c.n_head = 0; }, {"n_head: expected 1 ≤ n_head ≤ 256, got 0"}},
      {"n_head_int_min", [](ModelConfig& c) { c.n_head = INT_MIN; }, {"n_head", "-2147483648"}},
      {"n_embd_zero", [](ModelConfig& c) { c.n_embd = 0; }, {"n_embd: expected 1 ≤ n_embd ≤ 4096, got 0"}},
      {"n_embd_too_wide", [](ModelConfig& c) { c.n_embd = 4097; }, {"n_embd", "4097"}},
      {"n_head_not_dividing", [](ModelConfig& c) { c.n_head = 3; }, {"n_head: 3 must divide n_embd = 64"}},
      {"dropout_negative", [](ModelConfig& c) { c.dropout = -0.1; }, {"dropout: expected 0 ≤ dropout < 1, got -0.1"}},
      {"dropout_one", [](ModelConfig& c) { c.dropout = 1.0; }, {"dropout", "got 1"}},
      {"dropout_nan", [](ModelConfig& c) { c.dropout = std::numeric_limits<double>::quiet_NaN(); }, {"dropout", "nan"}},
      {"too_many_parameters",
       [](ModelConfig& c) {
         c.vocab_size = 131072;
         c.n_embd = 4096;
       },
       {"config: ", "parameters; at most 536870912 (2^29"}},
      {"too_many_parameters_by_depth",
       [](ModelConfig& c) {
         c.n_layer = 64;
         c.n_embd = 1024;
       },
       {"config: 806", "at most 536870912"}},
      {"layer_norm_eps_zero",
       [](ModelConfig& c) { c.layer_norm_eps = 0.0; },
       {"layer_norm_eps: expected 0 < layer_norm_eps ≤ 1, got 0"}},
      {"layer_norm_eps_nan",
       [](ModelConfig& c) { c.layer_norm_eps = std::numeric_limits<double>::quiet_NaN(); },
       {"layer_norm_eps", "nan"}},
      {"gelu_unknown", [](ModelConfig& c) { c.gelu = static_cast<Gelu>(7); }, {"gelu: expected 'exact' or 'tanh'"}},
  };
  return cases;
}

TEST(ModelConfigValidation, EveryBadFieldIsNamedWithItsRange) {
  for (const BadConfig& bad : bad_configs()) {
    ModelConfig c;
    bad.edit(c);
    try {
      validate(c);
      ADD_FAILURE() << bad.name << ": accepted";
    } catch (const Error& e) {
      for (const std::string& s : bad.message) {
        EXPECT_NE(std::string(e.what()).find(s), std::string::npos)
            << bad.name << ": \"" << e.what() << "\" lacks \"" << s << "\"";
      }
    }
    EXPECT_TRUE(ThrowsNaming([&] { ParamTable table(c); }, {bad.message[0]})) << bad.name;
  }
}

TEST(ModelConfigValidation, LargestAllowedSizesCountWithoutOverflow) {
  ModelConfig c;
  c.vocab_size = ModelLimits::kMaxVocab;
  c.block_size = ModelLimits::kMaxBlockSize;
  c.n_layer = 0;
  c.n_embd = 256;
  c.n_head = 256;
  const long long C = 256;
  EXPECT_EQ(parameter_count(c), (131072 + 16384) * C + 2 * C);  // wte, wpe, ln_f weight and bias
  c.n_layer = 1;
  c.vocab_size = 1;
  c.block_size = 1;
  c.n_embd = ModelLimits::kMaxEmbd;
  c.n_head = 1;
  // One block at C = 4096: 12·C² + 13·C (weights, biases, two LayerNorms) = 201.4M: run, not trained.
  EXPECT_EQ(parameter_count(c), 12LL * 4096 * 4096 + 13 * 4096 + 2 * 4096 + 2 * 4096);
  EXPECT_TRUE(ThrowsNaming([&] { validate_for_training(c); }, {"step: this model has 201", "2^26"}));
  // Three such blocks (604M) are beyond the cap of a model that is only run.
  c.n_layer = 3;
  EXPECT_TRUE(ThrowsNaming([&] { validate(c); }, {"config: 604", "2^29"}));
}

TEST(ModelConfigValidation, GptTwoSmallAndMediumFitTheInferenceCapAndLargeDoesNot) {
  // Hugging Face's gpt2, gpt2-medium and gpt2-large: V = 50257, T = 1024, C = 768/1024/1280.
  auto gpt2 = [](int layers, int width, int heads) {
    ModelConfig c;
    c.vocab_size = 50257, c.block_size = 1024, c.n_layer = layers, c.n_embd = width, c.n_head = heads;
    c.gelu = Gelu::kTanh;
    return c;
  };
  EXPECT_EQ(parameter_count(gpt2(12, 768, 12)), 124439808);  // GPT2LMHeadModel's num_parameters()
  EXPECT_EQ(parameter_count(gpt2(24, 1024, 16)), 354823168);
  EXPECT_TRUE(ThrowsNaming([&] { validate(gpt2(36, 1280, 20)); }, {"config: 774030080", "2^29"}));
  EXPECT_TRUE(ThrowsNaming([&] { validate_for_training(gpt2(12, 768, 12)); }, {"step", "124439808", "2^26"}));
}

// ---------------------------------------------------------------------------------------------
// The table against torch's state_dict

TEST(ParamTable, NamesShapesAndOrderMatchTorchStateDict) {
  const json fixture = attn_test::load_training_json("params");
  int configs = 0;
  for (const json& fx : fixture.at("configs")) {
    const std::string name = fx.at("name");
    const ModelConfig config = config_from_json(fx.at("config"));
    const ParamTable table(config);

    // state_dict: every key in order, with the mask buffers and lm_head.weight.
    std::vector<std::string> want_keys;
    for (const json& kv : fx.at("state_dict")) want_keys.push_back(kv.at(0));
    EXPECT_EQ(table.state_dict_names(true, true), want_keys) << name;
    for (const json& kv : fx.at("state_dict")) {
      const std::string key = kv.at(0);
      const std::vector<int> shape = kv.at(1).get<std::vector<int>>();
      if (key.size() > 10 && key.compare(key.size() - 10, 10, ".attn.bias") == 0) {
        EXPECT_EQ(shape, std::vector<int>({1, 1, config.block_size, config.block_size})) << key;
        continue;
      }
      EXPECT_EQ(table.at(key).shape, shape) << name << " " << key;
    }
    // named_parameters: the table's entries (tied lm_head listed once, as wte).
    std::vector<std::string> entries;
    for (const ParamEntry& e : table.entries()) entries.push_back(e.name);
    EXPECT_EQ(entries, fx.at("named_parameters").get<std::vector<std::string>>()) << name;
    EXPECT_EQ(static_cast<long long>(table.total()), fx.at("parameter_count").get<long long>()) << name;
    EXPECT_EQ(parameter_count(config), fx.at("parameter_count").get<long long>()) << name;
    // Weight decay: exactly the tensors with dim ≥ 2.
    std::vector<std::string> decay;
    for (const ParamEntry& e : table.entries())
      if (e.decay) decay.push_back(e.name);
    EXPECT_EQ(decay, fx.at("decay").get<std::vector<std::string>>()) << name;
    ++configs;
  }
  EXPECT_EQ(configs, 6);
}

TEST(ParamTable, TensorsArePackedBackToBackInTableOrder) {
  ModelConfig c;
  const ParamTable table(c);
  std::size_t offset = 0;
  for (const ParamEntry& e : table.entries()) {
    EXPECT_EQ(e.offset, offset) << e.name;
    std::size_t n = 1;
    for (int d : e.shape) n *= static_cast<std::size_t>(d);
    EXPECT_EQ(e.size, n) << e.name;
    offset += e.size;
  }
  EXPECT_EQ(table.total(), offset);
}

TEST(ParamTable, LmHeadIsWteAndUnknownNamesAreErrors) {
  const ParamTable table(ModelConfig{});
  EXPECT_EQ(&table.at("lm_head.weight"), &table.wte());
  EXPECT_EQ(table.find("transformer.h.0.attn.bias"), nullptr);  // a buffer, not a parameter
  EXPECT_TRUE(ThrowsNaming([&] { table.at("transformer.h.9.ln_1.weight"); }, {"transformer.h.9.ln_1.weight"}));
  EXPECT_EQ(table.state_dict_names(false, false).size(), table.entries().size());
}

TEST(ParamTable, BlockEntriesFollowTheSwitches) {
  ModelConfig c;
  c.bias = false;
  c.mlp = false;
  c.layer_norm = false;
  const ParamTable lean(c);
  const BlockEntries& b = lean.block(1);
  EXPECT_NE(b.c_attn_weight, nullptr);
  EXPECT_NE(b.attn_proj_weight, nullptr);
  EXPECT_EQ(b.c_attn_bias, nullptr);
  EXPECT_EQ(b.ln_1_weight, nullptr);
  EXPECT_EQ(b.ln_2_weight, nullptr);
  EXPECT_EQ(b.c_fc_weight, nullptr);
  EXPECT_EQ(lean.ln_f_weight(), nullptr);
  EXPECT_EQ(b.c_attn_weight->name, "transformer.h.1.attn.c_attn.weight");
  const ParamTable full(ModelConfig{});
  EXPECT_EQ(full.block(0).mlp_proj_bias->name, "transformer.h.0.mlp.c_proj.bias");
  EXPECT_EQ(full.block(0).mlp_proj_weight->shape, std::vector<int>({64, 256}));
  EXPECT_EQ(full.ln_f_bias()->name, "transformer.ln_f.bias");
}

// ---------------------------------------------------------------------------------------------
// Initialisation

struct Draw {
  std::string op, tensor;
  std::size_t numel;
  double a, b;
};

// A fill that records every call (and writes recognisable values).
InitFill recording_fill(const ParamTable& table, const float* base, std::vector<Draw>& draws) {
  auto name_of = [&table, base](const float* p) {
    for (const ParamEntry& e : table.entries())
      if (p == base + e.offset) return e.name;
    return std::string("?");
  };
  InitFill fill;
  fill.normal = [&draws, name_of](float* data, std::size_t n, double mean, double std) {
    draws.push_back({"normal", name_of(data), n, mean, std});
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(mean + std);
  };
  fill.uniform = [&draws, name_of](float* data, std::size_t n, double from, double to) {
    draws.push_back({"uniform", name_of(data), n, from, to});
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(to);
  };
  return fill;
}

TEST(InitParams, DrawsExactlyTorchsSequenceOfNormalAndUniformCalls) {
  // Same calls, same sizes, same arguments to the last bit, same order as GPT(config) makes
  // after torch.manual_seed: a generator that reproduces torch's reproduces its weights.
  const json fixture = attn_test::load_training_json("params");
  for (const json& fx : fixture.at("configs")) {
    const std::string name = fx.at("name");
    const ParamTable table(config_from_json(fx.at("config")));
    std::vector<float> params(table.total());
    std::vector<Draw> draws;
    init_params(params.data(), table, recording_fill(table, params.data(), draws));
    const json& want = fx.at("draws");
    ASSERT_EQ(draws.size(), want.size()) << name;
    for (std::size_t i = 0; i < draws.size(); ++i) {
      const json& w = want[i];
      EXPECT_EQ(draws[i].op, w.at("op").get<std::string>()) << name << " draw " << i;
      EXPECT_EQ(draws[i].numel, w.at("numel").get<std::size_t>()) << name << " draw " << i;
      EXPECT_EQ(draws[i].a, w.at("a").get<double>()) << name << " draw " << i;  // bit for bit
      EXPECT_EQ(draws[i].b, w.at("b").get<double>()) << name << " draw " << i;
      // torch's first draw goes into nn.Embedding's own weight, which tying then replaces (null).
      if (!w.at("tensor").is_null()) {
        EXPECT_EQ(draws[i].tensor, w.at("tensor").get<std::string>()) << name << " draw " << i;
      }
    }
  }
}

TEST(InitParams, OnesZerosAndTheLastDrawOfEachTensorStay) {
  ModelConfig c;
  const ParamTable table(c);
  std::vector<float> params(table.total(), -7.0f);
  std::vector<Draw> draws;
  init_params(params.data(), table, recording_fill(table, params.data(), draws));
  // recording_fill writes mean + std for normal draws: 0.02 everywhere but the residual
  // projections, 0.02/√(2L).
  const float residual = static_cast<float>(0.02 / std::sqrt(2.0 * c.n_layer));
  for (const ParamEntry& e : table.entries()) {
    const float want = e.init == Init::kOnes             ? 1.0f
                       : e.init == Init::kZeros          ? 0.0f
                       : e.init == Init::kNormalResidual ? residual
                                                         : 0.02f;
    for (std::size_t i = 0; i < e.size; ++i) ASSERT_EQ(params[e.offset + i], want) << e.name;
  }
}

TEST(InitParams, SeededFillGivesNanoGptsScalesAndIsDeterministic) {
  ModelConfig c;
  c.vocab_size = 96;
  c.n_layer = 3;
  c.n_embd = 128;
  const ParamTable table(c);
  std::vector<float> a(table.total()), b(table.total()), d(table.total());
  init_params(a.data(), table, seeded_fill(1337));
  init_params(b.data(), table, seeded_fill(1337));
  init_params(d.data(), table, seeded_fill(1338));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, d);
  // Sample standard deviations: within 5% of 0.02 and 0.02/√6 (n ≥ 12288 per tensor: the
  // standard error of a sample std is σ/√(2n) < 0.7%).
  for (const ParamEntry& e : table.entries()) {
    if (e.init != Init::kNormal && e.init != Init::kNormalResidual) continue;
    double s = 0, s2 = 0;
    for (std::size_t i = 0; i < e.size; ++i) s += a[e.offset + i], s2 += double(a[e.offset + i]) * a[e.offset + i];
    const double mean = s / e.size, sd = std::sqrt(s2 / e.size - mean * mean);
    const double want = e.init == Init::kNormal ? 0.02 : 0.02 / std::sqrt(6.0);
    EXPECT_NEAR(sd, want, 0.05 * want) << e.name;
    EXPECT_NEAR(mean, 0.0, 5 * want / std::sqrt(double(e.size))) << e.name;
  }
}

TEST(InitParams, AFillWithoutUniformIsRejected) {
  const ParamTable table(ModelConfig{});
  std::vector<float> params(table.total());
  InitFill fill = seeded_fill(1);
  fill.uniform = nullptr;
  EXPECT_TRUE(ThrowsNaming([&] { init_params(params.data(), table, fill); }, {"fill.uniform"}));
}

}  // namespace
}  // namespace attn::model

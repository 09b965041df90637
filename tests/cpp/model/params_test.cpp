// The parameter table in nanoGPT's state_dict names and order, and nanoGPT's initialisation
// (src/model/params.h), against the nanoGPT mirror of
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

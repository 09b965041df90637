// ModelConfig validation (src/model/config.h): every bad field named with its range, the
// parameter count of the largest allowed sizes, and the caps of a model that is run or trained.
//
// Legend: V vocab_size, T block_size, L n_layer, H n_head, C n_embd.
#include <gtest/gtest.h>

#include <climits>
#include <limits>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/params.h"
#include "test_util.h"

namespace attn::model {
namespace {

using attn_test::ThrowsNaming;

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

}  // namespace
}  // namespace attn::model

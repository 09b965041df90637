// The interpretability tools (src/model/interpret.h) against PyTorch: tests/fixtures/interpret/
// (written by tests/fixtures/make_interpret_fixtures.py with TransformerLens's definitions on a
// nanoGPT model, a lean one without biases, MLPs or LayerNorms, and Hugging Face's GPT-2 layout)
// for every kernel; the sweep's reuse of the clean prefix against whole forwards, and 1 thread
// against 2, bit for bit; bad arguments refused naming them.
//
// Legend: T tokens, L n_layer, H n_head, hs head size, C n_embd, V vocab_size, p position.
//
// Tolerances against PyTorch (float32 both sides), from the bound gpt2_test.cpp derives for the
// forward: a tensor of the forward (logits, z) within δ = 1e-6 + 4e-5·max|tensor| of torch's.
//   - probabilities and log-probabilities (and so losses, their means) move by at most twice the
//     largest logit error (softmax and log-softmax are 1-Lipschitz in the max norm, twice over a
//     row): within 2δ of the logits' δ, plus 1e-6·|value| for the last rounding;
//   - the attribution's components are dot products of forward tensors, like the logits they
//     add up to: δ over their vector (heads, MLPs, embeddings, biases, logit);
//   - rankings: a token may swap places only with one whose torch logit is within 2δ of its own.
// Each test prints the largest error it measured, as a fraction of what it allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/threads.h"
#include "model/checkpoint.h"
#include "model/gpt.h"
#include "model/inference.h"
#include "model/interpret.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;
using attn_test::json_floats;
using attn_test::json_ints;
using attn_test::ThrowsNaming;

const char* const kModels[] = {"nanogpt", "lean", "gpt2"};
const Kernel kKernels[] = {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled};

std::string interpret_path(const std::string& file) { return std::string(ATTN_FIXTURES_DIR) + "/interpret/" + file; }

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + path);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const json& fixture(const std::string& name) {
  static std::map<std::string, json> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::ifstream in(interpret_path(name + ".json"));
    if (!in) throw std::runtime_error("cannot open fixture " + interpret_path(name + ".json"));
    it = cache.emplace(name, json::parse(in)).first;
  }
  return it->second;
}

// The fixture's model, loaded once.
const Gpt& model_of(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Gpt>> models;
  std::unique_ptr<Gpt>& m = models[name];
  if (!m) {
    const json& fx = fixture(name);
    const std::vector<std::uint8_t> file = read_bytes(interpret_path(fx.at("file").get<std::string>()));
    std::string config;
    if (!fx.at("config_json").is_null()) {
      const std::vector<std::uint8_t> text = read_bytes(interpret_path(fx.at("config_json").get<std::string>()));
      config.assign(text.begin(), text.end());
    }
    m = load_checkpoint(file.data(), file.size(), {}, config);
  }
  return *m;
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

// δ of a forward tensor: 1e-6 + 4e-5·max|tensor|.
double delta_of(const std::vector<float>& tensor) { return 1e-6 + 4e-5 * max_abs(tensor); }

// Every |got − want| within allowed (+ rel·|want|); records the worst fraction of its allowance.
struct Within {
  double worst = 0.0;
  void operator()(const std::string& what, const std::vector<float>& got, const std::vector<float>& want,
                  double allowed, double rel = 0.0) {
    ASSERT_EQ(got.size(), want.size()) << what;
    std::size_t failures = 0, at = 0;
    double largest = -1.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double bound = allowed + rel * std::fabs(static_cast<double>(want[i]));
      const double fraction = std::fabs(static_cast<double>(got[i]) - want[i]) / bound;
      if (!(fraction <= 1.0)) ++failures;
      if (!(fraction <= largest)) largest = fraction, at = i;
    }
    worst = std::max(worst, largest);
    EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << want.size() << " beyond " << allowed
                            << "; worst at " << at << ": got " << got[at] << ", want " << want[at];
  }
};

std::vector<float> one(float v) { return {v}; }

// ---------------------------------------------------------------------------------------------
// 1. One head knocked out

TEST(InterpretAblation, ZeroAndMeanAblationGiveTorchsLogitsLossesAndProbabilities) {
  Within within;
  int cases = 0;
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), V = model.config().vocab_size, p = fx.at("position").get<int>();
    const std::vector<float> clean_logits = json_floats(fx.at("clean").at("logits"));
    for (const json& a : fx.at("ablations")) {
      const std::vector<float> want_logits = json_floats(a.at("logits"));
      const double delta = std::max(delta_of(clean_logits), delta_of(want_logits));
      AblationOptions options;
      options.mode = a.at("mode").get<std::string>() == "mean" ? AblationMode::kMean : AblationMode::kZero;
      options.reference = fx.at("reference").get<std::vector<int>>();
      for (Kernel kernel : kKernels) {
        options.kernel = kernel;
        HeadAblation got;
        ablate_head(got, model, tokens.data(), T, a.at("layer").get<int>(), a.at("head").get<int>(), p, true, options);
        const std::string at = std::string(name) + " " + a.at("mode").get<std::string>() + " (" +
                               std::to_string(a.at("layer").get<int>()) + ", " +
                               std::to_string(a.at("head").get<int>()) + ") " + kernel_name(kernel) + ": ";
        within(at + "clean logits", got.logits, clean_logits, delta_of(clean_logits));
        within(at + "ablated logits", got.ablated_logits, want_logits, delta);
        within(at + "clean losses", got.losses, json_floats(fx.at("clean").at("losses")), 2 * delta, 1e-6);
        within(at + "ablated losses", got.ablated_losses, json_floats(a.at("losses")), 2 * delta, 1e-6);
        within(at + "loss", one(got.loss), json_floats(fx.at("clean").at("loss")), 2 * delta, 1e-6);
        within(at + "ablated loss", one(got.ablated_loss), json_floats(a.at("loss")), 2 * delta, 1e-6);
        // The probabilities at p are the softmax of torch's row p.
        std::vector<float> row(want_logits.begin() + static_cast<std::ptrdiff_t>(p) * V,
                               want_logits.begin() + static_cast<std::ptrdiff_t>(p + 1) * V);
        within(at + "ablated probs at p", got.ablated_probs, next_token_probs(row.data(), V, SamplingOptions{}),
               2 * delta, 1e-6);
        // What replaced the head: zeros, or torch's mean over the reference
        const int hs = model.config().n_embd / model.config().n_head;
        std::vector<float> value(static_cast<std::size_t>(hs), 0.0f);
        if (options.mode == AblationMode::kMean) {
          const std::vector<float> means = json_floats(fx.at("mean_z"));
          const std::size_t from =
              (static_cast<std::size_t>(a.at("layer").get<int>()) * model.config().n_head + a.at("head").get<int>()) *
              hs;
          value.assign(means.begin() + static_cast<std::ptrdiff_t>(from),
                       means.begin() + static_cast<std::ptrdiff_t>(from + hs));
        }
        within(at + "value", got.value, value, delta_of(json_floats(fx.at("mean_z"))));
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 3 * 4 * 4);
  std::printf("  [interpret] 12 ablations × 4 kernels: worst error %.2g of the tolerance\n", within.worst);
}

TEST(InterpretAblation, MeanHeadOutputsAreTorchsMeanOfZOverTheReference) {
  Within within;
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const std::vector<int> reference = fx.at("reference").get<std::vector<int>>();
    const std::vector<float> want = json_floats(fx.at("mean_z"));
    for (Kernel kernel : kKernels) {
      within(std::string(name) + " " + kernel_name(kernel),
             mean_head_outputs(model_of(name), reference.data(), static_cast<int>(reference.size()), kernel), want,
             delta_of(want));
    }
  }
  std::printf("  [interpret] mean z, 3 models × 4 kernels: worst error %.2g of the tolerance\n", within.worst);
}

TEST(InterpretAblation, ASequenceOfOneTokenHasNoLoss) {
  const Gpt& model = model_of("nanogpt");
  const int token = 3;
  HeadAblation got;
  ablate_head(got, model, &token, 1, 0, 0, 0, false);
  EXPECT_TRUE(got.losses.empty());
  EXPECT_TRUE(std::isnan(got.loss));
  EXPECT_TRUE(std::isnan(got.ablated_loss));
  EXPECT_EQ(got.ablated_probs.size(), static_cast<std::size_t>(model.config().vocab_size));
  EXPECT_TRUE(got.logits.empty());  // not asked for
}

// ---------------------------------------------------------------------------------------------
// 2. Every head knocked out in turn

TEST(InterpretSweep, EveryHeadsLogProbAndLossAreTorchs) {
  Within within;
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
    // The ablated logits were not kept: their δ is bounded by the largest of the kept ones.
    double delta = delta_of(json_floats(fx.at("clean").at("logits")));
    for (const json& a : fx.at("ablations")) delta = std::max(delta, delta_of(json_floats(a.at("logits"))));
    for (const char* mode : {"zero", "mean"}) {
      SweepOptions options;
      options.ablation.mode = std::string(mode) == "mean" ? AblationMode::kMean : AblationMode::kZero;
      options.ablation.reference = fx.at("reference").get<std::vector<int>>();
      for (bool loss : {false, true}) {
        options.loss = loss;
        for (Kernel kernel : kKernels) {
          options.ablation.kernel = kernel;
          AblationSweep got;
          ablation_sweep(got, model, tokens.data(), T, p, c, options);
          const std::string at = std::string(name) + " " + mode + (loss ? " with loss " : " ") + kernel_name(kernel);
          within(at + " clean log p", one(got.log_prob), json_floats(fx.at("clean").at("log_prob")), 2 * delta, 1e-6);
          within(at + " log p", got.ablated_log_prob, json_floats(fx.at("sweep").at(mode).at("log_prob")), 2 * delta,
                 1e-6);
          if (loss) {
            within(at + " clean loss", one(got.loss), json_floats(fx.at("clean").at("loss")), 2 * delta, 1e-6);
            within(at + " loss", got.ablated_loss, json_floats(fx.at("sweep").at(mode).at("loss")), 2 * delta, 1e-6);
          } else {
            EXPECT_TRUE(got.ablated_loss.empty()) << at;
            EXPECT_TRUE(std::isnan(got.loss)) << at;
          }
        }
      }
    }
  }
  std::printf("  [interpret] sweeps, 3 models × zero/mean × ±loss × 4 kernels: worst error %.2g of the tolerance\n",
              within.worst);
}

TEST(InterpretSweep, ReusingTheCleanPrefixGivesTheWholeForwardsBitsWithFewerRows) {
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const ModelConfig& cfg = model.config();
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
    for (Kernel kernel : kKernels) {
      for (bool loss : {false, true}) {
        for (AblationMode mode : {AblationMode::kZero, AblationMode::kMean}) {
          SweepOptions options;
          options.ablation.mode = mode, options.ablation.kernel = kernel, options.loss = loss;
          options.ablation.reference = fx.at("reference").get<std::vector<int>>();
          AblationSweep reused, whole;
          ablation_sweep(reused, model, tokens.data(), T, p, c, options);
          options.reuse = false;
          ablation_sweep(whole, model, tokens.data(), T, p, c, options);
          const std::string at = std::string(name) + " " + kernel_name(kernel) + " " + ablation_mode_name(mode) +
                                 (loss ? " with loss" : "");
          EXPECT_EQ(reused.ablated_log_prob, whole.ablated_log_prob) << at;
          EXPECT_EQ(reused.ablated_loss, whole.ablated_loss) << at;
          EXPECT_EQ(reused.log_prob, whole.log_prob) << at;
          // rows × blocks: L·H·n·L whole, H·n·(L + (L − 1) + … + 1) reused
          const long long n = loss ? T : p + 1, L = cfg.n_layer, H = cfg.n_head;
          EXPECT_EQ(whole.rows_run, L * H * n * L) << at;
          EXPECT_EQ(reused.rows_run, H * n * L * (L + 1) / 2) << at;
        }
      }
    }
  }
}

TEST(InterpretSweep, ChosenBlocksAreSweptAloneWithTheSameBits) {
  const json& fx = fixture("nanogpt");
  const Gpt& model = model_of("nanogpt");
  const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
  const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
  const int H = model.config().n_head;
  SweepOptions options;
  options.loss = true;
  AblationSweep all, one;
  ablation_sweep(all, model, tokens.data(), T, p, c, options);
  EXPECT_EQ(all.layers, (std::vector<int>{0, 1, 2}));
  options.layers = {1};
  ablation_sweep(one, model, tokens.data(), T, p, c, options);
  EXPECT_EQ(one.layers, options.layers);
  EXPECT_EQ(one.log_prob, all.log_prob);
  for (int l = 0; l < 3; ++l)
    for (int h = 0; h < H; ++h) {
      const std::size_t at = static_cast<std::size_t>(l) * H + h;
      if (l == 1) {
        EXPECT_EQ(one.ablated_log_prob[at], all.ablated_log_prob[at]);
        EXPECT_EQ(one.ablated_loss[at], all.ablated_loss[at]);
      } else {
        EXPECT_TRUE(std::isnan(one.ablated_log_prob[at]) && std::isnan(one.ablated_loss[at])) << l << ", " << h;
      }
    }
}

TEST(InterpretSweep, ThePredictionAtPFromRowsUpToPIsTheWholeSequences) {
  // Without the loss the sweep runs rows 0 … p only: the prediction at p cannot see later tokens,
  // so it is the same number — the same bits with the reference, f32x4 and tiled kernels (a row's
  // keys after p add exact zeros, lane by lane); Eigen's reductions over p + 1 rather than T keys
  // round differently, within a thousandth of the forward's δ.
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), c = fx.at("token").get<int>();
    const double delta = delta_of(json_floats(fx.at("clean").at("logits")));
    for (Kernel kernel : kKernels) {
      for (int p = 0; p < T; ++p) {
        SweepOptions options;
        options.ablation.kernel = kernel;
        AblationSweep rows_to_p, all_rows;
        ablation_sweep(rows_to_p, model, tokens.data(), T, p, c, options);
        options.loss = true;
        ablation_sweep(all_rows, model, tokens.data(), T, p, c, options);
        const std::string at = std::string(name) + " " + kernel_name(kernel) + " p = " + std::to_string(p);
        if (kernel == Kernel::kEigen) {
          Within within;
          within(at, rows_to_p.ablated_log_prob, all_rows.ablated_log_prob, 1e-3 * delta, 1e-6);
          within(at, one(rows_to_p.log_prob), one(all_rows.log_prob), 1e-3 * delta, 1e-6);
        } else {
          EXPECT_EQ(rows_to_p.ablated_log_prob, all_rows.ablated_log_prob) << at;
          EXPECT_EQ(rows_to_p.log_prob, all_rows.log_prob) << at;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Direct logit attribution

std::vector<float> attribution_vector(const LogitAttribution& a) {
  std::vector<float> v = a.heads;
  v.insert(v.end(), a.mlps.begin(), a.mlps.end());
  for (float x : {a.embed, a.pos_embed, a.attention_bias, a.ln_bias, a.logit}) v.push_back(x);
  return v;
}
std::vector<float> attribution_vector(const json& a) {
  std::vector<float> v = json_floats(a.at("heads"));
  for (const char* k : {"mlps", "embed", "pos_embed", "attention_bias", "ln_bias", "logit"}) {
    const std::vector<float> part = json_floats(a.at(k));
    v.insert(v.end(), part.begin(), part.end());
  }
  return v;
}

TEST(InterpretAttribution, EveryComponentIsTorchsAndTheyAddUpToTheLogit) {
  Within within, sums;
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
    const int other = fx.at("other").get<int>();
    for (Kernel kernel : kKernels) {
      for (const char* which : {"attribution", "attribution_diff"}) {
        const bool diff = std::string(which) == "attribution_diff";
        LogitAttribution got;
        attribute_logit(got, model, tokens.data(), T, p, c, diff ? other : -1, kernel);
        const std::string at = std::string(name) + " " + which + " " + kernel_name(kernel);
        const std::vector<float> want = attribution_vector(fx.at(which));
        within(at, attribution_vector(got), want, delta_of(want));
        within(at + " scale", one(got.scale), json_floats(fx.at(which).at("scale")), 1e-6, 4e-5);
        EXPECT_EQ(got.heads.size(), static_cast<std::size_t>(model.config().n_layer * model.config().n_head)) << at;
        EXPECT_EQ(got.mlps.size(), model.config().mlp ? static_cast<std::size_t>(model.config().n_layer) : 0u) << at;
        // Σ components + ln_bias = the logit: the frozen scale makes the final LayerNorm linear.
        // Only the rounding of the forward's float stream and logit stays (δ of the logit's size).
        sums(at + " sum", one(got.total + got.ln_bias), one(got.logit), delta_of(want));
      }
      if (!model.config().bias) {
        LogitAttribution got;
        attribute_logit(got, model, tokens.data(), T, p, c, -1, kernel);
        EXPECT_EQ(got.attention_bias, 0.0f);
        EXPECT_EQ(got.ln_bias, 0.0f);
      }
    }
  }
  std::printf(
      "  [interpret] attribution, 3 models × ±difference × 4 kernels: worst error %.2g of the tolerance; "
      "components summed against the logit: %.2g\n",
      within.worst, sums.worst);
}

TEST(InterpretAttribution, TheDifferenceIsTheDifferenceOfTheTwoAttributions) {
  const json& fx = fixture("gpt2");
  const Gpt& model = model_of("gpt2");
  const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
  const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>();
  const int c = fx.at("token").get<int>(), other = fx.at("other").get<int>();
  LogitAttribution a, b, d;
  attribute_logit(a, model, tokens.data(), T, p, c);
  attribute_logit(b, model, tokens.data(), T, p, other);
  attribute_logit(d, model, tokens.data(), T, p, c, other);
  const std::vector<float> va = attribution_vector(a), vb = attribution_vector(b), vd = attribution_vector(d);
  std::vector<float> difference(va.size());
  for (std::size_t i = 0; i < va.size(); ++i) difference[i] = va[i] - vb[i];
  Within within;  // each side rounded to float once: 2 ulps of the larger
  within("c - c'", vd, difference, 1e-6, 4e-7 * 4);
}

// ---------------------------------------------------------------------------------------------
// 4. The logit lens

TEST(InterpretLens, TopTokensProbabilitiesAndTheChosenTokensRankAreTorchs) {
  Within probs_within, rank_slack;
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const int V = model.config().vocab_size, L = model.config().n_layer;
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
    const json& lens = fx.at("lens");
    const std::vector<float> logits = json_floats(lens.at("logits"));  // (L + 1, T, V)
    const double delta = delta_of(logits);
    const std::vector<int> want_tokens = json_ints(lens.at("top_tokens"));
    const std::vector<float> want_probs = json_floats(lens.at("top_probs"));
    const int k = lens.at("k").get<int>();
    for (Kernel kernel : kKernels) {
      LensOptions options;
      options.k = k, options.position = p, options.token = c, options.kernel = kernel;
      LogitLens got;
      logit_lens(got, model, tokens.data(), T, options);
      const std::string at = std::string(name) + " " + kernel_name(kernel);
      ASSERT_EQ(got.top_tokens.size(), want_tokens.size()) << at;
      // A token may differ from torch's only where torch's logits of the two are within 2δ.
      for (std::size_t i = 0; i < want_tokens.size(); ++i) {
        if (got.top_tokens[i] == want_tokens[i]) continue;
        const std::size_t row = i / static_cast<std::size_t>(k) * V;
        EXPECT_LE(std::fabs(logits[row + got.top_tokens[i]] - logits[row + want_tokens[i]]), 2 * delta)
            << at << " top token " << i << ": " << got.top_tokens[i] << ", torch " << want_tokens[i];
      }
      probs_within(at + " top probs", got.top_probs, want_probs, 2 * delta, 1e-6);
      probs_within(at + " token probs", got.token_probs, json_floats(lens.at("token_probs")), 2 * delta, 1e-6);
      probs_within(at + " token logits", got.token_logits, json_floats(lens.at("token_logits")), delta);
      const std::vector<int> want_ranks = lens.at("token_ranks").get<std::vector<int>>();
      for (int l = 0; l <= L; ++l) {
        // The rank may differ by the tokens whose torch logit is within 2δ of c's.
        const float* row = logits.data() + (static_cast<std::size_t>(l) * T + p) * V;
        int near = 0;
        for (int v = 0; v < V; ++v) near += v != c && std::fabs(row[v] - row[c]) <= 2 * delta;
        EXPECT_LE(std::abs(got.token_ranks[l] - want_ranks[l]), near) << at << " rank at layer " << l;
        rank_slack.worst =
            std::max(rank_slack.worst, static_cast<double>(std::abs(got.token_ranks[l] - want_ranks[l])));
      }
    }
  }
  std::printf(
      "  [interpret] logit lens, 3 models × 4 kernels: probabilities' worst error %.2g of the tolerance; "
      "largest rank difference %g\n",
      probs_within.worst, rank_slack.worst);
}

TEST(InterpretLens, AfterTheLastBlockTheLensIsTheModelsOwnLogitsBitForBit) {
  for (const char* name : kModels) {
    const json& fx = fixture(name);
    const Gpt& model = model_of(name);
    const int V = model.config().vocab_size, L = model.config().n_layer;
    const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
    const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
    for (Kernel kernel : kKernels) {
      CaptureRequest request;
      request.qkv = request.scores = request.weights = request.residual = false;
      request.logits = LogitRows::kAll;
      const SequenceCapture trace = trace_sequence(model, tokens, request, kernel);
      LensOptions options;
      options.k = 3, options.position = p, options.token = c, options.kernel = kernel;
      LogitLens lens;
      logit_lens(lens, model, tokens.data(), T, options);
      const std::string at = std::string(name) + " " + kernel_name(kernel);
      EXPECT_EQ(lens.token_logits[static_cast<std::size_t>(L)], trace.logits[static_cast<std::size_t>(p) * V + c])
          << at;
      for (int t = 0; t < T; ++t) {
        std::vector<float> probs = next_token_probs(trace.logits.data() + static_cast<std::size_t>(t) * V, V, {});
        const std::vector<int> top = top_tokens(probs, 3);
        for (int j = 0; j < 3; ++j) {
          const std::size_t i = (static_cast<std::size_t>(L) * T + t) * 3 + j;
          EXPECT_EQ(lens.top_tokens[i], top[static_cast<std::size_t>(j)]) << at << " position " << t;
        }
      }
    }
  }
}

TEST(InterpretLens, ChosenPositionsAreReadAloneAndInOrder) {
  const json& fx = fixture("nanogpt");
  const Gpt& model = model_of("nanogpt");
  const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
  const int T = static_cast<int>(tokens.size()), L = model.config().n_layer, k = 4;
  LensOptions all;
  all.k = k;
  LogitLens every, some;
  logit_lens(every, model, tokens.data(), T, all);
  LensOptions two = all;
  two.positions = {2, 9};
  logit_lens(some, model, tokens.data(), T, two);
  EXPECT_EQ(some.positions, two.positions);
  EXPECT_TRUE(some.token_ranks.empty());
  for (int l = 0; l <= L; ++l)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < k; ++j) {
        const std::size_t from = (static_cast<std::size_t>(l) * T + two.positions[i]) * k + j;
        const std::size_t to = (static_cast<std::size_t>(l) * 2 + i) * k + j;
        EXPECT_EQ(some.top_tokens[to], every.top_tokens[from]);
        EXPECT_EQ(some.top_probs[to], every.top_probs[from]);
      }
}

// ---------------------------------------------------------------------------------------------
// Threads, errors

class ThreadCount {
 public:
  explicit ThreadCount(int count) : previous_(thread_count()) { set_thread_count(count); }
  ~ThreadCount() { set_thread_count(previous_); }

 private:
  int previous_;
};

TEST(InterpretThreads, OneAndTwoThreadsGiveTheSameBits) {
  // GPT-2's fixture model at a size where the products split into tiles over threads.
  const json& fx = fixture("gpt2");
  const Gpt& model = model_of("gpt2");
  const std::vector<int> tokens = fx.at("tokens").get<std::vector<int>>();
  const int T = static_cast<int>(tokens.size()), p = fx.at("position").get<int>(), c = fx.at("token").get<int>();
  struct Run {
    HeadAblation ablation;
    AblationSweep sweep;
    LogitAttribution attribution;
    LogitLens lens;
  };
  for (Kernel kernel : kKernels) {
    Run runs[2];
    for (int threads : {1, 2}) {
      ThreadCount count(threads);
      Run& r = runs[threads - 1];
      AblationOptions mean;
      mean.mode = AblationMode::kMean, mean.kernel = kernel;
      mean.reference = fx.at("reference").get<std::vector<int>>();
      ablate_head(r.ablation, model, tokens.data(), T, 1, 2, p, true, mean);
      SweepOptions sweep;
      sweep.ablation = mean, sweep.loss = true;
      ablation_sweep(r.sweep, model, tokens.data(), T, p, c, sweep);
      attribute_logit(r.attribution, model, tokens.data(), T, p, c, fx.at("other").get<int>(), kernel);
      LensOptions lens;
      lens.position = p, lens.token = c, lens.kernel = kernel;
      logit_lens(r.lens, model, tokens.data(), T, lens);
    }
    const std::string at = kernel_name(kernel);
    EXPECT_EQ(runs[0].ablation.ablated_logits, runs[1].ablation.ablated_logits) << at;
    EXPECT_EQ(runs[0].ablation.ablated_losses, runs[1].ablation.ablated_losses) << at;
    EXPECT_EQ(runs[0].sweep.ablated_log_prob, runs[1].sweep.ablated_log_prob) << at;
    EXPECT_EQ(runs[0].sweep.ablated_loss, runs[1].sweep.ablated_loss) << at;
    EXPECT_EQ(attribution_vector(runs[0].attribution), attribution_vector(runs[1].attribution)) << at;
    EXPECT_EQ(runs[0].lens.top_tokens, runs[1].lens.top_tokens) << at;
    EXPECT_EQ(runs[0].lens.top_probs, runs[1].lens.top_probs) << at;
    EXPECT_EQ(runs[0].lens.token_probs, runs[1].lens.token_probs) << at;
  }
}

TEST(InterpretErrors, BadArgumentsAreRefusedNamingThem) {
  const Gpt& model = model_of("nanogpt");
  const ModelConfig& cfg = model.config();  // L 3, H 3, V 97, block_size 32
  const std::vector<int> tokens = fixture("nanogpt").at("tokens").get<std::vector<int>>();
  const int T = static_cast<int>(tokens.size());
  std::vector<int> bad_token = tokens;
  bad_token[3] = cfg.vocab_size;
  const std::vector<int> too_long(static_cast<std::size_t>(cfg.block_size) + 1, 1);
  HeadAblation ablation;
  AblationSweep sweep;
  LogitAttribution attribution;
  LogitLens lens;
  auto ablate = [&](const int* t, int n, int layer, int head, int position, const AblationOptions& o = {}) {
    return [&, t, n, layer, head, position, o] { ablate_head(ablation, model, t, n, layer, head, position, false, o); };
  };
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), 0, 0, 0, 0), {"tokens: expected 1 to block_size = 32", "got 0"}));
  EXPECT_TRUE(ThrowsNaming(ablate(nullptr, 3, 0, 0, 0), {"tokens: required"}));
  EXPECT_TRUE(ThrowsNaming(ablate(too_long.data(), 33, 0, 0, 0), {"tokens: expected 1 to block_size", "got 33"}));
  EXPECT_TRUE(ThrowsNaming(ablate(bad_token.data(), T, 0, 0, 0), {"tokens[3]: 97 is not a token id"}));
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, 3, 0, 0), {"layer: expected 0 ≤ layer < n_layer = 3, got 3"}));
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, -1, 0, 0), {"layer:", "got -1"}));
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, 0, 3, 0), {"head: expected 0 ≤ head < n_head = 3, got 3"}));
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, 0, 0, T), {"position: expected 0 ≤ position < T = 12, got 12"}));
  AblationOptions mean;
  mean.mode = AblationMode::kMean;
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, 0, 0, 0, mean),
                           {"reference: mean ablation needs a reference text", "got 0"}));
  mean.reference = too_long;
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, 0, 0, 0, mean), {"reference: expected 1 to block_size", "got 33"}));
  mean.reference = bad_token;
  EXPECT_TRUE(ThrowsNaming(ablate(tokens.data(), T, 0, 0, 0, mean), {"reference[3]: 97 is not a token id"}));
  EXPECT_TRUE(ThrowsNaming([&] { mean_head_outputs(model, tokens.data(), 0); }, {"reference: expected 1 to"}));

  EXPECT_TRUE(ThrowsNaming([&] { ablation_sweep(sweep, model, tokens.data(), T, T, 0); }, {"position:", "got 12"}));
  EXPECT_TRUE(ThrowsNaming([&] { ablation_sweep(sweep, model, tokens.data(), T, 0, 97); },
                           {"token: 97 is not a token id; expected 0 ≤ id < vocab_size = 97"}));
  EXPECT_TRUE(ThrowsNaming([&] { ablation_sweep(sweep, model, tokens.data(), T, 0, -1); }, {"token: -1"}));
  EXPECT_TRUE(ThrowsNaming([&] { ablation_sweep(sweep, model, tokens.data(), 0, 0, 0); }, {"tokens:", "got 0"}));
  SweepOptions blocks;
  blocks.layers = {0, 3};
  EXPECT_TRUE(ThrowsNaming([&] { ablation_sweep(sweep, model, tokens.data(), T, 0, 0, blocks); },
                           {"layers[1]: 3 — expected ascending, distinct blocks in [0, 3)"}));
  blocks.layers = {1, 1};
  EXPECT_TRUE(ThrowsNaming([&] { ablation_sweep(sweep, model, tokens.data(), T, 0, 0, blocks); }, {"layers[1]: 1"}));

  EXPECT_TRUE(ThrowsNaming([&] { attribute_logit(attribution, model, tokens.data(), T, -1, 0); }, {"position:"}));
  EXPECT_TRUE(ThrowsNaming([&] { attribute_logit(attribution, model, tokens.data(), T, 0, 97); }, {"token: 97"}));
  EXPECT_TRUE(ThrowsNaming([&] { attribute_logit(attribution, model, tokens.data(), T, 0, 1, 97); }, {"other: 97"}));
  EXPECT_TRUE(ThrowsNaming([&] { attribute_logit(attribution, model, tokens.data(), T, 0, 1, -2); }, {"other: -2"}));

  LensOptions o;
  o.k = 0;
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"k: expected 1 ≤ k ≤ 97", "got 0"}));
  o.k = 98;
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"k:", "got 98"}));
  o.k = 5, o.positions = {3, 3};
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"positions[1]: 3", "ascending"}));
  o.positions = {12};
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"positions[0]: 12", "[0, 12)"}));
  o.positions = {}, o.position = 2;
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"token: required with position 2"}));
  o.token = 5, o.position = 12;
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"position:", "got 12"}));
  o.token = 97, o.position = 2;
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), T, o); }, {"token: 97"}));
  EXPECT_TRUE(ThrowsNaming([&] { logit_lens(lens, model, tokens.data(), 0, {}); }, {"tokens:", "got 0"}));
}

TEST(InterpretErrors, BadForwardEditsAreRefusedNamingThem) {
  const Gpt& model = model_of("nanogpt");
  const std::vector<int> tokens = fixture("nanogpt").at("tokens").get<std::vector<int>>();
  const int T = static_cast<int>(tokens.size());
  CaptureRequest request;
  SequenceCapture out;
  const std::vector<float> stream(static_cast<std::size_t>(T) * model.config().n_embd, 0.5f);
  auto append = [&](const ForwardEdits& edits, int cached = 0) {
    return [&, edits, cached] {
      CachedSequence sequence(model, T + cached, Kernel::kSimd);
      if (cached) sequence.append(tokens.data(), cached, request, out);
      sequence.append(tokens.data(), T, request, out, &edits);
    };
  };
  ForwardEdits e;
  e.first_layer = 4;
  EXPECT_TRUE(ThrowsNaming(append(e), {"first_layer: expected 0 ≤ first_layer ≤ n_layer = 3, got 4"}));
  e.first_layer = 1;
  EXPECT_TRUE(ThrowsNaming(append(e), {"stream: required"}));
  e.stream = stream.data();
  EXPECT_TRUE(ThrowsNaming(append(e, 2), {"first_layer: a forward from block 1 needs an empty cache; 2 tokens"}));
  e.heads.push_back({0, 0, nullptr});
  EXPECT_TRUE(ThrowsNaming(append(e), {"heads[0].layer: expected 1 ≤ layer < n_layer = 3", "got 0"}));
  e.heads[0] = {1, 3, nullptr};
  EXPECT_TRUE(ThrowsNaming(append(e), {"heads[0].head: expected 0 ≤ head < n_head = 3, got 3"}));
  // And a good one runs, leaving the cache empty: its blocks below did not fill it.
  e.heads[0] = {1, 2, nullptr};
  CachedSequence sequence(model, T, Kernel::kSimd);
  EXPECT_NO_THROW(sequence.append(tokens.data(), T, request, out, &e));
  EXPECT_EQ(sequence.length(), 0);
  CaptureRequest mlp_out;
  mlp_out.mlp_out = true;
  const Gpt& lean = model_of("lean");
  EXPECT_TRUE(ThrowsNaming([&] { trace_sequence(lean, {1, 2}, mlp_out); }, {"mlp_out: this model has no MLP"}));
}

}  // namespace
}  // namespace attn::model

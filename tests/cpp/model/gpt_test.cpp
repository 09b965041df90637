// The model of src/model/gpt.h: initialisation and every gradient against PyTorch, the double
// reference against central finite differences, the float kernels against each other, the
// training step (20 AdamW steps against torch; divergence leaves everything as it was), and
// sampling.
//
// Legend: B batch, T tokens, N = B·T, C n_embd, H n_head, V vocab_size, L n_layer, P parameters.
//
// Tolerances, and where they come from:
//   - finite differences (double): central differences with h = 1e-5 on losses ≲ 10 have
//     truncation error h²/6·|f'''| ≲ 1e-9 and rounding error ≲ ε·|loss|/h ≈ 2e-10, so
//     |numeric − analytic| ≤ 1e-7 + 1e-6·|analytic| holds with 100× to spare; a missing or wrong
//     term gives errors of order |analytic|.
//   - float kernels against the double reference: every float path computes the same sums in
//     float32, each within γ_K·Σ|terms| of the exact value (γ_K = K·u/(1 − K·u), u = 2⁻²⁴); the
//     longest here is K = 4C = 64 (γ ≈ 4e-6), and a gradient passes through a few such products
//     whose terms are of the tensor's own scale, so |float − double| ≤ 1e-6 + 2e-5·max|tensor|
//     per tensor (measured: at most 1.5e-6 relative).
//   - PyTorch (float32 both sides): the same bound for each side, so twice it: |ours − torch| ≤
//     1e-6 + 4e-5·max|tensor|, and the loss within 1e-5 relative. Each test prints the largest
//     error it measured.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/torch_random.h"
#include "model/gpt.h"
#include "model/inference.h"
#include "model/layers.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;
using attn_test::ThrowsNaming;

using attn_test::config_from_json;

// The fixture's named parameters into the table's buffer.
std::vector<float> params_from(const ParamTable& table, const json& named) {
  std::vector<float> params(table.total(), 0.0f);
  for (const ParamEntry& e : table.entries()) {
    const std::vector<float> v = attn_test::json_floats(named.at(e.name));
    EXPECT_EQ(v.size(), e.size) << e.name;
    std::copy(v.begin(), v.end(), params.begin() + static_cast<long>(e.offset));
  }
  return params;
}

// |got − want| ≤ abs + rel·max|want| over one tensor; returns the largest |got − want| / max|want|.
struct ScaledCompare {
  double abs, rel;
  double worst = 0.0;  // largest error relative to the tensor's scale
  template <typename A, typename B>
  void operator()(const std::string& what, const A* got, const B* want, std::size_t n) {
    double scale = 0.0;
    for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    const double allowed = abs + rel * scale;
    std::size_t failures = 0, at = 0;
    double largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
      if (!(err <= allowed)) ++failures;
      if (!(err <= largest)) largest = err, at = i;
    }
    worst = std::max(worst, scale > 0 ? largest / scale : largest);
    EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << n << " beyond " << allowed << "; worst at " << at
                            << ": got " << got[at] << ", want " << want[at];
  }
};

// ---------------------------------------------------------------------------------------------
// Initialisation

TEST(GptInit, EqualsTorchsGptAfterManualSeedBitForBit) {
  const json fx = attn_test::load_training_json("gpt_step_tiny");
  const Gpt model(config_from_json(fx.at("config")), 1337);
  const std::vector<float> want = params_from(model.table(), fx.at("params"));
  ASSERT_EQ(model.params().size(), want.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < want.size(); ++i) differ += model.params()[i] != want[i];
  EXPECT_EQ(differ, 0u) << "of " << want.size() << " parameters";
}

// ---------------------------------------------------------------------------------------------
// Against PyTorch: one batch, loss and every gradient at step 0.

void expect_step_matches_torch(const std::string& name) {
  const json fx = attn_test::load_training_json(name);
  const ModelConfig cfg = config_from_json(fx.at("config"));
  const std::vector<int> idx = attn_test::json_ints(fx.at("idx")), targets = attn_test::json_ints(fx.at("targets"));
  const int T = cfg.block_size, B = static_cast<int>(idx.size()) / T;
  for (Kernel kernel : {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled}) {
    Gpt model(cfg);
    model.params() = params_from(model.table(), fx.at("params"));
    model.set_kernel(kernel);
    const float loss = model.forward({idx.data(), targets.data(), B, T});
    model.backward();
    const float want_loss = attn_test::json_floats(fx.at("loss"))[0];
    EXPECT_NEAR(loss, want_loss, 1e-5 * std::fabs(want_loss)) << name << " " << kernel_name(kernel);
    ScaledCompare compare{1e-6, 4e-5};
    const std::vector<float> logits = attn_test::json_floats(fx.at("logits"));
    compare(name + " logits", model.logits().data(), logits.data(), logits.size());
    for (const ParamEntry& e : model.table().entries()) {
      const std::vector<float> want = attn_test::json_floats(fx.at("grads").at(e.name));
      compare(name + " grad " + e.name + " (" + kernel_name(kernel) + ")", model.grads().data() + e.offset, want.data(),
              e.size);
    }
    std::printf("  [torch] %-22s %-10s loss %.6f (torch %.6f), worst |ours - torch| / max|tensor| = %.2g\n",
                name.c_str(), kernel_name(kernel), loss, want_loss, compare.worst);
  }
}

TEST(GptAgainstTorch, TinyStepZeroLossLogitsAndEveryGradientAreTorchs) { expect_step_matches_torch("gpt_step_tiny"); }

const char* const kTrainFixtures[] = {"attention_only_1", "attention_only_2", "full_bias", "full_nobias",
                                      "full_dropout"};

// One batch of a gpt_train fixture: idx and targets are (steps, B, T).
Batch fixture_batch(const std::vector<int>& idx, const std::vector<int>& targets, int step, int B, int T) {
  const std::size_t at = static_cast<std::size_t>(step) * B * T;
  return {idx.data() + at, targets.data() + at, B, T};
}

TEST(GptAgainstTorch, InitialWeightsOfEveryTrainingConfigAreTorchs) {
  for (const char* name : kTrainFixtures) {
    const json fx = attn_test::load_training_json(std::string("gpt_train_") + name);
    const Gpt model(config_from_json(fx.at("config")), fx.at("train").at("seed").get<std::uint64_t>());
    EXPECT_TRUE(model.params() == params_from(model.table(), fx.at("params"))) << name;
  }
}

TEST(GptAgainstTorch, StepZeroOfEveryTrainingConfigIsTorchsWithEveryKernel) {
  for (const char* name : kTrainFixtures) {
    const json fx = attn_test::load_training_json(std::string("gpt_train_") + name);
    const ModelConfig cfg = config_from_json(fx.at("config"));
    const json& train = fx.at("train");
    const std::vector<int> idx = attn_test::json_ints(fx.at("idx")), targets = attn_test::json_ints(fx.at("targets"));
    const int B = train.at("batch"), T = cfg.block_size;
    const json& step0 = fx.at("step0");
    for (Kernel kernel : {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled}) {
      if (kernel == Kernel::kTiled && cfg.dropout > 0) continue;  // the tiled kernel cannot drop weights
      Gpt model(cfg);
      model.params() = params_from(model.table(), fx.at("params"));
      model.set_kernel(kernel);
      ForwardOptions o;
      o.training = true;
      o.dropout_seed = train.at("dropout_seed").get<std::uint64_t>();
      const float loss = model.forward(fixture_batch(idx, targets, 0, B, T), o);
      model.backward();
      const float want_loss = attn_test::json_floats(step0.at("loss"))[0];
      EXPECT_NEAR(loss, want_loss, 1e-5 * std::fabs(want_loss)) << name << " " << kernel_name(kernel);
      ScaledCompare compare{1e-6, 4e-5};
      const std::vector<float> logits = attn_test::json_floats(step0.at("logits"));
      compare(std::string(name) + " logits", model.logits().data(), logits.data(), logits.size());
      for (const ParamEntry& e : model.table().entries()) {
        const std::vector<float> want = attn_test::json_floats(step0.at("grads").at(e.name));
        compare(std::string(name) + " grad " + e.name + " (" + kernel_name(kernel) + ")",
                model.grads().data() + e.offset, want.data(), e.size);
      }
      std::printf("  [torch] %-18s %-10s step 0 loss %.6f (torch %.6f), worst |ours - torch| / max|tensor| = %.2g\n",
                  name, kernel_name(kernel), loss, want_loss, compare.worst);
    }
  }
}

// 20 steps of nanoGPT's loop (AdamW, warmup + cosine, clipping) track torch's loss curve and end
// on its weights. Tolerance: an AdamW update is lr·m̂/(√v̂ + eps), scale-free in the gradient, so
// a relative gradient error δ moves an update by ≈ δ·lr, and 20 steps move a weight by
// ≲ Σ lr_k·δ = 0.1125·δ; with δ ≤ 4e-5 (the step-0 bound) that is ≤ 5e-6: every final weight
// within 1e-5, the loss of every step within 1e-5 relative and the gradient norm within 1e-4
// relative (measured natively: 1.7e-6, 4e-7 and 1.5e-5). One exception: the key part of c_attn.bias (its
// columns [C, 2C)) has a gradient that is exactly zero in exact arithmetic (q·b_k adds the same
// amount to every score of a row, and softmax ignores that), so both implementations update it
// by their float noise amplified by AdamW's normalisation, up to lr per step in either
// direction: it is held to |Δ| ≤ Σ lr_k, and cannot move the loss, which the curve shows.
TEST(GptAgainstTorch, TwentyAdamWStepsWithClippingAndScheduleTrackTorch) {
  for (const char* name : kTrainFixtures) {
    const json fx = attn_test::load_training_json(std::string("gpt_train_") + name);
    const ModelConfig cfg = config_from_json(fx.at("config"));
    const json& train = fx.at("train");
    const std::vector<int> idx = attn_test::json_ints(fx.at("idx")), targets = attn_test::json_ints(fx.at("targets"));
    const int B = train.at("batch"), T = cfg.block_size, steps = train.at("steps");
    StepOptions o;
    o.adamw.beta1 = train.at("beta1"), o.adamw.beta2 = train.at("beta2"), o.adamw.eps = train.at("eps");
    o.adamw.weight_decay = train.at("weight_decay");
    o.clip = train.at("clip");
    o.schedule.decay_lr = true;
    o.schedule.learning_rate = train.at("learning_rate"), o.schedule.min_lr = train.at("min_lr");
    o.schedule.warmup_iters = train.at("warmup_iters"), o.schedule.lr_decay_iters = train.at("lr_decay_iters");
    o.seed = train.at("dropout_seed").get<std::uint64_t>();
    for (Kernel kernel : {Kernel::kReference, Kernel::kSimd}) {
      Gpt model(cfg, train.at("seed").get<std::uint64_t>());
      model.set_kernel(kernel);
      Trainer trainer(model);
      double worst_loss = 0, worst_norm = 0;
      for (int k = 0; k < steps; ++k) {
        const json& want = fx.at("steps").at(k);
        const StepResult r = trainer.step(fixture_batch(idx, targets, k, B, T), o);
        const double want_loss = attn_test::json_floats(want.at("loss"))[0];
        const double want_norm = attn_test::json_floats(want.at("grad_norm"))[0];
        EXPECT_NEAR(r.lr, want.at("lr").get<double>(), 1e-15) << name << " step " << k;
        EXPECT_NEAR(r.loss, want_loss, 1e-5 * want_loss) << name << " step " << k;
        EXPECT_NEAR(r.grad_norm, want_norm, 1e-4 * want_norm) << name << " step " << k;
        worst_loss = std::max(worst_loss, std::fabs(r.loss - want_loss) / want_loss);
        worst_norm = std::max(worst_norm, std::fabs(r.grad_norm - want_norm) / want_norm);
      }
      const std::vector<float> final_params = params_from(model.table(), fx.at("final"));
      std::vector<bool> key_bias(final_params.size(), false);
      for (int l = 0; l < cfg.n_layer; ++l)
        if (const ParamEntry* e = model.table().block(l).c_attn_bias)
          for (int c = cfg.n_embd; c < 2 * cfg.n_embd; ++c) key_bias[e->offset + static_cast<std::size_t>(c)] = true;
      double worst_weight = 0, worst_key_bias = 0, lr_sum = 0;
      for (const json& step : fx.at("steps")) lr_sum += step.at("lr").get<double>();
      for (std::size_t i = 0; i < final_params.size(); ++i) {
        const double err = std::fabs(static_cast<double>(model.params()[i]) - final_params[i]);
        (key_bias[i] ? worst_key_bias : worst_weight) = std::max(key_bias[i] ? worst_key_bias : worst_weight, err);
      }
      EXPECT_LE(worst_weight, 1e-5) << name << " " << kernel_name(kernel);
      EXPECT_LE(worst_key_bias, lr_sum) << name << " " << kernel_name(kernel);
      std::printf(
          "  [torch] %-18s %-9s %d AdamW steps: loss within %.2g, grad norm within %.2g (relative), final weights "
          "within %.2g (key bias %.2g)\n",
          name, kernel_name(kernel), steps, worst_loss, worst_norm, worst_weight, worst_key_bias);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Finite differences in double

struct Shape {
  const char* name;
  ModelConfig cfg;
  int B, T;
  bool tiled = false;
};

std::vector<Shape> fd_shapes() {
  auto cfg = [](int V, int block, int L, int H, int C, bool bias, bool mlp, bool ln, double dropout = 0.0) {
    ModelConfig c;
    c.vocab_size = V, c.block_size = block, c.n_layer = L, c.n_head = H, c.n_embd = C;
    c.bias = bias, c.mlp = mlp, c.layer_norm = ln, c.dropout = dropout;
    return c;
  };
  return {
      {"full blocks with bias", cfg(7, 6, 2, 2, 6, true, true, true), 2, 5},
      {"full blocks without bias", cfg(5, 4, 1, 1, 4, false, true, true), 2, 4},
      {"attention only, 2 layers", cfg(6, 5, 2, 3, 6, true, false, true), 2, 5},
      {"no layer norm, no mlp, no bias", cfg(5, 4, 2, 2, 4, false, false, false), 3, 3},
      {"no layer norm with mlp", cfg(5, 4, 1, 2, 4, true, true, false), 2, 4},
      {"no layers", cfg(6, 4, 0, 1, 4, true, true, true), 2, 4},
      {"dropout 0.3 (fixed masks)", cfg(6, 5, 2, 2, 4, true, true, true, 0.3), 2, 5},
      {"tiled kernel (reference loops)", cfg(6, 9, 2, 2, 4, true, true, true), 2, 9, true},
      {"T shorter than block_size", cfg(6, 8, 1, 2, 4, true, true, true), 3, 3},
  };
}

// Random parameters of a useful size (init's 0.02 would make every gradient tiny): weights in
// ±0.5, LayerNorm weights around 1.
std::vector<double> random_params(const ParamTable& table, std::mt19937& rng) {
  std::vector<double> p(table.total());
  for (const ParamEntry& e : table.entries())
    for (std::size_t i = 0; i < e.size; ++i)
      p[e.offset + i] = (e.init == Init::kOnes ? 1.0 : 0.0) + attn_test::uniform(rng, -0.5f, 0.5f);
  return p;
}

TEST(GptFiniteDifferences, EveryParameterGradientOfTheDoubleReferenceMatchesCentralDifferences) {
  std::mt19937 rng(11);
  for (const Shape& s : fd_shapes()) {
    const ParamTable table(s.cfg);
    std::vector<double> params = random_params(table, rng);
    const int N = s.B * s.T;
    std::vector<int> idx(N), targets(N);
    for (int i = 0; i < N; ++i) {
      idx[i] = attn_test::uniform_int(rng, 0, s.cfg.vocab_size - 1);
      targets[i] = i % 4 == 1 ? -1 : attn_test::uniform_int(rng, 0, s.cfg.vocab_size - 1);
    }
    GptDropout dropout;
    if (s.cfg.dropout > 0) dropout.draw(s.cfg, s.B, s.T, 5);
    const GptDropout* masks = s.cfg.dropout > 0 ? &dropout : nullptr;
    const GptKernelsOf<double>& kernels = gpt_kernels_double(s.tiled);
    GptActivationsOf<double> acts;
    auto loss_at = [&]() {
      return gpt_forward<double>(acts, params.data(), table, idx.data(), targets.data(), s.B, s.T, kernels, masks);
    };
    loss_at();
    std::vector<double> grads(table.total(), 0.0);
    gpt_backward<double>(grads.data(), acts, params.data(), table, idx.data(), targets.data(), kernels, masks);
    const double h = 1e-5;
    double worst = 0.0;
    std::size_t failures = 0;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const double saved = params[i];
      params[i] = saved + h;
      const double up = loss_at();
      params[i] = saved - h;
      const double down = loss_at();
      params[i] = saved;
      const double numeric = (up - down) / (2 * h), err = std::fabs(numeric - grads[i]);
      worst = std::max(worst, err);
      if (!(err <= 1e-7 + 1e-6 * std::fabs(grads[i]))) {
        if (failures++ < 5) {
          std::string name = "?";
          for (const ParamEntry& e : table.entries())
            if (i >= e.offset && i < e.offset + e.size) name = e.name;
          ADD_FAILURE() << s.name << ": " << name << "[" << i << "] numeric " << numeric << ", analytic " << grads[i];
        }
      }
    }
    EXPECT_EQ(failures, 0u) << s.name;
    std::printf("  [fd] %-32s P = %4zu, largest |numeric - analytic| = %.2g\n", s.name, params.size(), worst);
  }
}

// ---------------------------------------------------------------------------------------------
// The float kernels against the double reference

TEST(GptKernels, ReferenceEigenSimdAndTiledAgreeWithTheDoubleReference) {
  std::mt19937 rng(12);
  // Sizes that break vector assumptions: widths and head sizes of 1, 3, 5, 7, T of 1 and 17.
  struct Case {
    int V, L, H, C, B, T;
    bool mlp, ln, bias;
  };
  const Case cases[] = {{11, 2, 2, 8, 2, 7, true, true, true},    {13, 1, 3, 9, 1, 17, true, true, false},
                        {7, 2, 1, 5, 3, 1, false, true, true},    {65, 2, 4, 16, 2, 16, true, true, true},
                        {17, 1, 7, 7, 2, 5, false, false, false}, {9, 3, 1, 3, 2, 67, true, false, true}};
  for (const Case& c : cases) {
    ModelConfig cfg;
    cfg.vocab_size = c.V, cfg.block_size = c.T, cfg.n_layer = c.L, cfg.n_head = c.H, cfg.n_embd = c.C;
    cfg.mlp = c.mlp, cfg.layer_norm = c.ln, cfg.bias = c.bias;
    const ParamTable table(cfg);
    const std::vector<double> exact_params = random_params(table, rng);
    const int N = c.B * c.T;
    std::vector<int> idx(N), targets(N);
    for (int i = 0; i < N; ++i) {
      idx[i] = attn_test::uniform_int(rng, 0, c.V - 1);
      targets[i] = attn_test::uniform_int(rng, 0, c.V - 1);
    }
    GptActivationsOf<double> acts;
    std::vector<double> exact(table.total(), 0.0);
    const double exact_loss = gpt_forward<double>(acts, exact_params.data(), table, idx.data(), targets.data(), c.B,
                                                  c.T, gpt_kernels_double(false));
    gpt_backward<double>(exact.data(), acts, exact_params.data(), table, idx.data(), targets.data(),
                         gpt_kernels_double(false));
    for (Kernel kernel : {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled}) {
      Gpt model(cfg);
      std::transform(exact_params.begin(), exact_params.end(), model.params().begin(),
                     [](double v) { return static_cast<float>(v); });
      model.set_kernel(kernel);
      const float loss = model.forward({idx.data(), targets.data(), c.B, c.T});
      model.backward();
      EXPECT_NEAR(loss, exact_loss, 1e-5 * std::fabs(exact_loss)) << kernel_name(kernel);
      ScaledCompare compare{1e-6, 2e-5};
      compare("logits", model.logits().data(), acts.logits.data(), acts.logits.size());
      for (const ParamEntry& e : table.entries())
        compare(e.name + " (" + kernel_name(kernel) + ")", model.grads().data() + e.offset, exact.data() + e.offset,
                e.size);
      std::printf("  [kernels] V%-3d L%d H%d C%-2d B%d T%-2d %-10s worst |float - double| / max|tensor| = %.2g\n", c.V,
                  c.L, c.H, c.C, c.B, c.T, kernel_name(kernel), compare.worst);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Batches and errors

ModelConfig char_config() {
  ModelConfig cfg;  // the char model: vocab 65, context 64, 2 layers, 4 heads, width 64
  cfg.vocab_size = 65, cfg.block_size = 64, cfg.n_layer = 2, cfg.n_head = 4, cfg.n_embd = 64;
  return cfg;
}

struct OwnedBatch {
  std::vector<int> tokens, targets;
  int B = 0, T = 0;
  Batch view() const { return {tokens.data(), targets.data(), B, T}; }
};

// web/lib/learn/tasks.js's reverse task: n digits (0–9), a bar (10), the digits backwards; the
// model reads all but the last and is scored after the bar, where the answer is determined.
// T = 2n, V ≥ 11.
OwnedBatch reverse_batch(std::mt19937& rng, int V, int B, int T) {
  const int n = T / 2, digits = std::min(V - 1, 10);
  OwnedBatch b;
  b.B = B, b.T = T;
  for (int r = 0; r < B; ++r) {
    std::vector<int> seq(n);
    for (int& t : seq) t = attn_test::uniform_int(rng, 0, digits - 1);
    seq.push_back(digits);
    for (int i = n - 1; i >= 0; --i) seq.push_back(seq[i]);
    for (int p = 0; p < T; ++p) {
      b.tokens.push_back(seq[p]);
      b.targets.push_back(p >= n ? seq[p + 1] : -1);
    }
  }
  return b;
}

TEST(GptErrors, BadBatchesNameTheArgument) {
  ModelConfig cfg;
  cfg.vocab_size = 5, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 2, cfg.n_embd = 4;
  Gpt model(cfg);
  const std::vector<int> ok = {0, 1, 2, 3, 4, 0, 1, 2}, bad = {0, 1, 5, 3}, ignored = {-1, -1, -1, -1};
  const std::vector<int> bad_target = {0, 1, -2, 3};
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), nullptr, 0, 4}); }, {"batch", "1 ≤ B"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), nullptr, 1, 5}); }, {"context", "block_size = 4", "5"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), nullptr, 1, 0}); }, {"context"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({nullptr, nullptr, 1, 4}); }, {"tokens", "required"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({bad.data(), nullptr, 1, 4}); }, {"tokens[2]", "vocab_size = 5"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), bad_target.data(), 1, 4}); }, {"targets[2]", "-2"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), ignored.data(), 1, 4}); }, {"targets", "every target"}));
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), nullptr, 1 << 22, 4}); }, {"batch", "2^26"}));
  GptCapture capture;
  capture.sequence = 2;
  ForwardOptions with_capture;
  with_capture.capture = &capture;
  EXPECT_TRUE(ThrowsNaming([&] { model.forward({ok.data(), nullptr, 2, 4}, with_capture); }, {"sequence", "B = 2"}));
  model.forward({ok.data(), nullptr, 2, 4});
  EXPECT_TRUE(ThrowsNaming([&] { model.backward(); }, {"backward", "no targets"}));

  Trainer trainer(model);
  StepOptions o;
  EXPECT_TRUE(ThrowsNaming([&] { trainer.step({ok.data(), nullptr, 2, 4}, o); }, {"targets", "required"}));
  o.clip = -1;
  EXPECT_TRUE(ThrowsNaming([&] { trainer.step({ok.data(), ok.data(), 2, 4}, o); }, {"clip"}));
  o = StepOptions{};
  o.schedule.learning_rate = std::nan("");
  EXPECT_TRUE(ThrowsNaming([&] { trainer.step({ok.data(), ok.data(), 2, 4}, o); }, {"learning_rate"}));
  o = StepOptions{};
  o.adamw.beta1 = 1;
  EXPECT_TRUE(ThrowsNaming([&] { trainer.step({ok.data(), ok.data(), 2, 4}, o); }, {"beta1"}));
  EXPECT_EQ(trainer.steps(), 0);

  ModelConfig with_dropout = cfg;
  with_dropout.dropout = 0.1;
  Gpt dropping(with_dropout);
  dropping.set_kernel(Kernel::kTiled);
  ForwardOptions training;
  training.training = true;
  EXPECT_TRUE(ThrowsNaming([&] { dropping.forward({ok.data(), ok.data(), 2, 4}, training); }, {"kernel", "tiled"}));
  EXPECT_NO_THROW(dropping.forward({ok.data(), ok.data(), 2, 4}));  // eval: no dropout, tiled is fine
}

// ---------------------------------------------------------------------------------------------
// Training

TEST(GptTrainer, SameSeedAndBatchesGiveTheSameWeightsBitForBit) {
  for (double dropout : {0.0, 0.2}) {
    ModelConfig cfg = char_config();
    cfg.vocab_size = 11, cfg.block_size = 8, cfg.n_embd = 16, cfg.dropout = dropout;
    std::vector<float> final_params[2];
    std::vector<float> losses[2];
    for (int run = 0; run < 2; ++run) {
      Gpt model(cfg, 3);
      Trainer trainer(model);
      std::mt19937 rng(4);
      StepOptions o;
      o.seed = 9;
      for (int k = 0; k < 5; ++k) {
        const OwnedBatch b = reverse_batch(rng, cfg.vocab_size, 4, 8);
        losses[run].push_back(trainer.step(b.view(), o).loss);
      }
      final_params[run] = model.params();
    }
    EXPECT_EQ(losses[0], losses[1]) << "dropout " << dropout;
    EXPECT_TRUE(final_params[0] == final_params[1]) << "dropout " << dropout;
  }
}

// Runs steps at a learning rate that diverges until one throws, checking that the throwing step
// left the weights and the optimizer's state exactly as they were.
void expect_divergence_rolls_back(OptimizerKind kind, double lr, const char* must_say, bool then_train) {
  ModelConfig cfg = char_config();
  cfg.vocab_size = 11, cfg.block_size = 8, cfg.n_embd = 16;
  Gpt model(cfg, 1);
  Trainer trainer(model);
  std::mt19937 rng(5);
  StepOptions o;
  o.optimizer = kind;
  o.sgd.momentum = 0.9;
  o.schedule.learning_rate = lr;
  o.clip = 0;
  bool threw = false;
  // The state before this step and before the previous one: a non-finite loss from finite
  // weights undoes the update that made them, back to the state before the previous step.
  struct State {
    std::vector<float> params, m, v, buf;
    long long steps = 0;
  };
  auto snapshot = [&] {
    return State{model.params(), trainer.adamw() ? trainer.adamw()->exp_avg() : std::vector<float>{},
                 trainer.adamw() ? trainer.adamw()->exp_avg_sq() : std::vector<float>{},
                 trainer.sgd() ? trainer.sgd()->momentum_buffer() : std::vector<float>{}, trainer.steps()};
  };
  State previous = snapshot();
  for (int k = 0; k < 10 && !threw; ++k) {
    const OwnedBatch b = reverse_batch(rng, cfg.vocab_size, 2, 8);
    const State before = snapshot();
    try {
      trainer.step(b.view(), o);
      previous = before;
    } catch (const Error& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find(must_say), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("diverged"), std::string::npos) << e.what();
      const bool undone = std::string(e.what()).find("the last update is undone too") != std::string::npos;
      const State& want = undone ? previous : before;
      EXPECT_TRUE(model.params() == want.params) << "the weights are not the last good ones";
      EXPECT_EQ(trainer.steps(), want.steps);
      if (trainer.adamw()) {
        EXPECT_TRUE(trainer.adamw()->exp_avg() == want.m && trainer.adamw()->exp_avg_sq() == want.v)
            << "the moments are not the last good ones";
        EXPECT_EQ(trainer.adamw()->steps(), want.steps);
      }
      if (trainer.sgd()) {
        EXPECT_TRUE(trainer.sgd()->momentum_buffer() == want.buf) << "the momentum is not the last good one";
      }
      std::printf("  [diverge] after %lld good steps: %s\n", before.steps, e.what());
    }
  }
  ASSERT_TRUE(threw) << "lr " << lr << " did not diverge";
  if (!then_train) return;  // the last good weights of a run at lr 1e10 diverge at any rate
  // Training goes on from the last good state.
  o.schedule.learning_rate = 1e-3;
  const OwnedBatch b = reverse_batch(rng, cfg.vocab_size, 2, 8);
  const StepResult r = trainer.step(b.view(), o);
  EXPECT_TRUE(std::isfinite(r.loss));
  for (float p : model.params()) ASSERT_TRUE(std::isfinite(p));
}

TEST(GptTrainer, ANonFiniteLossLeavesTheLastGoodWeightsAndAdamWState) {
  expect_divergence_rolls_back(OptimizerKind::kAdamW, 1e10, "the loss is NaN", true);
}

TEST(GptTrainer, AnUpdateToInfinityIsUndoneWithTheMomentumBuffer) {
  // float(−1e300) = −∞: the first update is non-finite, so the last good weights are the initial ones.
  expect_divergence_rolls_back(OptimizerKind::kSGD, 1e300, "the update made", true);
}

TEST(GptTrainer, SwitchingOptimizerStartsItFreshAndKeepsCounting) {
  ModelConfig cfg = char_config();
  cfg.vocab_size = 11, cfg.block_size = 8, cfg.n_embd = 16;
  Gpt model(cfg, 1);
  Trainer trainer(model);
  std::mt19937 rng(6);
  StepOptions o;
  const OwnedBatch b = reverse_batch(rng, cfg.vocab_size, 2, 8);
  trainer.step(b.view(), o);
  trainer.step(b.view(), o);
  ASSERT_TRUE(trainer.adamw());
  EXPECT_EQ(trainer.adamw()->steps(), 2);
  o.optimizer = OptimizerKind::kSGD;
  const StepResult r = trainer.step(b.view(), o);
  EXPECT_EQ(r.step, 3);
  EXPECT_FALSE(trainer.adamw());
  ASSERT_TRUE(trainer.sgd());
  EXPECT_EQ(trainer.sgd()->steps(), 1);
}

TEST(GptTrainer, AttentionOnlyTwoLayersLearnsToReverse) {
  ModelConfig cfg;
  cfg.vocab_size = 11, cfg.block_size = 8, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 32, cfg.mlp = false;
  Gpt model(cfg, 0);
  Trainer trainer(model);
  std::mt19937 rng(7);
  StepOptions o;
  o.schedule.learning_rate = 1e-2;
  o.adamw.weight_decay = 0.0;
  float loss = 0;
  for (int k = 0; k < 600; ++k) loss = trainer.step(reverse_batch(rng, cfg.vocab_size, 16, 8).view(), o).loss;
  std::printf("  [learn] reverse, attention-only 2 layers: loss %.4f after 600 steps\n", loss);
  EXPECT_LT(loss, 0.05);
}

// ---------------------------------------------------------------------------------------------
// Attention capture and sampling

TEST(GptCapture, WeightsAreTheCausalSoftmaxOfTheScaledScoresOfTheSequenceAsked) {
  ModelConfig cfg;
  cfg.vocab_size = 9, cfg.block_size = 6, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 8;
  Gpt model(cfg, 2);
  const std::vector<int> two = {1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3};
  for (Kernel kernel : {Kernel::kSimd, Kernel::kTiled}) {
    model.set_kernel(kernel);
    GptCapture second, alone;
    second.sequence = 1;
    ForwardOptions o;
    o.capture = &second;
    model.forward({two.data(), nullptr, 2, 6}, o);
    o.capture = &alone;
    model.forward({two.data() + 6, nullptr, 1, 6}, o);
    ASSERT_EQ(second.blocks.size(), 2u);
    const int H = 2, T = 6, hs = 4;
    for (std::size_t l = 0; l < 2; ++l) {
      const GptCapture::Block& c = second.blocks[l];
      EXPECT_TRUE(attn_test::ValuesNear(c.weights, alone.blocks[l].weights, {1e-6, 1e-5}, "weights"));
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < T; ++i) {
          double max = -1e30, sum = 0;
          for (int j = 0; j <= i; ++j) {
            double s = 0;
            for (int d = 0; d < hs; ++d) s += c.q[(h * T + i) * hs + d] * c.k[(h * T + j) * hs + d];
            EXPECT_NEAR(c.scores[(h * T + i) * T + j], s, 1e-6);
            max = std::max(max, s / 2.0);  // 1/√hs = 1/2
          }
          for (int j = 0; j <= i; ++j) sum += std::exp(c.scores[(h * T + i) * T + j] / 2.0 - max);
          for (int j = 0; j < T; ++j) {
            const float w = c.weights[(h * T + i) * T + j];
            if (j > i) {
              EXPECT_EQ(w, 0.0f);
            } else {
              EXPECT_NEAR(w, std::exp(c.scores[(h * T + i) * T + j] / 2.0 - max) / sum, 1e-6);
            }
          }
        }
    }
  }
}

TEST(GptGenerate, TemperatureZeroIsArgmaxAndTopKOneToo) {
  ModelConfig cfg;
  cfg.vocab_size = 9, cfg.block_size = 5, cfg.n_layer = 1, cfg.n_head = 1, cfg.n_embd = 8;
  Gpt model(cfg, 4);
  GenerateOptions greedy;
  greedy.temperature = 0;
  const std::vector<int> prompt = {3, 1};
  const std::vector<int> out = generate(model, prompt, 12, greedy);
  ASSERT_EQ(out.size(), 12u);
  // By hand: crop to the last block_size tokens, argmax of the last row.
  std::vector<int> context = prompt;
  for (int n = 0; n < 12; ++n) {
    const int T = std::min<int>(static_cast<int>(context.size()), cfg.block_size);
    model.forward({context.data() + context.size() - T, nullptr, 1, T});
    const float* row = model.logits().data() + (T - 1) * cfg.vocab_size;
    const int next = static_cast<int>(std::max_element(row, row + cfg.vocab_size) - row);
    EXPECT_EQ(out[n], next) << "token " << n;
    context.push_back(next);
  }
  GenerateOptions top1;
  top1.top_k = 1;
  top1.seed = 99;
  EXPECT_EQ(generate(model, prompt, 12, top1), out);
}

// nanoGPT's generate with torch.multinomial after torch.manual_seed(seed), in torch 1.13
// (tests/fixtures/make_training_fixtures.py): the same tokens, for every kernel.
TEST(GptGenerate, SamplesNanoGptsTokensForTheSameWeightsAndSeed) {
  const json fx = attn_test::load_training_json("gpt_generate");
  const json trained = attn_test::load_training_json(fx.at("model").get<std::string>());
  const ModelConfig cfg = config_from_json(trained.at("config"));
  int cases = 0;
  for (Kernel kernel : {Kernel::kReference, Kernel::kSimd, Kernel::kTiled}) {
    Gpt model(cfg, 0);
    model.params() = params_from(model.table(), trained.at("final"));
    model.set_kernel(kernel);
    for (const json& c : fx.at("cases")) {
      GenerateOptions o;
      o.temperature = c.at("temperature").get<double>();
      o.top_k = c.at("top_k").get<int>();
      o.seed = c.at("seed").get<std::uint64_t>();
      const std::vector<int> got = generate(model, c.at("prompt").get<std::vector<int>>(), c.at("count").get<int>(), o);
      EXPECT_EQ(got, c.at("tokens").get<std::vector<int>>()) << kernel_name(kernel) << " seed " << o.seed;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 12);
}

TEST(GptGenerate, TheSameSeedSamplesTheSameTokens) {
  ModelConfig cfg;
  cfg.vocab_size = 30, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 1, cfg.n_embd = 8;
  Gpt model(cfg, 4);
  GenerateOptions o;
  o.seed = 5;
  o.top_k = 10;
  const std::vector<int> a = generate(model, {1}, 40, o), b = generate(model, {1}, 40, o);
  EXPECT_EQ(a, b);
  o.seed = 6;
  EXPECT_NE(generate(model, {1}, 40, o), a);
  EXPECT_TRUE(generate(model, {1}, 0, o).empty());
  EXPECT_TRUE(ThrowsNaming([&] { generate(model, {}, 3, o); }, {"prompt"}));
  EXPECT_TRUE(ThrowsNaming([&] { generate(model, {30}, 3, o); }, {"prompt[0]"}));
  EXPECT_TRUE(ThrowsNaming([&] { generate(model, {1}, -1, o); }, {"count"}));
  o.temperature = -1;
  EXPECT_TRUE(ThrowsNaming([&] { generate(model, {1}, 3, o); }, {"temperature"}));
  o.temperature = 1;
  o.top_k = -2;
  EXPECT_TRUE(ThrowsNaming([&] { generate(model, {1}, 3, o); }, {"topK"}));
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

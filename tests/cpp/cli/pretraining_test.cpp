// Pretraining (src/cli/pretraining.h) and the F16 export it ships with: batches are PyTorch's
// randint of a per-step seed, evaluation windows tile or spread over a file, token files are
// checked, F16 export rounds as torch's .half() does, and the first steps of the shipped model's
// real run (tests/fixtures/pretrain/brown-wordnet-record.json, written by `npm run pretrain`)
// replay to the same losses and weights, bit for bit (natively; within float error in WASM).
//
// Legend: B batch, T context, N tokens in a file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/pretraining.h"
#include "core/torch_random.h"
#include "model/checkpoint.h"
#include "model/safetensors.h"
#include "training_fixtures.h"

#ifndef ATTN_FIXTURES_DIR
#error "ATTN_FIXTURES_DIR must name tests/fixtures (set by CMakeLists.txt)"
#endif

namespace attn::pretrain {
namespace {

using json = nlohmann::json;

std::vector<std::uint16_t> counting(std::size_t N) {
  std::vector<std::uint16_t> data(N);
  for (std::size_t i = 0; i < N; ++i) data[i] = static_cast<std::uint16_t>(i % 1000);
  return data;
}

TEST(PretrainBatch, OffsetsAreTorchRandintOfTheStepsSeedAndTargetsShiftByOne) {
  const std::vector<std::uint16_t> data = counting(5000);
  const int B = 4, T = 16;
  const SampledBatch batch = sample_batch(data, B, T, 1337, 7);
  TorchGenerator generator(1337ULL * (1ULL << 20) + 7);
  const IntTensor expected = generator.randint(0, 5000 - T, {B});
  ASSERT_EQ(batch.offsets.size(), 4u);
  for (int b = 0; b < B; ++b) {
    EXPECT_EQ(batch.offsets[b], expected.data[b]);
    for (int t = 0; t < T; ++t) {
      EXPECT_EQ(batch.tokens[b * T + t], data[batch.offsets[b] + t]);
      EXPECT_EQ(batch.targets[b * T + t], data[batch.offsets[b] + t + 1]);
    }
  }
  // Any step's batch is known without the steps before it.
  EXPECT_EQ(sample_batch(data, B, T, 1337, 7).offsets, batch.offsets);
  EXPECT_NE(sample_batch(data, B, T, 1337, 8).offsets, batch.offsets);
  EXPECT_THROW(sample_batch(counting(16), B, T, 1, 0), Error);
  EXPECT_THROW(batch_seed(1, 1LL << 20), Error);
}

TEST(PretrainEval, WindowsTileTheFileOrSpreadEvenly) {
  EXPECT_EQ(eval_offsets(33, 8, 0), (std::vector<std::int64_t>{0, 8, 16, 24}));
  EXPECT_EQ(eval_offsets(32, 8, 0), (std::vector<std::int64_t>{0, 8, 16}));  // the last window's target is missing
  EXPECT_EQ(eval_offsets(1001, 10, 4), (std::vector<std::int64_t>{0, 247, 494, 741}));
  EXPECT_EQ(eval_offsets(33, 8, 9).size(), 4u);  // more than there are: every window
  EXPECT_TRUE(eval_offsets(8, 8, 0).empty());
}

TEST(PretrainTokens, FilesAreCheckedForLengthAndIds) {
  const std::string path = testing::TempDir() + "pretrain_tokens.bin";
  const auto write = [&](const std::vector<unsigned char>& bytes) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  write({1, 0, 2, 0, 0xff, 0x0f});
  EXPECT_EQ(read_tokens(path, 4096), (std::vector<std::uint16_t>{1, 2, 4095}));
  try {
    read_tokens(path, 4095);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("token 2 is 4095, not below vocab_size 4095"), std::string::npos) << e.what();
  }
  write({1, 0, 2});
  EXPECT_THROW(read_tokens(path, 4096), Error);
  EXPECT_THROW(read_tokens(path + ".missing", 4096), Error);
  std::remove(path.c_str());
}

// Half bits → float, exact (the value F16 import gives).
float half_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                        : std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

TEST(SafetensorsF16, ExportRoundsToNearestEvenAndImportsBack) {
  const model::ModelConfig c = attn_test::config_of(5, 4, 0, 1, 4);
  const model::ParamTable table(c);
  std::vector<float> params(table.total(), 0.0f);
  // wte's first values: exact halves, midpoints (ties to even), subnormals, the largest half.
  const std::vector<float> values = {1.0f,
                                     -2.5f,
                                     65504.0f,
                                     1.0f + 1.0f / 2048,     // midpoint of 1 and 1 + 2^-10: to 1 (even)
                                     1.0f + 3.0f / 2048,     // midpoint: to 1 + 2^-9 (even)
                                     std::ldexp(1.0f, -24),  // the smallest subnormal half
                                     std::ldexp(1.0f, -25),  // its half: ties to 0 (even)
                                     std::ldexp(3.0f, -25),  // 1.5 × 2^-24: to 2^-23 (even)
                                     std::ldexp(1.0f, -14),  // the smallest normal half
                                     0.1f,
                                     -0.0f,
                                     65519.0f};  // below the midpoint to infinity: to 65504
  std::copy(values.begin(), values.end(), params.begin());
  model::ExportOptions options;
  options.dtype = model::Dtype::kF16;
  const std::vector<std::uint8_t> file = model::export_safetensors(table, params.data(), options);
  const model::SafetensorsHeader header = model::parse_safetensors(file.data(), file.size());
  const model::TensorRecord* wte = header.find("transformer.wte.weight");
  ASSERT_NE(wte, nullptr);
  EXPECT_EQ(wte->dtype, model::Dtype::kF16);
  const std::vector<float> back = model::read_tensor(file.data(), file.size(), header, *wte);
  const std::vector<float> expected = {1.0f,
                                       -2.5f,
                                       65504.0f,
                                       1.0f,
                                       1.0f + 1.0f / 512,
                                       std::ldexp(1.0f, -24),
                                       0.0f,
                                       std::ldexp(1.0f, -23),
                                       std::ldexp(1.0f, -14),
                                       half_value(0x2e66),
                                       -0.0f,
                                       65504.0f};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(back[i], expected[i]) << "value " << i;
  EXPECT_TRUE(std::signbit(back[10]));
  EXPECT_EQ(model::import_safetensors(table, file.data(), file.size()).size(), table.total());
  // Every half survives a round trip through float exactly.
  for (std::uint32_t h = 0; h < 0x7c00; h += 7) {
    std::fill(params.begin(), params.end(), 0.0f);
    params[0] = half_value(static_cast<std::uint16_t>(h));
    const std::vector<std::uint8_t> f = model::export_safetensors(table, params.data(), options);
    const model::SafetensorsHeader hd = model::parse_safetensors(f.data(), f.size());
    ASSERT_EQ(model::read_tensor(f.data(), f.size(), hd, *hd.find("transformer.wte.weight"))[0], params[0]) << h;
  }
  params[3] = 65520.0f;  // rounds to infinity
  try {
    model::export_safetensors(table, params.data(), options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("transformer.wte.weight[3]"), std::string::npos) << e.what();
  }
}

// --wpe-init sinusoidal:S: wpe holds Vaswani et al.'s embeddings (here computed as PyTorch's
// tutorial does, exp(−ln 10000 · 2i / C)) with row RMS S × 0.02; nothing else of nanoGPT's init
// changes, and the values are the same every time.
TEST(PretrainWpeInit, SinusoidalOverwritesWpeOnlyWithTheFormulaAtTheAskedRms) {
  const model::ModelConfig config = attn_test::config_of(50, 16, 1, 2, 8);
  const int T = config.block_size, C = config.n_embd;
  for (const double scale : {1.0, 2.5}) {
    model::Gpt plain(config, 1337), sin(config, 1337), again(config, 1337);
    init_wpe_sinusoidal(sin, scale);
    init_wpe_sinusoidal(again, scale);
    EXPECT_EQ(weights_hash(sin.params()), weights_hash(again.params()));
    const model::ParamEntry& e = sin.table().wpe();
    ASSERT_EQ(e.size, static_cast<std::size_t>(T) * C);
    for (std::size_t k = 0; k < sin.params().size(); ++k) {
      if (k >= e.offset && k < e.offset + e.size) continue;
      ASSERT_EQ(float_bits(sin.params()[k]), float_bits(plain.params()[k])) << "parameter " << k << " changed";
    }
    const double a = scale * 0.02 * std::sqrt(2.0);
    for (int p = 0; p < T; ++p) {
      double sum_sq = 0;
      for (int i = 0; i < C / 2; ++i) {
        const double w = std::exp(-std::log(10000.0) * (2.0 * i) / C);
        const float s0 = sin.params()[e.offset + p * C + 2 * i], c0 = sin.params()[e.offset + p * C + 2 * i + 1];
        EXPECT_NEAR(s0, a * std::sin(p * w), 1e-6 * a) << "wpe[" << p << ", " << 2 * i << "]";
        EXPECT_NEAR(c0, a * std::cos(p * w), 1e-6 * a) << "wpe[" << p << ", " << 2 * i + 1 << "]";
        sum_sq += static_cast<double>(s0) * s0 + static_cast<double>(c0) * c0;
      }
      EXPECT_NEAR(std::sqrt(sum_sq / C), scale * 0.02, 1e-6) << "row " << p;
    }
    // Row 0 is (0, a, 0, a, …): sin 0, cos 0.
    EXPECT_EQ(sin.params()[e.offset], 0.0f);
    EXPECT_EQ(sin.params()[e.offset + 1], static_cast<float>(a));
  }
}

TEST(PretrainWpeInit, RejectsAScaleThatIsNotPositive) {
  const model::ModelConfig config = attn_test::config_of(10, 4, 1, 1, 4);
  model::Gpt gpt(config, 1);
  for (const double scale : {0.0, -1.0, std::nan("")}) {
    try {
      init_wpe_sinusoidal(gpt, scale);
      FAIL() << "expected an error for scale " << scale;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("scale"), std::string::npos) << e.what();
    }
  }
}

// The shipped model's run, its first steps: the batches it drew from the real data, the loss of
// each step as float32 bits and the weights' hash after each. A change to the model's arithmetic,
// its initialisation, the optimizer or the schedule shows here.
TEST(PretrainRecord, FirstStepsOfTheShippedRunReplayBitForBit) {
  const std::string path = std::string(ATTN_FIXTURES_DIR) + "/pretrain/brown-wordnet-record.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " is missing: npm run pretrain writes it";
  const json record = json::parse(in);
  const json& s = record["settings"];
  Settings settings;
  const json& c = s["config"];
  settings.config.vocab_size = c["vocab_size"];
  settings.config.block_size = c["block_size"];
  settings.config.n_layer = c["n_layer"];
  settings.config.n_head = c["n_head"];
  settings.config.n_embd = c["n_embd"];
  settings.config.bias = c["bias"];
  settings.config.dropout = c["dropout"];
  settings.config.mlp = c["mlp"];
  settings.config.layer_norm = c["layer_norm"];
  settings.seed = s["seed"];
  settings.batch = s["batch"];
  settings.steps = s["steps"];
  settings.lr = s["lr"];
  settings.min_lr = s["min_lr"];
  settings.warmup = s["warmup"];
  settings.decay_steps = s["decay_steps"];
  settings.beta1 = s["beta1"];
  settings.beta2 = s["beta2"];
  settings.weight_decay = s["weight_decay"];
  settings.clip = s["clip"];
  model::Gpt gpt(settings.config, settings.seed);
  // Records written before the option have no wpe_init: nanoGPT's init.
  if (s.value("wpe_init", std::string("normal")) == "sinusoidal") init_wpe_sinusoidal(gpt, s["wpe_scale"]);
  model::Trainer trainer(gpt);
  const model::StepOptions options = step_options(settings);
  const int B = settings.batch, T = settings.config.block_size;
  for (const json& step : record["steps"]) {
    const std::vector<int> tokens = step["tokens"], targets = step["targets"];
    ASSERT_EQ(tokens.size(), static_cast<std::size_t>(B) * T);
    const model::StepResult r = trainer.step(model::Batch{tokens.data(), targets.data(), B, T}, options);
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(weights_hash(gpt.params())));
#ifdef __EMSCRIPTEN__
    // The record is the native run's. WebAssembly's build computes exp, log and erf with its own
    // libc (musl's), which can differ from glibc's in the last bit, so here the losses agree within
    // float error and the weights' hash is not compared.
    const double recorded = step["loss"].get<double>();
    EXPECT_NEAR(r.loss, recorded, 1e-5 * std::fabs(recorded)) << "step " << r.step;
#else
    EXPECT_EQ(float_bits(r.loss), step["loss_bits"].get<std::uint32_t>())
        << "step " << r.step << ": loss " << r.loss << ", recorded " << step["loss"];
    EXPECT_EQ(std::string(hash), step["weights_hash"].get<std::string>()) << "step " << r.step;
#endif
  }
}

}  // namespace
}  // namespace attn::pretrain

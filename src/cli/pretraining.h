// Pretraining a Gpt on token files, as nanoGPT's train.py does (random windows, AdamW, warmup +
// cosine schedule, gradient clipping, dropout, periodic held-out loss), written once for the
// attn-pretrain command (pretrain.cpp) and for the test that replays a run's first steps
// (tests/cpp/cli/pretraining_test.cpp).
//
// Legend: B batch, T context (block_size), N tokens in a file.
//
// Token files are nanoGPT's train.bin / val.bin: token ids as raw little-endian uint16, no header.
// The batch of step k is drawn by PyTorch's generator (TorchGenerator) after
// torch.manual_seed(batch_seed(seed, k)): offsets = randint(0, N − T, (B,)); x = data[o : o + T],
// y = data[o + 1 : o + T + 1] — nanoGPT's get_batch, but seeded per step so that any step's batch
// is known without replaying the ones before it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/gpt.h"

namespace attn::pretrain {

// Everything a run depends on besides the data. Defaults: the shipped model's (docs/pretrained-model.md).
struct Settings {
  model::ModelConfig config;
  std::uint64_t seed = 1337;  // weights: torch.manual_seed(seed); dropout of step k: seed + k; batches: batch_seed
  int batch = 16;             // B
  long long steps = 1000;
  double lr = 1e-3, min_lr = 1e-4;
  long long warmup = 100, decay_steps = 1000;  // nanoGPT's warmup_iters, lr_decay_iters
  double beta1 = 0.9, beta2 = 0.99, weight_decay = 0.1, clip = 1.0;
  int threads = 1;
  // wpe's starting values: 0 keeps nanoGPT's N(0, 0.02) (the default, PyTorch's init bit for bit);
  // s > 0 overwrites it after that init with sinusoidal embeddings of row RMS s × 0.02
  // (init_wpe_sinusoidal). wpe stays a learned table either way.
  double wpe_sinusoidal = 0;
};

// Overwrites transformer.wpe.weight (T, C) with Vaswani et al.'s (2017, §3.5) sinusoidal position
// embeddings, amplitude a = scale · 0.02 · √2: wpe[p, 2i] = a·sin(p·ω_i), wpe[p, 2i + 1] = a·cos(p·ω_i),
// ω_i = 10000^(−2i/C). For even C every row's RMS is scale × 0.02, the std of nanoGPT's init of wte.
// An offset by k positions is then a fixed rotation of each (sin, cos) pair, a linear map that
// W_Q and W_K can learn ("attend to the previous token"). Deterministic (no random draws; computed
// in double, rounded to float). attn::Error unless scale is finite and > 0 and the model is float32.
void init_wpe_sinusoidal(model::Gpt& gpt, double scale);

// The model step options of these settings (AdamW, decay_lr, clip, dropout seed).
model::StepOptions step_options(const Settings& settings);

// torch.manual_seed's seed for step k's batch: seed · 2^20 + k (k < 2^20; mt19937 sees the low 32 bits).
std::uint64_t batch_seed(std::uint64_t seed, long long step);

// A file of uint16 token ids; attn::Error naming the path when it cannot be read, has an odd
// length, or holds an id ≥ vocab_size.
std::vector<std::uint16_t> read_tokens(const std::string& path, int vocab_size);

struct SampledBatch {
  std::vector<std::int64_t> offsets;  // (B)
  std::vector<int> tokens, targets;   // (B, T)
};
// Step k's batch (see the file's comment). attn::Error when the file has fewer than T + 1 tokens.
SampledBatch sample_batch(const std::vector<std::uint16_t>& data, int B, int T, std::uint64_t seed, long long step);

// Windows [o, o + T) (targets shifted by one) for evaluation: `count` evenly spaced over the file,
// or, with count 0, every non-overlapping window (⌊(N − 1) / T⌋ of them).
std::vector<std::int64_t> eval_offsets(std::size_t N, int T, int count);

struct EvalResult {
  double loss_sum = 0;  // Σ over the scored tokens of −log p(target)
  long long tokens = 0;
  double loss() const { return tokens ? loss_sum / static_cast<double>(tokens) : 0.0; }
};
// The model's held-out loss (eval mode: no dropout) over the windows at `offsets`, B at a time.
EvalResult evaluate(model::Gpt& gpt, const std::vector<std::uint16_t>& data, const std::vector<std::int64_t>& offsets,
                    int T, int B);

// 64-bit FNV-1a over the floats' bit patterns (little-endian): the weights' fingerprint.
std::uint64_t weights_hash(const std::vector<float>& params);
std::uint32_t float_bits(float value);

}  // namespace attn::pretrain

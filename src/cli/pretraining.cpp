#include "cli/pretraining.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/attention.h"
#include "core/torch_random.h"

namespace attn::pretrain {

namespace {
[[noreturn]] void fail(const std::string& message) { throw Error(message); }
constexpr long long kMaxSteps = 1LL << 20;
}  // namespace

model::StepOptions step_options(const Settings& s) {
  model::StepOptions o;
  o.optimizer = model::OptimizerKind::kAdamW;
  o.adamw.beta1 = s.beta1;
  o.adamw.beta2 = s.beta2;
  o.adamw.weight_decay = s.weight_decay;
  o.clip = s.clip;
  o.schedule = model::LrSchedule{true, s.lr, s.min_lr, s.warmup, s.decay_steps};
  o.seed = s.seed;
  return o;
}

void init_wpe_sinusoidal(model::Gpt& gpt, double scale) {
  if (!std::isfinite(scale) || scale <= 0)
    fail("init_wpe_sinusoidal: scale: expected a finite number > 0, got " + std::to_string(scale));
  gpt.require_f32("init_wpe_sinusoidal");
  const model::ParamEntry& e = gpt.table().wpe();
  const int T = gpt.config().block_size, C = gpt.config().n_embd;
  const double amplitude = scale * 0.02 * std::sqrt(2.0);
  float* wpe = gpt.params().data() + e.offset;
  for (int p = 0; p < T; ++p) {
    for (int j = 0; j < C; ++j) {
      const int i = j / 2;
      const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * i / C);
      wpe[static_cast<std::size_t>(p) * C + j] =
          static_cast<float>(amplitude * (j % 2 == 0 ? std::sin(angle) : std::cos(angle)));
    }
  }
}

std::uint64_t batch_seed(std::uint64_t seed, long long step) {
  if (step < 0 || step >= kMaxSteps) fail("step: expected 0 ≤ step < 2^20, got " + std::to_string(step));
  return seed * static_cast<std::uint64_t>(kMaxSteps) + static_cast<std::uint64_t>(step);
}

std::vector<std::uint16_t> read_tokens(const std::string& path, int vocab_size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot be read");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() % 2) fail(path + ": " + std::to_string(bytes.size()) + " bytes, not a whole number of uint16 ids");
  std::vector<std::uint16_t> tokens(bytes.size() / 2);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    tokens[i] = static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[2 * i]) |
                                           static_cast<unsigned char>(bytes[2 * i + 1]) << 8);
    if (tokens[i] >= vocab_size) {
      fail(path + ": token " + std::to_string(i) + " is " + std::to_string(tokens[i]) + ", not below vocab_size " +
           std::to_string(vocab_size));
    }
  }
  return tokens;
}

SampledBatch sample_batch(const std::vector<std::uint16_t>& data, int B, int T, std::uint64_t seed, long long step) {
  if (data.size() < static_cast<std::size_t>(T) + 1) {
    fail("data: " + std::to_string(data.size()) + " tokens; a window needs T + 1 = " + std::to_string(T + 1));
  }
  TorchGenerator generator(batch_seed(seed, step));
  const IntTensor ix = generator.randint(0, static_cast<std::int64_t>(data.size()) - T, {B});
  SampledBatch batch;
  batch.offsets.assign(ix.data.begin(), ix.data.end());
  batch.tokens.resize(static_cast<std::size_t>(B) * T);
  batch.targets.resize(batch.tokens.size());
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < T; ++t) {
      const std::size_t o = static_cast<std::size_t>(batch.offsets[b]) + t;
      batch.tokens[static_cast<std::size_t>(b) * T + t] = data[o];
      batch.targets[static_cast<std::size_t>(b) * T + t] = data[o + 1];
    }
  }
  return batch;
}

std::vector<std::int64_t> eval_offsets(std::size_t N, int T, int count) {
  std::vector<std::int64_t> offsets;
  if (N < static_cast<std::size_t>(T) + 1) return offsets;
  const std::size_t windows = (N - 1) / static_cast<std::size_t>(T);
  if (count <= 0 || static_cast<std::size_t>(count) >= windows) {
    for (std::size_t w = 0; w < windows; ++w) offsets.push_back(static_cast<std::int64_t>(w * T));
    return offsets;
  }
  const std::size_t stride = (N - 1 - static_cast<std::size_t>(T)) / static_cast<std::size_t>(count);
  for (int w = 0; w < count; ++w) offsets.push_back(static_cast<std::int64_t>(w * stride));
  return offsets;
}

EvalResult evaluate(model::Gpt& gpt, const std::vector<std::uint16_t>& data, const std::vector<std::int64_t>& offsets,
                    int T, int B) {
  EvalResult result;
  std::vector<int> tokens, targets;
  for (std::size_t first = 0; first < offsets.size(); first += static_cast<std::size_t>(B)) {
    const int n = static_cast<int>(std::min(offsets.size() - first, static_cast<std::size_t>(B)));
    tokens.resize(static_cast<std::size_t>(n) * T);
    targets.resize(tokens.size());
    for (int b = 0; b < n; ++b) {
      for (int t = 0; t < T; ++t) {
        const std::size_t o = static_cast<std::size_t>(offsets[first + b]) + t;
        tokens[static_cast<std::size_t>(b) * T + t] = data[o];
        targets[static_cast<std::size_t>(b) * T + t] = data[o + 1];
      }
    }
    const float mean = gpt.forward(model::Batch{tokens.data(), targets.data(), n, T});
    result.loss_sum += static_cast<double>(mean) * n * T;
    result.tokens += static_cast<long long>(n) * T;
  }
  return result;
}

std::uint64_t weights_hash(const std::vector<float>& params) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const float v : params) {
    const std::uint32_t bits = float_bits(v);
    for (int i = 0; i < 4; ++i) {
      h ^= (bits >> (8 * i)) & 0xffu;
      h *= 0x100000001b3ULL;
    }
  }
  return h;
}

std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

}  // namespace attn::pretrain

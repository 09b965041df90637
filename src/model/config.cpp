// ModelConfig validation and parameter count.
// Legend: V vocab_size, T block_size, L n_layer, H n_head, C n_embd.
#include "model/config.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "core/attention.h"

namespace attn::model {

namespace {

void check_range(const char* field, long long value, long long lo, long long hi) {
  if (value < lo || value > hi) {
    throw Error(std::string(field) + ": expected " + std::to_string(lo) + " ≤ " + field + " ≤ " + std::to_string(hi) +
                ", got " + std::to_string(value));
  }
}

// Counts without validating (every field is range-checked first, so nothing here overflows:
// C ≤ 2^12, V ≤ 2^17, L ≤ 2^6 keep every product below 2^40).
long long count(const ModelConfig& c) {
  const long long C = c.n_embd, b = c.bias ? 1 : 0;
  const long long ln = c.layer_norm ? C * (1 + b) : 0;
  long long block = ln + (3 * C * C + 3 * C * b) + (C * C + C * b);        // ln_1, attn.c_attn, attn.c_proj
  if (c.mlp) block += ln + (4 * C * C + 4 * C * b) + (4 * C * C + C * b);  // ln_2, mlp.c_fc, mlp.c_proj
  return static_cast<long long>(c.vocab_size) * C + static_cast<long long>(c.block_size) * C + c.n_layer * block + ln;
}

}  // namespace

const char* gelu_name(Gelu gelu) { return gelu == Gelu::kTanh ? "tanh" : "exact"; }

void validate(const ModelConfig& c) {
  check_range("vocab_size", c.vocab_size, 1, ModelLimits::kMaxVocab);
  check_range("block_size", c.block_size, 1, ModelLimits::kMaxBlockSize);
  check_range("n_layer", c.n_layer, 0, ModelLimits::kMaxLayers);
  check_range("n_head", c.n_head, 1, ModelLimits::kMaxHeads);
  check_range("n_embd", c.n_embd, 1, ModelLimits::kMaxEmbd);
  if (c.n_embd % c.n_head != 0) {
    throw Error("n_head: " + std::to_string(c.n_head) + " must divide n_embd = " + std::to_string(c.n_embd));
  }
  // !(p >= 0 && p < 1) also rejects NaN.
  if (!(c.dropout >= 0.0 && c.dropout < 1.0)) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", c.dropout);
    throw Error(std::string("dropout: expected 0 ≤ dropout < 1, got ") + value);
  }
  if (c.gelu != Gelu::kExact && c.gelu != Gelu::kTanh) throw Error("gelu: expected 'exact' or 'tanh'");
  // !(eps > 0 && eps <= 1) also rejects NaN.
  if (!(c.layer_norm_eps > 0.0 && c.layer_norm_eps <= 1.0)) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", c.layer_norm_eps);
    throw Error(std::string("layer_norm_eps: expected 0 < layer_norm_eps ≤ 1, got ") + value);
  }
  const long long n = count(c);
  if (n > ModelLimits::kMaxParams) {
    throw Error("config: " + std::to_string(n) + " parameters; at most " + std::to_string(ModelLimits::kMaxParams) +
                " (2^29, 2 GiB of float32 in a 4 GiB WebAssembly memory): lower vocab_size, block_size, n_layer or "
                "n_embd");
  }
}

void validate_for_training(const ModelConfig& c, const char* what) {
  validate(c);
  const long long n = count(c);
  if (n > ModelLimits::kMaxTrainParams) {
    throw Error(std::string(what) + ": this model has " + std::to_string(n) + " parameters; training is limited to " +
                std::to_string(ModelLimits::kMaxTrainParams) +
                " (2^26): gradients and AdamW's two moments make it ×4 in memory. It can still be run "
                "(logits, attention, generate)");
  }
}

long long parameter_count(const ModelConfig& config) {
  validate(config);
  return count(config);
}

}  // namespace attn::model

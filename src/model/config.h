// The shape of a small nanoGPT-compatible transformer (nanoGPT's GPTConfig plus two switches
// that take parts away, for teaching), with its validation.
//
// Legend: V vocab_size, T block_size (context length), L n_layer, H n_head, C n_embd.
#pragma once

#include <cstdint>

namespace attn::model {

// The MLP's activation: nanoGPT's nn.GELU() (erf) or GPT-2's gelu_new (tanh), layers.h.
enum class Gelu { kExact, kTanh };
const char* gelu_name(Gelu gelu);  // "exact", "tanh"

struct ModelConfig {
  int vocab_size = 65;           // V: token ids are 0 … V − 1
  int block_size = 64;           // T: the longest context, rows of wpe
  int n_layer = 2;               // L: transformer blocks (0 is allowed: embeddings → ln_f → lm_head)
  int n_head = 4;                // H: must divide n_embd
  int n_embd = 64;               // C
  bool bias = true;              // biases in every Linear and LayerNorm (nanoGPT's `bias`)
  double dropout = 0.0;          // p of every dropout (embeddings, attention weights, residual branches)
  bool mlp = true;               // false: attention-only blocks, no ln_2 and no mlp
  bool layer_norm = true;        // false: no ln_1, ln_2, ln_f (they become the identity)
  Gelu gelu = Gelu::kExact;      // kTanh for Hugging Face's GPT-2 checkpoints (activation_function "gelu_new")
  double layer_norm_eps = 1e-5;  // every LayerNorm's eps (GPT-2's layer_norm_epsilon)
};

// Caps that keep every size and count of a valid config far from int overflow and a model
// within a browser tab's 4 GiB of WebAssembly memory.
//   kMaxParams: a model that is only run holds its weights alone: at most 2^29 floats (2 GiB),
//     which fits GPT-2 medium (354.8M floats, 1.42 GB) with 2 GiB left for activations, the
//     captured attention, the engine and its staging; GPT-2 large (774M, 3.1 GB) would leave
//     under 1 GB and is refused.
//   kMaxTrainParams: training adds gradients and two AdamW moments (×4 in all), so a model is
//     trained only up to 2^26 floats (256 MiB of weights, 1 GiB with the rest).
struct ModelLimits {
  static constexpr int kMaxVocab = 1 << 17;    // GPT-2's 50257 (or 50304 padded) fits
  static constexpr int kMaxBlockSize = 16384;  // the attention core's longest T
  static constexpr int kMaxLayers = 64;
  static constexpr int kMaxHeads = 256;  // the attention core's limit
  static constexpr int kMaxEmbd = 4096;  // the attention core's widest D
  static constexpr long long kMaxParams = 1LL << 29;
  static constexpr long long kMaxTrainParams = 1LL << 26;
};

// Throws attn::Error naming the first bad field with the expected range, e.g.
// "n_head: 3 must divide n_embd = 64", "vocab_size: expected 1 ≤ vocab_size ≤ 131072, got 0",
// "config: 774030336 parameters; at most 536870912 (2^29)".
void validate(const ModelConfig& config);

// validate(), then the training cap: "step: this model has 124439808 parameters; training is
// limited to 67108864 (2^26) …". `what` names the call that would train.
void validate_for_training(const ModelConfig& config, const char* what = "step");

// Number of distinct parameters (floats) of a valid config: lm_head shares wte's storage.
long long parameter_count(const ModelConfig& config);

}  // namespace attn::model

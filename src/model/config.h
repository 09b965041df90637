// The shape of a small nanoGPT-compatible transformer (nanoGPT's GPTConfig plus two switches
// that take parts away, for teaching), with its validation.
//
// Legend: V vocab_size, T block_size (context length), L n_layer, H n_head, C n_embd.
#pragma once

#include <cstdint>

namespace attn::model {

struct ModelConfig {
  int vocab_size = 65;     // V: token ids are 0 … V − 1
  int block_size = 64;     // T: the longest context, rows of wpe
  int n_layer = 2;         // L: transformer blocks (0 is allowed: embeddings → ln_f → lm_head)
  int n_head = 4;          // H: must divide n_embd
  int n_embd = 64;         // C
  bool bias = true;        // biases in every Linear and LayerNorm (nanoGPT's `bias`)
  double dropout = 0.0;    // p of every dropout (embeddings, attention weights, residual branches)
  bool mlp = true;         // false: attention-only blocks, no ln_2 and no mlp
  bool layer_norm = true;  // false: no ln_1, ln_2, ln_f (they become the identity)
};

// Caps that keep every size and count of a valid config far from int overflow and a model
// within what a browser tab trains: parameters (weights; gradients and two AdamW moments make
// it ×4) at most 2^26 = 64 Mi floats (256 MiB).
struct ModelLimits {
  static constexpr int kMaxVocab = 1 << 17;    // GPT-2's 50257 (or 50304 padded) fits
  static constexpr int kMaxBlockSize = 16384;  // the attention core's longest T
  static constexpr int kMaxLayers = 64;
  static constexpr int kMaxHeads = 256;  // the attention core's limit
  static constexpr int kMaxEmbd = 4096;  // the attention core's widest D
  static constexpr long long kMaxParams = 1LL << 26;
};

// Throws attn::Error naming the first bad field with the expected range, e.g.
// "n_head: 3 must divide n_embd = 64", "vocab_size: expected 1 ≤ vocab_size ≤ 131072, got 0",
// "config: 90177536 parameters; at most 67108864 (2^26)".
void validate(const ModelConfig& config);

// Number of distinct parameters (floats) of a valid config: lm_head shares wte's storage.
long long parameter_count(const ModelConfig& config);

}  // namespace attn::model

// The parameters of a ModelConfig by nanoGPT's state_dict names, in one contiguous float buffer.
//
// Legend: V vocab_size, T block_size, L n_layer, C n_embd.
//
// The table lists every distinct parameter in nanoGPT's named_parameters() order, with its
// shape and its offset in the buffer (tensors packed back to back in that order):
//   transformer.wte.weight            (V, C)     also lm_head.weight (tied: one storage)
//   transformer.wpe.weight            (T, C)
//   for i in 0 … L − 1, prefix transformer.h.{i}.:
//     ln_1.weight, ln_1.bias          (C)        ln_* only when layer_norm, .bias only when bias
//     attn.c_attn.weight (3C, C), attn.c_attn.bias (3C)
//     attn.c_proj.weight (C, C),  attn.c_proj.bias (C)
//     ln_2.weight, ln_2.bias          (C)        ln_2 and mlp.* only when mlp
//     mlp.c_fc.weight (4C, C),    mlp.c_fc.bias (4C)
//     mlp.c_proj.weight (C, 4C),  mlp.c_proj.bias (C)
//   transformer.ln_f.weight, transformer.ln_f.bias (C)
// Gradients live in a second buffer of the same size and layout, the optimizer's moments in
// more of the same (optimizer.h), so one offset addresses a tensor in all of them.
//
// The state_dict of nanoGPT's GPT holds two more kinds of entries:
//   - lm_head.weight, listed last, the same storage as transformer.wte.weight (weight tying);
//   - transformer.h.{i}.attn.bias, a (1, 1, T, T) buffer of tril(ones) — the causal mask —
//     registered only when torch has no scaled_dot_product_attention (torch < 2.0, e.g. Debian's
//     1.13), listed after ln_1.bias. It is not a parameter: the attention core masks by index.
//     Import ignores it (and GPT-2's attn.masked_bias); export writes it only when asked, so
//     load_state_dict(strict=True) works in torch 1.13's nanoGPT as well as in 2.x's.
// state_dict_names() gives that full order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/config.h"

namespace attn::model {

// How nanoGPT initialises a tensor (GPT._init_weights and the c_proj special case).
enum class Init {
  kNormal,          // normal(0, 0.02): Linear and Embedding weights
  kNormalResidual,  // normal(0, 0.02/√(2L)): attn.c_proj.weight and mlp.c_proj.weight
  kZeros,           // Linear biases and LayerNorm biases
  kOnes,            // LayerNorm weights
};

struct ParamEntry {
  std::string name;        // nanoGPT's state_dict name
  std::vector<int> shape;  // row-major
  std::size_t offset = 0;  // first element in the buffer
  std::size_t size = 0;    // element count
  bool decay = false;      // weight decay applies: dim ≥ 2 (nanoGPT's configure_optimizers)
  Init init = Init::kZeros;
};

// Pointers into a ParamTable for one transformer block; null where the config has no such tensor.
struct BlockEntries {
  const ParamEntry *ln_1_weight = nullptr, *ln_1_bias = nullptr;
  const ParamEntry *c_attn_weight = nullptr, *c_attn_bias = nullptr;
  const ParamEntry *attn_proj_weight = nullptr, *attn_proj_bias = nullptr;
  const ParamEntry *ln_2_weight = nullptr, *ln_2_bias = nullptr;
  const ParamEntry *c_fc_weight = nullptr, *c_fc_bias = nullptr;
  const ParamEntry *mlp_proj_weight = nullptr, *mlp_proj_bias = nullptr;
};

class ParamTable {
 public:
  // Validates the config (attn::Error naming the field) and lays out its parameters.
  explicit ParamTable(const ModelConfig& config);

  const ModelConfig& config() const { return config_; }
  const std::vector<ParamEntry>& entries() const { return entries_; }
  std::size_t total() const { return total_; }  // floats in the buffer

  // The entry of a state_dict name; "lm_head.weight" gives transformer.wte.weight's entry.
  // find() returns null for an unknown name, at() throws attn::Error naming it.
  const ParamEntry* find(const std::string& name) const;
  const ParamEntry& at(const std::string& name) const;

  const ParamEntry& wte() const { return entries_[0]; }
  const ParamEntry& wpe() const { return entries_[1]; }
  const BlockEntries& block(int i) const { return blocks_.at(static_cast<std::size_t>(i)); }
  const ParamEntry* ln_f_weight() const { return ln_f_weight_; }
  const ParamEntry* ln_f_bias() const { return ln_f_bias_; }

  // nanoGPT's state_dict keys in order: the entries, with transformer.h.{i}.attn.bias after
  // ln_1.bias (or at the start of the block without layer_norm) when causal_mask_buffers,
  // and lm_head.weight last when lm_head.
  std::vector<std::string> state_dict_names(bool lm_head = true, bool causal_mask_buffers = false) const;

 private:
  ModelConfig config_;
  std::vector<ParamEntry> entries_;
  std::vector<BlockEntries> blocks_;
  const ParamEntry* ln_f_weight_ = nullptr;
  const ParamEntry* ln_f_bias_ = nullptr;
  std::size_t total_ = 0;
};

// The random draws of initialisation, as PyTorch's in-place ops on a float32 tensor of n elements:
// normal(data, n, mean, std) is Tensor.normal_(mean, std), uniform(data, n, from, to) is
// Tensor.uniform_(from, to). Both must be set. init_params calls them in exactly torch's order
// for nanoGPT's GPT(config) after torch.manual_seed, so a source that reproduces torch's
// generator (attn::TorchGenerator) reproduces torch's initial weights bit for bit.
struct InitFill {
  std::function<void(float* data, std::size_t n, double mean, double std)> normal;
  std::function<void(float* data, std::size_t n, double from, double to)> uniform;
};

// A deterministic stand-in for torch's generator: std::mt19937_64 seeded with `seed`, normal by
// Box–Muller in double, uniform by 53-bit fractions. The same seed gives the same numbers on one
// platform (libm's log/cos may differ in the last bit between glibc and Emscripten's musl).
InitFill seeded_fill(std::uint64_t seed);

// Initialises params (table.total() floats) as nanoGPT's GPT.__init__ does, with every random
// draw through `fill`, in torch's order:
//   1. construction (values overwritten later; drawn so the generator advances as torch's does):
//      nn.Embedding wte, wpe: normal(0, 1); per block, in module order, every nn.Linear's
//      reset_parameters: kaiming_uniform_(a = √5) = uniform(±1/√in) on the weight, then
//      uniform(±1/√in) on the bias when bias; then lm_head (V, C) likewise (no bias).
//      LayerNorms are ones and zeros (no draw).
//   2. self.apply(_init_weights), children before parents: wte normal(0, 0.02), wpe normal(0, 0.02),
//      each Linear's weight normal(0, 0.02) with its bias zeroed, and last lm_head — which is wte —
//      normal(0, 0.02) again: the value wte keeps.
//   3. every *.c_proj.weight, in named_parameters order: normal(0, 0.02/√(2L)).
void init_params(float* params, const ParamTable& table, const InitFill& fill);

}  // namespace attn::model

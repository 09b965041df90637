// A model from a safetensors checkpoint, held whole or read in slices, in either of two layouts:
//   nanoGPT's: the names of params.h with nn.Linear weights (out, in) — what export_safetensors
//     writes and nanoGPT's state_dict holds;
//   Hugging Face's GPT-2 (GPT2LMHeadModel, GPT2Model: gpt2, distilgpt2, gpt2-medium, …): the same
//     names with or without the "transformer." prefix, and the four Conv1D weights (attn.c_attn,
//     attn.c_proj, mlp.c_fc, mlp.c_proj) stored (in, out), transposed here on the way in. Its
//     attn.bias / attn.masked_bias buffers (any dtype) are ignored; lm_head.weight is optional
//     and must equal wte (GPT-2 ties them).
// The layout is told by the first block's attn.c_attn.weight: (3C, C) is nanoGPT's, (C, 3C) a Conv1D.
//
// Legend: V vocab_size, T block_size (n_positions), L n_layer, C n_embd.
//
// Reading a file in slices (engine.openModel), so that a 500 MB checkpoint is never held twice:
//   1. safetensors_header_length(the first 8 bytes, file size) → N (safetensors.h);
//   2. CheckpointLoader(the first 8 + N bytes, file size, overrides, config.json) parses and checks
//      the header, works out the config, matches every tensor to its parameter, and allocates the
//      parameters (zeros; no gradients, no initialisation draws). copies() lists the byte ranges
//      to read, in file order;
//   3. write(copy, offset, bytes) for each range, in slices of any length, in order within the
//      range: converted to float32 (F16, BF16 exactly), transposed where the layout asks, every
//      value checked finite (an error names the tensor, the element and its file byte);
//   4. finish() hands over the model once every range is complete.
// load_checkpoint() does the four steps over a file held in memory (engine.loadModel).
//
// The config, field by field: the caller's overrides, else config.json (Hugging Face's), else the
// file's metadata (export_safetensors writes it), else what the tensors show (infer_config:
// everything but the head count), else nanoGPT's defaults for the switches (bias, mlp,
// layer_norm true), and the GELU of the layout (exact for nanoGPT's, tanh — gelu_new — for a
// Conv1D file) with eps 1e-5. A size nobody gives is an error naming it ("heads: …").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/gpt.h"
#include "model/safetensors.h"

namespace attn::model {

// Config fields as far as one source knows them: −1 (NaN for the doubles) where it does not.
struct ConfigFields {
  int vocab_size = -1, block_size = -1, n_layer = -1, n_head = -1, n_embd = -1;
  int bias = -1, mlp = -1, layer_norm = -1;  // 1 true, 0 false
  int gelu = -1;                             // 0 exact, 1 tanh (Gelu's values)
  double dropout = std::numeric_limits<double>::quiet_NaN();
  double layer_norm_eps = std::numeric_limits<double>::quiet_NaN();
};

// Hugging Face's config.json of a GPT-2 model (at most 1 MB of JSON text): model_type "gpt2" (or
// absent), architectures GPT2* (or absent), and n_embd (hidden_size), n_head
// (num_attention_heads), n_layer (num_hidden_layers), n_positions (max_position_embeddings, or
// the older n_ctx), vocab_size, layer_norm_epsilon, activation_function ("gelu_new",
// "gelu_pytorch_tanh", "gelu_fast": tanh; "gelu": exact). What this engine cannot run is an
// attn::Error naming the key: another architecture, another activation, n_inner ≠ 4·n_embd,
// scale_attn_weights false, scale_attn_by_inverse_layer_idx or add_cross_attention true.
ConfigFields parse_hf_config(const std::string& text);

enum class CheckpointLayout { kNanoGpt, kConv1d };

// One tensor of the file and where its values go.
struct TensorCopy {
  std::string name;                  // as the file names it
  Dtype dtype = Dtype::kF32;         // F32, F16 or BF16
  std::uint64_t begin = 0, end = 0;  // file bytes [begin, end)
  std::size_t offset = 0;            // the destination's first float in the parameters
  int rows = 0, cols = 0;            // a Conv1D weight stored (rows, cols) = (in, out), written (cols, rows); 0: as is
  bool compare = false;              // the second of lm_head.weight and wte: checked equal to the first, not written
  std::size_t entry = 0;             // the destination's index in the ParamTable's entries
};

class CheckpointLoader {
 public:
  // header: the file's first `available` bytes (≥ 8 + N); file_size as parse_safetensors_header
  // takes it; config_json: the text of a config.json, or empty.
  // precision: how the model keeps its weights (gpt.h); kF16 rounds every matrix value to the
  // nearest half as it is written (a value beyond ±65504 is an error naming the tensor and the
  // element) and keeps vectors float32; kBF16 the same with bfloat16s (a value that rounds beyond
  // float32's range is the error); kF32Panels writes the float32 values in panels. f32_budget
  // (bytes): kF32 and kF32Panels turn into kF16 when the weights as float32 (4 bytes × parameters)
  // would take more (the engine's weights: 'auto').
  CheckpointLoader(const std::uint8_t* header, std::size_t available, std::uint64_t file_size,
                   const ConfigFields& overrides, const std::string& config_json, Precision precision = Precision::kF32,
                   double f32_budget = kNoBudget);
  static constexpr double kNoBudget = std::numeric_limits<double>::infinity();

  const ModelConfig& config() const { return model_->config(); }
  CheckpointLayout layout() const { return layout_; }
  const SafetensorsHeader& header() const { return header_; }
  // The ranges to read, sorted by file offset; the file's other tensors are ignored buffers.
  const std::vector<TensorCopy>& copies() const { return copies_; }
  // The file bytes the copies cover, and where the last one ends (a streamed download must end
  // exactly at header().buffer_offset + header().buffer_size; the caller checks that).
  std::uint64_t bytes_to_read() const;

  // Bytes [offset, offset + n) of copies()[copy] (offset counts from the copy's begin and must
  // be where the last write of this copy stopped). Throws attn::Error naming the tensor, the
  // element and the file byte of a non-finite value, or a write out of order.
  void write(std::size_t copy, std::uint64_t offset, const std::uint8_t* bytes, std::size_t n);
  // The model, once every copy is complete (attn::Error naming the first that is not).
  std::unique_ptr<Gpt> finish();

 private:
  SafetensorsHeader header_;
  CheckpointLayout layout_ = CheckpointLayout::kNanoGpt;
  std::unique_ptr<Gpt> model_;
  std::vector<TensorCopy> copies_;
  struct Progress {
    std::uint64_t written = 0;  // bytes
    std::uint8_t carry[4] = {};
    std::size_t carried = 0;  // bytes of a value split between two writes
  };
  std::vector<Progress> progress_;
  std::vector<float> decoded_;               // one slice's values, decoded
  std::vector<std::uint16_t> rounded_;       // and rounded to halves (kF16)
  std::vector<kernels::Bf16> rounded_bf16_;  // or to bfloat16s (kBF16)
  void convert(std::size_t copy, std::uint64_t first_element, const std::uint8_t* bytes, std::size_t count);
  template <typename T>
  static void transpose_into(T* dest, const T* values, std::size_t first, std::size_t n, std::size_t rows,
                             std::size_t cols);
};

// The model of a safetensors file held in memory (both layouts, as above).
std::unique_ptr<Gpt> load_checkpoint(const std::uint8_t* bytes, std::size_t size, const ConfigFields& overrides,
                                     const std::string& config_json = "", Precision precision = Precision::kF32);

// The parameters of `table` from a safetensors file (table.total() floats in its layout): the
// loader above with every config field given by the table, so every parameter must be present
// with its shape (transformer.wte.weight and/or lm_head.weight; when both, equal) and nothing
// else may be (mask buffers aside). attn::Error naming the tensor otherwise.
std::vector<float> import_safetensors(const ParamTable& table, const std::uint8_t* bytes, std::size_t size);

}  // namespace attn::model

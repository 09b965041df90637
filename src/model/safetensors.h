// Hugging Face safetensors import and export for the parameters of params.h.
//
// The format (github.com/huggingface/safetensors, README "Format"):
//   8 bytes    N, the header length, an unsigned little-endian 64-bit integer
//   N bytes    a UTF-8 JSON object beginning with '{', possibly padded with spaces:
//                {"__metadata__": {str: str, …} (optional),
//                 "<name>": {"dtype": "F32", "shape": [d0, d1, …], "data_offsets": [begin, end]}, …}
//   the rest   the byte buffer; [begin, end) are relative to its start, little-endian, row-major;
//              the tensors must cover it exactly (no holes, no overlaps), and names are unique.
//
// Every file is treated as hostile: parse_safetensors checks the header length against the file
// and a 100 MB cap (the reference implementation's); the JSON (valid, an object, no NUL byte, no
// duplicate keys, nesting ≤ 3, ≤ 16384 tensors; parsed in linear time); each entry (exactly
// dtype, shape and data_offsets; dtype one of the format's (parameters must be F32, F16 or BF16;
// buffers that import ignores, such as GPT-2's BOOL causal masks, may be any); shape of ≤ 8
// non-negative integers;
// offsets two integers with begin ≤ end ≤ buffer size and end − begin = elements × dtype size,
// computed without overflow); and the offsets together (ordered, non-overlapping, covering the
// whole buffer). Only then is anything read or allocated, and import allocates only what the
// ModelConfig (≤ 2^26 floats) needs. Every failure is an attn::Error naming the tensor or the
// byte offset; nothing else is thrown for any input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"

namespace attn::model {

struct SafetensorsLimits {
  static constexpr std::uint64_t kMaxHeaderBytes = 100000000;  // safetensors' MAX_HEADER_SIZE
  static constexpr std::size_t kMaxTensors = 16384;            // a 64-layer model lists ~1100
  static constexpr std::size_t kMaxRank = 8;
  static constexpr std::uint64_t kMaxExportBytes = 1ULL << 30;
};

// Every dtype of the format. Parameters are read from the first three only (is_float_param).
enum class Dtype { kF32, kF16, kBF16, kF64, kI64, kU64, kI32, kU32, kI16, kU16, kI8, kU8, kBool, kF8E4M3, kF8E5M2 };
const char* dtype_name(Dtype dtype);  // "F32", "F16", "BF16", "F64", …, "BOOL", "F8_E4M3", "F8_E5M2"
std::size_t dtype_size(Dtype dtype);  // 4, 2, 2, 8, …, 1
bool is_float_param(Dtype dtype);     // F32, F16 or BF16

// Element i of a tensor of a float dtype (F32, F16, BF16) at `p`, as float32 (exact).
float float_at(Dtype dtype, const std::uint8_t* p);

struct TensorRecord {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte range in the buffer
  std::uint64_t elements() const;    // product of shape (checked not to overflow when parsed)
};

struct SafetensorsHeader {
  std::vector<TensorRecord> tensors;            // sorted by data_offsets
  std::map<std::string, std::string> metadata;  // "__metadata__", empty when absent
  std::uint64_t header_size = 0;                // N
  std::uint64_t buffer_offset = 0;              // 8 + N: where the byte buffer starts in the file
  std::uint64_t buffer_size = 0;
  const TensorRecord* find(const std::string& name) const;
};

// Parses and checks the whole layout (see above) of a file held in memory.
SafetensorsHeader parse_safetensors(const std::uint8_t* bytes, std::size_t size);

// The same from the header alone, for a file read in slices: `bytes` holds the file's first
// `available` bytes (at least 8 + N), file_size is the whole file's length, or kUnknownFileSize
// (a download without Content-Length): then the buffer is taken to end where the last tensor
// does, and the caller checks that the file ends there.
constexpr std::uint64_t kUnknownFileSize = ~std::uint64_t{0};
SafetensorsHeader parse_safetensors_header(const std::uint8_t* bytes, std::size_t available, std::uint64_t file_size);

// N, the header length, from the file's first 8 bytes, checked against the cap and file_size
// (or kUnknownFileSize) before anything else is read: the first check of parse_safetensors.
std::uint64_t safetensors_header_length(const std::uint8_t* first8, std::uint64_t file_size);

// One tensor of a parsed file as float32 (F16 and BF16 converted exactly). Throws attn::Error
// naming the tensor and element when a value is NaN or ±inf, or the dtype is not a float one.
std::vector<float> read_tensor(const std::uint8_t* bytes, std::size_t size, const SafetensorsHeader& header,
                               const TensorRecord& tensor);

struct ExportOptions {
  // Also write lm_head.weight (a copy of transformer.wte.weight), as nanoGPT's state_dict has
  // both names: model.load_state_dict(strict=True) then works. false halves the embedding bytes.
  bool lm_head = true;
  // Also write transformer.h.{i}.attn.bias, the (1, 1, T, T) tril(ones) buffer that nanoGPT
  // registers under torch < 2.0, so a strict load works there too.
  bool causal_mask_buffers = false;
  // The stored type: F32, or F16 (half the bytes; each value rounded to the nearest half, ties to
  // even, as torch's .half() rounds; attn::Error naming the tensor for a value beyond ±65504).
  // BF16 is not written.
  Dtype dtype = Dtype::kF32;
  // Extra "__metadata__" entries. The file always records "format": "pt" and the ModelConfig
  // (vocab_size, block_size, n_layer, n_head, n_embd as decimals; bias, mlp, layer_norm as
  // "true"/"false"; gelu ("tanh") and layer_norm_eps (shortest round-trip decimal) only when they
  // are not nanoGPT's exact GELU and 1e-5, so a nanoGPT model's file is as before); an entry here
  // with the same key replaces it.
  std::map<std::string, std::string> metadata;
};

// What a state_dict's tensors say of the config that made it, read from nanoGPT's names and
// shapes: vocab_size and n_embd from transformer.wte.weight (or lm_head.weight), block_size from
// transformer.wpe.weight, n_layer from the transformer.h.<i> blocks, and bias, mlp and
// layer_norm from which tensors are there. -1 where the tensors cannot say; n_head never can (the
// fused c_attn has the same shape whatever the head count), nor mlp/layer_norm/bias without
// blocks and LayerNorms to look at. For files without our metadata (torch's own save_file).
struct InferredConfig {
  int vocab_size = -1, block_size = -1, n_layer = -1, n_embd = -1;
  int bias = -1, mlp = -1, layer_norm = -1;  // 1 or 0 when known
};
InferredConfig infer_config(const SafetensorsHeader& header);

// The parameters (table.total() floats) as an F32 safetensors file, tensors in state_dict order
// and back to back in the buffer, the header JSON compact and padded with spaces to a multiple
// of 8 bytes (as the reference writer pads). Throws attn::Error when a metadata string is not
// valid UTF-8 or the file would exceed kMaxExportBytes.
std::vector<std::uint8_t> export_safetensors(const ParamTable& table, const float* params,
                                             const ExportOptions& options = {});

// Messages: every one starts "safetensors: " and names a tensor JSON-quoted (control bytes
// visible, cut at 120 characters), as checkpoint.cpp's do too.
[[noreturn]] void safetensors_fail(const std::string& message);
std::string quote_tensor_name(const std::string& name);
std::string tensor_label(const std::string& name);                // tensor "name"
std::string shape_text(const std::vector<std::uint64_t>& shape);  // (2, 3) or (4,)
std::string shape_text(const std::vector<int>& shape);

}  // namespace attn::model

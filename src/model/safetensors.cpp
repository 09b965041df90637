// safetensors import and export (safetensors.h). Every check happens before the value it guards
// is used; the messages name the tensor (as JSON, truncated) or the file byte.
#include "model/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/attention.h"
#include "model/detail/json_text.h"
#include "model/layers.h"

namespace attn::model {

using json = nlohmann::json;

[[noreturn]] void safetensors_fail(const std::string& message) { throw Error("safetensors: " + message); }

// A name as it appears in a message: JSON-quoted (so control bytes and quotes are visible),
// cut at 120 characters. Never throws (invalid UTF-8 is replaced).
std::string quote_tensor_name(const std::string& name) {
  const std::string cut = name.size() > 120 ? name.substr(0, 120) : name;
  std::string out = json(cut).dump(-1, ' ', false, json::error_handler_t::replace);
  if (cut.size() < name.size()) out += "… (" + std::to_string(name.size()) + " bytes)";
  return out;
}

std::string tensor_label(const std::string& name) { return "tensor " + quote_tensor_name(name); }

std::string json_shown(const json& value) {
  if (value.is_structured()) {
    bool flat = value.size() <= 16;
    for (auto it = value.begin(); flat && it != value.end(); ++it) flat = !it->is_structured();
    if (!flat) {
      return std::string(value.is_array() ? "an array of " : "an object of ") + std::to_string(value.size()) +
             (value.is_array() ? " values" : " keys");
    }
  }
  std::string out = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (out.size() > 200) {
    std::size_t n = 200;
    while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;  // not inside a character
    out = out.substr(0, n) + "…";
  }
  return out;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string shape_text(const std::vector<int>& shape) {
  return shape_text(std::vector<std::uint64_t>(shape.begin(), shape.end()));
}

namespace {

using Limits = SafetensorsLimits;

std::string range_text(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::uint64_t read_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

float f32_at(const std::uint8_t* p) {
  const std::uint32_t bits = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                             static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// IEEE binary16 → float32, exact (every half is a float).
float f16_at(const std::uint8_t* p) {
  const std::uint32_t h = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8;
  const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf or NaN
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 → 127
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// bfloat16 → float32: the high half of the float's bits.
float bf16_at(const std::uint8_t* p) {
  const std::uint32_t bits = (static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// float32 → IEEE binary16, rounded to nearest, ties to even (the F16C instruction's and torch's
// .half() rounding). Finite values beyond the largest half (65504 plus half an ulp) become ±inf,
// which the caller refuses.
std::uint16_t f16_bits(float value) {
  std::uint32_t f;
  std::memcpy(&f, &value, 4);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t magnitude = f & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0));
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // ≥ 65520: rounds to inf
  if (magnitude < 0x38800000u) {                                                    // below 2^-14: subnormal or zero
    // value · 2^24 rounded to an integer, ties to even (exact in float: the product is < 2^10).
    const float scaled = std::ldexp(std::fabs(value), 24);
    const float whole = std::nearbyint(scaled);  // the default rounding mode: to nearest, ties to even
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(whole));
  }
  // Normal: rebias the exponent, keep 10 mantissa bits, round on the 13 dropped ones.
  std::uint32_t h = ((magnitude >> 13) - (112u << 10));
  const std::uint32_t dropped = magnitude & 0x1fffu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is right
  return static_cast<std::uint16_t>(sign | h);
}

void put_le32(std::uint8_t* p, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(bits >> (8 * i));
}

// Builds the header's JSON value through nlohmann's SAX interface, checking while it parses what
// a DOM would hide or cost: duplicate keys (nlohmann keeps the last silently), nesting deeper than
// {name: {key: [values]}}, and more than kMaxTensors entries. (nlohmann's callback parser would
// do the first two, but it rescans the parent object at every closing brace: 6 s for 16k entries.)
class HeaderSax {
 public:
  explicit HeaderSax(json& root) : root_(root) {}

  bool null() { return place(json(nullptr)); }
  bool boolean(bool v) { return place(json(v)); }
  bool number_integer(json::number_integer_t v) { return place(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return place(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return place(json(v)); }
  bool string(json::string_t& v) { return place(json(std::move(v))); }
  bool binary(json::binary_t&) { return place(json(nullptr)); }  // never produced by JSON text
  bool start_object(std::size_t) {
    open(json::value_t::object);
    keys_.emplace_back();
    return true;
  }
  bool key(json::string_t& key) {
    if (!keys_.back().insert(key).second) {
      if (open_.size() == 1) safetensors_fail("duplicate tensor name " + quote_tensor_name(key) + " in the header");
      safetensors_fail(tensor_label(tensor_) + ": duplicate key " + quote_tensor_name(key));
    }
    if (open_.size() == 1) {
      tensor_ = key;
      if (key != "__metadata__" && ++tensors_ > Limits::kMaxTensors) {
        safetensors_fail("the header lists more than " + std::to_string(Limits::kMaxTensors) + " tensors");
      }
    }
    key_ = std::move(key);
    return true;
  }
  bool end_object() {
    open_.pop_back();
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    open(json::value_t::array);
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const json::exception& e) {
    // position counts bytes read from 1 within the header; the header starts at file byte 8.
    std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    if (what.compare(0, 1, "[") == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
    safetensors_fail("header is not valid JSON (file byte " + std::to_string(8 + (position > 0 ? position - 1 : 0)) +
                     "): " + what);
  }

 private:
  // Stores a value where the parser is: the root, the next array element or the pending key.
  // Pointers to open containers stay valid: only the innermost open container grows.
  json* put(json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(value);
    return &slot;
  }
  bool place(json&& value) {
    put(std::move(value));
    return true;
  }
  void open(json::value_t type) {
    // Open containers: the header (1), an entry (2), its shape or offsets (3); no deeper.
    if (open_.size() >= 3)
      safetensors_fail(tensor_label(tensor_) + ": the header nests deeper than {name: {key: [values]}}");
    open_.push_back(put(json(type)));
  }

  json& root_;
  std::vector<json*> open_;
  std::vector<std::set<std::string>> keys_;  // keys seen, per open object
  std::string key_;                          // the key whose value comes next
  std::string tensor_;                       // the last top-level key
  std::size_t tensors_ = 0;
};

json parse_header_json(const std::uint8_t* begin, std::uint64_t n) {
  // nlohmann stops reading at a NUL byte as if the input ended; JSON text never holds a raw one.
  if (const void* nul = std::memchr(begin, 0, static_cast<std::size_t>(n))) {
    safetensors_fail("header holds a NUL byte at file byte " +
                     std::to_string(8 + (static_cast<const std::uint8_t*>(nul) - begin)) + "; it must be JSON text");
  }
  json root;
  HeaderSax sax(root);
  try {
    json::sax_parse(begin, begin + n, &sax);
  } catch (const json::exception& e) {
    safetensors_fail(std::string("header is not valid JSON: ") + e.what());
  }
  return root;
}

const char* kEntryShape = "expected an object {\"dtype\", \"shape\", \"data_offsets\"}";

// The format's dtypes by name, in Dtype's order, with their widths in bytes.
struct DtypeInfo {
  const char* name;
  std::size_t width;
};
const DtypeInfo kDtypes[] = {{"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8},     {"I64", 8},
                             {"U64", 8}, {"I32", 4}, {"U32", 4},  {"I16", 2},     {"U16", 2},
                             {"I8", 1},  {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
static_assert(sizeof kDtypes / sizeof kDtypes[0] == static_cast<std::size_t>(Dtype::kF8E5M2) + 1, "one per Dtype");

bool dtype_of(const std::string& name, Dtype& dtype) {
  for (std::size_t i = 0; i < sizeof kDtypes / sizeof kDtypes[0]; ++i) {
    if (name == kDtypes[i].name) {
      dtype = static_cast<Dtype>(i);
      return true;
    }
  }
  return false;
}

TensorRecord parse_entry(const std::string& name, const json& value, std::uint64_t buffer_size) {
  const std::string label = tensor_label(name);
  if (!value.is_object()) safetensors_fail(label + ": " + kEntryShape);
  for (const auto& item : value.items()) {
    const std::string& key = item.key();
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      safetensors_fail(label + ": unexpected key " + quote_tensor_name(key));
  }
  TensorRecord r;
  r.name = name;

  // dtype
  if (!value.contains("dtype")) safetensors_fail(label + ": missing dtype");
  const json& dtype = value.at("dtype");
  if (!dtype.is_string()) safetensors_fail(label + ": dtype must be a string such as \"F32\"");
  const std::string& d = dtype.get_ref<const std::string&>();
  if (!dtype_of(d, r.dtype)) {
    safetensors_fail(
        label + ": dtype " + quote_tensor_name(d) +
        " is not supported (F32, F16, BF16 for parameters; buffers may also be F64, I64, U64, I32, U32, I16, U16, "
        "I8, U8, BOOL, F8_E4M3, F8_E5M2)");
  }

  // shape
  if (!value.contains("shape")) safetensors_fail(label + ": missing shape");
  const json& shape = value.at("shape");
  if (!shape.is_array()) safetensors_fail(label + ": shape must be an array of non-negative integers");
  if (shape.size() > Limits::kMaxRank) {
    safetensors_fail(label + ": shape has " + std::to_string(shape.size()) + " dimensions; at most " +
                     std::to_string(Limits::kMaxRank));
  }
  for (const json& dim : shape) {
    if (!dim.is_number_unsigned())
      safetensors_fail(label + ": shape must be an array of non-negative integers, got " + json_shown(dim));
    r.shape.push_back(dim.get<std::uint64_t>());
  }

  // data_offsets
  if (!value.contains("data_offsets")) safetensors_fail(label + ": missing data_offsets");
  const json& offsets = value.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    safetensors_fail(label + ": data_offsets must be [begin, end], two non-negative integers, got " +
                     json_shown(offsets));
  }
  r.begin = offsets[0].get<std::uint64_t>();
  r.end = offsets[1].get<std::uint64_t>();
  if (r.begin > r.end)
    safetensors_fail(label + ": data_offsets [" + std::to_string(r.begin) + ", " + std::to_string(r.end) +
                     "] begin after end");
  if (r.end > buffer_size) {
    safetensors_fail(label + ": data_offsets " + range_text(r.begin, r.end) + " run past the " +
                     std::to_string(buffer_size) + "-byte buffer");
  }

  // elements × dtype size = end − begin, without overflow: any product beyond the buffer fails.
  const std::uint64_t width = dtype_size(r.dtype);
  std::uint64_t elements = 1;
  const bool empty = std::find(r.shape.begin(), r.shape.end(), 0) != r.shape.end();
  if (empty) {
    elements = 0;
  } else {
    for (std::uint64_t dim : r.shape) {
      if (elements > buffer_size / width / dim) {
        safetensors_fail(label + ": shape " + shape_text(r.shape) + " of " + d + " needs more bytes than the " +
                         std::to_string(buffer_size) + "-byte buffer holds");
      }
      elements *= dim;
    }
  }
  if (elements * width != r.end - r.begin) {
    safetensors_fail(label + ": data_offsets " + range_text(r.begin, r.end) + " hold " +
                     std::to_string(r.end - r.begin) + " bytes; shape " + shape_text(r.shape) + " of " + d + " needs " +
                     std::to_string(elements * width));
  }
  return r;
}

}  // namespace

const char* dtype_name(Dtype dtype) { return kDtypes[static_cast<std::size_t>(dtype)].name; }

std::size_t dtype_size(Dtype dtype) { return kDtypes[static_cast<std::size_t>(dtype)].width; }

bool is_float_param(Dtype dtype) { return dtype == Dtype::kF32 || dtype == Dtype::kF16 || dtype == Dtype::kBF16; }

float float_at(Dtype dtype, const std::uint8_t* p) {
  return dtype == Dtype::kF32 ? f32_at(p) : dtype == Dtype::kF16 ? f16_at(p) : bf16_at(p);
}

std::uint64_t TensorRecord::elements() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

const TensorRecord* SafetensorsHeader::find(const std::string& name) const {
  for (const TensorRecord& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

InferredConfig infer_config(const SafetensorsHeader& header) {
  // header: the parsed tensors (names and shapes only; nothing is read)
  InferredConfig c;
  const TensorRecord* wte = header.find("transformer.wte.weight");
  if (!wte) wte = header.find("lm_head.weight");
  if (wte && wte->shape.size() == 2) {
    c.vocab_size = static_cast<int>(std::min<std::uint64_t>(wte->shape[0], INT32_MAX));
    c.n_embd = static_cast<int>(std::min<std::uint64_t>(wte->shape[1], INT32_MAX));
  }
  const TensorRecord* wpe = header.find("transformer.wpe.weight");
  if (wpe && wpe->shape.size() == 2) c.block_size = static_cast<int>(std::min<std::uint64_t>(wpe->shape[0], INT32_MAX));

  const std::string block = "transformer.h.";
  const auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::set<long long> blocks;
  bool any_bias = false, any_mlp = false, any_norm = header.find("transformer.ln_f.weight") != nullptr;
  for (const TensorRecord& t : header.tensors) {
    if (t.name.rfind(block, 0) == 0) {
      const size_t dot = t.name.find('.', block.size());
      const std::string index =
          t.name.substr(block.size(), dot == std::string::npos ? std::string::npos : dot - block.size());
      if (!index.empty() && index.size() <= 6 &&
          std::all_of(index.begin(), index.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        blocks.insert(std::stoll(index));
      any_mlp = any_mlp || ends_with(t.name, ".mlp.c_fc.weight");
      any_norm = any_norm || ends_with(t.name, ".ln_1.weight");
    }
    // attn.bias and attn.masked_bias are torch < 2's causal-mask buffers, not parameters.
    if (ends_with(t.name, ".bias") && !ends_with(t.name, ".attn.bias") && !ends_with(t.name, ".attn.masked_bias"))
      any_bias = true;
  }
  if (wte) c.n_layer = static_cast<int>(blocks.size());
  if (!blocks.empty()) c.mlp = any_mlp ? 1 : 0;
  if (!blocks.empty() || any_norm) c.layer_norm = any_norm ? 1 : 0;
  if (!blocks.empty() || any_norm) c.bias = any_bias ? 1 : 0;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Parsing

std::uint64_t safetensors_header_length(const std::uint8_t* first8, std::uint64_t file_size) {
  // first8: the file's bytes 0-7 (file_size ≥ 8, or kUnknownFileSize)
  const std::uint64_t n = read_le64(first8);
  // A file of text (an HTML error page, a JSON file, a pointer file of Git LFS) is named as such:
  // its first 8 bytes read as an impossible length.
  const bool text = std::all_of(first8, first8 + 8, [](std::uint8_t b) {
    return b == '\t' || b == '\n' || b == '\r' || (b >= 0x20 && b < 0x7f);
  });
  if (n > Limits::kMaxHeaderBytes && text) {
    safetensors_fail("not a safetensors file: it begins with text (\"" + std::string(first8, first8 + 8) +
                     "…\"); a safetensors file begins with its header's length in 8 bytes");
  }
  if (n > Limits::kMaxHeaderBytes) {
    safetensors_fail("header length " + std::to_string(n) + " (file bytes 0-7) exceeds the " +
                     std::to_string(Limits::kMaxHeaderBytes) + "-byte limit");
  }
  if (file_size != kUnknownFileSize && n > file_size - 8) {
    safetensors_fail("header length " + std::to_string(n) + " (file bytes 0-7) runs past the end of the " +
                     std::to_string(file_size) + "-byte file");
  }
  if (n == 0) safetensors_fail("header is empty; it must be a JSON object beginning with '{' at file byte 8");
  return n;
}

SafetensorsHeader parse_safetensors(const std::uint8_t* bytes, std::size_t size) {
  return parse_safetensors_header(bytes, size, size);
}

SafetensorsHeader parse_safetensors_header(const std::uint8_t* bytes, std::size_t available, std::uint64_t file_size) {
  // bytes: the file's first `available` bytes; file_size: the file's length or kUnknownFileSize
  // 1. the header length
  const std::uint64_t size = file_size;
  if (size < 8 || available < 8) {
    safetensors_fail("file is " + std::to_string(std::min<std::uint64_t>(size, available)) +
                     " bytes, shorter than the 8-byte header length");
  }
  const std::uint64_t n = safetensors_header_length(bytes, size);
  if (n > available - 8) {
    safetensors_fail("header length " + std::to_string(n) + " (file bytes 0-7): only " + std::to_string(available) +
                     " bytes of the file were read");
  }
  if (bytes[8] != '{') {
    const char* hex = "0123456789abcdef";
    safetensors_fail(std::string("header must begin with '{' at file byte 8, found byte 0x") + hex[bytes[8] >> 4] +
                     hex[bytes[8] & 15]);
  }
  SafetensorsHeader header;
  header.header_size = n;
  header.buffer_offset = 8 + n;
  // Unknown size: any end an entry claims is allowed here; the buffer then ends where the last does.
  header.buffer_size = size - 8 - n;

  // 2. the JSON, then each entry
  const json root = parse_header_json(bytes + 8, n);
  if (!root.is_object()) safetensors_fail("header must be a JSON object");
  for (const auto& item : root.items()) {
    if (item.key() == "__metadata__") {
      if (!item.value().is_object()) safetensors_fail("__metadata__ must be an object mapping strings to strings");
      for (const auto& m : item.value().items()) {
        if (!m.value().is_string()) {
          safetensors_fail("__metadata__ " + quote_tensor_name(m.key()) + " must be a string, got " +
                           std::string(m.value().type_name()));
        }
        header.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    header.tensors.push_back(parse_entry(item.key(), item.value(), header.buffer_size));
  }

  // 3. the offsets together: ordered, no overlap, no hole, the whole buffer
  std::sort(header.tensors.begin(), header.tensors.end(), [](const TensorRecord& a, const TensorRecord& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t covered = 0;
  const TensorRecord* previous = nullptr;
  for (const TensorRecord& t : header.tensors) {
    if (t.begin < covered) {
      safetensors_fail("tensors " + quote_tensor_name(previous->name) + " " +
                       range_text(previous->begin, previous->end) + " and " + quote_tensor_name(t.name) + " " +
                       range_text(t.begin, t.end) + " overlap");
    }
    if (t.begin > covered) {
      safetensors_fail("buffer bytes " + range_text(covered, t.begin) + " (file byte " +
                       std::to_string(header.buffer_offset + covered) + ") belong to no tensor");
    }
    covered = t.end;
    previous = &t;
  }
  if (size == kUnknownFileSize) header.buffer_size = covered;
  if (covered != header.buffer_size) {
    safetensors_fail("buffer bytes " + range_text(covered, header.buffer_size) + " (file byte " +
                     std::to_string(header.buffer_offset + covered) + ") belong to no tensor");
  }
  return header;
}

std::vector<float> read_tensor(const std::uint8_t* bytes, std::size_t size, const SafetensorsHeader& header,
                               const TensorRecord& tensor) {
  // The record was checked against the buffer when parsed; check again that it belongs to it.
  if (header.buffer_offset > size || tensor.end > size - header.buffer_offset || tensor.begin > tensor.end) {
    safetensors_fail(tensor_label(tensor.name) + ": data_offsets " + range_text(tensor.begin, tensor.end) +
                     " lie outside the file");
  }
  if (!is_float_param(tensor.dtype)) {
    safetensors_fail(tensor_label(tensor.name) + ": dtype " + dtype_name(tensor.dtype) +
                     " is not supported for a parameter (F32, F16, BF16)");
  }
  const std::uint8_t* p = bytes + header.buffer_offset + tensor.begin;
  const std::size_t width = dtype_size(tensor.dtype);
  const std::size_t n = static_cast<std::size_t>((tensor.end - tensor.begin) / width);
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i, p += width) {
    const float v = float_at(tensor.dtype, p);
    if (!std::isfinite(v)) {
      safetensors_fail(tensor_label(tensor.name) + ": element " + std::to_string(i) + " is " +
                       (std::isnan(v) ? "nan"
                        : v > 0       ? "inf"
                                      : "-inf") +
                       " (file byte " + std::to_string(header.buffer_offset + tensor.begin + i * width) +
                       "); every parameter must be finite");
    }
    out[i] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Export

std::vector<std::uint8_t> export_safetensors(const ParamTable& table, const float* params,
                                             const ExportOptions& options) {
  const ModelConfig& c = table.config();
  std::map<std::string, std::string> metadata = {
      {"format", "pt"},
      {"vocab_size", std::to_string(c.vocab_size)},
      {"block_size", std::to_string(c.block_size)},
      {"n_layer", std::to_string(c.n_layer)},
      {"n_head", std::to_string(c.n_head)},
      {"n_embd", std::to_string(c.n_embd)},
      {"bias", c.bias ? "true" : "false"},
      {"mlp", c.mlp ? "true" : "false"},
      {"layer_norm", c.layer_norm ? "true" : "false"},
  };
  if (c.gelu != Gelu::kExact) metadata["gelu"] = gelu_name(c.gelu);
  if (c.layer_norm_eps != kLayerNormEps) {
    // The shortest decimal that reads back as the same double.
    char eps[32];
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(eps, sizeof eps, "%.*g", digits, c.layer_norm_eps);
      if (std::strtod(eps, nullptr) == c.layer_norm_eps) break;
    }
    metadata["layer_norm_eps"] = eps;
  }
  for (const auto& [key, value] : options.metadata) metadata[key] = value;

  if (options.dtype == Dtype::kBF16) safetensors_fail("export: dtype BF16 is not written (F32 or F16)");
  const bool half = options.dtype == Dtype::kF16;
  const std::uint64_t bytes_per_value = half ? 2 : 4;

  // 1. the tensors in state_dict order, each with its shape and byte range
  struct Item {
    std::string name;
    std::vector<int> shape;
    const ParamEntry* entry;  // null: the causal-mask buffer
    std::uint64_t begin, end;
  };
  std::vector<Item> items;
  std::uint64_t offset = 0;
  const std::uint64_t T = static_cast<std::uint64_t>(c.block_size);
  for (const std::string& name : table.state_dict_names(options.lm_head, options.causal_mask_buffers)) {
    const ParamEntry* e = table.find(name);
    Item item{name, e ? e->shape : std::vector<int>{1, 1, c.block_size, c.block_size}, e, offset, 0};
    offset += bytes_per_value * (e ? static_cast<std::uint64_t>(e->size) : T * T);
    item.end = offset;
    items.push_back(std::move(item));
  }

  // 2. the header: compact JSON, __metadata__ first, padded with spaces to a multiple of 8
  std::string header = "{\"__metadata__\":{";
  try {
    bool first = true;
    for (const auto& [key, value] : metadata) {
      header += (first ? "" : ",") + json(key).dump() + ":" + json(value).dump();
      first = false;
    }
  } catch (const json::exception&) {
    safetensors_fail("export: a metadata key or value is not valid UTF-8");
  }
  header += "}";
  for (const Item& item : items) {
    header += ",\"" + item.name + "\":{\"dtype\":\"" + dtype_name(options.dtype) + "\",\"shape\":[";
    for (std::size_t i = 0; i < item.shape.size(); ++i) header += (i ? "," : "") + std::to_string(item.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(item.begin) + "," + std::to_string(item.end) + "]}";
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');

  const std::uint64_t total = 8 + header.size() + offset;
  if (total > Limits::kMaxExportBytes) {
    safetensors_fail("export: the file would be " + std::to_string(total) + " bytes; at most " +
                     std::to_string(Limits::kMaxExportBytes) +
                     (options.causal_mask_buffers ? " (drop causal_mask_buffers)" : ""));
  }

  // 3. the bytes
  std::vector<std::uint8_t> out(static_cast<std::size_t>(total));
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* buffer = out.data() + 8 + header.size();
  for (const Item& item : items) {
    std::uint8_t* p = buffer + item.begin;
    const auto put = [&](float value, std::size_t i) {
      if (!half) {
        put_le32(p, value);
        p += 4;
        return;
      }
      const std::uint16_t h = f16_bits(value);
      if ((h & 0x7c00u) == 0x7c00u && std::isfinite(value)) {
        safetensors_fail("export: " + item.name + "[" + std::to_string(i) + "] = " + std::to_string(value) +
                         " does not fit F16 (|value| ≤ 65504); export as F32");
      }
      p[0] = static_cast<std::uint8_t>(h);
      p[1] = static_cast<std::uint8_t>(h >> 8);
      p += 2;
    };
    if (item.entry) {
      const float* src = params + item.entry->offset;
      for (std::size_t i = 0; i < item.entry->size; ++i) put(src[i], i);
    } else {  // tril(ones(T, T)): row i keeps columns j ≤ i
      for (std::uint64_t i = 0; i < T; ++i)
        for (std::uint64_t j = 0; j < T; ++j) put(j <= i ? 1.0f : 0.0f, 0);
    }
  }
  return out;
}

}  // namespace attn::model

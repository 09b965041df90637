// A model from a safetensors checkpoint in nanoGPT's or Hugging Face's GPT-2 layout (checkpoint.h).
// Legend: V vocab_size, T block_size, L n_layer, C n_embd. Every check happens before what it
// guards: names, shapes and dtypes before a float is allocated, each value before it is stored.
#include "model/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/attention.h"
#include "core/messages.h"
#include "kernels/gemm.h"
#include "kernels/half.h"
#include "model/detail/json_text.h"
#include "model/layers.h"

namespace attn::model {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxConfigJsonBytes = 1 << 20;
const std::string kPrefix = "transformer.";
const std::string kBlockPrefix = "transformer.h.";

bool starts_with(const std::string& s, const std::string& head) { return s.compare(0, head.size(), head) == 0; }
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A file's name in nanoGPT's spelling: GPT2Model's state_dict (and gpt2's own model.safetensors)
// has no "transformer." prefix.
std::string canonical_name(const std::string& name) {
  for (const char* head : {"wte.", "wpe.", "h.", "ln_f."})
    if (starts_with(name, head)) return kPrefix + name;
  return name;
}

// transformer.h.{digits}.attn.bias / .attn.masked_bias: torch's causal-mask buffers.
bool is_mask_buffer(const std::string& name) {
  if (!starts_with(name, kBlockPrefix)) return false;
  std::size_t i = kBlockPrefix.size();
  const std::size_t digits = i;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
  if (i == digits) return false;
  const std::string rest = name.substr(i);
  return rest == ".attn.bias" || rest == ".attn.masked_bias";
}

// The four weights Hugging Face's GPT-2 keeps in Conv1D's (in, out) layout.
// values: elements first … first + n − 1 of a weight w (O, I) in the file's order — w's rows, or
// wᵀ's (I, O) for a Conv1D weight (conv1d) — placed where a model in panels keeps them (gpt.h:
// w(o, i) at kernels::panel_index(i, o, I, O)).
template <typename W>
void panels_into(W* dest, const W* values, std::size_t first, std::size_t n, int O, int I, bool conv1d) {
  const std::size_t cols = static_cast<std::size_t>(conv1d ? O : I);
  std::size_t r = first / cols, c = first % cols;
  for (std::size_t k = 0; k < n; ++k) {
    const int o = static_cast<int>(conv1d ? c : r), i = static_cast<int>(conv1d ? r : c);
    dest[kernels::panel_index(i, o, I, O)] = values[k];
    if (++c == cols) c = 0, ++r;
  }
}

bool is_conv1d_weight(const std::string& name) {
  return starts_with(name, kBlockPrefix) &&
         (ends_with(name, ".attn.c_attn.weight") || ends_with(name, ".attn.c_proj.weight") ||
          ends_with(name, ".mlp.c_fc.weight") || ends_with(name, ".mlp.c_proj.weight"));
}

// Why a name is not in this model, when a switch of the config explains it.
std::string absent_reason(const ModelConfig& c, const std::string& name) {
  if (starts_with(name, kBlockPrefix)) {
    std::size_t i = kBlockPrefix.size();
    long long layer = 0;
    bool digits = false;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && layer < 1000000) {
      layer = layer * 10 + (name[i] - '0');
      ++i;
      digits = true;
    }
    if (digits && layer >= c.n_layer) return " (the model has n_layer = " + std::to_string(c.n_layer) + ")";
  }
  if (!c.mlp && (name.find(".mlp.") != std::string::npos || name.find(".ln_2.") != std::string::npos)) {
    return " (the model has mlp = false)";
  }
  if (!c.layer_norm && name.find("ln_") != std::string::npos) return " (the model has layer_norm = false)";
  if (!c.bias && ends_with(name, ".bias")) return " (the model has bias = false)";
  return "";
}

// ---------------------------------------------------------------------------------------------
// The config's sources

// A metadata entry of an exported file as a whole number or a boolean; missing: −1.
int metadata_int(const SafetensorsHeader& h, const char* key) {
  const auto found = h.metadata.find(key);
  if (found == h.metadata.end()) return -1;
  const std::string& v = found->second;
  if (v == "true") return 1;
  if (v == "false") return 0;
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) {
    throw Error(std::string("metadata: ") + key + " is \"" + v + "\", expected a whole number or true/false");
  }
  return std::stoi(v);
}

ConfigFields metadata_fields(const SafetensorsHeader& h) {
  ConfigFields f;
  f.vocab_size = metadata_int(h, "vocab_size"), f.block_size = metadata_int(h, "block_size");
  f.n_layer = metadata_int(h, "n_layer"), f.n_head = metadata_int(h, "n_head"), f.n_embd = metadata_int(h, "n_embd");
  f.bias = metadata_int(h, "bias"), f.mlp = metadata_int(h, "mlp"), f.layer_norm = metadata_int(h, "layer_norm");
  if (const auto gelu = h.metadata.find("gelu"); gelu != h.metadata.end()) {
    if (gelu->second != "exact" && gelu->second != "tanh") {
      throw Error("metadata: gelu is \"" + gelu->second + "\", expected \"exact\" or \"tanh\"");
    }
    f.gelu = static_cast<int>(gelu->second == "tanh" ? Gelu::kTanh : Gelu::kExact);
  }
  if (const auto eps = h.metadata.find("layer_norm_eps"); eps != h.metadata.end()) {
    char* end = nullptr;
    const double v = std::strtod(eps->second.c_str(), &end);
    if (eps->second.empty() || eps->second.size() > 32 || end != eps->second.c_str() + eps->second.size()) {
      throw Error("metadata: layer_norm_eps is \"" + eps->second + "\", expected a number");
    }
    f.layer_norm_eps = v;
  }
  return f;
}

[[noreturn]] void config_fail(const std::string& message) { throw Error("config.json: " + message); }

}  // namespace

ConfigFields parse_hf_config(const std::string& text) {
  if (text.size() > kMaxConfigJsonBytes) {
    config_fail(std::to_string(text.size()) + " bytes; at most " + std::to_string(kMaxConfigJsonBytes));
  }
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    if (what.compare(0, 1, "[") == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
    config_fail("not valid JSON: " + what);
  }
  if (!root.is_object()) config_fail("expected a JSON object such as Hugging Face's GPT-2 config");

  // What model it describes.
  if (root.contains("model_type")) {
    const json& type = root.at("model_type");
    if (!type.is_string() || type.get_ref<const std::string&>() != "gpt2") {
      config_fail("model_type " + json_shown(type) +
                  " is not GPT-2's (\"gpt2\"); this engine runs GPT2LMHeadModel checkpoints");
    }
  }
  if (root.contains("architectures")) {
    const json& archs = root.at("architectures");
    if (!archs.is_array()) config_fail("architectures must be a list of class names");
    for (const json& a : archs) {
      if (!a.is_string() || !starts_with(a.get_ref<const std::string&>(), "GPT2")) {
        config_fail("architectures " + json_shown(archs) + " is not GPT-2's (GPT2LMHeadModel)");
      }
    }
  }

  ConfigFields f;
  // The first of the keys present (Hugging Face's attribute_map aliases), as a whole number.
  auto whole = [&](std::initializer_list<const char*> keys, int& field) {
    for (const char* key : keys) {
      if (!root.contains(key) || root.at(key).is_null()) continue;
      const json& v = root.at(key);
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > (1 << 30)) {
        config_fail(std::string(key) + " must be a whole number, got " + json_shown(v));
      }
      field = static_cast<int>(v.get<long long>());
      return;
    }
  };
  whole({"vocab_size"}, f.vocab_size);
  whole({"n_positions", "max_position_embeddings", "n_ctx"}, f.block_size);
  whole({"n_layer", "num_hidden_layers"}, f.n_layer);
  whole({"n_head", "num_attention_heads"}, f.n_head);
  whole({"n_embd", "hidden_size"}, f.n_embd);

  if (root.contains("layer_norm_epsilon")) {
    const json& v = root.at("layer_norm_epsilon");
    if (!v.is_number()) config_fail("layer_norm_epsilon must be a number, got " + json_shown(v));
    f.layer_norm_eps = v.get<double>();
  }
  if (root.contains("activation_function")) {
    const json& v = root.at("activation_function");
    const std::string name = v.is_string() ? v.get<std::string>() : json_shown(v);
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
      f.gelu = static_cast<int>(Gelu::kTanh);  // the same tanh approximation, up to float rounding
    } else if (name == "gelu") {
      f.gelu = static_cast<int>(Gelu::kExact);
    } else {
      config_fail("activation_function " + json_shown(v) +
                  " is not supported (gelu_new, gelu_pytorch_tanh or gelu_fast: the tanh GELU; gelu: the exact one)");
    }
  }

  // Options of GPT2Config this engine does not implement.
  if (root.contains("n_inner") && !root.at("n_inner").is_null()) {
    const json& v = root.at("n_inner");
    if (!v.is_number_integer() || f.n_embd < 0 || v.get<long long>() != 4LL * f.n_embd) {
      config_fail("n_inner " + json_shown(v) + ": only the MLP width 4·n_embd (n_inner null) is supported");
    }
  }
  auto flag = [&](const char* key, bool supported) {
    if (!root.contains(key)) return;
    const json& v = root.at(key);
    if (!v.is_boolean()) config_fail(std::string(key) + " must be true or false, got " + json_shown(v));
    if (v.get<bool>() != supported) {
      config_fail(std::string(key) + " " + json_shown(v) + " is not supported (only " + (supported ? "true" : "false") +
                  ", GPT-2's)");
    }
  };
  flag("scale_attn_weights", true);
  flag("scale_attn_by_inverse_layer_idx", false);
  flag("add_cross_attention", false);
  return f;
}

// ---------------------------------------------------------------------------------------------
// The loader

CheckpointLoader::CheckpointLoader(const std::uint8_t* bytes, std::size_t available, std::uint64_t file_size,
                                   const ConfigFields& overrides, const std::string& config_json, Precision precision,
                                   double f32_budget)
    : header_(parse_safetensors_header(bytes, available, file_size)) {
  // 1. names in nanoGPT's spelling; mask buffers left out; one tensor per parameter
  struct Named {
    std::string canonical;
    const TensorRecord* record;
  };
  std::vector<Named> named;
  std::map<std::string, const TensorRecord*> by_name;
  bool ours = false;  // any name of the model's at all
  for (const TensorRecord& t : header_.tensors) {
    const std::string canonical = canonical_name(t.name);
    ours = ours || starts_with(canonical, kPrefix) || canonical == "lm_head.weight";
    if (is_mask_buffer(canonical)) continue;
    const auto [at, fresh] = by_name.emplace(canonical, &t);
    if (!fresh) {
      safetensors_fail("tensors " + quote_tensor_name(at->second->name) + " and " + quote_tensor_name(t.name) +
                       " are the same parameter " + canonical);
    }
    named.push_back({canonical, &t});
  }
  if (!ours) {
    std::string first;
    for (std::size_t i = 0; i < header_.tensors.size() && i < 3; ++i)
      first += (i ? ", " : "") + quote_tensor_name(header_.tensors[i].name);
    safetensors_fail(
        "not a GPT-2 or nanoGPT checkpoint: no transformer.wte.weight, wte.weight or lm_head.weight" +
        (first.empty() ? std::string(" (the file holds no tensors)") : " (the file holds " + first + ", …)"));
  }
  const bool prefixed = !by_name.count("transformer.wte.weight") ||
                        by_name.at("transformer.wte.weight")->name == "transformer.wte.weight";

  // 2. the layout, from the first block's c_attn: (3C, C) nanoGPT's Linear, (C, 3C) a Conv1D
  if (const auto c_attn = by_name.find("transformer.h.0.attn.c_attn.weight"); c_attn != by_name.end()) {
    const std::vector<std::uint64_t>& s = c_attn->second->shape;
    if (s.size() == 2 && s[1] == 3 * s[0] && s[0] != 3 * s[1]) layout_ = CheckpointLayout::kConv1d;
  }
  const bool conv1d = layout_ == CheckpointLayout::kConv1d;

  // 3. the config, field by field
  SafetensorsHeader canonical_header;
  for (const Named& n : named) {
    TensorRecord r = *n.record;
    r.name = n.canonical;
    canonical_header.tensors.push_back(std::move(r));
  }
  const InferredConfig seen = infer_config(canonical_header);
  const ConfigFields meta = metadata_fields(header_);
  const ConfigFields hf = config_json.empty() ? ConfigFields{} : parse_hf_config(config_json);
  const std::string given = config_json.empty() ? "" : " or config.json";
  ModelConfig c;
  auto pick = [&](int over, int from_json, int from_meta, int inferred, const char* key, const char* js) {
    for (int v : {over, from_json, from_meta, inferred})
      if (v >= 0) return v;
    if (std::string(key) == "n_head") {
      const std::string hint =
          conv1d && seen.n_embd > 0 && seen.n_embd % 64 == 0
              ? " (GPT-2's heads are 64 wide: heads = n_embd / 64 = " + std::to_string(seen.n_embd / 64) + ")"
              : "";
      throw Error("heads: the file does not record n_head" + given +
                  ", and its tensors cannot tell (c_attn has the same shape for any number of heads); pass heads" +
                  hint);
    }
    throw Error(std::string("metadata: the file does not record ") + key + given +
                " and its tensors do not show it; pass " + js);
  };
  c.vocab_size = pick(overrides.vocab_size, hf.vocab_size, meta.vocab_size, seen.vocab_size, "vocab_size", "vocabSize");
  c.block_size =
      pick(overrides.block_size, hf.block_size, meta.block_size, seen.block_size, "block_size", "contextLength");
  c.n_layer = pick(overrides.n_layer, hf.n_layer, meta.n_layer, seen.n_layer, "n_layer", "layers");
  c.n_head = pick(overrides.n_head, hf.n_head, meta.n_head, -1, "n_head", "heads");
  c.n_embd = pick(overrides.n_embd, hf.n_embd, meta.n_embd, seen.n_embd, "n_embd", "width");
  // the switches default to nanoGPT's GPTConfig (bias = True; it has an MLP and LayerNorms)
  c.bias = pick(overrides.bias, hf.bias, meta.bias, seen.bias >= 0 ? seen.bias : 1, "bias", "bias") != 0;
  c.mlp = pick(overrides.mlp, hf.mlp, meta.mlp, seen.mlp >= 0 ? seen.mlp : 1, "mlp", "mlp") != 0;
  c.layer_norm = pick(overrides.layer_norm, hf.layer_norm, meta.layer_norm, seen.layer_norm >= 0 ? seen.layer_norm : 1,
                      "layer_norm", "layerNorm") != 0;
  const int default_gelu = static_cast<int>(conv1d ? Gelu::kTanh : Gelu::kExact);
  c.gelu = static_cast<Gelu>(pick(overrides.gelu, hf.gelu, meta.gelu, default_gelu, "gelu", "gelu"));
  c.layer_norm_eps = kLayerNormEps;
  for (double eps : {meta.layer_norm_eps, hf.layer_norm_eps, overrides.layer_norm_eps})
    if (!std::isnan(eps)) c.layer_norm_eps = eps;
  c.dropout = std::isnan(overrides.dropout) ? 0.0 : overrides.dropout;
  const ParamTable table(c);  // validates: attn::Error naming the field

  // 4. every tensor against its parameter: name, shape, dtype (nothing read or allocated yet)
  const auto shown = [&](const std::string& canonical) {
    return prefixed || !starts_with(canonical, kPrefix) ? canonical : canonical.substr(kPrefix.size());
  };
  std::vector<const Named*> source(table.entries().size(), nullptr);
  const Named* lm_head = nullptr;
  for (const Named& n : named) {
    const TensorRecord& t = *n.record;
    const ParamEntry* e = table.find(n.canonical);
    if (!e) {
      safetensors_fail("unexpected tensor " + quote_tensor_name(t.name) + ": not a parameter of this model" +
                       absent_reason(c, n.canonical));
    }
    const bool transposed = conv1d && is_conv1d_weight(n.canonical);
    std::vector<int> want = e->shape;
    if (transposed) std::swap(want[0], want[1]);
    if (t.shape != std::vector<std::uint64_t>(want.begin(), want.end())) {
      safetensors_fail(tensor_label(t.name) + ": shape " + shape_text(t.shape) + ", expected " + shape_text(want) +
                       (transposed ? " (Hugging Face's Conv1D layout: (in, out))" : ""));
    }
    if (!is_float_param(t.dtype)) {
      safetensors_fail(tensor_label(t.name) + ": dtype " + dtype_name(t.dtype) +
                       " is not supported for a parameter (F32, F16, BF16)");
    }
    if (n.canonical == "lm_head.weight") {
      lm_head = &n;
    } else {
      source[static_cast<std::size_t>(e - table.entries().data())] = &n;
    }
  }
  if (!source[0] && lm_head) source[0] = lm_head, lm_head = nullptr;  // wte stored under its tied name only
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < source.size(); ++i)
    if (!source[i]) missing.push_back(shown(table.entries()[i].name));
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) list += ", …";
    safetensors_fail("missing " + std::to_string(missing.size()) + " tensor" + (missing.size() > 1 ? "s" : "") + ": " +
                     list);
  }

  // 5. the copies in file order; of wte and lm_head.weight, the later one is compared
  for (std::size_t i = 0; i < source.size(); ++i) {
    const Named& n = *source[i];
    const ParamEntry& e = table.entries()[i];
    TensorCopy copy;
    copy.name = n.record->name, copy.dtype = n.record->dtype, copy.offset = e.offset, copy.entry = i;
    copy.begin = header_.buffer_offset + n.record->begin, copy.end = header_.buffer_offset + n.record->end;
    if (conv1d && is_conv1d_weight(n.canonical)) copy.rows = e.shape[1], copy.cols = e.shape[0];
    copies_.push_back(copy);
  }
  if (lm_head) {
    TensorCopy copy;
    copy.name = lm_head->record->name, copy.dtype = lm_head->record->dtype, copy.offset = table.wte().offset;
    copy.begin = header_.buffer_offset + lm_head->record->begin,
    copy.end = header_.buffer_offset + lm_head->record->end;
    copies_.push_back(copy);
  }
  std::sort(copies_.begin(), copies_.end(), [](const TensorCopy& a, const TensorCopy& b) { return a.begin < b.begin; });
  bool wte_seen = false;
  for (TensorCopy& copy : copies_) {
    if (copy.offset != table.wte().offset || copy.rows) continue;
    copy.compare = wte_seen;
    wte_seen = true;
  }
  progress_.resize(copies_.size());

  // 6. the parameters: every float of them is covered by the file's bytes (checked above), so
  // this allocates at most twice the file (F16) and within the config's cap.
  if ((precision == Precision::kF32 || precision == Precision::kF32Panels) &&
      static_cast<double>(table.total()) * 4.0 > f32_budget) {
    precision = Precision::kF16;
  }
  try {
    model_ = std::make_unique<Gpt>(c, Gpt::ZeroParams{}, precision);
  } catch (const std::bad_alloc&) {
    const bool sixteen = precision == Precision::kF16 || precision == Precision::kBF16;
    throw Error("model: out of memory for " + std::to_string(table.total()) + " parameters (" +
                std::to_string(table.total() * (sixteen ? 2 : 4) / 1000000) + " MB of " +
                (precision == Precision::kF16    ? "F16"
                 : precision == Precision::kBF16 ? "BF16"
                                                 : "float32") +
                ")");
  }
}

std::uint64_t CheckpointLoader::bytes_to_read() const {
  std::uint64_t n = 0;
  for (const TensorCopy& c : copies_) n += c.end - c.begin;
  return n;
}

namespace {

// One value of a float dtype as float32, exactly (the loader's hot loop: inlined, unlike
// safetensors.h's float_at; the same conversions).
template <Dtype D>
inline float decode(const std::uint8_t* p) {
  if constexpr (D == Dtype::kF32) {
    const std::uint32_t bits = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                               static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  } else if constexpr (D == Dtype::kBF16) {
    const std::uint32_t bits = (static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  } else {
    const std::uint32_t h = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8;
    const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {  // zero or subnormal: mantissa · 2^−24, exact in float
      const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
      return sign ? -magnitude : magnitude;
    }
    const std::uint32_t bits =
        exponent == 31 ? sign | 0x7f800000u | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
}

// values (count) = the decoded values at p.
template <Dtype D>
void decode_run(float* values, const std::uint8_t* p, std::size_t count) {
  constexpr std::size_t width = D == Dtype::kF32 ? 4 : 2;
  for (std::size_t k = 0; k < count; ++k) values[k] = decode<D>(p + k * width);
}

}  // namespace

void CheckpointLoader::convert(std::size_t copy, std::uint64_t first, const std::uint8_t* p, std::size_t count) {
  // p: `count` values of copies_[copy]'s dtype, elements first … first + count − 1 of the tensor.
  // 1. decode into float, a block at a time (the whole slice for a Conv1D weight, which pass 4
  //    transposes by tiles); 2. check every value finite; 3. round to halves or bfloat16s (kF16,
  //    kBF16); 4. store: in place, in panels, compared with the first copy of wte, or transposed.
  const TensorCopy& c = copies_[copy];
  const ParamEntry& entry = model_->table().entries()[c.entry];
  // kF16 and kBF16 keep matrices as 16-bit values (rounded here) and vectors as float32; they and
  // kF32Panels keep the products' weights in panels (gpt.h)
  const Precision precision = model_->precision();
  const bool sixteen = (precision == Precision::kF16 || precision == Precision::kBF16) && entry.shape.size() != 1;
  const bool halves = sixteen && precision == Precision::kF16, bf16s = sixteen && !halves;
  const bool panels = model_->panels(entry);
  float* dest = sixteen ? nullptr
                : precision == Precision::kF16 || precision == Precision::kBF16
                    ? model_->vector(&entry)
                    : model_->params().data() + entry.offset;
  const std::size_t width = dtype_size(c.dtype);
  constexpr std::size_t kBlock = 4096;
  const std::size_t block = c.rows ? std::max<std::size_t>(count, 1) : kBlock;
  if (decoded_.size() < std::min(block, count)) decoded_.resize(std::min(block, count));
  if (halves && rounded_.size() < std::min(block, count)) rounded_.resize(std::min(block, count));
  if (bf16s && rounded_bf16_.size() < std::min(block, count)) rounded_bf16_.resize(std::min(block, count));
  float* values = decoded_.data();
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(block, count - done);
    const std::uint8_t* at = p + done * width;
    // 1. decode
    switch (c.dtype) {
      case Dtype::kF32: decode_run<Dtype::kF32>(values, at, n); break;
      case Dtype::kF16: decode_run<Dtype::kF16>(values, at, n); break;
      default: decode_run<Dtype::kBF16>(values, at, n); break;
    }
    // 2. finite: one pass without branches (v − v is 0 for finite v, NaN for ±inf and NaN);
    //    `bad` is the first value that is not (n if none)
    float check = 0.0f;
    for (std::size_t k = 0; k < n; ++k) check += values[k] - values[k];
    std::size_t bad = n;
    if (check != 0.0f) {
      bad = 0;
      while (std::isfinite(values[bad])) ++bad;
    }
    // 3. rounded to the kept type (kF16, kBF16), each within its range. Of two faults, the one at
    //    the earlier element is named, so a file is refused with the same message however its
    //    bytes arrive (whole, or in slices: tests/fuzz F12).
    const auto out_of_range = [&](std::size_t k, const char* range) {
      const std::uint64_t element = first + done + k;
      safetensors_fail(tensor_label(c.name) + ": element " + std::to_string(element) + " is " +
                       number_string(values[k]) + " (file byte " + std::to_string(c.begin + element * width) +
                       "), beyond " + range + "; open the model with weights: 'f32'");
    };
    if (halves) {
      for (std::size_t k = 0; k < bad; ++k) {
        rounded_[k] = kernels::f32_to_f16_ref(values[k]);
        if ((rounded_[k] & 0x7c00u) == 0x7c00u) out_of_range(k, "F16's range (±65504)");
      }
    } else if (bf16s) {
      for (std::size_t k = 0; k < bad; ++k) {
        rounded_bf16_[k] = kernels::f32_to_bf16_ref(values[k]);
        if (!std::isfinite(kernels::bf16_to_f32_ref(rounded_bf16_[k]))) out_of_range(k, "BF16's range (±3.39e38)");
      }
    }
    // 4. into place (from: the n values as kept; to: the entry's storage)
    const std::size_t base = static_cast<std::size_t>(first + done);
    const int O = static_cast<int>(entry.shape[0]), I = panels ? static_cast<int>(entry.shape[1]) : 0;
    const auto place = [&](auto* to, const auto* from) {
      if (c.compare) {  // (lm_head is (V, C), as wte)
        for (std::size_t k = 0; k < bad; ++k) {
          const std::size_t e = base + k;
          const std::size_t where = panels
                                        ? kernels::panel_index(static_cast<int>(e % static_cast<std::size_t>(I)),
                                                               static_cast<int>(e / static_cast<std::size_t>(I)), I, O)
                                        : e;
          if (to[where] != from[k]) {
            safetensors_fail("lm_head.weight differs from transformer.wte.weight at element " +
                             std::to_string(base + k) +
                             "; GPT-2 and nanoGPT tie them (one storage), so they must be equal");
          }
        }
      }
      if (bad < n) {
        const float v = values[bad];
        const std::uint64_t element = first + done + bad;
        safetensors_fail(tensor_label(c.name) + ": element " + std::to_string(element) + " is " +
                         (std::isnan(v) ? "nan"
                          : v > 0       ? "inf"
                                        : "-inf") +
                         " (file byte " + std::to_string(c.begin + element * width) +
                         "); every parameter must be finite");
      }
      if (c.compare) return;
      if (panels) {
        panels_into(to, from, base, n, O, I, c.rows != 0);
      } else if (c.rows) {
        transpose_into(to, from, base, n, static_cast<std::size_t>(c.rows), static_cast<std::size_t>(c.cols));
      } else {
        std::copy(from, from + n, to + base);
      }
    };
    if (halves) {
      place(model_->halves().data() + c.offset, rounded_.data());
    } else if (bf16s) {
      place(model_->bf16s().data() + c.offset, rounded_bf16_.data());
    } else {
      place(dest, values);
    }
    done += n;
  }
}

template <typename T>
void CheckpointLoader::transpose_into(T* dest, const T* values, std::size_t first, std::size_t n, std::size_t rows,
                                      std::size_t cols) {
  // values: elements first … first + n − 1 of a (rows, cols) matrix; dest: its (cols, rows)
  // transpose. Whole rows go by 32 × 32 tiles, so that a tile's reads and writes (32 runs of 32
  // neighbours each way) stay in cache; the partial rows at either end one value at a time.
  std::size_t k = 0, row = first / cols, col = first % cols;
  for (; k < n && col != 0; ++k) {
    dest[col * rows + row] = values[k];
    if (++col == cols) col = 0, ++row;
  }
  const std::size_t whole = (n - k) / cols;
  constexpr std::size_t kTile = 32;
  for (std::size_t r0 = 0; r0 < whole; r0 += kTile) {
    const std::size_t r1 = std::min(whole, r0 + kTile);
    for (std::size_t c0 = 0; c0 < cols; c0 += kTile) {
      const std::size_t c1 = std::min(cols, c0 + kTile);
      for (std::size_t r = r0; r < r1; ++r) {
        const T* from = values + k + r * cols;
        for (std::size_t c = c0; c < c1; ++c) dest[c * rows + row + r] = from[c];
      }
    }
  }
  k += whole * cols, row += whole;
  for (; k < n; ++k) {
    dest[col * rows + row] = values[k];
    if (++col == cols) col = 0, ++row;
  }
}

void CheckpointLoader::write(std::size_t copy, std::uint64_t offset, const std::uint8_t* bytes, std::size_t n) {
  if (!model_) throw Error("model: this checkpoint was already finished");
  if (copy >= copies_.size()) {
    throw Error("write: copy " + std::to_string(copy) + " of " + std::to_string(copies_.size()) + " does not exist");
  }
  const TensorCopy& c = copies_[copy];
  Progress& p = progress_[copy];
  const std::uint64_t size = c.end - c.begin;
  if (offset != p.written || n > size - p.written) {
    throw Error("write: " + tensor_label(c.name) + " expects its bytes from " + std::to_string(p.written) + " (of " +
                std::to_string(size) + "), got [" + std::to_string(offset) + ", " + std::to_string(offset + n) + ")");
  }
  if (c.compare) {
    // Compared against the other copy of wte, which comes first in the file and must be complete.
    for (std::size_t i = 0; i < copies_.size(); ++i) {
      if (i != copy && copies_[i].offset == c.offset && !copies_[i].rows &&
          progress_[i].written != copies_[i].end - copies_[i].begin) {
        throw Error("write: " + tensor_label(c.name) + " before " + tensor_label(copies_[i].name) +
                    " is complete: write the copies in file order");
      }
    }
  }
  const std::size_t width = dtype_size(c.dtype);
  std::uint64_t element = p.written / width;
  // A value split across two writes: complete it first.
  if (p.carried > 0) {
    const std::size_t take = std::min(width - p.carried, n);
    std::memcpy(p.carry + p.carried, bytes, take);
    p.carried += take, bytes += take, n -= take, p.written += take;
    if (p.carried < width) return;
    convert(copy, element++, p.carry, 1);
    p.carried = 0;
  }
  const std::size_t whole = n / width;
  convert(copy, element, bytes, whole);
  p.written += whole * width;
  p.carried = n - whole * width;
  std::memcpy(p.carry, bytes + whole * width, p.carried);
  p.written += p.carried;
}

std::unique_ptr<Gpt> CheckpointLoader::finish() {
  if (!model_) throw Error("model: this checkpoint was already finished");
  for (std::size_t i = 0; i < copies_.size(); ++i) {
    const std::uint64_t size = copies_[i].end - copies_[i].begin;
    if (progress_[i].written != size) {
      safetensors_fail(tensor_label(copies_[i].name) + ": only " + std::to_string(progress_[i].written) + " of its " +
                       std::to_string(size) + " bytes were read (the file ends at byte " +
                       std::to_string(copies_[i].begin + progress_[i].written) + ")");
    }
  }
  return std::move(model_);
}

std::unique_ptr<Gpt> load_checkpoint(const std::uint8_t* bytes, std::size_t size, const ConfigFields& overrides,
                                     const std::string& config_json, Precision precision) {
  CheckpointLoader loader(bytes, size, size, overrides, config_json, precision);
  for (std::size_t i = 0; i < loader.copies().size(); ++i) {
    const TensorCopy& c = loader.copies()[i];
    loader.write(i, 0, bytes + c.begin, static_cast<std::size_t>(c.end - c.begin));
  }
  return loader.finish();
}

std::vector<float> import_safetensors(const ParamTable& table, const std::uint8_t* bytes, std::size_t size) {
  const ModelConfig& c = table.config();
  ConfigFields fields;
  fields.vocab_size = c.vocab_size, fields.block_size = c.block_size, fields.n_layer = c.n_layer;
  fields.n_head = c.n_head, fields.n_embd = c.n_embd, fields.bias = c.bias, fields.mlp = c.mlp;
  fields.layer_norm = c.layer_norm, fields.gelu = static_cast<int>(c.gelu), fields.dropout = c.dropout;
  fields.layer_norm_eps = c.layer_norm_eps;
  std::unique_ptr<Gpt> model = load_checkpoint(bytes, size, fields);
  return std::move(model->params());
}

}  // namespace attn::model

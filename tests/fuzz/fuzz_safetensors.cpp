// libFuzzer target: safetensors files, checkpoints and config.json as a stranger hands them to
// engine.loadModel, engine.openModel and importSafetensors — parse_safetensors(_header),
// infer_config, read_tensor, parse_hf_config, load_checkpoint (nanoGPT's and Hugging Face's GPT-2
// layouts), import_safetensors, export_safetensors, and the ABI calls engine.js makes (modelLoad;
// modelHeaderLength, modelOpen, modelOpenWrite … modelOpenFinish in slices).
//
// Legend: V vocab_size, T block_size, L n_layer, C n_embd, N the header's length.
//
// Input (FuzzedDataProvider; its integers come from the end of the input, so the front is the
// file): a mode byte, the caller's overrides (ConfigFields), a config.json (none, the input's own
// bytes, or one generated from GPT2Config's keys with values of every JSON kind, nested up to
// 10^5 deep), how the file is read in slices, then the file itself:
//   mode 0-2  the input's remaining bytes are the file (seeded with the fixtures' files);
//   mode 3    a file built here: a model of a fuzzed small config exported as F32 or F16, with or
//             without lm_head, the causal-mask buffers and extra metadata; then perhaps rewritten
//             in Hugging Face's layout (no "transformer." prefix or with it, Conv1D weights
//             transposed, attn.bias / masked_bias buffers, BF16); then perhaps damaged by a few
//             structural edits (a tensor dropped, renamed, reshaped or given another dtype, a
//             value made NaN, the file cut or extended, the header length changed).
//
// What counts as a finding (the harness aborts, libFuzzer saves the input):
//   - any exception other than attn::Error, or an attn::Error whose message does not name an
//     argument (its text before ':' is one of kArgumentNames), ASan/UBSan reports, hangs
//     (-timeout) and allocations beyond -malloc_limit_mb;
//   - an accepted checkpoint whose parameters need more than twice the file's tensor bytes
//     (limits are checked before allocating: every float must be backed by the file);
//   - a parsed header that breaks its own invariants (tensors sorted, back to back, covering the
//     buffer, each end − begin = elements × dtype size, rank ≤ 8, ≤ 16384 tensors);
//   - infer_config answering outside −1 or the values the tensors show;
//   - the three ways of loading disagreeing: load_checkpoint, the ABI's modelLoad, and the ABI's
//     read in slices of fuzzed lengths (file size known or unknown) must give the same model bit
//     for bit, or the same error message — except overrides the ABI refuses by its own check (a
//     GELU index outside the enum's names), which both ABI routes must refuse naming gelu;
//   - load_checkpoint keeping the weights for inference in panels (Precision::kF32Panels, kF16,
//     kBF16) giving another error (F16 and BF16 may refuse a value beyond their range), another
//     config, or a row of a matrix or a vector that is not the same floats read back (F16 and
//     BF16: rounded to halves or bfloat16s);
//   - round trips: an accepted model exported (F32, with or without lm_head and mask buffers)
//     and loaded again is the same model bit for bit with the same config; import_safetensors
//     gives the same floats; F16 export either refuses naming the value or writes what loads as
//     each value rounded to half, and exporting that again gives the same bytes;
//   - mode 3 before damage: the exported file (and its Hugging Face rewrite) loads as the model
//     that wrote it (BF16: its values rounded to bfloat16).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../cpp/bindings/abi_client.h"
#include "bindings/abi.h"
#include "core/attention.h"
#include "fuzz_common.h"
#include "kernels/half.h"
#include "model/checkpoint.h"
#include "model/gpt.h"
#include "model/safetensors.h"

namespace {

using attn::Error;
using attn_fuzz::clip;
using attn_fuzz::finding;
using Bytes = std::vector<std::uint8_t>;
namespace m = attn::model;

// Every argument a message of this surface may name: the file ("safetensors", its "metadata"),
// config.json, a config field, the model, a slice ("write", "bytes").
bool names_argument(const std::string& message) {
  return attn_fuzz::names_argument(
      message, {"safetensors", "metadata", "config.json", "config", "heads", "model", "write", "bytes", "vocab_size",
                "block_size", "n_layer", "n_head", "n_embd", "dropout", "gelu", "layer_norm_eps"});
}

void check_message(const std::string& message, const char* where) {
  if (!names_argument(message)) finding("an error does not name its argument", std::string(where) + ": " + message);
}

// Runs body; an attn::Error is returned as its message (checked to name its argument), any other
// exception is a finding. Returns "" on success.
template <class Body>
std::string attempt(const char* where, Body body) {
  return attn_fuzz::attempt(
      where, [](const std::string& m) { return names_argument(m); }, body);
}

// ---- the caller's overrides and config.json ----

constexpr int kSizes[] = {-1, 0,   1,    2,    3,     4,     5,      8,      11,      16,     64,
                          65, 768, 4096, 4097, 16384, 16385, 131072, 131073, INT_MAX, INT_MIN};
constexpr double kDoubles[] = {0.0, 1e-5, 1e-6, 0.1, 0.5, 1.0, 2.0, -1.0, 1e-300, 1e300};

int consume_size(FuzzedDataProvider& fdp) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  return b < 100 ? b % 12 : kSizes[b % (sizeof kSizes / sizeof kSizes[0])];
}

double consume_double(FuzzedDataProvider& fdp) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  if (b < 200) return kDoubles[b % (sizeof kDoubles / sizeof kDoubles[0])];
  if (b < 230) return b & 1 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

// The overrides of a load: every config field or not given (−1 / NaN), as engine.js passes them.
m::ConfigFields consume_overrides(FuzzedDataProvider& fdp) {
  m::ConfigFields a;
  const uint16_t given = fdp.ConsumeIntegral<uint16_t>();
  if (given & 0xf000) return a;  // most inputs override nothing
  if (given & 1) a.vocab_size = consume_size(fdp);
  if (given & 2) a.block_size = consume_size(fdp);
  if (given & 4) a.n_layer = consume_size(fdp);
  if (given & 8) a.n_head = consume_size(fdp);
  if (given & 16) a.n_embd = consume_size(fdp);
  if (given & 32) a.bias = fdp.ConsumeIntegralInRange<int>(-1, 1);
  if (given & 64) a.mlp = fdp.ConsumeIntegralInRange<int>(-1, 1);
  if (given & 128) a.layer_norm = fdp.ConsumeIntegralInRange<int>(-1, 1);
  if (given & 256) a.gelu = fdp.ConsumeIntegralInRange<int>(-1, 2);
  if (given & 512) a.dropout = consume_double(fdp);
  if (given & 1024) a.layer_norm_eps = consume_double(fdp);
  return a;
}

// The overrides as arguments of a call: the fields given (a GELU outside the enum's names is
// passed as its index, which the ABI refuses by its own check).
void set_overrides(attn_test::AbiCall& call, const m::ConfigFields& f) {
  const std::pair<const char*, int> ints[] = {{"vocabSize", f.vocab_size},
                                              {"contextLength", f.block_size},
                                              {"layers", f.n_layer},
                                              {"heads", f.n_head},
                                              {"width", f.n_embd}};
  for (const auto& [name, value] : ints)
    if (value != -1) call.set(name, value);
  const std::pair<const char*, int> flags[] = {
      {"bias", f.bias}, {"mlp", f.mlp}, {"layerNorm", f.layer_norm}, {"gelu", f.gelu}};
  for (const auto& [name, value] : flags)
    if (value != -1) call.set(name, value);
  call.set("dropout", f.dropout).set("layerNormEps", f.layer_norm_eps);  // NaN: not given
}

// Overrides the ABI refuses by its own check (a GELU index outside the enum), naming the field,
// where load_checkpoint may give another message.
bool abi_refuses(const m::ConfigFields& f) { return f.gelu > 1 || f.gelu < -1; }

const char* const kConfigKeys[] = {"model_type",
                                   "architectures",
                                   "vocab_size",
                                   "n_positions",
                                   "max_position_embeddings",
                                   "n_ctx",
                                   "n_layer",
                                   "num_hidden_layers",
                                   "n_head",
                                   "num_attention_heads",
                                   "n_embd",
                                   "hidden_size",
                                   "layer_norm_epsilon",
                                   "activation_function",
                                   "n_inner",
                                   "scale_attn_weights",
                                   "scale_attn_by_inverse_layer_idx",
                                   "add_cross_attention",
                                   "resid_pdrop"};
const char* const kConfigStrings[] = {
    "gpt2", "GPT2LMHeadModel", "gelu_new", "gelu", "gelu_pytorch_tanh", "relu", "bert", "", "\xff", "\\u0000"};

// One JSON value of any kind as text; arrays and objects nest up to `depth` (10^5 at the most,
// so a message that prints the value must not recurse that deep).
std::string json_value(FuzzedDataProvider& fdp, int depth) {
  const uint8_t kind = fdp.ConsumeIntegral<uint8_t>() % 10;
  switch (kind) {
    case 0: return std::to_string(consume_size(fdp));
    case 1: return "1e-5";
    case 2: {
      const char* s =
          kConfigStrings[fdp.ConsumeIntegral<uint8_t>() % (sizeof kConfigStrings / sizeof kConfigStrings[0])];
      return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    case 3: return fdp.ConsumeBool() ? "true" : "false";
    case 4: return "null";
    case 5: return "[\"GPT2LMHeadModel\"]";
    case 6: return "-0.0";
    case 7: return "18446744073709551615";
    default: {
      static constexpr int kDepths[] = {1, 2, 3, 10, 100, 1000, 10000, 100000};
      const int d = std::min(depth, kDepths[fdp.ConsumeIntegral<uint8_t>() % 8]);
      const bool object = kind == 9;
      std::string s;
      for (int i = 0; i < d; ++i) s += object ? "{\"a\":" : "[";
      s += "1";
      for (int i = 0; i < d; ++i) s += object ? "}" : "]";
      return s;
    }
  }
}

std::string generated_config_json(FuzzedDataProvider& fdp) {
  std::string text = "{";
  const int entries = fdp.ConsumeIntegralInRange<int>(0, 8);
  for (int i = 0; i < entries; ++i) {
    if (i) text += ",";
    text += "\"";
    text += kConfigKeys[fdp.ConsumeIntegral<uint8_t>() % (sizeof kConfigKeys / sizeof kConfigKeys[0])];
    text += "\":" + json_value(fdp, 100000);
  }
  return text + "}";
}

// ---- the loaders ----

struct Outcome {
  std::string error;  // "" when loaded
  m::ModelConfig config;
  std::vector<float> params;
  bool ok() const { return error.empty(); }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The config fields a file carries (dropout is the caller's and is not exported).
bool same_config(const m::ModelConfig& a, const m::ModelConfig& b) {
  return a.vocab_size == b.vocab_size && a.block_size == b.block_size && a.n_layer == b.n_layer &&
         a.n_head == b.n_head && a.n_embd == b.n_embd && a.bias == b.bias && a.mlp == b.mlp &&
         a.layer_norm == b.layer_norm && a.gelu == b.gelu && a.layer_norm_eps == b.layer_norm_eps;
}

std::string describe(const Outcome& o) {
  if (!o.ok()) return "error: " + clip(o.error);
  const m::ModelConfig& c = o.config;
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, "model V=%d T=%d L=%d H=%d C=%d bias=%d mlp=%d ln=%d gelu=%d eps=%g, %zu floats",
                c.vocab_size, c.block_size, c.n_layer, c.n_head, c.n_embd, c.bias, c.mlp, c.layer_norm,
                static_cast<int>(c.gelu), c.layer_norm_eps, o.params.size());
  return buffer;
}

Outcome load_whole(const Bytes& file, const m::ConfigFields& overrides, const std::string& config_json) {
  Outcome o;
  o.error = attempt("load_checkpoint", [&] {
    std::unique_ptr<m::Gpt> model = m::load_checkpoint(file.data(), file.size(), overrides, config_json);
    o.config = model->config();
    o.params = model->params();
  });
  return o;
}

// The model a call gave (its report's "model"), then disposed of.
Outcome take_model(const attn_test::Reply& r, const char* where) {
  using attn_test::AbiCall;
  Outcome o;
  if (r.failed) {
    o.error = r.error;
    check_message(o.error, where);
    return o;
  }
  const double handle = r.report.at("model");
  o.error = attempt("abi model", [&] {
    const attn_test::Reply c = AbiCall("modelConfig").set("model", handle).run();
    if (c.failed) throw std::runtime_error(c.error);
    const auto at = [&](const char* name) { return c.report.at(name); };
    o.config.vocab_size = static_cast<int>(at("vocabSize")),
    o.config.block_size = static_cast<int>(at("contextLength"));
    o.config.n_layer = static_cast<int>(at("layers")), o.config.n_head = static_cast<int>(at("heads"));
    o.config.n_embd = static_cast<int>(at("width")), o.config.bias = at("bias") != 0, o.config.mlp = at("mlp") != 0;
    o.config.layer_norm = at("layerNorm") != 0, o.config.gelu = at("gelu") != 0 ? m::Gelu::kTanh : m::Gelu::kExact;
    o.config.layer_norm_eps = at("layerNormEps"), o.config.dropout = at("dropout");
    o.params = AbiCall("modelParams").set("model", handle).run().tensor("params").floats();
  });
  AbiCall("modelDelete").set("model", handle).run();
  return o;
}

// engine.loadModel: the whole file.
Outcome load_through_abi(const Bytes& file, const m::ConfigFields& overrides, const std::string& config_json) {
  attn_test::AbiCall load("modelLoad");
  load.blob("file", file.data(), std::min<std::size_t>(file.size(), INT_MAX)).text("config", config_json);
  set_overrides(load, overrides);
  return take_model(load.run(), "modelLoad");
}

// engine.openModel: the header length from the first 8 bytes, the loader from the first 8 + N,
// then each copy's bytes in slices of the given lengths (cycled), then finish. With an unknown
// file size the caller checks that the file ends where the header says (as engine.js does).
Outcome load_in_slices(const Bytes& file, const m::ConfigFields& overrides, const std::string& config_json,
                       bool size_known, const std::vector<int>& slices) {
  using attn_test::AbiCall;
  using attn_test::Reply;
  Outcome o;
  const double file_size = size_known ? static_cast<double>(file.size()) : -1.0;
  const auto failed = [&](const Reply& r, const char* where) {
    o.error = r.error;
    check_message(o.error, where);
    return o;
  };
  const Reply length = AbiCall("modelHeaderLength")
                           .blob("head", file.data(), std::min<std::size_t>(file.size(), 8))
                           .set("fileSize", file_size)
                           .run();
  if (length.failed) return failed(length, "modelHeaderLength");
  const double n = length.report.at("length");
  // The first 8 + N bytes, or what the file has (a short file fails in modelOpen).
  AbiCall open("modelOpen");
  open.blob("header", file.data(), static_cast<std::size_t>(std::min<double>(static_cast<double>(file.size()), 8 + n)));
  open.text("config", config_json).set("fileSize", file_size);
  set_overrides(open, overrides);
  const Reply opened = open.run();
  if (opened.failed) return failed(opened, "modelOpen");
  const double loader = opened.report.at("loader"), file_end = opened.report.at("fileEnd");
  const std::vector<double> begins = opened.tensor("begins").doubles(), ends = opened.tensor("ends").doubles();
  const auto write = [&](std::size_t copy, std::uint64_t offset, std::uint64_t at, std::uint64_t len) {
    return AbiCall("modelOpenWrite")
        .set("loader", loader)
        .set("copy", static_cast<double>(copy))
        .set("offset", static_cast<double>(offset))
        .blob("bytes", file.data() + at, static_cast<std::size_t>(len))
        .run();
  };
  std::size_t turn = 0;
  for (std::size_t i = 0; i < begins.size(); ++i) {
    const auto begin = static_cast<std::uint64_t>(begins[i]), end = static_cast<std::uint64_t>(ends[i]);
    if (end > file.size()) {  // the stream ends early: the bytes it has, then finish() names the tensor
      if (begin < file.size()) {
        const Reply w = write(i, 0, begin, file.size() - begin);
        if (w.failed) return failed(w, "modelOpenWrite");
      }
      break;
    }
    for (std::uint64_t at = begin; at < end;) {
      const std::uint64_t len =
          std::min<std::uint64_t>(end - at, static_cast<std::uint64_t>(slices[turn++ % slices.size()]));
      const Reply w = write(i, at - begin, at, len);
      if (w.failed) return failed(w, "modelOpenWrite");
      at += len;
    }
  }
  if (!size_known && file_end != static_cast<double>(file.size())) {
    AbiCall("modelOpenCancel").set("loader", loader).run();
    o.error = "safetensors: the stream ended at byte " + std::to_string(file.size()) + ", not at " +
              std::to_string(static_cast<std::uint64_t>(file_end));
    return o;
  }
  return take_model(AbiCall("modelOpenFinish").set("loader", loader).run(), "modelOpenFinish");
}

// ---- the oracles ----

void check_header(const Bytes& file, const m::SafetensorsHeader& h) {
  if (h.tensors.size() > m::SafetensorsLimits::kMaxTensors) finding("header lists too many tensors", "");
  if (h.header_size > m::SafetensorsLimits::kMaxHeaderBytes || h.buffer_offset != 8 + h.header_size ||
      h.buffer_offset + h.buffer_size != file.size())
    finding("header sizes do not add up to the file", std::to_string(h.header_size));
  std::uint64_t covered = 0;
  for (const m::TensorRecord& t : h.tensors) {
    if (t.begin != covered || t.end < t.begin) finding("tensors are not back to back", m::tensor_label(t.name));
    if (t.shape.size() > m::SafetensorsLimits::kMaxRank) finding("rank above the limit", m::tensor_label(t.name));
    long double elements = 1;
    for (std::uint64_t d : t.shape) elements *= static_cast<long double>(d);
    if (elements * m::dtype_size(t.dtype) != static_cast<long double>(t.end - t.begin))
      finding("a tensor's bytes do not match its shape", m::tensor_label(t.name));
    covered = t.end;
  }
  if (covered != h.buffer_size) finding("the tensors do not cover the buffer", std::to_string(covered));

  // infer_config: −1, or what the tensors show.
  const m::InferredConfig c = m::infer_config(h);
  for (int v : {c.vocab_size, c.block_size, c.n_layer, c.n_embd})
    if (v < -1) finding("infer_config gave a negative size", std::to_string(v));
  for (int v : {c.bias, c.mlp, c.layer_norm})
    if (v < -1 || v > 1) finding("infer_config gave a switch outside -1, 0, 1", std::to_string(v));
  if (c.n_layer > static_cast<int>(h.tensors.size())) finding("infer_config counted more blocks than tensors", "");

  // read_tensor on the float tensors (a bounded number of values per input).
  std::uint64_t budget = 1 << 16;
  for (const m::TensorRecord& t : h.tensors) {
    if (t.end - t.begin > budget) break;
    budget -= t.end - t.begin;
    std::vector<float> values;
    const std::string error = attempt("read_tensor", [&] { values = m::read_tensor(file.data(), file.size(), h, t); });
    if (!error.empty()) {
      if (m::is_float_param(t.dtype) && error.find("is n") == std::string::npos &&
          error.find("inf") == std::string::npos)
        finding("read_tensor refused a float tensor without naming a non-finite value", error);
      continue;
    }
    if (!m::is_float_param(t.dtype))
      finding("read_tensor read a tensor that is not F32, F16 or BF16", m::tensor_label(t.name));
    const std::size_t width = m::dtype_size(t.dtype);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float v = m::float_at(t.dtype, file.data() + h.buffer_offset + t.begin + i * width);
      if (std::memcmp(&v, &values[i], 4) != 0 || !std::isfinite(v))
        finding("read_tensor's values differ", m::tensor_label(t.name));
    }
  }
}

// An accepted model: its size is backed by the file, and it survives export and reload.
void check_round_trips(const Bytes& file, const Outcome& o, FuzzedDataProvider& fdp) {
  const m::SafetensorsHeader h = m::parse_safetensors(file.data(), file.size());
  if (4.0 * static_cast<double>(o.params.size()) > 2.0 * static_cast<double>(h.buffer_size) + 1e-9)
    finding("a checkpoint allocated more floats than its file holds", describe(o));

  m::ModelConfig config = o.config;
  const m::ParamTable table(config);
  if (table.total() != o.params.size()) finding("the loaded parameters do not fill the table", describe(o));

  // F32, every variant: the same model bit for bit.
  m::ExportOptions options;
  options.lm_head = fdp.ConsumeBool();
  options.causal_mask_buffers = fdp.ConsumeBool() && config.block_size <= 64;
  Bytes exported;
  std::string error =
      attempt("export_safetensors", [&] { exported = m::export_safetensors(table, o.params.data(), options); });
  if (!error.empty()) {
    if (exported.empty() && error.find("would be") != std::string::npos) return;  // above kMaxExportBytes
    finding("export of a loaded model failed", error);
  }
  const Outcome again = load_whole(exported, {}, "");
  if (!again.ok() || !same_bits(again.params, o.params) || !same_config(again.config, o.config))
    finding("export then load is not the same model", describe(o) + " → " + describe(again));
  std::vector<float> imported;
  error =
      attempt("import_safetensors", [&] { imported = m::import_safetensors(table, exported.data(), exported.size()); });
  if (!error.empty() || !same_bits(imported, o.params)) finding("import_safetensors differs from the model", error);

  // F16: refused naming the value, or each value rounded to half; exporting that again is the same file.
  options.dtype = m::Dtype::kF16;
  Bytes half;
  error = attempt("export_safetensors F16", [&] { half = m::export_safetensors(table, o.params.data(), options); });
  if (!error.empty()) {
    if (error.find("does not fit F16") == std::string::npos) finding("F16 export failed for another reason", error);
    return;
  }
  const Outcome rounded = load_whole(half, {}, "");
  if (!rounded.ok() || !same_config(rounded.config, o.config))
    finding("an F16 export does not load", describe(rounded));
  for (std::size_t i = 0; i < o.params.size(); ++i) {
    const double x = o.params[i], r = rounded.params[i];
    // Round to nearest half: within half an ulp of binary16 (2^-25 relative, 2^-25 absolute below 2^-14).
    const double ulp_half = std::max(std::ldexp(std::fabs(x), -11), std::ldexp(1.0, -25));
    if (!(std::fabs(r - x) <= ulp_half))
      finding("an F16 value is not the nearest half", std::to_string(x) + " → " + std::to_string(r));
  }
  Bytes half_again;
  error = attempt("export_safetensors F16 again",
                  [&] { half_again = m::export_safetensors(table, rounded.params.data(), options); });
  if (!error.empty() || half_again != half) finding("exporting the F16 model again changed the file", error);
}

// ---- mode 3: files built here ----

// A small config, valid most of the time.
m::ModelConfig consume_config(FuzzedDataProvider& fdp) {
  m::ModelConfig c;
  c.vocab_size = 1 + fdp.ConsumeIntegral<uint8_t>() % 40;
  c.block_size = 1 + fdp.ConsumeIntegral<uint8_t>() % 12;
  c.n_layer = fdp.ConsumeIntegral<uint8_t>() % 3;
  c.n_head = 1 + fdp.ConsumeIntegral<uint8_t>() % 4;
  c.n_embd = c.n_head * (1 + fdp.ConsumeIntegral<uint8_t>() % 4);
  const uint8_t flags = fdp.ConsumeIntegral<uint8_t>();
  c.bias = flags & 1, c.mlp = !(flags & 2), c.layer_norm = !(flags & 4);
  c.gelu = flags & 8 ? m::Gelu::kTanh : m::Gelu::kExact;
  if (flags & 16) c.layer_norm_eps = 1e-6;
  return c;
}

struct Spec {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  Bytes data;
};

// A safetensors file of these tensors, back to back in order (this harness's own small writer).
Bytes write_file(const std::vector<Spec>& specs, const std::string& metadata_json) {
  std::string header = "{";
  if (!metadata_json.empty()) header += "\"__metadata__\":" + metadata_json;
  Bytes buffer;
  for (const Spec& s : specs) {
    if (header.size() > 1) header += ",";
    header += nlohmann::json(s.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ":{\"dtype\":\"" +
              s.dtype + "\",\"shape\":[";
    for (std::size_t i = 0; i < s.shape.size(); ++i) header += (i ? "," : "") + std::to_string(s.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(buffer.size()) + "," +
              std::to_string(buffer.size() + s.data.size()) + "]}";
    buffer.insert(buffer.end(), s.data.begin(), s.data.end());
  }
  header += "}";
  Bytes out(8);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), buffer.begin(), buffer.end());
  return out;
}

bool is_conv1d(const std::string& name) {
  for (const char* tail : {".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight", ".mlp.c_proj.weight"})
    if (name.size() > std::strlen(tail) && name.compare(name.size() - std::strlen(tail), std::strlen(tail), tail) == 0)
      return true;
  return false;
}

std::uint16_t bf16_of(float v) {  // truncation: exactly representable, so it loads back exactly
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return static_cast<std::uint16_t>(bits >> 16);
}

float from_bf16(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Hugging Face's layout of an F32 nanoGPT export: Conv1D weights (in, out), names with or
// without "transformer.", optional mask buffers and BF16; `expected` becomes what it loads as.
Bytes hugging_face_layout(const Bytes& nanogpt, const m::ModelConfig& c, FuzzedDataProvider& fdp,
                          std::vector<float>& expected, const m::ParamTable& table) {
  const m::SafetensorsHeader h = m::parse_safetensors(nanogpt.data(), nanogpt.size());
  const bool prefix = fdp.ConsumeBool(), bf16 = fdp.ConsumeBool(), masks = fdp.ConsumeBool();
  std::vector<Spec> specs;
  for (const m::TensorRecord& t : h.tensors) {
    if (t.name == "lm_head.weight" || t.name.find(".attn.bias") != std::string::npos) continue;
    const std::vector<float> values = m::read_tensor(nanogpt.data(), nanogpt.size(), h, t);
    Spec s{prefix ? t.name : t.name.substr(std::strlen("transformer.")), bf16 ? "BF16" : "F32", t.shape, {}};
    std::vector<float> stored = values;
    if (is_conv1d(t.name)) {  // (out, in) → (in, out)
      const std::size_t rows = t.shape[0], cols = t.shape[1];
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t col = 0; col < cols; ++col) stored[col * rows + r] = values[r * cols + col];
      std::swap(s.shape[0], s.shape[1]);
    }
    for (float v : stored) {
      if (bf16) {
        const std::uint16_t b = bf16_of(v);
        s.data.push_back(static_cast<std::uint8_t>(b)), s.data.push_back(static_cast<std::uint8_t>(b >> 8));
      } else {
        std::uint8_t bytes[4];
        std::memcpy(bytes, &v, 4);
        s.data.insert(s.data.end(), bytes, bytes + 4);
      }
    }
    specs.push_back(std::move(s));
    if (masks && t.name.find(".ln_1.weight") != std::string::npos) {
      const std::string block = t.name.substr(0, t.name.size() - std::strlen("ln_1.weight"));
      Spec mask{(prefix ? block : block.substr(std::strlen("transformer."))) + "attn.masked_bias",
                "F32",
                {},
                {0, 0, 0x80, 0xbf}};
      specs.push_back(std::move(mask));
    }
  }
  if (bf16)
    for (const m::ParamEntry& e : table.entries())
      for (std::size_t i = 0; i < e.size; ++i) expected[e.offset + i] = from_bf16(bf16_of(expected[e.offset + i]));
  (void)c;
  return write_file(specs, fdp.ConsumeBool() ? "{\"format\":\"pt\"}" : "");
}

// The GPT2Config of a config (for a Hugging Face file, whose tensors do not tell the heads).
std::string config_json_of(const m::ModelConfig& c) {
  nlohmann::json j = {{"model_type", "gpt2"},
                      {"vocab_size", c.vocab_size},
                      {"n_positions", c.block_size},
                      {"n_layer", c.n_layer},
                      {"n_head", c.n_head},
                      {"n_embd", c.n_embd},
                      {"layer_norm_epsilon", c.layer_norm_eps},
                      {"activation_function", c.gelu == m::Gelu::kTanh ? "gelu_new" : "gelu"}};
  return j.dump();
}

// A few structural edits of a valid file.
void damage(Bytes& file, FuzzedDataProvider& fdp) {
  const int edits = fdp.ConsumeIntegralInRange<int>(0, 3);
  for (int e = 0; e < edits && file.size() > 8; ++e) {
    const std::uint64_t n = std::min<std::uint64_t>(file[0] | file[1] << 8 | file[2] << 16, file.size() - 8);
    std::string header(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
    const auto replace_header = [&](const std::string& text) {
      Bytes out(8);
      for (int i = 0; i < 8; ++i)
        out[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
      out.insert(out.end(), text.begin(), text.end());
      out.insert(out.end(), file.begin() + 8 + static_cast<std::ptrdiff_t>(n), file.end());
      file = std::move(out);
    };
    const std::size_t at = header.empty() ? 0 : fdp.ConsumeIntegral<uint16_t>() % header.size();
    switch (fdp.ConsumeIntegral<uint8_t>() % 9) {
      case 0: {  // a name's text replaced by a near-miss
        static const char* const kNames[] = {"transformer.wte.weight",
                                             "lm_head.weight",
                                             "wte.weight",
                                             "h.0.attn.c_attn.weight",
                                             "transformer.h.1.ln_1.bias",
                                             "transformer.h.00.attn.bias",
                                             "transformer.h.99.mlp.c_fc.weight",
                                             "transformer.ln_f.weight",
                                             "__metadata__",
                                             "transformer.wpe.weight"};
        const std::size_t q = header.find('"', at);
        const std::size_t q2 = q == std::string::npos ? q : header.find('"', q + 1);
        if (q2 != std::string::npos) header.replace(q + 1, q2 - q - 1, kNames[fdp.ConsumeIntegral<uint8_t>() % 10]);
        replace_header(header);
        break;
      }
      case 1: {  // a digit changed (a shape, an offset, a metadata number)
        const std::size_t d = header.find_first_of("0123456789", at);
        if (d != std::string::npos) header[d] = static_cast<char>('0' + fdp.ConsumeIntegral<uint8_t>() % 10);
        replace_header(header);
        break;
      }
      case 2: {  // a dtype swapped
        static const char* const kDtypes[] = {"F32", "F16", "BF16", "F64", "BOOL", "I64", "U8", "F8_E4M3", "f32", "F3"};
        const std::size_t d = header.find("\"dtype\":\"", at);
        const std::size_t q = d == std::string::npos ? d : header.find('"', d + 9);
        if (q != std::string::npos) header.replace(d + 9, q - d - 9, kDtypes[fdp.ConsumeIntegral<uint8_t>() % 10]);
        replace_header(header);
        break;
      }
      case 3: {  // a shape gains or loses a dimension
        const std::size_t d = header.find("\"shape\":[", at);
        if (d != std::string::npos) header.insert(d + 9, fdp.ConsumeBool() ? "1," : "0,");
        replace_header(header);
        break;
      }
      case 4: file.resize(8 + fdp.ConsumeIntegral<uint32_t>() % (file.size() - 7)); break;        // cut
      case 5: file.insert(file.end(), fdp.ConsumeIntegralInRange<std::size_t>(1, 64), 0); break;  // extended
      case 6: {                                                                                   // the header length
        const std::uint64_t claim =
            fdp.ConsumeBool() ? fdp.ConsumeIntegral<uint64_t>() : n + fdp.ConsumeIntegralInRange<int>(-9, 9);
        for (int i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(claim >> (8 * i));
        break;
      }
      case 7: {  // a value made NaN, inf or huge (F32 and F16 both see a non-finite or large float)
        if (file.size() > 8 + n + 4) {
          const std::size_t p = 8 + n + fdp.ConsumeIntegral<uint32_t>() % (file.size() - 8 - n - 3);
          static const std::uint8_t kBits[][4] = {
              {0, 0, 0xc0, 0x7f}, {0, 0, 0x80, 0x7f}, {0xff, 0xff, 0x7f, 0x7f}, {0, 0x7c, 0, 0x7c}};
          std::memcpy(&file[p], kBits[fdp.ConsumeIntegral<uint8_t>() % 4], 4);
        }
        break;
      }
      default: {  // the metadata: a config entry with another value
        static const char* const kEntries[] = {"\"n_head\":\"3\"",
                                               "\"n_layer\":\"x\"",
                                               "\"gelu\":\"relu\"",
                                               "\"layer_norm_eps\":\"nan\"",
                                               "\"vocab_size\":\"999999999\"",
                                               "\"bias\":\"maybe\"",
                                               "\"n_embd\":\"\"",
                                               "\"layer_norm_eps\":\"1e400\""};
        const std::size_t d = header.find("\"__metadata__\":{");
        if (d != std::string::npos)
          header.insert(d + 16, std::string(kEntries[fdp.ConsumeIntegral<uint8_t>() % 8]) + ",");
        replace_header(header);
        break;
      }
    }
  }
}

// The same file kept for inference in panels, as float32 (gpt.h's kF32Panels), as F16 or as BF16:
// the same error as load_checkpoint's (F16 and BF16 may also refuse a value beyond their range,
// naming it), or the same config and every row of every matrix read back from the panels as the
// same floats (F16, BF16: each rounded to the nearest half or bfloat16), every vector the same floats.
void check_panels(const Bytes& file, const m::ConfigFields& overrides, const std::string& config_json,
                  const Outcome& whole, m::Precision precision) {
  const bool f16 = precision == m::Precision::kF16, bf16 = precision == m::Precision::kBF16;
  std::unique_ptr<m::Gpt> model;
  const std::string error = attempt("load_checkpoint in panels", [&] {
    model = m::load_checkpoint(file.data(), file.size(), overrides, config_json, precision);
  });
  const bool beyond_range = (f16 && error.find("beyond F16's range") != std::string::npos) ||
                            (bf16 && error.find("beyond BF16's range") != std::string::npos);
  if (error != whole.error && !beyond_range) {
    finding(f16    ? "keeping the weights as F16 differs from load_checkpoint"
            : bf16 ? "keeping the weights as BF16 differs from load_checkpoint"
                   : "keeping the weights in panels differs from load_checkpoint",
            describe(whole) + " | panels " + clip(error));
  }
  if (!whole.ok() || beyond_range) return;
  if (!same_config(model->config(), whole.config)) finding("keeping the weights in panels gave another config", "");
  std::vector<float> row, want_row;
  for (const m::ParamEntry& e : model->table().entries()) {
    const float* want = whole.params.data() + e.offset;
    if (e.shape.size() == 1) {
      if (std::memcmp(model->vector(&e), want, e.size * sizeof(float)) != 0)
        finding("a vector moved in panels", e.name);
      continue;
    }
    row.resize(static_cast<std::size_t>(e.shape[1]));
    want_row.resize(row.size());
    for (int r = 0; r < e.shape[0]; ++r) {
      model->read_row(e, r, row.data());
      for (std::size_t i = 0; i < row.size(); ++i) {
        const float v = want[static_cast<std::size_t>(r) * row.size() + i];
        want_row[i] = f16    ? attn::kernels::f16_to_f32_ref(attn::kernels::f32_to_f16_ref(v))
                      : bf16 ? attn::kernels::bf16_to_f32_ref(attn::kernels::f32_to_bf16_ref(v))
                             : v;
      }
      if (std::memcmp(row.data(), want_row.data(), row.size() * sizeof(float)) != 0)
        finding("a row read back from the panels differs", e.name + " row " + std::to_string(r));
    }
  }
}

// The whole exercise of one file.
void exercise(const Bytes& file, const m::ConfigFields& overrides, const std::string& config_json,
              FuzzedDataProvider& fdp) {
  // Parsing alone, and the header read as engine.openModel reads it (file size known or not).
  m::SafetensorsHeader header;
  const std::string parse_error =
      attempt("parse_safetensors", [&] { header = m::parse_safetensors(file.data(), file.size()); });
  if (parse_error.empty()) check_header(file, header);
  if (!config_json.empty()) attempt("parse_hf_config", [&] { (void)m::parse_hf_config(config_json); });

  const Outcome whole = load_whole(file, overrides, config_json);
  if (whole.ok() && !parse_error.empty()) finding("a checkpoint loaded from a file that does not parse", parse_error);

  // Overrides the ABI refuses by its own check: both of its routes refuse them naming gelu.
  const bool abi_only = abi_refuses(overrides);
  const auto refused = [&](const Outcome& o, const char* how) {
    if (o.ok() || o.error.rfind("gelu: ", 0) != 0) finding("the ABI took a GELU index it has no name for", how);
  };
  const Outcome abi = load_through_abi(file, overrides, config_json);
  if (abi_only) {
    refused(abi, "modelLoad");
  } else if (abi.ok() != whole.ok() || abi.error != whole.error ||
             (whole.ok() && (!same_bits(abi.params, whole.params) || !same_config(abi.config, whole.config)))) {
    finding("modelLoad differs from load_checkpoint", describe(whole) + " | abi " + describe(abi));
  }

  std::vector<int> slices;
  for (int i = fdp.ConsumeIntegralInRange<int>(1, 4); i > 0; --i) {
    static constexpr int kSlices[] = {1, 2, 3, 4, 5, 7, 64, 1000, 4096, 1 << 20};
    slices.push_back(kSlices[fdp.ConsumeIntegral<uint8_t>() % 10]);
  }
  const bool size_known = fdp.ConsumeBool();
  const Outcome sliced = load_in_slices(file, overrides, config_json, size_known, slices);
  if (abi_only) {
    if (sliced.ok())
      finding("the ABI took a GELU index it has no name for", "modelOpen");  // (or the header failed first)
  } else {
    if (size_known ? (sliced.ok() != whole.ok() || sliced.error != whole.error) : (whole.ok() && !sliced.ok()))
      finding("reading in slices differs from load_checkpoint", describe(whole) + " | sliced " + describe(sliced));
    if (whole.ok() && sliced.ok() &&
        (!same_bits(sliced.params, whole.params) || !same_config(sliced.config, whole.config)))
      finding("reading in slices gave another model", describe(whole) + " | sliced " + describe(sliced));
  }

  if (!abi_only) {
    check_panels(file, overrides, config_json, whole, m::Precision::kF32Panels);
    check_panels(file, overrides, config_json, whole, m::Precision::kF16);
    check_panels(file, overrides, config_json, whole, m::Precision::kBF16);
  }
  if (whole.ok()) check_round_trips(file, whole, fdp);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const uint8_t mode = fdp.ConsumeIntegral<uint8_t>();
  const m::ConfigFields overrides = consume_overrides(fdp);
  std::string config_json;
  switch (fdp.ConsumeIntegral<uint8_t>() % 8) {
    case 0: config_json = generated_config_json(fdp); break;
    case 1: config_json = fdp.ConsumeRandomLengthString(2048); break;
    default: break;
  }

  if (mode % 4 != 3) {
    const std::vector<uint8_t> rest = fdp.ConsumeRemainingBytes<uint8_t>();
    exercise(Bytes(rest.begin(), rest.end()), overrides, config_json, fdp);
    return 0;
  }

  // Mode 3: a model of a small config, exported, perhaps rewritten, perhaps damaged.
  const m::ModelConfig config = consume_config(fdp);
  std::unique_ptr<m::Gpt> model;
  const std::string made =
      attempt("Gpt", [&] { model = std::make_unique<m::Gpt>(config, fdp.ConsumeIntegral<uint8_t>()); });
  if (!made.empty()) return 0;
  std::vector<float>& params = model->params();
  const uint8_t scale = fdp.ConsumeIntegral<uint8_t>();
  if (scale >= 200) {  // values beyond F16's range, or below its normals
    const float factor = scale & 1 ? 1e7f : 1e-6f;
    for (float& v : params) v *= factor;
  }
  m::ExportOptions options;
  options.lm_head = fdp.ConsumeBool();
  options.causal_mask_buffers = fdp.ConsumeBool();
  options.dtype = fdp.ConsumeBool() ? m::Dtype::kF16 : m::Dtype::kF32;
  // An extra entry under a key of its own (a config key would change the model it describes).
  if (fdp.ConsumeBool())
    options.metadata["note." + fdp.ConsumeRandomLengthString(12)] = fdp.ConsumeRandomLengthString(12);
  Bytes file;
  const std::string exported =
      attempt("export_safetensors", [&] { file = m::export_safetensors(model->table(), params.data(), options); });
  if (!exported.empty()) {
    const bool f16_range = options.dtype == m::Dtype::kF16 && exported.find("does not fit F16") != std::string::npos;
    const bool utf8 = exported.find("not valid UTF-8") != std::string::npos;
    if (!f16_range && !utf8) finding("export of a fresh model failed", exported);
    return 0;
  }
  std::vector<float> expected = params;
  if (options.dtype == m::Dtype::kF16) {
    const Outcome half = load_whole(file, {}, "");
    if (!half.ok()) finding("a fresh model's F16 export does not load", half.error);
    expected = half.params;
  }
  std::string json_text;
  if (fdp.ConsumeBool() && options.dtype == m::Dtype::kF32) {
    file = hugging_face_layout(file, config, fdp, expected, model->table());
    json_text = config_json_of(config);
  }
  // Without blocks a Hugging Face file cannot show bias, mlp or layer_norm (nor has metadata
  // saying them): the caller gives them, or the loader takes nanoGPT's defaults.
  m::ConfigFields switches;
  if (!json_text.empty() && config.n_layer == 0)
    switches.bias = config.bias, switches.mlp = config.mlp, switches.layer_norm = config.layer_norm;
  const Outcome fresh = load_whole(file, switches, json_text);
  if (!fresh.ok() || !same_bits(fresh.params, expected) || !same_config(fresh.config, config))
    finding("a fresh model's file does not load as that model", describe(fresh));

  damage(file, fdp);
  exercise(file, overrides, config_json.empty() ? json_text : config_json, fdp);
  return 0;
}

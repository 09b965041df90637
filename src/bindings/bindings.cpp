// Embind glue, and nothing else: typed arrays in, typed arrays out, attn::Error turned into
// {error: message} (web/lib/engine.js throws it as an AttentionError). Argument checking and
// normalisation of nested arrays happen in engine.js (JS side) and attn::validate (C++ side).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attention.h"
#include "examples.h"
#include "kernels.h"

using emscripten::val;

namespace {

// A tensor passed from JS as {data: Float32Array, shape: number[]}; owned storage for the view.
struct Owned {
  std::vector<float> data;
  std::vector<int> shape;
};

Owned read_tensor(const val& spec, const char* name) {
  Owned owned;
  const val tensor = spec[name];
  if (tensor.isUndefined() || tensor.isNull()) return owned;
  owned.shape = emscripten::convertJSArrayToNumberVector<int>(tensor["shape"]);
  owned.data = emscripten::convertJSArrayToNumberVector<float>(tensor["data"]);
  long long expected = 1;
  for (int dim : owned.shape) expected *= dim;
  if (owned.shape.empty() || static_cast<long long>(owned.data.size()) != expected) {
    throw attn::Error(std::string(name) + ": data length " + std::to_string(owned.data.size()) +
                      " does not match its shape");
  }
  return owned;
}

attn::TensorView view_of(const Owned& owned) {
  if (owned.shape.empty()) return {};
  return {owned.data.data(), owned.shape};
}

val tensor_to_js(const attn::Tensor& tensor) {
  val out = val::object();
  out.set("shape", val::array(tensor.shape));
  // A copy owned by JS: later calls cannot invalidate it.
  val data = val::global("Float32Array").new_(tensor.data.size());
  data.call<void>("set", val(emscripten::typed_memory_view(tensor.data.size(), tensor.data.data())));
  out.set("data", data);
  return out;
}

val error_to_js(const std::string& message) {
  val out = val::object();
  out.set("error", message);
  return out;
}

val attend(const val& spec) {
  try {
    const Owned x = read_tensor(spec, "x"), wq = read_tensor(spec, "wq"), wk = read_tensor(spec, "wk"),
                wv = read_tensor(spec, "wv"), bq = read_tensor(spec, "bq"), bk = read_tensor(spec, "bk"),
                bv = read_tensor(spec, "bv"), wqkv = read_tensor(spec, "wqkv"), bqkv = read_tensor(spec, "bqkv"),
                wo = read_tensor(spec, "wo"), bo = read_tensor(spec, "bo");
    attn::Inputs in;
    in.x = view_of(x);
    in.wq = view_of(wq);
    in.wk = view_of(wk);
    in.wv = view_of(wv);
    in.bq = view_of(bq);
    in.bk = view_of(bk);
    in.bv = view_of(bv);
    in.wqkv = view_of(wqkv);
    in.bqkv = view_of(bqkv);
    in.wo = view_of(wo);
    in.bo = view_of(bo);

    attn::Options opt;
    opt.heads = spec["heads"].as<int>();
    opt.causal = spec["causal"].as<bool>();
    if (!spec["keyPadding"].isNull()) {
      opt.key_padding = emscripten::convertJSArrayToNumberVector<std::uint8_t>(spec["keyPadding"]["data"]);
      opt.key_padding_shape = emscripten::convertJSArrayToNumberVector<int>(spec["keyPadding"]["shape"]);
    }
    const std::string scale_mode = spec["scaleMode"].as<std::string>();
    opt.scale_mode = scale_mode == "none" ? attn::ScaleMode::kNone
                     : scale_mode == "factor" ? attn::ScaleMode::kFactor
                                              : attn::ScaleMode::kInverseSqrtHeadSize;
    opt.scale_factor = spec["scaleFactor"].as<float>();
    opt.temperature = spec["temperature"].as<float>();
    opt.dropout = spec["dropout"].as<float>();
    opt.seed = static_cast<std::uint64_t>(spec["seed"].as<double>());
    opt.training = spec["training"].as<bool>();
    if (!spec["dropoutKeep"].isNull()) {
      opt.dropout_keep = emscripten::convertJSArrayToNumberVector<std::uint8_t>(spec["dropoutKeep"]);
    }
    opt.kernel = attn::parse_kernel(spec["kernel"].as<std::string>());
    opt.materialize = spec["materialize"].as<bool>();

    const attn::Trace trace = attn::attend(in, opt);
    val out = val::object();
    out.set("q", tensor_to_js(trace.q));
    out.set("k", tensor_to_js(trace.k));
    out.set("v", tensor_to_js(trace.v));
    if (opt.materialize) {
      out.set("scores", tensor_to_js(trace.scores));
      out.set("scaled", tensor_to_js(trace.scaled));
      out.set("masked", tensor_to_js(trace.masked));
      out.set("weights", tensor_to_js(trace.weights));
      out.set("dropped", tensor_to_js(trace.dropped));
    }
    out.set("headOutputs", tensor_to_js(trace.head_outputs));
    out.set("merged", tensor_to_js(trace.merged));
    out.set("output", tensor_to_js(trace.output));
    out.set("kernel", std::string(attn::kernel_name(trace.kernel)));
    out.set("scale", trace.scale);
    out.set("batched", trace.batched);
    return out;
  } catch (const std::exception& error) {
    return error_to_js(error.what());
  }
}

val averaging(const val& spec) {
  try {
    const Owned x = read_tensor(spec, "x");
    const attn::AveragingTrace trace = attn::causal_average(view_of(x));
    val out = val::object();
    out.set("loop", tensor_to_js(trace.loop));
    out.set("trilWeights", tensor_to_js(trace.tril_weights));
    out.set("matmul", tensor_to_js(trace.matmul));
    out.set("maskedZeros", tensor_to_js(trace.masked_zeros));
    out.set("softmaxWeights", tensor_to_js(trace.softmax_weights));
    out.set("softmax", tensor_to_js(trace.softmax));
    out.set("batched", trace.batched);
    return out;
  } catch (const std::exception& error) {
    return error_to_js(error.what());
  }
}

val examples() {
  const auto& ex = attn::examples::bank();
  auto matrix = [](const attn::examples::Matrix& m) {
    val rows = val::array();
    for (int r = 0; r < m.rows; ++r) {
      std::vector<float> row(m.data.begin() + r * m.cols, m.data.begin() + (r + 1) * m.cols);
      rows.call<void>("push", val::array(row));
    }
    return rows;
  };
  val vocabulary = val::object();
  for (const auto& word : ex.vocabulary) vocabulary.set(word.name, val::array(word.vector));
  val contexts = val::object();
  contexts.set("river", val::array(ex.river));
  contexts.set("finance", val::array(ex.finance));
  val out = val::object();
  out.set("vocabulary", vocabulary);
  out.set("W", matrix(ex.linear));
  out.set("W_query", matrix(ex.w_query));
  out.set("W_key", matrix(ex.w_key));
  out.set("W_value", matrix(ex.w_value));
  out.set("contexts", contexts);
  return out;
}

val limits() {
  val out = val::object();
  out.set("maxBatch", attn::Limits::kMaxBatch);
  out.set("maxTokens", attn::Limits::kMaxTokens);
  out.set("maxWidth", attn::Limits::kMaxWidth);
  out.set("maxHeads", attn::Limits::kMaxHeads);
  out.set("maxInputElements", static_cast<double>(attn::Limits::kMaxInputElements));
  out.set("maxScoreElements", static_cast<double>(attn::Limits::kMaxScoreElements));
  return out;
}

bool simd() { return attn::kernels::simd_enabled(); }
// Bytes of linear memory now (64 KiB pages); grows, never shrinks, so a leak shows as growth.
double heap_bytes() { return static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0; }
std::string version() { return ATTN_VERSION; }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_explorer) {
  emscripten::function("attend", &attend);
  emscripten::function("averaging", &averaging);
  emscripten::function("examples", &examples);
  emscripten::function("limits", &limits);
  emscripten::function("simd", &simd);
  emscripten::function("version", &version);
  emscripten::function("heapBytes", &heap_bytes);
}

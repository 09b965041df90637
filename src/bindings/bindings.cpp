// Embind glue, and nothing else: packed typed arrays in, one typed array out, attn::Error turned into
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

// The JS side (web/lib/engine.js, packAttendArguments) packs one call into three arrays so
// crossing the boundary costs a handful of emval operations, not one per option:
//   floats: the data of every given tensor, in kTensorNames order
//   ints:   per tensor, its rank then its dims (rank 0 = not given); then heads, causal,
//           scale mode (0 = 1/√hk, 1 = none, 2 = factor), training, materialize, seed low
//           and high 32 bits, key-padding rank + dims, dropout keep-mask length
//   bytes:  key-padding flags, then the dropout keep-mask
//   reals:  scale factor, temperature, dropout p
constexpr const char* kTensorNames[] = {"x", "wq", "wk", "wv", "bq", "bk", "bv", "wqkv", "bqkv", "wo", "bo"};
constexpr int kTensorCount = sizeof(kTensorNames) / sizeof(kTensorNames[0]);

// Reads ints[at++] with a bounds check (a malformed packing is a bug in engine.js, but must
// still not read out of bounds).
int next_int(const std::vector<int>& ints, size_t& at) {
  if (at >= ints.size()) throw attn::Error("attend: malformed argument packing");
  return ints[at++];
}

// Names of the tensors a result may hold; pack_tensors refers to them by index and
// web/lib/engine.js (RESULT_NAMES) keeps the same list.
constexpr const char* kResultNames[] = {"q", "k", "v", "scores", "scaled", "masked", "weights", "dropped",
                                        "headOutputs", "merged", "output", "loop", "trilWeights", "matmul",
                                        "maskedZeros", "softmaxWeights", "softmax"};

int result_index(const std::string& name) {
  for (int i = 0; i < static_cast<int>(sizeof(kResultNames) / sizeof(kResultNames[0])); ++i)
    if (name == kResultNames[i]) return i;
  throw attn::Error("internal: unknown result tensor " + name);
}

// Copies every result tensor into one Float32Array; `layout` says where each one is: per
// tensor its index in kResultNames, its rank and its dims.
val pack_tensors(const std::vector<std::pair<const char*, const attn::Tensor*>>& tensors) {
  size_t total = 0;
  for (const auto& named : tensors) total += named.second->data.size();
  std::vector<float> data;
  data.reserve(total);
  std::vector<int> layout;
  for (const auto& [name, tensor] : tensors) {
    data.insert(data.end(), tensor->data.begin(), tensor->data.end());
    layout.push_back(result_index(name));
    layout.push_back(static_cast<int>(tensor->shape.size()));
    layout.insert(layout.end(), tensor->shape.begin(), tensor->shape.end());
  }
  val out = val::object();
  // .slice() makes a copy owned by JS: later calls cannot invalidate it.
  out.set("data", val(emscripten::typed_memory_view(data.size(), data.data())).call<val>("slice"));
  out.set("layout", val(emscripten::typed_memory_view(layout.size(), layout.data())).call<val>("slice"));
  return out;
}

val error_to_js(const std::string& message) {
  val out = val::object();
  out.set("error", message);
  return out;
}

val attend(const val& floats_js, const val& ints_js, const val& bytes_js, const val& reals_js, const std::string& kernel) {
  try {
    const std::vector<float> floats = emscripten::convertJSArrayToNumberVector<float>(floats_js);
    const std::vector<int> ints = emscripten::convertJSArrayToNumberVector<int>(ints_js);
    const std::vector<std::uint8_t> bytes = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes_js);
    const std::vector<double> reals = emscripten::convertJSArrayToNumberVector<double>(reals_js);
    if (reals.size() != 3) throw attn::Error("attend: malformed argument packing");

    attn::Inputs in;
    attn::TensorView* views[kTensorCount] = {&in.x, &in.wq, &in.wk, &in.wv, &in.bq, &in.bk, &in.bv,
                                             &in.wqkv, &in.bqkv, &in.wo, &in.bo};
    size_t at = 0, offset = 0;
    for (int t = 0; t < kTensorCount; ++t) {
      const int rank = next_int(ints, at);
      if (rank == 0) continue;
      long long count = 1;
      for (int d = 0; d < rank; ++d) {
        views[t]->shape.push_back(next_int(ints, at));
        count *= views[t]->shape.back();
      }
      if (count < 0 || offset + static_cast<size_t>(count) > floats.size()) throw attn::Error("attend: malformed argument packing");
      views[t]->data = floats.data() + offset;
      offset += static_cast<size_t>(count);
    }

    attn::Options opt;
    opt.heads = next_int(ints, at);
    opt.causal = next_int(ints, at) != 0;
    const int scale_mode = next_int(ints, at);
    opt.scale_mode = scale_mode == 1 ? attn::ScaleMode::kNone
                     : scale_mode == 2 ? attn::ScaleMode::kFactor
                                       : attn::ScaleMode::kInverseSqrtHeadSize;
    opt.training = next_int(ints, at) != 0;
    opt.materialize = next_int(ints, at) != 0;
    const auto seed_low = static_cast<std::uint32_t>(next_int(ints, at));
    const auto seed_high = static_cast<std::uint32_t>(next_int(ints, at));
    opt.seed = (static_cast<std::uint64_t>(seed_high) << 32) | seed_low;
    const int padding_rank = next_int(ints, at);
    long long padding_count = padding_rank ? 1 : 0;
    for (int d = 0; d < padding_rank; ++d) {
      opt.key_padding_shape.push_back(next_int(ints, at));
      padding_count *= opt.key_padding_shape.back();
    }
    const int keep_count = next_int(ints, at);
    if (padding_count < 0 || keep_count < 0 || static_cast<size_t>(padding_count) + keep_count != bytes.size()) {
      throw attn::Error("attend: malformed argument packing");
    }
    opt.key_padding.assign(bytes.begin(), bytes.begin() + padding_count);
    opt.dropout_keep.assign(bytes.begin() + padding_count, bytes.end());
    opt.scale_factor = static_cast<float>(reals[0]);
    opt.temperature = static_cast<float>(reals[1]);
    opt.dropout = static_cast<float>(reals[2]);
    opt.kernel = attn::parse_kernel(kernel);

    const attn::Trace trace = attn::attend(in, opt);
    std::vector<std::pair<const char*, const attn::Tensor*>> tensors = {{"q", &trace.q}, {"k", &trace.k}, {"v", &trace.v}};
    if (opt.materialize) {
      tensors.insert(tensors.end(), {{"scores", &trace.scores}, {"scaled", &trace.scaled}, {"masked", &trace.masked},
                                     {"weights", &trace.weights}, {"dropped", &trace.dropped}});
    }
    tensors.insert(tensors.end(), {{"headOutputs", &trace.head_outputs}, {"merged", &trace.merged}, {"output", &trace.output}});
    val out = pack_tensors(tensors);
    out.set("kernel", std::string(attn::kernel_name(trace.kernel)));
    out.set("scale", trace.scale);
    out.set("batched", trace.batched);
    return out;
  } catch (const std::exception& error) {
    return error_to_js(error.what());
  }
}

val averaging(const val& floats_js, const val& shape_js) {
  try {
    const std::vector<float> floats = emscripten::convertJSArrayToNumberVector<float>(floats_js);
    attn::TensorView x{floats.data(), emscripten::convertJSArrayToNumberVector<int>(shape_js)};
    if (x.size() != static_cast<long long>(floats.size())) throw attn::Error("x: data length does not match its shape");
    const attn::AveragingTrace trace = attn::causal_average(x);
    val out = pack_tensors({{"loop", &trace.loop}, {"trilWeights", &trace.tril_weights}, {"matmul", &trace.matmul},
                            {"maskedZeros", &trace.masked_zeros}, {"softmaxWeights", &trace.softmax_weights},
                            {"softmax", &trace.softmax}});
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
  out.set("maxTraceElements", static_cast<double>(attn::Limits::kMaxTraceElements));
  out.set("maxWork", static_cast<double>(attn::Limits::kMaxWork));
  out.set("maxMagnitude", attn::Limits::kMaxMagnitude);
  out.set("maxAlpha", attn::Limits::kMaxAlpha);
  return out;
}

// Lengths are checked by engine.js; a mismatch here answers 0 rather than reading past a vector.
double cosine(const val& a_js, const val& b_js) {
  const std::vector<float> a = emscripten::convertJSArrayToNumberVector<float>(a_js);
  const std::vector<float> b = emscripten::convertJSArrayToNumberVector<float>(b_js);
  if (a.size() != b.size()) return 0.0;
  return attn::cosine_similarity(a.data(), b.data(), static_cast<int>(a.size()));
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
  emscripten::function("cosine", &cosine);
  emscripten::function("simd", &simd);
  emscripten::function("version", &version);
  emscripten::function("heapBytes", &heap_bytes);
}

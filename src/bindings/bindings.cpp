// Embind glue, and nothing else: packed arguments in, one float array out, attn::Error turned
// into a failed result whose message engine.js throws as an AttentionError. Argument checking
// and normalisation of nested arrays happen in engine.js (JS side) and attn::validate (C++).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attention.h"
#include "examples.h"
#include "kernels.h"

using emscripten::val;

namespace {

// One call crosses the boundary through an arena in WASM memory, so it costs two Embind calls
// with plain integer arguments and no emval objects (the bank example is a ~20 µs call and
// emval traffic was most of it):
//   1. prepare(floats, ints, bytes) sizes the arena and returns the address of a header of
//      three pointers; web/lib/engine.js writes the packed arguments there:
//        floats: the data of every given tensor, in kTensorNames order
//        ints:   per tensor, its rank then its dims (rank 0 = not given); then heads, causal,
//                scale mode (0 = 1/√hk, 1 = none, 2 = factor), training, materialize, seed low
//                and high 32 bits, key-padding rank + dims, dropout keep-mask length
//        bytes:  key-padding flags, then the dropout keep-mask
//   2. attend(kernel, scale factor, temperature, dropout) (or averaging()) runs and returns the
//      address of a ResultHeader; engine.js copies the result out (a JS-owned copy) and, when
//      `failed`, reads lastError().
// The arena and the result buffers are reused by the next call, so the heap stays flat.
constexpr const char* kTensorNames[] = {"x", "wq", "wk", "wv", "bq", "bk", "bv", "wqkv", "bqkv", "wo", "bo"};
constexpr int kTensorCount = sizeof(kTensorNames) / sizeof(kTensorNames[0]);

// Names of the tensors a result may hold, by index; web/lib/engine.js (RESULT_NAMES) keeps the
// same list.
constexpr const char* kResultNames[] = {"q", "k", "v", "scores", "scaled", "masked", "weights", "dropped",
                                        "headOutputs", "merged", "output", "loop", "trilWeights", "matmul",
                                        "maskedZeros", "softmaxWeights", "softmax"};

struct Arena {
  std::vector<float> floats;
  std::vector<int> ints;
  std::vector<std::uint8_t> bytes;
  std::uintptr_t header[3] = {0, 0, 0};  // addresses of floats, ints, bytes
};

// What engine.js reads after a call (int32 fields, then the float scale).
struct ResultHeader {
  std::int32_t failed = 0;
  std::int32_t data = 0, data_length = 0;      // float32 values of every tensor, back to back
  std::int32_t layout = 0, layout_length = 0;  // per tensor: kResultNames index, rank, dims
  std::int32_t kernel = 0;                     // attn::Kernel of the call
  std::int32_t batched = 0;
  float scale = 1.0f;
};

Arena arena;
ResultHeader header;
std::vector<float> result_data;
std::vector<int> result_layout;
std::string last_error;

std::uintptr_t prepare(int floats, int ints, int bytes) {
  // Sizes come from engine.js after its own checks; negative means a bug there.
  arena.floats.resize(static_cast<size_t>(floats < 0 ? 0 : floats));
  arena.ints.resize(static_cast<size_t>(ints < 0 ? 0 : ints));
  arena.bytes.resize(static_cast<size_t>(bytes < 0 ? 0 : bytes));
  arena.header[0] = reinterpret_cast<std::uintptr_t>(arena.floats.data());
  arena.header[1] = reinterpret_cast<std::uintptr_t>(arena.ints.data());
  arena.header[2] = reinterpret_cast<std::uintptr_t>(arena.bytes.data());
  return reinterpret_cast<std::uintptr_t>(arena.header);
}

// Reads arena.ints[at++] with a bounds check (a malformed packing is a bug in engine.js, but
// must still not read out of bounds).
int next_int(size_t& at) {
  if (at >= arena.ints.size()) throw attn::Error("attend: malformed argument packing");
  return arena.ints[at++];
}

void set_result(const std::vector<std::pair<int, const attn::Tensor*>>& tensors) {
  result_data.clear();
  result_layout.clear();
  for (const auto& [index, tensor] : tensors) {
    result_data.insert(result_data.end(), tensor->data.begin(), tensor->data.end());
    result_layout.push_back(index);
    result_layout.push_back(static_cast<int>(tensor->shape.size()));
    result_layout.insert(result_layout.end(), tensor->shape.begin(), tensor->shape.end());
  }
  header.failed = 0;
  header.data = static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(result_data.data()));
  header.data_length = static_cast<std::int32_t>(result_data.size());
  header.layout = static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(result_layout.data()));
  header.layout_length = static_cast<std::int32_t>(result_layout.size());
}

std::uintptr_t fail_with(const std::string& message) {
  last_error = message;
  header = ResultHeader{};
  header.failed = 1;
  return reinterpret_cast<std::uintptr_t>(&header);
}

std::uintptr_t attend(int kernel, double scale_factor, double temperature, double dropout) {
  try {
    attn::Inputs in;
    attn::TensorView* views[kTensorCount] = {&in.x, &in.wq, &in.wk, &in.wv, &in.bq, &in.bk, &in.bv,
                                             &in.wqkv, &in.bqkv, &in.wo, &in.bo};
    size_t at = 0, offset = 0;
    for (int t = 0; t < kTensorCount; ++t) {
      const int rank = next_int(at);
      if (rank == 0) continue;
      long long count = 1;
      for (int d = 0; d < rank; ++d) {
        views[t]->shape.push_back(next_int(at));
        count *= views[t]->shape.back();
      }
      if (count < 0 || offset + static_cast<size_t>(count) > arena.floats.size()) {
        throw attn::Error("attend: malformed argument packing");
      }
      views[t]->data = arena.floats.data() + offset;
      offset += static_cast<size_t>(count);
    }

    attn::Options opt;
    opt.heads = next_int(at);
    opt.causal = next_int(at) != 0;
    const int scale_mode = next_int(at);
    opt.scale_mode = scale_mode == 1 ? attn::ScaleMode::kNone
                     : scale_mode == 2 ? attn::ScaleMode::kFactor
                                       : attn::ScaleMode::kInverseSqrtHeadSize;
    opt.training = next_int(at) != 0;
    opt.materialize = next_int(at) != 0;
    const auto seed_low = static_cast<std::uint32_t>(next_int(at));
    const auto seed_high = static_cast<std::uint32_t>(next_int(at));
    opt.seed = (static_cast<std::uint64_t>(seed_high) << 32) | seed_low;
    const int padding_rank = next_int(at);
    long long padding_count = padding_rank ? 1 : 0;
    for (int d = 0; d < padding_rank; ++d) {
      opt.key_padding_shape.push_back(next_int(at));
      padding_count *= opt.key_padding_shape.back();
    }
    const int keep_count = next_int(at);
    if (padding_count < 0 || keep_count < 0 ||
        static_cast<size_t>(padding_count) + static_cast<size_t>(keep_count) != arena.bytes.size()) {
      throw attn::Error("attend: malformed argument packing");
    }
    opt.key_padding.assign(arena.bytes.begin(), arena.bytes.begin() + padding_count);
    opt.dropout_keep.assign(arena.bytes.begin() + padding_count, arena.bytes.end());
    opt.scale_factor = static_cast<float>(scale_factor);
    opt.temperature = static_cast<float>(temperature);
    opt.dropout = static_cast<float>(dropout);
    if (kernel < 0 || kernel > static_cast<int>(attn::Kernel::kAuto)) throw attn::Error("kernel: unknown kernel index");
    opt.kernel = static_cast<attn::Kernel>(kernel);

    const attn::Trace trace = attn::attend(in, opt);
    std::vector<std::pair<int, const attn::Tensor*>> tensors = {{0, &trace.q}, {1, &trace.k}, {2, &trace.v}};
    if (opt.materialize) {
      tensors.insert(tensors.end(), {{3, &trace.scores}, {4, &trace.scaled}, {5, &trace.masked}, {6, &trace.weights},
                                     {7, &trace.dropped}});
    }
    tensors.insert(tensors.end(), {{8, &trace.head_outputs}, {9, &trace.merged}, {10, &trace.output}});
    set_result(tensors);
    header.kernel = static_cast<std::int32_t>(trace.kernel);
    header.batched = trace.batched ? 1 : 0;
    header.scale = trace.scale;
    return reinterpret_cast<std::uintptr_t>(&header);
  } catch (const std::exception& error) {
    return fail_with(error.what());
  }
}

// Causal averaging of x: arena floats = x's data, arena ints = x's shape.
std::uintptr_t averaging() {
  try {
    attn::TensorView x{arena.floats.data(), arena.ints};
    if (x.size() != static_cast<long long>(arena.floats.size())) throw attn::Error("x: data length does not match its shape");
    const attn::AveragingTrace trace = attn::causal_average(x);
    set_result({{11, &trace.loop}, {12, &trace.tril_weights}, {13, &trace.matmul}, {14, &trace.masked_zeros},
                {15, &trace.softmax_weights}, {16, &trace.softmax}});
    header.batched = trace.batched ? 1 : 0;
    return reinterpret_cast<std::uintptr_t>(&header);
  } catch (const std::exception& error) {
    return fail_with(error.what());
  }
}

std::string error_message() { return last_error; }

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
// Bytes malloc has handed out and not had back: unlike heap_bytes(), it sees a leak smaller
// than the memory's spare room.
double heap_used() { return static_cast<double>(mallinfo().uordblks); }
std::string version() { return ATTN_VERSION; }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_explorer) {
  emscripten::function("prepare", &prepare);
  emscripten::function("attend", &attend);
  emscripten::function("averaging", &averaging);
  emscripten::function("lastError", &error_message);
  emscripten::function("examples", &examples);
  emscripten::function("limits", &limits);
  emscripten::function("cosine", &cosine);
  emscripten::function("simd", &simd);
  emscripten::function("version", &version);
  emscripten::function("heapBytes", &heap_bytes);
  emscripten::function("heapUsed", &heap_used);
}

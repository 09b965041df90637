// The arena calls of abi.h: each call's arguments and results named once in a table, decoded and
// encoded from those tables, and described by name for engine.js.
#include "bindings/abi.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <type_traits>

#include "core/attention.h"
#ifndef ATTN_ENGINE_EMBED
#include "core/pca.h"
#include "core/threads.h"
#include "core/torch_random.h"
#include "model/checkpoint.h"
#include "model/gpt.h"
#include "model/inference.h"
#include "model/layers.h"
#include "model/safetensors.h"
#endif

namespace attn::abi {

namespace {

// "i32", "u32", "f32" (or "u64" for a native build's addresses), from the member's own type.
template <typename T>
constexpr const char* type_of() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "fields are 32 or 64 bits");
  if (std::is_floating_point<T>::value) return sizeof(T) == 4 ? "f32" : "f64";
  if (std::is_signed<T>::value) return sizeof(T) == 4 ? "i32" : "i64";
  return sizeof(T) == 4 ? "u32" : "u64";
}
#define ATTN_ABI_FIELD(Header, member, name) \
  Field { name, offsetof(Header, member), type_of<decltype(Header::member)>() }

// ---------------------------------------------------------------------------------------------
// The calls: their tensor and flag arguments in packing order, and their result tensors by
// index. engine.js spells every name as here.

template <class Args>
struct TensorArg {
  const char* name;
  int min_rank, max_rank;
  TensorView Args::*view;
};
struct FlagArg {
  const char* name;
  std::vector<std::uint8_t> Options::*flags;
  std::vector<int> Options::*shape;  // null: the core takes the flags flat
};
template <class Result>
struct ResultTensor {
  const char* name;
  Tensor Result::*tensor;
};

const TensorArg<Inputs> kAttendTensors[] = {
    {"x", 2, 3, &Inputs::x},       {"wq", 2, 2, &Inputs::wq}, {"wk", 2, 2, &Inputs::wk}, {"wv", 2, 2, &Inputs::wv},
    {"bq", 1, 1, &Inputs::bq},     {"bk", 1, 1, &Inputs::bk}, {"bv", 1, 1, &Inputs::bv}, {"wqkv", 2, 2, &Inputs::wqkv},
    {"bqkv", 1, 1, &Inputs::bqkv}, {"wo", 2, 2, &Inputs::wo}, {"bo", 1, 1, &Inputs::bo}};
const FlagArg kAttendFlags[] = {{"keyPadding", &Options::key_padding, &Options::key_padding_shape},
                                {"dropoutKeep", &Options::dropout_keep, nullptr}};
const ResultTensor<Trace> kAttendResults[] = {{"q", &Trace::q},
                                              {"k", &Trace::k},
                                              {"v", &Trace::v},
                                              {"scores", &Trace::scores},
                                              {"scaled", &Trace::scaled},
                                              {"masked", &Trace::masked},
                                              {"weights", &Trace::weights},
                                              {"dropped", &Trace::dropped},
                                              {"headOutputs", &Trace::head_outputs},
                                              {"merged", &Trace::merged},
                                              {"output", &Trace::output}};

#ifndef ATTN_ENGINE_EMBED
// attendBackward: attend's tensors, then the gradient of the loss by the output; attend's flags
// and options; the gradient of every given input, named as the input.
const TensorArgument kGradOutput{"gradOutput", 2, 3};
const ResultTensor<Gradients> kBackwardResults[] = {
    {"x", &Gradients::x},       {"wq", &Gradients::wq}, {"wk", &Gradients::wk}, {"wv", &Gradients::wv},
    {"bq", &Gradients::bq},     {"bk", &Gradients::bk}, {"bv", &Gradients::bv}, {"wqkv", &Gradients::wqkv},
    {"bqkv", &Gradients::bqkv}, {"wo", &Gradients::wo}, {"bo", &Gradients::bo}};
#endif

struct LinearArgs {
  TensorView x, w, b;
};
struct LinearResult {
  Tensor y;
};
const TensorArg<LinearArgs> kProjectTensors[] = {
    {"x", 2, 3, &LinearArgs::x}, {"w", 2, 2, &LinearArgs::w}, {"b", 1, 1, &LinearArgs::b}};
const ResultTensor<LinearResult> kProjectResults[] = {{"y", &LinearResult::y}};

struct AveragingArgs {
  TensorView x;
};
const TensorArg<AveragingArgs> kAveragingTensors[] = {{"x", 2, 3, &AveragingArgs::x}};
const ResultTensor<AveragingTrace> kAveragingResults[] = {{"loop", &AveragingTrace::loop},
                                                          {"trilWeights", &AveragingTrace::tril_weights},
                                                          {"matmul", &AveragingTrace::matmul},
                                                          {"maskedZeros", &AveragingTrace::masked_zeros},
                                                          {"softmaxWeights", &AveragingTrace::softmax_weights},
                                                          {"softmax", &AveragingTrace::softmax}};

#ifndef ATTN_ENGINE_EMBED
struct PcaArgs {
  TensorView x;
};
const TensorArg<PcaArgs> kPcaTensors[] = {{"x", 2, 2, &PcaArgs::x}};
const ResultTensor<Projection2D> kPcaResults[] = {{"mean", &Projection2D::mean},
                                                  {"components", &Projection2D::components},
                                                  {"projected", &Projection2D::projected},
                                                  {"explained", &Projection2D::explained}};

// draw(): the generator's operations by index, an optional input tensor, the shape, the results.
struct DrawArgs {
  TensorView input;
};
struct DrawResult {
  Tensor values, bias, keep;
};
const TensorArg<DrawArgs> kDrawTensors[] = {{"input", 1, 4, &DrawArgs::input}};
const char* const kDrawShapes[] = {"shape"};
const ResultTensor<DrawResult> kDrawResults[] = {
    {"values", &DrawResult::values}, {"bias", &DrawResult::bias}, {"keep", &DrawResult::keep}};
enum class DrawOp { kRand, kRandn, kRandint, kNormal, kUniform, kBernoulli, kLinear, kEmbedding, kDropout, kSkip };
const char* const kDrawNames[] = {"rand",      "randn",  "randint",   "normal",  "uniform",
                                  "bernoulli", "linear", "embedding", "dropout", "skip"};
static_assert(sizeof kDrawNames / sizeof kDrawNames[0] == static_cast<size_t>(DrawOp::kSkip) + 1, "one name per op");

// The model calls with tensor results: logits (B, T, V); one layer's attention (H, T, ·).
struct LogitsResult {
  Tensor logits;
};
const ResultTensor<LogitsResult> kLogitsResults[] = {{"logits", &LogitsResult::logits}};
struct LayerAttention {
  Tensor q, k, v, scores, weights;
};
const ResultTensor<LayerAttention> kModelAttentionResults[] = {{"q", &LayerAttention::q},
                                                               {"k", &LayerAttention::k},
                                                               {"v", &LayerAttention::v},
                                                               {"scores", &LayerAttention::scores},
                                                               {"weights", &LayerAttention::weights}};
// The stream and logits of a trace: residual (L + 1, T, C), logits (1 or T, V).
struct TraceStream {
  Tensor residual, after_attention, logits, timings;
};
const ResultTensor<TraceStream> kTraceStreamResults[] = {{"residual", &TraceStream::residual},
                                                         {"afterAttention", &TraceStream::after_attention},
                                                         {"logits", &TraceStream::logits},
                                                         {"timings", &TraceStream::timings}};
// A session step's tensors: attention (L, H, keys), the 10 most likely tokens (as floats, exact
// below 2^24) and their probabilities.
struct SessionStepTensors {
  Tensor attention, top_tokens, top_probs;
};
const ResultTensor<SessionStepTensors> kSessionStepResults[] = {{"attention", &SessionStepTensors::attention},
                                                                {"topTokens", &SessionStepTensors::top_tokens},
                                                                {"topProbs", &SessionStepTensors::top_probs}};
// nextToken: the logits of one position (V) in; the distribution, its top and the draw out.
struct NextTokenArgs {
  TensorView logits;
};
const TensorArg<NextTokenArgs> kNextTokenTensors[] = {{"logits", 1, 1, &NextTokenArgs::logits}};
struct NextTokenResult {
  Tensor probs, top_tokens, top_probs, token;
};
const ResultTensor<NextTokenResult> kNextTokenResults[] = {{"probs", &NextTokenResult::probs},
                                                           {"topTokens", &NextTokenResult::top_tokens},
                                                           {"topProbs", &NextTokenResult::top_probs},
                                                           {"token", &NextTokenResult::token}};

#endif

// attn::ScaleMode by value.
const char* const kScaleModeNames[] = {"inverseSqrtHeadSize", "none", "factor"};
static_assert(sizeof kScaleModeNames / sizeof kScaleModeNames[0] == static_cast<size_t>(ScaleMode::kFactor) + 1,
              "one name per attn::ScaleMode");

// ---------------------------------------------------------------------------------------------
// The arena and the result, reused by every call.

struct Arena {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
  std::vector<std::uint8_t> bytes;
};
Arena arena;
CallHeader call;
ResultHeader result;
std::vector<float> result_data;
std::vector<std::int32_t> result_layout;
std::string error_message;

// Reads the arena in packing order. A malformed packing is a bug in engine.js, but must still
// never read out of bounds: it fails the call naming it.
class Reader {
 public:
  explicit Reader(const char* call_name) : call_name_(call_name) {}

  // rank, then dims; empty when the argument is not given (rank 0).
  std::vector<int> shape(long long& count) {
    const int rank = next_int();
    count = 0;
    if (rank == 0) return {};
    if (rank < 0 || rank > 8) malformed();
    std::vector<int> dims(static_cast<size_t>(rank));
    for (int& dim : dims) {
      dim = next_int();
      if (dim < 0) malformed();
    }
    // A zero anywhere makes an empty tensor, however large the dims before it (tests/fuzz F7).
    count = std::find(dims.begin(), dims.end(), 0) != dims.end() ? 0 : 1;
    for (int dim : dims) {
      if (count > 0 && count > (1LL << 40) / dim) malformed();
      count *= dim;
    }
    return dims;
  }
  const float* floats(long long count) { return take(arena.floats, floats_, count); }
  const std::uint8_t* bytes(long long count) { return take(arena.bytes, bytes_, count); }
  // Every section read to its end.
  void finish() {
    if (ints_ != arena.ints.size() || floats_ != arena.floats.size() || bytes_ != arena.bytes.size()) malformed();
  }

 private:
  int next_int() {
    if (ints_ >= arena.ints.size()) malformed();
    return arena.ints[ints_++];
  }
  [[noreturn]] void malformed() const { throw Error(std::string(call_name_) + ": malformed argument packing"); }
  // The next `count` elements of a section.
  template <typename T>
  const T* take(const std::vector<T>& section, size_t& at, long long count) {
    if (count < 0 || static_cast<unsigned long long>(count) > section.size() - at) malformed();
    const T* start = section.data() + at;
    at += static_cast<size_t>(count);
    return start;
  }

  const char* call_name_;
  size_t ints_ = 0, floats_ = 0, bytes_ = 0;
};

// One tensor argument: its view over the arena's floats, left empty when not given.
void read_tensor(TensorView& view, Reader& reader) {
  long long count = 0;
  std::vector<int> shape = reader.shape(count);
  if (shape.empty()) return;
  view.data = reader.floats(count);
  view.shape = std::move(shape);
}

template <class Args, size_t N>
void read_tensors(Args& args, const TensorArg<Args> (&table)[N], Reader& reader) {
  for (const TensorArg<Args>& arg : table) read_tensor(args.*arg.view, reader);
}

template <size_t N>
void read_flags(Options& options, const FlagArg (&table)[N], Reader& reader) {
  for (const FlagArg& arg : table) {
    long long count = 0;
    std::vector<int> shape = reader.shape(count);
    if (shape.empty()) continue;
    const std::uint8_t* flags = reader.bytes(count);
    (options.*arg.flags).assign(flags, flags + count);
    if (arg.shape) options.*arg.shape = std::move(shape);
  }
}

// The result: tensors appended one by one (skipping those not computed, e.g. the T×T ones
// when materialize is false), then the header pointing at them.
void append_result(size_t index, const Tensor& tensor) {
  if (tensor.shape.empty()) return;
  result_data.insert(result_data.end(), tensor.data.begin(), tensor.data.end());
  result_layout.push_back(static_cast<std::int32_t>(index));
  result_layout.push_back(static_cast<std::int32_t>(tensor.shape.size()));
  result_layout.insert(result_layout.end(), tensor.shape.begin(), tensor.shape.end());
}
void finish_result(bool batched) {
  result = ResultHeader{};
  result.data = reinterpret_cast<std::uintptr_t>(result_data.data());
  result.data_length = static_cast<std::int32_t>(result_data.size());
  result.layout = reinterpret_cast<std::uintptr_t>(result_layout.data());
  result.layout_length = static_cast<std::int32_t>(result_layout.size());
  result.batched = batched ? 1 : 0;
}

template <class Result, size_t N>
void write_result(const Result& tensors, const ResultTensor<Result> (&table)[N], bool batched) {
  result_data.clear();
  result_layout.clear();
  for (size_t i = 0; i < N; ++i) append_result(i, tensors.*table[i].tensor);
  finish_result(batched);
}

// Runs one call: any exception becomes a failed result whose message lastError() returns.
template <class Body>
std::uintptr_t run(const char* call_name, Body body) {
  try {
    Reader reader(call_name);
    body(reader);
  } catch (const std::exception& error) {
    error_message = error.what();
    result = ResultHeader{};
    result.failed = 1;
  }
  return reinterpret_cast<std::uintptr_t>(&result);
}

template <class Args, size_t N>
std::vector<TensorArgument> describe_tensors(const TensorArg<Args> (&table)[N]) {
  std::vector<TensorArgument> out;
  for (const TensorArg<Args>& arg : table) out.push_back({arg.name, arg.min_rank, arg.max_rank});
  return out;
}
template <class Result, size_t N>
std::vector<const char*> describe_results(const ResultTensor<Result> (&table)[N]) {
  std::vector<const char*> out;
  for (const ResultTensor<Result>& r : table) out.push_back(r.name);
  return out;
}

}  // namespace

const Description& describe() {
  static const Description description = [] {
    Description d;
    d.sections = {ATTN_ABI_FIELD(CallHeader, floats, "floats"), ATTN_ABI_FIELD(CallHeader, ints, "ints"),
                  ATTN_ABI_FIELD(CallHeader, bytes, "bytes")};
    d.options = {
        ATTN_ABI_FIELD(CallHeader, kernel, "kernel"),     ATTN_ABI_FIELD(CallHeader, heads, "heads"),
        ATTN_ABI_FIELD(CallHeader, causal, "causal"),     ATTN_ABI_FIELD(CallHeader, scale_mode, "scaleMode"),
        ATTN_ABI_FIELD(CallHeader, training, "training"), ATTN_ABI_FIELD(CallHeader, materialize, "materialize"),
        ATTN_ABI_FIELD(CallHeader, seed_low, "seedLow"),  ATTN_ABI_FIELD(CallHeader, seed_high, "seedHigh"),
        ATTN_ABI_FIELD(CallHeader, scale, "scale"),       ATTN_ABI_FIELD(CallHeader, temperature, "temperature"),
        ATTN_ABI_FIELD(CallHeader, dropout, "dropout")};
    d.result = {ATTN_ABI_FIELD(ResultHeader, failed, "failed"),
                ATTN_ABI_FIELD(ResultHeader, data, "data"),
                ATTN_ABI_FIELD(ResultHeader, data_length, "dataLength"),
                ATTN_ABI_FIELD(ResultHeader, layout, "layout"),
                ATTN_ABI_FIELD(ResultHeader, layout_length, "layoutLength"),
                ATTN_ABI_FIELD(ResultHeader, kernel, "kernel"),
                ATTN_ABI_FIELD(ResultHeader, batched, "batched"),
                ATTN_ABI_FIELD(ResultHeader, scale, "scale")};
    Call attend{"attend", describe_tensors(kAttendTensors), {}, {}, describe_results(kAttendResults)};
    for (const FlagArg& flag : kAttendFlags) attend.flags.push_back(flag.name);
    d.calls = {attend,
               {"project", describe_tensors(kProjectTensors), {}, {}, describe_results(kProjectResults)},
               {"averaging", describe_tensors(kAveragingTensors), {}, {}, describe_results(kAveragingResults)}};
#ifndef ATTN_ENGINE_EMBED
    Call backward{
        "attendBackward", describe_tensors(kAttendTensors), attend.flags, {}, describe_results(kBackwardResults)};
    backward.tensors.push_back(kGradOutput);
    d.calls.push_back(backward);
    d.calls.push_back({"pca", describe_tensors(kPcaTensors), {}, {}, describe_results(kPcaResults)});
    Call draw{"draw", describe_tensors(kDrawTensors), {}, {}, describe_results(kDrawResults)};
    for (const char* name : kDrawShapes) draw.shapes.push_back(name);
    d.calls.push_back(draw);
    for (const char* name : kDrawNames) d.draws.push_back(name);
    d.calls.push_back({"modelLogits", {}, {}, {}, describe_results(kLogitsResults)});
    d.calls.push_back({"modelAttention", {}, {}, {}, describe_results(kModelAttentionResults)});
    d.calls.push_back({"modelTrace", {}, {}, {}, describe_results(kTraceStreamResults)});
    d.calls.push_back({"sessionStep", {}, {}, {}, describe_results(kSessionStepResults)});
    d.calls.push_back({"nextToken", describe_tensors(kNextTokenTensors), {}, {}, describe_results(kNextTokenResults)});
#endif
    for (int k = 0; k <= static_cast<int>(Kernel::kAuto); ++k) d.kernels.push_back(kernel_name(static_cast<Kernel>(k)));
    for (const char* name : kScaleModeNames) d.scale_modes.push_back(name);
    return d;
  }();
  return description;
}

std::uintptr_t prepare(int floats, int ints, int bytes) {
  // Sizes come from engine.js after its own checks; negative means a bug there.
  arena.floats.resize(static_cast<size_t>(floats < 0 ? 0 : floats));
  arena.ints.resize(static_cast<size_t>(ints < 0 ? 0 : ints));
  arena.bytes.resize(static_cast<size_t>(bytes < 0 ? 0 : bytes));
  call.floats = reinterpret_cast<std::uintptr_t>(arena.floats.data());
  call.ints = reinterpret_cast<std::uintptr_t>(arena.ints.data());
  call.bytes = reinterpret_cast<std::uintptr_t>(arena.bytes.data());
  return reinterpret_cast<std::uintptr_t>(&call);
}

// attend's scalar options from the CallHeader, after the arena's flags.
static void read_options(Options& options) {
  if (call.kernel < 0 || call.kernel > static_cast<int>(Kernel::kAuto)) throw Error("kernel: unknown kernel index");
  if (call.scale_mode < 0 || call.scale_mode > static_cast<int>(ScaleMode::kFactor)) {
    throw Error("scale: unknown scale mode index");
  }
  options.kernel = static_cast<Kernel>(call.kernel);
  options.heads = call.heads;
  options.causal = call.causal != 0;
  options.scale_mode = static_cast<ScaleMode>(call.scale_mode);
  options.scale_factor = call.scale;
  options.temperature = call.temperature;
  options.dropout = call.dropout;
  options.training = call.training != 0;
  options.materialize = call.materialize != 0;
  options.seed = (static_cast<std::uint64_t>(call.seed_high) << 32) | call.seed_low;
}

std::uintptr_t attend() {
  return run("attend", [](Reader& reader) {
    Inputs inputs;
    Options options;
    read_tensors(inputs, kAttendTensors, reader);
    read_flags(options, kAttendFlags, reader);
    reader.finish();
    read_options(options);
    const Trace trace = attn::attend(inputs, options);
    write_result(trace, kAttendResults, trace.batched);
    result.kernel = static_cast<std::int32_t>(trace.kernel);
    result.scale = trace.scale;
  });
}

#ifndef ATTN_ENGINE_EMBED
std::uintptr_t attend_backward() {
  return run("attendBackward", [](Reader& reader) {
    Inputs inputs;
    Options options;
    TensorView grad_output;
    read_tensors(inputs, kAttendTensors, reader);
    read_tensor(grad_output, reader);
    read_flags(options, kAttendFlags, reader);
    reader.finish();
    read_options(options);
    const Gradients grads = attn::attend_backward(inputs, options, grad_output);
    write_result(grads, kBackwardResults, inputs.x.shape.size() == 3);
  });
}
#endif

std::uintptr_t project() {
  return run("project", [](Reader& reader) {
    LinearArgs args;
    read_tensors(args, kProjectTensors, reader);
    reader.finish();
    const LinearResult y{linear(args.x, args.w, args.b)};
    write_result(y, kProjectResults, args.x.shape.size() == 3);
  });
}

std::uintptr_t averaging() {
  return run("averaging", [](Reader& reader) {
    AveragingArgs args;
    read_tensors(args, kAveragingTensors, reader);
    reader.finish();
    const AveragingTrace trace = causal_average(args.x);
    write_result(trace, kAveragingResults, trace.batched);
  });
}

#ifndef ATTN_ENGINE_EMBED
// One integer-list argument (a shape): its values; empty when not given.
static std::vector<int> read_shape(Reader& reader) {
  long long count = 0;
  return reader.shape(count);
}

std::uintptr_t pca() {
  return run("pca", [](Reader& reader) {
    PcaArgs args;
    read_tensors(args, kPcaTensors, reader);
    reader.finish();
    write_result(attn::pca2(args.x), kPcaResults, false);
  });
}

// Generators by handle; a page makes a few (one per notebook view), engine.js frees them.
std::map<int, std::unique_ptr<TorchGenerator>> generators;
int next_handle = 1;
constexpr size_t kMaxGenerators = 1024;

int generator_create(double seed) {
  try {
    if (generators.size() >= kMaxGenerators) {
      throw Error("seed: more than " + std::to_string(kMaxGenerators) + " generators are alive; dispose() some");
    }
    generators.emplace(next_handle, std::make_unique<TorchGenerator>(TorchGenerator::seed_from_number(seed)));
    return next_handle++;
  } catch (const std::exception& error) {
    error_message = error.what();
    return 0;
  }
}

void generator_delete(int handle) { generators.erase(handle); }

std::uintptr_t draw(int handle, int op, double a, double b, int flag) {
  return run("draw", [&](Reader& reader) {
    DrawArgs args;
    read_tensors(args, kDrawTensors, reader);
    const std::vector<int> shape = read_shape(reader);
    reader.finish();
    const auto found = generators.find(handle);
    if (found == generators.end()) throw Error("draw: this generator was disposed");
    TorchGenerator& g = *found->second;
    const auto count = [](double v, const char* name) {
      if (!(v >= 0 && v <= 1 << 24) || v != static_cast<int>(v)) {
        throw Error(std::string(name) + ": expected an integer in [0, 16777216], got " + std::to_string(v));
      }
      return static_cast<int>(v);
    };
    const auto filled = [&](auto fill) {
      TensorView view{nullptr, shape};
      if (view.size() > TorchGenerator::kMaxElements) throw Error("shape: more than 2^24 elements");
      Tensor t;
      t.shape = shape;
      t.data.assign(static_cast<size_t>(view.shape.empty() ? 1 : view.size()), 0.0f);
      fill(t);
      return t;
    };
    DrawResult out;
    switch (static_cast<DrawOp>(op)) {
      case DrawOp::kRand: out.values = g.rand(shape); break;
      case DrawOp::kRandn: out.values = g.randn(shape); break;
      case DrawOp::kRandint: {
        // float32 results: the bounds stay within ±2^24, where every integer is exact.
        for (const auto& [v, name] : {std::pair<double, const char*>{a, "low"}, {b, "high"}}) {
          if (!(std::fabs(v) <= 1 << 24) || v != static_cast<double>(static_cast<long long>(v))) {
            throw Error(std::string(name) + ": expected an integer in [-16777216, 16777216], got " + std::to_string(v));
          }
        }
        const IntTensor t = g.randint(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), shape);
        out.values.shape = t.shape;
        out.values.data.assign(t.data.begin(), t.data.end());
        break;
      }
      case DrawOp::kNormal: out.values = filled([&](Tensor& t) { g.normal_(t, a, b); }); break;
      case DrawOp::kUniform: out.values = filled([&](Tensor& t) { g.uniform_(t, a, b); }); break;
      case DrawOp::kBernoulli: out.values = g.bernoulli(a, shape); break;
      case DrawOp::kLinear: {
        LinearParams p = g.linear_init(count(a, "inFeatures"), count(b, "outFeatures"), flag != 0);
        out.values = std::move(p.weight);
        if (p.has_bias) out.bias = std::move(p.bias);
        break;
      }
      case DrawOp::kEmbedding: out.values = g.embedding_init(count(a, "count"), count(b, "dim")); break;
      case DrawOp::kDropout: {
        if (!args.input.given()) throw Error("input: required, the tensor dropout is applied to");
        DropoutDraw d = g.dropout(args.input, a, true);
        out.values = std::move(d.output);
        out.keep.shape = out.values.shape;
        out.keep.data.assign(d.keep.begin(), d.keep.end());
        break;
      }
      case DrawOp::kSkip:
        for (int n = count(a, "words"); n > 0; --n) g.random();
        break;
      default: throw Error("draw: unknown operation index " + std::to_string(op));
    }
    write_result(out, kDrawResults, false);
  });
}

// ---------------------------------------------------------------------------------------------
// Models

namespace {

// A model and everything its calls keep between them.
struct ModelSlot {
  explicit ModelSlot(std::unique_ptr<model::Gpt> model) : gpt_owner(std::move(model)), gpt(*gpt_owner), trainer(gpt) {}
  std::unique_ptr<model::Gpt> gpt_owner;
  model::Gpt& gpt;
  model::Trainer trainer;
  model::SequenceCapture capture;  // the last model_trace's
  std::vector<float> stage;        // model_stage's copy
  long long weights_version = 0;   // bumped by every change of the weights (a step, setParams)
};
std::map<int, std::unique_ptr<ModelSlot>> models;
int next_model = 1;
constexpr size_t kMaxModels = 256;
std::vector<std::int32_t> model_in, model_targets, model_out;
std::vector<std::uint8_t> exported;

ModelSlot& slot(int handle) {
  const auto found = models.find(handle);
  if (found == models.end()) throw Error("model: this model was disposed");
  return *found->second;
}

// Runs a model call returning `fallback` after recording the error of anything it throws.
template <typename R, class Body>
R guard(R fallback, Body body) {
  try {
    return body();
  } catch (const std::exception& error) {
    error_message = error.what();
    return fallback;
  }
}

// B·T tokens from the input buffer, checked against what model_input() sized.
model::Batch input_batch(int batch, int context, bool targets) {
  if (batch < 1 || context < 1 || static_cast<long long>(batch) * context != static_cast<long long>(model_in.size())) {
    throw Error("batch: " + std::to_string(batch) + " × " + std::to_string(context) + " tokens, but the input holds " +
                std::to_string(model_in.size()));
  }
  return {model_in.data(), targets ? model_targets.data() : nullptr, batch, context};
}

// attn::Error when no further model may be added (checked before one is read or allocated).
void check_room_for_a_model() {
  if (models.size() >= kMaxModels) {
    throw Error("model: more than " + std::to_string(kMaxModels) + " models are alive; dispose() some");
  }
}

int add_model(std::unique_ptr<ModelSlot> slot_ptr) {
  check_room_for_a_model();
  models.emplace(next_model, std::move(slot_ptr));
  return next_model++;
}

model::ModelConfig config_of(const ModelArgs& a) {
  model::ModelConfig c;
  c.vocab_size = a.vocab_size, c.block_size = a.context_length, c.n_layer = a.layers, c.n_head = a.heads;
  c.n_embd = a.width, c.bias = a.bias != 0, c.mlp = a.mlp != 0, c.layer_norm = a.layer_norm != 0;
  c.dropout = a.dropout;
  if (a.gelu >= 0) c.gelu = a.gelu ? model::Gelu::kTanh : model::Gelu::kExact;
  if (!std::isnan(a.layer_norm_eps)) c.layer_norm_eps = a.layer_norm_eps;
  return c;
}

// The fields a caller gave (the rest −1 / NaN) for the checkpoint loader.
model::ConfigFields fields_of(const ModelArgs& a) {
  model::ConfigFields f;
  f.vocab_size = a.vocab_size, f.block_size = a.context_length, f.n_layer = a.layers, f.n_head = a.heads;
  f.n_embd = a.width, f.bias = a.bias, f.mlp = a.mlp, f.layer_norm = a.layer_norm, f.gelu = a.gelu;
  f.dropout = a.dropout, f.layer_norm_eps = a.layer_norm_eps;
  return f;
}

// Generation sessions, by handle: each with its model's handle and the weights it started from.
struct SessionSlot {
  int model = 0;
  long long weights_version = 0;
  std::unique_ptr<model::GenerationSession> session;
};
std::map<int, std::unique_ptr<SessionSlot>> sessions;
double (*trace_clock)() = nullptr;  // set_clock's
int next_session = 1;
constexpr size_t kMaxSessions = 256;
SessionStepTensors session_tensors;

// Checkpoints being read in slices, by handle, each with its staging buffer.
struct OpenSlot {
  std::unique_ptr<model::CheckpointLoader> loader;
  std::vector<std::uint8_t> staging;
};
std::map<int, std::unique_ptr<OpenSlot>> opening;
int next_open = 1;
constexpr size_t kMaxOpening = 16;
constexpr int kMaxStagingBytes = 1 << 26;

OpenSlot& open_slot(int handle) {
  const auto found = opening.find(handle);
  if (found == opening.end()) throw Error("model: this checkpoint is no longer being read (it failed or finished)");
  return *found->second;
}

// Runs a step of reading a checkpoint; a failure frees the loader and its parameters.
template <typename R, class Body>
R opening_guard(int handle, R fallback, Body body) {
  try {
    return body();
  } catch (const std::exception& error) {
    error_message = error.what();
    opening.erase(handle);
    return fallback;
  }
}

}  // namespace

std::uintptr_t model_input(int count) {
  const size_t n = static_cast<size_t>(count < 0 ? 0 : count);
  model_in.resize(n);
  model_targets.resize(n);
  return reinterpret_cast<std::uintptr_t>(model_in.data());
}
std::uintptr_t model_input_targets() { return reinterpret_cast<std::uintptr_t>(model_targets.data()); }
std::uintptr_t model_output() { return reinterpret_cast<std::uintptr_t>(model_out.data()); }

int model_create(const ModelArgs& args) {
  return guard(0, [&] {
    const std::uint64_t seed = TorchGenerator::seed_from_number(args.seed);
    return add_model(std::make_unique<ModelSlot>(std::make_unique<model::Gpt>(config_of(args), seed)));
  });
}

int model_load(const ModelArgs& overrides, const std::string& config_json) {
  return guard(0, [&] {
    check_room_for_a_model();
    return add_model(std::make_unique<ModelSlot>(
        model::load_checkpoint(arena.bytes.data(), arena.bytes.size(), fields_of(overrides), config_json)));
  });
}

double model_header_length(double file_size) {
  return guard(-1.0, [&] {
    const std::uint64_t size = file_size < 0 ? model::kUnknownFileSize : static_cast<std::uint64_t>(file_size);
    if (size < 8) {
      throw Error("safetensors: file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
    }
    if (arena.bytes.size() < 8) throw Error("bytes: the file's first 8 bytes are needed for its header length");
    return static_cast<double>(model::safetensors_header_length(arena.bytes.data(), size));
  });
}

int model_open(const ModelArgs& overrides, double file_size, const std::string& config_json) {
  return guard(0, [&] {
    if (opening.size() >= kMaxOpening) {
      throw Error("model: " + std::to_string(kMaxOpening) +
                  " checkpoints are being read already; finish or cancel one");
    }
    check_room_for_a_model();
    const std::uint64_t size = file_size < 0 ? model::kUnknownFileSize : static_cast<std::uint64_t>(file_size);
    auto slot_ptr = std::make_unique<OpenSlot>();
    slot_ptr->loader = std::make_unique<model::CheckpointLoader>(arena.bytes.data(), arena.bytes.size(), size,
                                                                 fields_of(overrides), config_json);
    opening.emplace(next_open, std::move(slot_ptr));
    return next_open++;
  });
}

std::vector<CopyRange> model_open_copies(int loader) {
  return guard(std::vector<CopyRange>{}, [&] {
    std::vector<CopyRange> out;
    for (const model::TensorCopy& c : open_slot(loader).loader->copies())
      out.push_back({static_cast<double>(c.begin), static_cast<double>(c.end), c.name});
    return out;
  });
}

double model_open_file_end(int loader) {
  return guard(-1.0, [&] {
    const model::SafetensorsHeader& h = open_slot(loader).loader->header();
    return static_cast<double>(h.buffer_offset + h.buffer_size);
  });
}

std::uintptr_t model_open_buffer(int loader, int bytes) {
  return opening_guard(loader, std::uintptr_t{0}, [&] {
    if (bytes < 1 || bytes > kMaxStagingBytes) {
      throw Error("bytes: a slice of 1 to " + std::to_string(kMaxStagingBytes) + " bytes, got " +
                  std::to_string(bytes));
    }
    OpenSlot& o = open_slot(loader);
    o.staging.resize(static_cast<size_t>(bytes));
    return reinterpret_cast<std::uintptr_t>(o.staging.data());
  });
}

int model_open_write(int loader, int copy, double offset, int n) {
  return opening_guard(loader, 0, [&] {
    OpenSlot& o = open_slot(loader);
    if (n < 0 || static_cast<size_t>(n) > o.staging.size() || !(offset >= 0)) {
      throw Error("write: " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + ", but " +
                  std::to_string(o.staging.size()) + " are staged");
    }
    o.loader->write(static_cast<size_t>(copy), static_cast<std::uint64_t>(offset), o.staging.data(),
                    static_cast<size_t>(n));
    return 1;
  });
}

int model_open_finish(int loader) {
  return opening_guard(loader, 0, [&] {
    OpenSlot& o = open_slot(loader);
    std::unique_ptr<model::Gpt> model = o.loader->finish();
    opening.erase(loader);
    return add_model(std::make_unique<ModelSlot>(std::move(model)));
  });
}

void model_open_cancel(int loader) { opening.erase(loader); }

void model_delete(int handle) {
  for (auto it = sessions.begin(); it != sessions.end();)
    it = it->second->model == handle ? sessions.erase(it) : std::next(it);
  models.erase(handle);
}

ModelArgs model_config(int handle) {
  return guard(ModelArgs{}, [&] {
    const model::ModelConfig& c = slot(handle).gpt.config();
    ModelArgs a;
    a.vocab_size = c.vocab_size, a.context_length = c.block_size, a.layers = c.n_layer, a.heads = c.n_head;
    a.width = c.n_embd, a.bias = c.bias, a.mlp = c.mlp, a.layer_norm = c.layer_norm, a.dropout = c.dropout;
    a.gelu = c.gelu == model::Gelu::kTanh ? 1 : 0, a.layer_norm_eps = c.layer_norm_eps;
    return a;
  });
}

int model_set_kernel(int handle, const std::string& name) {
  return guard(0, [&] {
    slot(handle).gpt.set_kernel(parse_kernel(name, "kernel"));
    return 1;
  });
}

std::string model_kernel(int handle) {
  return guard(std::string(), [&] { return std::string(kernel_name(slot(handle).gpt.kernel())); });
}

double model_steps(int handle) {
  return guard(-1.0, [&] { return static_cast<double>(slot(handle).trainer.steps()); });
}

StepReport model_step(int handle, const StepArgs& args) {
  StepReport failed;
  failed.failed = 1;
  return guard(failed, [&] {
    ModelSlot& m = slot(handle);
    model::StepOptions o;
    if (args.optimizer == "adamw") {
      o.optimizer = model::OptimizerKind::kAdamW;
    } else if (args.optimizer == "sgd") {
      o.optimizer = model::OptimizerKind::kSGD;
    } else {
      throw Error("optimizer: expected 'adamw' or 'sgd', got '" + args.optimizer + "'");
    }
    o.adamw.beta1 = args.beta1, o.adamw.beta2 = args.beta2, o.adamw.eps = args.eps;
    o.adamw.weight_decay = args.weight_decay;
    o.sgd.momentum = args.momentum, o.sgd.weight_decay = args.weight_decay;
    o.clip = args.clip;
    const auto whole = [](double v, const char* name) {
      if (!(v >= 0 && v <= 1e15) || v != std::floor(v)) {
        throw Error(std::string(name) + ": expected a whole number of steps ≥ 0, got " + std::to_string(v));
      }
      return static_cast<long long>(v);
    };
    const long long warmup = whole(args.warmup, "warmup"), decay = whole(args.decay_steps, "decaySteps");
    o.schedule.learning_rate = args.lr;
    if (decay > 0) {
      if (decay <= warmup) {
        throw Error("decaySteps: expected more than warmup = " + std::to_string(warmup) + ", got " +
                    std::to_string(decay));
      }
      o.schedule = {true, args.lr, std::isnan(args.min_lr) ? args.lr / 10 : args.min_lr, warmup, decay};
    } else if (warmup > 0) {
      o.schedule = {true, args.lr, args.lr, warmup, warmup + 1};  // warmup, then lr (min_lr = lr)
    }
    o.seed = TorchGenerator::seed_from_number(args.seed);
    ++m.weights_version;  // a failed step may still have undone the last update
    const model::StepResult r = m.trainer.step(input_batch(args.batch, args.context, true), o);
    StepReport report;
    report.loss = r.loss, report.grad_norm = r.grad_norm, report.lr = r.lr, report.step = static_cast<double>(r.step);
    return report;
  });
}

EvalReport model_evaluate(int handle, int batch, int context) {
  EvalReport failed;
  failed.failed = 1;
  return guard(failed, [&] {
    model::Gpt& gpt = slot(handle).gpt;
    const model::Batch b = input_batch(batch, context, true);
    EvalReport report;
    report.loss = gpt.forward(b);
    // predictions: the argmax of each position's logits (the first of equals)
    const int V = gpt.config().vocab_size;
    const size_t n = model_in.size();
    model_out.resize(n);
    long long scored = 0, right = 0;
    for (size_t i = 0; i < n; ++i) {
      const float* row = gpt.logits().data() + i * static_cast<size_t>(V);
      model_out[i] = static_cast<std::int32_t>(std::max_element(row, row + V) - row);
      if (model_targets[i] == model::kIgnoreIndex) continue;
      ++scored;
      right += model_out[i] == model_targets[i];
    }
    report.accuracy = static_cast<double>(right) / static_cast<double>(scored);  // scored ≥ 1: forward checked
    return report;
  });
}

std::uintptr_t model_logits(int handle, int batch, int context) {
  return run("modelLogits", [&](Reader&) {
    model::Gpt& gpt = slot(handle).gpt;
    gpt.forward(input_batch(batch, context, false));
    LogitsResult out;
    out.logits.shape = {batch, context, gpt.config().vocab_size};
    out.logits.data = gpt.logits();
    write_result(out, kLogitsResults, true);
  });
}

void set_clock(double (*clock_ms)()) { trace_clock = clock_ms; }

int model_trace(int handle, int context, int layer_count, int head_count, int parts, int logits) {
  return guard(-1, [&] {
    ModelSlot& m = slot(handle);
    if (context < 1 || layer_count < 0 || head_count < 0 ||
        static_cast<size_t>(context) + layer_count + head_count != model_in.size()) {
      throw Error("tokens: " + std::to_string(context) + " tokens, " + std::to_string(layer_count) + " layers and " +
                  std::to_string(head_count) + " heads, but the input holds " + std::to_string(model_in.size()));
    }
    if (logits < 0 || logits > 2) throw Error("logits: expected 'none', 'last' or 'all'");
    model::CaptureRequest request;
    const auto at = model_in.begin() + context;
    request.layers.assign(at, at + layer_count);
    request.heads.assign(at + layer_count, at + layer_count + head_count);
    request.qkv = (parts & kTraceQkv) != 0, request.scores = (parts & kTraceScores) != 0;
    request.weights = (parts & kTraceWeights) != 0, request.residual = (parts & kTraceResidual) != 0;
    request.after_attention = (parts & kTraceAfterAttention) != 0;
    if (parts & kTraceTimings) {
      if (!trace_clock) throw Error("timings: this build of the engine has no clock");
      request.clock_ms = trace_clock;
    }
    request.logits = static_cast<model::LogitRows>(logits);
    m.capture = model::trace_sequence(m.gpt, std::vector<int>(model_in.begin(), at), request, m.gpt.kernel());
    return static_cast<int>(m.capture.attention.size());
  });
}

std::uintptr_t model_trace_layer(int handle, int index) {
  return run("modelAttention", [&](Reader&) {
    ModelSlot& m = slot(handle);
    const model::SequenceCapture& c = m.capture;
    if (index < 0 || static_cast<size_t>(index) >= c.attention.size()) {
      throw Error("layer: expected 0 ≤ index < " + std::to_string(c.attention.size()) + ", got " +
                  std::to_string(index));
    }
    const model::SequenceCapture::Layer& l = c.attention[static_cast<size_t>(index)];
    const int H = static_cast<int>(c.heads.size()), hs = m.gpt.config().n_embd / m.gpt.config().n_head;
    const int n = c.rows, K = c.keys;
    LayerAttention out;
    auto put = [](Tensor& t, std::vector<int> shape, const std::vector<float>& data) {
      if (!data.empty()) t = {std::move(shape), data};
    };
    put(out.q, {H, n, hs}, l.q), put(out.k, {H, K, hs}, l.k), put(out.v, {H, K, hs}, l.v);
    put(out.scores, {H, n, K}, l.scores), put(out.weights, {H, n, K}, l.weights);
    write_result(out, kModelAttentionResults, false);
  });
}

std::uintptr_t model_trace_stream(int handle) {
  return run("modelTrace", [&](Reader&) {
    ModelSlot& m = slot(handle);
    const model::SequenceCapture& c = m.capture;
    const model::ModelConfig& cfg = m.gpt.config();
    TraceStream out;
    if (!c.residual.empty()) out.residual = {{cfg.n_layer + 1, c.rows, cfg.n_embd}, c.residual};
    if (!c.after_attention.empty()) out.after_attention = {{cfg.n_layer, c.rows, cfg.n_embd}, c.after_attention};
    if (!c.logits.empty()) {
      out.logits = {{static_cast<int>(c.logits.size() / static_cast<size_t>(cfg.vocab_size)), cfg.vocab_size},
                    c.logits};
    }
    if (c.timings.measured) {
      out.timings = {{3},
                     {static_cast<float>(c.timings.linear_ms), static_cast<float>(c.timings.attention_ms),
                      static_cast<float>(c.timings.total_ms)}};
    }
    write_result(out, kTraceStreamResults, false);
  });
}

int model_generate(int handle, int prompt_length, int count, double temperature, int top_k, double top_p, double seed) {
  return guard(-1, [&] {
    model::Gpt& gpt = slot(handle).gpt;
    if (prompt_length < 0 || static_cast<size_t>(prompt_length) != model_in.size()) {
      throw Error("prompt: " + std::to_string(prompt_length) + " tokens, but the input holds " +
                  std::to_string(model_in.size()));
    }
    model::GenerateOptions o;
    o.temperature = temperature, o.top_k = top_k, o.top_p = top_p, o.seed = TorchGenerator::seed_from_number(seed);
    const std::vector<int> out = model::generate(gpt, std::vector<int>(model_in.begin(), model_in.end()), count, o);
    model_out.assign(out.begin(), out.end());
    return static_cast<int>(out.size());
  });
}

std::vector<ParamInfo> model_param_table(int handle) {
  return guard(std::vector<ParamInfo>{}, [&] {
    std::vector<ParamInfo> out;
    for (const model::ParamEntry& e : slot(handle).gpt.table().entries())
      out.push_back({e.name, e.shape, static_cast<double>(e.offset), static_cast<double>(e.size)});
    return out;
  });
}

std::uintptr_t model_params(int handle) {
  return guard(std::uintptr_t{0}, [&] { return reinterpret_cast<std::uintptr_t>(slot(handle).gpt.params().data()); });
}

std::uintptr_t model_stage(int handle) {
  return guard(std::uintptr_t{0}, [&] {
    ModelSlot& m = slot(handle);
    m.stage.assign(m.gpt.params().begin(), m.gpt.params().end());
    return reinterpret_cast<std::uintptr_t>(m.stage.data());
  });
}

int model_commit(int handle) {
  return guard(0, [&] {
    ModelSlot& m = slot(handle);
    if (m.stage.size() != m.gpt.params().size()) throw Error("setParams: nothing staged (model_stage first)");
    for (const model::ParamEntry& e : m.gpt.table().entries())
      for (size_t i = 0; i < e.size; ++i)
        if (!std::isfinite(m.stage[e.offset + i])) {
          throw Error(e.name + ": every value must be finite, got " + std::to_string(m.stage[e.offset + i]) +
                      " at flat index " + std::to_string(i));
        }
    m.gpt.params().swap(m.stage);
    ++m.weights_version;  // the same size: the vector swap keeps gpt's table valid
    return 1;
  });
}

double model_export(int handle) {
  return guard(-1.0, [&] {
    const model::Gpt& gpt = slot(handle).gpt;
    exported = model::export_safetensors(gpt.table(), gpt.params().data());
    return static_cast<double>(exported.size());
  });
}
std::uintptr_t model_export_data() { return reinterpret_cast<std::uintptr_t>(exported.data()); }

int session_create(int model, int prompt_length, double temperature, int top_k, double top_p, double seed) {
  return guard(0, [&] {
    ModelSlot& m = slot(model);
    if (sessions.size() >= kMaxSessions) {
      throw Error("session: more than " + std::to_string(kMaxSessions) + " sessions are alive; dispose() some");
    }
    if (prompt_length < 0 || static_cast<size_t>(prompt_length) != model_in.size()) {
      throw Error("prompt: " + std::to_string(prompt_length) + " tokens, but the input holds " +
                  std::to_string(model_in.size()));
    }
    model::GenerateOptions o;
    o.temperature = temperature, o.top_k = top_k, o.top_p = top_p, o.seed = TorchGenerator::seed_from_number(seed);
    auto slot_ptr = std::make_unique<SessionSlot>();
    slot_ptr->model = model, slot_ptr->weights_version = m.weights_version;
    slot_ptr->session = std::make_unique<model::GenerationSession>(
        m.gpt, std::vector<int>(model_in.begin(), model_in.end()), o, m.gpt.kernel());
    sessions.emplace(next_session, std::move(slot_ptr));
    return next_session++;
  });
}

namespace {
SessionSlot& session_slot(int handle) {
  const auto found = sessions.find(handle);
  if (found == sessions.end()) throw Error("session: this session was disposed (or its model was)");
  SessionSlot& s = *found->second;
  if (slot(s.model).weights_version != s.weights_version) {
    throw Error(
        "session: the model's weights changed (a training step or setParams) since this session started; its "
        "cached keys and values are of the old weights: start a new session");
  }
  return s;
}
}  // namespace

SessionStepReport session_step(int session, int forced) {
  SessionStepReport failed;
  failed.failed = 1;
  return guard(failed, [&] {
    SessionSlot& s = session_slot(session);
    const model::GenerationSession::Step step = s.session->step(forced);
    const model::ModelConfig& c = slot(s.model).gpt.config();
    session_tensors.attention = {{c.n_layer, c.n_head, step.keys}, step.attention};
    session_tensors.top_tokens = {{static_cast<int>(step.top_tokens.size())},
                                  std::vector<float>(step.top_tokens.begin(), step.top_tokens.end())};
    session_tensors.top_probs = {{static_cast<int>(step.top_probs.size())}, step.top_probs};
    SessionStepReport r;
    r.token = step.token, r.position = step.position, r.keys = step.keys, r.recomputed = step.recomputed ? 1 : 0;
    r.macs_cached = static_cast<double>(step.macs_cached), r.macs_full = static_cast<double>(step.macs_full);
    return r;
  });
}

std::uintptr_t session_step_result() {
  return run("sessionStep", [&](Reader&) { write_result(session_tensors, kSessionStepResults, false); });
}

int session_tokens(int session) {
  return guard(-1, [&] {
    const auto found = sessions.find(session);
    if (found == sessions.end()) throw Error("session: this session was disposed (or its model was)");
    const std::vector<int>& tokens = found->second->session->tokens();
    model_out.assign(tokens.begin(), tokens.end());
    return static_cast<int>(tokens.size());
  });
}

void session_delete(int session) { sessions.erase(session); }

std::uintptr_t next_token(double temperature, int top_k, double top_p, double seed, int sample, int top) {
  return run("nextToken", [&](Reader& reader) {
    NextTokenArgs args;
    read_tensors(args, kNextTokenTensors, reader);
    reader.finish();
    if (!args.logits.given()) throw Error("logits: required, the logits of one position (V)");
    const int V = args.logits.shape[0];
    if (top < 0 || top > V)
      throw Error("top: expected 0 ≤ top ≤ " + std::to_string(V) + ", got " + std::to_string(top));
    const model::SamplingOptions o{temperature, top_k, top_p};
    NextTokenResult out;
    out.probs = {{V}, model::next_token_probs(args.logits.data, V, o)};
    const std::vector<int> best = model::top_tokens(out.probs.data, top);
    out.top_tokens = {{top}, std::vector<float>(best.begin(), best.end())};
    out.top_probs.shape = {top};
    for (int t : best) out.top_probs.data.push_back(out.probs.data[static_cast<size_t>(t)]);
    if (sample) {
      TorchGenerator generator(TorchGenerator::seed_from_number(seed));
      out.token = {{1}, {static_cast<float>(model::sample_token(args.logits.data, V, o, generator))}};
    }
    write_result(out, kNextTokenResults, false);
  });
}

int set_threads(int count) {
  return guard(0, [&] {
    set_thread_count(count);
    return 1;
  });
}

int threads() { return thread_count(); }

#endif  // ATTN_ENGINE_EMBED

const std::string& last_error() { return error_message; }

}  // namespace attn::abi

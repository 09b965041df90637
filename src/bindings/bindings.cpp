// Embind glue, and nothing else: the arena calls of abi.h, the layout table engine.js reads
// them by (abi()), and a few small values. Argument checking and normalisation of nested arrays
// happen in engine.js (JS side) and attn::validate (C++); attn::Error reaches JavaScript as a
// failed result whose message engine.js throws as an AttentionError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <emscripten/emscripten.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "bindings/abi.h"
#include "core/attention.h"
#include "core/examples.h"
#include "kernels/kernels.h"
#ifndef ATTN_ENGINE_EMBED
#include "model/config.h"
#include "model/gpt.h"
#include "model/inference.h"
#endif

using emscripten::val;

namespace {

// abi::describe() as plain objects: {sections, options, result: [{name, offset, type}],
// calls: {attend: {tensors: [{name, ranks}], flags, results}, …}, kernels, scaleModes}.
val abi() {
  const attn::abi::Description& d = attn::abi::describe();
  auto strings = [](const std::vector<const char*>& list) {
    val out = val::array();
    for (const char* s : list) out.call<void>("push", val(s));
    return out;
  };
  auto fields = [](const std::vector<attn::abi::Field>& list) {
    val out = val::array();
    for (const attn::abi::Field& f : list) {
      val field = val::object();
      field.set("name", val(f.name));
      field.set("offset", static_cast<double>(f.offset));
      field.set("type", val(f.type));
      out.call<void>("push", field);
    }
    return out;
  };
  val calls = val::object();
  for (const attn::abi::Call& c : d.calls) {
    val tensors = val::array();
    for (const attn::abi::TensorArgument& t : c.tensors) {
      val ranks = val::array();
      for (int r = t.min_rank; r <= t.max_rank; ++r) ranks.call<void>("push", r);
      val tensor = val::object();
      tensor.set("name", val(t.name));
      tensor.set("ranks", ranks);
      tensors.call<void>("push", tensor);
    }
    val entry = val::object();
    entry.set("tensors", tensors);
    entry.set("flags", strings(c.flags));
    entry.set("shapes", strings(c.shapes));
    entry.set("results", strings(c.results));
    calls.set(c.name, entry);
  }
  val out = val::object();
  out.set("sections", fields(d.sections));
  out.set("options", fields(d.options));
  out.set("result", fields(d.result));
  out.set("calls", calls);
  out.set("kernels", strings(d.kernels));
  out.set("scaleModes", strings(d.scale_modes));
  out.set("draws", strings(d.draws));
  return out;
}

std::string last_error() { return attn::abi::last_error(); }

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
#ifndef ATTN_ENGINE_EMBED
  val model = val::object();
  model.set("maxVocab", attn::model::ModelLimits::kMaxVocab);
  model.set("maxContext", attn::model::ModelLimits::kMaxBlockSize);
  model.set("maxLayers", attn::model::ModelLimits::kMaxLayers);
  model.set("maxHeads", attn::model::ModelLimits::kMaxHeads);
  model.set("maxWidth", attn::model::ModelLimits::kMaxEmbd);
  model.set("maxParams", static_cast<double>(attn::model::ModelLimits::kMaxParams));
  model.set("maxTrainParams", static_cast<double>(attn::model::ModelLimits::kMaxTrainParams));
  model.set("maxCapture", static_cast<double>(attn::model::kMaxCaptureFloats));
  model.set("maxActivations", static_cast<double>(attn::model::kMaxActivationFloats));
  out.set("model", model);
#endif
  return out;
}

#ifndef ATTN_ENGINE_EMBED
// The model calls' structs as plain numbers in and plain objects out: Embind's value_object
// would add imports the element's glue does not have (scripts/build-dist.mjs loads the whole
// engine with the small engine's glue, so the two must import the same functions).
attn::abi::ModelArgs model_args(int vocab_size, int context_length, int layers, int heads, int width, int bias,
                                double dropout, int mlp, int layer_norm, int gelu, double layer_norm_eps, double seed) {
  attn::abi::ModelArgs a;
  a.vocab_size = vocab_size, a.context_length = context_length, a.layers = layers, a.heads = heads;
  a.width = width, a.bias = bias, a.dropout = dropout, a.mlp = mlp, a.layer_norm = layer_norm, a.gelu = gelu;
  a.layer_norm_eps = layer_norm_eps, a.seed = seed;
  return a;
}
int model_create(int vocab_size, int context_length, int layers, int heads, int width, int bias, double dropout,
                 int mlp, int layer_norm, int gelu, double layer_norm_eps, double seed) {
  return attn::abi::model_create(model_args(vocab_size, context_length, layers, heads, width, bias, dropout, mlp,
                                            layer_norm, gelu, layer_norm_eps, seed));
}
int model_load(int vocab_size, int context_length, int layers, int heads, int width, int bias, double dropout, int mlp,
               int layer_norm, int gelu, double layer_norm_eps, std::string config_json) {
  return attn::abi::model_load(model_args(vocab_size, context_length, layers, heads, width, bias, dropout, mlp,
                                          layer_norm, gelu, layer_norm_eps, 0),
                               config_json);
}
int model_open(int vocab_size, int context_length, int layers, int heads, int width, int bias, double dropout, int mlp,
               int layer_norm, int gelu, double layer_norm_eps, double file_size, std::string config_json) {
  return attn::abi::model_open(model_args(vocab_size, context_length, layers, heads, width, bias, dropout, mlp,
                                          layer_norm, gelu, layer_norm_eps, 0),
                               file_size, config_json);
}
// model_open_copies as [{begin, end, name}].
val model_open_copies(int loader) {
  val out = val::array();
  for (const attn::abi::CopyRange& c : attn::abi::model_open_copies(loader)) {
    val entry = val::object();
    entry.set("begin", c.begin);
    entry.set("end", c.end);
    entry.set("name", c.name);
    out.call<void>("push", entry);
  }
  return out;
}
val session_step(int session, int forced) {
  const attn::abi::SessionStepReport r = attn::abi::session_step(session, forced);
  val out = val::object();
  out.set("failed", r.failed);
  out.set("token", r.token);
  out.set("position", r.position);
  out.set("keys", r.keys);
  out.set("recomputed", r.recomputed);
  out.set("macsCached", r.macs_cached);
  out.set("macsFull", r.macs_full);
  return out;
}
val model_config(int handle) {
  const attn::abi::ModelArgs a = attn::abi::model_config(handle);
  val out = val::object();
  out.set("vocabSize", a.vocab_size);
  out.set("contextLength", a.context_length);
  out.set("layers", a.layers);
  out.set("heads", a.heads);
  out.set("width", a.width);
  out.set("bias", a.bias);
  out.set("mlp", a.mlp);
  out.set("layerNorm", a.layer_norm);
  out.set("dropout", a.dropout);
  out.set("gelu", a.gelu);
  out.set("layerNormEps", a.layer_norm_eps);
  return out;
}
val model_step(int handle, int batch, int context, std::string optimizer, double lr, double beta1, double beta2,
               double eps, double weight_decay, double momentum, double clip, double warmup, double decay_steps,
               double min_lr, double seed) {
  attn::abi::StepArgs a;
  a.batch = batch, a.context = context, a.optimizer = std::move(optimizer), a.lr = lr, a.beta1 = beta1;
  a.beta2 = beta2, a.eps = eps, a.weight_decay = weight_decay, a.momentum = momentum, a.clip = clip;
  a.warmup = warmup, a.decay_steps = decay_steps, a.min_lr = min_lr, a.seed = seed;
  const attn::abi::StepReport r = attn::abi::model_step(handle, a);
  val out = val::object();
  out.set("failed", r.failed);
  out.set("loss", r.loss);
  out.set("gradNorm", r.grad_norm);
  out.set("lr", r.lr);
  out.set("step", r.step);
  return out;
}
val model_evaluate(int handle, int batch, int context) {
  const attn::abi::EvalReport r = attn::abi::model_evaluate(handle, batch, context);
  val out = val::object();
  out.set("failed", r.failed);
  out.set("loss", r.loss);
  out.set("accuracy", r.accuracy);
  return out;
}

// model_param_table as [{name, shape, offset, size}].
val model_param_table(int handle) {
  val out = val::array();
  for (const attn::abi::ParamInfo& p : attn::abi::model_param_table(handle)) {
    val entry = val::object();
    entry.set("name", p.name);
    entry.set("shape", val::array(p.shape));
    entry.set("offset", p.offset);
    entry.set("size", p.size);
    out.call<void>("push", entry);
  }
  return out;
}
#endif

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
// performance.now(), the clock of model.trace's timings (abi::set_clock): the core reads none
// of its own, so that both engines import the same functions (scripts/build-dist.mjs loads the
// whole engine with the element's glue).
double clock_ms() { return emscripten_get_now(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_explorer) {
  emscripten::function("abi", &abi);
  emscripten::function("prepare", &attn::abi::prepare);
  emscripten::function("attend", &attn::abi::attend);
  emscripten::function("project", &attn::abi::project);
  emscripten::function("averaging", &attn::abi::averaging);
#ifndef ATTN_ENGINE_EMBED
  emscripten::function("attendBackward", &attn::abi::attend_backward);
  emscripten::function("pca", &attn::abi::pca);
  emscripten::function("generatorCreate", &attn::abi::generator_create);
  emscripten::function("generatorDelete", &attn::abi::generator_delete);
  emscripten::function("draw", &attn::abi::draw);

  emscripten::function("modelInput", &attn::abi::model_input);
  emscripten::function("modelInputTargets", &attn::abi::model_input_targets);
  emscripten::function("modelOutput", &attn::abi::model_output);
  emscripten::function("modelCreate", &model_create);
  emscripten::function("modelLoad", &model_load);
  emscripten::function("modelDelete", &attn::abi::model_delete);
  emscripten::function("modelConfig", &model_config);
  emscripten::function("modelSteps", &attn::abi::model_steps);
  emscripten::function("modelSetKernel", &attn::abi::model_set_kernel);
  emscripten::function("modelKernel", &attn::abi::model_kernel);
  emscripten::function("modelStep", &model_step);
  emscripten::function("modelEvaluate", &model_evaluate);
  emscripten::function("modelLogits", &attn::abi::model_logits);
  emscripten::function("modelTrace", &attn::abi::model_trace);
  emscripten::function("modelTraceLayer", &attn::abi::model_trace_layer);
  emscripten::function("modelTraceStream", &attn::abi::model_trace_stream);
  emscripten::function("modelGenerate", &attn::abi::model_generate);
  emscripten::function("modelHeaderLength", &attn::abi::model_header_length);
  emscripten::function("modelOpen", &model_open);
  emscripten::function("modelOpenCopies", &model_open_copies);
  emscripten::function("modelOpenFileEnd", &attn::abi::model_open_file_end);
  emscripten::function("modelOpenBuffer", &attn::abi::model_open_buffer);
  emscripten::function("modelOpenWrite", &attn::abi::model_open_write);
  emscripten::function("modelOpenFinish", &attn::abi::model_open_finish);
  emscripten::function("modelOpenCancel", &attn::abi::model_open_cancel);
  emscripten::function("sessionCreate", &attn::abi::session_create);
  emscripten::function("sessionStep", &session_step);
  emscripten::function("sessionStepResult", &attn::abi::session_step_result);
  emscripten::function("sessionTokens", &attn::abi::session_tokens);
  emscripten::function("sessionDelete", &attn::abi::session_delete);
  emscripten::function("nextToken", &attn::abi::next_token);
  emscripten::function("modelParamTable", &model_param_table);
  emscripten::function("modelParams", &attn::abi::model_params);
  emscripten::function("modelStage", &attn::abi::model_stage);
  emscripten::function("modelCommit", &attn::abi::model_commit);
  emscripten::function("modelExport", &attn::abi::model_export);
  emscripten::function("modelExportData", &attn::abi::model_export_data);
#endif
  emscripten::function("lastError", &last_error);
  emscripten::function("examples", &examples);
  emscripten::function("limits", &limits);
  emscripten::function("cosine", &cosine);
  emscripten::function("simd", &simd);
  emscripten::function("version", &version);
  emscripten::function("heapBytes", &heap_bytes);
  emscripten::function("heapUsed", &heap_used);
  emscripten::function("clockMs", &clock_ms);
#ifndef ATTN_ENGINE_EMBED
  attn::abi::set_clock(&clock_ms);
  // The element's small engine never runs threaded (engine.threads is 1 there without asking).
  emscripten::function("setThreads", &attn::abi::set_threads);
  emscripten::function("threads", &attn::abi::threads);
#endif
}

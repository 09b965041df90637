// Embind glue, and nothing else: the arena calls of abi.h, the layout table engine.js reads
// them by (abi()), and a few small values. Argument checking and normalisation of nested arrays
// happen in engine.js (JS side) and attn::validate (C++); attn::Error reaches JavaScript as a
// failed result whose message engine.js throws as an AttentionError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <string>
#include <vector>

#include "abi.h"
#include "attention.h"
#include "examples.h"
#include "kernels.h"

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
#endif
  emscripten::function("lastError", &last_error);
  emscripten::function("examples", &examples);
  emscripten::function("limits", &limits);
  emscripten::function("cosine", &cosine);
  emscripten::function("simd", &simd);
  emscripten::function("version", &version);
  emscripten::function("heapBytes", &heap_bytes);
  emscripten::function("heapUsed", &heap_used);
}

// Embind glue, and nothing else: the arena calls of abi.h (prepare, invoke), their description
// (abi()), and a few small values. Every call's arguments, checks and results
// are the abi_*.cpp files'; web/engine/abi.js packs and reads them from the description, and
// throws a failed call's lastError() as an AttentionError.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "bindings/abi.h"
#include "core/examples.h"
#include "kernels/kernels.h"

using emscripten::val;

namespace {

// abi::describe(), the description of every call (bindings/abi.h), as plain objects.
val abi() { return val::global("JSON").call<val>("parse", attn::abi::describe()); }

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
  emscripten::function("invoke", &attn::abi::invoke);
  emscripten::function("lastError", &last_error);
  emscripten::function("examples", &examples);
  emscripten::function("simd", &simd);
  emscripten::function("version", &version);
  emscripten::function("heapBytes", &heap_bytes);
  emscripten::function("heapUsed", &heap_used);
  emscripten::function("clockMs", &clock_ms);
  attn::abi::set_clock(&clock_ms);
}

// The one binary interface between the WASM core and web/engine/ (abi.js), written once.
//
// Every call into the core, attention or model, crosses the same way, as two Embind calls with
// plain integer arguments and no emval objects (the seed's bank example is a ~10 µs call):
//   1. prepare(floats, ints, bytes, numbers) sizes the arena's four sections and returns the
//      address of the CallHeader, whose section addresses abi.js reads; it then writes the
//      call's arguments in the order its description lists them:
//        floats:  the data of every given tensor argument;
//        ints:    per tensor, flag and shape argument its rank, then its dims (rank 0: not
//                 given); per list argument its length, then its values; per blob its length;
//        bytes:   the data of every given flag argument, then of every blob;
//        numbers: every scalar argument as a double (NaN: not given, the C++ default holds);
//                 booleans are 0 or 1, an enum is the index of its name.
//   2. invoke(call) runs the call (its "id" in the description) and returns the address of the
//      ResultHeader: `failed` (then last_error() has the message), the report (a double per
//      report field, in order) and the layout of the result tensors, a list of words: per given
//      tensor its index in the call's results, the address of its data, its rank and its dims.
// The arena and the buffer the result tensors are copied into are reused by the next call (a
// view of memory that outlives the call, a model's parameters, is not copied), so the heap stays
// flat.
//
// describe() lists all of it by name: the headers' fields with their offsetof and type, and per
// call its arguments, results and report fields in order; module.abi() hands that to
// web/engine/abi.js, which derives its writer and reader from it. Enums cross by name: every
// enum's names by value are in the description. A call is defined once, in C++, by a table
// naming each argument beside the member it fills (bindings/detail/call.h) and one function;
// docs/architecture.md says how to add one.
//
// Plain C++ (no Emscripten header): src/bindings/bindings.cpp exports these functions, and the
// native tests and the fuzz harnesses call them directly (tests/cpp/bindings/abi_client.h packs
// a call by names as abi.js does).
#pragma once

#include <cstdint>
#include <string>

namespace attn::abi {

// Where one call's arguments are. Addresses are of linear memory (uintptr_t: 32 bits in WASM).
struct CallHeader {
  std::uintptr_t floats = 0;   // float32
  std::uintptr_t ints = 0;     // int32
  std::uintptr_t bytes = 0;    // uint8
  std::uintptr_t numbers = 0;  // float64
};

// What a call leaves for abi.js.
struct ResultHeader {
  std::int32_t failed = 0;    // nonzero: the call threw; last_error() has the message
  std::uintptr_t report = 0;  // double[the call's report fields]
  std::uintptr_t layout = 0;  // std::uintptr_t[layout_length]: per tensor index, address, rank, dims
  std::int32_t layout_length = 0;
};

// The description, as JSON text (module.abi() parses it):
//   {"sections": [{name, offset, type}] (CallHeader), "result": [...] (ResultHeader),
//    "word": the layout's word type ("u32" in WASM, "u64" natively),
//    "calls": {name: {"id": invoke()'s index (the calls are in name order),
//                     "tensors": [{name, ranks}], "flags", "shapes", "lists", "blobs": [names],
//                     "scalars": [{name, kind, enum?}], "results": [{name, type}],
//                     "report": [{name, kind, enum?}]}},
//    "enums": {name: [the names by the C++ enum's value]}}
// kind: "number", "integer", "boolean" or "enum" (then enum names its names); a result's type:
// "f32", "f64", "i32", "u8" or "utf8" (bytes of UTF-8 text). Header field types: "i32", "u32",
// "f32" ("u64" for addresses in a native build).
const std::string& describe();

// The entry points: prepare() returns the CallHeader's address, invoke() the ResultHeader's.
std::uintptr_t prepare(int floats, int ints, int bytes, int numbers);
std::uintptr_t invoke(int call);
// A call's index (its "id"), or −1.
int call_index(const std::string& name);
const std::string& last_error();

// The clock model traces' timings read (milliseconds), set by the host: performance.now() in the
// WASM engines (bindings.cpp). Without one, asking for timings is an error naming timings.
void set_clock(double (*clock_ms)());
double (*clock())();

}  // namespace attn::abi

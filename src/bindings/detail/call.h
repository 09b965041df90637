// How a call of bindings/abi.h is defined: once, in C++, as a table that names each argument
// beside the member of the call's input struct it fills and each result beside the member of its
// output struct, and the function from one to the other. The table is the whole of what
// web/engine/abi.js knows of the call (describe() hands it over), so adding a call is one table
// and one function (docs/architecture.md):
//
//   struct StepsIn { int model = 0; };
//   struct StepsOut { double steps = 0; };
//   void model_steps(const StepsIn& in, StepsOut& out) { out.steps = … ; }
//   constexpr Entry kSteps[] = {integer("model", ATTN_ABI_MEMBER(StepsIn, model)),
//                               report_number("steps", ATTN_ABI_MEMBER(StepsOut, steps))};
//   const Registration kStepsCall{"modelSteps", run<StepsIn, StepsOut, model_steps>, {kSteps}};
//
// Arguments are read in the order of abi.h's packing: tensors, flags, shapes, lists and blobs
// each in the order the table names them, then the scalars from the numbers section. A scalar
// not given (NaN) keeps the member's default; one of the wrong kind fails the call naming it.
// Results: a tensor member whose shape is empty was not computed and is left out. The result's
// tensors live until the next call starts (abi.js copies them out before).
//
// The tables are constant data (offsetof, checked against each member's type when they compile),
// not code per member: the engine the embeddable element inlines stays small. The structs they
// name are standard-layout; a struct shared by several calls (attend's inputs, a model's config,
// the sampling options) is the first member of each input that takes it, so one table serves all.
//
// Private to src/bindings/ (abi.cpp and the abi_*.cpp files that define calls).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bindings/abi.h"
#include "core/attention.h"

namespace attn::abi::detail {

// Reads one call's arguments in packing order. A malformed packing is a bug in abi.js, but must
// still never read out of bounds: it fails the call naming it.
class Reader {
 public:
  explicit Reader(const char* call) : call_(call) {}

  // rank, then dims (each ≥ 0); empty when the argument is not given (rank 0). count: elements.
  std::vector<int> shape(long long& count);
  // length, then that many ints.
  std::vector<int> list();
  // A length ≥ 0 (a blob's).
  int length();
  const float* floats(long long count);
  const std::uint8_t* bytes(long long count);
  double number();
  // Every section read to its end.
  void finish();
  [[noreturn]] void malformed() const;

 private:
  int next_int();
  const char* call_;
  std::size_t ints_ = 0, floats_ = 0, bytes_ = 0, numbers_ = 0;
};

// An enum's names by the C++ enum's value, as describe() lists them (an enum crosses by name).
struct Enumeration {
  const char* name;                 // "kernel", "gelu", …
  std::vector<const char*> values;  // the names
};

// Result tensors of the other element types (attn::Tensor is float32).
template <typename T>
struct Buffer {
  std::vector<int> shape;  // empty: not computed
  std::vector<T> data;
};
using Ints = Buffer<std::int32_t>;
using Doubles = Buffer<double>;
using Bytes = Buffer<std::uint8_t>;  // "u8", or "utf8" text
// Results that are views of memory outliving the call (a model's parameters, an exported file):
// not copied.
struct FloatView {
  std::vector<int> shape;
  const float* data = nullptr;
};
struct ByteView {
  std::vector<int> shape;
  const std::uint8_t* data = nullptr;
};
// A blob argument: bytes in the arena.
struct Blob {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
};
// A call without arguments or results of its own.
struct None {};

// What a member is, from its type.
enum class Slot : std::uint8_t {
  kNone,
  kTensorView,   // TensorView
  kBytesVector,  // std::vector<std::uint8_t>
  kIntVector,    // std::vector<int>
  kBlob,         // Blob
  kText,         // std::string
  kFloat,
  kDouble,
  kInt,  // int, and int-sized enums
  kInt64,
  kUint64,
  kBool,
  kTensor,  // attn::Tensor
  kFloatView,
  kInts,
  kDoubles,
  kBytes,
  kByteView,
};
template <typename T>
constexpr Slot slot_of() {
  if constexpr (std::is_same_v<T, TensorView>) return Slot::kTensorView;
  if constexpr (std::is_same_v<T, std::vector<std::uint8_t>>) return Slot::kBytesVector;
  if constexpr (std::is_same_v<T, std::vector<int>>) return Slot::kIntVector;
  if constexpr (std::is_same_v<T, Blob>) return Slot::kBlob;
  if constexpr (std::is_same_v<T, std::string>) return Slot::kText;
  if constexpr (std::is_same_v<T, float>) return Slot::kFloat;
  if constexpr (std::is_same_v<T, double>) return Slot::kDouble;
  if constexpr (std::is_same_v<T, bool>) return Slot::kBool;
  if constexpr (std::is_same_v<T, long long>) return Slot::kInt64;
  if constexpr (std::is_same_v<T, std::uint64_t>) return Slot::kUint64;
  if constexpr ((std::is_integral_v<T> || std::is_enum_v<T>)&&sizeof(T) == sizeof(int)) return Slot::kInt;
  if constexpr (std::is_same_v<T, Tensor>) return Slot::kTensor;
  if constexpr (std::is_same_v<T, FloatView>) return Slot::kFloatView;
  if constexpr (std::is_same_v<T, Ints>) return Slot::kInts;
  if constexpr (std::is_same_v<T, Doubles>) return Slot::kDoubles;
  if constexpr (std::is_same_v<T, Bytes>) return Slot::kBytes;
  if constexpr (std::is_same_v<T, ByteView>) return Slot::kByteView;
  return Slot::kNone;
}
struct Member {
  Slot slot;
  std::uint16_t offset;  // small rows for the element's budget; a larger offsetof fails to compile (narrowing)
};
// A member of a standard-layout struct: its type's slot and its offset (`member` may name a
// member of a member: "config.vocab_size").
#define ATTN_ABI_MEMBER(Type, member)                                                           \
  (::attn::abi::detail::Member{                                                                 \
      ::attn::abi::detail::slot_of<std::remove_cv_t<decltype(std::declval<Type&>().member)>>(), \
      offsetof(Type, member)})

// One row of a call's table.
enum class Part : std::uint8_t { kTensor, kFlags, kShape, kList, kBlob, kScalar, kResult, kReport };
// What a scalar or report field reads as (number, integer, boolean, enum), or a result's element
// type (f32, f64, i32, u8, utf8): describe() names it (kind_name).
enum class Kind : std::uint8_t { kNone, kNumber, kInteger, kBoolean, kEnum, kF32, kF64, kI32, kU8, kUtf8 };
const char* kind_name(Kind kind);
// Small rows (the element inlines the attention calls' tables): the one-byte fields share a word.
struct Entry {
  Part part;
  Kind kind = Kind::kNone;
  std::int8_t min_rank = 0, max_rank = 0;  // tensors
  const char* name = nullptr;
  Member member{Slot::kNone, 0};
  Member second{Slot::kNone, 0};            // flags: their shape's member (kNone: the core takes them flat)
  const Enumeration& (*names)() = nullptr;  // enums: their names by value
};

// The rows, each checked against its member's type while the table compiles.
constexpr Entry checked(bool ok, const Entry& e) {
  return ok ? e : throw "an ABI table names a member of the wrong type";
}
constexpr bool numeric(Slot s) {
  return s == Slot::kFloat || s == Slot::kDouble || s == Slot::kInt || s == Slot::kInt64 || s == Slot::kUint64;
}
constexpr Entry tensor(const char* name, std::int8_t min_rank, std::int8_t max_rank, Member m) {
  return checked(m.slot == Slot::kTensorView, {Part::kTensor, Kind::kNone, min_rank, max_rank, name, m});
}
// Booleans as bytes, with their shape (or without: the core takes them flat).
constexpr Entry flags(const char* name, Member m, Member shape = {Slot::kNone, 0}) {
  return checked(m.slot == Slot::kBytesVector && (shape.slot == Slot::kNone || shape.slot == Slot::kIntVector),
                 {Part::kFlags, Kind::kNone, 0, 0, name, m, shape});
}
// Integers read as a shape (dims ≥ 0, at most 2^40 elements).
constexpr Entry shape(const char* name, Member m) {
  return checked(m.slot == Slot::kIntVector, {Part::kShape, Kind::kNone, 0, 0, name, m});
}
constexpr Entry list(const char* name, Member m) {
  return checked(m.slot == Slot::kIntVector, {Part::kList, Kind::kNone, 0, 0, name, m});
}
// Bytes: a Blob member (in the arena), or a std::string one (UTF-8 text, copied).
constexpr Entry blob(const char* name, Member m) {
  return checked(m.slot == Slot::kBlob || m.slot == Slot::kText, {Part::kBlob, Kind::kNone, 0, 0, name, m});
}
constexpr Entry number(const char* name, Member m) {
  return checked(m.slot == Slot::kFloat || m.slot == Slot::kDouble, {Part::kScalar, Kind::kNumber, 0, 0, name, m});
}
constexpr Entry integer(const char* name, Member m) {
  return checked(m.slot == Slot::kInt || m.slot == Slot::kInt64 || m.slot == Slot::kUint64,
                 {Part::kScalar, Kind::kInteger, 0, 0, name, m});
}
// A bool member, or an int one (1 true, 0 false; its default may say "not given").
constexpr Entry boolean(const char* name, Member m) {
  return checked(m.slot == Slot::kBool || m.slot == Slot::kInt, {Part::kScalar, Kind::kBoolean, 0, 0, name, m});
}
// An int-sized enum member (or an int one), by the index of its name in names().
constexpr Entry choice(const char* name, Member m, const Enumeration& (*names)()) {
  return checked(m.slot == Slot::kInt, {Part::kScalar, Kind::kEnum, 0, 0, name, m, {}, names});
}
constexpr Entry result(const char* name, Member m) {
  const Slot s = m.slot;
  const Kind type = s == Slot::kTensor || s == Slot::kFloatView ? Kind::kF32
                    : s == Slot::kInts                          ? Kind::kI32
                    : s == Slot::kDoubles                       ? Kind::kF64
                    : s == Slot::kBytes || s == Slot::kByteView ? Kind::kU8
                                                                : Kind::kNone;
  return checked(type != Kind::kNone, {Part::kResult, type, 0, 0, name, m});
}
// Bytes of UTF-8 text.
constexpr Entry text_result(const char* name, Member m) {
  return checked(m.slot == Slot::kBytes, {Part::kResult, Kind::kUtf8, 0, 0, name, m});
}
constexpr Entry report_number(const char* name, Member m) {
  return checked(numeric(m.slot),
                 {Part::kReport, m.slot == Slot::kFloat || m.slot == Slot::kDouble ? Kind::kNumber : Kind::kInteger, 0,
                  0, name, m});
}
constexpr Entry report_boolean(const char* name, Member m) {
  return checked(m.slot == Slot::kBool, {Part::kReport, Kind::kBoolean, 0, 0, name, m});
}
constexpr Entry report_choice(const char* name, Member m, const Enumeration& (*names)()) {
  return checked(m.slot == Slot::kInt, {Part::kReport, Kind::kEnum, 0, 0, name, m, {}, names});
}

// A table (or part of one: a call may join several, e.g. attend's arguments and its own).
struct Entries {
  const Entry* begin = nullptr;
  std::size_t size = 0;
  constexpr Entries() = default;
  template <std::size_t N>
  constexpr Entries(const Entry (&table)[N]) : begin(table), size(N) {}  // NOLINT: implicit, for {kA, kB}
};

// The generic halves of every call: reading its arguments into the input struct at `in`, and
// writing the output's layout and report (its tensors copied into the result's buffer, which the
// next call reuses; a view's memory outlives the call and is not copied).
struct Registration;
void read_arguments(const Registration& call, char* in, Reader& reader);
void write_results(const Registration& call, const char* out);

// A call: its name, its table and how it runs; constructed at static initialisation, it adds
// itself to the registry (one per call, beside its table).
struct Registration {
  Registration(const char* name, void (*run)(const Registration&, Reader&), std::initializer_list<Entries> tables);
  const char* name;
  void (*run)(const Registration&, Reader&);
  Entries tables[3];
  std::size_t table_count = 0;
};

// Runs `body` from In to Out: the part of a call that knows their types.
template <class In, class Out, void (*body)(const In&, Out&)>
void run(const Registration& call, Reader& reader) {
  static_assert(std::is_standard_layout_v<In> && std::is_standard_layout_v<Out>, "ABI structs are standard-layout");
  In in;
  read_arguments(call, reinterpret_cast<char*>(&in), reader);
  Out out;
  body(in, out);
  write_results(call, reinterpret_cast<const char*>(&out));
}

}  // namespace attn::abi::detail

// The arena, the registry of calls and their description (abi.h): what every call shares. The
// calls themselves are defined in the abi_*.cpp files, each registering its own, so an engine's
// calls are the files it is built from (CMakeLists.txt: the element's small engine has
// abi_attention.cpp alone).
#include "bindings/abi.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "bindings/detail/call.h"
#include "core/attention.h"
#include "core/messages.h"

namespace attn::abi {

using detail::Blob;
using detail::Bytes;
using detail::ByteView;
using detail::Doubles;
using detail::Entry;
using detail::Enumeration;
using detail::FloatView;
using detail::Ints;
using detail::Kind;
using detail::Member;
using detail::Part;
using detail::Slot;

namespace {

// One field of a header: its name, offsetof and type.
struct Field {
  const char* name;
  std::size_t offset;
  const char* type;
};
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

// The arena, the result and the last call's output, reused by every call.
struct Arena {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
  std::vector<std::uint8_t> bytes;
  std::vector<double> numbers;
};
Arena arena;
CallHeader call_header;
ResultHeader result;
std::vector<std::uintptr_t> layout;
std::vector<double> report;
// The last call's result tensors, back to back (8-byte aligned), which the layout points into;
// reused by the next call, so its capacity is the largest result's.
std::vector<std::uint8_t> result_bytes;
std::string error_message;
double (*host_clock)() = nullptr;

// The calls by name (registered at static initialisation, each file its own): invoke()'s index.
std::vector<const detail::Registration*>& registry() {
  static std::vector<const detail::Registration*> calls;
  return calls;
}

}  // namespace

namespace detail {

const char* kind_name(Kind kind) {
  static const char* const kNames[] = {"", "number", "integer", "boolean", "enum", "f32", "f64", "i32", "u8", "utf8"};
  return kNames[static_cast<int>(kind)];
}

Registration::Registration(const char* call, void (*runner)(const Registration&, Reader&),
                           std::initializer_list<Entries> parts)
    : name(call), run(runner) {
  for (const Entries& part : parts)
    if (table_count < 3) tables[table_count++] = part;
  // In name order: this one moves down past every later name.
  std::vector<const Registration*>& all = registry();
  all.push_back(this);
  for (std::size_t i = all.size() - 1; i > 0 && std::strcmp(all[i - 1]->name, name) > 0; --i)
    std::swap(all[i], all[i - 1]);
}

namespace {

[[noreturn]] void wrong_scalar(const char* name, const char* expected, double value) {
  throw Error(std::string(name) + ": expected " + expected + ", got " + number_string(value));
}

// A whole number within [lo, end) (NaN: not given, the member keeps its default).
bool whole(double v, double lo, double end) { return v >= lo && v < end && v == std::floor(v); }

template <typename T>
T& at(char* base, std::size_t offset) {
  return *reinterpret_cast<T*>(base + offset);
}
template <typename T>
const T& at(const char* base, std::size_t offset) {
  return *reinterpret_cast<const T*>(base + offset);
}

void read_scalar(const Entry& e, char* in, double v) {
  if (std::isnan(v)) return;
  const Member& m = e.member;
  if (e.kind == Kind::kBoolean) {
    if (v != 0 && v != 1) wrong_scalar(e.name, "0 or 1", v);
  } else if (e.kind == Kind::kEnum) {
    if (!whole(v, 0, static_cast<double>(e.names().values.size()))) wrong_scalar(e.name, "an enum index", v);
  } else if (e.kind == Kind::kInteger) {
    const double end = m.slot == Slot::kUint64  ? 18446744073709551616.0
                       : m.slot == Slot::kInt64 ? 9223372036854775808.0
                                                : 2147483648.0;
    if (!whole(v, m.slot == Slot::kUint64 ? 0 : -end, end)) wrong_scalar(e.name, "an integer", v);
  }
  switch (m.slot) {
    case Slot::kFloat: at<float>(in, m.offset) = static_cast<float>(v); break;
    case Slot::kDouble: at<double>(in, m.offset) = v; break;
    case Slot::kInt: at<int>(in, m.offset) = static_cast<int>(v); break;
    case Slot::kInt64: at<long long>(in, m.offset) = static_cast<long long>(v); break;
    case Slot::kUint64: at<std::uint64_t>(in, m.offset) = static_cast<std::uint64_t>(v); break;
    case Slot::kBool: at<bool>(in, m.offset) = v != 0; break;
    default: break;
  }
}

void read_one(const Entry& e, char* in, Reader& r) {
  const Member& m = e.member;
  long long count = 0;
  switch (e.part) {
    case Part::kTensor: {
      std::vector<int> shape = r.shape(count);
      if (shape.empty()) return;
      TensorView& view = at<TensorView>(in, m.offset);
      view.data = r.floats(count);
      view.shape = std::move(shape);
      return;
    }
    case Part::kFlags: {
      std::vector<int> shape = r.shape(count);
      if (shape.empty()) return;
      const std::uint8_t* data = r.bytes(count);
      at<std::vector<std::uint8_t>>(in, m.offset).assign(data, data + count);
      if (e.second.slot != Slot::kNone) at<std::vector<int>>(in, e.second.offset) = std::move(shape);
      return;
    }
    case Part::kShape: at<std::vector<int>>(in, m.offset) = r.shape(count); return;
    case Part::kList: at<std::vector<int>>(in, m.offset) = r.list(); return;
    case Part::kBlob: {
      const int length = r.length();
      const std::uint8_t* data = r.bytes(length);
      if (m.slot == Slot::kBlob) {
        at<Blob>(in, m.offset) = {data, static_cast<std::size_t>(length)};
      } else {
        at<std::string>(in, m.offset).assign(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
      }
      return;
    }
    default: return;
  }
}

// A result member's data, shape and size in bytes.
struct ResultData {
  const void* data;
  const std::vector<int>* shape;
  std::size_t bytes;
};
template <class T>
ResultData buffer_of(const T& b) {
  return {b.data.data(), &b.shape, b.data.size() * sizeof(b.data[0])};
}
ResultData result_of(const Member& m, const char* out) {
  switch (m.slot) {
    case Slot::kTensor: return buffer_of(at<Tensor>(out, m.offset));
    case Slot::kFloatView: {
      const FloatView& v = at<FloatView>(out, m.offset);
      return {v.data, &v.shape, 0};
    }
    case Slot::kByteView: {
      const ByteView& v = at<ByteView>(out, m.offset);
      return {v.data, &v.shape, 0};
    }
    case Slot::kInts: return buffer_of(at<Ints>(out, m.offset));
    case Slot::kDoubles: return buffer_of(at<Doubles>(out, m.offset));
    default: return buffer_of(at<Bytes>(out, m.offset));
  }
}

double report_of(const Member& m, const char* out) {
  switch (m.slot) {
    case Slot::kFloat: return at<float>(out, m.offset);
    case Slot::kDouble: return at<double>(out, m.offset);
    case Slot::kInt64: return static_cast<double>(at<long long>(out, m.offset));
    case Slot::kUint64: return static_cast<double>(at<std::uint64_t>(out, m.offset));
    case Slot::kBool: return at<bool>(out, m.offset) ? 1 : 0;
    default: return at<int>(out, m.offset);
  }
}

}  // namespace

std::vector<int> Reader::shape(long long& count) {
  const int rank = next_int();
  count = 0;
  if (rank == 0) return {};
  if (rank < 0 || rank > 8) malformed();
  std::vector<int> dims(static_cast<std::size_t>(rank));
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

std::vector<int> Reader::list() {
  const int n = length();
  if (static_cast<std::size_t>(n) > arena.ints.size() - ints_) malformed();
  const auto first = arena.ints.begin() + static_cast<std::ptrdiff_t>(ints_);
  ints_ += static_cast<std::size_t>(n);
  return std::vector<int>(first, first + n);
}

int Reader::length() {
  const int n = next_int();
  if (n < 0) malformed();
  return n;
}

// The next `count` elements of a section.
template <typename T>
const T* take(const Reader& reader, const std::vector<T>& section, std::size_t& at, long long count) {
  if (count < 0 || static_cast<unsigned long long>(count) > section.size() - at) reader.malformed();
  const T* start = section.data() + at;
  at += static_cast<std::size_t>(count);
  return start;
}

const float* Reader::floats(long long count) { return take(*this, arena.floats, floats_, count); }
const std::uint8_t* Reader::bytes(long long count) { return take(*this, arena.bytes, bytes_, count); }
double Reader::number() { return *take(*this, arena.numbers, numbers_, 1); }

void Reader::finish() {
  if (ints_ != arena.ints.size() || floats_ != arena.floats.size() || bytes_ != arena.bytes.size() ||
      numbers_ != arena.numbers.size()) {
    malformed();
  }
}

int Reader::next_int() {
  if (ints_ >= arena.ints.size()) malformed();
  return arena.ints[ints_++];
}

void Reader::malformed() const { throw Error(std::string(call_) + ": malformed argument packing"); }

// Every entry of a call's tables, in order, with `part`.
template <class F>
void each(const Registration& call, Part part, F f) {
  for (std::size_t t = 0; t < call.table_count; ++t)
    for (std::size_t i = 0; i < call.tables[t].size; ++i)
      if (call.tables[t].begin[i].part == part) f(call.tables[t].begin[i]);
}

void read_arguments(const Registration& call, char* in, Reader& reader) {
  for (const Part part : {Part::kTensor, Part::kFlags, Part::kShape, Part::kList, Part::kBlob})
    each(call, part, [&](const Entry& e) { read_one(e, in, reader); });
  each(call, Part::kScalar, [&](const Entry& e) { read_scalar(e, in, reader.number()); });
  reader.finish();
}

void write_results(const Registration& call, const char* out) {
  // 1. the tensors' bytes into result_bytes (a view stays where it is), then 2. their addresses
  std::vector<std::uintptr_t> copied;  // per layout entry: its offset in result_bytes, or ~0 (a view)
  std::uintptr_t index = 0;
  each(call, Part::kResult, [&](const Entry& e) {
    const auto [data, shape, bytes] = result_of(e.member, out);
    if (!shape->empty()) {
      layout.push_back(index);
      if (e.member.slot == Slot::kFloatView || e.member.slot == Slot::kByteView) {
        layout.push_back(reinterpret_cast<std::uintptr_t>(data));
        copied.push_back(~std::uintptr_t{0});
      } else {
        copied.push_back(result_bytes.size());
        layout.push_back(0);
        const auto* from = static_cast<const std::uint8_t*>(data);
        result_bytes.insert(result_bytes.end(), from, from + bytes);
        result_bytes.resize((result_bytes.size() + 7) / 8 * 8);
      }
      layout.push_back(shape->size());
      for (int dim : *shape) layout.push_back(static_cast<std::uintptr_t>(dim));
    }
    ++index;
  });
  for (std::size_t at = 0, k = 0; at < layout.size(); ++k) {
    if (copied[k] != ~std::uintptr_t{0})
      layout[at + 1] = reinterpret_cast<std::uintptr_t>(result_bytes.data() + copied[k]);
    at += 3 + layout[at + 2];
  }
  each(call, Part::kReport, [&](const Entry& e) { report.push_back(report_of(e.member, out)); });
}

}  // namespace detail

namespace {

// JSON text (every name is an identifier: nothing needs escaping).
class Json {
 public:
  Json& key(const char* k) {
    string(k).out_ += ':';
    comma_ = false;
    return *this;
  }
  Json& string(const char* s) {
    separate();
    out_.append("\"").append(s).append("\"");
    return *this;
  }
  Json& number(long long v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  Json& open(const char* c) {
    separate();
    out_ += c;
    comma_ = false;
    return *this;
  }
  Json& close(const char* c) {
    out_ += c;
    comma_ = true;
    return *this;
  }
  std::string out_;

 private:
  void separate() {
    if (comma_) out_ += ",";
    comma_ = true;
  }
  bool comma_ = false;
};

void fields(Json& j, const char* name, std::initializer_list<Field> list) {
  j.key(name).open("[");
  for (const Field& f : list) {
    j.open("{").key("name").string(f.name).key("offset").number(static_cast<long long>(f.offset));
    j.key("type").string(f.type).close("}");
  }
  j.close("]");
}

// A call's entries of one part as a list: names, or {name, …} objects.
void part(Json& j, const detail::Registration& call, const char* key, Part part) {
  j.key(key).open("[");
  detail::each(call, part, [&](const Entry& e) {
    if (part == Part::kFlags || part == Part::kShape || part == Part::kList || part == Part::kBlob) {
      j.string(e.name);
      return;
    }
    j.open("{").key("name").string(e.name);
    if (part == Part::kTensor) {
      j.key("ranks").open("[");
      for (int r = e.min_rank; r <= e.max_rank; ++r) j.number(r);
      j.close("]");
    } else {
      j.key(part == Part::kResult ? "type" : "kind").string(detail::kind_name(e.kind));
      if (e.names) j.key("enum").string(e.names().name);
    }
    j.close("}");
  });
  j.close("]");
}

}  // namespace

const std::string& describe() {
  static const std::string text = [] {
    Json j;
    j.open("{");
    fields(j, "sections",
           {ATTN_ABI_FIELD(CallHeader, floats, "floats"), ATTN_ABI_FIELD(CallHeader, ints, "ints"),
            ATTN_ABI_FIELD(CallHeader, bytes, "bytes"), ATTN_ABI_FIELD(CallHeader, numbers, "numbers")});
    fields(
        j, "result",
        {ATTN_ABI_FIELD(ResultHeader, failed, "failed"), ATTN_ABI_FIELD(ResultHeader, report, "report"),
         ATTN_ABI_FIELD(ResultHeader, layout, "layout"), ATTN_ABI_FIELD(ResultHeader, layout_length, "layoutLength")});
    j.key("word").string(type_of<std::uintptr_t>()).key("calls").open("{");
    std::vector<const Enumeration& (*)()> enums;  // every one a call names, in name order
    for (std::size_t id = 0; id < registry().size(); ++id) {
      const detail::Registration& call = *registry()[id];
      j.key(call.name).open("{").key("id").number(static_cast<long long>(id));
      part(j, call, "tensors", Part::kTensor);
      part(j, call, "flags", Part::kFlags);
      part(j, call, "shapes", Part::kShape);
      part(j, call, "lists", Part::kList);
      part(j, call, "blobs", Part::kBlob);
      part(j, call, "scalars", Part::kScalar);
      part(j, call, "results", Part::kResult);
      part(j, call, "report", Part::kReport);
      j.close("}");
      for (const Part p : {Part::kScalar, Part::kReport})
        detail::each(call, p, [&](const Entry& e) {
          if (!e.names || std::find(enums.begin(), enums.end(), e.names) != enums.end()) return;
          enums.push_back(e.names);
          for (std::size_t k = enums.size() - 1; k > 0 && std::strcmp(enums[k - 1]().name, e.names().name) > 0; --k)
            std::swap(enums[k], enums[k - 1]);
        });
    }
    j.close("}").key("enums").open("{");
    for (const auto names : enums) {
      j.key(names().name).open("[");
      for (const char* value : names().values) j.string(value);
      j.close("]");
    }
    j.close("}").close("}");
    return j.out_;
  }();
  return text;
}

std::uintptr_t prepare(int floats, int ints, int bytes, int numbers) {
  // Sizes come from abi.js after its own checks; negative means a bug there.
  arena.floats.resize(static_cast<std::size_t>(floats < 0 ? 0 : floats));
  arena.ints.resize(static_cast<std::size_t>(ints < 0 ? 0 : ints));
  arena.bytes.resize(static_cast<std::size_t>(bytes < 0 ? 0 : bytes));
  arena.numbers.assign(static_cast<std::size_t>(numbers < 0 ? 0 : numbers), std::nan(""));
  call_header.floats = reinterpret_cast<std::uintptr_t>(arena.floats.data());
  call_header.ints = reinterpret_cast<std::uintptr_t>(arena.ints.data());
  call_header.bytes = reinterpret_cast<std::uintptr_t>(arena.bytes.data());
  call_header.numbers = reinterpret_cast<std::uintptr_t>(arena.numbers.data());
  return reinterpret_cast<std::uintptr_t>(&call_header);
}

std::uintptr_t invoke(int call) {
  result_bytes.clear();
  layout.clear();
  report.clear();
  result = ResultHeader{};
  try {
    const std::vector<const detail::Registration*>& all = registry();
    if (call < 0 || static_cast<std::size_t>(call) >= all.size()) {
      throw Error("invoke: no call " + std::to_string(call) + " (this engine has " + std::to_string(all.size()) + ")");
    }
    const detail::Registration& definition = *all[static_cast<std::size_t>(call)];
    detail::Reader reader(definition.name);
    definition.run(definition, reader);
  } catch (const std::exception& error) {
    error_message = error.what();
    layout.clear();
    report.clear();
    result.failed = 1;
  }
  result.report = reinterpret_cast<std::uintptr_t>(report.data());
  result.layout = reinterpret_cast<std::uintptr_t>(layout.data());
  result.layout_length = static_cast<std::int32_t>(layout.size());
  return reinterpret_cast<std::uintptr_t>(&result);
}

int call_index(const std::string& name) {
  const std::vector<const detail::Registration*>& all = registry();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (name == all[i]->name) return static_cast<int>(i);
  return -1;
}

const std::string& last_error() { return error_message; }

void set_clock(double (*clock_ms)()) { host_clock = clock_ms; }
double (*clock())() { return host_clock; }

}  // namespace attn::abi

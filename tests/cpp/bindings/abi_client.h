// A call of src/bindings/abi.h packed by argument names, as web/engine/abi.js packs it (from the
// description's order, never a position of its own), run, and its result read by name: how the
// native tests and the fuzz harness (tests/fuzz/fuzz_model.cpp) call the ABI.
//
//   const attn_test::Reply r = attn_test::AbiCall("modelSteps").set("model", handle).run();
//   if (!r.failed) steps = r.report.at("steps");
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bindings/abi.h"

namespace attn_test {

// The description of every call (attn::abi::describe()), parsed.
inline const nlohmann::json& abi_description() {
  static const nlohmann::json description = nlohmann::json::parse(attn::abi::describe());
  return description;
}

// One result tensor: its element type ("f32", "f64", "i32", "u8", "utf8"), shape and data, valid
// until the next call.
struct AbiTensor {
  std::string type;
  std::vector<int> shape;
  const void* data = nullptr;

  // Elements: 0 when any dim is (an empty tensor may have huge other dims: tests/fuzz F7).
  long long count() const {
    long long n = 1;
    for (int d : shape)
      if (d == 0) return 0;
    for (int d : shape) n *= d;
    return n;
  }
  std::vector<float> floats() const { return as<float>("f32"); }
  std::vector<double> doubles() const { return as<double>("f64"); }
  std::vector<int> ints() const {
    const std::vector<std::int32_t> v = as<std::int32_t>("i32");
    return std::vector<int>(v.begin(), v.end());
  }
  std::vector<std::uint8_t> bytes() const { return as<std::uint8_t>(type == "utf8" ? "utf8" : "u8"); }
  std::string text() const {
    const std::vector<std::uint8_t> b = as<std::uint8_t>("utf8");
    return std::string(b.begin(), b.end());
  }

 private:
  template <typename T>
  std::vector<T> as(const char* want) const {
    if (type != want) throw std::invalid_argument("result of type " + type + " read as " + want);
    const T* p = static_cast<const T*>(data);
    return std::vector<T>(p, p + count());
  }
};

struct Reply {
  bool failed = false;
  std::string error;                                       // last_error(), when failed
  std::map<std::string, double> report;                    // by field name
  std::vector<std::pair<std::string, AbiTensor>> tensors;  // the given ones, in the call's result order

  bool has(const std::string& name) const { return find(name) != nullptr; }
  const AbiTensor& tensor(const std::string& name) const {
    const AbiTensor* t = find(name);
    if (!t) throw std::invalid_argument("no result tensor " + name);
    return *t;
  }
  const AbiTensor* find(const std::string& name) const {
    for (const auto& [n, t] : tensors)
      if (n == name) return &t;
    return nullptr;
  }
};

class AbiCall {
 public:
  explicit AbiCall(const std::string& name) : name_(name), index_(attn::abi::call_index(name)) {
    if (index_ < 0) throw std::invalid_argument("no call " + name);
    call_ = &abi_description().at("calls").at(name);
  }

  AbiCall& tensor(const std::string& name, std::vector<int> shape, std::vector<float> data) {
    tensors_[name] = {std::move(shape), std::move(data)};
    return *this;
  }
  AbiCall& flags(const std::string& name, std::vector<int> shape, std::vector<std::uint8_t> data) {
    flags_[name] = {std::move(shape), std::move(data)};
    return *this;
  }
  AbiCall& shape(const std::string& name, std::vector<int> dims) {
    shapes_[name] = std::move(dims);
    return *this;
  }
  AbiCall& list(const std::string& name, std::vector<int> values) {
    lists_[name] = std::move(values);
    return *this;
  }
  AbiCall& blob(const std::string& name, const void* data, std::size_t size) {
    const auto* b = static_cast<const std::uint8_t*>(data);
    blobs_[name].assign(b, b + size);
    return *this;
  }
  AbiCall& text(const std::string& name, const std::string& value) { return blob(name, value.data(), value.size()); }
  // A number, integer or boolean (0/1) scalar.
  AbiCall& set(const std::string& name, double value) {
    numbers_[name] = value;
    return *this;
  }
  // An enum scalar by its name.
  AbiCall& choice(const std::string& name, const std::string& value) {
    for (const nlohmann::json& s : call_->at("scalars")) {
      if (s.at("name") != name || !s.contains("enum")) continue;
      const nlohmann::json& values = abi_description().at("enums").at(s.at("enum").get<std::string>());
      for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] == value) return set(name, static_cast<double>(i));
      throw std::invalid_argument(name + ": no value " + value);
    }
    throw std::invalid_argument(name_ + " has no enum argument " + name);
  }

  // Packs the arguments in the description's order and runs the call.
  Reply run() const {
    check_names();
    std::vector<float> floats;
    std::vector<std::int32_t> ints;
    std::vector<std::uint8_t> bytes;
    const auto names = [&](const char* part) {
      std::vector<std::string> out;
      for (const nlohmann::json& entry : call_->at(part))
        out.push_back(entry.is_string() ? entry.get<std::string>() : entry.at("name").get<std::string>());
      return out;
    };
    for (const std::string& name : names("tensors")) {
      const auto found = tensors_.find(name);
      if (found == tensors_.end()) {
        ints.push_back(0);
        continue;
      }
      ints.push_back(static_cast<std::int32_t>(found->second.first.size()));
      ints.insert(ints.end(), found->second.first.begin(), found->second.first.end());
      floats.insert(floats.end(), found->second.second.begin(), found->second.second.end());
    }
    for (const std::string& name : names("flags")) {
      const auto found = flags_.find(name);
      if (found == flags_.end()) {
        ints.push_back(0);
        continue;
      }
      ints.push_back(static_cast<std::int32_t>(found->second.first.size()));
      ints.insert(ints.end(), found->second.first.begin(), found->second.first.end());
      bytes.insert(bytes.end(), found->second.second.begin(), found->second.second.end());
    }
    for (const std::string& name : names("shapes")) {
      const auto found = shapes_.find(name);
      if (found == shapes_.end()) {
        ints.push_back(0);
        continue;
      }
      ints.push_back(static_cast<std::int32_t>(found->second.size()));
      ints.insert(ints.end(), found->second.begin(), found->second.end());
    }
    for (const std::string& name : names("lists")) {
      const auto found = lists_.find(name);
      const std::vector<int> empty;
      const std::vector<int>& values = found == lists_.end() ? empty : found->second;
      ints.push_back(static_cast<std::int32_t>(values.size()));
      ints.insert(ints.end(), values.begin(), values.end());
    }
    for (const std::string& name : names("blobs")) {
      const auto found = blobs_.find(name);
      const std::vector<std::uint8_t> empty;
      const std::vector<std::uint8_t>& b = found == blobs_.end() ? empty : found->second;
      ints.push_back(static_cast<std::int32_t>(b.size()));
      bytes.insert(bytes.end(), b.begin(), b.end());
    }
    std::vector<double> numbers;
    for (const std::string& name : names("scalars")) {
      const auto found = numbers_.find(name);
      numbers.push_back(found == numbers_.end() ? std::nan("") : found->second);
    }
    write(floats, ints, bytes, numbers);
    return read(attn::abi::invoke(index_));
  }

 private:
  void check_names() const {
    auto known = [&](const std::string& name) {
      for (const char* part : {"tensors", "flags", "shapes", "lists", "blobs", "scalars"})
        for (const nlohmann::json& entry : call_->at(part))
          if ((entry.is_string() ? entry.get<std::string>() : entry.at("name").get<std::string>()) == name) return true;
      return false;
    };
    auto check = [&](const auto& map) {
      for (const auto& entry : map)
        if (!known(entry.first)) throw std::invalid_argument(name_ + " has no argument " + entry.first);
    };
    check(tensors_), check(flags_), check(shapes_), check(lists_), check(blobs_), check(numbers_);
  }

  // A header field by its name in the description, as abi.js reads it.
  template <typename T>
  static T field(std::uintptr_t header, const char* fields, const char* name) {
    for (const nlohmann::json& f : abi_description().at(fields))
      if (f.at("name") == name) {
        T value;
        std::memcpy(&value, reinterpret_cast<const char*>(header) + f.at("offset").get<std::size_t>(), sizeof value);
        return value;
      }
    throw std::invalid_argument(std::string("no header field ") + name);
  }

  static void write(const std::vector<float>& floats, const std::vector<std::int32_t>& ints,
                    const std::vector<std::uint8_t>& bytes, const std::vector<double>& numbers) {
    const std::uintptr_t header = attn::abi::prepare(static_cast<int>(floats.size()), static_cast<int>(ints.size()),
                                                     static_cast<int>(bytes.size()), static_cast<int>(numbers.size()));
    auto copy = [&](const char* section, const void* from, std::size_t n) {
      if (n) std::memcpy(reinterpret_cast<void*>(field<std::uintptr_t>(header, "sections", section)), from, n);
    };
    copy("floats", floats.data(), floats.size() * sizeof(float));
    copy("ints", ints.data(), ints.size() * sizeof(std::int32_t));
    copy("bytes", bytes.data(), bytes.size());
    copy("numbers", numbers.data(), numbers.size() * sizeof(double));
  }

  Reply read(std::uintptr_t header) const {
    Reply r;
    if (field<std::int32_t>(header, "result", "failed")) {
      r.failed = true;
      r.error = attn::abi::last_error();
      return r;
    }
    const auto* report = reinterpret_cast<const double*>(field<std::uintptr_t>(header, "result", "report"));
    const nlohmann::json& fields = call_->at("report");
    for (std::size_t i = 0; i < fields.size(); ++i) r.report[fields[i].at("name").get<std::string>()] = report[i];
    const auto* words = reinterpret_cast<const std::uintptr_t*>(field<std::uintptr_t>(header, "result", "layout"));
    const int length = field<std::int32_t>(header, "result", "layoutLength");
    for (int at = 0; at < length;) {
      const nlohmann::json& which = call_->at("results").at(words[at]);
      AbiTensor t;
      t.type = which.at("type").get<std::string>();
      t.data = reinterpret_cast<const void*>(words[at + 1]);
      const int rank = static_cast<int>(words[at + 2]);
      for (int k = 0; k < rank; ++k) t.shape.push_back(static_cast<int>(words[at + 3 + k]));
      at += 3 + rank;
      r.tensors.emplace_back(which.at("name").get<std::string>(), std::move(t));
    }
    return r;
  }

  std::string name_;
  int index_;
  const nlohmann::json* call_;
  std::map<std::string, std::pair<std::vector<int>, std::vector<float>>> tensors_;
  std::map<std::string, std::pair<std::vector<int>, std::vector<std::uint8_t>>> flags_;
  std::map<std::string, std::vector<int>> shapes_, lists_;
  std::map<std::string, std::vector<std::uint8_t>> blobs_;
  std::map<std::string, double> numbers_;
};

}  // namespace attn_test

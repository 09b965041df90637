// Reads the PyTorch fixtures written by tests/fixtures/make_fixtures.py (format documented there).
//
// A fixture holds the inputs (x, weights) in the core's layout, the options, and every expected
// intermediate in the Trace layout: q, k, v (B, H, T, hk|hv); scores … dropped (B, H, T, T);
// head_outputs (B, H, T, hv); merged (B, T, dv); output (B, T, do).
// Non-finite values are stored as the strings "-inf", "inf", "nan".
#pragma once

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/attention.h"

#ifndef ATTN_FIXTURES_DIR
#error "ATTN_FIXTURES_DIR must name tests/fixtures (set by CMakeLists.txt)"
#endif

namespace attn_test {

using json = nlohmann::json;

inline float json_float(const json& value) {
  if (value.is_number()) return static_cast<float>(value.get<double>());
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    if (s == "-inf") return -std::numeric_limits<float>::infinity();
    if (s == "inf") return std::numeric_limits<float>::infinity();
    if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
  }
  throw std::runtime_error("fixture: not a float: " + value.dump());
}

inline attn::Tensor json_tensor(const json& value) {
  attn::Tensor t;
  t.shape = value.at("shape").get<std::vector<int>>();
  const json& data = value.at("data");
  t.data.reserve(data.size());
  for (const json& v : data) t.data.push_back(json_float(v));
  long long n = 1;
  for (int d : t.shape) n *= d;
  if (n != static_cast<long long>(t.data.size())) throw std::runtime_error("fixture: shape/data size mismatch");
  return t;
}

inline std::vector<std::uint8_t> json_bytes(const json& value, std::vector<int>* shape) {
  if (shape) *shape = value.at("shape").get<std::vector<int>>();
  std::vector<std::uint8_t> out;
  for (const json& v : value.at("data")) out.push_back(static_cast<std::uint8_t>(v.get<int>()));
  return out;
}

inline attn::TensorView view_of(const attn::Tensor& t) {
  attn::TensorView v;
  v.data = t.data.data();
  v.shape = t.shape;
  return v;
}

struct Fixture {
  std::string name;
  std::string description;
  json raw;
  std::map<std::string, attn::Tensor> inputs;  // x, wq, wk, wv, bq, bk, bv, wqkv, bqkv, wo, bo
  attn::Options options;
  std::map<std::string, attn::Tensor> expected;  // q … output (or the averaging tensors)
  bool batched = false;
  float scale = 1.0f;

  bool has_input(const std::string& key) const { return inputs.count(key) != 0; }
  const attn::Tensor& input(const std::string& key) const { return inputs.at(key); }
  const attn::Tensor& want(const std::string& key) const { return expected.at(key); }

  // Views into this fixture's tensors; valid while the fixture lives.
  attn::Inputs make_inputs() const {
    attn::Inputs in;
    const std::pair<const char*, attn::TensorView*> slots[] = {
        {"x", &in.x},   {"wq", &in.wq}, {"wk", &in.wk}, {"wv", &in.wv},     {"bq", &in.bq},    {"bk", &in.bk},
        {"bv", &in.bv}, {"wo", &in.wo}, {"bo", &in.bo}, {"wqkv", &in.wqkv}, {"bqkv", &in.bqkv}};
    for (const auto& [key, slot] : slots) {
      auto it = inputs.find(key);
      if (it != inputs.end()) *slot = view_of(it->second);
    }
    return in;
  }
};

inline std::string fixture_path(const std::string& name) {
  return std::string(ATTN_FIXTURES_DIR) + "/" + name + ".json";
}

inline Fixture load_fixture(const std::string& name) {
  std::ifstream file(fixture_path(name));
  if (!file) throw std::runtime_error("cannot open fixture " + fixture_path(name));
  Fixture f;
  f.raw = json::parse(file);
  f.name = f.raw.at("name").get<std::string>();
  f.description = f.raw.value("description", "");
  for (const auto& [key, value] : f.raw.at("inputs").items()) f.inputs[key] = json_tensor(value);

  const json& o = f.raw.at("options");
  attn::Options& opt = f.options;
  opt.heads = o.value("heads", 1);
  opt.causal = o.value("causal", false);
  if (o.contains("scale")) {
    const json& s = o.at("scale");
    if (s.is_string() && s.get<std::string>() == "default") {
      opt.scale_mode = attn::ScaleMode::kInverseSqrtHeadSize;
    } else if (s.is_string() && s.get<std::string>() == "none") {
      opt.scale_mode = attn::ScaleMode::kNone;
    } else {
      opt.scale_mode = attn::ScaleMode::kFactor;
      opt.scale_factor = json_float(s);
    }
  }
  if (o.contains("temperature")) opt.temperature = json_float(o.at("temperature"));
  if (o.contains("dropout")) opt.dropout = json_float(o.at("dropout"));
  opt.training = o.value("training", false);
  if (o.contains("dropout_keep")) opt.dropout_keep = json_bytes(o.at("dropout_keep"), nullptr);
  if (o.contains("key_padding")) opt.key_padding = json_bytes(o.at("key_padding"), &opt.key_padding_shape);

  for (const auto& [key, value] : f.raw.at("expected").items()) {
    if (key == "batched") {
      f.batched = value.get<bool>();
    } else if (key == "scale") {
      f.scale = json_float(value);
    } else {
      f.expected[key] = json_tensor(value);
    }
  }
  return f;
}

// The attention fixtures (everything but causal_average), by file name without ".json".
inline const std::vector<std::string>& attention_fixture_names() {
  static const std::vector<std::string> names = {
      "seed003_raw_river",   "seed003_raw_finance",       "seed003_projected_river",     "seed003_projected_finance",
      "seed003_class_river", "seed003_class_finance",     "seed001_single_head",         "seed001_single_head_causal",
      "multihead_fused_qkv", "multihead_separate_nobias", "multihead_output_projection", "dropout_keep_mask",
      "key_padding",         "key_padding_causal",        "scale_factor_temperature",
  };
  return names;
}

}  // namespace attn_test

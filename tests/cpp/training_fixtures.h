// Reads tests/fixtures/training/ (written by tests/fixtures/make_training_fixtures.py; the format
// is documented there): JSON objects whose tensors are {"shape", "data"}, and .safetensors files.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixture_loader.h"
#include "model/config.h"

namespace attn_test {

inline std::string training_path(const std::string& file) {
  return std::string(ATTN_FIXTURES_DIR) + "/training/" + file;
}

inline json load_training_json(const std::string& name) {
  std::ifstream file(training_path(name + ".json"));
  if (!file) throw std::runtime_error("cannot open fixture " + training_path(name + ".json"));
  return json::parse(file);
}

inline std::vector<std::uint8_t> read_training_file(const std::string& file_name) {
  std::ifstream file(training_path(file_name), std::ios::binary);
  if (!file) throw std::runtime_error("cannot open fixture " + training_path(file_name));
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// The float data of a {"shape", "data"} tensor (non-finite values as in fixture_loader.h).
inline std::vector<float> json_floats(const json& value) { return json_tensor(value).data; }

// The integer data of a {"shape", "data"} tensor.
inline std::vector<int> json_ints(const json& value) { return value.at("data").get<std::vector<int>>(); }

// A config of these sizes, every other field nanoGPT's default.
inline attn::model::ModelConfig config_of(int vocab_size, int block_size, int n_layer, int n_head, int n_embd) {
  attn::model::ModelConfig m;
  m.vocab_size = vocab_size;
  m.block_size = block_size;
  m.n_layer = n_layer;
  m.n_head = n_head;
  m.n_embd = n_embd;
  return m;
}

// A fixture's "config" object (nanoGPT's GPTConfig fields, as the script writes them).
inline attn::model::ModelConfig config_from_json(const json& c) {
  attn::model::ModelConfig m;
  m.vocab_size = c.at("vocab_size");
  m.block_size = c.at("block_size");
  m.n_layer = c.at("n_layer");
  m.n_head = c.at("n_head");
  m.n_embd = c.at("n_embd");
  m.bias = c.at("bias");
  m.dropout = c.at("dropout");
  m.mlp = c.at("mlp");
  m.layer_norm = c.at("layer_norm");
  return m;
}

}  // namespace attn_test

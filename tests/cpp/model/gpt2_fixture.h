// The GPT-2 fixture of tests/fixtures/gpt2/ (tests/fixtures/make_gpt2_fixtures.py) for the tests
// of src/model/checkpoint.h and inference.h: its files, its reference.json, and the tolerance
// every comparison with it uses.
//
// Tolerance against PyTorch (float32 both sides), as model/gpt_test.cpp derives it: every output is a
// chain of dot products of length K ≤ 4C = 128, each within γ_K·Σ|terms| of the exact value
// (γ_128 ≈ 7.6e-6), through two blocks whose LayerNorms keep the terms at the tensor's own scale;
// so |ours − torch| ≤ 1e-6 + 4e-5·max|tensor| per tensor, for every kernel. The tanh GELU's f32x4
// form adds at most 2e-7 relative (kernels/train_kernels_test.cpp), well inside. Each test prints the
// largest error it measured.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/gpt.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn_test::gpt2 {

using Bytes = std::vector<std::uint8_t>;

inline std::string gpt2_path(const std::string& file) { return std::string(ATTN_FIXTURES_DIR) + "/gpt2/" + file; }

inline Bytes read_bytes(const std::string& file) {
  std::ifstream in(gpt2_path(file), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + gpt2_path(file));
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
inline std::string read_text(const std::string& file) {
  const Bytes b = read_bytes(file);
  return std::string(b.begin(), b.end());
}
inline const json& reference() {
  static const json fx = [] {
    std::ifstream in(gpt2_path("reference.json"));
    return json::parse(in);
  }();
  return fx;
}
inline std::vector<int> fixture_tokens() { return attn_test::json_ints(reference().at("tokens")); }

// |got − want| ≤ abs + rel·max|want| over a tensor (the bound of the header comment).
struct ScaledCompare {
  double abs = 1e-6, rel = 4e-5;
  double worst = 0.0;
  void operator()(const std::string& what, const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double scale = 0.0;
    for (float w : want) scale = std::max(scale, std::fabs(static_cast<double>(w)));
    const double allowed = abs + rel * scale;
    std::size_t failures = 0, at = 0;
    double largest = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
      if (!(err <= allowed)) ++failures;
      if (!(err <= largest)) largest = err, at = i;
    }
    worst = std::max(worst, scale > 0 ? largest / scale : largest);
    EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << want.size() << " beyond " << allowed
                            << "; worst at " << at << ": got " << got[at] << ", want " << want[at];
  }
};

inline std::unique_ptr<attn::model::Gpt> load_case(const json& c, const attn::model::ConfigFields& overrides = {}) {
  const Bytes file = read_bytes(c.at("file").get<std::string>());
  return attn::model::load_checkpoint(file.data(), file.size(), overrides,
                                      read_text(c.at("config_json").get<std::string>()));
}

// The model of `file` read as engine.openModel reads it: each tensor's bytes in slices of
// `slice` bytes (a value split across writes when slice is not a multiple of its width).
inline std::unique_ptr<attn::model::Gpt> load_in_slices(const Bytes& file, const std::string& config_json,
                                                        attn::model::Precision precision, std::uint64_t slice) {
  attn::model::CheckpointLoader loader(file.data(), file.size(), file.size(), {}, config_json, precision);
  for (std::size_t i = 0; i < loader.copies().size(); ++i) {
    const attn::model::TensorCopy& copy = loader.copies()[i];
    for (std::uint64_t at = copy.begin; at < copy.end; at += slice)
      loader.write(i, at - copy.begin, file.data() + at, static_cast<std::size_t>(std::min(slice, copy.end - at)));
  }
  return loader.finish();
}

// The fixture's sentence as a training batch of one sequence, each token's target the next
// (the last one's 0).
struct FixtureBatch {
  std::vector<int> tokens = fixture_tokens(), targets = next_tokens(tokens);
  attn::model::Batch batch() const { return {tokens.data(), targets.data(), 1, static_cast<int>(tokens.size())}; }
  static std::vector<int> next_tokens(const std::vector<int>& t) {
    std::vector<int> next(t.begin() + 1, t.end());
    next.push_back(0);
    return next;
  }
};

// The logits of the last forward of a model, all rows (T, V).
inline std::vector<float> forward_logits(attn::model::Gpt& model, const std::vector<int>& tokens) {
  model.forward({tokens.data(), nullptr, 1, static_cast<int>(tokens.size())});
  return model.logits();
}

}  // namespace attn_test::gpt2

// Internal pieces of the core shared by attention.cpp and its paths. Not installed.
// Legend: B batch, T tokens, D width, H heads, dk/dv all-head widths, hk/hv per-head widths.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attention.h"

namespace attn::detail {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

enum class Projection { kNone, kSeparate, kFused };

// Everything validate() learned about one call: sizes and which inputs are present.
struct Plan {
  int B = 1, T = 0, D = 0, H = 1;
  int dk = 0, dv = 0, d_out = 0, hk = 0, hv = 0;
  bool batched = false;
  Projection projection = Projection::kNone;
  bool has_wo = false;
  float scale = 1.0f;         // s, before temperature
  float alpha = 1.0f;         // s / temperature: what scores are multiplied by
  bool dropout_active = false;
  Kernel kernel = Kernel::kReference;  // resolved (never kAuto)
};

// Checks every input and option; throws attn::Error naming the argument. Allocates nothing
// proportional to the inputs.
Plan validate(const Inputs& inputs, const Options& options);

// A zero-filled tensor of the given shape (sizes already validated).
Tensor zeros(std::vector<int> shape);

// "(3, 4)" for error messages.
std::string shape_string(const std::vector<int>& shape);

// The seeded dropout keep-mask, (B, H, T, T) bytes: entry kept with probability 1−p. Entry
// (b, h, i, j) depends only on (seed, b, h, i, j), so any slice of heads draws the same bits.
bool dropout_keeps(std::uint64_t seed, long long flat_index, float p);

// One head's attention passes over contiguous per-head buffers, by implementation.
//   q (T, hk), k (T, hk), v (T, hv); key_keep (T) bytes or null; keep (T, T) bytes or null.
//   When `scores` etc. are non-null they receive the (T, T) intermediates; out (T, hv).
struct HeadBuffers {
  float* scores = nullptr;
  float* scaled = nullptr;
  float* masked = nullptr;
  float* weights = nullptr;
  float* dropped = nullptr;
  float* out = nullptr;
};
struct HeadInputs {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const std::uint8_t* key_keep = nullptr;  // (T) or null
  const std::uint8_t* keep = nullptr;      // (T, T) dropout keep-mask or null (no dropout)
  float dropout = 0.0f;
  int T = 0, hk = 0, hv = 0;
  float alpha = 1.0f, temperature = 1.0f;
  bool causal = false;
};
void head_reference(const HeadInputs& in, const HeadBuffers& out);
void head_vectorized(const HeadInputs& in, const HeadBuffers& out);
void head_simd(const HeadInputs& in, const HeadBuffers& out);

// y (M, N) = x (M, K) · w (K, N) [+ bias]; transposed_w: w is (N, K) (nn.Linear layout).
void project(Kernel kernel, float* y, const float* x, const float* w, const float* bias, int M, int K, int N,
             bool transposed_w);

}  // namespace attn::detail

// The core's private pieces, shared by its own files (attention.cpp, backward.cpp, head.cpp,
// validate.cpp, …): nothing outside src/core/ includes this header (tests of the core may).
// Legend: B batch, T tokens, D width, H heads, dk/dv all-head widths, hk/hv per-head widths,
// M/K/N matrix sizes. Argument order everywhere: outputs, then inputs, then sizes.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/head.h"
#include "core/messages.h"

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
  float scale = 1.0f;  // s, before temperature
  float alpha = 1.0f;  // s / temperature: what scores are multiplied by
  bool dropout_active = false;
  Kernel kernel = Kernel::kReference;  // resolved (never kAuto)
};

// Checks every input and option; throws attn::Error naming the argument. Allocates nothing
// proportional to the inputs.
Plan validate(const Inputs& inputs, const Options& options);

// What validate_linear() learned about one linear() call: y (rows, N) = x (rows, D) · w + b.
struct LinearPlan {
  int B = 1, T = 0, D = 0, N = 0;
  bool batched = false;
};
LinearPlan validate_linear(const TensorView& x, const TensorView& w, const TensorView& b);

// A zero-filled tensor of the given shape (sizes already validated).
Tensor zeros(std::vector<int> shape);

// The seeded dropout keep-mask, (B, H, T, T) bytes: entry kept with probability 1−p. Entry
// (b, h, i, j) depends only on (seed, b, h, i, j), so any slice of heads draws the same bits.
bool dropout_keeps(std::uint64_t seed, long long flat_index, float p);

// The Eigen table's functions (kernels_eigen.cpp): src/kernels/ must not depend on Eigen.
void matmul_eigen(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);
void matmul_nt_eigen(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);
void qk_scores_eigen(float* scores, const float* q, const float* k, int T, int hk, float alpha, bool causal);
void softmax_rows_eigen(float* w, int rows, int cols, bool causal);
void weighted_sum_eigen(float* out, const float* w, const float* v, int T, int hv, bool causal);
void softmax_rows_backward_eigen(float* ds, const float* dw, const float* w, int rows, int cols, bool causal);

// The multi-head pieces attend() and attend_backward() share (attention.cpp). Legend above.
// q, k (B·T, dk) and v (B·T, dv) from x by wq/wk/wv, by wqkv, or x itself.
void project_qkv(std::vector<float>& q, std::vector<float>& k, std::vector<float>& v, const Inputs& in,
                 const Plan& plan, const KernelTable& kernels);
// heads (B, H, T, width) ← the columns [h·width, (h+1)·width) of full (B·T, H·width).
void split_heads(Tensor& heads, const std::vector<float>& full, const Plan& plan, int width);
// merged (B, T, H·width) ← heads (B, H, T, width): the inverse of split_heads.
void merge_heads(Tensor& merged, const Tensor& heads, const Plan& plan, int width);
// The (B, H, T, T) dropout keep-mask the forward applies, or empty when dropout is inactive.
std::vector<std::uint8_t> dropout_mask(const Options& opt, const Plan& plan);
// Head h of batch b: its slices of q, k (B, H, T, hk) and v (B, H, T, hv), its key-padding flags
// and dropout keep-mask (from `keep`, the (B, H, T, T) dropout_mask, or empty), and the options
// every pass reads — the inputs head_forward() and head_backward() take.
HeadInputs head_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const std::vector<std::uint8_t>& keep,
                       const Options& opt, const Plan& plan, int b, int h);

}  // namespace attn::detail

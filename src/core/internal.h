// Internal pieces of the core shared by attention.cpp, head.cpp and validate.cpp. Not installed.
// Legend: B batch, T tokens, D width, H heads, dk/dv all-head widths, hk/hv per-head widths,
// M/K/N matrix sizes. Argument order everywhere: outputs, then inputs, then sizes.
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

// "(3, 4)" for error messages.
std::string shape_string(const std::vector<int>& shape);

// A number for error messages, in its shortest form: "0.5", "1e+30", "inf", "nan".
std::string number_string(double value);

// The seeded dropout keep-mask, (B, H, T, T) bytes: entry kept with probability 1−p. Entry
// (b, h, i, j) depends only on (seed, b, h, i, j), so any slice of heads draws the same bits.
bool dropout_keeps(std::uint64_t seed, long long flat_index, float p);

// The kernels one head's passes call, by implementation. head_forward() and head_backward() are
// written once over this table, so the reference loops, Eigen and the f32x4 kernels differ only in
// these calls. Every function has the contract of its namesake in src/kernels/kernels.h. Real is
// float for every table; the reference table exists in double too (finite-difference checks).
template <typename Real>
struct KernelTableOf {
  void (*matmul)(Real* y, const Real* x, const Real* w, const Real* bias, int M, int K, int N);
  void (*matmul_nt)(Real* y, const Real* x, const Real* w, const Real* bias, int M, int K, int N);
  void (*qk_scores)(Real* scores, const Real* q, const Real* k, int T, int hk, Real alpha, bool causal);
  void (*softmax_rows)(Real* w, int rows, int cols, bool causal);
  void (*weighted_sum)(Real* out, const Real* w, const Real* v, int T, int hv, bool causal);
  void (*softmax_rows_backward)(Real* ds, const Real* dw, const Real* w, int rows, int cols, bool causal);
};
using KernelTable = KernelTableOf<float>;
extern const KernelTable kReferenceKernels;                  // src/kernels/ _ref<float>: seed 000's loops
extern const KernelTableOf<double> kReferenceKernelsDouble;  // the same loops in double
extern const KernelTable kEigenKernels;                      // Eigen matrix expressions (kernels_eigen.cpp)
extern const KernelTable kSimdKernels;                       // src/kernels/ _simd: the f32x4 kernels
// The table of a resolved kernel; kTiled's projections and output projection use kSimdKernels.
const KernelTable& kernels_for(Kernel kernel);

// The Eigen table's functions (kernels_eigen.cpp): src/kernels/ must not depend on Eigen.
void matmul_eigen(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);
void matmul_nt_eigen(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);
void qk_scores_eigen(float* scores, const float* q, const float* k, int T, int hk, float alpha, bool causal);
void softmax_rows_eigen(float* w, int rows, int cols, bool causal);
void weighted_sum_eigen(float* out, const float* w, const float* v, int T, int hv, bool causal);
void softmax_rows_backward_eigen(float* ds, const float* dw, const float* w, int rows, int cols, bool causal);

// One head's inputs, contiguous per-head buffers:
//   q (T, hk), k (T, hk), v (T, hv); key_keep (T) bytes or null; keep (T, T) bytes or null.
template <typename Real>
struct HeadInputsOf {
  const Real* q = nullptr;
  const Real* k = nullptr;
  const Real* v = nullptr;
  const std::uint8_t* key_keep = nullptr;  // (T), nonzero = keep the key; null keeps every key
  const std::uint8_t* keep = nullptr;      // (T, T) dropout keep-mask, nonzero = keep; null: no dropout
  float dropout = 0.0f;                    // p, when keep is given
  Real alpha = 1;                          // s / temperature
  bool causal = false;
  int T = 0, hk = 0, hv = 0;
};
using HeadInputs = HeadInputsOf<float>;

// The (T, T) intermediates of one head, each null or a buffer that receives that pass's result.
template <typename Real>
struct HeadIntermediatesOf {
  Real* scores = nullptr;   // q·kᵀ for every pair, masked or not
  Real* scaled = nullptr;   // scores · alpha
  Real* masked = nullptr;   // scaled with −∞ where masked
  Real* weights = nullptr;  // row softmax; a fully masked row is all 0
  Real* dropped = nullptr;  // weights after dropout (= weights without)
};
using HeadIntermediates = HeadIntermediatesOf<float>;

// One head of attention, passes 1–6 (head.cpp): out (T, hv) = dropout(softmax(mask(α·q·kᵀ))) · v.
// Each non-null intermediate receives its pass's result; the passes whose intermediate is null
// run in place in scratch (T, T), which may be null only when all five are kept.
template <typename Real>
void head_forward(Real* out, const HeadIntermediatesOf<Real>& intermediates, Real* scratch,
                  const HeadInputsOf<Real>& in, const KernelTableOf<Real>& kernels);

// The gradients of one head's inputs from the gradient of its output, passes 6–1 in reverse
// (head.cpp): dq (T, hk), dk (T, hk), dv (T, hv) are overwritten. weights (T, T) are the forward's
// pass-4 result (recompute them with head_forward when they were not kept); scratch holds 2·T·T.
template <typename Real>
void head_backward(Real* dq, Real* dk, Real* dv, Real* scratch, const Real* dout, const Real* weights,
                   const HeadInputsOf<Real>& in, const KernelTableOf<Real>& kernels);

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

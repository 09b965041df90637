// One head of attention as numbered passes over a table of kernels (head.cpp): what attend()
// runs per head, and what the model (src/model/gpt.cpp, inference.cpp) runs per head of a block.
// Legend: T tokens, hk query/key head width, hv value head width; M/K/N matrix sizes. Argument
// order everywhere: outputs, then inputs, then sizes.
//   q (T, hk), k (T, hk), v (T, hv) → scores, scaled, masked, weights, dropped (T, T) → out (T, hv)
#pragma once

#include <cstdint>

#include "core/attention.h"

namespace attn {

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

// One head of attention, passes 1–6: out (T, hv) = dropout(softmax(mask(α·q·kᵀ))) · v.
// Each non-null intermediate receives its pass's result; the passes whose intermediate is null
// run in place in scratch (T, T), which may be null only when all five are kept.
template <typename Real>
void head_forward(Real* out, const HeadIntermediatesOf<Real>& intermediates, Real* scratch,
                  const HeadInputsOf<Real>& in, const KernelTableOf<Real>& kernels);

// The gradients of one head's inputs from the gradient of its output, passes 6–1 in reverse:
// dq (T, hk), dk (T, hk), dv (T, hv) are overwritten. weights (T, T) are the forward's pass-4
// result (recompute them with head_forward when they were not kept); scratch holds 2·T·T.
template <typename Real>
void head_backward(Real* dq, Real* dk, Real* dv, Real* scratch, const Real* dout, const Real* weights,
                   const HeadInputsOf<Real>& in, const KernelTableOf<Real>& kernels);

}  // namespace attn

// One head of attention as numbered passes, written once, forward and backward. The reference
// loops, Eigen and the f32x4 kernels run this same sequence and differ only in the KernelTable
// they pass; the reference table runs it in double too, for finite-difference checks.
// Legend: T tokens, hk query/key head width, hv value head width.
//   q (T, hk), k (T, hk), v (T, hv) → scores, scaled, masked, weights, dropped (T, T) → out (T, hv)
#include <algorithm>
#include <limits>

#include "core/head.h"

#include "core/detail/internal.h"
#include "kernels/kernels.h"

namespace attn {

const KernelTable kReferenceKernels = {kernels::matmul_ref<float>,       kernels::matmul_nt_ref<float>,
                                       kernels::qk_scores_ref<float>,    kernels::softmax_rows_ref<float>,
                                       kernels::weighted_sum_ref<float>, kernels::softmax_rows_backward_ref<float>};
const KernelTableOf<double> kReferenceKernelsDouble = {
    kernels::matmul_ref<double>,       kernels::matmul_nt_ref<double>,    kernels::qk_scores_ref<double>,
    kernels::softmax_rows_ref<double>, kernels::weighted_sum_ref<double>, kernels::softmax_rows_backward_ref<double>};
const KernelTable kEigenKernels = {detail::matmul_eigen,       detail::matmul_nt_eigen,
                                   detail::qk_scores_eigen,    detail::softmax_rows_eigen,
                                   detail::weighted_sum_eigen, detail::softmax_rows_backward_eigen};
const KernelTable kSimdKernels = {kernels::matmul_simd,       kernels::matmul_nt_simd,
                                  kernels::qk_scores_simd,    kernels::softmax_rows_simd,
                                  kernels::weighted_sum_simd, kernels::softmax_rows_backward_simd};

const KernelTable& kernels_for(Kernel kernel) {
  switch (kernel) {
    case Kernel::kReference: return kReferenceKernels;
    case Kernel::kEigen: return kEigenKernels;
    default: return kSimdKernels;  // kSimd, and the projections around kTiled
  }
}

namespace {

// Where a pass's result goes: the caller's buffer when it asked for that intermediate, else
// scratch. w, the previous pass's result, is copied there unless the pass runs in place on it,
// so an intermediate handed back is never overwritten by a later pass.
template <typename Real>
Real* result_buffer(Real* kept, Real* scratch, const Real* w, long long n) {
  Real* to = kept ? kept : scratch;
  if (to != w) std::copy(w, w + n, to);
  return to;
}

// to (C, R) = from (R, C)ᵀ, so every product of the backward is one of the table's two forms.
template <typename Real>
void transpose(Real* to, const Real* from, int R, int C) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) to[static_cast<long long>(c) * R + r] = from[static_cast<long long>(r) * C + c];
}

}  // namespace

template <typename Real>
void head_forward(Real* out, const HeadIntermediatesOf<Real>& kept, Real* scratch, const HeadInputsOf<Real>& in,
                  const KernelTableOf<Real>& kernels) {
  // out: (T, hv); kept.*: (T, T) or null; scratch: (T, T), where the passes not kept run
  constexpr Real kMinus = -std::numeric_limits<Real>::infinity();
  const int T = in.T;
  const long long n = static_cast<long long>(T) * T;
  Real* w = kept.scores ? kept.scores : scratch;

  // 1. scores = q·kᵀ. When scores or scaled are kept, every pair, masked or not (the page shows
  //    what the mask hides); otherwise the causal half is skipped (pass 3 masks it anyway).
  kernels.qk_scores(w, in.q, in.k, T, in.hk, Real(1), in.causal && !kept.scores && !kept.scaled);

  // 2. scale: scaled = scores · alpha, alpha = s / temperature
  w = result_buffer(kept.scaled, scratch, w, n);
  for (long long ij = 0; ij < n; ++ij) w[ij] *= in.alpha;

  // 3. mask: −∞ where the key is in the future (causal) or padded
  w = result_buffer(kept.masked, scratch, w, n);
  if (in.causal || in.key_keep) {
    for (int i = 0; i < T; ++i) {
      Real* row = w + static_cast<long long>(i) * T;
      for (int j = 0; j < T; ++j) {
        if ((in.causal && j > i) || (in.key_keep && !in.key_keep[j])) row[j] = kMinus;
      }
    }
  }

  // 4. softmax per row: row max, exp and sum, normalise (the kernel's three passes); −∞ → 0,
  //    and a row with every key masked becomes all 0
  w = result_buffer(kept.weights, scratch, w, n);
  kernels.softmax_rows(w, T, T, in.causal);

  // 5. dropout: kept weights × 1/(1 − p), the others 0 (any nonzero keep byte keeps)
  w = result_buffer(kept.dropped, scratch, w, n);
  if (in.keep) {
    const Real inverse_keep = Real(1) / (Real(1) - Real(in.dropout));
    for (long long ij = 0; ij < n; ++ij) w[ij] = in.keep[ij] ? w[ij] * inverse_keep : Real(0);
  }

  // 6. weighted sum: out = dropped · v
  kernels.weighted_sum(out, w, in.v, T, in.hv, in.causal);
}

template <typename Real>
void head_backward(Real* dq, Real* dk, Real* dv, Real* scratch, const Real* dout, const Real* weights,
                   const HeadInputsOf<Real>& in, const KernelTableOf<Real>& kernels) {
  // dq, dk: (T, hk); dv, dout: (T, hv); weights: (T, T), the forward's pass 4; scratch: 2·(T, T).
  // The forward's passes in reverse, each turning the gradient of its result into the gradient of
  // its input:
  const int T = in.T;
  const long long n = static_cast<long long>(T) * T;
  Real* grad = scratch;       // the (T, T) gradient flowing back through passes 6 … 1
  Real* other = scratch + n;  // transposes
  const Real inverse_keep = in.keep ? Real(1) / (Real(1) - Real(in.dropout)) : Real(1);

  // 6. weighted sum, out = dropped · v:   d_dropped = dout · vᵀ,   dv = droppedᵀ · dout
  //    (droppedᵀ written straight from the weights: dropped = weights · keep/(1 − p), or weights)
  kernels.matmul_nt(grad, dout, in.v, nullptr, T, in.hv, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      const long long ij = static_cast<long long>(i) * T + j;
      other[static_cast<long long>(j) * T + i] = !in.keep      ? weights[ij]
                                                 : in.keep[ij] ? weights[ij] * inverse_keep
                                                               : Real(0);
    }
  kernels.matmul(dv, other, dout, nullptr, T, T, in.hv);

  // 5. dropout, dropped = weights · keep/(1 − p):   d_weights = d_dropped · keep/(1 − p)
  if (in.keep) {
    for (long long ij = 0; ij < n; ++ij) grad[ij] = in.keep[ij] ? grad[ij] * inverse_keep : Real(0);
  }

  // 4. softmax, weights = softmax(masked):   d_masked = w ⊙ (d_w − Σⱼ w·d_w); a masked entry
  //    (w = 0) gets 0, so
  // 3. mask: d_scaled = d_masked already holds 0 wherever the mask put −∞.
  kernels.softmax_rows_backward(grad, grad, weights, T, T, in.causal);

  // 2. scale, scaled = scores · α:   d_scores = α · d_scaled
  for (long long ij = 0; ij < n; ++ij) grad[ij] *= in.alpha;

  // 1. scores = q·kᵀ:   dq = d_scores · k,   dk = d_scoresᵀ · q
  kernels.matmul(dq, grad, in.k, nullptr, T, T, in.hk);
  transpose(other, grad, T, T);
  kernels.matmul(dk, other, in.q, nullptr, T, T, in.hk);
}

template void head_forward<float>(float*, const HeadIntermediatesOf<float>&, float*, const HeadInputsOf<float>&,
                                  const KernelTableOf<float>&);
template void head_forward<double>(double*, const HeadIntermediatesOf<double>&, double*, const HeadInputsOf<double>&,
                                   const KernelTableOf<double>&);
template void head_backward<float>(float*, float*, float*, float*, const float*, const float*,
                                   const HeadInputsOf<float>&, const KernelTableOf<float>&);
template void head_backward<double>(double*, double*, double*, double*, const double*, const double*,
                                    const HeadInputsOf<double>&, const KernelTableOf<double>&);

}  // namespace attn

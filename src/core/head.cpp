// One head of attention as numbered passes, written once. The reference loops, Eigen and the
// f32x4 kernels run this same sequence and differ only in the KernelTable they pass.
// Legend: T tokens, hk query/key head width, hv value head width.
//   q (T, hk), k (T, hk), v (T, hv) → scores, scaled, masked, weights, dropped (T, T) → out (T, hv)
#include <algorithm>

#include "internal.h"
#include "kernels.h"

namespace attn::detail {

const KernelTable kReferenceKernels = {kernels::matmul_ref<float>, kernels::matmul_nt_ref<float>,
                                       kernels::qk_scores_ref<float>, kernels::softmax_rows_ref<float>,
                                       kernels::weighted_sum_ref<float>};
const KernelTable kEigenKernels = {matmul_eigen, matmul_nt_eigen, qk_scores_eigen, softmax_rows_eigen,
                                   weighted_sum_eigen};
const KernelTable kSimdKernels = {kernels::matmul_simd, kernels::matmul_nt_simd, kernels::qk_scores_simd,
                                  kernels::softmax_rows_simd, kernels::weighted_sum_simd};

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
float* result_buffer(float* kept, float* scratch, const float* w, long long n) {
  float* to = kept ? kept : scratch;
  if (to != w) std::copy(w, w + n, to);
  return to;
}

}  // namespace

void head_forward(float* out, const HeadIntermediates& kept, float* scratch, const HeadInputs& in,
                  const KernelTable& kernels) {
  // out: (T, hv); kept.*: (T, T) or null; scratch: (T, T), where the passes not kept run
  const int T = in.T;
  const long long n = static_cast<long long>(T) * T;
  float* w = kept.scores ? kept.scores : scratch;

  // 1. scores = q·kᵀ. When scores or scaled are kept, every pair, masked or not (the page shows
  //    what the mask hides); otherwise the causal half is skipped (pass 3 masks it anyway).
  kernels.qk_scores(w, in.q, in.k, T, in.hk, 1.0f, in.causal && !kept.scores && !kept.scaled);

  // 2. scale: scaled = scores · alpha, alpha = s / temperature
  w = result_buffer(kept.scaled, scratch, w, n);
  for (long long ij = 0; ij < n; ++ij) w[ij] *= in.alpha;

  // 3. mask: −∞ where the key is in the future (causal) or padded
  w = result_buffer(kept.masked, scratch, w, n);
  if (in.causal || in.key_keep) {
    for (int i = 0; i < T; ++i) {
      float* row = w + static_cast<long long>(i) * T;
      for (int j = 0; j < T; ++j) {
        if ((in.causal && j > i) || (in.key_keep && !in.key_keep[j])) row[j] = kMinusInf;
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
    const float inverse_keep = 1.0f / (1.0f - in.dropout);
    for (long long ij = 0; ij < n; ++ij) w[ij] = in.keep[ij] ? w[ij] * inverse_keep : 0.0f;
  }

  // 6. weighted sum: out = dropped · v
  kernels.weighted_sum(out, w, in.v, T, in.hv, in.causal);
}

}  // namespace attn::detail

// The register-blocked micro-kernel every f32x4 product runs on (gemm_simd.cpp, and the fused
// attention of kernels_simd.cpp). Internal to src/kernels/.
//
// Legend: MR rows of A and C (≤ 4), 8 columns of B and C (2 vectors), K the length of the sums.
//
//   acc (MR × 8) += A' (MR × K) · B (K × 8)
// with both operands packed: A' as (K × MR), element (r, p) at ap[p·MR + r]; B as a panel
// (K × 8), row p at bp[8·p]. Per step of K: one panel row (2 vectors), MR broadcasts of A,
// 2·MR multiplies and 2·MR adds, no horizontal sums; each element's sum runs over p in order,
// one rounding per multiply and per add. MR = 4: 8 accumulators + 2 B vectors + 1 broadcast fit
// the 15 vector registers V8 allocates on x86-64 without spills (the shape of XNNPACK's 4x8
// wasmsimd GEMMs), and the two operands' pointers with constant offsets are the loop's only
// addresses.
#pragma once

#include "kernels/f32x4.h"
#include "kernels/gemm.h"

namespace attn::kernels::micro {

using simd::f32x4;
constexpr int kMr = kMicroRows;     // rows per micro-kernel call: 4
constexpr int kNr = kMicroColumns;  // panel width: 8, 2 vectors

// One step of K: acc += A'(:, p) · panel(p, :), with A' and the panel at step p.
template <int MR>
inline void step(f32x4 (&acc)[MR][2], const float* ap, const float* bp) {
  const f32x4 b0 = simd::load(bp), b1 = simd::load(bp + 4);
  for (int r = 0; r < MR; ++r) {
    const f32x4 x = simd::load_splat(ap + r);
    acc[r][0] = simd::add(acc[r][0], simd::mul(x, b0));
    acc[r][1] = simd::add(acc[r][1], simd::mul(x, b1));
  }
}

// acc (MR × 8) += A' (K × MR) · panel (K × 8). The sums live in locals for the whole loop
// (accumulating through the reference makes clang store every accumulator on every step: a
// v128 may alias the float inputs). One step per iteration, not unrolled: clang schedules an
// unrolled body accumulator by accumulator, keeping every step's B vectors live at once, and V8
// then spills accumulators to the stack (seen in node --print-wasm-code; the 4× unrolled loop
// measured slower).
template <int MR>
inline void kernel(f32x4 (&acc)[MR][2], const float* ap, const float* bp, int K) {
  f32x4 c[MR][2];
  for (int r = 0; r < MR; ++r) c[r][0] = acc[r][0], c[r][1] = acc[r][1];
#if defined(__clang__)
#pragma clang loop unroll(disable)
#endif
  for (int p = 0; p < K; ++p, ap += MR, bp += kNr) step<MR>(c, ap, bp);
  for (int r = 0; r < MR; ++r) acc[r][0] = c[r][0], acc[r][1] = c[r][1];
}

}  // namespace attn::kernels::micro

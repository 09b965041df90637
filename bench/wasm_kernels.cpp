// Bench-only WASM module: the attention kernels of src/kernels/ over heap buffers, so
// bench/run.mjs can time them on exactly the Q, K, V it gives the peers.
//
// Legend: H heads, T tokens, hs head size. Buffers are (H, T, hs) row-major float32, one
// head after the other; scale 1/√hs, as in PyTorch's scaled_dot_product_attention.
// Built by bench/run.mjs with emcc -O3 -msimd128 (see bench/build_wasm.mjs).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kernels/f32x4.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"

namespace k = attn::kernels;
namespace simd = attn::kernels::simd;

namespace {
// SIMD128 peak, two forms of independent f32x4 mul+add chains (8 flops per chain step):
//   form 0: acc = acc·m + c        (the mul sits on the chain)
//   form 1: acc = acc + x·y        (x broadcast from a small L1 array each step, as in the
//                                   kernels; only the add sits on the chain)
// `chains` chains, `iters` steps each; returns a value depending on every chain so nothing
// is optimised away. Flops performed = chains · iters · 8. The peak is the best of both.
template <int C>
float peak_chains(int iters) {
  simd::f32x4 acc[C];
  for (int i = 0; i < C; ++i) acc[i] = simd::splat(1.0f + 0.001f * i);
  const simd::f32x4 m = simd::splat(0.999999f), c = simd::splat(1e-7f);
  for (int it = 0; it < iters; ++it)
    for (int i = 0; i < C; ++i) acc[i] = simd::add(simd::mul(acc[i], m), c);
  simd::f32x4 s = acc[0];
  for (int i = 1; i < C; ++i) s = simd::add(s, acc[i]);
  return simd::hsum(s);
}

float g_peak_x[256];

template <int C>
float peak_chains_broadcast(int iters) {
  simd::f32x4 acc[C], y[C];
  for (int i = 0; i < C; ++i) {
    acc[i] = simd::zero();
    y[i] = simd::splat(1e-7f * (i + 1));
  }
  for (int it = 0; it < iters; ++it) {
    const simd::f32x4 x = simd::load_splat(&g_peak_x[it & 255]);
    for (int i = 0; i < C; ++i) acc[i] = simd::add(acc[i], simd::mul(x, y[i]));
  }
  simd::f32x4 s = acc[0];
  for (int i = 1; i < C; ++i) s = simd::add(s, acc[i]);
  return simd::hsum(s);
}

}  // namespace

extern "C" {

// Fused online-softmax kernel, head by head: never materialises T×T.
void bk_attention_tiled(float* out, const float* q, const float* kk, const float* v, int H, int T, int hs, int causal) {
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
  for (int h = 0; h < H; ++h)
    k::attention_tiled_simd(out + h * step, nullptr, q + h * step, kk + h * step, v + h * step, nullptr, T, hs, hs,
                            alpha, causal != 0);
}

// The tiled backward, head by head: dq, dk, dv (H, T, hs) from dout and the forward's out and
// lse (H, T), which bk_attention_tiled_lse fills.
void bk_attention_tiled_lse(float* out, float* lse, const float* q, const float* kk, const float* v, int H, int T,
                            int hs, int causal) {
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
  for (int h = 0; h < H; ++h)
    k::attention_tiled_simd(out + h * step, lse + h * T, q + h * step, kk + h * step, v + h * step, nullptr, T, hs, hs,
                            alpha, causal != 0);
}
void bk_attention_tiled_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* kk,
                                 const float* v, const float* out, const float* lse, int H, int T, int hs, int causal) {
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
  for (int h = 0; h < H; ++h)
    k::attention_tiled_backward_simd(dq + h * step, dk + h * step, dv + h * step, dout + h * step, q + h * step,
                                     kk + h * step, v + h * step, out + h * step, lse + h * T, nullptr, T, hs, hs,
                                     alpha, causal != 0);
}

// Three passes with a (T, T) scratch: scores, row softmax, weights·V (what the page uses
// when it shows the weights).
void bk_attention_3pass(float* out, float* scratch, const float* q, const float* kk, const float* v, int H, int T,
                        int hs, int causal) {
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
  for (int h = 0; h < H; ++h) {
    k::qk_scores_simd(scratch, q + h * step, kk + h * step, T, hs, alpha, causal != 0);
    k::softmax_rows_simd(scratch, T, T, causal != 0);
    k::weighted_sum_simd(out + h * step, scratch, v + h * step, T, hs, causal != 0);
  }
}

// One pass of bk_attention_3pass alone, for the profile: 0 = scores, 1 = row softmax
// (on whatever the scratch holds), 2 = weights·V (scratch as the weights).
void bk_attention_stage(int stage, float* out, float* scratch, const float* q, const float* kk, const float* v, int H,
                        int T, int hs, int causal) {
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
  for (int h = 0; h < H; ++h) {
    if (stage == 0) k::qk_scores_simd(scratch, q + h * step, kk + h * step, T, hs, alpha, causal != 0);
    if (stage == 1) k::softmax_rows_simd(scratch, T, T, causal != 0);
    if (stage == 2) k::weighted_sum_simd(out + h * step, scratch, v + h * step, T, hs, causal != 0);
  }
}

// Scalar reference (seed-style loops), for checking outputs at small T.
void bk_attention_ref(float* out, const float* q, const float* kk, const float* v, int H, int T, int hs, int causal) {
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
  for (int h = 0; h < H; ++h)
    k::attention_tiled_ref<float>(out + h * step, nullptr, q + h * step, kk + h * step, v + h * step, nullptr, T, hs,
                                  hs, alpha, causal != 0);
}

float bk_peak(int form, int chains, int iters) {
  if (form == 0) {
    switch (chains) {
      case 8: return peak_chains<8>(iters);
      case 12: return peak_chains<12>(iters);
      case 16: return peak_chains<16>(iters);
    }
  } else {
    for (int i = 0; i < 256; ++i) g_peak_x[i] = 1.0f + 0.001f * i;
    switch (chains) {  // acc and y each take a register: at most 7 chains fit in 16
      case 4: return peak_chains_broadcast<4>(iters);
      case 6: return peak_chains_broadcast<6>(iters);
      case 7: return peak_chains_broadcast<7>(iters);
    }
  }
  return -1.0f;
}

// The linear layer's three products, one thread (legend: R rows, I in features, O out features):
//   form 0  y (R, O) = x (R, I) · w (O, I)ᵀ + b    forward: a = x, b = w, bias = b
//   form 1  dx (R, I) += dy (R, O) · w (O, I)      a = dy, b = w
//   form 2  dw (O, I) += dy (R, O)ᵀ · x (R, I)     a = dy, b = x
// ref != 0 runs gemm_ref (the scalar loops) instead of gemm_simd.
void bk_linear(int form, int ref, float* c, const float* a, const float* b, const float* bias, int R, int I, int O) {
  auto gemm = [ref](float* out, std::ptrdiff_t ldc, k::MatrixOf<float> x, k::MatrixOf<float> y, const float* add,
                    bool accumulate, int M, int K, int N) {
    if (ref) {
      k::gemm_ref<float>(out, ldc, x, y, add, accumulate, M, K, N);
    } else {
      k::gemm_simd(out, ldc, x, y, add, accumulate, M, K, N);
    }
  };
  if (form == 0) gemm(c, O, {a, I, 1}, {b, 1, I}, bias, false, R, I, O);
  if (form == 1) gemm(c, I, {a, O, 1}, {b, I, 1}, nullptr, true, R, O, I);
  if (form == 2) gemm(c, I, {a, 1, O}, {b, I, 1}, nullptr, true, O, R, I);
}

int bk_simd_enabled() { return k::simd_enabled() ? 1 : 0; }

void* bk_malloc(int bytes) { return std::malloc(static_cast<std::size_t>(bytes)); }
void bk_free(void* p) { std::free(p); }

}  // extern "C"

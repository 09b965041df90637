// f32x4 versions of the training kernels (train_kernels.h): the products are gemm_simd
// (gemm.h), equal to their _ref twins bit for bit; GELU with a vector erf and exp.
//
// Legend: M/K/N matrix sizes, n element count.
#include <cstddef>

#include "kernels/f32x4.h"
#include "kernels/gemm.h"
#include "kernels/train_kernels.h"

namespace attn::kernels {

namespace {

using simd::f32x4;

// erf(x) by Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7 for every x), as torch's
// Vectorized<float>::erf: with t = 1/(1 + p·|x|),
//   erf(|x|) = 1 − t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·e^(−x²),  erf(−x) = −erf(x).
// For |x| > 9.3, e^(−x²) underflows to exactly 0 in the f32x4 exp, so erf is exactly ±1.
inline f32x4 erf4(f32x4 x) {
  const f32x4 zero = simd::zero(), one = simd::splat(1.0f);
  const f32x4 ax = simd::max(x, simd::sub(zero, x));
  const f32x4 t = simd::div(one, simd::add(one, simd::mul(simd::splat(0.3275911f), ax)));
  f32x4 r = simd::splat(1.061405429f);
  r = simd::add(simd::mul(r, t), simd::splat(-1.453152027f));
  r = simd::add(simd::mul(r, t), simd::splat(1.421413741f));
  r = simd::add(simd::mul(r, t), simd::splat(-0.284496736f));
  r = simd::add(simd::mul(r, t), simd::splat(0.254829592f));
  const f32x4 e = simd::exp(simd::sub(zero, simd::mul(x, x)));
  const f32x4 y = simd::sub(one, simd::mul(simd::mul(r, t), e));
  return simd::select(simd::less(x, zero), y, simd::sub(zero, y));  // odd: −y where x < 0
}

constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;

// y = x · 0.5 · (1 + erf(x·√½)) for 4 lanes.
inline f32x4 gelu4(f32x4 x) {
  const f32x4 cdf2 = simd::add(simd::splat(1.0f), erf4(simd::mul(x, simd::splat(kSqrtHalf))));
  return simd::mul(simd::mul(x, simd::splat(0.5f)), cdf2);
}

// dy · (cdf + x·pdf) for 4 lanes.
inline f32x4 gelu_grad4(f32x4 dy, f32x4 x) {
  const f32x4 cdf =
      simd::mul(simd::splat(0.5f), simd::add(simd::splat(1.0f), erf4(simd::mul(x, simd::splat(kSqrtHalf)))));
  const f32x4 pdf = simd::mul(simd::splat(kInvSqrt2Pi), simd::exp(simd::mul(simd::mul(x, x), simd::splat(-0.5f))));
  return simd::mul(dy, simd::add(cdf, simd::mul(x, pdf)));
}

constexpr float kSqrtTwoOverPi = 0.79788456080286535588f;  // √(2/π), GPT-2's gelu_new
constexpr float kGeluCubic = 0.044715f;

// s = 0.5·(1 + tanh u) = 1/(1 + e^(−2u)) and e^(−2u) for 4 lanes, u = √(2/π)·(x + 0.044715·x³).
// Where −2u > 87 (e^(−2u) beyond float's range), s is exactly 0, as 1 + tanh u is in float.
inline f32x4 gelu_tanh_sigmoid4(f32x4 x, f32x4& e) {
  const f32x4 u = simd::mul(simd::splat(kSqrtTwoOverPi),
                            simd::add(x, simd::mul(simd::splat(kGeluCubic), simd::mul(simd::mul(x, x), x))));
  const f32x4 minus_2u = simd::mul(u, simd::splat(-2.0f));
  e = simd::exp(minus_2u);
  const f32x4 s = simd::div(simd::splat(1.0f), simd::add(simd::splat(1.0f), e));
  return simd::select(simd::less(simd::splat(87.0f), minus_2u), s, simd::zero());
}

// y = x · s for 4 lanes.
inline f32x4 gelu_tanh4(f32x4 x) {
  f32x4 e;
  return simd::mul(x, gelu_tanh_sigmoid4(x, e));
}

// dy · (s + 2·x·s·(1 − s)·√(2/π)·(1 + 3·0.044715·x²)) for 4 lanes, with 1 − s = e·s (exact where s ≈ 1).
inline f32x4 gelu_tanh_grad4(f32x4 dy, f32x4 x) {
  f32x4 e;
  const f32x4 s = gelu_tanh_sigmoid4(x, e);
  const f32x4 du = simd::mul(simd::splat(kSqrtTwoOverPi),
                             simd::add(simd::splat(1.0f), simd::mul(simd::splat(3.0f * kGeluCubic), simd::mul(x, x))));
  const f32x4 slope = simd::mul(simd::mul(simd::mul(simd::splat(2.0f), x), simd::mul(s, simd::mul(e, s))), du);
  return simd::mul(dy, simd::add(s, slope));
}

}  // namespace

void matmul_acc_simd(float* c, const float* a, const float* b, int M, int K, int N) {
  // c: (M, N) +=, a: (M, K), b: (K, N)
  gemm_simd(c, N, {a, K, 1}, {b, N, 1}, nullptr, true, M, K, N);
}

void matmul_tn_simd(float* c, const float* a, const float* b, int M, int K, int N) {
  // c: (M, N) +=, a: (K, M) read transposed, b: (K, N)
  gemm_simd(c, N, {a, 1, M}, {b, N, 1}, nullptr, true, M, K, N);
}

namespace {

// y (n) = op(x (n)) lane by lane; the last n mod 4 values go through the same vector code, padded.
template <f32x4 (*op)(f32x4)>
void map_lanes(float* y, const float* x, long long n) {
  long long i = 0;
  for (; i + 4 <= n; i += 4) simd::store(y + i, op(simd::load(x + i)));
  if (i < n) {
    float in[4] = {}, out[4];
    for (long long k = i; k < n; ++k) in[k - i] = x[k];
    simd::store(out, op(simd::load(in)));
    for (long long k = i; k < n; ++k) y[k] = out[k - i];
  }
}

// dx (n) += grad(dy, x) lane by lane, padded likewise.
template <f32x4 (*grad)(f32x4, f32x4)>
void accumulate_lanes(float* dx, const float* dy, const float* x, long long n) {
  long long i = 0;
  for (; i + 4 <= n; i += 4)
    simd::store(dx + i, simd::add(simd::load(dx + i), grad(simd::load(dy + i), simd::load(x + i))));
  if (i < n) {
    float g[4] = {}, in[4] = {}, out[4];
    for (long long k = i; k < n; ++k) g[k - i] = dy[k], in[k - i] = x[k];
    simd::store(out, grad(simd::load(g), simd::load(in)));
    for (long long k = i; k < n; ++k) dx[k] += out[k - i];
  }
}

}  // namespace

void gelu_forward_simd(float* y, const float* x, long long n) { map_lanes<gelu4>(y, x, n); }
void gelu_backward_simd(float* dx, const float* dy, const float* x, long long n) {
  accumulate_lanes<gelu_grad4>(dx, dy, x, n);
}
void gelu_tanh_forward_simd(float* y, const float* x, long long n) { map_lanes<gelu_tanh4>(y, x, n); }
void gelu_tanh_backward_simd(float* dx, const float* dy, const float* x, long long n) {
  accumulate_lanes<gelu_tanh_grad4>(dx, dy, x, n);
}

}  // namespace attn::kernels

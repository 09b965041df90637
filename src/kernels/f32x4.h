// A portable 4-lane float32 vector: the one layer the _simd kernels are written against.
//
//   WASM (Emscripten with -msimd128, __wasm_simd128__): <wasm_simd128.h>
//   x86 (SSE4.1, which the native build enables with -msse4.1):   <smmintrin.h>
//   anything else: a plain struct of 4 floats (kF32x4Native == false)
//
// Only what the kernels need is here. There is no FMA: WASM SIMD128 has none, so the
// native build does mul + add as well and both builds round the same way.
//
// load_f16(p): 4 IEEE binary16 values as float32, exactly, with integer ops (WASM SIMD has no
// f16 lanes): a half's magnitude bits shifted left by 13 are a float32 whose exponent is 112 too
// small, so multiplying by 2^112 (exact: a power of two) rebiases normals and turns subnormal
// halves, read as float32 denormals, into the right normals; exponent 31 (inf, NaN) is set to
// 255; then the sign. Equal bit for bit to kernels/half.h's f16_to_f32_ref (half_test.cpp, all
// 65,536 values). Denormal float32 inputs must not be flushed to zero (neither build does).
// load_f16_finite(p): the same for finite halves in 3 integer and float ops after the load (no
// inf/NaN case, no separate sign): what the products use, whose F16 weights are finite (the
// loader refuses others); equal to the reference on all 63,488 finite halves.
// load_f16_finite_scaled(p): the float32 before that multiply, h·2^−112 exactly (2 ops after the
// load): a product whose other operand is scaled by 2^112 instead gets the same bits
// (gemm_simd.cpp's one-row panel kernel), one op fewer per 4 weights.
//
// load_bf16(p): 4 bfloat16 values as float32, exactly: each widened to 32 bits and shifted left
// by 16 (a bfloat16 is a float32's top half). load_bf16_pairs(p, even, odd): 8 at once from one
// 128-bit load, whose 32-bit lane i holds values 2i (low half) and 2i + 1 (high half): a shift
// left by 16 gives the even ones, a mask of the high half the odd ones, one op per 4 weights.
// interleave_low/high(a, b): (a0 b0 a1 b1) and (a2 b2 a3 b3), which put such even and odd
// lanes back in order.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/half.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define ATTN_F32X4_WASM 1
#elif defined(__SSE4_1__)
#include <smmintrin.h>
#define ATTN_F32X4_SSE 1
#else
#define ATTN_F32X4_SCALAR 1
#endif

namespace attn::kernels::simd {

// load_f16_finite: a half sign-extended to 32 bits and shifted left by 13 has its sign in bits
// 28–31 and its magnitude in bits 13–27; this mask keeps bit 31 and bits 13–27, a float32 2^112
// too small with the half's sign, which the multiply rebiases as load_f16 does.
inline constexpr std::int32_t kF16FiniteMask = static_cast<std::int32_t>(0x8fffe000u);

#if defined(ATTN_F32X4_WASM)

inline constexpr bool kF32x4Native = true;
inline constexpr const char* kF32x4Name = "wasm-simd128";
using f32x4 = v128_t;

inline f32x4 load(const float* p) { return wasm_v128_load(p); }
inline void store(float* p, f32x4 v) { wasm_v128_store(p, v); }
inline f32x4 splat(float x) { return wasm_f32x4_splat(x); }
inline f32x4 load_splat(const float* p) { return wasm_v128_load32_splat(p); }
inline f32x4 zero() { return wasm_f32x4_splat(0.0f); }
inline f32x4 add(f32x4 a, f32x4 b) { return wasm_f32x4_add(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return wasm_f32x4_sub(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return wasm_f32x4_mul(a, b); }
inline f32x4 div(f32x4 a, f32x4 b) { return wasm_f32x4_div(a, b); }
// max/min with the x86 operand convention is not needed: inputs are never NaN here.
inline f32x4 max(f32x4 a, f32x4 b) { return wasm_f32x4_pmax(a, b); }
inline f32x4 min(f32x4 a, f32x4 b) { return wasm_f32x4_pmin(a, b); }
// Lanes where a < b are all ones.
inline f32x4 less(f32x4 a, f32x4 b) { return wasm_f32x4_lt(a, b); }
// mask ? b : a, lane by lane (mask lanes are all ones or all zeros).
inline f32x4 select(f32x4 mask, f32x4 a, f32x4 b) { return wasm_v128_bitselect(b, a, mask); }
// 2^n from t = n + 1.5·2²³ (n integral, −126 ≤ n ≤ 127): the low mantissa bits of t hold
// n, so (bits(t) << 23) + (127 << 23) is the float 2^n. Two integer ops, no conversion.
inline f32x4 pow2_from_magic(f32x4 t) { return wasm_i32x4_add(wasm_i32x4_shl(t, 23), wasm_i32x4_splat(127 << 23)); }
// Lane L in every lane.
template <int L>
inline f32x4 broadcast_lane(f32x4 v) {
  return wasm_i32x4_shuffle(v, v, L, L, L, L);
}
// Rows r0..r3 of a 4×4 block become its columns.
inline void transpose4(f32x4& r0, f32x4& r1, f32x4& r2, f32x4& r3) {
  const f32x4 t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
  const f32x4 t2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
  r0 = wasm_i64x2_shuffle(t0, t1, 0, 2);
  r1 = wasm_i64x2_shuffle(t0, t1, 1, 3);
  r2 = wasm_i64x2_shuffle(t2, t3, 0, 2);
  r3 = wasm_i64x2_shuffle(t2, t3, 1, 3);
}
inline float hsum(f32x4 v) {
  const f32x4 s = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  return wasm_f32x4_extract_lane(wasm_f32x4_add(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2)), 0);
}
inline float hmax(f32x4 v) {
  const f32x4 s = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  return wasm_f32x4_extract_lane(wasm_f32x4_pmax(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2)), 0);
}
// 4 IEEE half floats at p (any alignment) as float32, exactly (load_f16 below says how).
inline f32x4 load_f16(const std::uint16_t* p) {
  const v128_t h = wasm_u32x4_load16x4(p);
  const v128_t scaled =
      wasm_f32x4_mul(wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7fff)), 13), wasm_f32x4_splat(0x1.0p112f));
  const v128_t special = wasm_i32x4_eq(wasm_v128_and(h, wasm_i32x4_splat(0x7c00)), wasm_i32x4_splat(0x7c00));
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
  return wasm_v128_or(wasm_v128_or(scaled, wasm_v128_and(special, wasm_i32x4_splat(0x7f800000))), sign);
}
// The same for finite halves only (inf and NaN come out finite): 3 ops after the load.
inline f32x4 load_f16_finite_scaled(const std::uint16_t* p) {
  return wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_load16x4(p), 13), wasm_i32x4_splat(kF16FiniteMask));
}
inline f32x4 load_f16_finite(const std::uint16_t* p) {
  return wasm_f32x4_mul(load_f16_finite_scaled(p), wasm_f32x4_splat(0x1.0p112f));
}
inline f32x4 load_bf16(const Bf16* p) { return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16); }
inline void load_bf16_pairs(const Bf16* p, f32x4& even, f32x4& odd) {
  const v128_t v = wasm_v128_load(p);
  even = wasm_i32x4_shl(v, 16);
  odd = wasm_v128_and(v, wasm_i32x4_splat(static_cast<std::int32_t>(0xffff0000u)));
}
inline f32x4 interleave_low(f32x4 a, f32x4 b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
inline f32x4 interleave_high(f32x4 a, f32x4 b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }

#elif defined(ATTN_F32X4_SSE)

inline constexpr bool kF32x4Native = true;
inline constexpr const char* kF32x4Name = "sse4.1";
using f32x4 = __m128;

inline f32x4 load(const float* p) { return _mm_loadu_ps(p); }
inline void store(float* p, f32x4 v) { _mm_storeu_ps(p, v); }
inline f32x4 splat(float x) { return _mm_set1_ps(x); }
inline f32x4 load_splat(const float* p) { return _mm_set1_ps(*p); }
inline f32x4 zero() { return _mm_setzero_ps(); }
inline f32x4 add(f32x4 a, f32x4 b) { return _mm_add_ps(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return _mm_sub_ps(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return _mm_mul_ps(a, b); }
inline f32x4 div(f32x4 a, f32x4 b) { return _mm_div_ps(a, b); }
inline f32x4 max(f32x4 a, f32x4 b) { return _mm_max_ps(a, b); }
inline f32x4 min(f32x4 a, f32x4 b) { return _mm_min_ps(a, b); }
inline f32x4 less(f32x4 a, f32x4 b) { return _mm_cmplt_ps(a, b); }
inline f32x4 select(f32x4 mask, f32x4 a, f32x4 b) { return _mm_blendv_ps(a, b, mask); }
inline f32x4 pow2_from_magic(f32x4 t) {
  return _mm_castsi128_ps(_mm_add_epi32(_mm_slli_epi32(_mm_castps_si128(t), 23), _mm_set1_epi32(127 << 23)));
}
template <int L>
inline f32x4 broadcast_lane(f32x4 v) {
  return _mm_shuffle_ps(v, v, _MM_SHUFFLE(L, L, L, L));
}
inline void transpose4(f32x4& r0, f32x4& r1, f32x4& r2, f32x4& r3) { _MM_TRANSPOSE4_PS(r0, r1, r2, r3); }
inline float hsum(f32x4 v) {
  const f32x4 s = _mm_add_ps(v, _mm_movehl_ps(v, v));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}
inline float hmax(f32x4 v) {
  const f32x4 s = _mm_max_ps(v, _mm_movehl_ps(v, v));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_shuffle_ps(s, s, 1)));
}
inline f32x4 load_f16(const std::uint16_t* p) {
  const __m128i h = _mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  const __m128 scaled = _mm_mul_ps(_mm_castsi128_ps(_mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x7fff)), 13)),
                                   _mm_set1_ps(0x1.0p112f));
  const __m128i special = _mm_cmpeq_epi32(_mm_and_si128(h, _mm_set1_epi32(0x7c00)), _mm_set1_epi32(0x7c00));
  const __m128i sign = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16);
  return _mm_or_ps(_mm_or_ps(scaled, _mm_castsi128_ps(_mm_and_si128(special, _mm_set1_epi32(0x7f800000)))),
                   _mm_castsi128_ps(sign));
}
inline f32x4 load_f16_finite_scaled(const std::uint16_t* p) {
  const __m128i h = _mm_cvtepi16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  return _mm_castsi128_ps(_mm_and_si128(_mm_slli_epi32(h, 13), _mm_set1_epi32(kF16FiniteMask)));
}
inline f32x4 load_f16_finite(const std::uint16_t* p) {
  return _mm_mul_ps(load_f16_finite_scaled(p), _mm_set1_ps(0x1.0p112f));
}
inline f32x4 load_bf16(const Bf16* p) {
  return _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))), 16));
}
inline void load_bf16_pairs(const Bf16* p, f32x4& even, f32x4& odd) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  even = _mm_castsi128_ps(_mm_slli_epi32(v, 16));
  odd = _mm_castsi128_ps(_mm_and_si128(v, _mm_set1_epi32(static_cast<std::int32_t>(0xffff0000u))));
}
inline f32x4 interleave_low(f32x4 a, f32x4 b) { return _mm_unpacklo_ps(a, b); }
inline f32x4 interleave_high(f32x4 a, f32x4 b) { return _mm_unpackhi_ps(a, b); }

#else  // scalar emulation

inline constexpr bool kF32x4Native = false;
inline constexpr const char* kF32x4Name = "scalar";
struct f32x4 {
  float v[4];
};

inline f32x4 load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline void store(float* p, f32x4 a) { std::memcpy(p, a.v, sizeof a.v); }
inline f32x4 splat(float x) { return {{x, x, x, x}}; }
inline f32x4 load_splat(const float* p) { return splat(*p); }
inline f32x4 zero() { return splat(0.0f); }
#define ATTN_F32X4_LANEWISE(name, expr)          \
  inline f32x4 name(f32x4 a, f32x4 b) {          \
    f32x4 r;                                     \
    for (int i = 0; i < 4; ++i) r.v[i] = (expr); \
    return r;                                    \
  }
ATTN_F32X4_LANEWISE(add, a.v[i] + b.v[i])
ATTN_F32X4_LANEWISE(sub, a.v[i] - b.v[i])
ATTN_F32X4_LANEWISE(mul, a.v[i] * b.v[i])
ATTN_F32X4_LANEWISE(div, a.v[i] / b.v[i])
ATTN_F32X4_LANEWISE(max, a.v[i] < b.v[i] ? b.v[i] : a.v[i])
ATTN_F32X4_LANEWISE(min, b.v[i] < a.v[i] ? b.v[i] : a.v[i])
#undef ATTN_F32X4_LANEWISE
inline f32x4 less(f32x4 a, f32x4 b) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t bits = a.v[i] < b.v[i] ? 0xffffffffu : 0u;
    std::memcpy(&r.v[i], &bits, 4);
  }
  return r;
}
inline f32x4 select(f32x4 mask, f32x4 a, f32x4 b) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t m;
    std::memcpy(&m, &mask.v[i], 4);
    r.v[i] = m ? b.v[i] : a.v[i];
  }
  return r;
}
inline f32x4 pow2_from_magic(f32x4 t) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &t.v[i], 4);
    bits = (bits << 23) + (127u << 23);
    std::memcpy(&r.v[i], &bits, 4);
  }
  return r;
}
template <int L>
inline f32x4 broadcast_lane(f32x4 v) {
  return splat(v.v[L]);
}
inline void transpose4(f32x4& r0, f32x4& r1, f32x4& r2, f32x4& r3) {
  f32x4* rows[4] = {&r0, &r1, &r2, &r3};
  f32x4 t[4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) t[j].v[i] = rows[i]->v[j];
  r0 = t[0], r1 = t[1], r2 = t[2], r3 = t[3];
}
inline float hsum(f32x4 a) { return (a.v[0] + a.v[2]) + (a.v[1] + a.v[3]); }
inline float hmax(f32x4 a) {
  const float x = a.v[0] > a.v[2] ? a.v[0] : a.v[2];
  const float y = a.v[1] > a.v[3] ? a.v[1] : a.v[3];
  return x > y ? x : y;
}
inline f32x4 load_f16(const std::uint16_t* p) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t h = p[i], magnitude = (h & 0x7fffu) << 13;
    float scaled;
    std::memcpy(&scaled, &magnitude, 4);
    scaled *= 0x1.0p112f;
    std::uint32_t bits;
    std::memcpy(&bits, &scaled, 4);
    bits |= ((h & 0x7c00u) == 0x7c00u ? 0x7f800000u : 0u) | (h & 0x8000u) << 16;
    std::memcpy(&r.v[i], &bits, 4);
  }
  return r;
}
inline f32x4 load_f16_finite_scaled(const std::uint16_t* p) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t bits =
        (static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(p[i]))) << 13) &
        static_cast<std::uint32_t>(kF16FiniteMask);
    std::memcpy(&r.v[i], &bits, 4);
  }
  return r;
}
inline f32x4 load_f16_finite(const std::uint16_t* p) {
  f32x4 r = load_f16_finite_scaled(p);
  for (int i = 0; i < 4; ++i) r.v[i] *= 0x1.0p112f;
  return r;
}
inline f32x4 load_bf16(const Bf16* p) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = bf16_to_f32_ref(p[i]);
  return r;
}
inline void load_bf16_pairs(const Bf16* p, f32x4& even, f32x4& odd) {
  for (int i = 0; i < 4; ++i) even.v[i] = bf16_to_f32_ref(p[2 * i]), odd.v[i] = bf16_to_f32_ref(p[2 * i + 1]);
}
inline f32x4 interleave_low(f32x4 a, f32x4 b) { return {{a.v[0], b.v[0], a.v[1], b.v[1]}}; }
inline f32x4 interleave_high(f32x4 a, f32x4 b) { return {{a.v[2], b.v[2], a.v[3], b.v[3]}}; }

#endif

// e^x, lane by lane, relative error below 2e-7 for x in [−87.3, 88] (Cephes expf:
// range reduction x = n·ln2 + r with |r| ≤ ln2/2, then a degree-5 polynomial for e^r).
// x < −87.3 (including −∞) gives exactly 0, so masked scores become exact zeros.
inline f32x4 exp(f32x4 x) {
  const f32x4 lo = splat(-87.33654f);
  const f32x4 underflow = less(x, lo);
  x = min(max(x, lo), splat(88.0f));
  // n = round(x·log2 e) by the 1.5·2²³ trick: the add rounds to nearest, t keeps n in its
  // low mantissa bits for pow2_from_magic, and t − magic is n as a float.
  const f32x4 magic = splat(12582912.0f);
  const f32x4 t = add(mul(x, splat(1.44269504088896341f)), magic);
  const f32x4 n = sub(t, magic);
  // r = x − n·ln2 in two steps (ln2 split into an exact high part and a correction).
  f32x4 r = sub(x, mul(n, splat(0.693359375f)));
  r = sub(r, mul(n, splat(-2.12194440e-4f)));
  f32x4 p = splat(1.9875691500e-4f);
  p = add(mul(p, r), splat(1.3981999507e-3f));
  p = add(mul(p, r), splat(8.3334519073e-3f));
  p = add(mul(p, r), splat(4.1665795894e-2f));
  p = add(mul(p, r), splat(1.6666665459e-1f));
  p = add(mul(p, r), splat(5.0000001201e-1f));
  const f32x4 r2 = mul(r, r);
  p = add(add(mul(p, r2), r), splat(1.0f));
  return select(underflow, mul(p, pow2_from_magic(t)), zero());
}

// 2^x, lane by lane, relative error below 2e-7 for x in [−126, 127] (Cephes exp2f: x = n + f
// with |f| ≤ ½, then 1 + f·P(f), P of degree 5): no ln 2 range reduction, so cheaper than exp
// where the caller can work in base 2 (the attention kernels fold log₂e into their scale).
// x ≤ −127 (including −∞) gives exactly 0; −127 < x < −126.5 gives 0 too (2^x is subnormal).
inline f32x4 exp2(f32x4 x) {
  x = min(max(x, splat(-127.0f)), splat(127.0f));
  // n = round(x) by the 1.5·2²³ trick (t keeps n in its low mantissa bits), f = x − n.
  const f32x4 magic = splat(12582912.0f);
  const f32x4 t = add(x, magic);
  const f32x4 f = sub(x, sub(t, magic));
  f32x4 p = splat(1.535336188319500e-4f);
  p = add(mul(p, f), splat(1.339887440266574e-3f));
  p = add(mul(p, f), splat(9.618437357674640e-3f));
  p = add(mul(p, f), splat(5.550332471162809e-2f));
  p = add(mul(p, f), splat(2.402264791363012e-1f));
  p = add(mul(p, f), splat(6.931472028550421e-1f));
  p = add(mul(p, f), splat(1.0f));
  return mul(p, pow2_from_magic(t));  // n = −127 gives the float 0
}

}  // namespace attn::kernels::simd

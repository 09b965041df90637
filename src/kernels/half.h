// 16-bit weights: IEEE binary16 ("F16", "half") and bfloat16 ("BF16"), the reference conversions
// both ways, and a run of halves to float32 by the reference and by f32x4 (simd::load_f16).
// Weights kept as F16 in memory are converted to float32 as the kernels read them (gemm.h's
// gemm_f16_* and gemm_panels_f16_*: while packing B's panels, or, for one row, as each panel is
// streamed), so every product runs in float32 on the exact values of the halves. BF16 weights
// are read the same way (gemm_panels_bf16_*), each value the top 16 bits of a float32.
//
// Legend: n values. A half is 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits: normals
// 2^−14 … 65504, subnormals down to 2^−24, every one exact in float32. A bfloat16 is float32's
// sign, its 8 exponent bits and the top 7 of its 23 mantissa bits: float32's range, 8 times F16's
// rounding error (2^−8 relative, against 2^−11).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace attn::kernels {

// A half as float32, exactly (inf and NaN kept, NaN's payload too).
inline float f16_to_f32_ref(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^−24
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  const std::uint32_t bits =
      exponent == 31 ? sign | 0x7f800000u | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A float32 rounded to the nearest half, ties to even (IEEE's default rounding, numpy's and
// torch's .half()): |f| ≥ 65520 becomes ±inf, |f| ≤ 2^−25 ±0; NaN stays a (quiet) NaN.
inline std::uint16_t f32_to_f16_ref(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  const std::uint32_t e = ax >> 23;  // float32's biased exponent
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));  // NaN
  if (e >= 143) return static_cast<std::uint16_t>(sign | 0x7c00u);  // ≥ 2^16 (inf included): inf
  if (e < 113) {                                           // below 2^−14: a subnormal half (units of 2^−24) or zero
    if (e < 102) return static_cast<std::uint16_t>(sign);  // below 2^−25: zero
    const std::uint32_t m = (ax & 0x7fffffu) | 0x800000u, shift = 126 - e;  // value = m·2^(e−150)
    std::uint32_t q = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into the smallest normal: right
    return static_cast<std::uint16_t>(sign | q);
  }
  std::uint32_t h = ((e - 112) << 10) | ((ax >> 13) & 0x3ffu);
  const std::uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry rounds up the exponent (to inf past 65504)
  return static_cast<std::uint16_t>(sign | h);
}

// A bfloat16, as its own type so that a kernel over BF16 weights cannot be handed halves (the two
// are 16 bits each, read differently). Its value is the float32 whose bits are bits << 16.
enum class Bf16 : std::uint16_t {};

// A bfloat16 as float32, exactly.
inline float bf16_to_f32_ref(Bf16 b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A float32 rounded to the nearest bfloat16, ties to even (torch's .bfloat16()): finite values
// from the largest bfloat16 plus half its ulp (0x1.ffp127 + 2^119) up become ±inf; NaN stays a
// (quiet) NaN.
inline Bf16 f32_to_bf16_ref(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<Bf16>((x >> 16) | 0x40u);  // NaN, kept quiet
  return static_cast<Bf16>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);  // a carry rounds the exponent up (to inf)
}

// A weight as the kernels read it, as float32: a float32 itself, an F16 half or a bfloat16
// converted exactly (one home for the conversion every kernel and gather over any kept weight uses).
inline float weight_to_f32(float w) { return w; }
inline float weight_to_f32(std::uint16_t h) { return f16_to_f32_ref(h); }
inline float weight_to_f32(Bf16 b) { return bf16_to_f32_ref(b); }

// out (n) = the halves in (n) as float32.
void f16_to_f32_ref(float* out, const std::uint16_t* in, std::size_t n);
void f16_to_f32_simd(float* out, const std::uint16_t* in, std::size_t n);

}  // namespace attn::kernels

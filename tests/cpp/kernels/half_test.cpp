// IEEE half and bfloat16 conversions (src/kernels/half.h, f32x4.h's load_f16 and load_bf16).
//
// Tolerance zero throughout: every half is exactly a float32, so the reference and the f32x4
// conversion must agree bit for bit on all 65,536 of them (NaNs with their payload), and
// float32 → half must be round-to-nearest-even, which the tests check against the definition:
// every half comes back unchanged, values between two neighbours go to the nearer, the exact
// midpoint to the one with an even mantissa, and the range's ends (65504, 65520, 2^−24, 2^−25)
// land where IEEE 754 puts them. The same for bfloat16s, whose range is float32's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/f32x4.h"
#include "kernels/half.h"

namespace attn::kernels {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float bits_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(Half, SimdConversionEqualsTheReferenceOnEveryHalf) {
  std::vector<std::uint16_t> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<float> ref(all.size()), simd(all.size());
  f16_to_f32_ref(ref.data(), all.data(), all.size());
  f16_to_f32_simd(simd.data(), all.data(), all.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < all.size(); ++i) differ += bits_of(ref[i]) != bits_of(simd[i]);
  EXPECT_EQ(differ, 0u) << "of 65536 halves (" << simd::kF32x4Name << ")";
  // spot values: 1, −2, 65504, the smallest subnormal and normal, inf, −0
  EXPECT_EQ(ref[0x3c00], 1.0f);
  EXPECT_EQ(ref[0xc000], -2.0f);
  EXPECT_EQ(ref[0x7bff], 65504.0f);
  EXPECT_EQ(ref[0x0001], std::ldexp(1.0f, -24));
  EXPECT_EQ(ref[0x0400], std::ldexp(1.0f, -14));
  EXPECT_TRUE(std::isinf(ref[0x7c00]) && ref[0x7c00] > 0);
  EXPECT_EQ(bits_of(ref[0x8000]), 0x80000000u);
  EXPECT_TRUE(std::isnan(ref[0x7e01]));
}

TEST(Half, FiniteConversionEqualsTheReferenceOnEveryFiniteHalf) {
  std::size_t differ = 0, finite = 0;
  for (std::uint32_t h = 0; h < 65536; h += 4) {
    std::uint16_t four[4];
    for (int k = 0; k < 4; ++k) four[k] = static_cast<std::uint16_t>(h + k);
    float got[4];
    simd::store(got, simd::load_f16_finite(four));
    for (int k = 0; k < 4; ++k) {
      if ((four[k] & 0x7c00) == 0x7c00) continue;  // inf and NaN: not finite
      ++finite;
      differ += bits_of(got[k]) != bits_of(f16_to_f32_ref(four[k]));
    }
  }
  EXPECT_EQ(finite, 63488u);
  EXPECT_EQ(differ, 0u) << simd::kF32x4Name;
}

TEST(Half, SimdConversionOfAnyLengthAndOffsetEqualsTheReference) {
  std::vector<std::uint16_t> in(80);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(0x3c00 + 977 * i);
  for (int n : {1, 3, 4, 5, 7, 16, 17, 67})
    for (int offset : {0, 1, 2, 3}) {
      std::vector<float> ref(n), simd(n);
      f16_to_f32_ref(ref.data(), in.data() + offset, n);
      f16_to_f32_simd(simd.data(), in.data() + offset, n);
      EXPECT_EQ(std::memcmp(ref.data(), simd.data(), n * sizeof(float)), 0) << "n " << n << " offset " << offset;
    }
}

TEST(Half, RoundingToHalfKeepsEveryHalfAndRoundsToNearestEven) {
  std::size_t failures = 0;
  for (std::uint32_t h = 0; h < 0x7c00; ++h) {  // every finite non-negative half; the sign is one bit
    for (std::uint32_t sign : {0u, 0x8000u}) {
      const std::uint16_t half = static_cast<std::uint16_t>(h | sign);
      const float f = f16_to_f32_ref(half);
      failures += f32_to_f16_ref(f) != half;
      if (h + 1 < 0x7c00) {
        const float next = f16_to_f32_ref(static_cast<std::uint16_t>((h + 1) | sign));
        const double mid = (static_cast<double>(f) + next) / 2;  // exact in float32 (one more bit)
        const float m = static_cast<float>(mid);
        const std::uint16_t even = (h & 1) ? static_cast<std::uint16_t>((h + 1) | sign) : half;
        failures += f32_to_f16_ref(m) != even;
        failures += f32_to_f16_ref(std::nextafter(m, f)) != half;
        failures += f32_to_f16_ref(std::nextafter(m, next)) != static_cast<std::uint16_t>((h + 1) | sign);
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_EQ(f32_to_f16_ref(65504.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16_ref(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(f32_to_f16_ref(65520.0f), 0x7c00);  // the midpoint to 2^16 rounds to even: inf
  EXPECT_EQ(f32_to_f16_ref(-1e6f), 0xfc00);
  EXPECT_EQ(f32_to_f16_ref(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(f32_to_f16_ref(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(f32_to_f16_ref(1e-10f), 0x0000);
  EXPECT_EQ(f32_to_f16_ref(-1e-10f), 0x8000);
  EXPECT_EQ(f32_to_f16_ref(INFINITY), 0x7c00);
  EXPECT_EQ(f32_to_f16_ref(NAN) & 0x7e00, 0x7e00);
}

std::uint16_t raw(Bf16 b) { return static_cast<std::uint16_t>(b); }

TEST(Bfloat16, EveryValueIsTheFloatOfItsBitsAndTheSimdLoadsAgree) {
  // load_bf16 (4 at a time) and load_bf16_pairs (8: even and odd) against the reference, on all
  // 65,536 bit patterns, and the pairs interleaved back into order.
  std::vector<Bf16> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<Bf16>(i);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < all.size(); i += 8) {
    float four[4], even[4], odd[4], ordered[8];
    simd::store(four, simd::load_bf16(all.data() + i));
    for (int k = 0; k < 4; ++k) differ += bits_of(four[k]) != static_cast<std::uint32_t>(i + k) << 16;
    simd::f32x4 e, o;
    simd::load_bf16_pairs(all.data() + i, e, o);
    simd::store(even, e), simd::store(odd, o);
    simd::store(ordered, simd::interleave_low(e, o)), simd::store(ordered + 4, simd::interleave_high(e, o));
    for (int k = 0; k < 4; ++k) {
      differ += bits_of(even[k]) != bits_of(bf16_to_f32_ref(all[i + 2 * k]));
      differ += bits_of(odd[k]) != bits_of(bf16_to_f32_ref(all[i + 2 * k + 1]));
    }
    for (int k = 0; k < 8; ++k) differ += bits_of(ordered[k]) != bits_of(bf16_to_f32_ref(all[i + k]));
  }
  EXPECT_EQ(differ, 0u) << simd::kF32x4Name;
  EXPECT_EQ(bf16_to_f32_ref(static_cast<Bf16>(0x3f80)), 1.0f);
  EXPECT_EQ(bf16_to_f32_ref(static_cast<Bf16>(0xc000)), -2.0f);
  EXPECT_EQ(bf16_to_f32_ref(static_cast<Bf16>(0x7f7f)), 0x1.fep127f);  // the largest
}

TEST(Bfloat16, RoundingKeepsEveryBfloat16AndRoundsToNearestEven) {
  std::size_t failures = 0;
  for (std::uint32_t b = 0; b < 0x7f80; ++b) {  // every finite non-negative bfloat16
    for (std::uint32_t sign : {0u, 0x8000u}) {
      const Bf16 value = static_cast<Bf16>(b | sign), up = static_cast<Bf16>((b + 1) | sign);
      const float f = bf16_to_f32_ref(value);
      failures += f32_to_bf16_ref(f) != value;
      if (b + 1 < 0x7f80) {
        const float next = bf16_to_f32_ref(up);
        const float m = static_cast<float>((static_cast<double>(f) + next) / 2);  // exact in float32
        failures += f32_to_bf16_ref(m) != ((b & 1) ? up : value);
        failures += f32_to_bf16_ref(std::nextafter(m, f)) != value;
        failures += f32_to_bf16_ref(std::nextafter(m, next)) != up;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_EQ(raw(f32_to_bf16_ref(0x1.fep127f)), 0x7f7f);
  EXPECT_EQ(raw(f32_to_bf16_ref(0x1.fefffep127f)), 0x7f7f);  // just below the midpoint to 2^128
  EXPECT_EQ(raw(f32_to_bf16_ref(0x1.ffp127f)), 0x7f80);      // the midpoint rounds to even: inf
  EXPECT_EQ(raw(f32_to_bf16_ref(-3.4e38f)), 0xff80);
  EXPECT_EQ(raw(f32_to_bf16_ref(INFINITY)), 0x7f80);
  EXPECT_EQ(raw(f32_to_bf16_ref(std::ldexp(1.0f, -130))), 0x0008);  // a float32 subnormal, kept
  EXPECT_EQ(raw(f32_to_bf16_ref(std::ldexp(1.0f, -140))), 0x0000);  // below the smallest bfloat16
  const Bf16 nan = f32_to_bf16_ref(NAN), signalling = f32_to_bf16_ref(bits_float(0x7f800001u));
  EXPECT_TRUE(std::isnan(bf16_to_f32_ref(nan)));
  EXPECT_TRUE(std::isnan(bf16_to_f32_ref(signalling)));  // a payload in the low bits only stays a NaN
}

}  // namespace
}  // namespace attn::kernels

// IEEE half conversions (src/kernels/half.h, f32x4.h's load_f16).
//
// Tolerance zero throughout: every half is exactly a float32, so the reference and the f32x4
// conversion must agree bit for bit on all 65,536 of them (NaNs with their payload), and
// float32 → half must be round-to-nearest-even, which the tests check against the definition:
// every half comes back unchanged, values between two neighbours go to the nearer, the exact
// midpoint to the one with an even mantissa, and the range's ends (65504, 65520, 2^−24, 2^−25)
// land where IEEE 754 puts them.
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

}  // namespace
}  // namespace attn::kernels

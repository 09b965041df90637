// Runs of halves to float32 (half.h): the reference, one value at a time, and f32x4's
// simd::load_f16 four at a time. Legend: n values.
#include "kernels/half.h"

#include "kernels/f32x4.h"

namespace attn::kernels {

void f16_to_f32_ref(float* out, const std::uint16_t* in, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = f16_to_f32_ref(in[i]);
}

void f16_to_f32_simd(float* out, const std::uint16_t* in, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) simd::store(out + i, simd::load_f16(in + i));
  for (; i < n; ++i) out[i] = f16_to_f32_ref(in[i]);
}

}  // namespace attn::kernels

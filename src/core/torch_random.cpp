// PyTorch 1.13.1's CPU random numbers (Debian's build, x86-64, AVX2 dispatch, no MKL).
// Where torch's arithmetic depends on how it was compiled, this file says what that build does;
// every such claim was checked against the build's output (tests/fixtures/make_torch_random.py)
// and, for the vectorised normal fill, against its machine code.
//
// Floating point here must not be contracted behind our back: a fused multiply-add is written
// as std::fma where torch's build fuses, and a plain a * b + c where it does not. CMakeLists.txt
// compiles this file with -ffp-contract=off for that reason.
#include "core/torch_random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "core/detail/internal.h"

namespace attn {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(message); }

std::string str(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// Element count of a shape torch accepts: every dimension ≥ 0 (0 gives an empty tensor), at most
// kMaxElements in all. Checked before anything is allocated or drawn.
long long checked_numel(const std::vector<int>& shape, const char* argument) {
  long long n = 1;
  for (int dim : shape) {
    if (dim < 0) {
      fail(std::string(argument) + ": every dimension must be ≥ 0 (torch refuses negative sizes), got shape " +
           shape_string(shape));
    }
  }
  for (int dim : shape) {
    if (dim == 0) return 0;
  }
  for (int dim : shape) {
    n *= dim;
    if (n > TorchGenerator::kMaxElements) {
      fail(std::string(argument) + ": shape " + shape_string(shape) + " has more than " +
           std::to_string(TorchGenerator::kMaxElements) + " elements (the limit per call)");
    }
  }
  return n;
}

void check_size(int value, const char* argument) {
  if (value < 0) fail(std::string(argument) + ": expected a size ≥ 0, got " + std::to_string(value));
}

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// transformation::uniform_real<float>: the low 24 bits of one word, scaled to [0, 1).
float unit_float(std::uint32_t word) { return static_cast<float>(word & 0xFFFFFFu) * (1.0f / 16777216.0f); }
// transformation::uniform_real<double>: the low 53 bits of one random64(), scaled to [0, 1).
double unit_double(std::uint64_t word) {
  return static_cast<double>(word & ((std::uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// ---------------------------------------------------------------------------------------------
// The n ≥ 16 normal fill: torch's normal_fill_16_AVX2 on one lane. log256_ps and sincos256_ps
// are Julien Pommier's cephes-style float approximations (avx_mathfun.h); the fused multiply-adds
// are the ones GCC emitted for Debian's build (its -mfma AVX2 kernels contract a*b + c; read off
// the disassembly of libtorch_cpu.so 1.13.1 and confirmed on 3·10^6 samples).

// log(x) for x in [2^−24, 1] (x = 1 − u with u a uniform float: never 0, never denormal, so the
// kernel's clamps and NaN mask change nothing and are left out).
float avx2_log(float x) {
  // Split x = m · 2^e with m in [0.5, 1).
  const std::uint32_t bits = float_bits(x);
  float e = static_cast<float>(static_cast<std::int32_t>(bits >> 23) - 0x7f) + 1.0f;
  float m = bits_float((bits & ~0x7f800000u) | 0x3f000000u);
  // m < √½: use 2m − 1 and e − 1, else m − 1 (written as the kernel writes it: (m − 1) + (m or 0)).
  const bool small = m < 0.707106781186547524f;
  const float keep = small ? m : 0.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = keep + (m + -1.0f);
  const float z = m * m;
  float y = 7.0376836292E-2f;
  y = std::fma(y, m, -1.1514610310E-1f);
  y = std::fma(y, m, 1.1676998740E-1f);
  y = std::fma(y, m, -1.2420140846E-1f);
  y = std::fma(y, m, 1.4249322787E-1f);
  y = std::fma(y, m, -1.6668057665E-1f);
  y = std::fma(y, m, 2.0000714765E-1f);
  y = std::fma(y, m, -2.4999993993E-1f);
  y = std::fma(y, m, 3.3333331174E-1f);
  y = m * y;
  y = std::fma(y, z, e * -2.12194440e-4f);
  y = std::fma(-z, 0.5f, y);
  return std::fma(e, 0.693359375f, m + y);
}

// sin and cos of x in [0, 2π) at once.
void avx2_sincos(float x, float* sin_out, float* cos_out) {
  std::uint32_t sign_sin = float_bits(x) & 0x80000000u;
  x = bits_float(float_bits(x) & 0x7fffffffu);
  // Octant j (rounded up to even) and the reduced argument x − j·π/4 in three pieces.
  std::int32_t j = static_cast<std::int32_t>(x * 1.27323954473516f);  // truncation, as cvttps2dq
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  sign_sin ^= static_cast<std::uint32_t>(j & 4) << 29;
  const std::uint32_t sign_cos = static_cast<std::uint32_t>(~(j - 2) & 4) << 29;
  const bool cos_poly_is_sin = (j & 2) == 0;  // octants where sin uses the sine polynomial
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const float z = x * x;
  // Cosine polynomial.
  float c = 2.443315711809948E-005f;
  c = std::fma(z, c, -1.388731625493765E-003f);
  c = std::fma(z, c, 4.166664568298827E-002f);
  c = z * c;
  c = std::fma(c, z, -(z * 0.5f));
  c = c + 1.0f;
  // Sine polynomial.
  float s = std::fma(-1.9515295891E-4f, z, 8.3321608736E-3f);
  s = std::fma(z, s, -1.6666654611E-1f);
  s = z * s;
  s = std::fma(s, x, x);
  // The kernel selects with masks and adds the other polynomial's +0; written the same way so
  // that signed zeros come out as they do there.
  const float sin_from_s = cos_poly_is_sin ? s : 0.0f;
  const float sin_from_c = cos_poly_is_sin ? 0.0f : c;
  const float sin_v = sin_from_c + sin_from_s;
  const float cos_v = (s - sin_from_s) + (c - sin_from_c);
  *sin_out = bits_float(float_bits(sin_v) ^ sign_sin);
  *cos_out = bits_float(float_bits(cos_v) ^ sign_cos);
}

// 16 uniforms in place → 16 normals: lane j pairs data[j] (radius) with data[j + 8] (angle).
void normal_fill_16(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0f * 3.14159265358979323846);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(avx2_log(u1) * -2.0f);
    const float theta = two_pi * u2;
    float sin_t, cos_t;
    avx2_sincos(theta, &sin_t, &cos_t);
    data[j] = std::fma(radius * cos_t, std, mean);
    data[j + 8] = std::fma(radius * sin_t, std, mean);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void TorchGenerator::manual_seed(std::uint64_t seed) {
  seed_ = seed;
  engine_.seed(static_cast<std::uint32_t>(seed & 0xFFFFFFFFu));
  has_cached_normal_ = false;
  cached_normal_ = 0.0;
}

std::uint64_t TorchGenerator::seed_from_number(double seed) {
  constexpr double kMax = 9007199254740992.0;  // 2^53: every integer up to here is exact
  if (!std::isfinite(seed) || std::floor(seed) != seed || seed < -kMax || seed > kMax) {
    fail("seed: expected an integer in [-2^53, 2^53], got " + str(seed));
  }
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(seed));
}

std::uint64_t TorchGenerator::random64() {
  const std::uint64_t hi = random();
  const std::uint64_t lo = random();
  return (hi << 32) | lo;
}

Tensor TorchGenerator::rand(const std::vector<int>& shape) {
  Tensor out;
  out.shape = shape;
  out.data.resize(static_cast<size_t>(checked_numel(shape, "shape")));
  uniform_(out, 0.0, 1.0);
  return out;
}

Tensor TorchGenerator::randn(const std::vector<int>& shape) {
  Tensor out;
  out.shape = shape;
  out.data.resize(static_cast<size_t>(checked_numel(shape, "shape")));
  normal_(out, 0.0, 1.0);
  return out;
}

IntTensor TorchGenerator::randint(std::int64_t low, std::int64_t high, const std::vector<int>& shape) {
  if (!(low < high)) {
    fail("high: expected low < high (randint draws from [low, high)), got low=" + std::to_string(low) +
         ", high=" + std::to_string(high));
  }
  IntTensor out;
  out.shape = shape;
  const long long n = checked_numel(shape, "shape");
  out.data.resize(static_cast<size_t>(n));
  // uniform_int_from_to_distribution<int64_t>: (word mod range) + low in uint64, then int64.
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const bool wide = range >= (std::uint64_t{1} << 32);
  for (auto& v : out.data) {
    const std::uint64_t word = wide ? random64() : random();
    v = static_cast<std::int64_t>(word % range + static_cast<std::uint64_t>(low));
  }
  return out;
}

void TorchGenerator::uniform_(Tensor& tensor, double from, double to) {
  const long long n = checked_numel(tensor.shape, "tensor");
  if (static_cast<long long>(tensor.data.size()) != n) {
    fail("tensor: data holds " + std::to_string(tensor.data.size()) + " values for shape " +
         shape_string(tensor.shape) + " (" + std::to_string(n) + " elements)");
  }
  if (!std::isfinite(from) || !std::isfinite(to) || !(from <= to)) {
    fail("to: uniform_ expects finite from ≤ to, got from=" + str(from) + ", to=" + str(to));
  }
  const float lo = static_cast<float>(from), hi = static_cast<float>(to);
  const float width = hi - lo;
  if (!std::isfinite(lo) || !std::isfinite(width)) {
    fail("to: uniform_ expects to − from within float range, got from=" + str(from) + ", to=" + str(to));
  }
  for (float& v : tensor.data) v = std::fma(unit_float(random()), width, lo);
}

double TorchGenerator::normal_double(double mean, double std) {
  double sample;
  if (has_cached_normal_) {
    has_cached_normal_ = false;
    sample = cached_normal_;
  } else {
    // u1 sets the angle, u2 the radius; torch 1.13 takes log(1 − u2) (later versions log1p(−u2)).
    const double u1 = unit_double(random64());
    const double u2 = unit_double(random64());
    const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double theta = 2.0 * 3.14159265358979323846 * u1;
    cached_normal_ = radius * std::sin(theta);
    has_cached_normal_ = true;
    sample = radius * std::cos(theta);
  }
  return std::fma(sample, std, mean);
}

void TorchGenerator::normal_(Tensor& tensor, double mean, double std) {
  const long long n = checked_numel(tensor.shape, "tensor");
  if (static_cast<long long>(tensor.data.size()) != n) {
    fail("tensor: data holds " + std::to_string(tensor.data.size()) + " values for shape " +
         shape_string(tensor.shape) + " (" + std::to_string(n) + " elements)");
  }
  if (!std::isfinite(mean)) fail("mean: expected a finite number, got " + str(mean));
  if (!std::isfinite(std) || !(std >= 0.0)) fail("std: normal_ expects a finite std ≥ 0, got " + str(std));
  float* data = tensor.data.data();
  if (n < 16) {
    for (long long i = 0; i < n; ++i) data[i] = static_cast<float>(normal_double(mean, std));
    return;
  }
  const float mean_f = static_cast<float>(mean), std_f = static_cast<float>(std);
  for (long long i = 0; i < n; ++i) data[i] = unit_float(random());
  for (long long i = 0; i + 16 <= n; i += 16) normal_fill_16(data + i, mean_f, std_f);
  if (n % 16 != 0) {
    float* tail = data + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = unit_float(random());
    normal_fill_16(tail, mean_f, std_f);
  }
}

LinearParams TorchGenerator::linear_init(int in_features, int out_features, bool bias) {
  check_size(in_features, "in_features");
  check_size(out_features, "out_features");
  LinearParams out;
  out.has_bias = bias;
  out.weight.shape = {out_features, in_features};
  const long long weights = checked_numel(out.weight.shape, "in_features × out_features");
  // The bias has its own limit: with in_features = 0 the weight is empty whatever out_features is.
  const long long biases = bias ? checked_numel({out_features}, "out_features") : 0;
  out.weight.data.resize(static_cast<size_t>(weights));
  if (bias) {
    out.bias.shape = {out_features};
    out.bias.data.resize(static_cast<size_t>(biases));
  }
  // Python doubles, as torch/nn/init.py computes them (a ** 2 is math.pow(a, 2) = a · a here).
  if (in_features > 0 && out_features > 0) {
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in_features)));
    uniform_(out.weight, -bound, bound);
  }
  if (bias) {
    if (in_features > 0) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
      uniform_(out.bias, -bound, bound);
    } else {
      uniform_(out.bias, 0.0, 0.0);  // Python's bound is the integer 0 here: zeros, still drawn
    }
  }
  return out;
}

Tensor TorchGenerator::embedding_init(int num_embeddings, int embedding_dim) {
  check_size(num_embeddings, "num_embeddings");
  check_size(embedding_dim, "embedding_dim");
  Tensor out;
  out.shape = {num_embeddings, embedding_dim};
  out.data.resize(static_cast<size_t>(checked_numel(out.shape, "num_embeddings × embedding_dim")));
  normal_(out, 0.0, 1.0);
  return out;
}

Tensor TorchGenerator::bernoulli(double p, const std::vector<int>& shape) {
  if (!(p >= 0.0 && p <= 1.0)) fail("p: expected a probability in [0, 1], got " + str(p));
  Tensor out;
  out.shape = shape;
  out.data.resize(static_cast<size_t>(checked_numel(shape, "shape")));
  for (float& v : out.data) v = unit_double(random64()) < p ? 1.0f : 0.0f;
  return out;
}

DropoutDraw TorchGenerator::dropout(const TensorView& input, double p, bool training) {
  if (!(p >= 0.0 && p <= 1.0)) fail("p: dropout probability has to be in [0, 1], got " + str(p));
  const long long n = checked_numel(input.shape, "input");
  if (n > 0 && input.data == nullptr) fail("input: shape " + shape_string(input.shape) + " given without data");
  for (long long i = 0; i < n; ++i) {
    if (!std::isfinite(input.data[i])) {
      fail("input: every value must be finite, got " + str(input.data[i]) + " at flat index " + std::to_string(i));
    }
  }
  DropoutDraw out;
  out.output.shape = input.shape;
  out.output.data.assign(input.data, input.data + n);
  out.keep.assign(static_cast<size_t>(n), 1);
  if (!training || p == 0.0 || n == 0) return out;
  if (p == 1.0) {  // torch multiplies by a zero scalar and draws nothing
    out.scale = 0.0f;
    for (float& v : out.output.data) v = v * 0.0f;
    std::fill(out.keep.begin(), out.keep.end(), 0);
    return out;
  }
  const double keep_p = 1.0 - p;
  out.scale = 1.0f / static_cast<float>(keep_p);
  for (long long i = 0; i < n; ++i) {
    const bool kept = unit_double(random64()) < keep_p;
    out.keep[static_cast<size_t>(i)] = kept ? 1 : 0;
    out.output.data[static_cast<size_t>(i)] = input.data[i] * (kept ? out.scale : 0.0f);
  }
  return out;
}

}  // namespace attn

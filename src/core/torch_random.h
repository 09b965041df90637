// PyTorch's CPU random numbers, bit for bit: what torch.manual_seed, torch.rand, torch.randn,
// torch.randint, Tensor.uniform_/normal_/bernoulli_, nn.Linear and nn.Embedding initialisation
// and F.dropout in training draw, so the page can start from exactly the tensors a notebook printed.
//
// The reference is Debian's python3-torch 1.13.1 on x86-64 (no MKL; the AVX2 kernels this build
// dispatches to on any AVX2 machine, AVX-512 ones included). tests/fixtures/make_torch_random.py
// records its draws and tests/cpp/core/torch_random_test.cpp compares every bit, natively and in WASM.
// On a CPU without AVX2 (or with ATEN_CPU_CAPABILITY=default) torch runs its scalar kernels
// instead: randn/normal_ of 16 or more elements and uniform_(a, b) (so nn.Linear's initialisation)
// then differ from these in low bits; rand, randint, bernoulli and randn below 16 elements do not.
//
// The stream (aten/src/ATen/CPUGeneratorImpl.cpp, core/MT19937RNGEngine.h):
//   - one mt19937 seeded with the low 32 bits of the seed (std::mt19937 produces the same words);
//   - random() is one 32-bit word, random64() is two: (first << 32) | second;
//   - a cached second Box–Muller sample (double) that manual_seed clears; only the small normal
//     path below reads or writes it.
// Successive calls continue the same stream, as successive cells of a notebook do.
//
// Shapes are row-major std::vector<int>; {} is a 0-dim tensor of one element, a zero dimension
// gives an empty tensor that draws nothing (as torch does). Every function throws attn::Error
// naming the argument and the expected range. No function draws anything before its checks pass.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/attention.h"

namespace attn {

// int64 results (torch.randint's default dtype).
struct IntTensor {
  std::vector<int> shape;
  std::vector<std::int64_t> data;
};

// nn.Linear(in, out, bias) parameters in torch's layout: weight (out, in) applied as x·Wᵀ.
// bias is (out), or shape {} with no data when bias = false.
struct LinearParams {
  Tensor weight;
  Tensor bias;
  bool has_bias = false;
};

// F.dropout(input, p, training) and the mask behind it.
struct DropoutDraw {
  // 1 = kept, 0 = zeroed; same shape as the input. For (B, H, T, T) attention weights this is
  // Options::dropout_keep, so attend() reproduces torch's dropped weights.
  std::vector<std::uint8_t> keep;
  Tensor output;       // input · keep · scale, computed as torch does (kept × 1/(1−p))
  float scale = 1.0f;  // 1.0f / float(1 − p): torch divides the 0/1 noise by (1 − p) in float
};

class TorchGenerator {
 public:
  // At most this many elements per call, like every input of the core.
  static constexpr long long kMaxElements = Limits::kMaxInputElements;

  explicit TorchGenerator(std::uint64_t seed) { manual_seed(seed); }

  // torch.manual_seed(seed): reseeds the stream and forgets the cached normal sample.
  // Only the low 32 bits reach mt19937, so 2^32 + 5 draws what 5 draws.
  void manual_seed(std::uint64_t seed);
  // torch.initial_seed(): the seed as given (all 64 bits).
  std::uint64_t initial_seed() const { return seed_; }
  // A JS number as torch.manual_seed takes a Python int: an integer in [−2^53, 2^53]; negative
  // seeds wrap to 2^64 + seed as torch does. Throws attn::Error naming `seed` otherwise.
  static std::uint64_t seed_from_number(double seed);

  // torch.rand(shape): uniform [0, 1) float32. Draws one 32-bit word per element, in order.
  Tensor rand(const std::vector<int>& shape);
  // torch.randn(shape): standard normal float32 (normal_(0, 1), see normal_ for the two paths).
  Tensor randn(const std::vector<int>& shape);
  // torch.randint(low, high, shape): int64 in [low, high). Draws per element, in order, one
  // 32-bit word when high − low < 2^32, else one random64(); value = low + word mod (high − low).
  IntTensor randint(std::int64_t low, std::int64_t high, const std::vector<int>& shape);

  // Tensor.uniform_(from, to) on a float32 tensor (its shape is kept, its data overwritten).
  // One 32-bit word per element, in order: x = (word & 0xFFFFFF) · 2^−24, value = fma(x, to − from,
  // from) in float with from, to rounded to float first (the AVX2 build fuses the multiply-add).
  void uniform_(Tensor& tensor, double from, double to);
  // Tensor.normal_(mean, std) on a float32 tensor. Two paths, as torch's normal_kernel:
  //   n ≥ 16 elements (contiguous): n uniform floats are drawn into the tensor, each block of 16
  //     becomes 16 normals by an 8-lane Box–Muller (AVX2 log/sincos approximations); when 16 does
  //     not divide n, 16 more uniforms are drawn into the last 16 places and that block is
  //     transformed again (so n + 16 words in all). The normal cache is neither read nor written.
  //   n < 16: per element, a double Box–Muller pair from two random64() draws (u1 for the angle,
  //     u2 for the radius); the cosine sample is used and the sine sample cached for the next
  //     element (or the next call); value = float(fma(sample, std, mean)).
  void normal_(Tensor& tensor, double mean, double std);

  // nn.Linear(in_features, out_features, bias)'s reset_parameters: kaiming_uniform_(weight,
  // a = √5) = uniform_(−b, b) with b = √3 · √(2 / (1 + a²)) / √in over the (out, in) weight in
  // row-major order, then (if bias) uniform_(−1/√in, 1/√in) over the bias. in = 0 draws no weight
  // (torch warns and skips) and a bias of zeros that still consumes out words.
  LinearParams linear_init(int in_features, int out_features, bool bias);
  // nn.Embedding(num_embeddings, dim)'s reset_parameters: normal_(0, 1) over the (n, dim) weight.
  Tensor embedding_init(int num_embeddings, int embedding_dim);

  // torch.empty(shape).bernoulli_(p): 1.0f with probability p, else 0.0f. Per element, in order,
  // one random64(): u = (word & (2^53 − 1)) · 2^−53 in double, value = u < p. This is the
  // non-MKL path this build takes (torch.backends.mkl.is_available() is False); an MKL build on
  // an Intel CPU instead draws one 32-bit word as the seed of an MKL MCG31 stream and uses
  // viRngBernoulli, so its mask differs from this one (and it draws one word, not 2n).
  Tensor bernoulli(double p, const std::vector<int>& shape);
  // F.dropout(input, p, training) as torch 1.13 computes it on CPU (_dropout_impl): when
  // training and 0 < p < 1 and the input is not empty, keep = bernoulli(1 − p) over the input's
  // shape, output = input · (keep ? 1.0f / float(1 − p) : 0). p = 0 or not training returns the
  // input unchanged and p = 1 returns input · 0; neither draws anything.
  DropoutDraw dropout(const TensorView& input, double p, bool training = true);

  // The raw stream (CPUGeneratorImpl::random, random64), for tests and callers that need it.
  std::uint32_t random() { return static_cast<std::uint32_t>(engine_()); }
  std::uint64_t random64();

 private:
  double normal_double(double mean, double std);  // the n < 16 path, one element

  std::mt19937 engine_;
  std::uint64_t seed_ = 0;
  bool has_cached_normal_ = false;
  double cached_normal_ = 0.0;
};

}  // namespace attn

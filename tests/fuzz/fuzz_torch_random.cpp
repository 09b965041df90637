// libFuzzer target: attn::TorchGenerator (PyTorch's CPU generator, src/core/torch_random.h) under
// arbitrary call sequences and arguments, directly and through the ABI engine.torchGenerator()
// uses (generator_create, draw, generator_delete).
//
// Input (FuzzedDataProvider): a seed (a double, as JS passes it), then up to 24 calls, each an
// operation (rand, randn, randint, normal_, uniform_, bernoulli, linear_init, embedding_init,
// dropout, a raw skip, manual_seed) with a shape (0–4 dims: small mostly, sometimes 0, negative,
// INT_MAX or past the 2^24-element limit) and scalar arguments from edge palettes (NaN, ±inf,
// ±2^53, 0, 1, values just outside [0, 1]).
//
// What counts as a finding (the harness aborts, libFuzzer saves the input):
//   - any exception other than attn::Error, or one whose message does not name an argument;
//     ASan/UBSan reports; allocations beyond -malloc_limit_mb (limits before allocating);
//   - a refused call that drew anything: the stream after it must be the stream before it;
//   - an accepted call whose values are not the spec's from the words it drew (read from a copy
//     of the generator): rand (w & 2^24−1)·2^−24; randint low + w mod (high − low), one word or
//     random64() by range; bernoulli ((w64 & 2^53−1)·2^−53 < p); uniform_ fma(x, to − from, from);
//     dropout's keep and output; linear_init and embedding_init shapes; values in their ranges
//     (normal values finite for finite moderate arguments);
//   - an accepted call that drew another number of words than torch does (rand n, randint n or
//     2n, bernoulli 2n, uniform_ n, normal_ ≥ 16 elements n + 16·[n mod 16 ≠ 0], linear_init
//     in·out + out, dropout 2n when 0 < p < 1 and training, else none);
//   - the ABI disagreeing with the direct calls: an accepted draw gives the same values bit for
//     bit; it may refuse more (its integer bounds of ±2^24 and counts ≤ 2^24) but not less.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "../cpp/bindings/abi_client.h"
#include "bindings/abi.h"
#include "core/attention.h"
#include "core/messages.h"
#include "core/torch_random.h"
#include "fuzz_common.h"

namespace {

using attn::Error;
using attn::TorchGenerator;
using attn_fuzz::finding;

bool names_argument(const std::string& message) {
  return attn_fuzz::names_argument(message, {"seed",
                                             "shape",
                                             "high",
                                             "low",
                                             "tensor",
                                             "to",
                                             "from",
                                             "mean",
                                             "std",
                                             "in_features",
                                             "out_features",
                                             "in_features × out_features",
                                             "num_embeddings",
                                             "embedding_dim",
                                             "num_embeddings × embedding_dim",
                                             "p",
                                             "input",
                                             "inFeatures",
                                             "outFeatures",
                                             "count",
                                             "dim",
                                             "words",
                                             "draw"});
}

template <class Body>
std::string attempt(const char* where, Body body) {
  return attn_fuzz::attempt(
      where, [](const std::string& m) { return names_argument(m); }, body);
}

constexpr double kScalars[] = {0.0,
                               -0.0,
                               1.0,
                               -1.0,
                               0.5,
                               0.1,
                               0.9,
                               2.0,
                               -2.0,
                               1e-300,
                               3.0,
                               16.0,
                               64.0,
                               1e6,
                               1.5e7,
                               16777216.0,
                               16777217.0,
                               -16777216.0,
                               4294967296.0,
                               9007199254740992.0,
                               -9007199254740992.0,
                               9007199254740994.0,
                               1e300,
                               3.5e38,
                               -3.5e38,
                               1.0000001,
                               -1e-300};

double consume_scalar(FuzzedDataProvider& fdp) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  if (b < 200) return kScalars[b % (sizeof kScalars / sizeof kScalars[0])];
  if (b < 210) return std::numeric_limits<double>::quiet_NaN();
  if (b < 220) return b & 1 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  if (b < 240) return static_cast<double>(fdp.ConsumeIntegralInRange<int>(-40, 40));
  const uint64_t bits = fdp.ConsumeIntegral<uint64_t>();
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

int consume_dim(FuzzedDataProvider& fdp) {
  static constexpr int kDims[] = {0, -1, INT_MIN, INT_MAX, 16, 17, 4096, 4097, 1 << 24, (1 << 24) + 1, 65536};
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  return b < 230 ? b % 20 : kDims[b % (sizeof kDims / sizeof kDims[0])];
}

std::vector<int> consume_shape(FuzzedDataProvider& fdp) {
  std::vector<int> shape(fdp.ConsumeIntegralInRange<int>(0, 4));
  for (int& d : shape) d = consume_dim(fdp);
  return shape;
}

// A count as the direct API takes it (an int): the double truncated and clamped, NaN as −1.
int as_int(double v) { return std::isnan(v) ? -1 : static_cast<int>(std::clamp(v, -1e9, 1e9)); }

// Elements of a shape, or −1 when a dimension is negative; capped above 2^40.
long long numel(const std::vector<int>& shape) {
  long long n = 1;
  for (int d : shape)
    if (d < 0) return -1;
  for (int d : shape) {
    if (d == 0) return 0;
    n = n > (1LL << 40) / d ? 1LL << 40 : n * d;
  }
  return n;
}

// The next words of a copy of g (the spec's input).
std::vector<uint32_t> words(const TorchGenerator& g, long long n) {
  TorchGenerator copy = g;
  std::vector<uint32_t> out(static_cast<size_t>(n));
  for (auto& w : out) w = copy.random();
  return out;
}

// Same stream from here on: the next words and a normal sample (which reads the cached one).
bool same_state(const TorchGenerator& a, const TorchGenerator& b) {
  TorchGenerator x = a, y = b;
  attn::Tensor tx, ty;
  tx.shape = ty.shape = {1};
  tx.data.assign(1, 0.0f), ty.data.assign(1, 0.0f);
  x.normal_(tx, 0.0, 1.0), y.normal_(ty, 0.0, 1.0);
  for (int i = 0; i < 4; ++i)
    if (x.random() != y.random()) return false;
  return std::memcmp(tx.data.data(), ty.data.data(), 4) == 0;
}

// Skips n words on a copy: the state torch is in after a call that drew n words.
TorchGenerator after_words(const TorchGenerator& g, long long n) {
  TorchGenerator copy = g;
  for (long long i = 0; i < n; ++i) copy.random();
  return copy;
}

bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

enum Op { kRand, kRandn, kRandint, kNormal, kUniform, kBernoulli, kLinear, kEmbedding, kDropout, kSkip, kSeed };

struct Call {
  Op op;
  std::vector<int> shape;
  double a = 0, b = 0;
  bool flag = false;
  std::vector<float> input;  // dropout's
};

std::string describe(const Call& c) {
  static const char* const kNames[] = {"rand",        "randn",          "randint", "normal_", "uniform_",   "bernoulli",
                                       "linear_init", "embedding_init", "dropout", "skip",    "manual_seed"};
  std::string s = std::string(kNames[c.op]) + " shape " + attn::shape_string(c.shape) + " a " + std::to_string(c.a) +
                  " b " + std::to_string(c.b) + (c.flag ? " flag" : "");
  return s;
}

// What a direct call gave: values (floats; randint's as their exact float when |v| < 2^24),
// bias, keep.
struct Drawn {
  std::string error;
  std::vector<float> values, bias, keep;
  bool skipped = false;  // not made through the ABI: engine.js refuses its arguments first
};

// The ABI's argument checks that the direct API does not make (integer bounds and counts for
// float32 results); the ABI may refuse these where the direct call accepts.
bool abi_only_refusal(const std::string& message) {
  for (const char* name : {"low:", "high:", "inFeatures:", "outFeatures:", "count:", "dim:", "words:"})
    if (message.rfind(name, 0) == 0) return true;
  return message.rfind("shape: more than 2^24", 0) == 0;
}

Drawn direct(TorchGenerator& g, const Call& c) {
  Drawn d;
  const TorchGenerator before = g;
  long long drawn = -1;  // words drawn, where the spec fixes the count
  d.error = attempt("direct", [&] {
    switch (c.op) {
      case kRand: {
        const attn::Tensor t = g.rand(c.shape);
        const long long n = static_cast<long long>(t.data.size());
        const std::vector<uint32_t> w = words(before, n);
        for (long long i = 0; i < n; ++i) {
          const float want = static_cast<float>(w[i] & 0xFFFFFFu) * (1.0f / 16777216.0f);
          if (std::memcmp(&want, &t.data[i], 4) != 0 || !(t.data[i] >= 0.0f && t.data[i] < 1.0f))
            finding("rand is not the spec's value", std::to_string(t.data[i]));
        }
        d.values = t.data, drawn = n;
        break;
      }
      case kRandn: {
        const attn::Tensor t = g.randn(c.shape);
        for (float v : t.data)
          if (!std::isfinite(v)) finding("randn gave a non-finite value", std::to_string(v));
        d.values = t.data;
        const long long n = static_cast<long long>(t.data.size());
        if (n >= 16) drawn = n + (n % 16 ? 16 : 0);
        break;
      }
      case kRandint: {
        // The direct API takes int64 bounds; a double outside int64 is the caller's to refuse.
        if (!(std::fabs(c.a) < 9.2e18 && std::fabs(c.b) < 9.2e18)) throw Error("low: not an int64 (not called)");
        const auto low = static_cast<std::int64_t>(c.a), high = static_cast<std::int64_t>(c.b);
        const attn::IntTensor t = g.randint(low, high, c.shape);
        const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
        const bool wide = range >= (std::uint64_t{1} << 32);
        const long long n = static_cast<long long>(t.data.size());
        TorchGenerator copy = before;
        for (long long i = 0; i < n; ++i) {
          const std::uint64_t w = wide ? copy.random64() : copy.random();
          const auto want = static_cast<std::int64_t>(w % range + static_cast<std::uint64_t>(low));
          if (t.data[i] != want || t.data[i] < low || t.data[i] >= high)
            finding("randint is not the spec's value", std::to_string(t.data[i]));
          d.values.push_back(static_cast<float>(t.data[i]));
        }
        drawn = wide ? 2 * n : n;
        break;
      }
      case kNormal:
      case kUniform: {
        attn::Tensor t;
        t.shape = c.shape;
        const long long n = numel(c.shape);
        // The tensor of the shape (an empty one for a bad shape, which must be refused).
        t.data.assign(n > 0 && n <= TorchGenerator::kMaxElements ? static_cast<size_t>(n) : n == 0 ? 0 : 1, 0.0f);
        if (c.op == kNormal) {
          g.normal_(t, c.a, c.b);
          const bool moderate = std::fabs(c.a) < 1e30 && std::fabs(c.b) < 1e30;
          for (float v : t.data)
            if (moderate && !std::isfinite(v))
              finding("normal_ gave a non-finite value for moderate arguments", std::to_string(v));
          if (n >= 16) drawn = n + (n % 16 ? 16 : 0);
        } else {
          g.uniform_(t, c.a, c.b);
          const float lo = static_cast<float>(c.a), hi = static_cast<float>(c.b);
          const std::vector<uint32_t> w = words(before, n);
          for (long long i = 0; i < n; ++i) {
            const float x = static_cast<float>(w[i] & 0xFFFFFFu) * (1.0f / 16777216.0f);
            const float want = std::fma(x, hi - lo, lo);
            if (std::memcmp(&want, &t.data[i], 4) != 0 || !(t.data[i] >= lo && t.data[i] <= hi))
              finding("uniform_ is not the spec's value", std::to_string(t.data[i]));
          }
          drawn = n;
        }
        d.values = t.data;
        break;
      }
      case kBernoulli: {
        const attn::Tensor t = g.bernoulli(c.a, c.shape);
        const long long n = static_cast<long long>(t.data.size());
        TorchGenerator copy = before;
        for (long long i = 0; i < n; ++i) {
          const double u =
              static_cast<double>(copy.random64() & ((std::uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
          if (t.data[i] != (u < c.a ? 1.0f : 0.0f))
            finding("bernoulli is not the spec's value", std::to_string(t.data[i]));
        }
        d.values = t.data, drawn = 2 * n;
        break;
      }
      case kLinear: {
        const int in = as_int(c.a), out = as_int(c.b);
        const attn::LinearParams p = g.linear_init(in, out, c.flag);
        if (p.weight.shape != std::vector<int>{out, in} || p.has_bias != c.flag ||
            (c.flag && (p.bias.shape != std::vector<int>{out} || p.bias.data.size() != static_cast<size_t>(out))))
          finding("linear_init's shapes", std::to_string(in) + " " + std::to_string(out));
        const double bound = in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0;
        for (float v : p.weight.data)
          if (!(std::fabs(v) <= bound * 1.0001)) finding("linear_init weight outside ±1/√in", std::to_string(v));
        for (float v : p.bias.data)
          if (!(std::fabs(v) <= bound * 1.0001)) finding("linear_init bias outside ±1/√in", std::to_string(v));
        d.values = p.weight.data, d.bias = p.bias.data;
        drawn = static_cast<long long>(in > 0 && out > 0 ? 1LL * in * out : 0) + (c.flag ? out : 0);
        break;
      }
      case kEmbedding: {
        const int n = as_int(c.a), dim = as_int(c.b);
        const attn::Tensor t = g.embedding_init(n, dim);
        if (t.shape != std::vector<int>{n, dim}) finding("embedding_init's shape", "");
        for (float v : t.data)
          if (!std::isfinite(v)) finding("embedding_init gave a non-finite value", std::to_string(v));
        d.values = t.data;
        break;
      }
      case kDropout: {
        attn::TensorView view{c.input.empty() ? nullptr : c.input.data(), c.shape};
        const attn::DropoutDraw out = g.dropout(view, c.a, true);
        const long long n = static_cast<long long>(out.keep.size());
        if (out.output.shape != c.shape || static_cast<long long>(out.output.data.size()) != n)
          finding("dropout's output shape", "");
        const bool draws = c.a > 0.0 && c.a < 1.0 && n > 0;
        for (long long i = 0; i < n; ++i) {
          if (out.keep[i] > 1) finding("dropout keep flag other than 0/1", std::to_string(out.keep[i]));
          const float want = !draws && c.a == 0.0 ? c.input[i] : c.input[i] * (out.keep[i] ? out.scale : 0.0f);
          if (std::memcmp(&want, &out.output.data[i], 4) != 0 && !(want == 0 && out.output.data[i] == 0))
            finding("dropout output is not input · keep · scale", std::to_string(out.output.data[i]));
        }
        d.values = out.output.data;
        d.keep.assign(out.keep.begin(), out.keep.end());
        drawn = draws ? 2 * n : 0;
        break;
      }
      case kSkip: {
        const long long n = static_cast<long long>(std::clamp(c.a, 0.0, 4096.0));
        for (long long i = 0; i < n; ++i) g.random();
        drawn = n;
        break;
      }
      case kSeed: g.manual_seed(TorchGenerator::seed_from_number(c.a)); break;
    }
  });
  if (!d.error.empty()) {
    if (!same_state(before, g)) finding("a refused call drew from the stream", d.error);
  } else if (drawn >= 0 && !same_state(after_words(before, drawn), g)) {
    finding("a call drew another number of words than torch does",
            std::to_string(c.op) + " drew ≠ " + std::to_string(drawn));
  }
  return d;
}

// The same call through the ABI (engine.js's draw), on the generator of `handle`.
Drawn through_abi(double handle, const Call& c) {
  static constexpr const char* kAbiOps[] = {"rand",      "randn",  "randint",   "normal",  "uniform",
                                            "bernoulli", "linear", "embedding", "dropout", "skip"};
  Drawn d;
  if (c.op == kSeed) return d;
  // NaN is "not given" through the ABI (the argument keeps its default): engine.js refuses a NaN
  // an operation uses before it calls, so such a call is not made here either.
  const bool uses_a = c.op != kRand && c.op != kRandn,
             uses_b = uses_a && c.op != kBernoulli && c.op != kDropout && c.op != kSkip;
  if ((uses_a && std::isnan(c.a)) || (uses_b && std::isnan(c.b))) {
    d.skipped = true;
    return d;
  }
  attn_test::AbiCall draw("draw");
  draw.set("generator", handle).choice("op", kAbiOps[c.op]).set("a", c.a).set("b", c.b).set("flag", c.flag ? 1 : 0);
  if (c.op == kDropout) draw.tensor("input", c.shape, c.input);
  const bool shaped =
      c.op == kRand || c.op == kRandn || c.op == kRandint || c.op == kNormal || c.op == kUniform || c.op == kBernoulli;
  if (shaped && !c.shape.empty())
    draw.shape("shape", c.shape);  // engine.js passes a shape only to the calls that take one
  const attn_test::Reply r = draw.run();
  if (r.failed) {
    d.error = r.error;
    if (!names_argument(d.error)) finding("an ABI error does not name its argument", d.error);
    return d;
  }
  for (const auto& [name, tensor] : r.tensors)
    (name == "values" ? d.values : name == "bias" ? d.bias : d.keep) = tensor.floats();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const double seed = fdp.ConsumeBool() ? consume_scalar(fdp) : fdp.ConsumeIntegral<uint32_t>();
  std::uint64_t seed_bits = 0;
  const std::string seed_error =
      attempt("seed_from_number", [&] { seed_bits = TorchGenerator::seed_from_number(seed); });
  if (std::isnan(seed)) {  // "not given" through the ABI; engine.js refuses it before
    if (seed_error.empty()) finding("seed_from_number took NaN", "");
    return 0;
  }
  const attn_test::Reply created = attn_test::AbiCall("generatorCreate").set("seed", seed).run();
  if (seed_error.empty() == created.failed) finding("generatorCreate and seed_from_number disagree", seed_error);
  if (created.failed) {
    if (created.error != seed_error) finding("generatorCreate's error differs", created.error);
    return 0;
  }
  double handle = created.report.at("generator");
  TorchGenerator g(seed_bits);
  if (g.initial_seed() != seed_bits) finding("initial_seed is not the seed", std::to_string(seed_bits));

  long long budget = 1 << 16;  // accepted calls draw at most this many elements per input, in all
  for (int step = 0; step < 24 && fdp.remaining_bytes() > 0; ++step) {
    Call c;
    c.op = static_cast<Op>(fdp.ConsumeIntegral<uint8_t>() % 11);
    c.shape = consume_shape(fdp);
    c.a = consume_scalar(fdp);
    c.b = consume_scalar(fdp);
    c.flag = fdp.ConsumeBool();
    if (c.op == kSkip) c.a = std::isfinite(c.a) ? std::clamp(std::floor(std::fabs(c.a)), 0.0, 4096.0) : 0.0;
    if (c.op == kDropout) {
      if (c.shape.empty() || numel(c.shape) > 4096)
        c.shape = {fdp.ConsumeIntegralInRange<int>(0, 64)};  // passed in full
      const long long m = std::max<long long>(numel(c.shape), 0);
      for (long long i = 0; i < m; ++i)
        c.input.push_back(fdp.ConsumeBool() ? static_cast<float>(fdp.ConsumeIntegralInRange<int>(-8, 8)) / 4.0f
                                            : static_cast<float>(consume_scalar(fdp)));
    }
    // Calls near the 2^24-element limit take seconds under ASan: accepted ones share a budget of
    // 2^16 elements (2^20 made the average input ~4 ms, a tenth of the executions a campaign
    // reaches); refused ones, past the limit, cost nothing and are all made. The limit's edge
    // itself is core/torch_random_test.cpp's.
    const long long in = as_int(c.a), out = as_int(c.b);
    const long long product = in > 0 && out > 0 ? std::min(in * out, 1LL << 40) : 0;
    const long long largest = c.op == kLinear      ? std::max(product, out)  // weight and bias, each within the limit
                              : c.op == kEmbedding ? product
                                                   : std::max(numel(c.shape), 0LL);
    const long long elements = c.op == kLinear ? product + std::max(out, 0LL) : largest;
    if (largest <= TorchGenerator::kMaxElements) {
      if (elements > budget) continue;
      budget -= elements;
    }
    const TorchGenerator before = g;
    const Drawn want = direct(g, c);
    if (c.op == kSeed) {  // engine.js has no manual_seed: a new generator of that seed
      if (want.error.empty()) {
        attn_test::AbiCall("generatorDelete").set("generator", handle).run();
        const attn_test::Reply again = attn_test::AbiCall("generatorCreate").set("seed", c.a).run();
        if (again.failed) finding("generatorCreate refused a seed manual_seed took", again.error);
        handle = again.failed ? 0 : again.report.at("generator");
      }
      continue;
    }
    // engine.js refuses an empty shape (a 0-dim tensor) before it reaches the ABI.
    const bool shaped = c.op == kRand || c.op == kRandn || c.op == kRandint || c.op == kNormal || c.op == kUniform ||
                        c.op == kBernoulli;
    if (shaped && c.shape.empty()) {
      g = before;
      continue;
    }
    const Drawn got = through_abi(handle, c);
    if (got.skipped) {
      g = before;
      continue;
    }
    if (!got.error.empty()) {
      if (!want.error.empty()) continue;
      if (!abi_only_refusal(got.error))
        finding("the ABI refused a draw the generator accepts", got.error + "; " + describe(c));
      g = before;  // the ABI drew nothing: keep the two streams together
      continue;
    }
    if (!want.error.empty()) finding("the ABI accepted a draw the generator refuses", want.error + "; " + describe(c));
    if (!same_floats(got.values, want.values) || !same_floats(got.bias, want.bias) || !same_floats(got.keep, want.keep))
      finding("the ABI's draw differs from the generator's", describe(c));
  }
  attn_test::AbiCall("generatorDelete").set("generator", handle).run();
  return 0;
}

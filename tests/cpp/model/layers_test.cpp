// The layers of src/model/layers.h: the fast linear path against the reference, every backward
// against central finite differences in double, every layer against PyTorch autograd, and a
// whole small network (embeddings → ln_f → tied lm_head → cross-entropy) against torch.
//
// Legend: N rows, I in features, O out features, C channels, B batch, T tokens, V vocabulary.
//
// Tolerances, and where they come from:
//   - linear _simd vs _ref (float32): the same sums in another order; each side is within
//     γ_{K+1}·(|initial| + Σ|terms|) of the exact value (γ_n = n·u/(1 − n·u), u = 2⁻²⁴), so they
//     differ by at most twice that, per element (kernels/train_kernels_test.cpp). The bias sums run the
//     same loop in both paths and must be equal.
//   - finite differences (double): central differences with h = 1e-6 have truncation error
//     h²/6·|f'''| ~ 1e-13 and rounding error ~ ε·|loss|/h ~ 1e-10 for our |loss| ≲ 100, so
//     |numeric − analytic| ≤ 1e-7 + 1e-6·|analytic| holds with a margin of 100×; a wrong term
//     gives relative errors of order 1.
//   - PyTorch (float32 both sides): sums of at most 67 products in different orders, and torch's
//     vectorised erf/exp (a few ulp) against std::erf/exp: γ_67 ≈ 4e-6 relative to the sum of
//     |terms| (≲ 10 here), so |ours − torch| ≤ 1e-5 + 1e-5·|torch|. layers_test prints the
//     largest error measured for each case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "model/layers.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;

constexpr double kU = 1.0 / (1 << 24);
double gamma(long long n) { return n * kU / (1.0 - n * kU); }
const int kSizes[] = {1, 3, 4, 5, 7, 16, 17, 67};

template <typename Real>
std::vector<Real> random_values(std::size_t n, std::mt19937& rng, double lo = -1.0, double hi = 1.0) {
  std::vector<Real> x(n);
  for (Real& v : x) v = static_cast<Real>(lo + (hi - lo) * (static_cast<double>(rng()) / 4294967296.0));
  return x;
}

// A copy of `values` that starts `offset` floats into its storage (a misaligned pointer).
struct Shifted {
  std::vector<float> storage;
  int offset;
  Shifted(const std::vector<float>& values, int off) : storage(values.size() + 4, 0.0f), offset(off) {
    std::copy(values.begin(), values.end(), storage.begin() + off);
  }
  float* data() { return storage.data() + offset; }
  float operator[](std::size_t i) const { return storage[offset + i]; }
};

// ---------------------------------------------------------------------------------------------
// Linear: _simd against _ref.

::testing::AssertionResult LinearPathsAgree(int N, int I, int O, int offset, bool bias) {
  std::mt19937 rng(static_cast<unsigned>(N * 1000 + I * 37 + O * 5 + offset));
  const auto x = random_values<float>(static_cast<std::size_t>(N) * I, rng);
  const auto w = random_values<float>(static_cast<std::size_t>(O) * I, rng);
  const auto b = random_values<float>(static_cast<std::size_t>(O), rng);
  const auto dy = random_values<float>(static_cast<std::size_t>(N) * O, rng);
  const auto dx0 = random_values<float>(static_cast<std::size_t>(N) * I, rng);  // accumulated into
  const auto dw0 = random_values<float>(static_cast<std::size_t>(O) * I, rng);
  const auto db0 = random_values<float>(static_cast<std::size_t>(O), rng);
  Shifted xs(x, offset), ws(w, (offset + 1) % 4), bs(b, (offset + 2) % 4), dys(dy, (offset + 3) % 4);
  Shifted yr(std::vector<float>(N * O), offset), ys(std::vector<float>(N * O), (offset + 1) % 4);
  Shifted dxr(dx0, offset), dxs(dx0, (offset + 2) % 4), dwr(dw0, offset), dws(dw0, (offset + 3) % 4);
  Shifted dbr(db0, offset), dbs(db0, (offset + 1) % 4);
  const float* bp = bias ? bs.data() : nullptr;
  linear_forward_ref<float>(yr.data(), xs.data(), ws.data(), bp, N, I, O);
  linear_forward_simd(ys.data(), xs.data(), ws.data(), bp, N, I, O);
  linear_backward_ref<float>(dxr.data(), dwr.data(), bias ? dbr.data() : nullptr, dys.data(), xs.data(), ws.data(), N,
                             I, O);
  linear_backward_simd(dxs.data(), dws.data(), bias ? dbs.data() : nullptr, dys.data(), xs.data(), ws.data(), N, I, O);
  auto fail = [&](const char* what, std::size_t i, double got, double want, double bound) {
    return ::testing::AssertionFailure() << what << " N=" << N << " I=" << I << " O=" << O << " offset " << offset
                                         << " element " << i << ": simd " << got << ", ref " << want << ", bound "
                                         << bound;
  };
  for (int n = 0; n < N; ++n) {
    for (int o = 0; o < O; ++o) {
      double s = bias ? std::fabs(b[o]) : 0.0;
      for (int i = 0; i < I; ++i) s += std::fabs(static_cast<double>(x[n * I + i]) * w[o * I + i]);
      const std::size_t k = static_cast<std::size_t>(n) * O + o;
      const double bound = 2 * gamma(I + 1) * s + 1e-30;
      if (!(std::fabs(ys[k] - yr[k]) <= bound)) return fail("y", k, ys[k], yr[k], bound);
    }
  }
  for (int n = 0; n < N; ++n) {
    for (int i = 0; i < I; ++i) {
      const std::size_t k = static_cast<std::size_t>(n) * I + i;
      double s = std::fabs(dx0[k]);
      for (int o = 0; o < O; ++o) s += std::fabs(static_cast<double>(dy[n * O + o]) * w[o * I + i]);
      const double bound = 2 * gamma(O + 1) * s + 1e-30;
      if (!(std::fabs(dxs[k] - dxr[k]) <= bound)) return fail("dx", k, dxs[k], dxr[k], bound);
    }
  }
  for (int o = 0; o < O; ++o) {
    for (int i = 0; i < I; ++i) {
      const std::size_t k = static_cast<std::size_t>(o) * I + i;
      double s = std::fabs(dw0[k]);
      for (int n = 0; n < N; ++n) s += std::fabs(static_cast<double>(dy[n * O + o]) * x[n * I + i]);
      const double bound = 2 * gamma(N + 1) * s + 1e-30;
      if (!(std::fabs(dws[k] - dwr[k]) <= bound)) return fail("dw", k, dws[k], dwr[k], bound);
    }
  }
  for (int o = 0; o < O; ++o)
    if (dbs[o] != dbr[o]) return fail("db", o, dbs[o], dbr[o], 0.0);
  return ::testing::AssertionSuccess();
}

TEST(LinearLayer, SimdMatchesRefOnAwkwardSizesAndMisalignedPointers) {
  int offset = 0;
  for (int N : kSizes)
    for (int I : kSizes)
      for (int O : kSizes) {
        EXPECT_TRUE(LinearPathsAgree(N, I, O, offset, (N + I + O) % 2 == 0));
        offset = (offset + 1) % 4;
      }
}

TEST(LinearLayer, BackwardAddsIntoGradientsAndSkipsNullOnes) {
  // Two backward calls give twice the gradient: a tied weight sums its uses.
  const int N = 3, I = 5, O = 4;
  std::mt19937 rng(1);
  const auto x = random_values<float>(N * I, rng), w = random_values<float>(O * I, rng);
  const auto dy = random_values<float>(N * O, rng);
  std::vector<float> dx1(N * I, 0.0f), dw1(O * I, 0.0f), db1(O, 0.0f);
  std::vector<float> dx2 = dx1, dw2 = dw1, db2 = db1;
  linear_backward_simd(dx1.data(), dw1.data(), db1.data(), dy.data(), x.data(), w.data(), N, I, O);
  linear_backward_simd(dx2.data(), dw2.data(), db2.data(), dy.data(), x.data(), w.data(), N, I, O);
  linear_backward_simd(dx2.data(), dw2.data(), db2.data(), dy.data(), x.data(), w.data(), N, I, O);
  // (The second call adds its products onto the first's sum, so the rounding differs: 1e-6.)
  for (int k = 0; k < N * I; ++k) EXPECT_NEAR(dx2[k], 2 * dx1[k], 1e-6);
  for (int k = 0; k < O * I; ++k) EXPECT_NEAR(dw2[k], 2 * dw1[k], 1e-6);
  for (int k = 0; k < O; ++k) EXPECT_NEAR(db2[k], 2 * db1[k], 1e-6);
  // Only dw wanted: dx and db are not touched (null), and dw is the same.
  std::vector<float> dw3(O * I, 0.0f);
  linear_backward_simd(nullptr, dw3.data(), nullptr, dy.data(), x.data(), w.data(), N, I, O);
  linear_backward_ref<float>(nullptr, nullptr, nullptr, dy.data(), x.data(), w.data(), N, I, O);
  EXPECT_EQ(dw3, dw1);
}

// ---------------------------------------------------------------------------------------------
// Finite differences in double.

struct FdStats {
  double worst = 0.0;  // largest |numeric − analytic| / (1e-7 + 1e-6·|analytic|) seen
  int checked = 0;
};

// Compares analytic[i] with the central difference of loss() in x[i], for every i.
::testing::AssertionResult MatchesFiniteDifferences(const char* what, std::vector<double>& x,
                                                    const std::vector<double>& analytic,
                                                    const std::function<double()>& loss, FdStats& stats) {
  const double h = 1e-6;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double saved = x[i];
    x[i] = saved + h;
    const double up = loss();
    x[i] = saved - h;
    const double down = loss();
    x[i] = saved;
    const double numeric = (up - down) / (2 * h);
    const double allowed = 1e-7 + 1e-6 * std::fabs(analytic[i]);
    const double err = std::fabs(numeric - analytic[i]);
    stats.worst = std::max(stats.worst, err / allowed);
    ++stats.checked;
    if (!(err <= allowed)) {
      return ::testing::AssertionFailure() << what << "[" << i << "]: analytic " << analytic[i] << ", numeric "
                                           << numeric << " (allowed " << allowed << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

void report(const char* op, const FdStats& s) {
  std::printf("  [finite differences] %-14s %5d derivatives, worst error %.3g of the allowed 1e-7 + 1e-6·|g|\n", op,
              s.checked, s.worst);
}

TEST(FiniteDifferences, LinearBackwardMatchesCentralDifferences) {
  std::mt19937 rng(11);
  FdStats stats;
  for (int trial = 0; trial < 6; ++trial) {
    const int N = 1 + rng() % 5, I = 1 + rng() % 7, O = 1 + rng() % 7;
    const bool bias = trial % 2 == 0;
    auto x = random_values<double>(N * I, rng), w = random_values<double>(O * I, rng);
    auto b = random_values<double>(O, rng);
    const auto G = random_values<double>(N * O, rng);
    auto loss = [&] {
      std::vector<double> y(N * O);
      linear_forward_ref<double>(y.data(), x.data(), w.data(), bias ? b.data() : nullptr, N, I, O);
      return dot(y, G);
    };
    std::vector<double> dx(N * I, 0.0), dw(O * I, 0.0), db(O, 0.0);
    linear_backward_ref<double>(dx.data(), dw.data(), bias ? db.data() : nullptr, G.data(), x.data(), w.data(), N, I,
                                O);
    EXPECT_TRUE(MatchesFiniteDifferences("dx", x, dx, loss, stats));
    EXPECT_TRUE(MatchesFiniteDifferences("dw", w, dw, loss, stats));
    if (bias) {
      EXPECT_TRUE(MatchesFiniteDifferences("db", b, db, loss, stats));
    }
  }
  report("linear", stats);
}

TEST(FiniteDifferences, LayerNormBackwardMatchesCentralDifferences) {
  std::mt19937 rng(12);
  FdStats stats;
  for (int trial = 0; trial < 6; ++trial) {
    const int N = 1 + rng() % 4, C = 1 + rng() % 9;
    const bool bias = trial % 2 == 0;
    auto x = random_values<double>(N * C, rng, -2.0, 3.0), w = random_values<double>(C, rng, 0.5, 1.5);
    auto b = random_values<double>(C, rng);
    const auto G = random_values<double>(N * C, rng);
    auto loss = [&] {
      std::vector<double> y(N * C);
      layernorm_forward_ref<double>(y.data(), nullptr, nullptr, x.data(), w.data(), bias ? b.data() : nullptr, N, C);
      return dot(y, G);
    };
    std::vector<double> y(N * C), mean(N), rstd(N), dx(N * C, 0.0), dw(C, 0.0), db(C, 0.0);
    layernorm_forward_ref<double>(y.data(), mean.data(), rstd.data(), x.data(), w.data(), bias ? b.data() : nullptr, N,
                                  C);
    layernorm_backward_ref<double>(dx.data(), dw.data(), bias ? db.data() : nullptr, G.data(), x.data(), w.data(),
                                   mean.data(), rstd.data(), N, C);
    EXPECT_TRUE(MatchesFiniteDifferences("dx", x, dx, loss, stats));
    EXPECT_TRUE(MatchesFiniteDifferences("dw", w, dw, loss, stats));
    if (bias) {
      EXPECT_TRUE(MatchesFiniteDifferences("db", b, db, loss, stats));
    }
  }
  report("layernorm", stats);
}

TEST(FiniteDifferences, GeluBackwardMatchesCentralDifferences) {
  std::mt19937 rng(13);
  FdStats stats;
  auto x = random_values<double>(200, rng, -6.0, 6.0);
  const auto G = random_values<double>(200, rng);
  auto loss = [&] {
    std::vector<double> y(x.size());
    gelu_forward_ref<double>(y.data(), x.data(), static_cast<long long>(x.size()));
    return dot(y, G);
  };
  std::vector<double> dx(x.size(), 0.0);
  gelu_backward_ref<double>(dx.data(), G.data(), x.data(), static_cast<long long>(x.size()));
  EXPECT_TRUE(MatchesFiniteDifferences("dx", x, dx, loss, stats));
  report("gelu", stats);
}

TEST(FiniteDifferences, GeluTanhBackwardMatchesCentralDifferences) {
  std::mt19937 rng(23);
  FdStats stats;
  auto x = random_values<double>(200, rng, -6.0, 6.0);
  const auto G = random_values<double>(200, rng);
  auto loss = [&] {
    std::vector<double> y(x.size());
    gelu_tanh_forward_ref<double>(y.data(), x.data(), static_cast<long long>(x.size()));
    return dot(y, G);
  };
  std::vector<double> dx(x.size(), 0.0);
  gelu_tanh_backward_ref<double>(dx.data(), G.data(), x.data(), static_cast<long long>(x.size()));
  EXPECT_TRUE(MatchesFiniteDifferences("dx", x, dx, loss, stats));
  report("gelu tanh", stats);
}

TEST(FiniteDifferences, EmbeddingBackwardMatchesCentralDifferences) {
  std::mt19937 rng(14);
  FdStats stats;
  for (int trial = 0; trial < 4; ++trial) {
    const int B = 1 + rng() % 3, T = 1 + rng() % 6, V = 1 + rng() % 5, C = 1 + rng() % 5, block = T + rng() % 3;
    std::vector<int> idx(B * T);
    for (int& t : idx) t = static_cast<int>(rng() % V);  // repeats are likely: V ≤ 5
    auto wte = random_values<double>(V * C, rng), wpe = random_values<double>(block * C, rng);
    const auto G = random_values<double>(B * T * C, rng);
    auto loss = [&] {
      std::vector<double> x(B * T * C);
      embedding_forward_ref<double>(x.data(), idx.data(), wte.data(), wpe.data(), B, T, C);
      return dot(x, G);
    };
    std::vector<double> dwte(V * C, 0.0), dwpe(block * C, 0.0);
    embedding_backward_ref<double>(dwte.data(), dwpe.data(), G.data(), idx.data(), B, T, C);
    EXPECT_TRUE(MatchesFiniteDifferences("dwte", wte, dwte, loss, stats));
    EXPECT_TRUE(MatchesFiniteDifferences("dwpe", wpe, dwpe, loss, stats));
  }
  report("embedding", stats);
}

TEST(FiniteDifferences, ResidualAndDropoutBackwardMatchCentralDifferences) {
  std::mt19937 rng(15);
  FdStats stats;
  const int n = 40;
  auto a = random_values<double>(n, rng), b = random_values<double>(n, rng);
  const auto G = random_values<double>(n, rng);
  std::vector<std::uint8_t> keep(n);
  for (auto& k : keep) k = static_cast<std::uint8_t>(rng() % 3 != 0);
  for (double p : {0.0, 0.3, 1.0}) {
    // loss = Σ dropout(a + b) · G
    auto loss = [&] {
      std::vector<double> s(n), y(n);
      residual_forward_ref<double>(s.data(), a.data(), b.data(), n);
      dropout_forward_ref<double>(y.data(), s.data(), keep.data(), p, n);
      return dot(y, G);
    };
    std::vector<double> ds(n, 0.0), da(n, 0.0), db(n, 0.0);
    dropout_backward_ref<double>(ds.data(), G.data(), keep.data(), p, n);
    residual_backward_ref<double>(da.data(), db.data(), ds.data(), n);
    EXPECT_TRUE(MatchesFiniteDifferences("da", a, da, loss, stats));
    EXPECT_TRUE(MatchesFiniteDifferences("db", b, db, loss, stats));
  }
  report("residual+drop", stats);
}

TEST(FiniteDifferences, CrossEntropyBackwardMatchesCentralDifferences) {
  std::mt19937 rng(16);
  FdStats stats;
  for (int trial = 0; trial < 6; ++trial) {
    const int N = 1 + rng() % 5, V = 1 + rng() % 9;
    auto logits = random_values<double>(N * V, rng, -4.0, 4.0);
    std::vector<int> targets(N);
    for (int& t : targets) t = rng() % 4 == 0 ? kIgnoreIndex : static_cast<int>(rng() % V);
    const double G = 0.5 + trial;
    auto loss = [&] {
      std::vector<double> probs(N * V);
      return G * cross_entropy_forward_ref<double>(probs.data(), nullptr, logits.data(), targets.data(), N, V);
    };
    std::vector<double> probs(N * V), dlogits(N * V, 0.0);
    cross_entropy_forward_ref<double>(probs.data(), nullptr, logits.data(), targets.data(), N, V);
    cross_entropy_backward_ref<double>(dlogits.data(), probs.data(), targets.data(), G, N, V);
    EXPECT_TRUE(MatchesFiniteDifferences("dlogits", logits, dlogits, loss, stats));
  }
  report("cross-entropy", stats);
}

// ---------------------------------------------------------------------------------------------
// Cross-entropy edge cases.

TEST(CrossEntropy, AllTargetsIgnoredGivesZeroLossAndZeroGradientNotNaN) {
  const std::vector<float> logits = {1, 2, 3, 4, 5, 6};
  const std::vector<int> targets = {-1, -1};
  std::vector<float> probs(6), losses(2, 7.0f), dlogits(6, 0.0f);
  const float loss = cross_entropy_forward_ref<float>(probs.data(), losses.data(), logits.data(), targets.data(), 2, 3);
  cross_entropy_backward_ref<float>(dlogits.data(), probs.data(), targets.data(), 1.0f, 2, 3);
  EXPECT_EQ(loss, 0.0f);
  EXPECT_EQ(losses, std::vector<float>({0.0f, 0.0f}));
  for (float g : dlogits) EXPECT_EQ(g, 0.0f);
}

TEST(CrossEntropy, ProbsMayOverwriteLogitsInPlace) {
  std::mt19937 rng(3);
  const auto logits = random_values<float>(4 * 7, rng, -5.0, 5.0);
  const std::vector<int> targets = {2, -1, 6, 0};
  std::vector<float> probs(logits.size()), in_place = logits, losses(4), losses2(4);
  const float a = cross_entropy_forward_ref<float>(probs.data(), losses.data(), logits.data(), targets.data(), 4, 7);
  const float b =
      cross_entropy_forward_ref<float>(in_place.data(), losses2.data(), in_place.data(), targets.data(), 4, 7);
  EXPECT_EQ(a, b);
  EXPECT_EQ(probs, in_place);
  EXPECT_EQ(losses, losses2);
  EXPECT_EQ(losses[1], 0.0f);  // the ignored row
}

TEST(CrossEntropy, HugeLogitsStayFinite) {
  const std::vector<float> logits = {1e30f, -1e30f, 0.0f, 3e38f, 3e38f, -3e38f};
  const std::vector<int> targets = {1, 0};
  std::vector<float> probs(6), dlogits(6, 0.0f);
  const float loss = cross_entropy_forward_ref<float>(probs.data(), nullptr, logits.data(), targets.data(), 2, 3);
  cross_entropy_backward_ref<float>(dlogits.data(), probs.data(), targets.data(), 1.0f, 2, 3);
  EXPECT_TRUE(std::isfinite(loss)) << loss;  // (2e30 + log 2·… ) / 2
  for (float g : dlogits) EXPECT_TRUE(std::isfinite(g));
}

TEST(LayerChecks, TokensAndTargetsOutOfRangeNameThePosition) {
  const std::vector<int> tokens = {0, 4, 5}, targets = {-1, 2, -2};
  EXPECT_TRUE(
      attn_test::ThrowsNaming([&] { check_tokens(tokens.data(), 3, 5); }, {"tokens[2]", "5", "vocab_size = 5"}));
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { check_targets(targets.data(), 3, 5, "y"); }, {"y[2]", "-2", "or -1"}));
  EXPECT_NO_THROW(check_tokens(tokens.data(), 2, 5));
  EXPECT_NO_THROW(check_targets(targets.data(), 2, 5));
}

// ---------------------------------------------------------------------------------------------
// Against PyTorch (tests/fixtures/training/layers.json).

const attn_test::Tolerance kTorch{1e-5, 1e-5};

struct Compare {
  std::string case_name;
  double worst = 0.0;  // largest |ours − torch| over the case
  void operator()(const char* what, const std::vector<float>& got, const json& want_json) {
    const std::vector<float> want = attn_test::json_floats(want_json);
    EXPECT_TRUE(attn_test::ValuesNear(got, want, kTorch, case_name + " " + what));
    for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
      worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - want[i]));
  }
};

TEST(LayersAgainstTorch, EveryLayerMatchesAutogradWithinTolerance) {
  const json fixture = attn_test::load_training_json("layers");
  int cases = 0;
  for (const json& c : fixture.at("cases")) {
    const std::string op = c.at("op");
    const json& in = c.at("inputs");
    const json& exp = c.at("expected");
    const json& sz = c.at("sizes");
    Compare compare{c.at("name").get<std::string>()};
    auto f = [&](const char* key) { return attn_test::json_floats(in.at(key)); };
    if (op == "linear") {
      const int N = sz.at("N"), I = sz.at("I"), O = sz.at("O");
      const auto x = f("x"), w = f("w"), G = attn_test::json_floats(c.at("G"));
      const bool bias = in.contains("b");
      const std::vector<float> b = bias ? f("b") : std::vector<float>();
      for (bool simd : {false, true}) {
        std::vector<float> y(N * O), dx(N * I, 0.0f), dw(O * I, 0.0f), db(O, 0.0f);
        const float* bp = bias ? b.data() : nullptr;
        if (simd) {
          linear_forward_simd(y.data(), x.data(), w.data(), bp, N, I, O);
          linear_backward_simd(dx.data(), dw.data(), bias ? db.data() : nullptr, G.data(), x.data(), w.data(), N, I, O);
        } else {
          linear_forward_ref<float>(y.data(), x.data(), w.data(), bp, N, I, O);
          linear_backward_ref<float>(dx.data(), dw.data(), bias ? db.data() : nullptr, G.data(), x.data(), w.data(), N,
                                     I, O);
        }
        compare("y", y, exp.at("y"));
        compare("dx", dx, exp.at("dx"));
        compare("dw", dw, exp.at("dw"));
        if (bias) compare("db", db, exp.at("db"));
      }
    } else if (op == "layernorm") {
      const int N = sz.at("N"), C = sz.at("C");
      const auto x = f("x"), w = f("w"), G = attn_test::json_floats(c.at("G"));
      const bool bias = in.contains("b");
      const std::vector<float> b = bias ? f("b") : std::vector<float>();
      std::vector<float> y(N * C), mean(N), rstd(N), dx(N * C, 0.0f), dw(C, 0.0f), db(C, 0.0f);
      layernorm_forward_ref<float>(y.data(), mean.data(), rstd.data(), x.data(), w.data(), bias ? b.data() : nullptr, N,
                                   C);
      layernorm_backward_ref<float>(dx.data(), dw.data(), bias ? db.data() : nullptr, G.data(), x.data(), w.data(),
                                    mean.data(), rstd.data(), N, C);
      compare("y", y, exp.at("y"));
      compare("dx", dx, exp.at("dx"));
      compare("dw", dw, exp.at("dw"));
      if (bias) compare("db", db, exp.at("db"));
    } else if (op == "gelu") {
      const auto x = f("x"), G = attn_test::json_floats(c.at("G"));
      const long long n = static_cast<long long>(x.size());
      for (bool simd : {false, true}) {
        std::vector<float> y(x.size()), dx(x.size(), 0.0f);
        if (simd) {
          gelu_forward_simd(y.data(), x.data(), n);
          gelu_backward_simd(dx.data(), G.data(), x.data(), n);
        } else {
          gelu_forward_ref<float>(y.data(), x.data(), n);
          gelu_backward_ref<float>(dx.data(), G.data(), x.data(), n);
        }
        compare("y", y, exp.at("y"));
        compare("dx", dx, exp.at("dx"));
      }
    } else if (op == "embedding") {
      const int B = sz.at("B"), T = sz.at("T"), V = sz.at("V"), C = sz.at("C"), block = sz.at("block_size");
      const std::vector<int> idx = attn_test::json_ints(in.at("idx"));
      const auto wte = f("wte"), wpe = f("wpe"), G = attn_test::json_floats(c.at("G"));
      std::vector<float> x(B * T * C), dwte(V * C, 0.0f), dwpe(block * C, 0.0f);
      embedding_forward_ref<float>(x.data(), idx.data(), wte.data(), wpe.data(), B, T, C);
      embedding_backward_ref<float>(dwte.data(), dwpe.data(), G.data(), idx.data(), B, T, C);
      compare("x", x, exp.at("x"));
      compare("dwte", dwte, exp.at("dwte"));
      compare("dwpe", dwpe, exp.at("dwpe"));
    } else if (op == "residual") {
      const auto a = f("a"), b = f("b"), G = attn_test::json_floats(c.at("G"));
      const long long n = static_cast<long long>(a.size());
      std::vector<float> y(a.size()), da(a.size(), 0.0f), db(a.size(), 0.0f);
      residual_forward_ref<float>(y.data(), a.data(), b.data(), n);
      residual_backward_ref<float>(da.data(), db.data(), G.data(), n);
      compare("y", y, exp.at("y"));
      compare("da", da, exp.at("da"));
      compare("db", db, exp.at("db"));
    } else if (op == "dropout") {
      const auto x = f("x"), G = attn_test::json_floats(c.at("G"));
      const std::vector<int> keep_int = attn_test::json_ints(in.at("keep"));
      const std::vector<std::uint8_t> keep(keep_int.begin(), keep_int.end());
      const double p = sz.at("p");
      const long long n = static_cast<long long>(x.size());
      std::vector<float> y(x.size()), dx(x.size(), 0.0f);
      dropout_forward_ref<float>(y.data(), x.data(), keep.data(), p, n);
      dropout_backward_ref<float>(dx.data(), G.data(), keep.data(), p, n);
      // torch scales by 1.0f / float(1 − p) exactly as we do: equal, not just close.
      EXPECT_EQ(y, attn_test::json_floats(exp.at("y"))) << compare.case_name;
      EXPECT_EQ(dx, attn_test::json_floats(exp.at("dx"))) << compare.case_name;
    } else if (op == "cross_entropy") {
      const int N = sz.at("N"), V = sz.at("V");
      const auto logits = f("logits");
      const std::vector<int> targets = attn_test::json_ints(in.at("targets"));
      const float dloss = c.at("G").get<float>();
      std::vector<float> probs(N * V), dlogits(N * V, 0.0f);
      const float loss = cross_entropy_forward_ref<float>(probs.data(), nullptr, logits.data(), targets.data(), N, V);
      cross_entropy_backward_ref<float>(dlogits.data(), probs.data(), targets.data(), dloss, N, V);
      compare("loss", {loss}, exp.at("loss"));
      compare("dlogits", dlogits, exp.at("dlogits"));
    } else if (op == "tied") {
      // logits = (wte[idx] + wpe) · wteᵀ: wte's gradient is the scatter-add plus lm_head's dW.
      const int B = sz.at("B"), T = sz.at("T"), V = sz.at("V"), C = sz.at("C");
      const std::vector<int> idx = attn_test::json_ints(in.at("idx"));
      const auto wte = f("wte"), wpe = f("wpe"), G = attn_test::json_floats(c.at("G"));
      std::vector<float> x(B * T * C), logits(B * T * V), dx(B * T * C, 0.0f), dwte(V * C, 0.0f), dwpe(T * C, 0.0f);
      embedding_forward_ref<float>(x.data(), idx.data(), wte.data(), wpe.data(), B, T, C);
      linear_forward_simd(logits.data(), x.data(), wte.data(), nullptr, B * T, C, V);
      linear_backward_simd(dx.data(), dwte.data(), nullptr, G.data(), x.data(), wte.data(), B * T, C, V);
      embedding_backward_ref<float>(dwte.data(), dwpe.data(), dx.data(), idx.data(), B, T, C);
      compare("x", x, exp.at("x"));
      compare("logits", logits, exp.at("logits"));
      compare("dwte", dwte, exp.at("dwte"));
      compare("dwpe", dwpe, exp.at("dwpe"));
    } else {
      ADD_FAILURE() << "unknown op " << op;
    }
    std::printf("  [torch] %-26s largest |ours - torch| = %.3g\n", compare.case_name.c_str(), compare.worst);
    ++cases;
  }
  EXPECT_EQ(cases, 15);
}

TEST(LayersAgainstTorch, AllIgnoredCrossEntropyIsWhereWeDifferFromTorch) {
  const json fixture = attn_test::load_training_json("layers");
  for (const json& c : fixture.at("cases")) {
    if (c.at("name") != "cross_entropy_all_ignored") continue;
    EXPECT_TRUE(std::isnan(attn_test::json_floats(c.at("torch").at("loss"))[0]));
    EXPECT_EQ(attn_test::json_floats(c.at("expected").at("loss"))[0], 0.0f);
    return;
  }
  ADD_FAILURE() << "case cross_entropy_all_ignored not found";
}

// ---------------------------------------------------------------------------------------------
// A whole network from the layers: GPT with n_layer = 0 (embeddings → ln_f → lm_head tied to
// wte → cross-entropy), forward and backward, against torch (gpt_step_no_layers.json).

TEST(LayersAgainstTorch, NoLayerGptForwardAndBackwardMatchTorch) {
  const json fx = attn_test::load_training_json("gpt_step_no_layers");
  const json& cfg = fx.at("config");
  const int V = cfg.at("vocab_size"), T = cfg.at("block_size"), C = cfg.at("n_embd");
  const std::vector<int> idx = attn_test::json_ints(fx.at("idx")), targets = attn_test::json_ints(fx.at("targets"));
  const int B = static_cast<int>(idx.size()) / T, N = B * T;
  const json& p = fx.at("params");
  const auto wte = attn_test::json_floats(p.at("transformer.wte.weight"));
  const auto wpe = attn_test::json_floats(p.at("transformer.wpe.weight"));
  const auto lnw = attn_test::json_floats(p.at("transformer.ln_f.weight"));
  const auto lnb = attn_test::json_floats(p.at("transformer.ln_f.bias"));
  check_tokens(idx.data(), N, V);
  check_targets(targets.data(), N, V);

  // Forward, numbered as the model's passes.
  std::vector<float> x(N * C), h(N * C), mean(N), rstd(N), logits(N * V), probs(N * V);
  embedding_forward_ref<float>(x.data(), idx.data(), wte.data(), wpe.data(), B, T, C);                              // 1
  layernorm_forward_ref<float>(h.data(), mean.data(), rstd.data(), x.data(), lnw.data(), lnb.data(), N, C);         // 2
  linear_forward_simd(logits.data(), h.data(), wte.data(), nullptr, N, C, V);                                       // 3
  const float loss = cross_entropy_forward_ref<float>(probs.data(), nullptr, logits.data(), targets.data(), N, V);  // 4

  // Backward: 4, 3, 2, 1. Every gradient starts at zero and accumulates; wte gets two.
  std::vector<float> dlogits(N * V, 0.0f), dh(N * C, 0.0f), dx(N * C, 0.0f);
  std::vector<float> dwte(V * C, 0.0f), dwpe(T * C, 0.0f), dlnw(C, 0.0f), dlnb(C, 0.0f);
  cross_entropy_backward_ref<float>(dlogits.data(), probs.data(), targets.data(), 1.0f, N, V);           // 4
  linear_backward_simd(dh.data(), dwte.data(), nullptr, dlogits.data(), h.data(), wte.data(), N, C, V);  // 3
  layernorm_backward_ref<float>(dx.data(), dlnw.data(), dlnb.data(), dh.data(), x.data(), lnw.data(), mean.data(),
                                rstd.data(), N, C);                                         // 2
  embedding_backward_ref<float>(dwte.data(), dwpe.data(), dx.data(), idx.data(), B, T, C);  // 1

  Compare compare{"gpt_step_no_layers"};
  compare("loss", {loss}, fx.at("loss"));
  compare("logits", logits, fx.at("logits"));
  const json& g = fx.at("grads");
  compare("wte grad", dwte, g.at("transformer.wte.weight"));
  compare("wpe grad", dwpe, g.at("transformer.wpe.weight"));
  compare("ln_f.weight grad", dlnw, g.at("transformer.ln_f.weight"));
  compare("ln_f.bias grad", dlnb, g.at("transformer.ln_f.bias"));
  std::printf("  [torch] %-26s largest |ours - torch| = %.3g (loss %.6f)\n", "gpt_step_no_layers", compare.worst, loss);
}

// ---------------------------------------------------------------------------------------------
// The char model's largest product (its timing is bench/native_bench.cpp's BM_LinearLayer)

TEST(LinearLayer, SimdMatchesRefOnTheCharModelsMlpProduct) {
  // x (1024, 64) · W (256, 64)ᵀ: the (1024×64)·(64×256) product, forward and backward.
  const int N = 1024, I = 64, O = 256;
  std::mt19937 rng(5);
  const auto x = random_values<float>(N * I, rng), w = random_values<float>(O * I, rng);
  const auto b = random_values<float>(O, rng), dy = random_values<float>(N * O, rng);
  std::vector<float> y(N * O), dx(N * I), dw(O * I), db(O);
  std::vector<float> y2 = y, dx2 = dx, dw2 = dw, db2 = db;
  linear_forward_ref<float>(y.data(), x.data(), w.data(), b.data(), N, I, O);
  linear_backward_ref<float>(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), N, I, O);
  linear_forward_simd(y2.data(), x.data(), w.data(), b.data(), N, I, O);
  linear_backward_simd(dx2.data(), dw2.data(), db2.data(), dy.data(), x.data(), w.data(), N, I, O);
  EXPECT_TRUE(attn_test::ValuesNear(y2, y, {1e-4, 1e-5}, "y"));
  EXPECT_TRUE(attn_test::ValuesNear(dw2, dw, {1e-3, 1e-5}, "dw"));  // sums of 1024 terms of size ≤ 1
}

}  // namespace
}  // namespace attn::model

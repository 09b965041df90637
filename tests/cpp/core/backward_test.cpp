// The backward pass of attention, from the kernels up:
//   1. softmax_rows_backward and attention_tiled_backward: _simd against _ref, _ref against the
//      materialised head passes, on sizes that break vector assumptions (1, 3, 4, 5, 7, 16, 17, 67);
//   2. head_backward (head.cpp) through every kernel table against the double reference table,
//      and the double reference against central finite differences of head_forward;
//   3. attend_backward against PyTorch autograd (tests/fixtures/backward/, written by
//      make_backward_fixtures.py) with every kernel, the kernels against each other on larger
//      random inputs, and its errors.
//
// Legend: T tokens, hk query/key head width, hv value head width.
//
// Where the tolerances come from. Every gradient here is a handful of float32 sums of products
// (dout·vᵀ, Σⱼ w·dw, dS·k, dSᵀ·q, Pᵀ·dout) of length at most n = T + max(hk, hv). A sum of n
// products errs by γ_n·Σ|terms| (γ_n = n·u/(1 − n·u), u = 2⁻²⁴; Higham §3.1), and the weights
// themselves carry the forward's error (core/head_test.cpp: about 2·|α|·e_s relative, e_s = 2·γ_hk·hk).
// With |q|, |k|, |v|, |dout| ≤ 1 every Σ|terms| is at most a few times the largest |gradient|
// (call it M, at least 1), so |float − double| ≤ c·γ_n·M with c counting the chained sums (four:
// d_weights, the softmax row sum, the product with k or q, and the forward's weights). The
// measured worst is printed by each test (between a hundredth and a tenth of the bound).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/head.h"
#include "fixture_loader.h"
#include "kernels/kernels.h"
#include "test_util.h"

namespace {

using attn::HeadInputsOf;
using attn::HeadIntermediatesOf;
using attn::KernelTable;
using attn::KernelTableOf;
using attn_test::Fixture;
using attn_test::load_fixture;
using attn_test::Tolerance;

constexpr double kU = 1.0 / (1 << 24);  // unit roundoff of float32
const int kSizes[] = {1, 3, 4, 5, 7, 16, 17, 67};

double gamma(int n) { return n * kU / (1.0 - n * kU); }

std::vector<float> random_vector(size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> x(n);
  for (float& v : x) v = attn_test::uniform(rng, lo, hi);
  return x;
}
std::vector<double> widen(const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); }

// |got − want| ≤ bound for every element, reporting the worst; returns the worst difference.
double expect_close(const std::vector<float>& got, const std::vector<double>& want, double bound,
                    const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  double worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const double d = std::isfinite(got[i]) ? std::abs(got[i] - want[i]) : INFINITY;
    if (d > worst) worst = d, at = i;
  }
  EXPECT_LE(worst, bound) << what << ": worst at flat index " << at << ", got " << got[at] << ", want " << want[at];
  return worst;
}

double max_abs(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

// ---------------------------------------------------------------------------------------------
// 1. Kernels

TEST(KernelSoftmaxRowsBackward, SimdMatchesReferenceMaskedEntriesZeroAndMayAlias) {
  std::mt19937 rng(11);
  double worst_ratio = 0.0;
  for (int rows : kSizes)
    for (int cols : kSizes)
      for (bool causal : {false, true}) {
        if (causal && rows != cols) continue;
        SCOPED_TRACE("rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
                     " causal=" + std::to_string(causal));
        // Weights: a real softmax of random scores, every third key masked (a row of zeros too).
        std::vector<float> w = random_vector(static_cast<size_t>(rows) * cols, rng, -3.0f, 3.0f);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            if (j % 3 == 1 || i == rows / 2) w[static_cast<size_t>(i) * cols + j] = -INFINITY;
        attn::kernels::softmax_rows_ref<float>(w.data(), rows, cols, causal);
        const std::vector<float> dw = random_vector(w.size(), rng);
        std::vector<double> want(w.size());
        attn::kernels::softmax_rows_backward_ref<double>(want.data(), widen(dw).data(), widen(w).data(), rows, cols,
                                                         causal);
        std::vector<float> ref(w.size(), NAN), simd(w.size(), NAN), aliased = dw;
        attn::kernels::softmax_rows_backward_ref<float>(ref.data(), dw.data(), w.data(), rows, cols, causal);
        attn::kernels::softmax_rows_backward_simd(simd.data(), dw.data(), w.data(), rows, cols, causal);
        attn::kernels::softmax_rows_backward_simd(aliased.data(), aliased.data(), w.data(), rows, cols, causal);
        // ds = w ⊙ (dw − Σ w·dw): the sum errs by γ_cols·Σ|w·dw| ≤ γ_cols, then two roundings.
        const double bound = (2.0 * gamma(cols) + 4.0 * kU) * std::max(1.0, max_abs(want));
        expect_close(ref, want, bound, "ref");
        const double d = expect_close(simd, want, bound, "simd");
        EXPECT_EQ(aliased, simd) << "ds aliasing dw gives the same result";
        worst_ratio = std::max(worst_ratio, d / bound);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j) {
            const size_t ij = static_cast<size_t>(i) * cols + j;
            if (w[ij] == 0.0f || (causal && j > i)) {
              ASSERT_EQ(simd[ij], 0.0f) << "masked (" << i << ", " << j << ")";
              ASSERT_EQ(ref[ij], 0.0f) << "masked (" << i << ", " << j << ")";
            }
          }
      }
  std::printf("softmax_rows_backward: worst |simd − double| is %.2f of the bound\n", worst_ratio);
}

// One head's inputs in double, with what head_forward computes from them.
struct HeadData {
  int T, hk, hv;
  bool causal;
  std::vector<float> q, k, v, dout;
  std::vector<std::uint8_t> key_keep, keep;
  bool padded = false, dropout = false;

  template <typename Real>
  HeadInputsOf<Real> inputs(const std::vector<Real>& qr, const std::vector<Real>& kr,
                            const std::vector<Real>& vr) const {
    HeadInputsOf<Real> in;
    in.q = qr.data();
    in.k = kr.data();
    in.v = vr.data();
    in.key_keep = padded ? key_keep.data() : nullptr;
    in.keep = dropout ? keep.data() : nullptr;
    in.dropout = 0.25f;
    in.alpha = Real(1) / std::sqrt(Real(hk));
    in.causal = causal;
    in.T = T;
    in.hk = hk;
    in.hv = hv;
    return in;
  }
  std::string describe() const {
    return "T=" + std::to_string(T) + " hk=" + std::to_string(hk) + " hv=" + std::to_string(hv) +
           " causal=" + std::to_string(causal) + " padded=" + std::to_string(padded) +
           " dropout=" + std::to_string(dropout);
  }
};

// padding: every third key (key 0 included) and the last; with causal, row 0 then sees no key.
HeadData make_head(int T, int hk, int hv, bool causal, bool padded, bool dropout, std::mt19937& rng,
                   float spread = 1.0f) {
  HeadData h{T, hk, hv, causal, {}, {}, {}, {}, {}, {}, padded, dropout};
  h.q = random_vector(static_cast<size_t>(T) * hk, rng, -spread, spread);
  h.k = random_vector(static_cast<size_t>(T) * hk, rng, -spread, spread);
  h.v = random_vector(static_cast<size_t>(T) * hv, rng);
  h.dout = random_vector(static_cast<size_t>(T) * hv, rng);
  h.key_keep.assign(static_cast<size_t>(T), 1);
  for (int j = 0; j < T; j += 3) h.key_keep[j] = 0;
  h.key_keep[T - 1] = 0;
  h.keep.resize(static_cast<size_t>(T) * T);
  for (auto& flag : h.keep) flag = attn_test::uniform_int(rng, 0, 3) == 0 ? 0 : 1;
  return h;
}

struct HeadGradients {
  std::vector<double> dq, dk, dv;
};

// The exact (double, reference loops) gradients of Σ out ⊙ dout.
HeadGradients exact_gradients(const HeadData& h) {
  const std::vector<double> q = widen(h.q), k = widen(h.k), v = widen(h.v), dout = widen(h.dout);
  const auto in = h.inputs<double>(q, k, v);
  const size_t square = static_cast<size_t>(h.T) * h.T;
  std::vector<double> weights(square), scratch(2 * square), out(static_cast<size_t>(h.T) * h.hv);
  HeadIntermediatesOf<double> kept;
  kept.weights = weights.data();
  attn::head_forward<double>(out.data(), kept, scratch.data(), in, attn::kReferenceKernelsDouble);
  HeadGradients g{std::vector<double>(q.size()), std::vector<double>(k.size()), std::vector<double>(v.size())};
  attn::head_backward<double>(g.dq.data(), g.dk.data(), g.dv.data(), scratch.data(), dout.data(), weights.data(), in,
                              attn::kReferenceKernelsDouble);
  return g;
}

// The bound of the header comment for a head's gradients whose largest magnitude is M.
double head_bound(const HeadData& h, double M) {
  const double e_s = 2.0 * gamma(h.hk) * h.hk / std::sqrt(static_cast<double>(h.hk));
  return (4.0 * gamma(h.T + std::max(h.hk, h.hv)) + 2.0 * e_s + 1e-6) * std::max(1.0, M) *
         (h.dropout ? 1.0 / 0.75 : 1.0);
}

TEST(KernelAttentionTiledBackward, ReferenceAgreesWithTheMaterialisedHeadPassesInDouble) {
  std::mt19937 rng(21);
  for (int T : {1, 5, 17, 67, 100})
    for (int hs : {1, 5, 16})
      for (bool causal : {false, true})
        for (bool padded : {false, true}) {
          const HeadData h = make_head(T, hs, hs + 2, causal, padded, false, rng, 2.0f);
          SCOPED_TRACE(h.describe());
          const HeadGradients want = exact_gradients(h);
          const std::vector<double> q = widen(h.q), k = widen(h.k), v = widen(h.v), dout = widen(h.dout);
          const double alpha = 1.0 / std::sqrt(static_cast<double>(hs));
          std::vector<double> out(v.size()), lse(static_cast<size_t>(T));
          const std::uint8_t* kk = padded ? h.key_keep.data() : nullptr;
          attn::kernels::attention_tiled_ref<double>(out.data(), lse.data(), q.data(), k.data(), v.data(), kk, T, hs,
                                                     hs + 2, alpha, causal);
          std::vector<double> dq(q.size()), dk(k.size()), dv(v.size());
          attn::kernels::attention_tiled_backward_ref<double>(dq.data(), dk.data(), dv.data(), dout.data(), q.data(),
                                                              k.data(), v.data(), out.data(), lse.data(), kk, T, hs,
                                                              hs + 2, alpha, causal);
          for (size_t i = 0; i < dq.size(); ++i) ASSERT_NEAR(dq[i], want.dq[i], 1e-12) << "dq at " << i;
          for (size_t i = 0; i < dk.size(); ++i) ASSERT_NEAR(dk[i], want.dk[i], 1e-12) << "dk at " << i;
          for (size_t i = 0; i < dv.size(); ++i) ASSERT_NEAR(dv[i], want.dv[i], 1e-12) << "dv at " << i;
        }
}

TEST(KernelAttentionTiledBackward, SimdMatchesTheExactGradientsOnOddSizesAcrossTiles) {
  std::mt19937 rng(22);
  double worst_ratio = 0.0;
  // hk = 64 (GPT-2's head size) at T = 130: three key tiles and three query blocks of 64.
  for (int T : {1, 3, 4, 5, 7, 16, 17, 67, 130})
    for (int hk : {1, 4, 7, 17, 64})
      for (bool causal : {false, true})
        for (bool padded : {false, true}) {
          if (hk == 64 && T != 130) continue;
          const int hv = hk == 17 ? 3 : hk == 64 ? 64 : hk + 1;
          const HeadData h = make_head(T, hk, hv, causal, padded, false, rng, 2.0f);
          SCOPED_TRACE(h.describe());
          const HeadGradients want = exact_gradients(h);
          const float alpha = 1.0f / std::sqrt(static_cast<float>(hk));
          const std::uint8_t* kk = padded ? h.key_keep.data() : nullptr;
          std::vector<float> out(h.v.size()), lse(static_cast<size_t>(T));
          attn::kernels::attention_tiled_simd(out.data(), lse.data(), h.q.data(), h.k.data(), h.v.data(), kk, T, hk, hv,
                                              alpha, causal);
          std::vector<float> dq(h.q.size(), NAN), dk(h.k.size(), NAN), dv(h.v.size(), NAN);
          attn::kernels::attention_tiled_backward_simd(dq.data(), dk.data(), dv.data(), h.dout.data(), h.q.data(),
                                                       h.k.data(), h.v.data(), out.data(), lse.data(), kk, T, hk, hv,
                                                       alpha, causal);
          // Scores up to 4·hk here (|q|, |k| ≤ 2): four times the unit-range bound.
          const double M = std::max({max_abs(want.dq), max_abs(want.dk), max_abs(want.dv)});
          const double bound = 4.0 * head_bound(h, M);
          worst_ratio = std::max(worst_ratio, expect_close(dq, want.dq, bound, "dq") / bound);
          worst_ratio = std::max(worst_ratio, expect_close(dk, want.dk, bound, "dk") / bound);
          worst_ratio = std::max(worst_ratio, expect_close(dv, want.dv, bound, "dv") / bound);
        }
  std::printf("attention_tiled_backward_simd: worst |simd − double| is %.3f of the bound\n", worst_ratio);
}

TEST(KernelAttentionTiledBackward, RowsWithoutKeysGetZeroGradientAndTheirKeysNone) {
  std::mt19937 rng(23);
  const int T = 9, hs = 4;
  HeadData h = make_head(T, hs, hs, true, true, false, rng);
  h.key_keep.assign(T, 1);
  for (int j = 0; j < 4; ++j) h.key_keep[j] = 0;  // causal: rows 0..3 see no key
  std::vector<float> out(h.v.size()), lse(T), dq(h.q.size()), dk(h.k.size()), dv(h.v.size());
  attn::kernels::attention_tiled_simd(out.data(), lse.data(), h.q.data(), h.k.data(), h.v.data(), h.key_keep.data(), T,
                                      hs, hs, 0.5f, true);
  attn::kernels::attention_tiled_backward_simd(dq.data(), dk.data(), dv.data(), h.dout.data(), h.q.data(), h.k.data(),
                                               h.v.data(), out.data(), lse.data(), h.key_keep.data(), T, hs, hs, 0.5f,
                                               true);
  for (int i = 0; i < 4 * hs; ++i) {
    EXPECT_EQ(dq[i], 0.0f) << "row without keys, dq at " << i;
    EXPECT_EQ(dk[i], 0.0f) << "padded key, dk at " << i;
    EXPECT_EQ(dv[i], 0.0f) << "padded key, dv at " << i;
  }
  for (int i = 0; i < 4; ++i) EXPECT_EQ(lse[i], -INFINITY) << "lse of a row without keys";
}

// ---------------------------------------------------------------------------------------------
// 2. One head's backward passes

struct Table {
  const char* name;
  const KernelTable* kernels;
};
const Table kTables[] = {
    {"reference", &attn::kReferenceKernels}, {"eigen", &attn::kEigenKernels}, {"simd", &attn::kSimdKernels}};

TEST(HeadBackward, EveryKernelTableMatchesTheExactGradients) {
  std::mt19937 rng(31);
  const int n = sizeof kSizes / sizeof kSizes[0];
  double worst_ratio[3] = {0, 0, 0};
  int cases = 0;
  for (int T : kSizes)
    for (int a = 0; a < n; ++a)
      for (bool causal : {false, true})
        for (bool padded : {false, true})
          for (bool dropout : {false, true}) {
            const HeadData h = make_head(T, kSizes[a], kSizes[(a + 3) % n], causal, padded, dropout, rng);
            SCOPED_TRACE(h.describe());
            const HeadGradients want = exact_gradients(h);
            const double M = std::max({max_abs(want.dq), max_abs(want.dk), max_abs(want.dv)});
            const double bound = head_bound(h, M);
            const size_t square = static_cast<size_t>(T) * T;
            for (int t = 0; t < 3; ++t) {
              SCOPED_TRACE(kTables[t].name);
              const auto in = h.inputs<float>(h.q, h.k, h.v);
              std::vector<float> weights(square), scratch(2 * square), out(h.v.size());
              HeadIntermediatesOf<float> kept;
              kept.weights = weights.data();
              attn::head_forward<float>(out.data(), kept, scratch.data(), in, *kTables[t].kernels);
              std::vector<float> dq(h.q.size(), NAN), dk(h.k.size(), NAN), dv(h.v.size(), NAN);
              attn::head_backward<float>(dq.data(), dk.data(), dv.data(), scratch.data(), h.dout.data(), weights.data(),
                                         in, *kTables[t].kernels);
              worst_ratio[t] = std::max(worst_ratio[t], expect_close(dq, want.dq, bound, "dq") / bound);
              worst_ratio[t] = std::max(worst_ratio[t], expect_close(dk, want.dk, bound, "dk") / bound);
              worst_ratio[t] = std::max(worst_ratio[t], expect_close(dv, want.dv, bound, "dv") / bound);
            }
            ++cases;
          }
  std::printf("head_backward over %d cases: worst |float − double| / bound: reference %.3f, eigen %.3f, simd %.3f\n",
              cases, worst_ratio[0], worst_ratio[1], worst_ratio[2]);
}

// The double reference itself against the definition of a derivative: (f(x + h) − f(x − h)) / 2h
// of the loss Σ out ⊙ dout, for every input element. Central differences err by h²·|f'''|/6 plus
// the rounding 2⁻⁵³·|f|/h; with h = 1e-5 and |f| ≲ T·hv both are below 1e-8 here.
TEST(HeadBackward, DoubleReferenceMatchesCentralFiniteDifferences) {
  std::mt19937 rng(32);
  for (int T : {1, 3, 5, 7})
    for (bool causal : {false, true})
      for (bool padded : {false, true})
        for (bool dropout : {false, true}) {
          const HeadData h = make_head(T, 3, 2, causal, padded, dropout, rng, 1.5f);
          SCOPED_TRACE(h.describe());
          const HeadGradients g = exact_gradients(h);
          std::vector<double> q = widen(h.q), k = widen(h.k), v = widen(h.v);
          const std::vector<double> dout = widen(h.dout);
          auto loss = [&]() {
            const auto in = h.inputs<double>(q, k, v);
            std::vector<double> scratch(static_cast<size_t>(T) * T), out(v.size());
            attn::head_forward<double>(out.data(), HeadIntermediatesOf<double>{}, scratch.data(), in,
                                       attn::kReferenceKernelsDouble);
            double s = 0.0;
            for (size_t i = 0; i < out.size(); ++i) s += out[i] * dout[i];
            return s;
          };
          const double step = 1e-5;
          auto check = [&](std::vector<double>& x, const std::vector<double>& grad, const char* name) {
            for (size_t i = 0; i < x.size(); ++i) {
              const double saved = x[i];
              x[i] = saved + step;
              const double up = loss();
              x[i] = saved - step;
              const double down = loss();
              x[i] = saved;
              EXPECT_NEAR(grad[i], (up - down) / (2 * step), 1e-8) << name << " at " << i;
            }
          };
          check(q, g.dq, "dq");
          check(k, g.dk, "dk");
          check(v, g.dv, "dv");
        }
}

// ---------------------------------------------------------------------------------------------
// 3. attend_backward

const char* const kBackwardFixtures[] = {
    "single_head",       "multihead_fused_bias", "separate_biases",  "causal_raw", "key_padding_fully_masked_row",
    "scale_temperature", "dropout_keep_mask",    "output_projection"};
const char* const kGradientNames[] = {"x", "wq", "wk", "wv", "bq", "bk", "bv", "wqkv", "bqkv", "wo", "bo"};

const attn::Tensor& gradient(const attn::Gradients& g, const std::string& name) {
  const attn::Tensor* all[] = {&g.x, &g.wq, &g.wk, &g.wv, &g.bq, &g.bk, &g.bv, &g.wqkv, &g.bqkv, &g.wo, &g.bo};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (name == kGradientNames[i]) return *all[i];
  throw std::runtime_error("no gradient " + name);
}

class BackwardFixture : public ::testing::TestWithParam<std::tuple<std::string, attn::Kernel>> {};

// PyTorch's float32 autograd and ours both differ from the float64 gradient by at most the
// fixture's tolerance (the generator checks PyTorch's side; this checks ours against PyTorch, so
// twice it).
TEST_P(BackwardFixture, EveryGradientMatchesPyTorchAutograd) {
  const auto& [name, kernel] = GetParam();
  const Fixture f = load_fixture("backward/" + name);
  attn::Options options = f.options;
  options.kernel = kernel;
  if (kernel == attn::Kernel::kTiled) options.materialize = false;
  const attn::Tensor grad_output = attn_test::json_tensor(f.raw.at("grad_output"));
  const attn::Gradients grads = attn::attend_backward(f.make_inputs(), options, attn_test::view_of(grad_output));
  const Tolerance tol{2.0 * f.raw.at("tolerance").at("abs").get<double>(),
                      2.0 * f.raw.at("tolerance").at("rel").get<double>()};
  for (const char* g : kGradientNames) {
    SCOPED_TRACE(g);
    if (f.has_input(g)) {
      EXPECT_TRUE(attn_test::TensorsNear(gradient(grads, g), f.want(g), tol, name + ".d" + g));
      EXPECT_EQ(gradient(grads, g).shape, f.input(g).shape);
    } else {
      EXPECT_TRUE(gradient(grads, g).data.empty()) << "an input not given gets no gradient";
    }
  }
}

std::vector<std::tuple<std::string, attn::Kernel>> backward_cases() {
  std::vector<std::tuple<std::string, attn::Kernel>> cases;
  for (const char* name : kBackwardFixtures)
    for (attn::Kernel k : {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd, attn::Kernel::kTiled,
                           attn::Kernel::kAuto})
      if (k != attn::Kernel::kTiled || std::string(name) != "dropout_keep_mask")  // tiled has no dropout
        cases.emplace_back(name, k);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(PyTorch, BackwardFixture, ::testing::ValuesIn(backward_cases()),
                         [](const ::testing::TestParamInfo<BackwardFixture::ParamType>& info) {
                           return std::get<0>(info.param) + "_" + attn::kernel_name(std::get<1>(info.param));
                         });

TEST(BackwardFixtures, EveryFileIsTested) {
  std::set<std::string> tested(std::begin(kBackwardFixtures), std::end(kBackwardFixtures));
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATTN_FIXTURES_DIR) + "/backward")) {
    EXPECT_TRUE(tested.count(entry.path().stem().string())) << entry.path() << " is not in kBackwardFixtures";
  }
}

TEST(BackwardFixtures, PaddedRowWithoutKeysContributesNothing) {
  // Sequence 0's row 0 sees no key (causal, key 0 padded): its output is 0 whatever x[0, 0] is, so
  // changing the gradient flowing into it must not change any gradient.
  const Fixture f = load_fixture("backward/key_padding_fully_masked_row");
  attn::Tensor g = attn_test::json_tensor(f.raw.at("grad_output"));
  const attn::Gradients a = attn::attend_backward(f.make_inputs(), f.options, attn_test::view_of(g));
  const int d_out = g.shape[2];
  for (int c = 0; c < d_out; ++c) g.data[c] += 5.0f;
  const attn::Gradients b = attn::attend_backward(f.make_inputs(), f.options, attn_test::view_of(g));
  for (const char* name : {"x", "wq", "wk", "wv"}) EXPECT_EQ(gradient(a, name).data, gradient(b, name).data) << name;
}

// Larger random calls than the fixtures (several tiles, odd widths): every kernel against the
// reference kernel, with and without projections.
TEST(AttendBackward, KernelsAgreeOnLargerInputs) {
  std::mt19937 rng(41);
  struct Shape {
    int B, T, D, H, dk, dv, d_out;
    bool causal, padded;
  };
  const Shape shapes[] = {
      {2, 67, 12, 3, 9, 12, 5, true, false}, {1, 130, 8, 2, 8, 6, 0, false, true}, {3, 17, 7, 1, 7, 7, 0, true, true}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE("B=" + std::to_string(s.B) + " T=" + std::to_string(s.T) + " H=" + std::to_string(s.H));
    const auto x = attn_test::random_tensor(rng, {s.B, s.T, s.D});
    const float spread = 1.0f / std::sqrt(static_cast<float>(s.D));
    const auto wq = attn_test::random_tensor(rng, {s.D, s.dk}, -spread, spread);
    const auto wk = attn_test::random_tensor(rng, {s.D, s.dk}, -spread, spread);
    const auto wv = attn_test::random_tensor(rng, {s.D, s.dv}, -spread, spread);
    const auto bq = attn_test::random_tensor(rng, {s.dk});
    const auto wo = attn_test::random_tensor(rng, {s.dv, s.d_out ? s.d_out : 1});
    attn::Inputs in;
    in.x = x.view();
    in.wq = wq.view();
    in.wk = wk.view();
    in.wv = wv.view();
    in.bq = bq.view();
    if (s.d_out) in.wo = wo.view();
    attn::Options options;
    options.heads = s.H;
    options.causal = s.causal;
    if (s.padded) {
      options.key_padding.assign(static_cast<size_t>(s.B) * s.T, 1);
      options.key_padding_shape = {s.B, s.T};
      for (int j = 0; j < s.T; j += 4) options.key_padding[j] = 0;
    }
    const attn::Trace trace = attn::attend(in, options);
    const auto g = attn_test::random_tensor(rng, trace.output.shape);
    options.kernel = attn::Kernel::kReference;
    const attn::Gradients want = attn::attend_backward(in, options, g.view());
    for (attn::Kernel kernel : {attn::Kernel::kEigen, attn::Kernel::kSimd, attn::Kernel::kTiled}) {
      SCOPED_TRACE(attn::kernel_name(kernel));
      options.kernel = kernel;
      options.materialize = kernel != attn::Kernel::kTiled;
      const attn::Gradients got = attn::attend_backward(in, options, g.view());
      for (const char* name : {"x", "wq", "wk", "wv", "bq", "wo"}) {
        const attn::Tensor& w = gradient(want, name);
        double m = 0.0;
        for (float v : w.data) m = std::max(m, static_cast<double>(std::abs(v)));
        // Both sides round: twice the head bound, with n = T + D for the projections' sums.
        const double bound = 2.0 * (4.0 * gamma(s.T + s.D + s.dv) + 1e-6) * std::max(1.0, m) * 4.0;
        EXPECT_TRUE(attn_test::TensorsNear(gradient(got, name), w, Tolerance{bound, 0.0}, name)) << "bound " << bound;
      }
    }
  }
}

TEST(AttendBackward, GradOutputOfTheWrongShapeOrNotFiniteIsNamed) {
  std::mt19937 rng(42);
  const auto x = attn_test::random_tensor(rng, {3, 4});
  attn::Inputs in;
  in.x = x.view();
  attn::Options options;
  const auto wrong = attn_test::random_tensor(rng, {3, 5});
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::attend_backward(in, options, wrong.view()); },
                                      {"gradOutput", "expected shape (3, 4)"}));
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::attend_backward(in, options, attn::TensorView{}); },
                                      {"gradOutput", "got ()"}));
  auto bad = attn_test::random_tensor(rng, {3, 4});
  bad.data[5] = NAN;
  EXPECT_TRUE(
      attn_test::ThrowsNaming([&] { attn::attend_backward(in, options, bad.view()); }, {"gradOutput", "flat index 5"}));
  bad.data[5] = 2e4f;
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::attend_backward(in, options, bad.view()); }, {"gradOutput", "1e4"}));
  // The inputs are checked first, with attend()'s messages.
  const auto bad_wq = attn_test::random_tensor(rng, {5, 2}), w = attn_test::random_tensor(rng, {4, 2});
  in.wq = bad_wq.view();
  in.wk = w.view();
  in.wv = w.view();
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { attn::attend_backward(in, options, wrong.view()); }, {"wq", "expected"}));
}

}  // namespace

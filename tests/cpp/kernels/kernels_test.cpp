// Cross-tests: every _simd kernel against its scalar _ref twin (src/kernels/), and the double
// instantiation of the _ref loops against the float one.
//
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
//
// Sizes are chosen to break vector assumptions: 1, 3, 4, 5, 7, 16, 17, 67, 1000 rows/keys
// (below, at and around the 4-lane vector, the 8-wide panel, the 4-row micro-kernel block and
// the 32 × 64 tile of the fused kernel), and head sizes 1, 3, 5, 17, 64, 67.
//
// Where the tolerance comes from: the _simd kernels compute the same sums in a different
// order (vector lanes, blocks, tiles), so each dot product of length n may differ from the
// reference by the classic bound |Σ̂ − Σ| ≤ γ_n · Σ|a_p b_p|, γ_n = n·u/(1 − n·u), u = 2⁻²⁴
// (Higham, Accuracy and Stability, §3.1), for both sides: we allow 2·γ_n·Σ|a_p b_p| plus
// 1e-6 of the value for rounding of the final scale, computed per element. The vector e^x is
// a Cephes polynomial with relative error < 2e-7 (tested below against std::exp at 1e-6).
// Softmax and attention outputs add the exp error and the propagation of the score error
// through e^x (relative weight error ≈ absolute score error); see attention_tolerance().
// The bounds are worst-case and data-dependent, so a wrong index or a missed element
// (errors of order 1) always fails them, while honest reordering never does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/f32x4.h"
#include "kernels/kernels.h"

namespace attn::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kU = 1.0 / (1 << 24);  // unit roundoff of float32

const int kSizes[] = {1, 3, 4, 5, 7, 16, 17, 67, 1000};
const int kHeadSizes[] = {1, 3, 5, 17, 64, 67};

std::vector<float> random_vector(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> x(n);
  for (float& v : x) v = dist(gen);
  return x;
}

double gamma(int n) { return n * kU / (1.0 - n * kU); }

// Head sizes tried for a given T: every head size for small T; at T = 1000 (a reference
// call is ~T²·hk multiply-adds) the odd, the vector-friendly and the odd-over-64 one.
std::vector<int> head_sizes_for(int T) {
  if (T < 1000) return {std::begin(kHeadSizes), std::end(kHeadSizes)};
  return {3, 64, 67};
}

// ---------------------------------------------------------------------------------------
// The f32x4 exp itself.

TEST(KernelF32x4Exp, MatchesStdExpWithinOneMicroRelative) {
  std::vector<float> x;
  for (float v = -87.0f; v <= 88.0f; v += 0.0137f) x.push_back(v);
  x.push_back(0.0f);
  x.push_back(-1e-8f);
  while (x.size() % 4) x.push_back(0.5f);
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); i += 4) {
    float out[4];
    simd::store(out, simd::exp(simd::load(&x[i])));
    for (int t = 0; t < 4; ++t) {
      const double want = std::exp(static_cast<double>(x[i + t]));
      worst = std::max(worst, std::abs(out[t] - want) / want);
    }
  }
  EXPECT_LT(worst, 1e-6) << "worst relative error of the f32x4 exp";
}

TEST(KernelF32x4Exp, MinusInfinityAndDeepUnderflowGiveExactZero) {
  const float x[4] = {-kInf, -1000.0f, -88.0f, -87.0f};
  float out[4];
  simd::store(out, simd::exp(simd::load(x)));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_GT(out[3], 0.0f);
}

TEST(KernelF32x4Exp2, MatchesStdExp2WithinOneMicroRelativeAndUnderflowsToExactZero) {
  std::vector<float> x;
  for (float v = -126.0f; v <= 127.0f; v += 0.0173f) x.push_back(v);
  for (float v : {0.0f, -1e-8f, 0.5f, -0.5f, 1.5f}) x.push_back(v);
  while (x.size() % 4) x.push_back(0.25f);
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); i += 4) {
    float out[4];
    simd::store(out, simd::exp2(simd::load(&x[i])));
    for (int t = 0; t < 4; ++t) {
      const double want = std::exp2(static_cast<double>(x[i + t]));
      worst = std::max(worst, std::abs(out[t] - want) / want);
    }
  }
  EXPECT_LT(worst, 1e-6) << "worst relative error of the f32x4 exp2";
  const float deep[4] = {-kInf, -1000.0f, -127.0f, -126.0f};
  float out[4];
  simd::store(out, simd::exp2(simd::load(deep)));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_GT(out[3], 0.0f);
}

TEST(KernelSimdEnabled, MatchesTheCompiledVectorBackend) {
#if defined(__wasm_simd128__) || defined(__SSE4_1__)
  EXPECT_TRUE(simd_enabled()) << simd::kF32x4Name;
#else
  EXPECT_FALSE(simd_enabled());
#endif
}

// ---------------------------------------------------------------------------------------
// Projections.

// y (M, N) = x (M, K) · w + bias, w element (p, j) at w[p·sp + j·sj]: bound per element.
void expect_matmul_close(const std::vector<float>& got, const std::vector<float>& want, const std::vector<float>& x,
                         const std::vector<float>& w, const float* bias, int M, int K, int N, int sp, int sj) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double abs_sum = bias ? std::abs(bias[j]) : 0.0;
      for (int p = 0; p < K; ++p) abs_sum += std::abs(x[i * K + p] * w[p * sp + j * sj]);
      const double tol = 2.0 * gamma(K + 1) * abs_sum + 1e-30;
      ASSERT_NEAR(got[i * N + j], want[i * N + j], tol) << "at (" << i << ", " << j << ")";
    }
  }
}

TEST(KernelMatmul, SimdMatchesReferenceOnOddShapesWithAndWithoutBias) {
  for (int M : {1, 3, 4, 5, 7, 17, 67}) {
    for (int K : {1, 3, 4, 5, 17, 64, 67}) {
      for (int N : {1, 3, 5, 8, 9, 17, 67}) {
        for (bool with_bias : {false, true}) {
          SCOPED_TRACE("M=" + std::to_string(M) + " K=" + std::to_string(K) + " N=" + std::to_string(N) +
                       " bias=" + std::to_string(with_bias));
          const auto x = random_vector(M * K, 1 + M);
          const auto w = random_vector(K * N, 2 + K);
          const auto b = random_vector(N, 3 + N);
          const float* bias = with_bias ? b.data() : nullptr;
          std::vector<float> want(M * N), got(M * N, kInf);
          matmul_ref(want.data(), x.data(), w.data(), bias, M, K, N);
          matmul_simd(got.data(), x.data(), w.data(), bias, M, K, N);
          expect_matmul_close(got, want, x, w, bias, M, K, N, N, 1);
        }
      }
    }
  }
}

TEST(KernelMatmulNt, SimdMatchesReferenceOnOddShapesInLinearLayout) {
  for (int M : {1, 3, 4, 5, 7, 17, 67}) {
    for (int K : {1, 3, 4, 5, 17, 64, 67}) {
      for (int N : {1, 3, 5, 8, 9, 17, 67, 192}) {
        for (bool with_bias : {false, true}) {
          SCOPED_TRACE("M=" + std::to_string(M) + " K=" + std::to_string(K) + " N=" + std::to_string(N) +
                       " bias=" + std::to_string(with_bias));
          const auto x = random_vector(M * K, 11 + M);
          const auto w = random_vector(N * K, 12 + K);  // (N, K)
          const auto b = random_vector(N, 13 + N);
          const float* bias = with_bias ? b.data() : nullptr;
          std::vector<float> want(M * N), got(M * N, kInf);
          matmul_nt_ref(want.data(), x.data(), w.data(), bias, M, K, N);
          matmul_nt_simd(got.data(), x.data(), w.data(), bias, M, K, N);
          expect_matmul_close(got, want, x, w, bias, M, K, N, 1, K);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Q·Kᵀ scores.

TEST(KernelQkScores, SimdMatchesReferenceAndCausalUpperHalfIsMinusInfinity) {
  for (int T : kSizes) {
    for (int hk : head_sizes_for(T)) {
      for (bool causal : {false, true}) {
        SCOPED_TRACE("T=" + std::to_string(T) + " hk=" + std::to_string(hk) + " causal=" + std::to_string(causal));
        const auto q = random_vector(T * hk, 21 + T);
        const auto k = random_vector(T * hk, 22 + hk);
        const float alpha = 1.0f / std::sqrt(static_cast<float>(hk));
        std::vector<float> want(T * T), got(T * T, 12345.0f);
        qk_scores_ref(want.data(), q.data(), k.data(), T, hk, alpha, causal);
        qk_scores_simd(got.data(), q.data(), k.data(), T, hk, alpha, causal);
        for (int i = 0; i < T; ++i) {
          for (int j = 0; j < T; ++j) {
            if (causal && j > i) {
              ASSERT_EQ(got[i * T + j], -kInf) << "masked entry (" << i << ", " << j << ")";
              continue;
            }
            double abs_sum = 0.0;
            for (int c = 0; c < hk; ++c) abs_sum += std::abs(q[i * hk + c] * k[j * hk + c]);
            const double tol = 2.0 * gamma(hk) * alpha * abs_sum + 1e-6 * std::abs(want[i * T + j]) + 1e-30;
            ASSERT_NEAR(got[i * T + j], want[i * T + j], tol) << "at (" << i << ", " << j << ")";
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Row softmax.

// Softmax outputs: the vector exp (≤ 2e-7 relative, ×2 for safety) and the sum in another
// order (γ_cols relative) give a relative error per weight of about 1e-6 + 2·γ_cols, in
// addition to the reference's own rounding of e^x. Absolute floor 1e-9 for tiny weights.
double softmax_tolerance(float want, int cols) { return (1e-6 + 2.0 * gamma(cols)) * std::abs(want) + 1e-9; }

TEST(KernelSoftmaxRows, SimdMatchesReferenceAndMaskedEntriesAreExactZeros) {
  for (int rows : kSizes) {
    for (int cols : kSizes) {
      if (rows * cols > 200000) continue;
      for (bool causal : {false, true}) {
        if (causal && rows != cols) continue;
        SCOPED_TRACE("rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
                     " causal=" + std::to_string(causal));
        auto w = random_vector(rows * cols, 31 + rows * 7 + cols, -8.0f, 8.0f);
        // Sprinkle −∞ (masked) entries, and make row 1 fully masked when it exists.
        for (int i = 0; i < rows * cols; i += 5) w[i] = -kInf;
        if (rows > 1 && !causal)
          for (int j = 0; j < cols; ++j) w[cols + j] = -kInf;
        if (causal)  // entries above the diagonal must not be read: poison them
          for (int i = 0; i < rows; ++i)
            for (int j = i + 1; j < cols; ++j) w[i * cols + j] = std::numeric_limits<float>::quiet_NaN();
        auto want = w, got = w;
        softmax_rows_ref(want.data(), rows, cols, causal);
        softmax_rows_simd(got.data(), rows, cols, causal);
        for (int i = 0; i < rows * cols; ++i) {
          const bool masked = std::isinf(w[i]) || std::isnan(w[i]);
          if (masked) {
            ASSERT_EQ(got[i], 0.0f) << "masked entry " << i;
          } else {
            ASSERT_NEAR(got[i], want[i], softmax_tolerance(want[i], cols)) << "entry " << i;
          }
        }
      }
    }
  }
}

TEST(KernelSoftmaxRows, FullyMaskedRowBecomesAllZeros) {
  std::vector<float> w(2 * 7, -kInf);
  w[7 + 3] = 0.5f;
  softmax_rows_simd(w.data(), 2, 7, false);
  for (int j = 0; j < 7; ++j) EXPECT_EQ(w[j], 0.0f);
  EXPECT_FLOAT_EQ(w[7 + 3], 1.0f);
}

// ---------------------------------------------------------------------------------------
// weights · V.

TEST(KernelWeightedSum, SimdMatchesReferenceAndCausalNeverReadsAboveDiagonal) {
  for (int T : kSizes) {
    for (int hv : head_sizes_for(T)) {
      for (bool causal : {false, true}) {
        SCOPED_TRACE("T=" + std::to_string(T) + " hv=" + std::to_string(hv) + " causal=" + std::to_string(causal));
        auto w = random_vector(T * T, 41 + T, 0.0f, 1.0f);
        const auto v = random_vector(T * hv, 42 + hv);
        if (causal)  // weights above the diagonal are "taken as 0" and must not be read
          for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j) w[i * T + j] = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> want(T * hv), got(T * hv, kInf);
        weighted_sum_ref(want.data(), w.data(), v.data(), T, hv, causal);
        weighted_sum_simd(got.data(), w.data(), v.data(), T, hv, causal);
        for (int i = 0; i < T; ++i) {
          const int live = causal ? i + 1 : T;
          for (int c = 0; c < hv; ++c) {
            double abs_sum = 0.0;
            for (int j = 0; j < live; ++j) abs_sum += std::abs(w[i * T + j] * v[j * hv + c]);
            const double tol = 2.0 * gamma(live) * abs_sum + 1e-30;
            ASSERT_NEAR(got[i * hv + c], want[i * hv + c], tol) << "at (" << i << ", " << c << ")";
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Fused tiled attention.

struct AttentionCase {
  int T, hk, hv;
  bool causal;
  bool padded;
};

// Score errors e_s ≤ 2·γ_hk·alpha·Σ|q k| become relative weight errors ≈ 2·e_s after e^x and
// normalisation, plus ~1e-6 for the exp polynomial and 2·γ_T for the sums over keys. The
// output is a convex combination of v rows, so its error is at most that relative error
// times max|v| (|v| ≤ 1 here), plus 2·γ_T for the weighted sum itself.
double attention_tolerance(const std::vector<float>& q, const std::vector<float>& k, int T, int hk, float alpha) {
  double worst_abs_score = 0.0;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; j += std::max(1, T / 64)) {  // a sample of rows/keys bounds it well
      double s = 0.0;
      for (int c = 0; c < hk; ++c) s += std::abs(q[i * hk + c] * k[j * hk + c]);
      worst_abs_score = std::max(worst_abs_score, s);
    }
  const double e_s = 2.0 * gamma(hk) * alpha * worst_abs_score * 2.0;  // ×2: sampled max
  return 2.0 * e_s + 1e-6 + 4.0 * gamma(T);
}

void run_tiled_case(const AttentionCase& tc, unsigned seed) {
  const int T = tc.T, hk = tc.hk, hv = tc.hv;
  SCOPED_TRACE("T=" + std::to_string(T) + " hk=" + std::to_string(hk) + " hv=" + std::to_string(hv) +
               " causal=" + std::to_string(tc.causal) + " padded=" + std::to_string(tc.padded));
  // Larger scores than N(0,1) so the running max really moves from tile to tile.
  const auto q = random_vector(T * hk, seed, -2.0f, 2.0f);
  const auto k = random_vector(T * hk, seed + 1, -2.0f, 2.0f);
  const auto v = random_vector(T * hv, seed + 2);
  std::vector<std::uint8_t> keep;
  if (tc.padded) {  // drop every third key (key 0 included) and the last one
    keep.assign(T, 1);
    for (int j = 0; j < T; j += 3) keep[j] = 0;
    keep[T - 1] = 0;
  }
  const std::uint8_t* kk = tc.padded ? keep.data() : nullptr;
  const float alpha = 1.0f / std::sqrt(static_cast<float>(hk));
  std::vector<float> want(T * hv), got(T * hv, kInf);
  attention_tiled_ref<float>(want.data(), nullptr, q.data(), k.data(), v.data(), kk, T, hk, hv, alpha, tc.causal);
  attention_tiled_simd(got.data(), nullptr, q.data(), k.data(), v.data(), kk, T, hk, hv, alpha, tc.causal);
  const double tol = attention_tolerance(q, k, T, hk, alpha);
  for (int i = 0; i < T * hv; ++i) ASSERT_NEAR(got[i], want[i], tol) << "at (" << i / hv << ", " << i % hv << ")";
}

TEST(KernelAttentionTiled, SimdMatchesReferenceOnOddSizesCausalAndPadded) {
  unsigned seed = 51;
  for (int T : kSizes)
    for (int hs : head_sizes_for(T))
      for (bool causal : {false, true})
        for (bool padded : {false, true}) run_tiled_case({T, hs, hs, causal, padded}, seed += 3);
}

TEST(KernelAttentionTiled, SimdMatchesReferenceWhenKeyAndValueWidthsDiffer) {
  unsigned seed = 901;
  for (int T : {5, 67, 130})
    for (bool causal : {false, true}) {
      run_tiled_case({T, 17, 5, causal, true}, seed += 3);
      run_tiled_case({T, 3, 64, causal, false}, seed += 3);
    }
}

TEST(KernelAttentionTiled, FullyPaddedRowsGiveZerosAndCausalFirstRowsWithoutKeysToo) {
  const int T = 9, hs = 5;
  const auto q = random_vector(T * hs, 7), k = random_vector(T * hs, 8), v = random_vector(T * hs, 9);
  std::vector<std::uint8_t> none(T, 0);
  std::vector<float> out(T * hs, kInf);
  attention_tiled_simd(out.data(), nullptr, q.data(), k.data(), v.data(), none.data(), T, hs, hs, 1.0f, false);
  for (float x : out) ASSERT_EQ(x, 0.0f);
  // Causal with keys 0..3 dropped: rows 0..3 see no key at all.
  std::vector<std::uint8_t> keep(T, 1);
  for (int j = 0; j < 4; ++j) keep[j] = 0;
  attention_tiled_simd(out.data(), nullptr, q.data(), k.data(), v.data(), keep.data(), T, hs, hs, 1.0f, true);
  for (int i = 0; i < 4 * hs; ++i) ASSERT_EQ(out[i], 0.0f);
  for (int c = 0; c < hs; ++c) EXPECT_NEAR(out[4 * hs + c], v[4 * hs + c], 1e-6);  // row 4 sees key 4 only
}

// The fused reference itself against the three-pass reference (scores, softmax, weights·V),
// so the online-softmax bookkeeping of attention_tiled_ref is checked too.
TEST(KernelAttentionTiled, ReferenceAgreesWithThreePassReference) {
  for (int T : {1, 5, 17, 67})
    for (int hs : {1, 5, 64})
      for (bool causal : {false, true}) {
        SCOPED_TRACE("T=" + std::to_string(T) + " hs=" + std::to_string(hs) + " causal=" + std::to_string(causal));
        const auto q = random_vector(T * hs, 61 + T, -2.0f, 2.0f);
        const auto k = random_vector(T * hs, 62 + hs, -2.0f, 2.0f);
        const auto v = random_vector(T * hs, 63);
        const float alpha = 0.3f;
        std::vector<float> s(T * T), three(T * hs), fused(T * hs);
        qk_scores_ref(s.data(), q.data(), k.data(), T, hs, alpha, causal);
        softmax_rows_ref(s.data(), T, T, causal);
        weighted_sum_ref(three.data(), s.data(), v.data(), T, hs, causal);
        attention_tiled_ref<float>(fused.data(), nullptr, q.data(), k.data(), v.data(), nullptr, T, hs, hs, alpha,
                                   causal);
        const double tol = attention_tolerance(q, k, T, hs, alpha);
        for (int i = 0; i < T * hs; ++i) ASSERT_NEAR(fused[i], three[i], tol) << "at " << i;
      }
}

// ---------------------------------------------------------------------------------------
// The double instantiation of the _ref loops (for finite-difference checks) against the float
// one on the same inputs. Double is exact here to ~1e-16, so the difference is the float
// loops' own rounding: γ_n·Σ|terms| for a sum of n products (one side only), a few u for each
// exp and division in a softmax row plus γ_cols for its sum, and for the fused reference the
// score error through e^x (attention_tolerance(), which also covers the running rescaling).

std::vector<double> widen(const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); }

TEST(KernelRefDouble, DoubleInstantiationAgreesWithFloatWithinFloatRounding) {
  for (int T : {1, 3, 4, 5, 7, 16, 17, 67})
    for (int hs : {1, 3, 5, 17, 67})
      for (bool causal : {false, true}) {
        SCOPED_TRACE("T=" + std::to_string(T) + " hs=" + std::to_string(hs) + " causal=" + std::to_string(causal));
        const auto q = random_vector(T * hs, 71 + T), k = random_vector(T * hs, 72 + hs), v = random_vector(T * hs, 73);
        const auto bias = random_vector(hs, 74);
        const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));

        // matmul and matmul_nt: y (T, hs) = q (T, hs) · w (hs, hs) + bias, w read as (K, N) and as (N, K)
        std::vector<float> yf(T * hs);
        std::vector<double> yd(T * hs);
        const std::vector<float> w = random_vector(hs * hs, 75 + hs);
        for (bool nt : {false, true}) {
          (nt ? matmul_nt_ref<float> : matmul_ref<float>)(yf.data(), q.data(), w.data(), bias.data(), T, hs, hs);
          (nt ? matmul_nt_ref<double> : matmul_ref<double>)(yd.data(), widen(q).data(), widen(w).data(),
                                                            widen(bias).data(), T, hs, hs);
          for (int i = 0; i < T; ++i)
            for (int j = 0; j < hs; ++j) {
              double abs_sum = std::abs(bias[j]);
              for (int p = 0; p < hs; ++p) abs_sum += std::abs(q[i * hs + p] * (nt ? w[j * hs + p] : w[p * hs + j]));
              ASSERT_NEAR(yf[i * hs + j], yd[i * hs + j], gamma(hs + 1) * abs_sum + 1e-30) << "matmul nt=" << nt;
            }
        }

        // qk_scores, then softmax_rows, then weighted_sum, each from the same float input
        std::vector<float> sf(T * T);
        std::vector<double> sd(T * T);
        qk_scores_ref(sf.data(), q.data(), k.data(), T, hs, alpha, causal);
        qk_scores_ref(sd.data(), widen(q).data(), widen(k).data(), T, hs, static_cast<double>(alpha), causal);
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j) {
            if (causal && j > i) {
              ASSERT_EQ(sf[i * T + j], -kInf);
              ASSERT_EQ(sd[i * T + j], -std::numeric_limits<double>::infinity());
              continue;
            }
            double abs_sum = 0.0;
            for (int c = 0; c < hs; ++c) abs_sum += std::abs(q[i * hs + c] * k[j * hs + c]);
            ASSERT_NEAR(sf[i * T + j], sd[i * T + j],
                        (gamma(hs) * abs_sum + 2 * kU * std::abs(sd[i * T + j])) * alpha + 1e-30)
                << "scores (" << i << ", " << j << ")";
          }

        std::vector<float> wf = sf;
        std::vector<double> wd = widen(sf);
        softmax_rows_ref(wf.data(), T, T, causal);
        softmax_rows_ref(wd.data(), T, T, causal);
        for (int i = 0; i < T * T; ++i)
          ASSERT_NEAR(wf[i], wd[i], (8 * kU + gamma(T)) * wd[i] + 1e-30) << "softmax entry " << i;

        std::vector<float> of(T * hs);
        std::vector<double> od(T * hs);
        weighted_sum_ref(of.data(), wf.data(), v.data(), T, hs, causal);
        weighted_sum_ref(od.data(), widen(wf).data(), widen(v).data(), T, hs, causal);
        for (int i = 0; i < T; ++i)
          for (int c = 0; c < hs; ++c) {
            double abs_sum = 0.0;
            for (int j = 0; j < (causal ? i + 1 : T); ++j) abs_sum += std::abs(wf[i * T + j] * v[j * hs + c]);
            ASSERT_NEAR(of[i * hs + c], od[i * hs + c], gamma(T) * abs_sum + 1e-30)
                << "weighted sum (" << i << ", " << c << ")";
          }

        std::vector<float> tf(T * hs);
        std::vector<double> td(T * hs);
        attention_tiled_ref<float>(tf.data(), nullptr, q.data(), k.data(), v.data(), nullptr, T, hs, hs, alpha, causal);
        attention_tiled_ref<double>(td.data(), nullptr, widen(q).data(), widen(k).data(), widen(v).data(), nullptr, T,
                                    hs, hs, static_cast<double>(alpha), causal);
        const double tol = attention_tolerance(q, k, T, hs, alpha);
        for (int i = 0; i < T * hs; ++i) ASSERT_NEAR(tf[i], td[i], tol) << "tiled at " << i;
      }
}

}  // namespace
}  // namespace attn::kernels

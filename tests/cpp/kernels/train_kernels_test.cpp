// Cross-tests: the training kernels' _simd versions against their _ref twins
// (src/kernels/train_kernels.h), and the float reference against the double one.
//
// Legend: M/K/N matrix sizes; C += op(A)·B; n element count.
//
// Sizes break vector assumptions: every M, K, N in {1, 3, 4, 5, 7, 16, 17, 67} (below, at and
// around the 4-lane vector, the 8-wide panel and the 4-row block), plus K in {255, 256, 257, 600}
// around the 256-row slices the kernels pack. Pointers are misaligned by 0–3 floats, each operand
// differently (Highway's offsets within a lane).
//
// Where the tolerance comes from: both versions compute c0 + Σ_p a_p·b_p in float32, in
// different orders (ref: the sum first, then the add; simd: c0 first, lanes and K slices). Each
// is within γ_{K+1}·(|c0| + Σ|a_p b_p|) of the exact value, γ_n = n·u/(1 − n·u), u = 2⁻²⁴ (Higham,
// Accuracy and Stability, §3.1), so they differ by at most twice that, computed per element.
// A wrong index or a missed term gives errors of the order of the terms and always fails.
//
// GELU: _simd's erf (Abramowitz & Stegun 7.1.26) is within 1.5e-7 of the true erf; evaluated in
// float with the f32x4 exp (relative error < 2e-7) the total stays below e_erf = 5e-7 (measured
// below: about 2.5e-7). So |Δy| ≤ 0.5·|x|·e_erf + 4u·|y| and, with pdf = e^(−x²/2)/√(2π),
// |Δdx| ≤ |dy|·(0.5·e_erf + |x|·pdf·1e-6) + 4u·|dx|, against the std::erf/std::exp reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/train_kernels.h"

namespace attn::kernels {
namespace {

constexpr double kU = 1.0 / (1 << 24);
const int kSizes[] = {1, 3, 4, 5, 7, 16, 17, 67};

double gamma(long long n) { return n * kU / (1.0 - n * kU); }

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(gen);
  return x;
}

// Operands at a float offset inside a larger buffer (so the data starts misaligned).
struct Shifted {
  std::vector<float> storage;
  int offset;
  Shifted(const std::vector<float>& values, int off) : storage(values.size() + 4, 0.0f), offset(off) {
    std::copy(values.begin(), values.end(), storage.begin() + off);
  }
  float* data() { return storage.data() + offset; }
  std::vector<float> values(std::size_t n) const {
    return std::vector<float>(storage.begin() + offset, storage.begin() + offset + static_cast<std::ptrdiff_t>(n));
  }
};

enum class Op { kAcc, kTn };

// Per-element bound 2·γ_{K+1}·(|c0| + Σ|a b|), with op(a)(i, p) read as the kernel reads it.
std::vector<double> bounds(Op op, const std::vector<float>& c0, const std::vector<float>& a,
                           const std::vector<float>& b, int M, int K, int N) {
  std::vector<double> out(static_cast<std::size_t>(M) * N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double s = std::fabs(c0[static_cast<std::size_t>(i) * N + j]);
      for (int p = 0; p < K; ++p) {
        const float av =
            op == Op::kAcc ? a[static_cast<std::size_t>(i) * K + p] : a[static_cast<std::size_t>(p) * M + i];
        s += std::fabs(static_cast<double>(av) * b[static_cast<std::size_t>(p) * N + j]);
      }
      out[static_cast<std::size_t>(i) * N + j] = 2.0 * gamma(K + 1) * s + 1e-30;
    }
  }
  return out;
}

::testing::AssertionResult ProductsAgree(Op op, int M, int K, int N, int oc, int oa, int ob) {
  const unsigned seed = static_cast<unsigned>(M * 131 + K * 17 + N * 7 + oc + oa * 5 + ob * 11);
  const std::vector<float> a = random_vector(static_cast<std::size_t>(M) * K, seed);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(K) * N, seed + 1);
  const std::vector<float> c0 = random_vector(static_cast<std::size_t>(M) * N, seed + 2);
  Shifted cr(c0, oc), cs(c0, oc), as(a, oa), bs(b, ob);
  if (op == Op::kAcc) {
    matmul_acc_ref<float>(cr.data(), as.data(), bs.data(), M, K, N);
    matmul_acc_simd(cs.data(), as.data(), bs.data(), M, K, N);
  } else {
    matmul_tn_ref<float>(cr.data(), as.data(), bs.data(), M, K, N);
    matmul_tn_simd(cs.data(), as.data(), bs.data(), M, K, N);
  }
  const std::vector<double> bound = bounds(op, c0, a, b, M, K, N);
  const std::vector<float> want = cr.values(c0.size()), got = cs.values(c0.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= bound[i])) {
      return ::testing::AssertionFailure()
             << (op == Op::kAcc ? "matmul_acc" : "matmul_tn") << " M=" << M << " K=" << K << " N=" << N << " offsets ("
             << oc << ", " << oa << ", " << ob << "): element " << i << " simd " << got[i] << ", ref " << want[i]
             << ", bound " << bound[i];
    }
  }
  // The padding around the output is never written.
  for (int k = 0; k < oc; ++k)
    if (cs.storage[static_cast<std::size_t>(k)] != 0.0f) return ::testing::AssertionFailure() << "wrote before c";
  for (std::size_t k = static_cast<std::size_t>(oc) + c0.size(); k < cs.storage.size(); ++k)
    if (cs.storage[k] != 0.0f) return ::testing::AssertionFailure() << "wrote past c";
  return ::testing::AssertionSuccess();
}

const int kOffsets[][3] = {{0, 0, 0}, {1, 2, 3}, {3, 1, 2}};

TEST(TrainKernels, MatmulAccSimdMatchesRefOnAwkwardSizesAndMisalignedPointers) {
  for (int M : kSizes)
    for (int K : kSizes)
      for (int N : kSizes)
        for (const auto& o : kOffsets) EXPECT_TRUE(ProductsAgree(Op::kAcc, M, K, N, o[0], o[1], o[2]));
}

TEST(TrainKernels, MatmulTnSimdMatchesRefOnAwkwardSizesAndMisalignedPointers) {
  for (int M : kSizes)
    for (int K : kSizes)
      for (int N : kSizes)
        for (const auto& o : kOffsets) EXPECT_TRUE(ProductsAgree(Op::kTn, M, K, N, o[0], o[1], o[2]));
}

TEST(TrainKernels, ProductsAcrossThePackedSlicesOfKAddEachSliceOnce) {
  // K = 255, 256, 257, 600 cross the 256-row slices: every slice must add to C exactly once.
  for (int K : {255, 256, 257, 600})
    for (int M : {1, 5, 17})
      for (int N : {3, 8, 67}) {
        EXPECT_TRUE(ProductsAgree(Op::kAcc, M, K, N, 1, 0, 3));
        EXPECT_TRUE(ProductsAgree(Op::kTn, M, K, N, 2, 3, 1));
      }
}

TEST(TrainKernels, ProductsAccumulateIntoC) {
  // C starts at 1 everywhere: the result is 1 + A·B, not A·B.
  const int M = 5, K = 3, N = 7;
  const std::vector<float> a = random_vector(M * K, 1), b = random_vector(K * N, 2);
  std::vector<float> c_acc(M * N, 1.0f), c_zero(M * N, 0.0f), c_tn(M * N, 1.0f), at(K * M);
  for (int i = 0; i < M; ++i)
    for (int p = 0; p < K; ++p) at[p * M + i] = a[i * K + p];
  matmul_acc_simd(c_acc.data(), a.data(), b.data(), M, K, N);
  matmul_acc_simd(c_zero.data(), a.data(), b.data(), M, K, N);
  matmul_tn_simd(c_tn.data(), at.data(), b.data(), M, K, N);
  for (int i = 0; i < M * N; ++i) {
    EXPECT_FLOAT_EQ(c_acc[i], 1.0f + c_zero[i]);
    EXPECT_FLOAT_EQ(c_tn[i], c_acc[i]);  // Aᵀ read transposed is A
  }
}

TEST(TrainKernels, EmptyProductsLeaveCUnchanged) {
  std::vector<float> c(12, 2.5f);
  const std::vector<float> a(12, 1.0f), b(12, 1.0f);
  matmul_acc_simd(c.data(), a.data(), b.data(), 3, 0, 4);
  matmul_tn_simd(c.data(), a.data(), b.data(), 3, 0, 4);
  matmul_acc_ref<float>(c.data(), a.data(), b.data(), 3, 0, 4);
  for (float v : c) EXPECT_EQ(v, 2.5f);
}

TEST(TrainKernels, DoubleReferenceAgreesWithFloatWithinFloatRounding) {
  const int M = 17, K = 67, N = 5;
  const std::vector<float> a = random_vector(M * K, 7), b = random_vector(K * N, 8);
  const std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
  for (Op op : {Op::kAcc, Op::kTn}) {
    std::vector<float> c(M * N, 0.0f);
    std::vector<double> cd(M * N, 0.0);
    if (op == Op::kAcc) {
      matmul_acc_ref<float>(c.data(), a.data(), b.data(), M, K, N);
      matmul_acc_ref<double>(cd.data(), ad.data(), bd.data(), M, K, N);
    } else {
      matmul_tn_ref<float>(c.data(), a.data(), b.data(), M, K, N);
      matmul_tn_ref<double>(cd.data(), ad.data(), bd.data(), M, K, N);
    }
    const std::vector<double> bound = bounds(op, std::vector<float>(M * N, 0.0f), a, b, M, K, N);
    for (int i = 0; i < M * N; ++i) EXPECT_LE(std::fabs(c[i] - cd[i]), bound[i] / 2) << i;
  }
}

// ---------------------------------------------------------------------------------------
// GELU

constexpr double kErfError = 5e-7;

TEST(TrainKernels, GeluSimdMatchesRefWithinTheErfApproximation) {
  // A dense sweep of [-12, 12] (both tails, where erf saturates) plus values near 0.
  std::vector<float> x;
  for (float v = -12.0f; v <= 12.0f; v += 0.00097f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, 3e4f, -3e4f}) x.push_back(v);
  const std::vector<float> dy = random_vector(x.size(), 21);
  const long long n = static_cast<long long>(x.size());
  std::vector<float> yr(x.size()), ys(x.size()), dxr(x.size(), 0.0f), dxs(x.size(), 0.0f);
  gelu_forward_ref<float>(yr.data(), x.data(), n);
  gelu_forward_simd(ys.data(), x.data(), n);
  gelu_backward_ref<float>(dxr.data(), dy.data(), x.data(), n);
  gelu_backward_simd(dxs.data(), dy.data(), x.data(), n);
  double worst_y = 0, worst_dx = 0;  // measured error over the allowed bound
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ax = std::fabs(x[i]);
    const double pdf = std::exp(-0.5 * ax * ax) / std::sqrt(2 * M_PI);
    const double allowed_y = 0.5 * ax * kErfError + 4 * kU * std::fabs(yr[i]) + 1e-37;
    const double allowed_dx =
        std::fabs(dy[i]) * (0.5 * kErfError + ax * pdf * 1e-6) + 4 * kU * std::fabs(dxr[i]) + 1e-37;
    const double ey = std::fabs(static_cast<double>(ys[i]) - yr[i]),
                 edx = std::fabs(static_cast<double>(dxs[i]) - dxr[i]);
    worst_y = std::max(worst_y, ey / allowed_y);
    worst_dx = std::max(worst_dx, edx / allowed_dx);
    ASSERT_LE(ey, allowed_y) << "y at x = " << x[i] << ": simd " << ys[i] << ", ref " << yr[i];
    ASSERT_LE(edx, allowed_dx) << "dx at x = " << x[i] << ": simd " << dxs[i] << ", ref " << dxr[i];
  }
  std::printf("  [gelu] simd vs ref over %zu values: worst error %.2f (y) and %.2f (dx) of the bound\n", x.size(),
              worst_y, worst_dx);
}

TEST(TrainKernels, GeluSimdTailsAndMisalignedPointersGoThroughTheSameCode) {
  // Every length and offset gives, element by element, what the aligned bulk call gives.
  const std::vector<float> x = random_vector(80, 31), dy = random_vector(80, 32);
  std::vector<float> y_all(80), dx_all(80, 0.5f);
  gelu_forward_simd(y_all.data(), x.data(), 80);
  gelu_backward_simd(dx_all.data(), dy.data(), x.data(), 80);
  for (int n : kSizes) {
    for (int offset = 0; offset < 4; ++offset) {
      if (offset + n > 80) continue;
      Shifted xs(std::vector<float>(x.begin() + offset, x.begin() + offset + n), offset);
      Shifted gs(std::vector<float>(dy.begin() + offset, dy.begin() + offset + n), (offset + 1) % 4);
      Shifted ys(std::vector<float>(n, 0.0f), (offset + 2) % 4), dxs(std::vector<float>(n, 0.5f), (offset + 3) % 4);
      gelu_forward_simd(ys.data(), xs.data(), n);
      gelu_backward_simd(dxs.data(), gs.data(), xs.data(), n);
      for (int i = 0; i < n; ++i) {
        EXPECT_EQ(ys.values(n)[i], y_all[offset + i]) << "n " << n << " offset " << offset;
        EXPECT_EQ(dxs.values(n)[i], dx_all[offset + i]) << "n " << n << " offset " << offset;
      }
    }
  }
}

TEST(TrainKernels, GeluOfZeroIsZeroAndTheTailsAreExact) {
  const float x[] = {0.0f, -20.0f, 20.0f, -1e4f, 1e4f};
  float y[5], yr[5];
  gelu_forward_simd(y, x, 5);
  gelu_forward_ref<float>(yr, x, 5);
  EXPECT_NEAR(y[0], 0.0f, 1e-30f);
  EXPECT_EQ(y[1], 0.0f);  // x · 0.5 · (1 + erf(−∞)) = x · 0
  EXPECT_EQ(y[2], 20.0f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 1e4f);
  for (int i = 1; i < 5; ++i) EXPECT_EQ(y[i], yr[i]);
}

// GELU, tanh form (GPT-2's gelu_new). Both versions compute u = √(2/π)·(x + 0.044715·x³) with
// the same float operations in the same order, so they differ only after it: _ref takes
// 0.5·x·(1 + tanh u) with libm's tanh (≤ 1 ulp; 1 + tanh u then carries an absolute error up to
// ~2·2⁻²⁴ that cancellation makes relative when tanh u ≈ −1), _simd x/(1 + e^(−2u)) with the
// f32x4 exp (relative error 2e-7, at most 0.5e-7 of s = 1/(1 + e)). So |y_simd − y_ref| is
// within |x|·2e-7 plus a few roundings of y. The derivative adds x·(1 − tanh²u)·du/dx, where
// _ref's 1 − t² carries the same absolute error (torch's tanh_backward computes it the same way):
// |dx_simd − dx_ref| ≤ |dy|·(2e-7 + |x|·du/dx·4e-7) plus roundings.
TEST(TrainKernels, GeluTanhSimdMatchesRefWithinTheExpApproximation) {
  std::vector<float> x;
  for (float v = -12.0f; v <= 12.0f; v += 0.00097f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, 3e4f, -3e4f}) x.push_back(v);
  const std::vector<float> dy = random_vector(x.size(), 22);
  const long long n = static_cast<long long>(x.size());
  std::vector<float> yr(x.size()), ys(x.size()), dxr(x.size(), 0.0f), dxs(x.size(), 0.0f);
  gelu_tanh_forward_ref<float>(yr.data(), x.data(), n);
  gelu_tanh_forward_simd(ys.data(), x.data(), n);
  gelu_tanh_backward_ref<float>(dxr.data(), dy.data(), x.data(), n);
  gelu_tanh_backward_simd(dxs.data(), dy.data(), x.data(), n);
  double worst_y = 0, worst_dx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ax = std::fabs(x[i]);
    const double du = 0.7978845608 * (1 + 3 * 0.044715 * ax * ax);
    const double allowed_y = ax * 2e-7 + 4 * kU * std::fabs(yr[i]) + 1e-37;
    const double allowed_dx = std::fabs(dy[i]) * (2e-7 + ax * du * 4e-7) + 8 * kU * std::fabs(dxr[i]) + 1e-37;
    const double ey = std::fabs(static_cast<double>(ys[i]) - yr[i]),
                 edx = std::fabs(static_cast<double>(dxs[i]) - dxr[i]);
    worst_y = std::max(worst_y, ey / allowed_y);
    worst_dx = std::max(worst_dx, edx / allowed_dx);
    ASSERT_LE(ey, allowed_y) << "y at x = " << x[i] << ": simd " << ys[i] << ", ref " << yr[i];
    ASSERT_LE(edx, allowed_dx) << "dx at x = " << x[i] << ": simd " << dxs[i] << ", ref " << dxr[i];
  }
  std::printf("  [gelu tanh] simd vs ref over %zu values: worst error %.2f (y) and %.2f (dx) of the bound\n", x.size(),
              worst_y, worst_dx);
}

TEST(TrainKernels, GeluTanhSimdTailsAndMisalignedPointersGoThroughTheSameCode) {
  const std::vector<float> x = random_vector(80, 33), dy = random_vector(80, 34);
  std::vector<float> y_all(80), dx_all(80, 0.5f);
  gelu_tanh_forward_simd(y_all.data(), x.data(), 80);
  gelu_tanh_backward_simd(dx_all.data(), dy.data(), x.data(), 80);
  for (int n : kSizes) {
    for (int offset = 0; offset < 4; ++offset) {
      if (offset + n > 80) continue;
      Shifted xs(std::vector<float>(x.begin() + offset, x.begin() + offset + n), offset);
      Shifted gs(std::vector<float>(dy.begin() + offset, dy.begin() + offset + n), (offset + 1) % 4);
      Shifted ys(std::vector<float>(n, 0.0f), (offset + 2) % 4), dxs(std::vector<float>(n, 0.5f), (offset + 3) % 4);
      gelu_tanh_forward_simd(ys.data(), xs.data(), n);
      gelu_tanh_backward_simd(dxs.data(), gs.data(), xs.data(), n);
      for (int i = 0; i < n; ++i) {
        EXPECT_EQ(ys.values(n)[i], y_all[offset + i]) << "n " << n << " offset " << offset;
        EXPECT_EQ(dxs.values(n)[i], dx_all[offset + i]) << "n " << n << " offset " << offset;
      }
    }
  }
}

TEST(TrainKernels, GeluTanhOfZeroIsZeroAndTheTailsAreExact) {
  const float x[] = {0.0f, -20.0f, 20.0f, -1e4f, 1e4f};
  float y[5], yr[5];
  gelu_tanh_forward_simd(y, x, 5);
  gelu_tanh_forward_ref<float>(yr, x, 5);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);  // 0.5 · x · (1 + tanh(−∞)) = x · 0
  EXPECT_EQ(y[2], 20.0f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 1e4f);
  for (int i = 1; i < 5; ++i) EXPECT_EQ(y[i], yr[i]);
}

}  // namespace
}  // namespace attn::kernels

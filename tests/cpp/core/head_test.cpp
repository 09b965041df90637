// One head's pass sequence (src/core/head.cpp, head_forward) through each kernel table:
// the reference loops, Eigen and the f32x4 kernels against the reference table, and the path
// without intermediates against the path with them.
//
// Legend: T tokens, hk query/key head width, hv value head width.
//
// Sizes break vector assumptions: T and head widths in {1, 3, 4, 5, 7, 16, 17, 67} (below, at and
// around the 4-lane vector, the 8-wide panel and the 4-row micro-kernel block).
//
// Where the tolerance comes from. The tables compute the same sums in other orders (lanes,
// panels, Eigen's blocks), so with |q|, |k|, |v| ≤ 1 each score may differ from the reference by
//   e_s = 2·γ_hk·hk,  γ_n = n·u/(1 − n·u), u = 2⁻²⁴       (Higham, Accuracy and Stability, §3.1)
// (both sides err by γ_hk·Σ|q k| ≤ γ_hk·hk). Scaled and masked scores add |α| and one rounding of
// the product each (2u relative). A softmax weight moves by a factor within e^(±2·|α|·e_s), so its
// relative error is 2·|α|·e_s, plus 1e-6 for the exp (the f32x4 and Eigen polynomials are within
// 2e-7 of std::exp, KernelF32x4Exp checks it, ×5 for the three roundings of exp, sum and
// normalise) and 2·γ_T for the row sum in another order. The head output is a combination of v
// rows with weights summing to at most 1/(1 − p), so its absolute error is at most that relative
// weight error plus 2·γ_T for its own sum, times max|v| = 1 and the dropout scale. Masked entries
// are compared exactly: −∞ in masked, 0 in weights and dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/head.h"
#include "test_util.h"

namespace {

using attn::HeadInputs;
using attn::HeadIntermediates;
using attn::KernelTable;
using attn_test::Tolerance;
using attn_test::ValuesNear;

constexpr double kU = 1.0 / (1 << 24);  // unit roundoff of float32
const int kSizes[] = {1, 3, 4, 5, 7, 16, 17, 67};

double gamma(int n) { return n * kU / (1.0 - n * kU); }

struct Table {
  const char* name;
  const KernelTable* kernels;
};
const Table kTables[] = {
    {"reference", &attn::kReferenceKernels}, {"eigen", &attn::kEigenKernels}, {"simd", &attn::kSimdKernels}};

enum class Padding { kNone, kEveryThirdKey, kEveryKey };  // kEveryKey: every row fully masked

// One head's inputs and what the passes produce from them.
struct HeadCase {
  int T, hk, hv;
  bool causal;
  Padding padding;
  bool dropout;
  std::vector<float> q, k, v;
  std::vector<std::uint8_t> key_keep, keep;

  std::string describe() const {
    return "T=" + std::to_string(T) + " hk=" + std::to_string(hk) + " hv=" + std::to_string(hv) +
           " causal=" + std::to_string(causal) + " padding=" + std::to_string(static_cast<int>(padding)) +
           " dropout=" + std::to_string(dropout);
  }

  HeadInputs inputs() const {
    HeadInputs in;
    in.q = q.data();
    in.k = k.data();
    in.v = v.data();
    in.key_keep = padding == Padding::kNone ? nullptr : key_keep.data();
    in.keep = dropout ? keep.data() : nullptr;
    in.dropout = 0.25f;
    in.alpha = 1.0f / std::sqrt(static_cast<float>(hk));
    in.causal = causal;
    in.T = T;
    in.hk = hk;
    in.hv = hv;
    return in;
  }
};

HeadCase make_case(int T, int hk, int hv, bool causal, Padding padding, bool dropout, std::mt19937& rng) {
  HeadCase c{T, hk, hv, causal, padding, dropout, {}, {}, {}, {}, {}};
  auto fill = [&](std::vector<float>& x, int n) {
    x.resize(static_cast<size_t>(n));
    for (float& value : x) value = attn_test::uniform(rng, -1.0f, 1.0f);
  };
  fill(c.q, T * hk);
  fill(c.k, T * hk);
  fill(c.v, T * hv);
  c.key_keep.assign(static_cast<size_t>(T), 1);
  for (int j = 0; j < T; ++j) {
    if (padding == Padding::kEveryKey || (padding == Padding::kEveryThirdKey && j % 3 == 0)) c.key_keep[j] = 0;
  }
  // Keep flags: 0 drops, and any nonzero byte keeps (216 included: fuzz finding F5).
  c.keep.resize(static_cast<size_t>(T) * T);
  for (auto& flag : c.keep) {
    const int r = attn_test::uniform_int(rng, 0, 3);
    flag = r == 0 ? 0 : r == 1 ? 216 : 1;
  }
  return c;
}

// Every case of the sweep: each T with each head size (hv rotated through the sizes so widths
// differ), causal on and off, three paddings, with and without dropout.
std::vector<HeadCase> sweep() {
  std::mt19937 rng(2024);
  std::vector<HeadCase> cases;
  const int n = sizeof kSizes / sizeof kSizes[0];
  for (int T : kSizes)
    for (int a = 0; a < n; ++a)
      for (bool causal : {false, true})
        for (Padding padding : {Padding::kNone, Padding::kEveryThirdKey, Padding::kEveryKey})
          for (bool dropout : {false, true})
            cases.push_back(make_case(T, kSizes[a], kSizes[(a + 3) % n], causal, padding, dropout, rng));
  return cases;
}

// The head's outputs, with every intermediate or with the ones `keep` names.
struct HeadResult {
  std::vector<float> scores, scaled, masked, weights, dropped, out;
};
enum Kept : unsigned { kScores = 1, kScaled = 2, kMasked = 4, kWeights = 8, kDropped = 16, kAll = 31 };

HeadResult run(const HeadCase& c, const KernelTable& kernels, unsigned kept = kAll) {
  const size_t square = static_cast<size_t>(c.T) * c.T;
  HeadResult r;
  HeadIntermediates intermediates;
  std::vector<float>* buffers[] = {&r.scores, &r.scaled, &r.masked, &r.weights, &r.dropped};
  float** pointers[] = {&intermediates.scores, &intermediates.scaled, &intermediates.masked, &intermediates.weights,
                        &intermediates.dropped};
  for (int i = 0; i < 5; ++i) {
    if (kept & (1u << i)) {
      buffers[i]->assign(square, 12345.0f);  // poison: every entry must be written
      *pointers[i] = buffers[i]->data();
    }
  }
  std::vector<float> scratch(square, 12345.0f);
  r.out.assign(static_cast<size_t>(c.T) * c.hv, 12345.0f);
  attn::head_forward(r.out.data(), intermediates, scratch.data(), c.inputs(), kernels);
  return r;
}

// The largest |got − want| / (abs + rel·|want|) over finite pairs: how much of the tolerance is used.
double used(const std::vector<float>& got, const std::vector<float>& want, Tolerance tol) {
  double worst = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(want[i])) continue;
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    worst = std::max(worst, err / (tol.abs + tol.rel * std::fabs(static_cast<double>(want[i]))));
  }
  return worst;
}

TEST(HeadPasses, EveryKernelTableAgreesWithTheReferenceTableOnAwkwardSizes) {
  int compared = 0;
  double worst_weights = 0.0, worst_out = 0.0;
  for (const HeadCase& c : sweep()) {
    SCOPED_TRACE(c.describe());
    const HeadResult want = run(c, attn::kReferenceKernels);
    const HeadInputs in = c.inputs();
    const double e_s = 2.0 * gamma(c.hk) * c.hk;
    const double alpha = std::fabs(in.alpha);
    const double rel_weight = 2.0 * alpha * e_s + 1e-6 + 2.0 * gamma(c.T);
    const double keep_scale = c.dropout ? 1.0 / (1.0 - in.dropout) : 1.0;
    const Tolerance scores{e_s, 0.0}, scaled{alpha * e_s, 2.0 * kU}, weights{1e-30, rel_weight};
    const Tolerance out{keep_scale * (rel_weight + 2.0 * gamma(c.T)), 0.0};
    for (const Table& table : kTables) {
      SCOPED_TRACE(table.name);
      const HeadResult got = run(c, *table.kernels);
      ASSERT_TRUE(ValuesNear(got.scores, want.scores, scores, "scores"));
      ASSERT_TRUE(ValuesNear(got.scaled, want.scaled, scaled, "scaled"));
      ASSERT_TRUE(ValuesNear(got.masked, want.masked, scaled, "masked"));
      ASSERT_TRUE(ValuesNear(got.weights, want.weights, weights, "weights"));
      ASSERT_TRUE(ValuesNear(got.dropped, want.dropped, weights, "dropped"));
      ASSERT_TRUE(ValuesNear(got.out, want.out, out, "out"));
      worst_weights = std::max(worst_weights, used(got.weights, want.weights, weights));
      worst_out = std::max(worst_out, used(got.out, want.out, out));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 8 * 8 * 2 * 3 * 2 * 3);
  std::printf("[ measured ] head passes vs the reference table: weights use %.0f%%, outputs %.0f%% of the tolerance\n",
              100 * worst_weights, 100 * worst_out);
}

TEST(HeadPasses, ScoresHoldEveryPairEvenWhereMaskedAndMaskedRowsGiveZeros) {
  std::mt19937 rng(7);
  const HeadCase c = make_case(5, 3, 4, true, Padding::kEveryThirdKey, false, rng);
  for (const Table& table : kTables) {
    SCOPED_TRACE(table.name);
    const HeadResult r = run(c, *table.kernels);
    for (int i = 0; i < c.T; ++i) {
      for (int j = 0; j < c.T; ++j) {
        const size_t ij = static_cast<size_t>(i) * c.T + j;
        EXPECT_TRUE(std::isfinite(r.scores[ij])) << "score (" << i << ", " << j << ") is kept even when masked";
        const bool masked = j > i || j % 3 == 0;
        EXPECT_EQ(std::isinf(r.masked[ij]), masked) << "(" << i << ", " << j << ")";
        if (masked) {
          EXPECT_EQ(r.weights[ij], 0.0f) << "(" << i << ", " << j << ")";
        }
      }
    }
    // Row 0 sees only key 0, which is padded: zero weights and a zero output row.
    for (int c_ = 0; c_ < c.hv; ++c_) EXPECT_EQ(r.out[c_], 0.0f);
  }
}

// Without intermediates the passes run in place in one scratch; the sequence and the kernel
// calls are the same, so the output is the same bit for bit (not just within a tolerance).
TEST(HeadPasses, WithoutIntermediatesTheOutputIsBitForBitTheFullPathsPerKernelTable) {
  for (const HeadCase& c : sweep()) {
    SCOPED_TRACE(c.describe());
    for (const Table& table : kTables) {
      SCOPED_TRACE(table.name);
      const HeadResult full = run(c, *table.kernels);
      const HeadResult none = run(c, *table.kernels, 0);
      ASSERT_EQ(none.out, full.out);
      // Some intermediates only: the ones kept are those of the full path.
      const HeadResult scaled_only = run(c, *table.kernels, kScaled);
      ASSERT_EQ(scaled_only.scaled, full.scaled);
      ASSERT_EQ(scaled_only.out, full.out);
      const HeadResult late = run(c, *table.kernels, kWeights | kDropped);
      ASSERT_EQ(late.weights, full.weights);
      ASSERT_EQ(late.dropped, full.dropped);
      ASSERT_EQ(late.out, full.out);
    }
  }
}

}  // namespace

// Properties of attend() on random shapes (seeded): T 1..67, D 1..17, H dividing the widths,
// every projection form, causal or not, with and without key padding and dropout.
//
// Tolerance between kernels, 1e-5 abs + 1e-5 rel: the kernels differ only in summation order
// (scalar loops, Eigen blocks, f32x4 lanes). Inputs are uniform in [-1, 1), so a score is a dot
// product of ≤ 17 terms of size ≤ 1 plus projections of the same size: worst-case float32
// error 17·ε·17 ≈ 3.4e-5 absolute on the largest scores, typically 100× less; the relative
// part covers those, the absolute part the softmax outputs (≤ 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "test_util.h"

namespace {

using attn_test::Owned;
using attn_test::Tolerance;
using attn_test::uniform_int;

constexpr Tolerance kKernelTolerance{1e-5, 1e-5};
const attn::Kernel kMaterialisingKernels[] = {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd};

// One random problem: owns its tensors, hands out Inputs/Options.
struct Case {
  int B = 1, T = 1, D = 1, H = 1, hk = 1, hv = 1;
  int projection = 0;  // 0 none (Q = K = V = x), 1 separate with biases, 2 fused with bias, 3 separate + W_O
  bool batched = true;
  Owned x, wq, wk, wv, bq, bk, bv, wqkv, bqkv, wo, bo;
  attn::Options options;

  std::string describe() const {
    return "B=" + std::to_string(B) + " T=" + std::to_string(T) + " D=" + std::to_string(D) +
           " H=" + std::to_string(H) + " hk=" + std::to_string(hk) + " hv=" + std::to_string(hv) +
           " projection=" + std::to_string(projection) + " causal=" + std::to_string(options.causal) +
           " padding=" + std::to_string(!options.key_padding.empty()) +
           " dropout=" + std::to_string(options.training ? options.dropout : 0.0f);
  }

  attn::Inputs inputs() const {
    attn::Inputs in;
    in.x = x.view();
    if (projection == 1 || projection == 3) {
      in.wq = wq.view();
      in.wk = wk.view();
      in.wv = wv.view();
      if (projection == 1) {
        in.bq = bq.view();
        in.bk = bk.view();
        in.bv = bv.view();
      }
    } else if (projection == 2) {
      in.wqkv = wqkv.view();
      in.bqkv = bqkv.view();
    }
    if (projection == 3) {
      in.wo = wo.view();
      in.bo = bo.view();
    }
    return in;
  }
};

Case random_case(std::mt19937& rng, int index, bool allow_masks = true, bool allow_dropout = true) {
  Case c;
  c.projection = index % 4;
  c.B = uniform_int(rng, 1, 3);
  c.T = uniform_int(rng, 1, 67);
  c.D = uniform_int(rng, 1, 17);
  c.batched = c.B > 1 || index % 3 != 0;
  if (c.projection == 0) {
    // Q = K = V = x: the heads split D itself.
    std::vector<int> divisors;
    for (int h = 1; h <= c.D; ++h)
      if (c.D % h == 0) divisors.push_back(h);
    c.H = divisors[static_cast<size_t>(uniform_int(rng, 0, static_cast<int>(divisors.size()) - 1))];
    c.hk = c.hv = c.D / c.H;
  } else {
    c.H = uniform_int(rng, 1, 4);
    c.hk = uniform_int(rng, 1, 5);
    c.hv = c.projection == 2 ? c.hk : uniform_int(rng, 1, 5);  // fused: d_k = d_v
  }
  const int dk = c.H * c.hk, dv = c.H * c.hv, d_o = uniform_int(rng, 1, 9);
  c.x = c.batched ? attn_test::random_tensor(rng, {c.B, c.T, c.D}) : attn_test::random_tensor(rng, {c.T, c.D});
  c.wq = attn_test::random_tensor(rng, {c.D, dk});
  c.wk = attn_test::random_tensor(rng, {c.D, dk});
  c.wv = attn_test::random_tensor(rng, {c.D, dv});
  c.bq = attn_test::random_tensor(rng, {dk});
  c.bk = attn_test::random_tensor(rng, {dk});
  c.bv = attn_test::random_tensor(rng, {dv});
  c.wqkv = attn_test::random_tensor(rng, {3 * dk, c.D});
  c.bqkv = attn_test::random_tensor(rng, {3 * dk});
  c.wo = attn_test::random_tensor(rng, {dv, d_o});
  c.bo = attn_test::random_tensor(rng, {d_o});
  c.options.heads = c.H;
  c.options.causal = allow_masks && uniform_int(rng, 0, 1) == 1;
  if (allow_masks && uniform_int(rng, 0, 3) == 0) {
    // Key padding, usually keeping most keys; sometimes (B, T), sometimes (T).
    const bool per_batch = c.batched && uniform_int(rng, 0, 1) == 1;
    const int rows = per_batch ? c.B : 1;
    c.options.key_padding_shape = per_batch ? std::vector<int>{c.B, c.T} : std::vector<int>{c.T};
    for (int i = 0; i < rows * c.T; ++i) c.options.key_padding.push_back(uniform_int(rng, 0, 4) != 0 ? 1 : 0);
  }
  if (allow_dropout && uniform_int(rng, 0, 4) == 0) {
    c.options.training = true;
    c.options.dropout = 0.1f * static_cast<float>(uniform_int(rng, 1, 8));
    c.options.seed = static_cast<std::uint64_t>(uniform_int(rng, 0, 1000000));
  }
  if (uniform_int(rng, 0, 4) == 0) c.options.temperature = 0.5f + 0.25f * static_cast<float>(uniform_int(rng, 0, 6));
  return c;
}

attn::Trace run(const Case& c, attn::Kernel kernel) {
  attn::Options opt = c.options;
  opt.kernel = kernel;
  return attn::attend(c.inputs(), opt);
}

constexpr int kCases = 48;

TEST(KernelAgreement, ReferenceVectorizedAndSimdAgreeOnEveryIntermediate) {
  std::mt19937 rng(12345);
  for (int i = 0; i < kCases; ++i) {
    const Case c = random_case(rng, i);
    SCOPED_TRACE(c.describe());
    const attn::Trace ref = run(c, attn::Kernel::kReference);
    for (attn::Kernel kernel : {attn::Kernel::kEigen, attn::Kernel::kSimd}) {
      const attn::Trace got = run(c, kernel);
      EXPECT_EQ(got.kernel, kernel);
      for (const std::string& name : attn_test::trace_tensor_names()) {
        EXPECT_TRUE(attn_test::TensorsNear(attn_test::trace_tensor(got, name), attn_test::trace_tensor(ref, name),
                                           kKernelTolerance, std::string(attn::kernel_name(kernel)) + "." + name));
      }
    }
  }
}

TEST(KernelAgreement, TiledAndUnmaterialisedPathsMatchTheReferenceOutputs) {
  std::mt19937 rng(777);
  for (int i = 0; i < kCases; ++i) {
    const Case c = random_case(rng, i, /*allow_masks=*/true, /*allow_dropout=*/false);
    SCOPED_TRACE(c.describe());
    const attn::Trace ref = run(c, attn::Kernel::kReference);
    for (attn::Kernel kernel : {attn::Kernel::kTiled, attn::Kernel::kSimd, attn::Kernel::kReference,
                                attn::Kernel::kEigen, attn::Kernel::kAuto}) {
      attn::Options opt = c.options;
      opt.kernel = kernel;
      opt.materialize = false;
      const attn::Trace got = attn::attend(c.inputs(), opt);
      EXPECT_TRUE(got.weights.data.empty() && got.scores.data.empty() && got.dropped.data.empty());
      if (kernel == attn::Kernel::kAuto) {
        EXPECT_EQ(got.kernel, attn::Kernel::kTiled);
      }
      for (const char* name : {"q", "k", "v", "head_outputs", "merged", "output"}) {
        EXPECT_TRUE(attn_test::TensorsNear(attn_test::trace_tensor(got, name), attn_test::trace_tensor(ref, name),
                                           kKernelTolerance, std::string(attn::kernel_name(kernel)) + "." + name));
      }
    }
  }
}

TEST(KernelAgreement, AutoPicksSimdWhenMaterialisingAndTiledOtherwise) {
  std::mt19937 rng(1);
  const Case c = random_case(rng, 1, false, false);
  EXPECT_EQ(run(c, attn::Kernel::kAuto).kernel, attn::Kernel::kSimd);
  attn::Options opt = c.options;
  opt.materialize = false;
  EXPECT_EQ(attn::attend(c.inputs(), opt).kernel, attn::Kernel::kTiled);
  opt.training = true;  // dropout needs the weights: not tiled
  opt.dropout = 0.5f;
  EXPECT_EQ(attn::attend(c.inputs(), opt).kernel, attn::Kernel::kSimd);
}

TEST(Softmax, RowsOfWeightsSumToOneAndAreNonNegative) {
  std::mt19937 rng(2024);
  for (int i = 0; i < kCases; ++i) {
    const Case c = random_case(rng, i, true, false);
    SCOPED_TRACE(c.describe());
    for (attn::Kernel kernel : kMaterialisingKernels) {
      const attn::Trace t = run(c, kernel);
      const int T = t.tokens;
      for (size_t row = 0; row < t.weights.data.size() / T; ++row) {
        double sum = 0.0;
        bool any_live = false;
        for (int j = 0; j < T; ++j) {
          const float w = t.weights.data[row * T + j];
          EXPECT_GE(w, 0.0f);
          sum += w;
          any_live = any_live || !std::isinf(t.masked.data[row * T + j]);
        }
        if (any_live) {
          // T terms each rounded once: |sum − 1| ≤ T·ε ≈ 8e-6 for T = 67.
          EXPECT_NEAR(sum, 1.0, 1e-5) << attn::kernel_name(kernel) << " row " << row;
        } else {
          EXPECT_EQ(sum, 0.0) << attn::kernel_name(kernel) << " fully masked row " << row;
        }
      }
    }
  }
}

TEST(CausalMask, FutureWeightsAreExactlyZero) {
  std::mt19937 rng(99);
  int checked = 0;
  for (int i = 0; i < kCases; ++i) {
    Case c = random_case(rng, i);
    c.options.causal = true;
    SCOPED_TRACE(c.describe());
    for (attn::Kernel kernel : kMaterialisingKernels) {
      const attn::Trace t = run(c, kernel);
      const int T = t.tokens;
      for (size_t head = 0; head < static_cast<size_t>(t.batch) * t.heads; ++head)
        for (int q = 0; q < T; ++q)
          for (int k = q + 1; k < T; ++k) {
            const size_t at = (head * T + q) * T + k;
            ASSERT_EQ(t.masked.data[at], -std::numeric_limits<float>::infinity());
            ASSERT_EQ(t.weights.data[at], 0.0f);
            ASSERT_EQ(t.dropped.data[at], 0.0f);
            ++checked;
          }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(CausalMask, ScoresAreStillComputedForEveryPair) {
  // The trace shows q·kᵀ for masked pairs too; only `masked` carries the −∞.
  std::mt19937 rng(5);
  for (int i = 0; i < 12; ++i) {
    Case c = random_case(rng, i, false, false);
    c.options.causal = true;
    SCOPED_TRACE(c.describe());
    for (attn::Kernel kernel : kMaterialisingKernels) {
      attn::Trace causal = run(c, kernel);
      Case open = c;
      open.options.causal = false;
      const attn::Trace unmasked = run(open, kernel);
      EXPECT_TRUE(attn_test::TensorsNear(causal.scores, unmasked.scores, {0, 0}, "scores"));
      EXPECT_TRUE(attn_test::TensorsNear(causal.scaled, unmasked.scaled, {0, 0}, "scaled"));
    }
  }
}

TEST(KeyPadding, PaddedKeysGetExactlyZeroWeightAndTShapeAppliesToEveryBatch) {
  std::mt19937 rng(31);
  for (int i = 0; i < 16; ++i) {
    Case c = random_case(rng, i, false, false);
    c.options.key_padding_shape = {c.T};
    c.options.key_padding.clear();
    for (int j = 0; j < c.T; ++j) c.options.key_padding.push_back(j % 3 == 1 ? 0 : 1);
    SCOPED_TRACE(c.describe());
    const attn::Trace t = run(c, attn::Kernel::kSimd);
    const int T = t.tokens;
    for (size_t row = 0; row < t.weights.data.size() / T; ++row)
      for (int j = 0; j < T; ++j)
        if (j % 3 == 1) {
          ASSERT_EQ(t.weights.data[row * T + j], 0.0f);
          ASSERT_EQ(t.masked.data[row * T + j], -std::numeric_limits<float>::infinity());
        }
    if (c.batched) {
      Case per_batch = c;
      per_batch.options.key_padding_shape = {c.B, c.T};
      per_batch.options.key_padding.clear();
      for (int b = 0; b < c.B; ++b)
        per_batch.options.key_padding.insert(per_batch.options.key_padding.end(), c.options.key_padding.begin(),
                                             c.options.key_padding.end());
      EXPECT_TRUE(attn_test::TensorsNear(run(per_batch, attn::Kernel::kSimd).output, t.output, {0, 0}, "output"));
    }
  }
}

TEST(Permutation, WithoutAMaskTheOutputIsPermutationEquivariant) {
  std::mt19937 rng(4242);
  for (int i = 0; i < kCases; ++i) {
    const Case c = random_case(rng, i, /*allow_masks=*/false, /*allow_dropout=*/false);
    std::vector<int> perm(static_cast<size_t>(c.T));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Case permuted = c;
    for (int b = 0; b < c.B; ++b)
      for (int t = 0; t < c.T; ++t)
        for (int d = 0; d < c.D; ++d)
          permuted.x.data[(static_cast<size_t>(b) * c.T + t) * c.D + d] =
              c.x.data[(static_cast<size_t>(b) * c.T + perm[static_cast<size_t>(t)]) * c.D + d];
    SCOPED_TRACE(c.describe());
    for (attn::Kernel kernel : kMaterialisingKernels) {
      const attn::Trace a = run(c, kernel), p = run(permuted, kernel);
      const int T = c.T, n = a.d_out;
      // output(P·x)[t] = output(x)[perm[t]]; weights(P·x)[t][u] = weights(x)[perm[t]][perm[u]].
      std::vector<float> want_out(a.output.data.size()), want_w(a.weights.data.size());
      for (int b = 0; b < c.B; ++b)
        for (int t = 0; t < T; ++t) {
          const size_t src = static_cast<size_t>(perm[static_cast<size_t>(t)]);
          for (int k = 0; k < n; ++k)
            want_out[(static_cast<size_t>(b) * T + t) * n + k] =
                a.output.data[(static_cast<size_t>(b) * T + src) * n + k];
          for (int h = 0; h < a.heads; ++h)
            for (int u = 0; u < T; ++u) {
              const size_t head = static_cast<size_t>(b) * a.heads + h;
              want_w[(head * T + t) * T + u] = a.weights.data[(head * T + src) * T + perm[static_cast<size_t>(u)]];
            }
        }
      EXPECT_TRUE(attn_test::ValuesNear(p.output.data, want_out, kKernelTolerance, "permuted output"));
      EXPECT_TRUE(attn_test::ValuesNear(p.weights.data, want_w, kKernelTolerance, "permuted weights"));
    }
  }
}

TEST(Scaling, DefaultScaleIsInverseSqrtHeadSizeAndTemperatureDivides) {
  std::mt19937 rng(8);
  for (int i = 0; i < 24; ++i) {
    const Case c = random_case(rng, i, false, false);
    SCOPED_TRACE(c.describe());
    const attn::Trace t = run(c, attn::Kernel::kReference);
    EXPECT_FLOAT_EQ(t.scale, 1.0f / std::sqrt(static_cast<float>(c.hk)));
    const double alpha = static_cast<double>(t.scale) / c.options.temperature;
    for (size_t j = 0; j < t.scores.data.size(); ++j) {
      ASSERT_NEAR(t.scaled.data[j], t.scores.data[j] * alpha, 1e-6 + 1e-6 * std::fabs(t.scores.data[j] * alpha));
    }
    Case none = c;
    none.options.scale_mode = attn::ScaleMode::kNone;
    none.options.temperature = 1.0f;
    const attn::Trace u = run(none, attn::Kernel::kReference);
    EXPECT_EQ(u.scale, 1.0f);
    EXPECT_TRUE(attn_test::TensorsNear(u.scaled, u.scores, {0, 0}, "unscaled"));
  }
}

TEST(Batching, UnbatchedInputEqualsABatchOfOne) {
  std::mt19937 rng(3);
  for (int i = 0; i < 12; ++i) {
    Case c = random_case(rng, i * 3, true, false);  // index % 3 == 0 → possibly unbatched
    if (c.B != 1) continue;
    Case batched = c;
    batched.batched = !c.batched;
    batched.x.shape = c.batched ? std::vector<int>{c.T, c.D} : std::vector<int>{1, c.T, c.D};
    if (batched.options.key_padding_shape.size() == 2) batched.options.key_padding_shape = {c.T};
    const attn::Trace a = run(c, attn::Kernel::kSimd), b = run(batched, attn::Kernel::kSimd);
    EXPECT_NE(a.batched, b.batched);
    for (const std::string& name : attn_test::trace_tensor_names())
      EXPECT_TRUE(
          attn_test::TensorsNear(attn_test::trace_tensor(a, name), attn_test::trace_tensor(b, name), {0, 0}, name));
  }
}

// ---- dropout ----

Case dropout_case(int T, float p, std::uint64_t seed) {
  // x small so every weight is well above 0: a dropped entry is then exactly the zero ones.
  std::mt19937 rng(static_cast<std::uint32_t>(T));
  Case c;
  c.B = 1;
  c.T = T;
  c.D = 2;
  c.x = attn_test::random_tensor(rng, {1, T, 2}, -0.1f, 0.1f);
  c.options.training = true;
  c.options.dropout = p;
  c.options.seed = seed;
  return c;
}

TEST(Dropout, SameSeedGivesTheSameMaskAndOtherSeedsDiffer) {
  for (attn::Kernel kernel : kMaterialisingKernels) {
    const Case c = dropout_case(40, 0.5f, 7);
    const attn::Trace a = run(c, kernel), b = run(c, kernel);
    EXPECT_EQ(a.dropped.data, b.dropped.data);
    EXPECT_EQ(a.output.data, b.output.data);
    const attn::Trace other = run(dropout_case(40, 0.5f, 8), kernel);
    EXPECT_NE(a.dropped.data, other.dropped.data);
    // Every kernel draws the same mask for a seed.
    const attn::Trace ref = run(c, attn::Kernel::kReference);
    for (size_t i = 0; i < a.dropped.data.size(); ++i)
      ASSERT_EQ(a.dropped.data[i] == 0.0f, ref.dropped.data[i] == 0.0f);
  }
}

TEST(Dropout, IdentityWhenNotTrainingOrWhenPIsZero) {
  for (attn::Kernel kernel : kMaterialisingKernels) {
    Case c = dropout_case(24, 0.5f, 3);
    c.options.training = false;
    const attn::Trace eval = run(c, kernel);
    EXPECT_EQ(eval.dropped.data, eval.weights.data);
    Case zero = dropout_case(24, 0.0f, 3);
    const attn::Trace p0 = run(zero, kernel);
    EXPECT_EQ(p0.dropped.data, p0.weights.data);
    EXPECT_EQ(p0.output.data, eval.output.data);
    // A keep-mask is ignored when not training.
    c.options.dropout_keep.assign(24 * 24, 0);
    EXPECT_EQ(run(c, kernel).dropped.data, eval.weights.data);
  }
}

TEST(Dropout, KeptFractionIsOneMinusPOverALargeMatrix) {
  const int T = 256;  // 65536 weights
  for (float p : {0.1f, 0.3f, 0.5f, 0.9f}) {
    const attn::Trace t = run(dropout_case(T, p, 2024), attn::Kernel::kSimd);
    long long kept = 0, live = 0;
    for (size_t i = 0; i < t.weights.data.size(); ++i) {
      ASSERT_GT(t.weights.data[i], 0.0f);
      ++live;
      kept += t.dropped.data[i] != 0.0f;
    }
    const double fraction = static_cast<double>(kept) / static_cast<double>(live);
    const double sigma = std::sqrt(p * (1.0 - p) / static_cast<double>(live));
    // 5 standard deviations: a correct draw fails this about once in 1.7 million seeds.
    EXPECT_NEAR(fraction, 1.0 - p, 5 * sigma) << "p = " << p;
    std::printf("[ measured ] dropout p=%.1f: kept %.4f of %lld (expected %.1f, sigma %.4f)\n", p, fraction, live,
                1.0 - p, sigma);
  }
}

TEST(Dropout, KeptEntriesAreScaledByOneOverOneMinusP) {
  for (attn::Kernel kernel : kMaterialisingKernels) {
    for (float p : {0.2f, 0.5f, 0.75f}) {
      const attn::Trace t = run(dropout_case(32, p, 11), kernel);
      int kept = 0, dropped = 0;
      for (size_t i = 0; i < t.weights.data.size(); ++i) {
        const float d = t.dropped.data[i];
        if (d == 0.0f) {
          ++dropped;
          continue;
        }
        ++kept;
        const double want = static_cast<double>(t.weights.data[i]) / (1.0 - p);
        ASSERT_NEAR(d, want, 2e-7 * want) << attn::kernel_name(kernel) << " p = " << p << " at " << i;
      }
      EXPECT_GT(kept, 0);
      EXPECT_GT(dropped, 0);
    }
  }
}

TEST(Dropout, HeadOutputsUseTheDroppedWeights) {
  // head_outputs = dropped · v, so the outputs differ from the eval-mode ones, and recomputing
  // dropped · v from the trace gives them back.
  const Case c = dropout_case(20, 0.4f, 5);
  const attn::Trace t = run(c, attn::Kernel::kReference);
  const int T = t.tokens, hv = t.dv;
  for (int i = 0; i < T; ++i)
    for (int k = 0; k < hv; ++k) {
      double sum = 0.0;
      for (int j = 0; j < T; ++j)
        sum += static_cast<double>(t.dropped.data[static_cast<size_t>(i) * T + j]) *
               t.v.data[static_cast<size_t>(j) * hv + k];
      EXPECT_NEAR(t.head_outputs.data[static_cast<size_t>(i) * hv + k], sum, 1e-6);
    }
}

}  // namespace

// The keep-mask is documented as "nonzero = keep": a byte of 216 keeps the weight, it does not
// scale it by 216 (fuzz finding F5, once true of the vectorized path only).
TEST(Dropout, AnyNonzeroKeepByteKeepsTheWeightUnscaled) {
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 0.25f, 1.5f, 0.75f};  // (3, 2)
  attn::Inputs in;
  in.x = {x.data(), {3, 2}};
  attn::Options opt;
  opt.training = true;
  opt.dropout = 0.5f;
  opt.dropout_keep = {216, 0, 1, 7, 255, 0, 1, 1, 42};  // (1, 1, 3, 3)
  for (attn::Kernel kernel : {attn::Kernel::kReference, attn::Kernel::kEigen, attn::Kernel::kSimd}) {
    opt.kernel = kernel;
    const attn::Trace t = attn::attend(in, opt);
    for (size_t i = 0; i < opt.dropout_keep.size(); ++i) {
      const float expected = opt.dropout_keep[i] ? t.weights.data[i] * 2.0f : 0.0f;
      EXPECT_FLOAT_EQ(t.dropped.data[i], expected) << attn::kernel_name(kernel) << " entry " << i;
    }
  }
}

// gemm_simd against gemm_ref (src/kernels/gemm.h).
//
// Legend: M/K/N matrix sizes; c (M, N) = [c +] (bias + a·b).
//
// The tolerance is zero: both versions evaluate each element as the same sequence of float32
// operations (start at the bias or 0, add a(i, p)·b(p, j) for p = 0 … K − 1, one rounding per
// multiply and per add, then add c when accumulating), so they must agree bit for bit; any
// reordering, a fused multiply-add or a missed term shows up as a differing bit. Sizes break
// vector assumptions: every M, K, N in {1, 3, 4, 5, 7, 16, 17, 67} (around the 4-lane vector,
// the 4-row micro-kernel and the 8-column panel), K up to 3072 with N across the kernel's column
// blocks and M across its bands of rows, every operand layout (each of a and b row-major or
// transposed), with and without bias, accumulating or not, pointers misaligned by 0–3 floats
// and C with a row stride wider than N (the padding must stay untouched).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/half.h"

namespace attn::kernels {
namespace {

const int kSizes[] = {1, 3, 4, 5, 7, 16, 17, 67};

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(gen);
  return x;
}

struct Case {
  int M, K, N;
  bool a_transposed, b_transposed, bias, accumulate;
  int offset;  // floats every operand is shifted by (misalignment)
  int pad;     // extra columns in c's row stride
};

std::string describe(const Case& k) {
  return "M=" + std::to_string(k.M) + " K=" + std::to_string(k.K) + " N=" + std::to_string(k.N) +
         (k.a_transposed ? " aT" : " a") + (k.b_transposed ? " bT" : " b") + (k.bias ? " bias" : "") +
         (k.accumulate ? " +=" : " =") + " offset " + std::to_string(k.offset) + " pad " + std::to_string(k.pad);
}

::testing::AssertionResult SimdEqualsRef(const Case& k) {
  const unsigned seed = static_cast<unsigned>(k.M * 131 + k.K * 17 + k.N * 7 + k.offset);
  const std::size_t ldc = static_cast<std::size_t>(k.N + k.pad);
  const int o = k.offset;
  const std::vector<float> a = random_vector(static_cast<std::size_t>(k.M) * k.K + o, seed);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(k.K) * k.N + o, seed + 1);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(k.N) + o, seed + 2);
  const std::vector<float> c0 = random_vector(static_cast<std::size_t>(k.M) * ldc + o, seed + 3);
  // a (M, K) stored row-major, or stored as its transpose (K, M); likewise b.
  const MatrixOf<float> am =
      k.a_transposed ? MatrixOf<float>{a.data() + o, 1, k.M} : MatrixOf<float>{a.data() + o, k.K, 1};
  const MatrixOf<float> bm =
      k.b_transposed ? MatrixOf<float>{b.data() + o, 1, k.K} : MatrixOf<float>{b.data() + o, k.N, 1};
  std::vector<float> want = c0, got = c0;
  const float* bp = k.bias ? bias.data() + o : nullptr;
  gemm_ref<float>(want.data() + o, static_cast<std::ptrdiff_t>(ldc), am, bm, bp, k.accumulate, k.M, k.K, k.N);
  gemm_simd(got.data() + o, static_cast<std::ptrdiff_t>(ldc), am, bm, bp, k.accumulate, k.M, k.K, k.N);
  if (std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) != 0) {
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0) {
        return ::testing::AssertionFailure()
               << describe(k) << ": element " << i << " simd " << got[i] << ", ref " << want[i];
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(Gemm, SimdEqualsRefBitForBitOnAwkwardSizesLayoutsAndOffsets) {
  for (int M : kSizes)
    for (int K : kSizes)
      for (int N : kSizes)
        for (int layout = 0; layout < 4; ++layout)
          for (int mode = 0; mode < 4; ++mode) {
            const int offset = (M + K + N + layout + mode) % 4;
            const Case k{M,
                         K,
                         N,
                         (layout & 1) != 0,
                         (layout & 2) != 0,
                         (mode & 1) != 0,
                         (mode & 2) != 0,
                         offset,
                         (K + mode) % 3};
            EXPECT_TRUE(SimdEqualsRef(k));
          }
}

TEST(Gemm, SimdEqualsRefAcrossColumnBlocksAndLongSums) {
  // K = 1000: panels of 8 columns × 1000 rows, 8 per column block, so N = 150 spans three
  // blocks; K = 3072 as GPT-2's MLP projection; M = 9 leaves a row remainder of 1.
  for (int K : {255, 1000, 3072})
    for (int layout = 0; layout < 4; ++layout) {
      EXPECT_TRUE(SimdEqualsRef({9, K, 150, (layout & 1) != 0, (layout & 2) != 0, true, false, 1, 0}));
      EXPECT_TRUE(SimdEqualsRef({6, K, 67, (layout & 1) != 0, (layout & 2) != 0, false, true, 3, 5}));
    }
  // 40 rows at K = 3072 are two bands of packed A: a row-major b is then packed whole, once.
  for (bool accumulate : {false, true})
    EXPECT_TRUE(SimdEqualsRef({40, 3072, 67, false, false, true, accumulate, 2, 1}));
}

TEST(Gemm, EmptySumsGiveTheBiasOrLeaveCUnchanged) {
  // K = 0: c = bias (or 0), or c unchanged when accumulating.
  std::vector<float> c(12, 7.0f);
  const std::vector<float> bias = {1, 2, 3, 4};
  const float none = 0.0f;
  gemm_simd(c.data(), 4, {&none, 0, 1}, {&none, 4, 1}, bias.data(), false, 3, 0, 4);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(c[i], bias[i % 4]);
  gemm_simd(c.data(), 4, {&none, 0, 1}, {&none, 4, 1}, nullptr, true, 3, 0, 4);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(c[i], bias[i % 4]);
}

TEST(Gemm, AnElementIsTheSameInAnyBlockOfTheProduct) {
  // The model splits a product into tiles over threads: computing c in (rows × columns) blocks,
  // each block a separate call on offset pointers, gives the same bits as one call.
  const int M = 37, K = 53, N = 45;
  const std::vector<float> a = random_vector(M * K, 1), b = random_vector(K * N, 2), bias = random_vector(N, 3);
  std::vector<float> whole(M * N), tiled(M * N);
  gemm_simd(whole.data(), N, {a.data(), K, 1}, {b.data(), 1, K}, bias.data(), false, M, K, N);
  for (int i0 = 0; i0 < M; i0 += 11)
    for (int j0 = 0; j0 < N; j0 += 13) {
      const int m = std::min(11, M - i0), n = std::min(13, N - j0);
      gemm_simd(tiled.data() + i0 * N + j0, N, {a.data() + i0 * K, K, 1}, {b.data() + j0 * K, 1, K}, bias.data() + j0,
                false, m, K, n);
    }
  EXPECT_EQ(std::memcmp(whole.data(), tiled.data(), whole.size() * sizeof(float)), 0);
}

// gemm_f16_simd and gemm_f16_ref against gemm_ref over b's halves converted to float32 first:
// the conversion is exact and the sums' order the same, so all three agree bit for bit. b's
// halves are a float32 vector rounded (f32_to_f16_ref), with a subnormal, a zero and a −0 among
// them so the conversion's special cases reach the products.
::testing::AssertionResult F16EqualsRefOverConvertedB(const Case& k) {
  const unsigned seed = static_cast<unsigned>(k.M * 31 + k.K * 7 + k.N * 3 + k.offset);
  const std::size_t ldc = static_cast<std::size_t>(k.N + k.pad);
  const int o = k.offset;
  const std::vector<float> a = random_vector(static_cast<std::size_t>(k.M) * k.K + o, seed);
  const std::vector<float> b32 = random_vector(static_cast<std::size_t>(k.K) * k.N + o, seed + 1);
  std::vector<std::uint16_t> b16(b32.size());
  for (std::size_t i = 0; i < b32.size(); ++i) b16[i] = f32_to_f16_ref(b32[i]);
  b16[b16.size() / 2] = 0x0001;  // the smallest subnormal
  b16[b16.size() / 3] = 0x8000;  // −0
  std::vector<float> b(b16.size());
  f16_to_f32_ref(b.data(), b16.data(), b16.size());
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(k.N) + o, seed + 2);
  const std::vector<float> c0 = random_vector(static_cast<std::size_t>(k.M) * ldc + o, seed + 3);
  const MatrixOf<float> am =
      k.a_transposed ? MatrixOf<float>{a.data() + o, 1, k.M} : MatrixOf<float>{a.data() + o, k.K, 1};
  const MatrixOf<float> bm =
      k.b_transposed ? MatrixOf<float>{b.data() + o, 1, k.K} : MatrixOf<float>{b.data() + o, k.N, 1};
  const MatrixOf<std::uint16_t> bh = k.b_transposed ? MatrixOf<std::uint16_t>{b16.data() + o, 1, k.K}
                                                    : MatrixOf<std::uint16_t>{b16.data() + o, k.N, 1};
  const float* bp = k.bias ? bias.data() + o : nullptr;
  std::vector<float> want = c0, simd = c0, ref = c0;
  gemm_ref<float>(want.data() + o, static_cast<std::ptrdiff_t>(ldc), am, bm, bp, k.accumulate, k.M, k.K, k.N);
  gemm_f16_simd(simd.data() + o, static_cast<std::ptrdiff_t>(ldc), am, bh, bp, k.accumulate, k.M, k.K, k.N);
  gemm_f16_ref(ref.data() + o, static_cast<std::ptrdiff_t>(ldc), am, bh, bp, k.accumulate, k.M, k.K, k.N);
  for (const auto* got : {&simd, &ref}) {
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (std::memcmp(&want[i], &(*got)[i], sizeof(float)) != 0) {
        return ::testing::AssertionFailure() << describe(k) << (got == &simd ? " f16 simd" : " f16 ref") << ": element "
                                             << i << " " << (*got)[i] << ", gemm_ref over float32 " << want[i];
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(GemmRow, OneRowEqualsRefBitForBitForEveryLayoutSizeAndOffset) {
  // gemm_row_simd (and its F16 form) against gemm_ref over one row: every K and N of the sweep
  // and GPT-2's widths, b's columns contiguous (the unpacked path) or not (gemm_simd's),
  // misaligned operands, with and without bias, accumulating or not.
  std::vector<int> Ks(std::begin(kSizes), std::end(kSizes)), Ns = Ks;
  Ks.insert(Ks.end(), {768, 3072});
  Ns.insert(Ns.end(), {33, 150, 2304});
  // Each size's operands are drawn once (with room for every offset) and shared by its sixteen
  // layouts and modes: drawing 3072 × 2304 floats sixteen times took 40 s under WASM.
  for (int K : Ks)
    for (int N : Ns) {
      const std::vector<float> a = random_vector(static_cast<std::size_t>(K) + 3, K + N);
      const std::vector<float> b32 = random_vector(static_cast<std::size_t>(K) * N + 3, K * 3 + N);
      std::vector<std::uint16_t> b16(b32.size());
      for (std::size_t i = 0; i < b32.size(); ++i) b16[i] = f32_to_f16_ref(b32[i]);
      std::vector<float> bh(b16.size());
      f16_to_f32_ref(bh.data(), b16.data(), b16.size());
      const std::vector<float> bias = random_vector(static_cast<std::size_t>(N) + 3, N);
      const std::vector<float> c0 = random_vector(static_cast<std::size_t>(N) + 3, N + 5);
      for (int layout = 0; layout < 2; ++layout)
        for (int mode = 0; mode < 4; ++mode) {
          const bool bt = layout == 0;  // b transposed: its columns contiguous
          const int o = (K + N + mode) % 4;
          const float* bp = (mode & 1) ? bias.data() + o : nullptr;
          const bool acc = (mode & 2) != 0;
          const MatrixOf<float> am{a.data() + o, K, 1};
          const auto of = [&](const auto* data) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(data)>>;
            return bt ? MatrixOf<T>{data + o, 1, K} : MatrixOf<T>{data + o, N, 1};
          };
          std::vector<float> want = c0, got = c0, want16 = c0, got16 = c0;
          gemm_ref<float>(want.data() + o, N, am, of(b32.data()), bp, acc, 1, K, N);
          gemm_row_simd(got.data() + o, am, of(b32.data()), bp, acc, K, N);
          gemm_ref<float>(want16.data() + o, N, am, of(bh.data()), bp, acc, 1, K, N);
          gemm_row_f16_simd(got16.data() + o, am, of(b16.data()), bp, acc, K, N);
          EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)), 0)
              << "K=" << K << " N=" << N << (bt ? " bT" : " b") << " mode " << mode;
          EXPECT_EQ(std::memcmp(want16.data(), got16.data(), want16.size() * sizeof(float)), 0)
              << "f16 K=" << K << " N=" << N << (bt ? " bT" : " b") << " mode " << mode;
        }
    }
}

TEST(GemmF16, SimdAndRefEqualTheFloat32ProductOfTheConvertedHalvesBitForBit) {
  for (int M : kSizes)
    for (int K : kSizes)
      for (int N : kSizes)
        for (int layout = 0; layout < 4; ++layout) {
          const int mode = (M + K + N + layout) % 4, offset = (M + 2 * K + N) % 4;
          EXPECT_TRUE(F16EqualsRefOverConvertedB(
              {M, K, N, (layout & 1) != 0, (layout & 2) != 0, (mode & 1) != 0, (mode & 2) != 0, offset, K % 3}));
        }
  // GPT-2's shapes: one row (a generated token) and 16, K = 768 and 3072, across column blocks,
  // and two bands of rows (a row-major b packed whole).
  for (int M : {1, 16})
    for (int K : {768, 3072}) EXPECT_TRUE(F16EqualsRefOverConvertedB({M, K, 150, false, true, true, false, 1, 0}));
  EXPECT_TRUE(F16EqualsRefOverConvertedB({40, 3072, 67, false, false, true, false, 2, 1}));
}

// gemm_panels_simd and gemm_panels_ref (and their F16 and BF16 forms) against gemm_ref over b unpacked
// (and converted): the panels change where b's elements live, not the order of any sum, so all
// agree bit for bit. N around the micro-kernel's 8 columns and the 32-column panel (a last panel
// narrower than 32, 8 or 4, whole panels before it), one row (the streaming kernel) and several
// (the packed micro-kernels over converted panels), a row with a value beyond 2^15 (the F16
// one-row kernel then scales the weights, not the row), misaligned a.
::testing::AssertionResult PanelsEqualRef(int M, int K, int N, bool bias_on, bool accumulate, int o, float big) {
  const unsigned seed = static_cast<unsigned>(M * 7 + K * 13 + N * 5 + o);
  std::vector<float> a = random_vector(static_cast<std::size_t>(M) * K + o, seed);
  if (big != 0.0f) a[o + static_cast<std::size_t>(K) / 2] = big;
  const std::vector<float> b32 = random_vector(static_cast<std::size_t>(K) * N, seed + 1);
  std::vector<std::uint16_t> b16(b32.size());
  for (std::size_t i = 0; i < b32.size(); ++i) b16[i] = f32_to_f16_ref(b32[i]);
  b16[b16.size() / 2] = 0x0001;  // the smallest subnormal
  b16[b16.size() / 3] = 0x8000;  // −0
  b16[b16.size() / 5] = 0x83ff;  // the largest negative subnormal
  std::vector<float> bh(b16.size());
  f16_to_f32_ref(bh.data(), b16.data(), b16.size());
  std::vector<Bf16> bb(b32.size());
  std::vector<float> bbf(b32.size());
  for (std::size_t i = 0; i < b32.size(); ++i) bb[i] = f32_to_bf16_ref(b32[i]);
  bb[bb.size() / 2] = static_cast<Bf16>(0x0001);  // a float32 subnormal
  bb[bb.size() / 3] = static_cast<Bf16>(0x8000);  // −0
  for (std::size_t i = 0; i < bb.size(); ++i) bbf[i] = bf16_to_f32_ref(bb[i]);
  // b (K, N) row-major, and the same in panels
  std::vector<float> p32(b32.size()), ph(b32.size());
  std::vector<std::uint16_t> p16(b16.size());
  std::vector<Bf16> pbf(bb.size());
  pack_panels(p32.data(), MatrixOf<float>{b32.data(), N, 1}, K, N);
  pack_panels(p16.data(), MatrixOf<std::uint16_t>{b16.data(), N, 1}, K, N);
  pack_panels(pbf.data(), MatrixOf<Bf16>{bb.data(), N, 1}, K, N);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(N), seed + 2);
  const std::vector<float> c0 = random_vector(static_cast<std::size_t>(M) * N, seed + 3);
  const MatrixOf<float> am{a.data() + o, K, 1};
  const float* bp = bias_on ? bias.data() : nullptr;
  std::vector<float> want = c0, want16 = c0, want_bf = c0;
  gemm_ref<float>(want.data(), N, am, {b32.data(), N, 1}, bp, accumulate, M, K, N);
  gemm_ref<float>(want16.data(), N, am, {bh.data(), N, 1}, bp, accumulate, M, K, N);
  gemm_ref<float>(want_bf.data(), N, am, {bbf.data(), N, 1}, bp, accumulate, M, K, N);
  std::vector<float> simd = c0, ref = c0, simd16 = c0, ref16 = c0, simd_bf = c0, ref_bf = c0;
  gemm_panels_simd(simd.data(), N, am, {p32.data()}, bp, accumulate, M, K, N);
  gemm_panels_ref(ref.data(), N, am, {p32.data()}, bp, accumulate, M, K, N);
  gemm_panels_f16_simd(simd16.data(), N, am, {p16.data()}, bp, accumulate, M, K, N);
  gemm_panels_f16_ref(ref16.data(), N, am, {p16.data()}, bp, accumulate, M, K, N);
  gemm_panels_bf16_simd(simd_bf.data(), N, am, {pbf.data()}, bp, accumulate, M, K, N);
  gemm_panels_bf16_ref(ref_bf.data(), N, am, {pbf.data()}, bp, accumulate, M, K, N);
  const std::pair<const std::vector<float>*, const char*> got[] = {{&simd, "simd"},         {&ref, "ref"},
                                                                   {&simd16, "f16 simd"},   {&ref16, "f16 ref"},
                                                                   {&simd_bf, "bf16 simd"}, {&ref_bf, "bf16 ref"}};
  for (const auto& [v, name] : got) {
    const std::vector<float>& w = (v == &simd16 || v == &ref16)     ? want16
                                  : (v == &simd_bf || v == &ref_bf) ? want_bf
                                                                    : want;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (std::memcmp(&w[i], &(*v)[i], sizeof(float)) != 0) {
        return ::testing::AssertionFailure()
               << "M=" << M << " K=" << K << " N=" << N << " bias " << bias_on << " acc " << accumulate << " offset "
               << o << " big " << big << " " << name << ": element " << i << " " << (*v)[i] << ", gemm_ref " << w[i];
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(GemmPanels, SimdAndRefEqualGemmRefOverTheUnpackedWeightsBitForBit) {
  const int Ns[] = {1, 3, 7, 8, 9, 16, 17, 31, 32, 33, 40, 63, 64, 67, 72, 100, 150};
  for (int M : {1, 2, 5, 16})
    for (int K : kSizes)
      for (int N : Ns) {
        const int mode = (M + K + N) % 4;
        EXPECT_TRUE(PanelsEqualRef(M, K, N, (mode & 1) != 0, (mode & 2) != 0, (M + K) % 4, 0.0f));
      }
  // GPT-2's widths for one token, and a row the F16 kernel cannot scale (|a| ≥ 2^15, inf)
  for (int K : {768, 3072}) EXPECT_TRUE(PanelsEqualRef(1, K, 2304 + 5, true, false, 1, 0.0f));
  EXPECT_TRUE(PanelsEqualRef(1, 768, 75, true, false, 2, 40000.0f));
  EXPECT_TRUE(PanelsEqualRef(1, 67, 75, false, true, 0, std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(PanelsEqualRef(40, 768, 75, true, false, 3, 0.0f));  // two bands of rows: panels converted whole
}

TEST(GemmPanels, OneRowWhoseElementsAreNotAdjacentEqualsGemmRef) {
  // a (1, K) read at a stride of 3 (a column of a larger matrix): gathered into a contiguous row
  // first, for float32, halves and bfloat16s alike; the same bits as gemm_ref over b converted.
  const int K = 67, N = kPanel + 11;
  const std::vector<float> a = random_vector(static_cast<std::size_t>(3 * K), 5),
                           b = random_vector(static_cast<std::size_t>(K) * N, 6),
                           bias = random_vector(static_cast<std::size_t>(N), 7);
  const MatrixOf<float> am{a.data(), 3 * K, 3};
  std::vector<std::uint16_t> b16(b.size()), p16(b.size());
  std::vector<Bf16> bb(b.size()), pbf(b.size());
  std::vector<float> p32(b.size()), bh(b.size()), bbf(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    b16[i] = f32_to_f16_ref(b[i]), bb[i] = f32_to_bf16_ref(b[i]);
    bh[i] = f16_to_f32_ref(b16[i]), bbf[i] = bf16_to_f32_ref(bb[i]);
  }
  pack_panels(p32.data(), MatrixOf<float>{b.data(), N, 1}, K, N);
  pack_panels(p16.data(), MatrixOf<std::uint16_t>{b16.data(), N, 1}, K, N);
  pack_panels(pbf.data(), MatrixOf<Bf16>{bb.data(), N, 1}, K, N);
  const auto expect_as_ref = [&](const std::vector<float>& unpacked, auto run, const char* name) {
    std::vector<float> want(static_cast<std::size_t>(N)), got(want.size());
    gemm_ref<float>(want.data(), N, am, {unpacked.data(), N, 1}, bias.data(), false, 1, K, N);
    run(got.data());
    EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)), 0) << name;
  };
  expect_as_ref(
      b, [&](float* c) { gemm_panels_simd(c, N, am, {p32.data()}, bias.data(), false, 1, K, N); }, "f32");
  expect_as_ref(
      bh, [&](float* c) { gemm_panels_f16_simd(c, N, am, {p16.data()}, bias.data(), false, 1, K, N); }, "f16");
  expect_as_ref(
      bbf, [&](float* c) { gemm_panels_bf16_simd(c, N, am, {pbf.data()}, bias.data(), false, 1, K, N); }, "bf16");
}

// The threads' tiles: columns j0 … j0 + n of b in panels are {data + j0·K} with N = n when j0
// and n are multiples of kPanel or the view reaches b's last column; the same bits as the
// whole product, one row and several, for b's elements W (halves or bfloat16s: run).
template <typename W, typename Run>
void expect_column_views_equal_the_whole(const std::vector<W>& packed, int K, int N, Run run, const char* name) {
  for (int M : {1, 3}) {
    const std::vector<float> am = random_vector(static_cast<std::size_t>(M) * K, 3);
    std::vector<float> whole(static_cast<std::size_t>(M) * N), tiled(whole.size());
    run(whole.data(), N, MatrixOf<float>{am.data(), K, 1}, PanelsOf<W>{packed.data()}, M, K, N);
    for (int j0 = 0; j0 < N; j0 += kPanel) {
      const int n = std::min(kPanel, N - j0);
      run(tiled.data() + j0, N, MatrixOf<float>{am.data(), K, 1},
          PanelsOf<W>{packed.data() + static_cast<std::size_t>(j0) * K}, M, K, n);
    }
    EXPECT_EQ(std::memcmp(whole.data(), tiled.data(), whole.size() * sizeof(float)), 0) << name << " M=" << M;
  }
}

TEST(GemmPanels, AColumnViewFromAPanelBoundaryEqualsTheWholeProduct) {
  const int K = 37, N = 2 * kPanel + 29;
  const std::vector<float> b = random_vector(static_cast<std::size_t>(K) * N, 2);
  std::vector<std::uint16_t> b16(b.size()), p16(b.size());
  std::vector<Bf16> bb(b.size()), pbf(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = f32_to_f16_ref(b[i]), bb[i] = f32_to_bf16_ref(b[i]);
  pack_panels(p16.data(), MatrixOf<std::uint16_t>{b16.data(), N, 1}, K, N);
  pack_panels(pbf.data(), MatrixOf<Bf16>{bb.data(), N, 1}, K, N);
  expect_column_views_equal_the_whole(
      p16, K, N,
      [](float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<std::uint16_t> w, int M, int k, int n) {
        gemm_panels_f16_simd(c, ldc, a, w, nullptr, false, M, k, n);
      },
      "f16");
  expect_column_views_equal_the_whole(
      pbf, K, N,
      [](float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<Bf16> w, int M, int k, int n) {
        gemm_panels_bf16_simd(c, ldc, a, w, nullptr, false, M, k, n);
      },
      "bf16");
}

}  // namespace
}  // namespace attn::kernels

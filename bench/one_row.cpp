// One token's linear layers in WASM (a benchmark, not a test; bench/one_row.mjs builds and runs
// it): GPT-2 small's 48 block products and the LM head, every weight in its own buffer (494 MB
// as float32: nothing stays in the 32 MB L3 from one token to the next, as in generation), one
// row through each layout the engine has kept its weights in, and a plain read of the same bytes
// (the memory ceiling). Random weights; bits checked against gemm_ref.
//
// Legend: C model width, V vocabulary, L layers; K inputs, N outputs of a product.
//   today F32     gemm_row_simd, w (N, K) as the F32 model keeps it: 4 × 4 blocks transposed in registers
//   today F16     gemm_row_f16_simd: blocks (K, N) row-major, LM head wte (N, K) (the layouts before panels)
//   panels F32    gemm_panels_simd, w in panels (kernels/gemm.h)
//   panels F16    gemm_panels_f16_simd, halves in panels
//   panels BF16   gemm_panels_bf16_simd, bfloat16s in panels: one 128-bit load per 8 weights, the
//                 even columns read by a shift and the odd by a mask (one integer op per 4
//                 weights, against F16's widening load, shift and mask); 8 times F16's rounding
//                 error. (Before the engine had BF16 this file had a kernel of its own, with
//                 each 8 columns stored as pairs (c_i, c_i+4): 11.3 against F16's 18.3 ms; the
//                 same kernel inlined into main took 22.5 ms, V8's register allocation.)
//   read F32/F16  the same bytes summed as float32 vectors, 4 streams (the memory ceiling)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/f32x4.h"
#include "kernels/gemm.h"
#include "kernels/half.h"

namespace k = attn::kernels;
namespace simd = attn::kernels::simd;
using simd::f32x4;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
volatile float g_sink;

// n floats at w summed in 4 streams of a quarter each (2 vectors per stream per step).
float read4(const float* w, std::size_t n) {
  const std::size_t q = n / 4 / 8 * 8;
  const float *s0 = w, *s1 = w + q, *s2 = w + 2 * q, *s3 = w + 3 * q;
  f32x4 a[8];
  for (auto& v : a) v = simd::zero();
  for (std::size_t i = 0; i < q; i += 8) {
    a[0] = simd::add(a[0], simd::load(s0 + i)), a[1] = simd::add(a[1], simd::load(s0 + i + 4));
    a[2] = simd::add(a[2], simd::load(s1 + i)), a[3] = simd::add(a[3], simd::load(s1 + i + 4));
    a[4] = simd::add(a[4], simd::load(s2 + i)), a[5] = simd::add(a[5], simd::load(s2 + i + 4));
    a[6] = simd::add(a[6], simd::load(s3 + i)), a[7] = simd::add(a[7], simd::load(s3 + i + 4));
  }
  for (int i = 1; i < 8; ++i) a[0] = simd::add(a[0], a[i]);
  return simd::hsum(a[0]);
}

struct Product {
  int K, N;
  std::vector<float> w, panels, bias;            // w (N, K); panels: wᵀ in panels
  std::vector<std::uint16_t> h, h_kn, h_panels;  // halves: (N, K), (K, N), panels
  std::vector<k::Bf16> bf, bf_panels;            // bfloat16: (N, K), panels
};

Product make(int K, int N, std::mt19937& gen) {
  std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
  Product m{K, N, {}, {}, {}, {}, {}, {}, {}, {}};
  const std::size_t n = static_cast<std::size_t>(K) * N;
  m.w.resize(n), m.panels.resize(n), m.h.resize(n), m.h_kn.resize(n), m.h_panels.resize(n);
  m.bf.resize(n), m.bf_panels.resize(n);
  m.bias.assign(N, 0.01f);
  for (std::size_t i = 0; i < n; ++i)
    m.w[i] = dist(gen), m.h[i] = k::f32_to_f16_ref(m.w[i]), m.bf[i] = k::f32_to_bf16_ref(m.w[i]);
  k::pack_panels(m.bf_panels.data(), k::MatrixOf<k::Bf16>{m.bf.data(), 1, K}, K, N);
  k::pack_panels(m.panels.data(), k::MatrixOf<float>{m.w.data(), 1, K}, K, N);
  k::pack_panels(m.h_panels.data(), k::MatrixOf<std::uint16_t>{m.h.data(), 1, K}, K, N);
  for (int j = 0; j < N; ++j)
    for (int p = 0; p < K; ++p) m.h_kn[static_cast<std::size_t>(p) * N + j] = m.h[static_cast<std::size_t>(j) * K + p];
  return m;
}

}  // namespace

int main() {
  const int C = 768, V = 50257, L = 12;
  std::mt19937 gen(1);
  std::vector<Product> products;
  for (int l = 0; l < L; ++l)
    for (auto [K, N] : {std::pair{C, 3 * C}, {C, C}, {C, 4 * C}, {4 * C, C}}) products.push_back(make(K, N, gen));
  products.push_back(make(C, V, gen));
  std::vector<float> x(4 * C), y(V), want(V);
  std::uniform_real_distribution<float> xd(-1.0f, 1.0f);
  for (float& v : x) v = xd(gen);
  std::size_t weights = 0;
  for (const Product& m : products) weights += m.w.size();

  // bits: every layout's row equals gemm_ref over its weights (float32, or the halves converted)
  int mismatches = 0;
  std::vector<float> wh;
  for (const Product& m : products) {
    const k::MatrixOf<float> a{x.data(), m.K, 1};
    k::gemm_ref<float>(want.data(), m.N, a, {m.w.data(), 1, m.K}, m.bias.data(), false, 1, m.K, m.N);
    k::gemm_panels_simd(y.data(), m.N, a, {m.panels.data()}, m.bias.data(), false, 1, m.K, m.N);
    mismatches += std::memcmp(want.data(), y.data(), m.N * sizeof(float)) != 0;
    k::gemm_row_simd(y.data(), a, {m.w.data(), 1, m.K}, m.bias.data(), false, m.K, m.N);
    mismatches += std::memcmp(want.data(), y.data(), m.N * sizeof(float)) != 0;
    wh.resize(m.h.size());
    k::f16_to_f32_ref(wh.data(), m.h.data(), m.h.size());
    k::gemm_ref<float>(want.data(), m.N, a, {wh.data(), 1, m.K}, m.bias.data(), false, 1, m.K, m.N);
    k::gemm_panels_f16_simd(y.data(), m.N, a, {m.h_panels.data()}, m.bias.data(), false, 1, m.K, m.N);
    mismatches += std::memcmp(want.data(), y.data(), m.N * sizeof(float)) != 0;
    for (std::size_t i = 0; i < m.bf.size(); ++i) wh[i] = k::bf16_to_f32_ref(m.bf[i]);
    k::gemm_ref<float>(want.data(), m.N, a, {wh.data(), 1, m.K}, m.bias.data(), false, 1, m.K, m.N);
    k::gemm_panels_bf16_simd(y.data(), m.N, a, {m.bf_panels.data()}, m.bias.data(), false, 1, m.K, m.N);
    mismatches += std::memcmp(want.data(), y.data(), m.N * sizeof(float)) != 0;
  }

  const char* names[] = {"today F32 (gemm_row_simd, w (N, K))", "today F16 (gemm_row_f16_simd, (K, N); wte (N, K))",
                         "panels F32 (gemm_panels_simd)",       "panels F16 (gemm_panels_f16_simd)",
                         "read the F32 bytes (4 streams)",      "read the F16 bytes (4 streams)",
                         "panels BF16 (gemm_panels_bf16_simd)"};
  const int bytes_per[] = {4, 2, 4, 2, 4, 2, 2};
  constexpr int kForms = 7;
  auto token = [&](int form) {
    for (const Product& m : products) {
      const k::MatrixOf<float> a{x.data(), m.K, 1};
      const float* b = m.bias.data();
      switch (form) {
        case 0: k::gemm_row_simd(y.data(), a, {m.w.data(), 1, m.K}, b, false, m.K, m.N); break;
        case 1:
          if (m.N == V) {
            k::gemm_row_f16_simd(y.data(), a, {m.h.data(), 1, m.K}, b, false, m.K, m.N);
          } else {
            k::gemm_row_f16_simd(y.data(), a, {m.h_kn.data(), m.N, 1}, b, false, m.K, m.N);
          }
          break;
        case 2: k::gemm_panels_simd(y.data(), m.N, a, {m.panels.data()}, b, false, 1, m.K, m.N); break;
        case 3: k::gemm_panels_f16_simd(y.data(), m.N, a, {m.h_panels.data()}, b, false, 1, m.K, m.N); break;
        case 4: g_sink = read4(m.w.data(), m.w.size()); break;
        case 5: g_sink = read4(reinterpret_cast<const float*>(m.h.data()), m.h.size() / 2); break;
        default: k::gemm_panels_bf16_simd(y.data(), m.N, a, {m.bf_panels.data()}, b, false, 1, m.K, m.N); break;
      }
      g_sink = y[0];
    }
  };
  // interleaved rounds, the fastest of each form (a slow round is someone else's load)
  double best[kForms];
  for (double& b : best) b = 1e30;
  for (int round = 0; round < 8; ++round)
    for (int f = 0; f < kForms; ++f) {
      const double t0 = now_ms();
      token(f);
      const double t = now_ms() - t0;
      if (t < best[f]) best[f] = t;
    }
  std::printf("{\"weights\": %zu, \"mismatches\": %d, \"forms\": [", weights, mismatches);
  for (int f = 0; f < kForms; ++f) {
    const double gb = static_cast<double>(weights) * bytes_per[f] / 1e9;
    std::printf("%s{\"name\": \"%s\", \"ms\": %.2f, \"GBps\": %.1f}", f ? ", " : "", names[f], best[f],
                gb / (best[f] / 1e3));
  }
  std::printf("]}\n");
}

// Native Google Benchmark of the attention kernels (src/kernels/), same workload as
// bench/run.mjs (and the linear products of bench/kernels.mjs, the thread pool's dispatch cost,
// and where a training step of the model's char config goes: BM_LinearLayer, BM_Elementwise,
// BM_GptStep): float32, B = 1, H heads of hs = 64, one thread,
//   O (H, T, hs) = softmax(Q Kᵀ / √hs [causal]) V.
// Counters: GFLOP/s of useful flops (4·hs per computed query–key pair, causal T(T+1)/2 pairs)
// and the peak of independent f32x4 mul+add chains for the same build (BM_Peak).
//
//   cmake -S . -B build-bench-native -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_BENCH=ON
//   cmake --build build-bench-native -j2 --target attn_native_bench
//   ./build-bench-native/bench/attn_native_bench --benchmark_min_time=0.3
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "core/threads.h"
#include "kernels/f32x4.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "kernels/train_kernels.h"
#include "model/gpt.h"
#include "model/layers.h"

namespace {

namespace k = attn::kernels;
namespace simd = attn::kernels::simd;
constexpr int kHs = 64;

struct Inputs {
  std::vector<float> q, k, v, out, scratch;
};

Inputs make_inputs(int H, int T, bool with_scratch) {
  std::mt19937 gen(1000 * H + T);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Inputs in;
  const std::size_t n = static_cast<std::size_t>(H) * T * kHs;
  for (auto* vec : {&in.q, &in.k, &in.v}) {
    vec->resize(n);
    for (float& x : *vec) x = dist(gen);
  }
  in.out.resize(n);
  if (with_scratch) in.scratch.resize(static_cast<std::size_t>(T) * T);
  return in;
}

double useful_flops(int H, int T, bool causal) {
  const double pairs = causal ? 0.5 * T * (T + 1.0) : 1.0 * T * T;
  return H * pairs * 4.0 * kHs;
}

// Runs one attention implementation over every head of (H, T, hs) inputs and reports GFLOP/s
// of useful flops. args: H, T, causal. per_head(in, h_offset, T, alpha, causal).
template <class PerHead>
void run_heads(benchmark::State& state, bool with_scratch, PerHead per_head) {
  const int H = static_cast<int>(state.range(0)), T = static_cast<int>(state.range(1));
  const bool causal = state.range(2) != 0;
  Inputs in = make_inputs(H, T, with_scratch);
  const float alpha = 1.0f / std::sqrt(static_cast<float>(kHs));
  const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * kHs;
  for (auto _ : state) {
    for (int h = 0; h < H; ++h) per_head(in, h * step, T, alpha, causal);
    benchmark::DoNotOptimize(in.out.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(useful_flops(H, T, causal) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Tiled(benchmark::State& state) {
  run_heads(state, false, [](Inputs& in, std::ptrdiff_t o, int T, float alpha, bool causal) {
    k::attention_tiled_simd(in.out.data() + o, nullptr, in.q.data() + o, in.k.data() + o, in.v.data() + o, nullptr, T,
                            kHs, kHs, alpha, causal);
  });
}

void BM_ThreePass(benchmark::State& state) {
  run_heads(state, true, [](Inputs& in, std::ptrdiff_t o, int T, float alpha, bool causal) {
    k::qk_scores_simd(in.scratch.data(), in.q.data() + o, in.k.data() + o, T, kHs, alpha, causal);
    k::softmax_rows_simd(in.scratch.data(), T, T, causal);
    k::weighted_sum_simd(in.out.data() + o, in.scratch.data(), in.v.data() + o, T, kHs, causal);
  });
}

void BM_Reference(benchmark::State& state) {
  run_heads(state, false, [](Inputs& in, std::ptrdiff_t o, int T, float alpha, bool causal) {
    k::attention_tiled_ref<float>(in.out.data() + o, nullptr, in.q.data() + o, in.k.data() + o, in.v.data() + o,
                                  nullptr, T, kHs, kHs, alpha, causal);
  });
}

// Peak of the f32x4 layer in this build: 12 independent chains acc = acc·m + c (8 flops each).
void BM_Peak(benchmark::State& state) {
  constexpr int kChains = 12, kIters = 100000;
  for (auto _ : state) {
    simd::f32x4 acc[kChains];
    for (int i = 0; i < kChains; ++i) acc[i] = simd::splat(1.0f + 0.001f * i);
    const simd::f32x4 m = simd::splat(0.999999f), c = simd::splat(1e-7f);
    for (int it = 0; it < kIters; ++it) {
      for (int i = 0; i < kChains; ++i) acc[i] = simd::add(simd::mul(acc[i], m), c);
    }
    simd::f32x4 s = acc[0];
    for (int i = 1; i < kChains; ++i) s = simd::add(s, acc[i]);
    benchmark::DoNotOptimize(simd::hsum(s));
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(kChains * kIters * 8.0 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(simd::kF32x4Name);
}

void Shapes(benchmark::internal::Benchmark* b) {
  for (int H : {8, 1})
    for (int causal : {1, 0})
      for (int T : {16, 64, 256, 1024, 2048, 4096}) b->Args({H, T, causal});
  b->ArgNames({"H", "T", "causal"})->Unit(benchmark::kMillisecond);
}

void SmallShapes(benchmark::internal::Benchmark* b) {
  for (int causal : {1, 0})
    for (int T : {16, 64, 256}) b->Args({8, T, causal});
  b->ArgNames({"H", "T", "causal"})->Unit(benchmark::kMillisecond);
}

// Same peak in the kernels' instruction mix: 6 chains acc = acc + x·y, x broadcast from an
// L1 array each step (bench/wasm_kernels.cpp, form 1).
void BM_PeakBroadcast(benchmark::State& state) {
  constexpr int kChains = 6, kIters = 100000;
  static float xs[256];
  for (int i = 0; i < 256; ++i) xs[i] = 1.0f + 0.001f * i;
  for (auto _ : state) {
    simd::f32x4 acc[kChains], y[kChains];
    for (int i = 0; i < kChains; ++i) {
      acc[i] = simd::zero();
      y[i] = simd::splat(1e-7f * (i + 1));
    }
    for (int it = 0; it < kIters; ++it) {
      const simd::f32x4 x = simd::load_splat(&xs[it & 255]);
      for (int i = 0; i < kChains; ++i) acc[i] = simd::add(acc[i], simd::mul(x, y[i]));
    }
    simd::f32x4 s = acc[0];
    for (int i = 1; i < kChains; ++i) s = simd::add(s, acc[i]);
    benchmark::DoNotOptimize(simd::hsum(s));
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(kChains * kIters * 8.0 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(simd::kF32x4Name);
}

// The linear layer's three products on GPT-2-small shapes (bench/kernels.mjs's, natively):
// args R rows, I in, O out features, form 0 y = x·wᵀ + b, 1 dx += dy·w, 2 dw += dyᵀ·x.
void BM_Linear(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), I = static_cast<int>(state.range(1)),
            O = static_cast<int>(state.range(2)), form = static_cast<int>(state.range(3));
  std::mt19937 gen(R + I + O);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> x(static_cast<std::size_t>(R) * I), dy(static_cast<std::size_t>(R) * O),
      w(static_cast<std::size_t>(O) * I), b(static_cast<std::size_t>(O)),
      out(static_cast<std::size_t>(std::max(R, O)) * std::max(I, O));
  for (auto* v : {&x, &dy, &w, &b})
    for (float& e : *v) e = dist(gen);
  for (auto _ : state) {
    if (form == 0) k::gemm_simd(out.data(), O, {x.data(), I, 1}, {w.data(), 1, I}, b.data(), false, R, I, O);
    if (form == 1) k::gemm_simd(out.data(), I, {dy.data(), O, 1}, {w.data(), I, 1}, nullptr, true, R, O, I);
    if (form == 2) k::gemm_simd(out.data(), I, {dy.data(), 1, O}, {x.data(), I, 1}, nullptr, true, O, R, I);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * R * I * O * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void LinearShapes(benchmark::internal::Benchmark* b) {
  for (int R : {16, 64, 256})
    for (auto io : {std::pair<int, int>{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}})
      for (int form : {0, 1, 2}) b->Args({R, io.first, io.second, form});
  b->ArgNames({"R", "I", "O", "form"})->Unit(benchmark::kMillisecond);
}

// The thread pool's cost for a loop of 2 empty tasks (src/core/threads.h's kParallelMinFlops):
// arg the thread count (1: inline).
void BM_ParallelForDispatch(benchmark::State& state) {
  attn::set_thread_count(static_cast<int>(state.range(0)));
  int sink = 0;
  for (auto _ : state) {
    attn::parallel_for(2, 1e12, [&](int i) { benchmark::DoNotOptimize(sink += i); });
  }
  attn::set_thread_count(attn::default_thread_count());
  state.SetLabel(attn::threads_available() ? "std::thread pool" : "no threads");
}

// The char model's MLP product through the linear layer, forward and backward:
// x (1024, 64) · W (256, 64)ᵀ, the (1024×64)·(64×256) product. arg 0 the _ref loops, 1 f32x4.
void BM_LinearLayer(benchmark::State& state) {
  const int N = 1024, I = 64, O = 256;
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(N * I), w(O * I), b(O), dy(N * O), y(N * O), dx(N * I), dw(O * I), db(O);
  for (auto* v : {&x, &w, &b, &dy})
    for (float& e : *v) e = dist(gen);
  namespace m = attn::model;
  for (auto _ : state) {
    if (state.range(0) == 0) {
      m::linear_forward_ref<float>(y.data(), x.data(), w.data(), b.data(), N, I, O);
      m::linear_backward_ref<float>(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), N, I, O);
    } else {
      m::linear_forward_simd(y.data(), x.data(), w.data(), b.data(), N, I, O);
      m::linear_backward_simd(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), N, I, O);
    }
    benchmark::DoNotOptimize(dw.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(3 * 2.0 * N * I * O * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(state.range(0) == 0 ? "ref" : "simd");
}

// The elementwise layers on the same activations (N = 1024 rows), forward and backward: arg 0
// LayerNorm over 64, 1 GELU over 1024 × 256 (_ref), 2 the same GELU (f32x4), 3 cross-entropy
// over V = 256.
void BM_Elementwise(benchmark::State& state) {
  const int N = 1024, I = 64, O = 256;
  std::mt19937 gen(6);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(N * I), y(N * O), dy(N * O), h(N * I), mean(N), rstd(N), g(N * O), probs(N * O);
  std::vector<float> dx(N * I), dw(I), db(I), lw(I, 1.0f), lb(I, 0.0f);
  for (auto* v : {&x, &y, &dy})
    for (float& e : *v) e = dist(gen);
  std::vector<int> targets(N);
  for (int i = 0; i < N; ++i) targets[i] = i % O;
  const long long n = static_cast<long long>(g.size());
  namespace m = attn::model;
  for (auto _ : state) {
    switch (state.range(0)) {
      case 0:
        m::layernorm_forward_ref<float>(h.data(), mean.data(), rstd.data(), x.data(), lw.data(), lb.data(), N, I);
        m::layernorm_backward_ref<float>(dx.data(), dw.data(), db.data(), x.data(), x.data(), lw.data(), mean.data(),
                                         rstd.data(), N, I);
        break;
      case 1:
        k::gelu_forward_ref<float>(g.data(), y.data(), n);
        k::gelu_backward_ref<float>(probs.data(), dy.data(), y.data(), n);
        break;
      case 2:
        k::gelu_forward_simd(g.data(), y.data(), n);
        k::gelu_backward_simd(probs.data(), dy.data(), y.data(), n);
        break;
      default:
        m::cross_entropy_forward_ref<float>(probs.data(), nullptr, y.data(), targets.data(), N, O);
        m::cross_entropy_backward_ref<float>(g.data(), probs.data(), targets.data(), 1.0f, N, O);
    }
    benchmark::ClobberMemory();
  }
  const char* const kNames[] = {"layernorm (1024, 64)", "gelu 1024x256 ref", "gelu 1024x256 simd",
                                "cross-entropy (1024, 256)"};
  state.SetLabel(kNames[state.range(0)]);
}

// One training step (forward, backward, AdamW) of the char model (V 65, L 2, H 4, C 64) at
// B·T = 1024 tokens: args the kernel (attn::Kernel: 0 reference, 2 simd, 3 tiled) and T. Where
// the tiled kernel overtakes simd is gpt.h's kTiledFromT.
void BM_GptStep(benchmark::State& state) {
  const auto kernel = static_cast<attn::Kernel>(state.range(0));
  const int T = static_cast<int>(state.range(1)), B = 1024 / T;
  attn::model::ModelConfig cfg;
  cfg.vocab_size = 65, cfg.block_size = T, cfg.n_layer = 2, cfg.n_head = 4, cfg.n_embd = 64;
  attn::model::Gpt model(cfg, 0);
  model.set_kernel(kernel);
  attn::model::Trainer trainer(model);
  std::mt19937 gen(8);
  std::uniform_int_distribution<int> token(0, cfg.vocab_size - 1);
  std::vector<int> tokens(static_cast<std::size_t>(B) * T), targets(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = token(gen), targets[i] = token(gen);
  const attn::model::Batch batch{tokens.data(), targets.data(), B, T};
  trainer.step(batch, attn::model::StepOptions{});  // the optimizer's state allocated outside the timing
  for (auto _ : state) benchmark::DoNotOptimize(trainer.step(batch, attn::model::StepOptions{}).loss);
  state.SetLabel(attn::kernel_name(kernel));
}

void GptStepShapes(benchmark::internal::Benchmark* b) {
  for (int kernel : {0, 2, 3}) b->Args({kernel, 64});
  for (int T : {128, 256, 512})
    for (int kernel : {2, 3}) b->Args({kernel, T});
  b->ArgNames({"kernel", "T"})->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Peak);
BENCHMARK(BM_PeakBroadcast);
BENCHMARK(BM_Tiled)->Apply(Shapes);
BENCHMARK(BM_ThreePass)->Apply(Shapes);
BENCHMARK(BM_Reference)->Apply(SmallShapes);
BENCHMARK(BM_Linear)->Apply(LinearShapes);
BENCHMARK(BM_ParallelForDispatch)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LinearLayer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Elementwise)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GptStep)->Apply(GptStepShapes);

}  // namespace

BENCHMARK_MAIN();

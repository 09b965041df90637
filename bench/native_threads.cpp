// Native speed-up of the thread pool (src/core/threads.h): the same work with 1 and 2 threads
// (or the counts given), timed in interleaved pairs so load from other jobs on a shared machine
// hits both alike. Prints one JSON object: per workload, each thread count's median and p10–p90
// wall time and the median (p10–p90) of the paired ratios time(1 thread) / time(n threads).
//
//   cmake -S . -B build-bench-native -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_BENCH=ON
//   cmake --build build-bench-native -j2 --target attn_threads_bench
//   ./build-bench-native/bench/attn_threads_bench [--rounds 15] [--threads 2] [--quick]
//
// Workloads (legend: B batch, T tokens, L layers, H heads, C width, V vocabulary):
//   char-step     a training step (forward, backward, clip, AdamW) of the char model:
//                 V 65, L 2, H 4, C 64, context 64, B 16 (bench/train.mjs's model and batch)
//   pretrain-step a training step of nanoGPT's shakespeare-char config: V 65, L 6, H 6, C 384,
//                 context 256, B 4 (B 8 is over the activation cap): a proxy for native pretraining
//   gpt2-forward  the forward of 64 tokens through a GPT-2-small-shaped model (V 50257, H 12,
//                 C 768, random weights) of 4 layers: GPT-2 small's 12 are over the training
//                 config's cap of 2^26 parameters; every layer is the same work, lm_head as GPT-2's
//   attention     causal attention forward, T 1024, H 8, hs 64 (the tiled kernel, heads over
//                 the pool as the model runs them)
//   attention-fwd-bwd  the same forward, then its tiled backward (what a training step runs)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/threads.h"
#include "kernels/kernels.h"
#include "model/gpt.h"

namespace {

using attn::model::Batch;
using attn::model::Gpt;
using attn::model::ModelConfig;
using attn::model::StepOptions;
using attn::model::Trainer;
using Clock = std::chrono::steady_clock;

struct Workload {
  std::string name, what;
  std::function<void()> run;
};

double quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::lround(p * (v.size() - 1)))];
}

double time_ms(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A model, its trainer and a fixed random batch: each run is one training step.
struct TrainingStep {
  Gpt model;
  Trainer trainer;
  std::vector<int> tokens, targets;
  int B, T;
  TrainingStep(const ModelConfig& cfg, int B_, int T_) : model(cfg, 1), trainer(model), B(B_), T(T_) {
    std::mt19937 rng(7);
    tokens.resize(static_cast<std::size_t>(B) * T);
    targets.resize(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      tokens[i] = static_cast<int>(rng() % static_cast<unsigned>(cfg.vocab_size));
      targets[i] = static_cast<int>(rng() % static_cast<unsigned>(cfg.vocab_size));
    }
  }
  void step() { trainer.step(Batch{tokens.data(), targets.data(), B, T}, StepOptions{}); }
};

struct Forward {
  Gpt model;
  std::vector<int> tokens;
  explicit Forward(const ModelConfig& cfg, int T) : model(cfg, 1) {
    std::mt19937 rng(8);
    tokens.resize(static_cast<std::size_t>(T));
    for (int& t : tokens) t = static_cast<int>(rng() % static_cast<unsigned>(cfg.vocab_size));
  }
  void run() { model.forward(Batch{tokens.data(), nullptr, 1, static_cast<int>(tokens.size())}); }
};

struct Attention {
  int H, T, hs;
  std::vector<float> q, k, v, out, lse, dout, dq, dk, dv;
  Attention(int H_, int T_, int hs_) : H(H_), T(T_), hs(hs_) {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const std::size_t n = static_cast<std::size_t>(H) * T * hs;
    for (auto* x : {&q, &k, &v, &dout}) {
      x->resize(n);
      for (float& e : *x) e = u(rng);
    }
    out.resize(n), dq.resize(n), dk.resize(n), dv.resize(n), lse.resize(static_cast<std::size_t>(H) * T);
    forward();
  }
  void forward() {
    const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
    const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
    attn::parallel_for(H, 4.0 * H * T * T * hs, [&](int h) {
      attn::kernels::attention_tiled_simd(out.data() + h * step, lse.data() + h * T, q.data() + h * step,
                                          k.data() + h * step, v.data() + h * step, nullptr, T, hs, hs, alpha, true);
    });
  }
  void backward() {
    const float alpha = 1.0f / std::sqrt(static_cast<float>(hs));
    const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(T) * hs;
    attn::parallel_for(H, 10.0 * H * T * T * hs, [&](int h) {
      attn::kernels::attention_tiled_backward_simd(dq.data() + h * step, dk.data() + h * step, dv.data() + h * step,
                                                   dout.data() + h * step, q.data() + h * step, k.data() + h * step,
                                                   v.data() + h * step, out.data() + h * step, lse.data() + h * T,
                                                   nullptr, T, hs, hs, alpha, true);
    });
  }
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15, threads = 2;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    if (a == "--quick") quick = true;
  }
  if (quick) rounds = 2;

  ModelConfig char_cfg;  // vocab 65, context 64, 2 layers, 4 heads, width 64
  ModelConfig pre_cfg;
  pre_cfg.block_size = 256, pre_cfg.n_layer = 6, pre_cfg.n_head = 6, pre_cfg.n_embd = 384;
  ModelConfig gpt2;
  gpt2.vocab_size = 50257, gpt2.block_size = 64, gpt2.n_layer = quick ? 1 : 4, gpt2.n_head = 12, gpt2.n_embd = 768;
  TrainingStep char_step(char_cfg, 16, 64);
  TrainingStep pre_step(pre_cfg, quick ? 1 : 4, quick ? 64 : 256);
  Forward gpt2_forward(gpt2, 64);
  Attention attention(8, quick ? 128 : 1024, 64);
  const std::vector<Workload> workloads = {
      {"char-step", "training step, char model (V 65, L 2, H 4, C 64), B 16 × T 64", [&] { char_step.step(); }},
      {"pretrain-step", "training step, shakespeare-char (V 65, L 6, H 6, C 384), B 4 × T 256",
       [&] { pre_step.step(); }},
      {"gpt2-forward", "forward, GPT-2-small shapes (V 50257, H 12, C 768), 4 layers, 64 tokens",
       [&] { gpt2_forward.run(); }},
      {"attention", "causal attention forward, tiled kernel, T 1024, H 8, hs 64", [&] { attention.forward(); }},
      {"attention-fwd-bwd", "the same forward, then its tiled backward",
       [&] { attention.forward(), attention.backward(); }},
  };

  std::printf("{\"threads\": %d, \"rounds\": %d, \"hardware\": %d, \"threads_available\": %s, \"workloads\": [",
              threads, rounds, attn::default_thread_count(), attn::threads_available() ? "true" : "false");
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    const Workload& wl = workloads[w];
    std::vector<double> one, many, ratio;
    for (int warm = 0; warm < 2; ++warm) {  // warm-up: caches, the pool, page faults
      attn::set_thread_count(1), wl.run();
      attn::set_thread_count(threads), wl.run();
    }
    for (int r = 0; r < rounds; ++r) {
      double t1, tn;
      if (r % 2 == 0) {  // alternate which goes first
        attn::set_thread_count(1), t1 = time_ms(wl.run);
        attn::set_thread_count(threads), tn = time_ms(wl.run);
      } else {
        attn::set_thread_count(threads), tn = time_ms(wl.run);
        attn::set_thread_count(1), t1 = time_ms(wl.run);
      }
      one.push_back(t1), many.push_back(tn), ratio.push_back(t1 / tn);
    }
    std::printf(
        "%s\n {\"name\": \"%s\", \"what\": \"%s\", \"one\": {\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f}, "
        "\"many\": {\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f}, \"speedup\": {\"median\": %.4f, \"p10\": %.4f, "
        "\"p90\": %.4f}}",
        w ? "," : "", wl.name.c_str(), wl.what.c_str(), quantile(one, 0.5), quantile(one, 0.1), quantile(one, 0.9),
        quantile(many, 0.5), quantile(many, 0.1), quantile(many, 0.9), quantile(ratio, 0.5), quantile(ratio, 0.1),
        quantile(ratio, 0.9));
    std::fflush(stdout);
  }
  std::printf("\n]}\n");
  return 0;
}

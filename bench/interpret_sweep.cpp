// The ablation sweep of src/model/interpret.h (every head of GPT-2 small knocked out in turn:
// 12 × 12 = 144 forwards) natively: whole forwards (the naive way) against forwards that start
// from the clean run's stream before the ablated head's block, with 1 and 2 threads. Timed in
// interleaved rounds, each order rotated, so load from other jobs on a shared machine hits every
// variant alike. Prints one JSON object: per variant and thread count, the median and min–max
// wall time of a whole sweep and the median CPU time of the process (with one thread, the work
// itself, whatever else the machine runs; with two, both threads' work summed), and the
// rows × blocks each ran.
//
//   cmake -S . -B build-bench-native -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_BENCH=ON
//   cmake --build build-bench-native -j2 --target attn_interpret_bench
//   ./build-bench-native/bench/attn_interpret_bench [--rounds 3] [--tokens 16] [--quick]
//
// The model: GPT-2 small's shapes (V 50257, context 1024, L 12, H 12, C 768, tanh GELU) with
// random weights (normal, std 0.02; LayerNorm weights 1): the time does not depend on the values.
// The sequence: T random tokens; the prediction read is the last position's (p = T − 1), so the
// sweep without the loss runs every row too and differs from the one with the loss only in its
// unembedding (row p alone, against all T rows and their cross-entropy).
// Variants (each a whole sweep of L·H ablations, zero ablation):
//   naive        every ablation a whole forward of T rows through the L blocks
//   reuse        an ablation of block l starts from the clean stream before block l
//   naive+loss, reuse+loss   the same, with every ablation's loss (all rows unembedded)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/threads.h"
#include "model/gpt.h"
#include "model/interpret.h"

namespace {

using attn::model::AblationSweep;
using attn::model::Gpt;
using attn::model::ModelConfig;
using attn::model::SweepOptions;
using Clock = std::chrono::steady_clock;

double time_ms(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CPU time of this process, all its threads.
double cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3, T = 16;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (a == "--tokens" && i + 1 < argc) T = std::atoi(argv[++i]);
    if (a == "--quick") quick = true;
  }
  ModelConfig cfg;
  cfg.vocab_size = 50257, cfg.block_size = 1024, cfg.n_layer = quick ? 2 : 12, cfg.n_head = 12, cfg.n_embd = 768;
  cfg.gelu = attn::model::Gelu::kTanh;
  if (quick) rounds = 1;
  Gpt model(cfg, Gpt::ZeroParams{});
  {
    std::mt19937 rng(32);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    for (float& w : model.params()) w = normal(rng);
    for (const auto& e : model.table().entries())
      if (e.name.find("ln_") != std::string::npos && e.name.find("weight") != std::string::npos)
        std::fill(model.params().begin() + static_cast<std::ptrdiff_t>(e.offset),
                  model.params().begin() + static_cast<std::ptrdiff_t>(e.offset + e.size), 1.0f);
  }
  std::vector<int> tokens(static_cast<std::size_t>(T));
  std::mt19937 rng(7);
  for (int& t : tokens) t = static_cast<int>(rng() % static_cast<unsigned>(cfg.vocab_size));
  const int p = T - 1, c = tokens[0];

  struct Variant {
    std::string name;
    bool reuse, loss;
    long long rows = 0;
    std::vector<double> ms[2], cpu[2];  // 1 and 2 threads
  };
  std::vector<Variant> variants = {{"naive", false, false, 0, {}, {}},
                                   {"reuse", true, false, 0, {}, {}},
                                   {"naive+loss", false, true, 0, {}, {}},
                                   {"reuse+loss", true, true, 0, {}, {}}};
  auto run = [&](Variant& v) {
    SweepOptions o;
    o.reuse = v.reuse, o.loss = v.loss;
    AblationSweep out;
    attn::model::ablation_sweep(out, model, tokens.data(), T, p, c, o);
    v.rows = out.rows_run;
  };
  // A warm-up sweep (pages of the weights, the pool), then rounds: every variant at 1 and 2
  // threads, the order rotated each round.
  attn::set_thread_count(2);
  run(variants[1]);
  const int runs = static_cast<int>(variants.size()) * 2;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < runs; ++i) {
      const int k = (i + r * 3) % runs;
      Variant& v = variants[static_cast<std::size_t>(k / 2)];
      const int threads = 1 + k % 2;
      attn::set_thread_count(threads);
      const double cpu0 = cpu_ms();
      v.ms[threads - 1].push_back(time_ms([&] { run(v); }));
      v.cpu[threads - 1].push_back(cpu_ms() - cpu0);
      std::fprintf(stderr, "round %d: %s, %d thread%s: %.0f ms (CPU %.0f ms)\n", r + 1, v.name.c_str(), threads,
                   threads > 1 ? "s" : "", v.ms[threads - 1].back(), v.cpu[threads - 1].back());
    }
  }

  std::printf(
      "{\"model\": \"GPT-2 small shapes (V %d, L %d, H %d, C %d)\", \"tokens\": %d, \"position\": %d, "
      "\"rounds\": %d, \"hardware_threads\": %d, \"variants\": [",
      cfg.vocab_size, cfg.n_layer, cfg.n_head, cfg.n_embd, T, p, rounds, attn::default_thread_count());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    std::printf("%s\n {\"name\": \"%s\", \"rows_x_blocks\": %lld", i ? "," : "", v.name.c_str(), v.rows);
    for (int t = 0; t < 2; ++t) {
      const auto [lo, hi] = std::minmax_element(v.ms[t].begin(), v.ms[t].end());
      std::printf(
          ", \"threads_%d\": {\"median_ms\": %.1f, \"min_ms\": %.1f, \"max_ms\": %.1f, \"cpu_median_ms\": %.1f}", t + 1,
          median(v.ms[t]), *lo, *hi, median(v.cpu[t]));
    }
    std::printf("}");
  }
  std::printf("\n]}\n");
  return 0;
}

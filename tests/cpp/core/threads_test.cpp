// The thread pool (src/core/threads.h): every task runs once, errors reach the caller, nested
// loops run inline, bad counts are refused; and the model and attend() give the same bits for
// every thread count (1, 2, 3, 5: one, both cores, and more threads than cores with odd splits).
//
// Legend: B batch, T tokens, H heads. Comparisons here are memcmp: the work is partitioned into
// tasks fixed by the shapes alone, so a different thread count must not change a single bit.
// Where threads are absent (the WASM build without -pthread) every count runs inline, and the
// same tests check that the API behaves as documented there.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/attention.h"
#include "core/threads.h"
#include "model/gpt.h"
#include "test_util.h"

namespace attn {
namespace {

// Sets the thread count for one test and restores the previous one.
class ThreadCount {
 public:
  explicit ThreadCount(int count) : previous_(thread_count()) { set_thread_count(count); }
  ~ThreadCount() { set_thread_count(previous_); }

 private:
  int previous_;
};

constexpr double kBigLoop = 1e9;  // flops hint that is above the inline threshold

TEST(ThreadPool, EveryTaskRunsExactlyOnceForEveryThreadCount) {
  for (int threads : {1, 2, 3, 5}) {
    const ThreadCount use(threads);
    for (int count : {0, 1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
      parallel_for(count, kBigLoop, [&](int i) { runs[static_cast<std::size_t>(i)].fetch_add(1); });
      for (int i = 0; i < count; ++i) ASSERT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << threads << " " << i;
    }
  }
}

TEST(ThreadPool, BigLoopsUseSeveralThreadsAndSmallOnesStayOnTheCaller) {
  const ThreadCount use(2);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  // Tasks long enough that the worker wakes before the caller has taken them all.
  parallel_for(64, kBigLoop, [&](int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(seen.size(), threads_available() ? 2u : 1u);
  seen.clear();
  parallel_for(64, kParallelMinFlops / 2, [&](int) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
  });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(*seen.begin(), std::this_thread::get_id());
}

TEST(ThreadPool, AnExceptionInATaskReachesTheCallerAsAttnErrorAndThePoolGoesOn) {
  for (int threads : {1, 3}) {
    const ThreadCount use(threads);
    try {
      parallel_for(100, kBigLoop, [](int i) {
        if (i == 37) throw std::runtime_error("task 37 failed");
      });
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("task 37 failed"), std::string::npos) << e.what();
    }
    // attn::Error passes through unchanged.
    EXPECT_THROW(parallel_for(100, kBigLoop,
                              [](int i) {
                                if (i % 10 == 3) throw Error("bad");
                              }),
                 Error);
    // The pool is not stuck: the next loop runs every task.
    std::atomic<int> sum{0};
    parallel_for(100, kBigLoop, [&](int i) { sum += i; });
    EXPECT_EQ(sum.load(), 4950);
  }
}

TEST(ThreadPool, NestedLoopsRunInlineOnTheTasksThread) {
  const ThreadCount use(3);
  std::atomic<int> inner_elsewhere{0}, inner_runs{0};
  parallel_for(8, kBigLoop, [&](int) {
    const std::thread::id outer = std::this_thread::get_id();
    parallel_for(16, kBigLoop, [&](int) {
      inner_runs++;
      if (std::this_thread::get_id() != outer) inner_elsewhere++;
    });
  });
  EXPECT_EQ(inner_runs.load(), 8 * 16);
  EXPECT_EQ(inner_elsewhere.load(), 0);
}

TEST(ThreadPool, BadThreadCountsAreRefusedWithAClearError) {
  const int before = thread_count();
  for (int bad : {0, -1, -8, kMaxThreads + 1}) {
    EXPECT_TRUE(attn_test::ThrowsNaming([&] { set_thread_count(bad); }, {"threads"})) << bad;
  }
  EXPECT_EQ(thread_count(), before);
  // From inside a task it would wait for itself: refused.
  const ThreadCount use(2);
  EXPECT_THROW(parallel_for(4, kBigLoop, [](int) { set_thread_count(1); }), Error);
}

TEST(ThreadPool, DefaultCountIsOneToEightAndASetCountIsUsedWhereThreadsExist) {
  EXPECT_GE(default_thread_count(), 1);
  EXPECT_LE(default_thread_count(), kMaxDefaultThreads);
  const ThreadCount use(5);
  EXPECT_EQ(thread_count(), threads_available() ? 5 : 1);
}

// ---------------------------------------------------------------------------------------------
// Bit-identity of the model and attend() across thread counts

using model::Batch;
using model::Gpt;
using model::ModelConfig;
using model::StepOptions;
using model::Trainer;

struct StepBits {
  std::vector<float> losses, logits, grads, params;
};

// Two AdamW steps of the char model (the issue's: vocab 65, 2 layers, 4 heads, width 64) on
// fixed random batches: each step's loss, the logits and gradients of the last step, and the
// weights after it.
StepBits train_two_steps(Kernel kernel, int B, int T, double dropout) {
  ModelConfig cfg;
  cfg.block_size = T, cfg.dropout = dropout;
  Gpt model(cfg, 7);
  model.set_kernel(kernel);
  Trainer trainer(model);
  std::mt19937 rng(11);
  std::vector<int> tokens(static_cast<std::size_t>(B) * T), targets(tokens.size());
  StepBits bits;
  StepOptions options;
  options.seed = 5;
  for (int step = 0; step < 2; ++step) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      tokens[i] = attn_test::uniform_int(rng, 0, cfg.vocab_size - 1);
      targets[i] = attn_test::uniform_int(rng, -1, cfg.vocab_size - 1);
    }
    bits.losses.push_back(trainer.step(Batch{tokens.data(), targets.data(), B, T}, options).loss);
  }
  bits.logits = model.logits();
  bits.grads = model.grads();
  bits.params = model.params();
  return bits;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(ThreadBitIdentity, TrainingStepsGiveTheSameLossGradientsAndWeightsForEveryThreadCount) {
  // simd (the (T, T) head passes) with attention dropout, and the tiled kernel at T = 128.
  struct Run {
    Kernel kernel;
    int B, T;
    double dropout;
  };
  for (const Run& run : {Run{Kernel::kSimd, 4, 64, 0.1}, Run{Kernel::kTiled, 2, 128, 0.0}}) {
    StepBits one;
    {
      const ThreadCount use(1);
      one = train_two_steps(run.kernel, run.B, run.T, run.dropout);
    }
    for (int threads : {2, 3, 5}) {
      const ThreadCount use(threads);
      const StepBits many = train_two_steps(run.kernel, run.B, run.T, run.dropout);
      const std::string what = std::string(kernel_name(run.kernel)) + ", " + std::to_string(threads) + " threads";
      EXPECT_TRUE(same_bits(many.losses, one.losses)) << what << ": losses";
      EXPECT_TRUE(same_bits(many.logits, one.logits)) << what << ": logits";
      EXPECT_TRUE(same_bits(many.grads, one.grads)) << what << ": gradients";
      EXPECT_TRUE(same_bits(many.params, one.params)) << what << ": weights";
    }
  }
}

TEST(ThreadBitIdentity, AttendGivesTheSameOutputsForEveryThreadCount) {
  // B = 2, T = 96, D = 64 into H = 4 heads, causal, every kernel (reference at a smaller T).
  for (Kernel kernel : {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled}) {
    const int B = 2, T = kernel == Kernel::kReference ? 24 : 96, D = 64;
    std::mt19937 rng(3);
    const attn_test::Owned x = attn_test::random_tensor(rng, {B, T, D});
    const attn_test::Owned w = attn_test::random_tensor(rng, {3 * D, D});
    Inputs in;
    in.x = x.view();
    in.wqkv = w.view();
    Options opt;
    opt.heads = 4, opt.causal = true, opt.kernel = kernel, opt.materialize = false;
    std::vector<float> one;
    {
      const ThreadCount use(1);
      one = attend(in, opt).output.data;
    }
    for (int threads : {2, 3, 5}) {
      const ThreadCount use(threads);
      EXPECT_TRUE(same_bits(attend(in, opt).output.data, one)) << kernel_name(kernel) << ", " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace attn

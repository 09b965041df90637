// The thread pool of threads.h.
//
// One loop at a time: the caller publishes the loop (a generation number changes), wakes the
// parked workers and takes tasks itself; tasks are handed out one index at a time by an atomic
// counter. A worker that wakes after the caller has finished every task finds the loop closed
// and parks again, so a slow wake-up never delays the caller. The caller then waits only for the
// workers still inside a task.
//
// Before parking, a worker watches for the next loop (kSpinChecks reads of an atomic, ~20 µs
// native and ~40 µs in WASM here), and the caller watches as long for the last busy worker: a
// model's forward runs its loops microseconds apart (one token of GPT-2 small: 49 products of
// 0.05–7 ms), and a parked thread takes tens of microseconds to wake in a browser
// (Atomics.wait), so without the watch a worker missed the start of most loops and the caller
// slept through their ends. Measured (bench/gpt2_generate.mjs, two runs in each browser), GPT-2
// small's token with F16 weights and 2 threads: 15.3–16.4 ms without, 13.2–16.1 ms with
// (Chromium 13.2 and 13.8). XNNPACK's
// pthreadpool spins the same way before its futex wait. The bound is a count, not a clock:
// bounded by steady_clock, onnxruntime-web run after our engine in the same page was slower
// (26–28 ms a token against 22–24), as if the watch in the browser's pthreads never ended;
// with the count it was not. An idle pool is parked within the watch: nothing spins while the
// page waits for the reader.
#include "core/threads.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>

#include "core/attention.h"

// ATTN_THREADS, set by the build (CMakeLists.txt): 0 where the target has no threads (the
// WebAssembly engines built without -pthread), 1 otherwise. Not given: threads.
#if defined(ATTN_THREADS) && !ATTN_THREADS
#define ATTN_HAS_THREADS 0
#else
#define ATTN_HAS_THREADS 1
#include <atomic>
#include <condition_variable>
#include <thread>
#include <vector>
#endif

namespace attn {

namespace {

// True on a thread while it runs a task: a loop started there runs inline.
thread_local bool t_inside_task = false;

// The error a task's exception becomes.
Error as_error(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    return Error(std::string("parallel task: ") + e.what());
  } catch (...) {
    return Error("parallel task: an exception that is not a std::exception");
  }
}

// Runs tasks [0, count) in order on this thread.
void run_inline(int count, TaskRef task) {
  const bool outer = t_inside_task;
  t_inside_task = true;
  try {
    for (int i = 0; i < count; ++i) task(i);
  } catch (...) {
    t_inside_task = outer;
    throw as_error(std::current_exception());
  }
  t_inside_task = outer;
}

#if ATTN_HAS_THREADS

// How many times an idle worker checks for the next loop, and the caller for the last busy
// worker, before parking (the file's head says why and how long that is).
constexpr int kSpinChecks = 1 << 16;

class Pool {
 public:
  // Starts up to threads − 1 workers. A thread the system refuses (std::system_error: a resource
  // limit, or an exhausted pthread pool in a WASM -pthread build with PTHREAD_POOL_SIZE_STRICT=2)
  // leaves the pool with the workers that did start: loops still run, on fewer threads.
  explicit Pool(int threads) {
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int w = 1; w < threads; ++w) {
      try {
        workers_.emplace_back([this] { worker(); });
      } catch (const std::system_error&) {
        break;
      }
    }
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      published_.fetch_add(1, std::memory_order_release);  // ends the workers' watches now
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Runs the loop on the caller and the workers; returns the first task's exception, if any.
  std::exception_ptr run(int count, TaskRef task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      open_ = true;
      error_ = nullptr;
      ++generation_;
      published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    take_tasks(task, count);
    std::unique_lock<std::mutex> lock(mutex_);
    open_ = false;    // workers waking from now on stay parked
    if (busy_ > 0) {  // watch the last worker finish before parking (the file's head says why)
      lock.unlock();
      spin_until([this] { return busy_now_.load(std::memory_order_acquire) == 0; });
      lock.lock();
    }
    idle_.wait(lock, [this] { return busy_ == 0; });
    task_ = nullptr;
    return std::exchange(error_, nullptr);
  }

 private:
  void take_tasks(TaskRef task, int count) {
    t_inside_task = true;
    for (;;) {
      const int i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= count) break;
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_.store(count, std::memory_order_relaxed);  // start no further task
      }
    }
    t_inside_task = false;
  }

  void worker() {
    std::unique_lock<std::mutex> lock(mutex_);
    std::uint64_t seen = 0;  // the generation at construction: a loop published before this thread ran is still seen
    for (;;) {
      if (!stop_ && generation_ == seen) {  // watch for the next loop before parking
        lock.unlock();
        spin_until([&] { return published_.load(std::memory_order_acquire) != seen; });
        lock.lock();
      }
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!open_) continue;
      ++busy_;
      busy_now_.store(busy_, std::memory_order_release);
      const TaskRef task = *task_;
      const int count = count_;
      lock.unlock();
      take_tasks(task, count);
      lock.lock();
      busy_now_.store(--busy_, std::memory_order_release);
      if (busy_ == 0 && !open_) idle_.notify_one();
    }
  }

  // Returns when done() is true or after kSpinChecks checks.
  template <typename Done>
  static void spin_until(Done done) {
    for (int i = 0; i < kSpinChecks; ++i)
      if (done()) return;
  }

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::vector<std::thread> workers_;
  bool stop_ = false;
  std::uint64_t generation_ = 0;
  // The loop being run (guarded by mutex_, but next_).
  const TaskRef* task_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};
  bool open_ = false;  // workers may still join the loop
  int busy_ = 0;       // workers inside the loop
  // generation_ and busy_ as last written, for the watches before parking (read without the lock)
  std::atomic<std::uint64_t> published_{0};
  std::atomic<int> busy_now_{0};
  std::exception_ptr error_;
};

// The process's pool: started on the first parallel loop, restarted by set_thread_count.
// dispatch guards the pool and the count; a loop that cannot take it runs inline.
struct Shared {
  std::mutex dispatch;
  std::atomic<int> threads{default_thread_count()};  // read without the lock: a task may ask
  std::unique_ptr<Pool> pool;
};
Shared& shared() {
  static Shared* s = new Shared();  // never destroyed: workers must not outlive a destroyed pool at exit
  return *s;
}

#endif  // ATTN_HAS_THREADS

}  // namespace

bool threads_available() { return ATTN_HAS_THREADS != 0; }

int default_thread_count() {
#if ATTN_HAS_THREADS
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(cores), 1, kMaxDefaultThreads);
#else
  return 1;
#endif
}

void set_thread_count(int count) {
  if (count < 1 || count > kMaxThreads) {
    throw Error("threads: expected 1 ≤ threads ≤ " + std::to_string(kMaxThreads) + ", got " + std::to_string(count));
  }
  if (t_inside_task) throw Error("threads: cannot change the thread count from inside a parallel task");
#if ATTN_HAS_THREADS
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.dispatch);
  if (count == s.threads.load()) return;
  s.pool.reset();
  s.threads.store(count);
#endif
}

int thread_count() {
#if ATTN_HAS_THREADS
  return shared().threads.load();
#else
  return 1;
#endif
}

void parallel_for(int count, double flops, TaskRef task) {
  if (count <= 0) return;
#if ATTN_HAS_THREADS
  if (count >= 2 && flops >= kParallelMinFlops && !t_inside_task) {
    Shared& s = shared();
    std::unique_lock<std::mutex> lock(s.dispatch, std::try_to_lock);
    if (lock.owns_lock() && s.threads.load() > 1) {
      if (!s.pool) s.pool = std::make_unique<Pool>(s.threads.load());
      if (std::exception_ptr error = s.pool->run(count, task)) throw as_error(error);
      return;
    }
  }
#else
  (void)flops;
#endif
  run_inline(count, task);
}

}  // namespace attn

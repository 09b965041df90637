// The core's thread pool: parallel loops over independent tasks (the model's linear layers in
// output tiles, attention over batch × heads). No OpenMP: std::thread, parked on a condition
// variable while idle after a short watch for the next loop (tens of microseconds: threads.cpp
// says why), so a shared machine loses little to spinning, and the Emscripten -pthread build
// (std::thread over Web Workers) uses it unchanged.
//
// Determinism: a loop's tasks are fixed by its caller, never by the number of threads, and each
// task writes only its own outputs; which thread runs a task changes nothing, so every result is
// bit-identical for every thread count (tests/cpp/core/threads_test.cpp checks this end to end).
//
// Where threads are absent (the WASM build without -pthread) everything runs on the caller and
// thread_count() is 1; the API is the same.
#pragma once

#include <type_traits>
#include <utility>

namespace attn {

// True when this build can start threads.
bool threads_available();
// The thread count a pool starts with: the hardware's cores, at most kMaxDefaultThreads; 1
// where threads are absent.
constexpr int kMaxDefaultThreads = 8;
int default_thread_count();
// Threads parallel_for uses, the caller included (1: everything inline). attn::Error for
// count < 1 or above kMaxThreads, or when called from inside a parallel task. Where threads are
// absent any valid count is accepted and thread_count() stays 1. Waits for a loop running on
// another thread to finish, then restarts the pool.
constexpr int kMaxThreads = 256;
void set_thread_count(int count);
int thread_count();

// A reference to a callable `void(int)` that does not own it (no allocation per loop); the
// callable must outlive the call it is passed to.
class TaskRef {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TaskRef>>>
  TaskRef(F&& f)  // NOLINT: implicit, so a lambda is passed as is
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, int i) { (*static_cast<std::remove_reference_t<F>*>(o))(i); }) {}
  void operator()(int i) const { call_(object_, i); }

 private:
  void* object_;
  void (*call_)(void*, int);
};

// Below this many flops in a whole loop, waking the pool costs more than it saves: the loop
// runs inline on the caller. Measured here (2-core Xeon, Linux): publishing a loop costs the
// caller ~3 µs and a parked worker starts on it ~3 µs later when its core is free (p90 6 µs);
// 10⁶ flops are 50–100 µs of one core. (The caller never waits for a worker that has not
// started: it takes the tasks itself, so a busy second core costs only the ~3 µs.) Callers
// give non-GEMM work in the flops of the vector kernels it would take as long as.
constexpr double kParallelMinFlops = 1e6;

// Runs task(i) for every i in [0, count), each exactly once, spread over thread_count() threads
// (the caller runs tasks too). Runs inline, in order, when count < 2, thread_count() is 1,
// flops (the whole loop's estimated work) is below kParallelMinFlops, the caller is itself a
// task (nested loops run inline), or another thread's loop holds the pool. Returns when every
// task has finished. An exception thrown by a task stops the tasks not yet started and reaches
// the caller as attn::Error (the first one thrown; other exception types are wrapped).
void parallel_for(int count, double flops, TaskRef task);

}  // namespace attn

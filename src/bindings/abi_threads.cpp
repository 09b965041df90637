// engine.threads: the core's thread pool (src/core/threads.h), in the whole engine only (the
// element's never runs threaded). setThreads refuses a count outside [1, kMaxThreads]; threads is
// the count in use (always 1 in a build without threads).
#include "bindings/detail/call.h"
#include "core/threads.h"

namespace attn::abi::detail {

namespace {

struct Threads {
  int count = 1;
};
void set_threads(const Threads& in, None&) { set_thread_count(in.count); }
constexpr Entry kSetThreads[] = {integer("count", ATTN_ABI_MEMBER(Threads, count))};
const Registration kSetThreadsCall{"setThreads", run<Threads, None, set_threads>, {kSetThreads}};

void threads(const None&, Threads& out) { out.count = thread_count(); }
constexpr Entry kThreads[] = {report_number("count", ATTN_ABI_MEMBER(Threads, count))};
const Registration kThreadsCall{"threads", run<None, Threads, threads>, {kThreads}};

}  // namespace

}  // namespace attn::abi::detail

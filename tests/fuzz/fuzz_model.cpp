// libFuzzer target: the model (src/model/gpt.h, inference.h) under arbitrary configs, batches and
// options — training steps, evaluate, logits, trace, generate, KV-cache sessions and the
// next-token distribution — directly and through the ABI calls engine.js makes for them.
//
// Legend: B batch, T tokens, N = B·T, C n_embd, H n_head, V vocab_size, L n_layer.
//
// Input (FuzzedDataProvider): a config (small nearly always: V ≤ 48, T ≤ 16, C ≤ 32, L ≤ 2;
// sometimes one wide enough that the thread pool splits its loops, C = 64 with up to 64 tokens;
// sometimes a field at an edge value), the init seed, the kernel, the thread count of the second
// run (2 or 3), whether the ABI run happens, then up to 8 operations, each with its own batch
// (B and T mostly valid, sometimes 0, negative, past block_size or huge; ids mostly in range,
// sometimes −1, V or INT_MIN) and options (learning rates, betas, clip, schedule, temperature,
// top-k, top-p from edge palettes with NaN and ±inf; capture requests with unsorted, repeated or
// out-of-range layers and heads).
//
// The program runs on a fresh model up to three times: directly on 1 thread, directly on 2 or 3
// threads, and through the ABI (bindings/abi.h, packed by name as abi.js does) on 1 thread. What counts as a finding
// (abort, input saved):
//   - any exception other than attn::Error, or one whose message does not name an argument;
//     through the ABI, a lastError() that does not name one; ASan/UBSan reports, hangs, and
//     allocations beyond -malloc_limit_mb;
//   - threads: the threaded run's results (losses, norms, logits, tokens, captures, errors)
//     differ in any bit from the single-thread run's;
//   - ABI: a call that succeeds both ways gives other bits than the direct call (the same model,
//     seed and batch); the ABI may refuse more (its own argument checks) but not less;
//   - kernels: while the weights are tame (|w| ≤ 0.5), the loss and logits of the model's kernel
//     differ from the reference kernel's by more than model/gpt_test.cpp's float-vs-double bound taken
//     twice and scaled to the longest dot product (4C): |Δ| ≤ 2·(1e-6 + 2e-5·(4C/64 ∨ 1)·max|logits|),
//     the loss within 2e-5 relative;
//   - a training step: success with a non-finite loss, gradient norm or weight; a refusal that
//     changed the weights (except the documented undo of the last update after a non-finite loss,
//     which must restore exactly the weights before that update) or the step count otherwise;
//   - trace: shapes other than the request's, weight rows that do not sum to 1 within 1e-5, a
//     last logits row off Gpt::forward's by more than the kernel bound;
//   - generate and sessions: tokens outside [0, V), counts other than asked, a session step's
//     logits off a full forward of its context (the last block_size tokens), its attention rows
//     not summing to 1, positions outside the context;
//   - next_token_probs and sample_token: probabilities negative or not summing to 1, kept tokens
//     other than top-k/top-p allow, a sampled token of probability 0;
//   - the interpretability tools (model/interpret.h; op kind kInterpret, a kind byte ≥ 250 so the
//     corpus's other ops decode as before): one head knocked out (zero or mean over the op's
//     tokens), the sweep of the chosen blocks (with and without the loss), direct logit
//     attribution and the logit lens, with arguments in and out of range — a sweep that reuses
//     the clean prefix giving other bits than whole forwards, or (tame weights) an attribution
//     whose parts do not add up to its logit within the forward's tolerance.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "../cpp/bindings/abi_client.h"
#include "bindings/abi.h"
#include "core/attention.h"
#include "core/threads.h"
#include "core/torch_random.h"
#include "fuzz_common.h"
#include "model/gpt.h"
#include "model/inference.h"
#include "model/interpret.h"

namespace {

using attn::Error;
using attn_fuzz::clip;
using attn_fuzz::finding;
namespace m = attn::model;
namespace abi = attn::abi;

bool names_argument(const std::string& message) {
  return attn_fuzz::names_argument(message, {"vocab_size",
                                             "block_size",
                                             "n_layer",
                                             "n_head",
                                             "n_embd",
                                             "dropout",
                                             "gelu",
                                             "layer_norm_eps",
                                             "config",
                                             "batch",
                                             "context",
                                             "tokens",
                                             "targets",
                                             "sequence",
                                             "backward",
                                             "clip",
                                             "step",
                                             "lr",
                                             "beta1",
                                             "beta2",
                                             "eps",
                                             "weight_decay",
                                             "momentum",
                                             "dampening",
                                             "nesterov",
                                             "learning_rate",
                                             "min_lr",
                                             "warmup_iters",
                                             "lr_decay_iters",
                                             "it",
                                             "capacity",
                                             "capture",
                                             "layers",
                                             "heads",
                                             "temperature",
                                             "topK",
                                             "topP",
                                             "prompt",
                                             "count",
                                             "token",
                                             "session",
                                             "kernel",
                                             "seed",
                                             "optimizer",
                                             "warmup",
                                             "decaySteps",
                                             "model",
                                             "logits",
                                             "layer",
                                             "timings",
                                             "top",
                                             "position",
                                             "head",
                                             "reference",
                                             "other",
                                             "k",
                                             "positions",
                                             "setParams",
                                             "safetensors",
                                             "transformer.wte.weight",
                                             "transformer.wpe.weight",
                                             "transformer.ln_f.weight",
                                             "transformer.ln_f.bias"}) ||
         message.rfind("transformer.h.", 0) == 0;  // setParams names the tensor: "transformer.h.0.ln_1.weight: …"
}

// Runs body; an attn::Error becomes its message (checked to name its argument), any other
// exception is a finding. "" on success.
template <class Body>
std::string attempt(const char* where, Body body) {
  return attn_fuzz::attempt(
      where, [](const std::string& m) { return names_argument(m); }, body);
}

// ---- the program ----

constexpr double kRates[] = {1e-3, 1e-2, 0.1, 0.0, 1.0, 1e3, 1e30, -1e-3, 3e-4};
constexpr double kUnit[] = {0.9, 0.95, 0.0, 0.5, 0.999, 1.0, -0.1, 1.5, 0.99999999};
constexpr double kSmall[] = {1e-8, 0.0, 0.1, 1.0, 1e-30, -1.0, 10.0, 1e10};

double pick(FuzzedDataProvider& fdp, const double* palette, int n) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  if (b >= 240)
    return b & 1 ? std::numeric_limits<double>::quiet_NaN()
                 : (b & 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
  return palette[b % n];
}
#define PICK(fdp, palette) pick(fdp, palette, static_cast<int>(sizeof palette / sizeof palette[0]))

enum Kind {
  kStep,
  kEvaluate,
  kLogits,
  kTrace,
  kGenerate,
  kSession,
  kNextToken,
  kScale,
  kSetKernel,
  kKinds,
  kInterpret
};

// A training step's options as engine.js passes them to the ABI's modelStep (its arguments by
// name); the direct step derives its options from them as abi_model.cpp does.
struct StepArgs {
  int batch = 0, context = 0;
  std::string optimizer = "adamw";  // "adamw" | "sgd" | anything else (refused by the ABI)
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weight_decay = 0.1, momentum = 0, clip = 1;
  double warmup = 0, decay_steps = 0;
  double min_lr = std::numeric_limits<double>::quiet_NaN();
  double seed = 0;
};
// A trace's parts, as the program encodes them (each a boolean argument of modelTrace).
constexpr int kTraceQkv = 1, kTraceScores = 2, kTraceWeights = 4, kTraceResidual = 8, kTraceAfterAttention = 32;

struct Op {
  Kind kind = kStep;
  int B = 1, T = 1;
  std::vector<int> tokens, targets;  // N each (or one when N is out of range)
  // step (the ABI's arguments; the direct step derives its options from them)
  StepArgs step;
  // trace
  std::vector<int> layers, heads;
  int parts = 15, logits = 1;
  // generate, session, next token
  double temperature = 1, top_p = 1;
  int top_k = 0, count = 0;
  double seed = 0;
  std::vector<int> forced;        // session steps: −1 draws, ≥ 0 forces (V or more is an error)
  std::vector<float> raw_logits;  // next token
  int top = 0;
  // scale: the weights times a factor (setParams)
  float factor = 1;
  attn::Kernel kernel = attn::Kernel::kAuto;
};

struct Program {
  m::ModelConfig config;
  double init_seed = 0;
  attn::Kernel kernel = attn::Kernel::kAuto;
  int threads = 2;
  bool abi = false;
  std::vector<Op> ops;
};

int consume_count(FuzzedDataProvider& fdp, int valid_max, const int* edges, int n_edges) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  return b < 224 ? 1 + b % valid_max : edges[b % n_edges];
}

int consume_id(FuzzedDataProvider& fdp, int V) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  if (b < 248) return V > 0 ? b % V : 0;
  static constexpr int kBad[] = {-1, INT_MIN, INT_MAX, -2};
  return b == 255 ? V : kBad[b % 4];
}

Program consume_program(FuzzedDataProvider& fdp) {
  Program p;
  m::ModelConfig& c = p.config;
  const uint8_t size = fdp.ConsumeIntegral<uint8_t>();
  const bool wide = size >= 240;  // loops big enough for the pool (kParallelMinFlops)
  c.n_head = 1 + fdp.ConsumeIntegral<uint8_t>() % 4;
  c.n_embd = wide ? 64 : c.n_head * (1 + fdp.ConsumeIntegral<uint8_t>() % 8);
  if (c.n_embd % c.n_head) c.n_head = 4;
  c.vocab_size = 1 + fdp.ConsumeIntegral<uint8_t>() % 48;
  c.block_size = wide ? 64 : 1 + fdp.ConsumeIntegral<uint8_t>() % 16;
  c.n_layer = wide ? 1 : fdp.ConsumeIntegral<uint8_t>() % 3;
  const uint8_t flags = fdp.ConsumeIntegral<uint8_t>();
  c.bias = !(flags & 1), c.mlp = !(flags & 2), c.layer_norm = !(flags & 4);
  c.gelu = flags & 8 ? m::Gelu::kTanh : m::Gelu::kExact;
  if (flags & 16) c.dropout = flags & 32 ? 0.5 : 0.1;
  if (flags & 64) c.layer_norm_eps = 1e-6;
  if (size >= 232 && size < 240) {  // one field at an edge value (the config must be refused or work)
    static constexpr int kEdges[] = {0, -1, INT_MIN, INT_MAX, 16385, 131073, 257, 4097, 65};
    const int e = kEdges[fdp.ConsumeIntegral<uint8_t>() % 9];
    switch (fdp.ConsumeIntegral<uint8_t>() % 7) {
      case 0: c.vocab_size = e; break;
      case 1: c.block_size = e; break;
      case 2: c.n_layer = e; break;
      case 3: c.n_head = e; break;
      case 4: c.n_embd = e; break;
      case 5: c.dropout = e == 0 ? 1.0 : std::numeric_limits<double>::quiet_NaN(); break;
      default: c.layer_norm_eps = e == 0 ? 0.0 : 2.0; break;
    }
  }
  p.init_seed = fdp.ConsumeIntegral<uint16_t>();
  p.kernel = static_cast<attn::Kernel>(fdp.ConsumeIntegral<uint8_t>() % 5);
  p.threads = fdp.ConsumeBool() ? 2 : 3;
  p.abi = fdp.ConsumeBool();

  const int V = std::max(c.vocab_size, 1);
  const int ops = fdp.ConsumeIntegralInRange<int>(1, 8);
  for (int k = 0; k < ops && fdp.remaining_bytes() > 0; ++k) {
    Op op;
    const uint8_t kind = fdp.ConsumeIntegral<uint8_t>();
    op.kind = kind >= 250 ? kInterpret : static_cast<Kind>(kind % kKinds);
    static constexpr int kBadB[] = {0, -1, INT_MIN, INT_MAX, (1 << 24) + 1, 20000};
    static constexpr int kBadT[] = {0, -1, INT_MIN, INT_MAX, 65, 17};
    const int T_max = std::max(1, std::min(c.block_size, 64));
    op.B = consume_count(fdp, wide ? 4 : 3, kBadB, 6);
    op.T = consume_count(fdp, T_max, kBadT, 6);
    const long long N = 1LL * op.B * op.T;
    const long long n = op.B >= 1 && op.T >= 1 && N <= (1 << 20) ? N : 1;
    const uint8_t fill = fdp.ConsumeIntegral<uint8_t>();  // a few bytes describe a long batch
    for (long long i = 0; i < n; ++i) {
      op.tokens.push_back(i < 64 || fill < 128 ? consume_id(fdp, V) : static_cast<int>((i * (fill | 1)) % V));
      const uint8_t t = i < 64 ? fdp.ConsumeIntegral<uint8_t>() : static_cast<uint8_t>(i * 7 + fill);
      op.targets.push_back(t < 40 ? -1 : t == 255 ? V : static_cast<int>(t % V));
    }
    StepArgs& s = op.step;
    s.batch = op.B, s.context = op.T;
    const uint8_t opt = fdp.ConsumeIntegral<uint8_t>();
    s.optimizer = opt < 120 ? "adamw" : opt < 250 ? "sgd" : "adam";
    s.lr = PICK(fdp, kRates);
    s.beta1 = PICK(fdp, kUnit), s.beta2 = PICK(fdp, kUnit);
    s.eps = PICK(fdp, kSmall), s.weight_decay = PICK(fdp, kSmall), s.momentum = PICK(fdp, kUnit);
    s.clip = PICK(fdp, kSmall);
    const uint8_t sched = fdp.ConsumeIntegral<uint8_t>();
    s.warmup = sched & 1 ? sched % 5 : 0;
    s.decay_steps = sched & 2 ? (sched >> 2) % 9 : 0;
    if (sched == 255) s.warmup = 0.5;
    s.min_lr = sched & 64 ? PICK(fdp, kRates) : std::numeric_limits<double>::quiet_NaN();
    s.seed = fdp.ConsumeIntegral<uint16_t>();
    for (int l = fdp.ConsumeIntegralInRange<int>(0, 2); l > 0; --l)
      op.layers.push_back(fdp.ConsumeIntegralInRange<int>(-1, 3));
    for (int h = fdp.ConsumeIntegralInRange<int>(0, 3); h > 0; --h)
      op.heads.push_back(fdp.ConsumeIntegralInRange<int>(-1, 4));
    op.parts = fdp.ConsumeIntegral<uint8_t>() & (1 | 2 | 4 | 8 | 32);
    op.logits = fdp.ConsumeIntegralInRange<int>(0, 3);
    static constexpr double kTemperatures[] = {1.0, 0.0, 0.5, 2.0, 1e-30, -1.0, 1e30};
    op.temperature = PICK(fdp, kTemperatures);
    static constexpr double kTopP[] = {1.0, 0.9, 0.5, 1e-9, 0.0, 1.5, 0.999999};
    op.top_p = PICK(fdp, kTopP);
    const uint8_t k_byte = fdp.ConsumeIntegral<uint8_t>();
    // V may be an edge value up to INT_MAX (a config that must be refused): past-the-end values
    // saturate there instead of overflowing in the harness.
    const int past_V = V < INT_MAX ? V + 1 : INT_MAX;
    op.top_k = k_byte < 128   ? 0
               : k_byte < 250 ? static_cast<int>(k_byte % (int64_t{V} + 1))
                              : (k_byte == 250 ? -1 : past_V);
    op.count = fdp.ConsumeIntegralInRange<int>(-1, 6);
    op.seed = fdp.ConsumeIntegral<uint8_t>();
    for (int f = fdp.ConsumeIntegralInRange<int>(0, 6); f > 0; --f) {
      const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
      op.forced.push_back(b < 128 ? -1 : b < 250 ? b % V : (b & 1 ? past_V : V));
    }
    if (op.kind == kNextToken) {
      // As many logits as the vocabulary, up to 2^16 (with an edge-value vocabulary of 2^31 − 1
      // the harness's own vector passed libFuzzer's malloc limit: campaign chunk model-6, F13).
      const int len = fdp.ConsumeBool() ? std::min(V, 1 << 16) : fdp.ConsumeIntegralInRange<int>(0, 9);
      for (int i = 0; i < len; ++i) {
        const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
        op.raw_logits.push_back(b < 200   ? static_cast<float>(static_cast<int8_t>(b)) / 8.0f
                                : b < 230 ? (b & 1 ? 80.0f : -1e30f)
                                          : static_cast<float>(PICK(fdp, kRates)));
      }
      op.top = fdp.ConsumeIntegralInRange<int>(-1, 12);
    }
    static constexpr float kFactors[] = {2.0f, 0.0f, 1e20f, -1.0f, 1e38f, std::numeric_limits<float>::quiet_NaN(),
                                         30.0f};
    op.factor = kFactors[fdp.ConsumeIntegral<uint8_t>() % 7];
    op.kernel = static_cast<attn::Kernel>(fdp.ConsumeIntegral<uint8_t>() % 5);
    p.ops.push_back(std::move(op));
  }
  return p;
}

// The direct step options of an op's StepArgs, as abi_model.cpp maps them: constant lr; with
// warmup > 0 a linear warmup to lr; with decay_steps > 0 also a cosine decay to min_lr (NaN:
// lr / 10) at decay_steps. Arguments the ABI refuses (non-integer counts, an unknown optimizer)
// are passed as they are and must be refused here too, or the op is marked ABI-only.
m::StepOptions step_options(const StepArgs& s) {
  m::StepOptions o;
  o.optimizer = s.optimizer == "sgd" ? m::OptimizerKind::kSGD : m::OptimizerKind::kAdamW;
  o.adamw.beta1 = s.beta1, o.adamw.beta2 = s.beta2, o.adamw.eps = s.eps, o.adamw.weight_decay = s.weight_decay;
  o.sgd.momentum = s.momentum, o.sgd.weight_decay = s.weight_decay;
  o.clip = s.clip;
  const auto warmup = static_cast<long long>(s.warmup), decay = static_cast<long long>(s.decay_steps);
  o.schedule.learning_rate = s.lr;
  if (decay > 0) {
    o.schedule = {true, s.lr, std::isnan(s.min_lr) ? s.lr / 10 : s.min_lr, warmup, decay};
  } else if (warmup > 0) {
    o.schedule = {true, s.lr, s.lr, warmup, warmup + 1};
  }
  o.seed = static_cast<std::uint64_t>(s.seed);
  return o;
}

// What the direct path cannot express and the ABI refuses by its own checks.
bool abi_only(const StepArgs& s) {
  return (s.optimizer != "adamw" && s.optimizer != "sgd") || s.warmup != std::floor(s.warmup) ||
         (s.decay_steps > 0 && s.decay_steps <= s.warmup);
}

// An op with a NaN among the numbers engine.js passes: NaN is "not given" through the ABI (the
// C++ default holds), and engine.js refuses such a NaN before it calls (a refusal of its own, as
// the direct calls refuse it), so the ABI run does not make the op. (min_lr's NaN is "lr / 10"
// both ways.)
bool nan_given(const Op& op) {
  const StepArgs& s = op.step;
  switch (op.kind) {
    case kStep:
      for (double v : {s.lr, s.beta1, s.beta2, s.eps, s.weight_decay, s.momentum, s.clip, s.warmup, s.decay_steps})
        if (std::isnan(v)) return true;
      return false;
    case kGenerate:
    case kSession:
    case kNextToken: return std::isnan(op.temperature) || std::isnan(op.top_p);
    default: return false;
  }
}

// nextToken's arguments the ABI refuses before the distribution: a non-finite logit, or `top`
// outside [0, V] (the direct calls take them: next_token_probs has no such check of its own).
bool nextoken_abi_only(const Op& op) {
  for (float v : op.raw_logits)
    if (!std::isfinite(v)) return true;
  return op.top < 0 || op.top > static_cast<int>(op.raw_logits.size());
}

// ---- oracles shared by the runs ----

std::string bits(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

// Appends the floats' bits to a transcript line.
void add_floats(std::string& line, const std::vector<float>& v) {
  line += " [" + std::to_string(v.size()) + "]";
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the bits: any change in any bit shows
  for (float f : v) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int i = 0; i < 4; ++i) h = (h ^ ((u >> (8 * i)) & 0xff)) * 1099511628211ull;
  }
  line += std::to_string(h);
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float f : v) m = std::max(m, static_cast<double>(std::fabs(f)));
  return m;
}

bool tame(const m::Gpt& model) { return max_abs(model.params()) <= 0.5; }

// model/gpt_test.cpp's float-vs-double bound, twice (two float paths), scaled to dot products of 4C.
double kernel_tolerance(const m::ModelConfig& c, double scale) {
  const double longest = std::max(1.0, 4.0 * c.n_embd / 64.0);
  return 2 * (1e-6 + 2e-5 * longest * scale);
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, double tol, const char* what) {
  if (got.size() != want.size()) finding("sizes differ", what);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= tol))
      finding("results differ beyond the tolerance",
              std::string(what) + "[" + std::to_string(i) + "]: " + std::to_string(got[i]) + " vs " +
                  std::to_string(want[i]) + " (tolerance " + std::to_string(tol) + ")");
}

// The next-token distribution: non-negative, sums to 1, zero where top-k/top-p cut.
void check_probs(const std::vector<float>& probs, const float* logits, int V, const m::SamplingOptions& o) {
  double sum = 0;
  int kept = 0;
  for (float p : probs) {
    if (!(p >= 0.0f && p <= 1.0f)) finding("a probability outside [0, 1]", std::to_string(p));
    sum += p;
    kept += p > 0;
  }
  bool finite = true;
  for (int v = 0; v < V; ++v) finite = finite && std::isfinite(logits[v]);
  if (!finite) return;  // a model's non-finite logits (huge weights): no distribution to check
  if (!(std::fabs(sum - 1.0) <= 1e-5)) finding("probabilities do not sum to 1", std::to_string(sum));
  if (o.top_k > 0 && o.temperature > 0) {
    // at most k, unless ties at the k-th: every kept logit ≥ the k-th largest
    std::vector<float> sorted(logits, logits + V);
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    const float floor = sorted[static_cast<std::size_t>(o.top_k - 1)];
    for (int v = 0; v < V; ++v)
      if (probs[v] > 0 && logits[v] < floor) finding("top-k kept a token below the k-th logit", std::to_string(v));
  }
  if (o.temperature == 0 && kept != 1) finding("temperature 0 kept other than one token", std::to_string(kept));
}

// ---- the interpretability tools (kInterpret) ----

// One interpretability call decoded from an op's fields: which (op.logits), the sequence (the
// op's first T tokens), a head (op.layers[0], op.heads[0]: −1 … 4), a position (op.count: −1 …
// 6), a token (op.top_k: 0 … V + 1, or −1), mean ablation over the tokens themselves when
// op.parts & 1, the loss when op.parts & 2; the sweep's blocks op.layers; the lens's positions
// op.heads and k op.top (−1 … 12); attribution's other op.forced[0] (or none).
struct Interpretation {
  int which = 0;  // 0 ablate, 1 sweep, 2 attribute, 3 lens
  std::vector<int> tokens, layers, positions;
  int layer = 0, head = 0, position = 0, token = 0, other = -1, k = 5;
  bool mean = false, loss = false;
};
Interpretation interpretation_of(const Op& op) {
  Interpretation in;
  in.which = std::min(std::max(op.logits, 0), 3);
  in.tokens.assign(op.tokens.begin(), op.tokens.begin() + std::min<std::size_t>(op.tokens.size(), std::max(op.T, 0)));
  in.layers = op.layers, in.positions = op.heads;
  in.layer = op.layers.empty() ? 0 : op.layers[0];
  in.head = op.heads.empty() ? 0 : op.heads[0];
  in.position = op.count, in.token = op.top_k, in.k = op.top;
  in.other = op.forced.empty() ? -1 : op.forced[0];
  in.mean = op.parts & 1, in.loss = op.parts & 2;
  return in;
}

std::string run_interpret(const m::Gpt& model, const Interpretation& in, bool check_numbers) {
  std::string line;
  const int T = static_cast<int>(in.tokens.size());
  m::AblationOptions ablation;
  ablation.mode = in.mean ? m::AblationMode::kMean : m::AblationMode::kZero;
  if (in.mean) ablation.reference = in.tokens;
  ablation.kernel = model.kernel();
  switch (in.which) {
    case 0: {
      m::HeadAblation a;
      m::ablate_head(a, model, in.tokens.data(), T, in.layer, in.head, in.position, true, ablation);
      line += " ablate";
      add_floats(line, a.ablated_probs), add_floats(line, a.ablated_logits), add_floats(line, a.ablated_losses);
      add_floats(line, a.value);
      break;
    }
    case 1: {
      m::SweepOptions o;
      o.ablation = ablation, o.layers = in.layers, o.loss = in.loss;
      m::AblationSweep s;
      m::ablation_sweep(s, model, in.tokens.data(), T, in.position, in.token, o);
      line += " sweep " + bits(s.log_prob) + " " + bits(s.loss);
      add_floats(line, s.ablated_log_prob), add_floats(line, s.ablated_loss);
      if (check_numbers) {
        o.reuse = false;
        m::AblationSweep whole;
        m::ablation_sweep(whole, model, in.tokens.data(), T, in.position, in.token, o);
        std::string a, b;
        add_floats(a, s.ablated_log_prob), add_floats(a, s.ablated_loss), add_floats(b, whole.ablated_log_prob),
            add_floats(b, whole.ablated_loss);
        if (a != b || bits(s.log_prob) != bits(whole.log_prob))
          finding("the sweep's reuse of the clean prefix differs from whole forwards", a + " vs " + b);
      }
      break;
    }
    case 2: {
      m::LogitAttribution a;
      m::attribute_logit(a, model, in.tokens.data(), T, in.position, in.token, in.other, model.kernel());
      line += " attribute " + bits(a.logit) + " " + bits(a.total) + " " + bits(a.ln_bias);
      add_floats(line, a.heads), add_floats(line, a.mlps);
      if (check_numbers && tame(model) && std::isfinite(a.logit)) {
        std::vector<float> parts = a.heads;
        parts.insert(parts.end(), a.mlps.begin(), a.mlps.end());
        for (float x : {a.embed, a.pos_embed, a.attention_bias, a.logit}) parts.push_back(x);
        const double tol = kernel_tolerance(model.config(), max_abs(parts));
        if (!(std::fabs(static_cast<double>(a.total) + a.ln_bias - a.logit) <= tol))
          finding("the attribution's parts do not add up to the logit",
                  bits(a.total + a.ln_bias) + " vs " + bits(a.logit));
      }
      break;
    }
    default: {
      m::LensOptions o;
      o.positions = in.positions, o.k = in.k, o.kernel = model.kernel();
      if (in.token >= 0) o.position = in.position, o.token = in.token;
      m::LogitLens lens;
      m::logit_lens(lens, model, in.tokens.data(), T, o);
      line += " lens";
      for (int t : lens.top_tokens) line += " " + std::to_string(t);
      add_floats(line, lens.top_probs), add_floats(line, lens.token_probs);
      for (int r : lens.token_ranks) line += " r" + std::to_string(r);
      break;
    }
  }
  return line;
}

// ---- the direct run ----

struct Run {
  std::vector<std::string> lines;  // one per op: what it gave, bit for bit
};

void forward_logits(m::Gpt& model, const std::vector<int>& tokens, std::vector<float>& out) {
  model.forward({tokens.data(), nullptr, 1, static_cast<int>(tokens.size())});
  out = model.logits();
}

Run run_direct(const Program& p, bool check_numbers) {
  Run run;
  std::unique_ptr<m::Gpt> model;
  const std::string made =
      attempt("Gpt", [&] { model = std::make_unique<m::Gpt>(p.config, static_cast<std::uint64_t>(p.init_seed)); });
  if (!made.empty()) {
    run.lines.push_back("config error " + made);
    return run;
  }
  model->set_kernel(p.kernel);
  m::Trainer trainer(*model);
  const m::ModelConfig& c = model->config();
  const int V = c.vocab_size;
  std::vector<float> before_last_update;  // the weights before the last committed update

  for (const Op& op : p.ops) {
    std::string line = std::to_string(op.kind);
    const m::Batch batch{op.tokens.data(), op.targets.data(), op.B, op.T};
    switch (op.kind) {
      case kStep: {
        if (abi_only(op.step)) {
          line += " abi-only";
          break;
        }
        const std::vector<float> before = model->params();
        const long long steps = trainer.steps();
        m::StepResult r;
        const std::string error = attempt("step", [&] { r = trainer.step(batch, step_options(op.step)); });
        if (!error.empty()) {
          const bool undone = error.find("the last update is undone") != std::string::npos;
          const std::vector<float>& want = undone ? before_last_update : before;
          if (model->params() != want || trainer.steps() != (undone ? steps - 1 : steps))
            finding("a refused step changed the weights or the step count", error);
          line += " error";
          break;
        }
        if (!std::isfinite(r.loss) || !std::isfinite(r.grad_norm) || r.grad_norm < 0 || r.step != steps + 1)
          finding("a step succeeded with a non-finite loss or norm", bits(r.loss) + " " + bits(r.grad_norm));
        for (float v : model->params())
          if (!std::isfinite(v)) finding("a step succeeded and left a non-finite weight", std::to_string(v));
        before_last_update = before;
        line += " loss " + bits(r.loss) + " norm " + bits(r.grad_norm) + " lr " + bits(r.lr);
        add_floats(line, model->params());
        break;
      }
      case kEvaluate:
      case kLogits: {
        const bool targets = op.kind == kEvaluate;
        float loss = 0;
        const std::string error = attempt("forward", [&] {
          loss = model->forward({op.tokens.data(), targets ? op.targets.data() : nullptr, op.B, op.T});
        });
        if (!error.empty()) {
          line += " error";
          break;
        }
        line += " loss " + bits(loss);
        add_floats(line, model->logits());
        // The reference kernel on the same batch.
        if (check_numbers && tame(*model) && model->last_kernel() != attn::Kernel::kReference) {
          const std::vector<float> logits = model->logits();
          const attn::Kernel kernel = model->kernel();
          model->set_kernel(attn::Kernel::kReference);
          float ref_loss = 0;
          const std::string ref_error = attempt("forward reference", [&] {
            ref_loss = model->forward({op.tokens.data(), targets ? op.targets.data() : nullptr, op.B, op.T});
          });
          model->set_kernel(kernel);
          // The tiled kernel holds no (T, T) weights, so it takes batches whose untiled
          // activations pass the cap; the reference must refuse exactly those, naming the batch
          // (campaign chunk model-0 of 2026-11-26, F14: an oracle of the harness, not a bug).
          const bool over_cap = m::activation_floats(c, op.B, op.T, false) > m::kMaxActivationFloats;
          if (over_cap != !ref_error.empty() || (over_cap && ref_error.rfind("batch: ", 0) != 0))
            finding(over_cap ? "the reference kernel ran a batch past the activation cap"
                             : "the reference kernel refused a batch another kernel ran",
                    ref_error);
          if (over_cap) break;
          expect_near(logits, model->logits(), kernel_tolerance(c, max_abs(model->logits())), "logits vs reference");
          if (!(std::fabs(loss - ref_loss) <= 2e-5 * std::fabs(ref_loss) + 1e-6))
            finding("the loss differs from the reference kernel's", bits(loss) + " vs " + bits(ref_loss));
        }
        break;
      }
      case kTrace: {
        if (op.logits > 2) {  // only the ABI takes the logits choice as a number
          line += " abi-only";
          break;
        }
        m::CaptureRequest request;
        request.layers = op.layers, request.heads = op.heads;
        request.qkv = op.parts & kTraceQkv, request.scores = op.parts & kTraceScores;
        request.weights = op.parts & kTraceWeights, request.residual = op.parts & kTraceResidual;
        request.after_attention = op.parts & kTraceAfterAttention;
        request.logits = static_cast<m::LogitRows>(std::min(op.logits, 2));
        const std::vector<int> tokens(op.tokens.begin(),
                                      op.tokens.begin() + std::min<std::size_t>(op.tokens.size(), std::max(op.T, 0)));
        m::SequenceCapture cap;
        const std::string error =
            attempt("trace", [&] { cap = m::trace_sequence(*model, tokens, request, model->kernel()); });
        if (!error.empty()) {
          line += " error";
          break;
        }
        const int T = static_cast<int>(tokens.size()), H = static_cast<int>(cap.heads.size()), hs = c.n_embd / c.n_head;
        // One attention entry per captured layer when q/k/v, scores or weights were asked for, else none.
        const bool per_layer = request.qkv || request.scores || request.weights;
        if (cap.rows != T || cap.keys != T || cap.attention.size() != (per_layer ? cap.layers.size() : 0))
          finding("a trace's rows, keys or layers are not the request's",
                  std::to_string(cap.rows) + " rows, " + std::to_string(cap.keys) + " keys, " +
                      std::to_string(cap.attention.size()) + " of " + std::to_string(cap.layers.size()) + " layers");
        for (const auto& layer : cap.attention) {
          const std::size_t qkv = static_cast<std::size_t>(H) * T * hs, tt = static_cast<std::size_t>(H) * T * T;
          if (layer.q.size() != (request.qkv ? qkv : 0) || layer.k.size() != layer.q.size() ||
              layer.scores.size() != (request.scores ? tt : 0) || layer.weights.size() != (request.weights ? tt : 0))
            finding("a trace layer's tensors are not the request's shapes", std::to_string(layer.weights.size()));
          for (std::size_t row = 0; row * T < layer.weights.size(); ++row) {
            double sum = 0;
            for (int j = 0; j < T; ++j) sum += layer.weights[row * T + j];
            if (std::isfinite(sum) && tame(*model) && !(std::fabs(sum - 1) <= 1e-5))
              finding("a weight row does not sum to 1", std::to_string(sum));
          }
        }
        if (cap.residual.size() != (request.residual ? static_cast<std::size_t>(c.n_layer + 1) * T * c.n_embd : 0))
          finding("a trace's residual stream has the wrong size", "");
        const std::size_t logit_rows = request.logits == m::LogitRows::kAll    ? T
                                       : request.logits == m::LogitRows::kLast ? 1
                                                                               : 0;
        if (cap.logits.size() != logit_rows * V) finding("a trace's logits have the wrong size", "");
        line += " trace";
        for (const auto& layer : cap.attention) add_floats(line, layer.weights), add_floats(line, layer.q);
        add_floats(line, cap.residual), add_floats(line, cap.logits);
        if (check_numbers && logit_rows && tame(*model)) {
          std::vector<float> full;
          attempt("forward", [&] { forward_logits(*model, tokens, full); });
          const std::vector<float> last(full.end() - V, full.end());
          const std::vector<float> traced(cap.logits.end() - V, cap.logits.end());
          expect_near(traced, last, kernel_tolerance(c, max_abs(last)), "trace's last logits vs forward");
        }
        break;
      }
      case kGenerate: {
        const std::vector<int> prompt(op.tokens.begin(),
                                      op.tokens.begin() + std::min<std::size_t>(op.tokens.size(), 24));
        m::GenerateOptions o;
        o.temperature = op.temperature, o.top_k = op.top_k, o.top_p = op.top_p,
        o.seed = static_cast<std::uint64_t>(op.seed);
        std::vector<int> out;
        const std::string error = attempt("generate", [&] { out = m::generate(*model, prompt, op.count, o); });
        if (!error.empty()) {
          line += " error";
          break;
        }
        if (static_cast<int>(out.size()) != op.count)
          finding("generate gave another count", std::to_string(out.size()));
        for (int t : out)
          if (t < 0 || t >= V) finding("generate gave a token outside [0, V)", std::to_string(t));
        line += " tokens";
        for (int t : out) line += " " + std::to_string(t);
        break;
      }
      case kSession: {
        const std::vector<int> prompt(op.tokens.begin(),
                                      op.tokens.begin() + std::min<std::size_t>(op.tokens.size(), 24));
        m::GenerateOptions o;
        o.temperature = op.temperature, o.top_k = op.top_k, o.top_p = op.top_p,
        o.seed = static_cast<std::uint64_t>(op.seed);
        std::unique_ptr<m::GenerationSession> session;
        const std::string error = attempt(
            "session", [&] { session = std::make_unique<m::GenerationSession>(*model, prompt, o, model->kernel()); });
        if (!error.empty()) {
          line += " error";
          break;
        }
        for (int forced : op.forced) {
          m::GenerationSession::Step s;
          const std::string step_error = attempt("session step", [&] { s = session->step(forced); });
          if (!step_error.empty()) {
            line += " step-error";
            continue;
          }
          if (s.token < 0 || s.token >= V || (forced >= 0 && s.token != forced))
            finding("a session step's token", std::to_string(s.token));
          if (s.position < 0 || s.position >= c.block_size || s.keys != s.position + 1)
            finding("a session step's position", std::to_string(s.position));
          if (s.attention.size() != static_cast<std::size_t>(c.n_layer) * c.n_head * s.keys)
            finding("a session step's attention has the wrong size", std::to_string(s.attention.size()));
          for (std::size_t row = 0; row * s.keys < s.attention.size(); ++row) {
            double sum = 0;
            for (int j = 0; j < s.keys; ++j) sum += s.attention[row * s.keys + j];
            if (std::isfinite(sum) && tame(*model) && !(std::fabs(sum - 1) <= 1e-5))
              finding("a session step's attention row does not sum to 1", std::to_string(sum));
          }
          if (s.macs_cached < 0 || s.macs_full < s.macs_cached) finding("a session step's multiply-adds", "");
          line += " " + std::to_string(s.token) + "@" + std::to_string(s.position) + (s.recomputed ? "r" : "");
          add_floats(line, s.attention), add_floats(line, s.top_probs);
          if (check_numbers && tame(*model)) {  // the cached logits against a full forward of the context
            const std::vector<int>& all = session->tokens();
            const std::size_t T = std::min<std::size_t>(all.size(), static_cast<std::size_t>(c.block_size));
            const std::vector<int> context(all.end() - static_cast<std::ptrdiff_t>(T), all.end());
            std::vector<float> full;
            attempt("forward", [&] { forward_logits(*model, context, full); });
            const std::vector<float> last(full.end() - V, full.end());
            expect_near(session->logits(), last, kernel_tolerance(c, max_abs(last)), "session logits vs forward");
          }
        }
        break;
      }
      case kNextToken: {
        const int len = static_cast<int>(op.raw_logits.size());
        const m::SamplingOptions o{op.temperature, op.top_k, op.top_p};
        std::vector<float> probs;
        const std::string error =
            attempt("next_token_probs", [&] { probs = m::next_token_probs(op.raw_logits.data(), len, o); });
        if (!error.empty()) {
          line += " error";
          break;
        }
        if (static_cast<int>(probs.size()) != len) finding("next_token_probs gave another size", "");
        check_probs(probs, op.raw_logits.data(), len, o);
        attn::TorchGenerator g(static_cast<std::uint64_t>(op.seed));
        int token = -1;
        const std::string sample_error =
            attempt("sample_token", [&] { token = m::sample_token(op.raw_logits.data(), len, o, g); });
        if (!sample_error.empty()) finding("sample_token refused what next_token_probs accepted", sample_error);
        if (token < 0 || token >= len || probs[token] <= 0)
          finding("sample_token drew a token of probability 0", std::to_string(token));
        const std::vector<int> top = m::top_tokens(probs, op.top);
        for (std::size_t i = 1; i < top.size(); ++i)
          if (probs[top[i]] > probs[top[i - 1]]) finding("top_tokens is not sorted", "");
        line += " token " + std::to_string(token);
        add_floats(line, probs);
        break;
      }
      case kScale: {  // setParams: the weights times a factor (refused when a value is not finite)
        std::vector<float> scaled = model->params();
        for (float& v : scaled) v *= op.factor;
        if (std::all_of(scaled.begin(), scaled.end(), [](float v) { return std::isfinite(v); })) {
          model->params() = scaled;
          line += " scaled";
        } else {
          line += " error";
        }
        break;
      }
      case kSetKernel:
        model->set_kernel(op.kernel);
        line += " kernel";
        break;
      case kInterpret: {
        const Interpretation in = interpretation_of(op);
        const std::string error = attempt("interpret", [&] { line += run_interpret(*model, in, check_numbers); });
        if (!error.empty()) line += " error";
        break;
      }
      default: break;
    }
    if ((op.kind == kNextToken && nextoken_abi_only(op)) || nan_given(op)) line = std::to_string(op.kind) + " abi-only";
    run.lines.push_back(line);
  }
  return run;
}

// ---- the ABI run (engine.js's calls on the same program) ----

using attn_test::AbiCall;
using attn_test::Reply;

std::string abi_error(const Reply& r, const char* where) {
  if (!names_argument(r.error)) finding("an ABI error does not name its argument", std::string(where) + ": " + r.error);
  return r.error;
}

// The same interpretability call through the ABI, as engine.js's model methods make it.
std::string abi_interpret(double h, const Interpretation& in) {
  std::string line;
  const char* mode = in.mean ? "mean" : "zero";
  Reply r;
  switch (in.which) {
    case 0:
      r = AbiCall("modelAblate")
              .set("model", h)
              .list("tokens", in.tokens)
              .set("layer", in.layer)
              .set("head", in.head)
              .set("position", in.position)
              .set("logits", 1)
              .choice("mode", mode)
              .list("reference", in.mean ? in.tokens : std::vector<int>{})
              .run();
      if (r.failed) break;
      line += " ablate";
      add_floats(line, r.tensor("ablatedProbs").floats()), add_floats(line, r.tensor("ablatedLogits").floats());
      add_floats(line, r.tensor("ablatedLosses").floats()), add_floats(line, r.tensor("value").floats());
      break;
    case 1:
      r = AbiCall("modelAblationSweep")
              .set("model", h)
              .list("tokens", in.tokens)
              .list("layers", in.layers)
              .set("position", in.position)
              .set("token", in.token)
              .set("loss", in.loss)
              .choice("mode", mode)
              .list("reference", in.mean ? in.tokens : std::vector<int>{})
              .run();
      if (r.failed) break;
      line += " sweep " + bits(r.report.at("logProb")) + " " + bits(r.report.at("loss"));
      add_floats(line, r.tensor("ablatedLogProb").floats());
      add_floats(line, r.has("ablatedLoss") ? r.tensor("ablatedLoss").floats() : std::vector<float>{});
      break;
    case 2: {
      AbiCall call("modelAttribute");
      call.set("model", h).list("tokens", in.tokens).set("position", in.position).set("token", in.token);
      call.set("other", in.other);
      r = call.run();
      if (r.failed) break;
      line += " attribute " + bits(static_cast<float>(r.report.at("logit"))) + " " +
              bits(static_cast<float>(r.report.at("total"))) + " " + bits(static_cast<float>(r.report.at("lnBias")));
      add_floats(line, r.tensor("heads").floats());
      add_floats(line, r.has("mlps") ? r.tensor("mlps").floats() : std::vector<float>{});
      break;
    }
    default: {
      AbiCall call("modelLogitLens");
      call.set("model", h).list("tokens", in.tokens).list("positions", in.positions).set("k", in.k);
      if (in.token >= 0) call.set("position", in.position).set("token", in.token);
      r = call.run();
      if (r.failed) break;
      line += " lens";
      for (int t : r.tensor("topTokens").ints()) line += " " + std::to_string(t);
      add_floats(line, r.tensor("topProbs").floats());
      add_floats(line, r.has("tokenProbs") ? r.tensor("tokenProbs").floats() : std::vector<float>{});
      if (r.has("tokenRanks"))
        for (int rank : r.tensor("tokenRanks").ints()) line += " r" + std::to_string(rank);
      break;
    }
  }
  if (r.failed) {
    abi_error(r, "interpret");
    return " error";
  }
  return line;
}

Run run_abi(const Program& p) {
  Run run;
  const m::ModelConfig& c = p.config;
  AbiCall create("modelCreate");
  create.set("vocabSize", c.vocab_size).set("contextLength", c.block_size).set("layers", c.n_layer);
  create.set("heads", c.n_head).set("width", c.n_embd).set("bias", c.bias).set("mlp", c.mlp);
  create.set("layerNorm", c.layer_norm).set("gelu", static_cast<int>(c.gelu)).set("dropout", c.dropout);
  create.set("layerNormEps", c.layer_norm_eps).set("seed", p.init_seed);
  const Reply created = create.run();
  if (created.failed) {
    run.lines.push_back("config error " + abi_error(created, "modelCreate"));
    return run;
  }
  const double h = created.report.at("model");
  AbiCall("modelSetKernel").set("model", h).choice("kernel", attn::kernel_name(p.kernel)).run();
  const auto params = [&] { return AbiCall("modelParams").set("model", h).run().tensor("params").floats(); };
  for (const Op& op : p.ops) {
    std::string line = std::to_string(op.kind);
    if (nan_given(op)) {  // engine.js refuses it before the ABI (the direct run refused it too)
      run.lines.push_back(line + " abi-only");
      continue;
    }
    switch (op.kind) {
      case kStep: {
        const StepArgs& s = op.step;
        AbiCall step("modelStep");
        step.set("model", h).list("tokens", op.tokens).list("targets", op.targets);
        step.set("batch", s.batch).set("context", s.context);
        step.set("optimizer", s.optimizer == "adamw" ? 0 : s.optimizer == "sgd" ? 1 : 2);  // 2: no such optimizer
        step.set("lr", s.lr).set("beta1", s.beta1).set("beta2", s.beta2).set("eps", s.eps);
        step.set("weightDecay", s.weight_decay).set("momentum", s.momentum).set("clip", s.clip);
        step.set("warmup", s.warmup).set("decaySteps", s.decay_steps).set("minLr", s.min_lr).set("seed", s.seed);
        const Reply r = step.run();
        if (abi_only(s)) {
          if (!r.failed) finding("the ABI accepted step options it should refuse", s.optimizer);
          abi_error(r, "modelStep");
          line += " abi-only";
          break;
        }
        if (r.failed) {
          abi_error(r, "modelStep");
          line += " error";
          break;
        }
        line += " loss " + bits(static_cast<float>(r.report.at("loss"))) + " norm " +
                bits(static_cast<float>(r.report.at("gradNorm"))) + " lr " + bits(r.report.at("lr"));
        add_floats(line, params());
        break;
      }
      case kEvaluate:
      case kLogits: {
        AbiCall logits("modelLogits");
        logits.set("model", h).list("tokens", op.tokens).set("batch", op.B).set("context", op.T);
        if (op.kind == kEvaluate) {
          const Reply r = AbiCall("modelEvaluate")
                              .set("model", h)
                              .list("tokens", op.tokens)
                              .list("targets", op.targets)
                              .set("batch", op.B)
                              .set("context", op.T)
                              .run();
          if (r.failed) {
            abi_error(r, "modelEvaluate");
            line += " error";
            break;
          }
          line += " loss " + bits(static_cast<float>(r.report.at("loss")));
          const double accuracy = r.report.at("accuracy");
          if (!(accuracy >= 0 && accuracy <= 1))
            finding("evaluate's accuracy outside [0, 1]", std::to_string(accuracy));
          // the logits of that forward, as the direct run records them
          add_floats(line, logits.run().tensor("logits").floats());
          break;
        }
        const Reply r = logits.run();
        if (r.failed) {
          abi_error(r, "modelLogits");
          line += " error";
          break;
        }
        line += " loss " + bits(0.0f);
        add_floats(line, r.tensor("logits").floats());
        break;
      }
      case kTrace: {
        const std::size_t T = std::min<std::size_t>(op.tokens.size(), static_cast<std::size_t>(std::max(op.T, 0)));
        const Reply r =
            AbiCall("modelTrace")
                .set("model", h)
                .list("tokens", std::vector<int>(op.tokens.begin(), op.tokens.begin() + static_cast<std::ptrdiff_t>(T)))
                .list("layers", op.layers)
                .list("heads", op.heads)
                .set("qkv", (op.parts & kTraceQkv) != 0)
                .set("scores", (op.parts & kTraceScores) != 0)
                .set("weights", (op.parts & kTraceWeights) != 0)
                .set("residual", (op.parts & kTraceResidual) != 0)
                .set("afterAttention", (op.parts & kTraceAfterAttention) != 0)
                .set("logits", op.logits)
                .run();
        if (op.logits > 2) {  // no such logits rows: refused by the ABI's own check
          if (!r.failed) finding("modelTrace took logits > 2", "");
          abi_error(r, "modelTrace");
          line += " abi-only";
          break;
        }
        if (r.failed) {
          abi_error(r, "modelTrace");
          line += " error";
          break;
        }
        line += " trace";
        const auto floats = [](const Reply& reply, const char* name) {
          return reply.has(name) ? reply.tensor(name).floats() : std::vector<float>{};
        };
        const int layers = static_cast<int>(r.report.at("layers"));
        const std::vector<float> residual = floats(r, "residual"), logits = floats(r, "logits");
        for (int l = 0; l < layers; ++l) {
          const Reply t = AbiCall("modelTraceLayer").set("model", h).set("layer", l).run();
          add_floats(line, floats(t, "weights")), add_floats(line, floats(t, "q"));
        }
        add_floats(line, residual), add_floats(line, logits);
        break;
      }
      case kGenerate: {
        const std::vector<int> prompt(op.tokens.begin(),
                                      op.tokens.begin() + std::min<std::size_t>(op.tokens.size(), 24));
        const Reply r = AbiCall("modelGenerate")
                            .set("model", h)
                            .list("prompt", prompt)
                            .set("count", op.count)
                            .set("temperature", op.temperature)
                            .set("topK", op.top_k)
                            .set("topP", op.top_p)
                            .set("seed", op.seed)
                            .run();
        if (r.failed) {
          abi_error(r, "modelGenerate");
          line += " error";
          break;
        }
        line += " tokens";
        for (int t : r.tensor("tokens").ints()) line += " " + std::to_string(t);
        break;
      }
      case kSession: {
        const std::vector<int> prompt(op.tokens.begin(),
                                      op.tokens.begin() + std::min<std::size_t>(op.tokens.size(), 24));
        const Reply created_session = AbiCall("sessionCreate")
                                          .set("model", h)
                                          .list("prompt", prompt)
                                          .set("temperature", op.temperature)
                                          .set("topK", op.top_k)
                                          .set("topP", op.top_p)
                                          .set("seed", op.seed)
                                          .run();
        if (created_session.failed) {
          abi_error(created_session, "sessionCreate");
          line += " error";
          break;
        }
        const double s = created_session.report.at("session");
        for (int forced : op.forced) {
          const Reply r = AbiCall("sessionStep").set("session", s).set("token", forced).run();
          if (r.failed) {
            abi_error(r, "sessionStep");
            line += " step-error";
            continue;
          }
          line += " " + std::to_string(static_cast<int>(r.report.at("token"))) + "@" +
                  std::to_string(static_cast<int>(r.report.at("position"))) + (r.report.at("recomputed") ? "r" : "");
          add_floats(line, r.tensor("attention").floats()), add_floats(line, r.tensor("topProbs").floats());
        }
        AbiCall("sessionDelete").set("session", s).run();
        break;
      }
      case kNextToken: {
        if (nextoken_abi_only(op)) {  // refused by the ABI's own checks (the direct run went on)
          line += " abi-only";
          break;
        }
        const Reply r = AbiCall("nextToken")
                            .tensor("logits", {static_cast<int>(op.raw_logits.size())}, op.raw_logits)
                            .set("temperature", op.temperature)
                            .set("topK", op.top_k)
                            .set("topP", op.top_p)
                            .set("seed", op.seed)
                            .set("sample", 1)
                            .set("top", std::max(op.top, 0))
                            .run();
        if (r.failed) {
          abi_error(r, "nextToken");
          line += " error";
          break;
        }
        if (!r.has("token") || r.tensor("token").count() != 1) finding("nextToken gave no token", "");
        line += " token " + std::to_string(r.tensor("token").ints()[0]);
        add_floats(line, r.tensor("probs").floats());
        break;
      }
      case kScale: {
        std::vector<float> values = params();
        for (float& v : values) v *= op.factor;
        std::vector<int> all(AbiCall("modelParamTable").set("model", h).run().tensor("sizes").count());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
        const Reply r = AbiCall("modelSetParams")
                            .set("model", h)
                            .list("params", all)
                            .tensor("values", {static_cast<int>(values.size())}, values)
                            .run();
        if (r.failed) {
          abi_error(r, "modelSetParams");
          line += " error";
        } else {
          line += " scaled";
        }
        break;
      }
      case kSetKernel: {
        const Reply r = AbiCall("modelSetKernel").set("model", h).choice("kernel", attn::kernel_name(op.kernel)).run();
        if (r.failed) finding("modelSetKernel refused a kernel name", r.error);
        line += " kernel";
        break;
      }
      case kInterpret: {
        line += abi_interpret(h, interpretation_of(op));
        break;
      }
      default: break;
    }
    run.lines.push_back(line);
  }
  const Reply exported = AbiCall("modelExport").set("model", h).run();
  if (exported.failed) abi_error(exported, "modelExport");
  AbiCall("modelDelete").set("model", h).run();
  return run;
}

// The lines of two runs agree: identical, or (ABI) refused there for the ABI's own reasons.
void compare(const Run& a, const Run& b, const char* what) {
  const std::size_t n = std::min(a.lines.size(), b.lines.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a.lines[i] == b.lines[i]) continue;
    finding(what, "op " + std::to_string(i) + ": " + clip(a.lines[i], 300) + "\n  vs " + clip(b.lines[i], 300));
  }
  if (a.lines.size() != b.lines.size()) finding(what, "the runs have different lengths");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const Program p = consume_program(fdp);
  attn::set_thread_count(1);
  const Run single = run_direct(p, true);
  if (p.threads > 1 && fdp.ConsumeBool()) {
    attn::set_thread_count(p.threads);
    const Run threaded = run_direct(p, false);
    attn::set_thread_count(1);
    compare(single, threaded, "threads: the threaded run differs from the single-thread run");
  }
  // NaN is "not given" through the ABI (the C++ default holds): engine.js refuses a NaN dropout
  // or LayerNorm eps before it calls, so such a config does not go through it here either.
  const bool representable = !std::isnan(p.config.dropout) && !std::isnan(p.config.layer_norm_eps);
  if (p.abi && representable) compare(single, run_abi(p), "abi: the ABI run differs from the direct run");
  return 0;
}

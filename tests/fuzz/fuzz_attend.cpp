// libFuzzer target for the attention core: arbitrary shapes, options and values into
// attn::attend, attn::attend_heads_separately and attn::causal_average.
//
// Legend: B batch, T tokens, D width, H heads, dk/dv all-head widths, hk/hv per-head widths,
// do output width. Every tensor is row-major float32.
//
// What counts as a finding (the harness aborts, libFuzzer saves the input):
//   - any exception other than attn::Error, and any attn::Error whose message does not start
//     with the argument it names ("heads: …");
//   - ASan/UBSan reports (the build adds -fsanitize=fuzzer,address,undefined);
//   - a call the core accepts although it needs more than kGapBytes of memory or kGapWork
//     multiply-adds (the limits must refuse it before allocating; see docs/limits.md);
//   - an accepted call whose a-priori bound on some intermediate (computed here in double from
//     the input magnitudes) reaches kFiniteBound: the magnitude limits must rule overflow out;
//   - NaN or ±Inf anywhere in a trace (finite inputs below the bound cannot overflow);
//   - broken invariants: shapes, softmax rows summing to 1 (or 0 when fully masked), masked
//     weights exactly 0, and the kernels, the list-of-heads form and the reference loops
//     agreeing within a tolerance derived from the same bounds;
//   - causal_average's three forms disagreeing;
//   - a src/kernels/ _simd function disagreeing with its _ref twin (mode 5 calls them directly).
// Hangs and out-of-memory are caught by libFuzzer's -timeout and -rss_limit_mb/-malloc_limit_mb.
//
// Input decoding (FuzzedDataProvider): a mode byte picks the entry point; dims are small
// (1..12) nine times in ten and otherwise come from a table of edge values (0, −1, INT_MIN,
// INT_MAX, each limit and limit + 1, vector-width breakers); every tensor's shape is the
// consistent one unless a perturbation byte breaks it; values come from a short per-tensor
// palette (small fractions, NaN, ±Inf, denormals, FLT_MAX, raw bits) times a power of two,
// so a few bytes describe a large tensor.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/detail/internal.h"
#include "fuzz_common.h"
#include "kernels/kernels.h"

namespace {

using attn::Limits;

// The harness runs the full computation only below this cost (multiply-adds and floats held);
// larger accepted calls are validated only, so each execution stays in milliseconds.
constexpr double kHarnessWork = 1 << 22;
constexpr double kHarnessFloats = 1 << 22;
// A call the core accepts that needs more than this is a limits gap (a finding): 1.5 GiB of
// memory (the WASM heap stops at 2 GiB) or twice attn::Limits::kMaxWork multiply-adds (this
// harness's estimates are close to, not identical with, the ones validate() makes).
constexpr double kGapBytes = 1.5 * 1024.0 * 1024.0 * 1024.0;
constexpr double kGapWork = 2.0 * static_cast<double>(Limits::kMaxWork);
// Intermediates bounded below this cannot overflow float32 (FLT_MAX ≈ 3.4e38).
constexpr double kFiniteBound = 1e36;

using attn_fuzz::finding;
using attn_fuzz::known;

// ATTN_FUZZ_KNOWN names of this harness (fuzz_common.h), all fixed now:
//   attend-gap / average-gap  accepted calls above kGapBytes / kGapWork
//   view-size                 TensorView::size() on a shape whose product overflows
//   keep-bytes                dropout keep-mask bytes other than 0/1 (F5: the vectorized kernel
//                             multiplied by the byte)

// A read-only region of zeros large enough for the biggest input the limits allow
// (kMaxInputElements floats), followed by an inaccessible guard page: shapes too large to
// allocate per execution point here, and any read past the documented limit faults.
const float* zero_region() {
  static const float* region = [] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = static_cast<size_t>(Limits::kMaxInputElements) * sizeof(float);
    const size_t mapped = (bytes + page - 1) / page * page + page;
    void* p = mmap(nullptr, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) finding("harness", "mmap of the zero region failed");
    mprotect(static_cast<char*>(p) + mapped - page, page, PROT_NONE);
    return static_cast<const float*>(p);
  }();
  return region;
}

constexpr int kSpecialDims[] = {
    0,
    -1,
    -3,
    INT_MIN,
    INT_MAX,
    16,
    17,
    31,
    33,
    64,
    67,
    Limits::kMaxTokens,
    Limits::kMaxTokens + 1,
    Limits::kMaxWidth,
    Limits::kMaxWidth + 1,
    Limits::kMaxBatch,
    Limits::kMaxBatch + 1,
    Limits::kMaxHeads,
    Limits::kMaxHeads + 1,
    1 << 12,
    3 * 4096,
    3 * 4096 + 3,
    1 << 15,
    1 << 20,
    1 << 24,
    4097,
};
constexpr float kSpecialValues[] = {
    0.0f,
    -0.0f,
    1.0f,
    -1.0f,
    0.5f,
    std::numeric_limits<float>::quiet_NaN(),
    -std::numeric_limits<float>::quiet_NaN(),
    std::numeric_limits<float>::infinity(),
    -std::numeric_limits<float>::infinity(),
    std::numeric_limits<float>::denorm_min(),
    -std::numeric_limits<float>::denorm_min(),
    1e-40f,
    FLT_MIN,
    FLT_MAX,
    -FLT_MAX,
    1e6f,
    -1e6f,
    1e10f,
    1e19f,
    1e20f,
    -1e20f,
    1e30f,
    3e38f,
    1e-30f,
    88.0f,
    -104.0f,
};

int consume_dim(FuzzedDataProvider& fdp) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  if (b < 230) return 1 + b % 12;  // edge values about one dim in ten: most calls get deep
  return kSpecialDims[(b - 230) % (sizeof kSpecialDims / sizeof kSpecialDims[0])];
}

float consume_value(FuzzedDataProvider& fdp) {
  const uint8_t kind = fdp.ConsumeIntegral<uint8_t>();
  if (kind < 160) return static_cast<float>(static_cast<int8_t>(fdp.ConsumeIntegral<uint8_t>())) / 16.0f;
  if (kind < 230) return kSpecialValues[(kind - 160) % (sizeof kSpecialValues / sizeof kSpecialValues[0])];
  const uint32_t bits = fdp.ConsumeIntegral<uint32_t>();
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Product of a shape's dims with negatives and zero counted as 0, saturating.
long long element_count(const std::vector<int>& shape) {
  if (shape.empty()) return 0;
  long long n = 1;
  for (int d : shape) {
    if (d <= 0) return 0;
    if (n > (1LL << 40) / d) return 1LL << 40;
    n *= d;
  }
  return n;
}

// Owned storage behind each TensorView of one execution, plus the largest |value| present.
struct Tensor {
  std::vector<int> shape;
  std::vector<float> owned;
  const float* data = nullptr;
  double max_abs = 0;
  bool finite = true;
  bool given = false;

  attn::TensorView view() const {
    if (!given) return {};
    attn::TensorView v;
    v.data = data;
    v.shape = shape;
    return v;
  }
};

// A shape that is `consistent` unless a perturbation byte breaks it: a dim replaced by an
// edge value, a dim dropped or added, or the whole shape emptied.
std::vector<int> consume_shape(FuzzedDataProvider& fdp, std::vector<int> consistent) {
  const uint8_t p = fdp.ConsumeIntegral<uint8_t>();
  if (p < 224) return consistent;
  switch (p % 4) {
    case 0:
      if (!consistent.empty()) consistent[fdp.ConsumeIntegral<uint8_t>() % consistent.size()] = consume_dim(fdp);
      break;
    case 1:
      if (!consistent.empty()) consistent.pop_back();
      break;
    case 2: consistent.push_back(consume_dim(fdp)); break;
    default: consistent.clear(); break;
  }
  return consistent;
}

Tensor consume_tensor(FuzzedDataProvider& fdp, std::vector<int> consistent) {
  Tensor t;
  t.given = true;
  t.shape = consume_shape(fdp, std::move(consistent));
  const long long n = element_count(t.shape);
  const uint8_t source = fdp.ConsumeIntegral<uint8_t>();
  if (n == 0) {
    // Empty or non-positive shape: null data, or a one-float buffer the core must not read.
    if (source & 1) {
      t.owned.assign(1, 0.0f);
      t.data = t.owned.data();
    }
    if (t.shape.empty() && !t.data) t.given = false;
    return t;
  }
  if (source == 255) {  // shape given, data missing
    t.data = nullptr;
    return t;
  }
  if (n > kHarnessFloats) {
    t.data = zero_region();  // zeros, up to the limit; a read past it faults
    return t;
  }
  // Palette of 1..8 values times 2^e; element i = palette[(i·mul + add) mod size].
  const int size = 1 + fdp.ConsumeIntegral<uint8_t>() % 8;
  float palette[8];
  for (int i = 0; i < size; ++i) palette[i] = consume_value(fdp);
  const uint8_t e = fdp.ConsumeIntegral<uint8_t>();
  const float mul_by = e < 192 ? 1.0f : std::ldexp(1.0f, (e - 192) * 4 - 128);
  const uint32_t mul = 1 + fdp.ConsumeIntegral<uint8_t>(), add = fdp.ConsumeIntegral<uint8_t>();
  t.owned.resize(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) {
    const float v = palette[(static_cast<uint64_t>(i) * mul + add) % static_cast<uint64_t>(size)] * mul_by;
    t.owned[static_cast<size_t>(i)] = v;
    if (!std::isfinite(v))
      t.finite = false;
    else
      t.max_abs = std::max(t.max_abs, static_cast<double>(std::fabs(v)));
  }
  t.data = t.owned.data();
  return t;
}

// attn::Error must name its argument: "name: …" with a known name.
void check_error_message(const attn::Error& error) {
  if (attn_fuzz::names_argument(
          error.what(),
          {"x",           "wq",     "wk",          "wv",    "bq",         "bk",    "bv",          "wqkv",
           "bqkv",        "wo",     "bo",          "heads", "keyPadding", "scale", "temperature", "dropout",
           "dropoutKeep", "kernel", "materialize", "d_k",   "d_v",        "d_o",   "index"}))
    return;
  finding("attn::Error does not name an argument", error.what());
}

struct Case {
  Tensor x, wq, wk, wv, bq, bk, bv, wqkv, bqkv, wo, bo;
  attn::Options opt;
  int mode = 0;

  attn::Inputs inputs() const {
    attn::Inputs in;
    in.x = x.view();
    in.wq = wq.view();
    in.wk = wk.view();
    in.wv = wv.view();
    in.bq = bq.view();
    in.bk = bk.view();
    in.bv = bv.view();
    in.wqkv = wqkv.view();
    in.bqkv = bqkv.view();
    in.wo = wo.view();
    in.bo = bo.view();
    return in;
  }
  bool all_finite() const {
    for (const Tensor* t : {&x, &wq, &wk, &wv, &bq, &bk, &bv, &wqkv, &bqkv, &wo, &bo})
      if (t->given && !t->finite) return false;
    return true;
  }
};

// 3·d clamped to int (the edge dims include INT_MAX and INT_MIN).
int times3(int d) { return static_cast<int>(std::clamp<long long>(3LL * d, INT_MIN, INT_MAX)); }

Case consume_case(FuzzedDataProvider& fdp) {
  Case c;
  c.mode = fdp.ConsumeIntegral<uint8_t>();
  const uint16_t flags = fdp.ConsumeIntegral<uint16_t>();
  const bool batched = flags & 1;
  const int projection = (flags >> 1) % 4;  // 0 none, 1 separate, 2 fused, 3 a mix (invalid)
  const bool biases = flags & 8, has_wo = flags & 16, has_bo = flags & 32;
  c.opt.causal = flags & 64;
  c.opt.training = flags & 128;
  c.opt.materialize = !(flags & 256);

  const int B = batched ? consume_dim(fdp) : 1, T = consume_dim(fdp), D = consume_dim(fdp);
  const int H = consume_dim(fdp);
  // Widths: a multiple of H most of the time, so the deep paths are reached.
  const uint8_t multiple = fdp.ConsumeIntegral<uint8_t>();
  const auto times = [](int h, int m) {
    return static_cast<int>(std::clamp<long long>(1LL * h * m, INT_MIN, INT_MAX));
  };
  const int dk = multiple < 200 ? times(H, 1 + multiple % 4) : consume_dim(fdp);
  const int dv = multiple < 200 ? times(H, 1 + (multiple / 4) % 4) : consume_dim(fdp);
  const int d_o = consume_dim(fdp);
  c.opt.heads = H;

  c.x = consume_tensor(fdp, batched ? std::vector<int>{B, T, D} : std::vector<int>{T, D});
  if (projection == 1 || projection == 3) {
    c.wq = consume_tensor(fdp, {D, dk});
    c.wk = consume_tensor(fdp, {D, dk});
    c.wv = consume_tensor(fdp, {D, dv});
    if (biases) {
      c.bq = consume_tensor(fdp, {dk});
      c.bk = consume_tensor(fdp, {dk});
      c.bv = consume_tensor(fdp, {dv});
    }
  }
  if (projection == 2 || projection == 3) {
    c.wqkv = consume_tensor(fdp, {times3(dk), D});
    if (biases) c.bqkv = consume_tensor(fdp, {times3(dk)});
  }
  if (projection == 0 && biases && (flags & 512)) c.bq = consume_tensor(fdp, {D});  // bias without weights
  const int dv_actual = projection == 0 ? D : projection == 2 ? dk : dv;
  if (has_wo) c.wo = consume_tensor(fdp, {dv_actual, d_o});
  if (has_bo) c.bo = consume_tensor(fdp, {d_o});

  // Key padding: none, (T), (B, T), a wrong shape, or a right shape with the wrong count.
  const uint8_t padding = fdp.ConsumeIntegral<uint8_t>();
  if (padding >= 128) {
    std::vector<int> shape = (padding & 1) && batched ? std::vector<int>{B, T} : std::vector<int>{T};
    shape = consume_shape(fdp, shape);
    long long n = std::min<long long>(element_count(shape), 1 << 20);
    if (padding & 2) n += (padding & 4) ? 1 : -1;
    const uint8_t fill = fdp.ConsumeIntegral<uint8_t>();  // 0 all masked, 1 all kept, else bits
    c.opt.key_padding_shape = shape;
    c.opt.key_padding.resize(static_cast<size_t>(std::max<long long>(n, 0)));
    for (auto& f : c.opt.key_padding)
      f = fill == 0 ? 0 : fill == 1 ? 1 : (fdp.ConsumeBool() ? fdp.ConsumeIntegral<uint8_t>() : 0);
  }

  const uint8_t scale = fdp.ConsumeIntegral<uint8_t>();
  c.opt.scale_mode = scale % 3 == 0   ? attn::ScaleMode::kInverseSqrtHeadSize
                     : scale % 3 == 1 ? attn::ScaleMode::kNone
                                      : attn::ScaleMode::kFactor;
  if (c.opt.scale_mode == attn::ScaleMode::kFactor) c.opt.scale_factor = consume_value(fdp);
  if (fdp.ConsumeBool()) c.opt.temperature = consume_value(fdp);
  static constexpr float kDropouts[] = {0.0f,
                                        0.1f,
                                        0.5f,
                                        0.9f,
                                        0.99999994f,
                                        1.0f,
                                        -0.1f,
                                        2.0f,
                                        std::numeric_limits<float>::quiet_NaN(),
                                        std::numeric_limits<float>::infinity(),
                                        1e-30f};
  const uint8_t dropout = fdp.ConsumeIntegral<uint8_t>();
  c.opt.dropout = dropout < 176 ? kDropouts[dropout % 11] : consume_value(fdp);
  c.opt.seed = fdp.ConsumeIntegral<uint64_t>();
  const uint8_t keep = fdp.ConsumeIntegral<uint8_t>();
  if (keep >= 192) {
    const double full = static_cast<double>(std::max(B, 0)) * std::max(H, 0) * std::max(T, 0) * std::max(T, 0);
    long long n = static_cast<long long>(std::min(full, static_cast<double>(1 << 20)));
    if (keep & 1) n += (keep & 2) ? 1 : -1;
    c.opt.dropout_keep.resize(static_cast<size_t>(std::max<long long>(n, 0)));
    // Any nonzero byte means keep (attention.h); "keep-bytes" in ATTN_FUZZ_KNOWN sends only 0/1.
    const uint8_t bits = (keep & 4) && !known("keep-bytes") ? 0xff : 1;
    for (auto& f : c.opt.dropout_keep) f = static_cast<uint8_t>(fdp.ConsumeIntegral<uint8_t>() & bits);
  }
  c.opt.kernel = static_cast<attn::Kernel>(fdp.ConsumeIntegral<uint8_t>() % 5);
  return c;
}

// ---- cost of an accepted call (from the validated plan) ----

struct Cost {
  double work = 0;   // multiply-adds
  double bytes = 0;  // peak bytes the core allocates, approximately
};

Cost cost_of(const attn::detail::Plan& p, const attn::Options& opt, bool separately) {
  const double B = p.B, T = p.T, D = p.D, H = p.H, dk = p.dk, dv = p.dv, hk = p.hk, hv = p.hv, d_o = p.d_out;
  Cost c;
  const double proj = p.projection == attn::detail::Projection::kNone ? 0 : B * T * D * (2 * dk + dv);
  c.work = proj + B * H * T * T * (hk + hv) + (p.has_wo ? B * T * dv * d_o : 0);
  double floats = 2 * B * T * (2 * dk + dv)        // projections and per-head copies
                  + B * T * dv * 2 + B * T * d_o;  // head outputs, merged, output
  if (opt.materialize)
    floats += 5 * B * H * T * T;
  else if (p.kernel != attn::Kernel::kTiled)
    floats += T * T;  // the passes' one (T, T) scratch
  double bytes = floats * 4;
  if (p.dropout_active) bytes += B * H * T * T * (separately ? 2 : 1);  // keep-mask bytes
  if (separately) bytes *= 2;                                           // per-head traces, then stacked
  c.bytes = bytes;
  return c;
}

// ---- a-priori magnitude bounds (double) and the tolerances derived from them ----

struct Bounds {
  double q = 0, k = 0, v = 0;  // |q|, |k|, |v| entries
  double scores = 0;           // |scores|
  double scaled = 0;           // |scaled|
  double head = 0;             // |head outputs|, |merged|
  double out = 0;              // |output|
};

double max_abs(const Tensor& t) { return t.given ? t.max_abs : 0.0; }

Bounds bounds_of(const Case& c, const attn::detail::Plan& p) {
  Bounds b;
  const double x = max_abs(c.x);
  switch (p.projection) {
    case attn::detail::Projection::kNone: b.q = b.k = b.v = x; break;
    case attn::detail::Projection::kSeparate:
      b.q = p.D * x * max_abs(c.wq) + max_abs(c.bq);
      b.k = p.D * x * max_abs(c.wk) + max_abs(c.bk);
      b.v = p.D * x * max_abs(c.wv) + max_abs(c.bv);
      break;
    case attn::detail::Projection::kFused: b.q = b.k = b.v = p.D * x * max_abs(c.wqkv) + max_abs(c.bqkv); break;
  }
  b.scores = p.hk * b.q * b.k;
  b.scaled = b.scores * std::fabs(static_cast<double>(p.alpha));
  const double keep_scale = p.dropout_active ? 1.0 / (1.0 - static_cast<double>(c.opt.dropout)) : 1.0;
  b.head = p.T * keep_scale * b.v;
  b.out = p.has_wo ? p.dv * b.head * max_abs(c.wo) + max_abs(c.bo) : b.head;
  return b;
}

bool bounded(const Bounds& b) {
  for (double v : {b.q, b.k, b.v, b.scores, b.scaled, b.head, b.out})
    if (!(v < kFiniteBound)) return false;
  return true;
}

std::string describe(const Case& c, const attn::detail::Plan& p) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "B=%d T=%d D=%d H=%d dk=%d dv=%d do=%d proj=%d wo=%d causal=%d padding=%zu kernel=%s materialize=%d "
                "training=%d dropout=%g keep=%zu scale=%g temperature=%g alpha=%g |x|=%g",
                p.B, p.T, p.D, p.H, p.dk, p.dv, p.d_out, static_cast<int>(p.projection), p.has_wo, c.opt.causal,
                c.opt.key_padding.size(), attn::kernel_name(p.kernel), c.opt.materialize, c.opt.training, c.opt.dropout,
                c.opt.dropout_keep.size(), p.scale, c.opt.temperature, p.alpha, c.x.max_abs);
  return buffer;
}

void expect_shape(const attn::Tensor& t, const std::vector<int>& shape, const char* name, const std::string& ctx) {
  long long n = 1;
  for (int d : shape) n *= d;
  if (t.shape != shape || t.size() != n) finding("trace tensor has the wrong shape", std::string(name) + " " + ctx);
}

void expect_finite(const attn::Tensor& t, const char* name, const std::string& ctx, bool allow_minus_inf = false) {
  for (long long i = 0; i < t.size(); ++i) {
    const float v = t.data[static_cast<size_t>(i)];
    if (std::isfinite(v) || (allow_minus_inf && v == -std::numeric_limits<float>::infinity())) continue;
    finding("NaN/Inf in a trace for bounded finite inputs",
            std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(v) + "; " + ctx);
  }
}

bool key_masked(const attn::Options& opt, int b, int T, int j) {
  if (opt.key_padding.empty()) return false;
  const size_t base = opt.key_padding_shape.size() == 2 ? static_cast<size_t>(b) * T : 0;
  return opt.key_padding[base + static_cast<size_t>(j)] == 0;
}

// Softmax rows sum to 1 (0 when every key is masked); masked weights are exactly 0; a fully
// masked query row gives a zero head-output row.
void check_weights(const attn::Trace& t, const Case& c, const attn::detail::Plan& p, const std::string& ctx) {
  const int T = p.T;
  for (int b = 0; b < p.B; ++b)
    for (int h = 0; h < p.H; ++h)
      for (int i = 0; i < T; ++i) {
        const float* row = t.weights.data.data() + ((static_cast<long long>(b) * p.H + h) * T + i) * T;
        double sum = 0;
        bool any_live = false;
        for (int j = 0; j < T; ++j) {
          const bool masked = (c.opt.causal && j > i) || key_masked(c.opt, b, T, j);
          any_live |= !masked;
          if (masked && row[j] != 0.0f) finding("a masked weight is not exactly 0", ctx);
          if (!(row[j] >= 0.0f && row[j] <= 1.0f + 1e-6f)) finding("a weight outside [0, 1]", ctx);
          sum += row[j];
        }
        const double want = any_live ? 1.0 : 0.0;
        if (std::fabs(sum - want) > 1e-4 * (1 + T * 1e-3)) {
          finding("a softmax row does not sum to 1 (or 0 when fully masked)",
                  "sum " + std::to_string(sum) + " row " + std::to_string(i) + "; " + ctx);
        }
        if (!any_live) {
          const float* out = t.head_outputs.data.data() + ((static_cast<long long>(b) * p.H + h) * T + i) * p.hv;
          for (int d = 0; d < p.hv; ++d)
            if (out[d] != 0.0f) finding("a fully masked query row has a non-zero head output", ctx);
        }
      }
}

// |got − want| ≤ tol elementwise.
void expect_near(const attn::Tensor& got, const attn::Tensor& want, double tol, const char* what,
                 const std::string& ctx) {
  if (got.size() != want.size()) finding("kernels disagree on a size", std::string(what) + "; " + ctx);
  for (long long i = 0; i < got.size(); ++i) {
    const double g = got.data[static_cast<size_t>(i)], w = want.data[static_cast<size_t>(i)];
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= tol)) {
      char buffer[256];
      std::snprintf(buffer, sizeof buffer, "%s[%lld]: %.9g vs reference %.9g (tolerance %.3g); ", what, i, g, w, tol);
      finding("kernels disagree", buffer + ctx);
    }
  }
}

attn::Trace run_attend(const attn::Inputs& in, const attn::Options& opt, bool separately) {
  return separately ? attn::attend_heads_separately(in, opt) : attn::attend(in, opt);
}

void fuzz_attend(const Case& c, bool separately) {
  const attn::Inputs in = c.inputs();
  attn::detail::Plan plan;
  try {
    plan = attn::detail::validate(in, c.opt);
  } catch (const attn::Error& error) {
    check_error_message(error);
    // The public entry must refuse the same call with the same message.
    try {
      run_attend(in, c.opt, separately);
    } catch (const attn::Error& again) {
      if (std::string(again.what()) != error.what()) finding("attend and validate disagree", again.what());
      return;
    }
    finding("validate refused a call that attend accepted", error.what());
  }
  const std::string ctx = describe(c, plan);
  const Cost cost = cost_of(plan, c.opt, separately);
  if (cost.bytes > kGapBytes || cost.work > kGapWork) {
    if (!known("attend-gap")) {
      char buffer[128];
      std::snprintf(buffer, sizeof buffer, "needs ~%.3g bytes and ~%.3g multiply-adds; ", cost.bytes, cost.work);
      finding("the limits accept a call that needs a huge allocation or hours of work", buffer + ctx);
    }
    return;
  }
  if (cost.work > kHarnessWork || cost.bytes > 4 * kHarnessFloats) return;  // valid, too slow to fuzz

  attn::Trace t;
  try {
    t = run_attend(in, c.opt, separately);
  } catch (const attn::Error& error) {
    if (separately && !c.opt.materialize) return;  // documented: the list form needs materialize
    finding("attend refused a call that validate accepted", std::string(error.what()) + "; " + ctx);
  }

  // Shapes.
  const int B = plan.B, H = plan.H, T = plan.T;
  expect_shape(t.q, {B, H, T, plan.hk}, "q", ctx);
  expect_shape(t.k, {B, H, T, plan.hk}, "k", ctx);
  expect_shape(t.v, {B, H, T, plan.hv}, "v", ctx);
  expect_shape(t.head_outputs, {B, H, T, plan.hv}, "head_outputs", ctx);
  expect_shape(t.merged, {B, T, plan.dv}, "merged", ctx);
  expect_shape(t.output, {B, T, plan.d_out}, "output", ctx);
  if (c.opt.materialize) {
    for (const attn::Tensor* m : {&t.scores, &t.scaled, &t.masked, &t.weights, &t.dropped})
      expect_shape(*m, {B, H, T, T}, "T×T tensor", ctx);
  } else if (t.scores.size() || t.weights.size()) {
    finding("materialize = false still returned T×T tensors", ctx);
  }

  if (!c.all_finite()) return;  // unreachable for an accepted call, but keep the oracle honest
  const Bounds bound = bounds_of(c, plan);
  // Limits::kMaxMagnitude and kMaxAlpha exist so that this bound always holds (docs/limits.md).
  if (!bounded(bound)) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "bounds q %.3g scores·α %.3g head %.3g output %.3g; ", bound.q, bound.scaled,
                  bound.head, bound.out);
    finding("an accepted call can overflow float32: the magnitude limits do not bound it", buffer + ctx);
  }

  for (const attn::Tensor* m : {&t.q, &t.k, &t.v, &t.head_outputs, &t.merged, &t.output})
    expect_finite(*m, "trace", ctx);
  if (c.opt.materialize) {
    expect_finite(t.scores, "scores", ctx);
    expect_finite(t.scaled, "scaled", ctx);
    expect_finite(t.masked, "masked", ctx, true);
    expect_finite(t.weights, "weights", ctx);
    expect_finite(t.dropped, "dropped", ctx);
    check_weights(t, c, plan, ctx);
  }

  // Differential: the same call through the reference loops (and, for attend, through the
  // list-of-heads form), when the scaled scores are small enough that float rounding cannot
  // move the softmax far. Error model: each dot product of n terms is off by ≤ n·ε·Σ|terms|.
  if (plan.kernel == attn::Kernel::kReference && !separately) return;
  if (bound.scaled > 30 || bound.v > 1e6) return;
  const double eps = 1.2e-7;
  const double q_err =
      (plan.D + 2) * eps * (plan.projection == attn::detail::Projection::kNone ? bound.q : bound.q * 2);
  const double scaled_err = std::fabs(plan.alpha) * plan.hk *
                            (2 * q_err * std::max(bound.q, bound.k) + (plan.hk + 2) * eps * bound.q * bound.k);
  const double keep_scale = plan.dropout_active ? 1.0 / (1.0 - static_cast<double>(c.opt.dropout)) : 1.0;
  // weights move by ≤ 2·scaled_err·w (+ rounding); head outputs by Σ_j |Δw_ij|·|v_j| + rounding.
  const double weight_tol = 4 * scaled_err + 1e-5;
  const double head_tol =
      keep_scale * (4 * scaled_err + (T + 8) * 4 * eps) * (bound.v + 2 * q_err) + keep_scale * 2 * q_err + 1e-6;
  const double out_tol =
      plan.has_wo ? plan.dv * head_tol * max_abs(c.wo) * 2 + (plan.dv + 2) * 4 * eps * bound.out + 1e-6 : head_tol;
  attn::Options ref_opt = c.opt;
  ref_opt.kernel = attn::Kernel::kReference;
  ref_opt.materialize = true;
  attn::Trace r;
  try {
    r = attn::attend(in, ref_opt);
  } catch (const attn::Error&) {
    return;  // e.g. dropout keep-mask of the wrong size only matters when materialising
  }
  expect_near(t.head_outputs, r.head_outputs, head_tol, "head_outputs", ctx);
  expect_near(t.output, r.output, out_tol, "output", ctx);
  if (c.opt.materialize) expect_near(t.weights, r.weights, weight_tol, "weights", ctx);
}

void fuzz_average(const Case& c) {
  const attn::TensorView x = c.x.view();
  attn::Inputs in;
  in.x = x;
  attn::detail::Plan plan;
  try {
    plan = attn::detail::validate(in, attn::Options{});  // the checks causal_average applies
  } catch (const attn::Error& error) {
    check_error_message(error);
    try {
      attn::causal_average(x);
    } catch (const attn::Error& again) {
      if (std::string(again.what()) != error.what()) finding("causal_average and validate disagree", again.what());
      return;
    }
    finding("validate refused an x that causal_average accepted", error.what());
  }
  // The loop is B·T·(T+1)/2·D adds, the two products B·T·T·D each; three (T, T) tensors.
  const double work = 2.5 * plan.B * static_cast<double>(plan.T) * plan.T * plan.D;
  const double bytes = 4.0 * (3.0 * plan.T * plan.T + 3.0 * plan.B * plan.T * plan.D);
  if (bytes > kGapBytes || work > kGapWork) {
    if (!known("average-gap")) {
      char buffer[160];
      std::snprintf(buffer, sizeof buffer, "causal_average x %s needs ~%.3g bytes and ~%.3g adds",
                    attn::shape_string(x.shape).c_str(), bytes, work);
      finding("the limits accept a call that needs a huge allocation or hours of work", buffer);
    }
    return;
  }
  if (work > kHarnessWork || bytes > 4 * kHarnessFloats) return;
  attn::AveragingTrace a;
  try {
    a = attn::causal_average(x);
  } catch (const attn::Error& error) {
    finding("causal_average refused an x that validate accepted", error.what());
  }
  const int T = x.shape[x.shape.size() - 2];
  const double bound = max_abs(c.x);
  if (!(bound < kFiniteBound / T)) return;
  const std::string ctx = "causal_average " + attn::shape_string(x.shape);
  for (const attn::Tensor* m : {&a.loop, &a.matmul, &a.softmax, &a.tril_weights, &a.softmax_weights})
    expect_finite(*m, "averaging", ctx);
  // The three forms agree: each output is a mean of ≤ T values, so rounding is ≤ (T+2)·ε·|x|.
  const double tol = (T + 2) * 4 * 1.2e-7 * bound + 1e-30;
  expect_near(a.matmul, a.loop, tol, "matmul vs loop", ctx);
  expect_near(a.softmax, a.loop, tol, "softmax vs loop", ctx);
  expect_near(a.softmax_weights, a.tril_weights, 1e-6, "softmax weights vs tril", ctx);
}

// ---- the kernels directly: every _simd version against its _ref twin ----

// A kernel-sized dim: 1..12 mostly, vector-width breakers (16, 17, 31, 33, 64, 67) sometimes.
int kernel_dim(FuzzedDataProvider& fdp) {
  const int d = consume_dim(fdp);
  return d >= 1 && d <= 80 ? d : 1 + static_cast<int>(static_cast<unsigned>(d) % 67);
}

// n values within the core's magnitude limit (the kernels' documented input domain).
std::vector<float> kernel_values(FuzzedDataProvider& fdp, long long n, double& max_abs) {
  Tensor t = consume_tensor(fdp, {static_cast<int>(n)});
  std::vector<float> out(static_cast<size_t>(n), 0.0f);
  max_abs = 0;
  if (!t.data || element_count(t.shape) != n) return out;  // a perturbed shape: keep zeros
  for (long long i = 0; i < n; ++i) {
    float v = t.data[i];
    if (!std::isfinite(v) || std::fabs(v) > Limits::kMaxMagnitude) v = 0.0f;
    out[static_cast<size_t>(i)] = v;
    max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  }
  return out;
}

void expect_close(const std::vector<float>& simd, const std::vector<float>& ref, double tol, const char* what,
                  const std::string& ctx) {
  for (size_t i = 0; i < ref.size(); ++i) {
    const double g = simd[i], w = ref[i];
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= tol)) {
      char buffer[256];
      std::snprintf(buffer, sizeof buffer, "%s[%zu]: simd %.9g vs ref %.9g (tolerance %.3g); ", what, i, g, w, tol);
      finding("a _simd kernel disagrees with its _ref twin", buffer + ctx);
    }
  }
}

void fuzz_kernels(FuzzedDataProvider& fdp) {
  namespace k = attn::kernels;
  const double eps = 1.2e-7;
  const int which = fdp.ConsumeIntegral<uint8_t>() % 5;
  const int M = kernel_dim(fdp), K = kernel_dim(fdp), N = kernel_dim(fdp);
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "kernel test %d, sizes %d %d %d", which, M, K, N);
  double mx, mw, mb;
  switch (which) {
    case 0:
    case 1: {  // matmul / matmul_nt, with or without bias
      const std::vector<float> x = kernel_values(fdp, 1LL * M * K, mx), w = kernel_values(fdp, 1LL * K * N, mw);
      const std::vector<float> bias = kernel_values(fdp, N, mb);
      const float* b = fdp.ConsumeBool() ? bias.data() : nullptr;
      std::vector<float> ref(static_cast<size_t>(M) * N), simd(ref.size());
      if (which == 0) {
        k::matmul_ref(ref.data(), x.data(), w.data(), b, M, K, N);
        k::matmul_simd(simd.data(), x.data(), w.data(), b, M, K, N);
      } else {
        k::matmul_nt_ref(ref.data(), x.data(), w.data(), b, M, K, N);
        k::matmul_nt_simd(simd.data(), x.data(), w.data(), b, M, K, N);
      }
      expect_close(simd, ref, 2 * (K + 2) * eps * (K * mx * mw + mb) + 1e-30, which ? "matmul_nt" : "matmul", ctx);
      break;
    }
    case 2: {  // qk_scores (T, T) with alpha and causal
      const int T = M, hk = K;
      const std::vector<float> q = kernel_values(fdp, 1LL * T * hk, mx), kk = kernel_values(fdp, 1LL * T * hk, mw);
      const float alpha = static_cast<float>(fdp.ConsumeIntegralInRange<int>(-64, 64)) / 8.0f;
      const bool causal = fdp.ConsumeBool();
      std::vector<float> ref(static_cast<size_t>(T) * T), simd(ref.size());
      k::qk_scores_ref(ref.data(), q.data(), kk.data(), T, hk, alpha, causal);
      k::qk_scores_simd(simd.data(), q.data(), kk.data(), T, hk, alpha, causal);
      expect_close(simd, ref, 2 * (hk + 2) * eps * hk * mx * mw * std::fabs(alpha) + 1e-30, "qk_scores", ctx);
      break;
    }
    case 3: {  // softmax_rows with −∞ entries, then weighted_sum
      const int rows = M, cols = fdp.ConsumeBool() ? M : N, hv = K;
      const bool causal = rows == cols && fdp.ConsumeBool();
      std::vector<float> w = kernel_values(fdp, 1LL * rows * cols, mx);
      for (auto& v : w) v *= 0.01f;  // logits within ±100: exp stays representable after the max shift
      const uint8_t mask = fdp.ConsumeIntegral<uint8_t>();
      for (size_t i = 0; i < w.size(); ++i)
        if (mask && (i * 7 + mask) % 5 == 0) w[i] = -std::numeric_limits<float>::infinity();
      if (mask == 255 && rows > 0) std::fill(w.begin(), w.begin() + cols, -std::numeric_limits<float>::infinity());
      std::vector<float> ref = w, simd = w;
      k::softmax_rows_ref(ref.data(), rows, cols, causal);
      k::softmax_rows_simd(simd.data(), rows, cols, causal);
      if (causal)  // entries above the diagonal are unspecified ("not read"): compare the rest
        for (int i = 0; i < rows; ++i)
          for (int j = i + 1; j < cols; ++j)
            ref[static_cast<size_t>(i) * cols + j] = simd[static_cast<size_t>(i) * cols + j];
      expect_close(simd, ref, 1e-6 + cols * 4 * eps, "softmax_rows", ctx);
      if (rows == cols) {
        const std::vector<float> v = kernel_values(fdp, 1LL * rows * hv, mw);
        std::vector<float> out_ref(static_cast<size_t>(rows) * hv), out_simd(out_ref.size());
        k::weighted_sum_ref(out_ref.data(), ref.data(), v.data(), rows, hv, causal);
        k::weighted_sum_simd(out_simd.data(), ref.data(), v.data(), rows, hv, causal);
        expect_close(out_simd, out_ref, (rows + 2) * 4 * eps * mw + 1e-30, "weighted_sum", ctx);
      }
      break;
    }
    default: {  // fused tiled attention with key padding and causal
      const int T = M + (fdp.ConsumeBool() ? 64 : 0), hk = K, hv = N;  // T past one tile sometimes
      const std::vector<float> q = kernel_values(fdp, 1LL * T * hk, mx), kk = kernel_values(fdp, 1LL * T * hk, mw);
      const std::vector<float> v = kernel_values(fdp, 1LL * T * hv, mb);
      std::vector<std::uint8_t> keep(static_cast<size_t>(T), 1);
      const uint8_t mask = fdp.ConsumeIntegral<uint8_t>();
      for (int j = 0; j < T; ++j)
        keep[static_cast<size_t>(j)] = mask == 255 ? 0 : ((j * 13 + mask) % 7 != 0 || mask < 64);
      const float alpha = static_cast<float>(fdp.ConsumeIntegralInRange<int>(-64, 64)) / 64.0f;
      const bool causal = fdp.ConsumeBool();
      const double scaled = hk * mx * mw * std::fabs(alpha);
      if (scaled > 30) return;  // rounding would move the softmax: nothing to compare
      std::vector<float> ref(static_cast<size_t>(T) * hv), simd(ref.size());
      const std::uint8_t* kp = fdp.ConsumeBool() ? keep.data() : nullptr;
      k::attention_tiled_ref<float>(ref.data(), nullptr, q.data(), kk.data(), v.data(), kp, T, hk, hv, alpha, causal);
      k::attention_tiled_simd(simd.data(), nullptr, q.data(), kk.data(), v.data(), kp, T, hk, hv, alpha, causal);
      const double score_err = 4 * (hk + 2) * eps * hk * mx * mw * std::fabs(alpha);
      expect_close(simd, ref, (4 * score_err + (T + 8) * 4 * eps) * mb + 1e-30, "attention_tiled", ctx);
      break;
    }
  }
}

// Public helpers on a finished trace: Tensor::at with fuzzed indices, cosine_similarity of rows.
void fuzz_helpers(FuzzedDataProvider& fdp, const Case& c) {
  if (c.x.data && c.x.finite && element_count(c.x.shape) >= 2 && element_count(c.x.shape) <= kHarnessFloats) {
    const int n = static_cast<int>(element_count(c.x.shape) / 2);
    const float cs = attn::cosine_similarity(c.x.data, c.x.data + n, n);
    if (c.x.max_abs < 1e18 && !(std::fabs(cs) <= 1.0f + 1e-5f)) {
      finding("cosine_similarity outside [-1, 1] for finite inputs", std::to_string(cs));
    }
  }
  attn::Tensor t;
  t.shape = {fdp.ConsumeIntegralInRange<int>(1, 4), fdp.ConsumeIntegralInRange<int>(1, 4)};
  t.data.assign(static_cast<size_t>(t.shape[0] * t.shape[1]), 1.0f);
  const int i = fdp.ConsumeIntegralInRange<int>(-2, 5), j = fdp.ConsumeIntegralInRange<int>(-2, 5);
  try {
    if (fdp.ConsumeBool())
      (void)t.at({i, j});
    else
      (void)t.at({i});
  } catch (const attn::Error& error) {
    check_error_message(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const Case c = consume_case(fdp);
  try {
    // Public helpers on fuzzed values.
    if (!known("view-size")) (void)c.x.view().size();
    if ((c.mode & 0xf0) == 0xf0) {
      const std::string name = fdp.ConsumeRandomLengthString(16);
      try {
        (void)attn::parse_kernel(name);
      } catch (const attn::Error& error) {
        check_error_message(error);
      }
    }
    switch (c.mode % 8) {
      case 5: fuzz_kernels(fdp); break;
      case 6: fuzz_attend(c, true); break;
      case 7: fuzz_average(c); break;
      default: fuzz_attend(c, false); break;
    }
    if ((c.mode & 0xf0) == 0xe0) fuzz_helpers(fdp, c);
  } catch (const attn::Error& error) {
    finding("attn::Error escaped a path the harness expected to succeed", error.what());
  } catch (const std::exception& error) {
    finding("exception other than attn::Error", std::string(typeid(error).name()) + ": " + error.what());
  }
  return 0;
}

// attend(): projections, per-head passes (head.cpp), merge, output projection; the multi-head
// "list of heads" form; the plain linear layer. Legend: B batch, T tokens, D width, H heads,
// dk/dv all-head widths, hk/hv per-head widths, do output width, N linear output width.
#include "core/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/detail/internal.h"
#include "core/threads.h"
#include "kernels/kernels.h"

namespace attn {

long long TensorView::size() const {
  if (shape.empty()) return 0;
  long long count = 1;
  for (int dim : shape) {
    if (dim <= 0) return 0;
    if (count > std::numeric_limits<long long>::max() / dim) return std::numeric_limits<long long>::max();
    count *= dim;
  }
  return count;
}

float Tensor::at(std::initializer_list<int> index) const {
  if (index.size() != shape.size()) throw Error("index: expected " + std::to_string(shape.size()) + " indices");
  long long flat = 0;
  size_t axis = 0;
  for (int i : index) {
    if (i < 0 || i >= shape[axis])
      throw Error("index: " + std::to_string(i) + " out of range for axis " + std::to_string(axis));
    flat = flat * shape[axis] + i;
    ++axis;
  }
  return data[static_cast<size_t>(flat)];
}

const char* kernel_name(Kernel kernel) {
  switch (kernel) {
    case Kernel::kReference: return "reference";
    case Kernel::kEigen: return "vectorized";
    case Kernel::kSimd: return "simd";
    case Kernel::kTiled: return "tiled";
    case Kernel::kAuto: return "auto";
  }
  return "auto";
}

Kernel parse_kernel(const std::string& name, const std::string& argument) {
  for (Kernel k : {Kernel::kReference, Kernel::kEigen, Kernel::kSimd, Kernel::kTiled, Kernel::kAuto}) {
    if (name == kernel_name(k)) return k;
  }
  throw Error(argument + ": expected one of 'reference', 'vectorized', 'simd', 'tiled', 'auto', got '" + name + "'");
}

float cosine_similarity(const float* a, const float* b, int n) {
  double dot = 0, norm_a = 0, norm_b = 0;
  for (int i = 0; i < n; ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    norm_a += static_cast<double>(a[i]) * a[i];
    norm_b += static_cast<double>(b[i]) * b[i];
  }
  if (norm_a == 0 || norm_b == 0) return 0.0f;
  return static_cast<float>(dot / std::sqrt(norm_a * norm_b));
}

namespace detail {

Tensor zeros(std::vector<int> shape) {
  long long count = 1;
  for (int dim : shape) count *= dim;
  Tensor t;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(count), 0.0f);
  return t;
}

bool dropout_keeps(std::uint64_t seed, long long flat_index, float p) {
  // splitmix64 of (seed, index): a counter-based draw, so entries are independent of order.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(flat_index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  const float uniform = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // [0, 1) in 2^-24 steps
  return uniform >= p;
}

}  // namespace detail

namespace detail {

void split_heads(Tensor& heads, const std::vector<float>& full, const Plan& plan, int width) {
  // heads: (B, H, T, width), full: (B·T, H·width)
  const int total = width * plan.H;
  for (int b = 0; b < plan.B; ++b)
    for (int h = 0; h < plan.H; ++h)
      for (int t = 0; t < plan.T; ++t) {
        const float* src = full.data() + (static_cast<long long>(b) * plan.T + t) * total + h * width;
        float* dst = heads.data.data() + ((static_cast<long long>(b) * plan.H + h) * plan.T + t) * width;
        std::copy(src, src + width, dst);
      }
}

void merge_heads(Tensor& merged, const Tensor& heads, const Plan& plan, int width) {
  // merged: (B, T, H·width), heads: (B, H, T, width); as view(B, T, H, width).transpose(1, 2) undone
  const int total = width * plan.H;
  merged = zeros({plan.B, plan.T, total});
  for (int b = 0; b < plan.B; ++b)
    for (int h = 0; h < plan.H; ++h)
      for (int t = 0; t < plan.T; ++t) {
        const float* src = heads.data.data() + ((static_cast<long long>(b) * plan.H + h) * plan.T + t) * width;
        float* dst = merged.data.data() + (static_cast<long long>(b) * plan.T + t) * total + h * width;
        std::copy(src, src + width, dst);
      }
}

void project_qkv(std::vector<float>& q, std::vector<float>& k, std::vector<float>& v, const Inputs& in,
                 const Plan& plan, const KernelTable& kernels) {
  // q, k: (B·T, dk), v: (B·T, dv), from x (B·T, D)
  const int rows = plan.B * plan.T;
  const long long x_count = static_cast<long long>(rows) * plan.D;
  q.resize(static_cast<size_t>(rows) * plan.dk);
  k.resize(static_cast<size_t>(rows) * plan.dk);
  v.resize(static_cast<size_t>(rows) * plan.dv);
  switch (plan.projection) {
    case Projection::kNone:
      std::copy(in.x.data, in.x.data + x_count, q.begin());
      std::copy(in.x.data, in.x.data + x_count, k.begin());
      std::copy(in.x.data, in.x.data + x_count, v.begin());
      break;
    case Projection::kSeparate:
      kernels.matmul(q.data(), in.x.data, in.wq.data, in.bq.data, rows, plan.D, plan.dk);
      kernels.matmul(k.data(), in.x.data, in.wk.data, in.bk.data, rows, plan.D, plan.dk);
      kernels.matmul(v.data(), in.x.data, in.wv.data, in.bv.data, rows, plan.D, plan.dv);
      break;
    case Projection::kFused: {
      // wqkv (3d, D) rows [0, d) → q, [d, 2d) → k, [2d, 3d) → v; as qkv.split(d, dim=-1)
      const long long block = static_cast<long long>(plan.dk) * plan.D;
      const float* bias = in.bqkv.data;
      kernels.matmul_nt(q.data(), in.x.data, in.wqkv.data, bias, rows, plan.D, plan.dk);
      kernels.matmul_nt(k.data(), in.x.data, in.wqkv.data + block, bias ? bias + plan.dk : nullptr, rows, plan.D,
                        plan.dk);
      kernels.matmul_nt(v.data(), in.x.data, in.wqkv.data + 2 * block, bias ? bias + 2 * plan.dk : nullptr, rows,
                        plan.D, plan.dv);
      break;
    }
  }
}

std::vector<std::uint8_t> dropout_mask(const Options& opt, const Plan& plan) {
  // (B, H, T, T) bytes, or empty when dropout is inactive
  if (!plan.dropout_active) return {};
  if (!opt.dropout_keep.empty()) return opt.dropout_keep;
  const long long n = static_cast<long long>(plan.B) * plan.H * plan.T * plan.T;
  std::vector<std::uint8_t> keep(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) keep[static_cast<size_t>(i)] = dropout_keeps(opt.seed, i, opt.dropout) ? 1 : 0;
  return keep;
}

HeadInputs head_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const std::vector<std::uint8_t>& keep,
                       const Options& opt, const Plan& plan, int b, int h) {
  const int T = plan.T;
  const long long head = static_cast<long long>(b) * plan.H + h;
  HeadInputs in;
  in.q = q.data.data() + head * T * plan.hk;
  in.k = k.data.data() + head * T * plan.hk;
  in.v = v.data.data() + head * T * plan.hv;
  if (!opt.key_padding.empty()) {
    in.key_keep = opt.key_padding.data() + (opt.key_padding_shape.size() == 2 ? static_cast<long long>(b) * T : 0);
  }
  in.keep = keep.empty() ? nullptr : keep.data() + head * T * T;
  in.dropout = opt.dropout;
  in.alpha = plan.alpha;
  in.causal = opt.causal;
  in.T = T;
  in.hk = plan.hk;
  in.hv = plan.hv;
  return in;
}

}  // namespace detail

namespace {

using detail::Plan;
using detail::Projection;
using detail::zeros;

// output (B, T, do) = merged (B, T, dv) · W_O + b_O, or merged itself when there is no W_O.
void apply_output_projection(Tensor& output, const Tensor& merged, const Inputs& in, const Plan& plan) {
  if (!plan.has_wo) {
    output = merged;
    return;
  }
  output = zeros({plan.B, plan.T, plan.d_out});
  kernels_for(plan.kernel)
      .matmul(output.data.data(), merged.data.data(), in.wo.data, in.bo.data, plan.B * plan.T, plan.dv, plan.d_out);
}

}  // namespace

Trace attend(const Inputs& in, const Options& opt) {
  const Plan plan = detail::validate(in, opt);
  const int B = plan.B, T = plan.T, H = plan.H;

  Trace trace;
  trace.batch = B;
  trace.tokens = T;
  trace.width = plan.D;
  trace.heads = H;
  trace.dk = plan.dk;
  trace.dv = plan.dv;
  trace.d_out = plan.d_out;
  trace.batched = plan.batched;
  trace.scale = plan.scale;
  trace.kernel = plan.kernel;

  // Projections, then per-head copies (B, H, T, hk|hv).
  const KernelTable& kernels = kernels_for(plan.kernel);
  std::vector<float> q_full, k_full, v_full;
  detail::project_qkv(q_full, k_full, v_full, in, plan, kernels);
  trace.q = zeros({B, H, T, plan.hk});
  trace.k = zeros({B, H, T, plan.hk});
  trace.v = zeros({B, H, T, plan.hv});
  detail::split_heads(trace.q, q_full, plan, plan.hk);
  detail::split_heads(trace.k, k_full, plan, plan.hk);
  detail::split_heads(trace.v, v_full, plan, plan.hv);
  // Free the (B·T, d) copies before the T×T tensors are allocated.
  std::vector<float>().swap(q_full);
  std::vector<float>().swap(k_full);
  std::vector<float>().swap(v_full);

  const std::vector<std::uint8_t> keep = detail::dropout_mask(opt, plan);
  trace.head_outputs = zeros({B, H, T, plan.hv});
  if (opt.materialize) {
    for (Tensor* t : {&trace.scores, &trace.scaled, &trace.masked, &trace.weights, &trace.dropped}) {
      *t = zeros({B, H, T, T});
    }
  }

  // The B·H heads are independent tasks over the thread pool (threads.h). Without T×T tensors in
  // the trace: the tiled kernel, or the passes in a (T, T) scratch of the task's own.
  const long long square = static_cast<long long>(T) * T;
  const bool need_scratch = !opt.materialize && plan.kernel != Kernel::kTiled;
  const double flops = 2.0 * B * H * square * (plan.hk + plan.hv);
  parallel_for(B * H, flops, [&](int head_index) {
    const int b = head_index / H, h = head_index % H;
    const long long head = head_index;
    const HeadInputs head_in = detail::head_inputs(trace.q, trace.k, trace.v, keep, opt, plan, b, h);
    float* out = trace.head_outputs.data.data() + head * T * plan.hv;

    if (plan.kernel == Kernel::kTiled) {
      attn::kernels::attention_tiled_simd(out, nullptr, head_in.q, head_in.k, head_in.v, head_in.key_keep, T, plan.hk,
                                          plan.hv, plan.alpha, opt.causal);
      return;
    }
    std::vector<float> scratch(need_scratch ? static_cast<size_t>(square) : 0);
    HeadIntermediates kept;
    if (opt.materialize) {
      kept = {trace.scores.data.data() + head * square, trace.scaled.data.data() + head * square,
              trace.masked.data.data() + head * square, trace.weights.data.data() + head * square,
              trace.dropped.data.data() + head * square};
    }
    head_forward(out, kept, scratch.data(), head_in, kernels);
  });

  detail::merge_heads(trace.merged, trace.head_outputs, plan, plan.hv);
  apply_output_projection(trace.output, trace.merged, in, plan);
  return trace;
}

Trace attend_heads_separately(const Inputs& in, const Options& opt) {
  const Plan plan = detail::validate(in, opt);
  const int B = plan.B, T = plan.T, H = plan.H, D = plan.D;
  if (!opt.materialize) throw Error("materialize: attend_heads_separately keeps every intermediate; pass true");

  // Per head h: its own (D, hk) / (D, hv) weights cut from the full ones (or from x's columns
  // when there is no projection), run as an independent single-head attention.
  const std::vector<std::uint8_t> keep = detail::dropout_mask(opt, plan);
  std::vector<Trace> head_traces;
  head_traces.reserve(static_cast<size_t>(H));
  for (int h = 0; h < H; ++h) {
    auto columns = [&](const float* w, int rows, int total, int width, bool transposed_rows) {
      // w: (rows, total) → (rows, width) columns [h·width, …); transposed_rows: w is (3d, D)
      // nn.Linear layout, block start row `rows` ignored, handled by caller.
      std::vector<float> slice(static_cast<size_t>(rows) * width);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < width; ++c)
          slice[static_cast<size_t>(r) * width + c] = transposed_rows
                                                          ? w[static_cast<long long>(h * width + c) * rows + r]
                                                          : w[static_cast<long long>(r) * total + h * width + c];
      return slice;
    };
    auto bias_slice = [&](const float* b, int width) {
      return b ? std::vector<float>(b + h * width, b + (h + 1) * width) : std::vector<float>();
    };

    std::vector<float> x_slice, wq, wk, wv, bq, bk, bv;
    Inputs head_in;
    head_in.x = in.x;
    switch (plan.projection) {
      case Projection::kNone:
        // Q = K = V = x: head h sees x's columns [h·hk, (h+1)·hk)
        x_slice = columns(in.x.data, B * T, D, plan.hk, false);
        head_in.x.data = x_slice.data();
        head_in.x.shape.back() = plan.hk;
        break;
      case Projection::kSeparate:
        wq = columns(in.wq.data, D, plan.dk, plan.hk, false);
        wk = columns(in.wk.data, D, plan.dk, plan.hk, false);
        wv = columns(in.wv.data, D, plan.dv, plan.hv, false);
        bq = bias_slice(in.bq.data, plan.hk);
        bk = bias_slice(in.bk.data, plan.hk);
        bv = bias_slice(in.bv.data, plan.hv);
        break;
      case Projection::kFused: {
        const long long block = static_cast<long long>(plan.dk) * D;
        wq = columns(in.wqkv.data, D, plan.dk, plan.hk, true);
        wk = columns(in.wqkv.data + block, D, plan.dk, plan.hk, true);
        wv = columns(in.wqkv.data + 2 * block, D, plan.dv, plan.hv, true);
        if (in.bqkv.data) {
          bq = bias_slice(in.bqkv.data, plan.hk);
          bk = bias_slice(in.bqkv.data + plan.dk, plan.hk);
          bv = bias_slice(in.bqkv.data + 2 * plan.dk, plan.hv);
        }
        break;
      }
    }
    if (plan.projection != Projection::kNone) {
      head_in.wq = {wq.data(), {D, plan.hk}};
      head_in.wk = {wk.data(), {D, plan.hk}};
      head_in.wv = {wv.data(), {D, plan.hv}};
      if (!bq.empty()) head_in.bq = {bq.data(), {plan.hk}};
      if (!bk.empty()) head_in.bk = {bk.data(), {plan.hk}};
      if (!bv.empty()) head_in.bv = {bv.data(), {plan.hv}};
    }

    Options head_opt = opt;
    head_opt.heads = 1;
    // Same scale as the fused form (1/√hk of the full layout).
    if (opt.scale_mode == ScaleMode::kInverseSqrtHeadSize) {
      head_opt.scale_mode = ScaleMode::kFactor;
      head_opt.scale_factor = plan.scale;
    }
    head_opt.dropout_keep.clear();
    if (!keep.empty()) {
      head_opt.dropout_keep.resize(static_cast<size_t>(B) * T * T);
      for (int b = 0; b < B; ++b) {
        const auto* src = keep.data() + (static_cast<long long>(b) * H + h) * T * T;
        std::copy(src, src + static_cast<long long>(T) * T,
                  head_opt.dropout_keep.data() + static_cast<long long>(b) * T * T);
      }
    }
    head_traces.push_back(attend(head_in, head_opt));
  }

  // Assemble the same layout attend() returns: stack heads, concatenate outputs, then W_O.
  Trace trace = head_traces.front();
  trace.heads = H;
  trace.dk = plan.dk;
  trace.dv = plan.dv;
  trace.d_out = plan.d_out;
  trace.width = D;
  auto stack = [&](Tensor Trace::*field, int inner) {
    Tensor all = zeros({B, H, T, inner});
    const long long per_head = static_cast<long long>(T) * inner;
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const float* src = (head_traces[static_cast<size_t>(h)].*field).data.data() + b * per_head;
        std::copy(src, src + per_head, all.data.data() + (static_cast<long long>(b) * H + h) * per_head);
      }
    trace.*field = std::move(all);
  };
  stack(&Trace::q, plan.hk);
  stack(&Trace::k, plan.hk);
  stack(&Trace::v, plan.hv);
  for (Tensor Trace::*f : {&Trace::scores, &Trace::scaled, &Trace::masked, &Trace::weights, &Trace::dropped})
    stack(f, T);
  stack(&Trace::head_outputs, plan.hv);

  detail::merge_heads(trace.merged, trace.head_outputs, plan, plan.hv);
  apply_output_projection(trace.output, trace.merged, in, plan);
  return trace;
}

Tensor linear(const TensorView& x, const TensorView& w, const TensorView& b, Kernel kernel) {
  const detail::LinearPlan plan = detail::validate_linear(x, w, b);
  // y: x's shape with N columns; every row of x times w (D, N), plus b (N)
  Tensor y = plan.batched ? zeros({plan.B, plan.T, plan.N}) : zeros({plan.T, plan.N});
  kernels_for(kernel).matmul(y.data.data(), x.data, w.data, b.data, plan.B * plan.T, plan.D, plan.N);
  return y;
}

}  // namespace attn

// Validation of every input and option, before anything is allocated.
// Legend: B batch, T tokens, D width, H heads, dk/dv all-head widths, hk/hv per-head widths.
#include <cmath>
#include <cstdio>

#include "core/detail/internal.h"

namespace attn {

std::string shape_string(const std::vector<int>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string number_string(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

namespace detail {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(message); }

// A view's shape must be exactly `expected`; `what` explains the expectation.
void expect_shape(const char* name, const TensorView& view, const std::vector<int>& expected, const std::string& what) {
  if (view.shape != expected) {
    fail(std::string(name) + ": expected shape " + shape_string(expected) + " (" + what + "), got " +
         shape_string(view.shape));
  }
}

// Checks a present view: positive dims, bounded element count, data present, all finite.
void check_view(const char* name, const TensorView& view, size_t min_rank, size_t max_rank) {
  if (view.shape.size() < min_rank || view.shape.size() > max_rank) {
    fail(std::string(name) + ": expected " +
         (min_rank == max_rank ? std::to_string(min_rank)
                               : std::to_string(min_rank) + " or " + std::to_string(max_rank)) +
         " dimensions, got shape " + shape_string(view.shape));
  }
  long long count = 1;
  for (int dim : view.shape) {
    if (dim <= 0) fail(std::string(name) + ": every dimension must be ≥ 1, got shape " + shape_string(view.shape));
    if (dim > Limits::kMaxTokens) {
      fail(std::string(name) + ": dimension " + std::to_string(dim) + " exceeds the limit of " +
           std::to_string(Limits::kMaxTokens) + " in shape " + shape_string(view.shape));
    }
    count *= dim;
    if (count > Limits::kMaxInputElements) {
      fail(std::string(name) + ": shape " + shape_string(view.shape) + " has more than " +
           std::to_string(Limits::kMaxInputElements) + " elements (the limit per input)");
    }
  }
  if (view.data == nullptr) fail(std::string(name) + ": shape " + shape_string(view.shape) + " given without data");
  for (long long i = 0; i < count; ++i) {
    if (!std::isfinite(view.data[i])) {
      fail(std::string(name) + ": every value must be finite, got " + number_string(view.data[i]) + " at flat index " +
           std::to_string(i));
    }
    if (std::fabs(view.data[i]) > Limits::kMaxMagnitude) {
      fail(std::string(name) + ": |value| must be at most " + number_string(Limits::kMaxMagnitude) + ", got " +
           number_string(view.data[i]) + " at flat index " + std::to_string(i) +
           " (larger values can overflow float32 in the scores)");
    }
  }
}

void check_width(const char* name, int value) {
  if (value > Limits::kMaxWidth) {
    fail(std::string(name) + ": width (columns) " + std::to_string(value) + " exceeds the limit of " +
         std::to_string(Limits::kMaxWidth));
  }
}

// x: (T, D) or (B, T, D), checked as attend() and linear() both take it.
struct XShape {
  int B = 1, T = 0, D = 0;
  bool batched = false;
};
XShape check_x(const TensorView& x) {
  if (!x.given()) fail("x: required, expected shape (T, D) or (B, T, D)");
  if (x.shape.size() == 2 || x.shape.size() == 3) {
    for (int dim : x.shape) {
      if (dim <= 0) fail("x: expected shape (T, D) or (B, T, D) with every size ≥ 1, got " + shape_string(x.shape));
    }
  }
  check_view("x", x, 2, 3);
  XShape s;
  s.batched = x.shape.size() == 3;
  s.B = s.batched ? x.shape[0] : 1;
  s.T = x.shape[s.batched ? 1 : 0];
  s.D = x.shape[s.batched ? 2 : 1];
  if (s.B > Limits::kMaxBatch) {
    fail("x: batch " + std::to_string(s.B) + " exceeds the limit of " + std::to_string(Limits::kMaxBatch));
  }
  check_width("x", s.D);
  return s;
}

// Projections: none, separate wq/wk/wv (and biases) or the fused wqkv; d_k and d_v.
void check_projections(const Inputs& in, Plan& plan) {
  const bool any_separate = in.wq.given() || in.wk.given() || in.wv.given();
  const bool any_separate_bias = in.bq.given() || in.bk.given() || in.bv.given();
  if (in.wqkv.given() && (any_separate || any_separate_bias)) {
    fail("wqkv: give either the fused wqkv (3·d_out, D) or separate wq, wk, wv, not both");
  }
  if (in.bqkv.given() && !in.wqkv.given()) fail("bqkv: given without wqkv");
  if (in.wqkv.given()) {
    plan.projection = Projection::kFused;
    check_view("wqkv", in.wqkv, 2, 2);
    const int rows = in.wqkv.shape[0];
    if (rows % 3 != 0 || in.wqkv.shape[1] != plan.D) {
      fail("wqkv: expected shape (3·d_out, " + std::to_string(plan.D) + ") in nn.Linear layout with " +
           std::to_string(plan.D) + " = x width, got " + shape_string(in.wqkv.shape));
    }
    plan.dk = plan.dv = rows / 3;
    if (in.bqkv.given()) {
      check_view("bqkv", in.bqkv, 1, 1);
      expect_shape("bqkv", in.bqkv, {rows}, "3·d_out, the rows of wqkv");
    }
  } else if (any_separate) {
    plan.projection = Projection::kSeparate;
    const char* missing = !in.wq.given() ? "wq" : !in.wk.given() ? "wk" : !in.wv.given() ? "wv" : nullptr;
    if (missing) fail(std::string(missing) + ": required when any of wq, wk, wv is given (give all three or none)");
    check_view("wq", in.wq, 2, 2);
    check_view("wk", in.wk, 2, 2);
    check_view("wv", in.wv, 2, 2);
    const std::string rows_note = std::to_string(plan.D) + " = x width";
    if (in.wq.shape[0] != plan.D) expect_shape("wq", in.wq, {plan.D, in.wq.shape[1]}, "(D, d_k) with " + rows_note);
    plan.dk = in.wq.shape[1];
    expect_shape("wk", in.wk, {plan.D, plan.dk}, "(D, d_k) like wq");
    if (in.wv.shape[0] != plan.D) expect_shape("wv", in.wv, {plan.D, in.wv.shape[1]}, "(D, d_v) with " + rows_note);
    plan.dv = in.wv.shape[1];
    if (in.bq.given()) {
      check_view("bq", in.bq, 1, 1);
      expect_shape("bq", in.bq, {plan.dk}, "d_k, the columns of wq");
    }
    if (in.bk.given()) {
      check_view("bk", in.bk, 1, 1);
      expect_shape("bk", in.bk, {plan.dk}, "d_k, the columns of wk");
    }
    if (in.bv.given()) {
      check_view("bv", in.bv, 1, 1);
      expect_shape("bv", in.bv, {plan.dv}, "d_v, the columns of wv");
    }
  } else {
    if (any_separate_bias)
      fail(std::string(in.bq.given()   ? "bq"
                       : in.bk.given() ? "bk"
                                       : "bv") +
           ": a bias needs its projection matrices wq, wk, wv");
    plan.projection = Projection::kNone;
    plan.dk = plan.dv = plan.D;
  }
  {
    const char* k_source = plan.projection == Projection::kFused      ? "wqkv"
                           : plan.projection == Projection::kSeparate ? "wq"
                                                                      : "x";
    const char* v_source = plan.projection == Projection::kFused      ? "wqkv"
                           : plan.projection == Projection::kSeparate ? "wv"
                                                                      : "x";
    check_width(k_source, plan.dk);
    check_width(v_source, plan.dv);
  }
}

// Heads: H divides d_k and d_v.
void check_heads(const Options& opt, Plan& plan) {
  if (opt.heads < 1 || opt.heads > Limits::kMaxHeads) {
    fail("heads: expected an integer in [1, " + std::to_string(Limits::kMaxHeads) + "], got " +
         std::to_string(opt.heads));
  }
  plan.H = opt.heads;
  if (plan.dk % plan.H != 0 || plan.dv % plan.H != 0) {
    fail("heads: " + std::to_string(plan.H) + " must divide d_k = " + std::to_string(plan.dk) +
         " and d_v = " + std::to_string(plan.dv));
  }
  plan.hk = plan.dk / plan.H;
  plan.hv = plan.dv / plan.H;
}

// Output projection: wo (d_v, d_o), bias bo (d_o).
void check_output_projection(const Inputs& in, Plan& plan) {
  if (in.bo.given() && !in.wo.given()) fail("bo: given without wo");
  plan.d_out = plan.dv;
  if (in.wo.given()) {
    plan.has_wo = true;
    check_view("wo", in.wo, 2, 2);
    if (in.wo.shape[0] != plan.dv) {
      expect_shape("wo", in.wo, {plan.dv, in.wo.shape[1]}, "(d_v, d_o) with " + std::to_string(plan.dv) + " = d_v");
    }
    plan.d_out = in.wo.shape[1];
    check_width("wo", plan.d_out);
    if (in.bo.given()) {
      check_view("bo", in.bo, 1, 1);
      expect_shape("bo", in.bo, {plan.d_out}, "d_o, the columns of wo");
    }
  }
}

// Masks: the key padding's shape and flags.
void check_masks(const Options& opt, const Plan& plan) {
  if (!opt.key_padding.empty() || !opt.key_padding_shape.empty()) {
    const std::vector<int> expected_1 = {plan.T};
    const std::vector<int> expected_2 = {plan.B, plan.T};
    const bool ok_shape = opt.key_padding_shape == expected_1 || (plan.batched && opt.key_padding_shape == expected_2);
    if (!ok_shape) {
      fail("keyPadding: expected shape " + shape_string(expected_1) +
           (plan.batched ? " or " + shape_string(expected_2) : "") + " (one flag per key), got " +
           shape_string(opt.key_padding_shape));
    }
    long long count = 1;
    for (int dim : opt.key_padding_shape) count *= dim;
    if (static_cast<long long>(opt.key_padding.size()) != count) {
      fail("keyPadding: shape " + shape_string(opt.key_padding_shape) + " needs " + std::to_string(count) +
           " flags, got " + std::to_string(opt.key_padding.size()));
    }
  }
}

// Scale and temperature: s and α = s / temperature, bounded.
void check_scale(const Options& opt, Plan& plan) {
  if (opt.scale_mode == ScaleMode::kFactor && (!std::isfinite(opt.scale_factor) || opt.scale_factor == 0.0f)) {
    fail("scale: expected a finite non-zero factor, got " + number_string(opt.scale_factor));
  }
  if (!std::isfinite(opt.temperature) || opt.temperature <= 0.0f) {
    fail("temperature: expected a finite value > 0, got " + number_string(opt.temperature));
  }
  plan.scale = opt.scale_mode == ScaleMode::kNone     ? 1.0f
               : opt.scale_mode == ScaleMode::kFactor ? opt.scale_factor
                                                      : 1.0f / std::sqrt(static_cast<float>(plan.hk));
  plan.alpha = plan.scale / opt.temperature;
  if (!std::isfinite(plan.alpha) || std::fabs(plan.alpha) > Limits::kMaxAlpha) {
    const bool factor_too_big = opt.scale_mode == ScaleMode::kFactor && std::fabs(opt.scale_factor) > Limits::kMaxAlpha;
    fail(std::string(factor_too_big ? "scale" : "temperature") + ": scale / temperature = " +
         number_string(plan.alpha) + " must be at most " + number_string(Limits::kMaxAlpha) + " in magnitude (scale " +
         number_string(plan.scale) + ", temperature " + number_string(opt.temperature) + ")");
  }
}

// Dropout: p, and the keep-mask's size.
void check_dropout(const Options& opt, Plan& plan) {
  if (!(opt.dropout >= 0.0f && opt.dropout < 1.0f)) {
    fail("dropout: expected p in [0, 1), got " + number_string(opt.dropout));
  }
  plan.dropout_active = opt.training && opt.dropout > 0.0f;
  if (!opt.dropout_keep.empty()) {
    const long long expected = static_cast<long long>(plan.B) * plan.H * plan.T * plan.T;
    if (static_cast<long long>(opt.dropout_keep.size()) != expected) {
      fail("dropoutKeep: expected " + std::to_string(expected) + " flags for shape " +
           shape_string({plan.B, plan.H, plan.T, plan.T}) + " (B, H, T, T), got " +
           std::to_string(opt.dropout_keep.size()));
    }
  }
}

// The kernel (kAuto resolved) and the memory its scores need.
void choose_kernel(const Options& opt, Plan& plan) {
  const long long square = static_cast<long long>(plan.T) * plan.T;
  const long long all_scores = square * plan.B * plan.H;
  Kernel kernel = opt.kernel;
  if (kernel == Kernel::kAuto) {
    kernel = (!opt.materialize && !plan.dropout_active) ? Kernel::kTiled : Kernel::kSimd;
  }
  if (kernel == Kernel::kTiled) {
    if (opt.materialize) {
      fail("kernel: 'tiled' never materialises the T×T weights; pass materialize = false or choose another kernel");
    }
    if (plan.dropout_active) fail("kernel: 'tiled' does not apply dropout; use 'simd' or set training = false");
  } else if (opt.materialize && all_scores > Limits::kMaxScoreElements) {
    fail("x: B·H·T·T = " + std::to_string(all_scores) + " exceeds the limit of " +
         std::to_string(Limits::kMaxScoreElements) + " materialised weights; pass materialize = false (tiled kernel)");
  } else if (square > Limits::kMaxScoreElements) {
    fail("x: T·T = " + std::to_string(square) + " exceeds the limit of " + std::to_string(Limits::kMaxScoreElements) +
         " for kernel '" + kernel_name(kernel) + "'; use kernel 'tiled'");
  }
  plan.kernel = kernel;
}

// The memory and work of the whole call, before anything is allocated.
void check_budget(const Options& opt, const Plan& plan) {
  const long long square = static_cast<long long>(plan.T) * plan.T;
  const long long all_scores = square * plan.B * plan.H;
  const Kernel kernel = plan.kernel;
  const long long rows = static_cast<long long>(plan.B) * plan.T;
  long long scratch = 0;  // the five kept (B, H, T, T) tensors, or the passes' one (T, T) scratch
  if (opt.materialize)
    scratch = 5 * all_scores;
  else if (kernel != Kernel::kTiled)
    scratch = square;
  const long long kept = rows * (2LL * plan.dk + plan.dv) * 2      // q, k, v projected, then per-head copies
                         + rows * plan.dv * 2 + rows * plan.d_out  // head outputs, merged, output
                         + scratch + (plan.dropout_active ? all_scores / 4 : 0);  // keep-mask bytes
  if (kept > Limits::kMaxTraceElements) {
    fail("x: this call needs " + std::to_string(kept) + " intermediate values (B = " + std::to_string(plan.B) +
         ", T = " + std::to_string(plan.T) + ", d_k = " + std::to_string(plan.dk) +
         ", d_v = " + std::to_string(plan.dv) + "), more than the limit of " +
         std::to_string(Limits::kMaxTraceElements) + "; use fewer tokens or a smaller batch");
  }
  const long long projection_work =
      plan.projection == Projection::kNone ? 0 : rows * plan.D * (2LL * plan.dk + plan.dv);
  const long long work =
      projection_work + all_scores * (plan.hk + plan.hv) + (plan.has_wo ? rows * plan.dv * plan.d_out : 0);
  if (work > Limits::kMaxWork) {
    fail("x: this call needs about " + std::to_string(work) +
         " multiply-adds (B·H·T·T·(h_k + h_v) and the projections), " + "more than the limit of " +
         std::to_string(Limits::kMaxWork) + "; use fewer tokens or a smaller batch");
  }
}

}  // namespace

Plan validate(const Inputs& in, const Options& opt) {
  Plan plan;
  const XShape x = check_x(in.x);
  plan.batched = x.batched;
  plan.B = x.B;
  plan.T = x.T;
  plan.D = x.D;
  check_projections(in, plan);
  check_heads(opt, plan);
  check_output_projection(in, plan);
  check_masks(opt, plan);
  check_scale(opt, plan);
  check_dropout(opt, plan);
  choose_kernel(opt, plan);
  check_budget(opt, plan);
  return plan;
}

LinearPlan validate_linear(const TensorView& x, const TensorView& w, const TensorView& b) {
  LinearPlan plan;
  const XShape xs = check_x(x);
  plan.batched = xs.batched;
  plan.B = xs.B;
  plan.T = xs.T;
  plan.D = xs.D;
  const std::string rows_note = std::to_string(plan.D) + " = x width";

  // w: (D, N); b: (N)
  if (!w.given()) fail("w: required, expected shape (" + std::to_string(plan.D) + ", N) with " + rows_note);
  check_view("w", w, 2, 2);
  if (w.shape[0] != plan.D) expect_shape("w", w, {plan.D, w.shape[1]}, "(D, N) with " + rows_note);
  plan.N = w.shape[1];
  check_width("w", plan.N);
  if (b.given()) {
    check_view("b", b, 1, 1);
    expect_shape("b", b, {plan.N}, "N, the columns of w");
  }

  // Memory of the call, before anything is allocated (attend()'s rule). The work, B·T·D·N ≤
  // kMaxInputElements · kMaxWidth = 2^36, is always below kMaxWork.
  const long long rows = static_cast<long long>(plan.B) * plan.T;
  if (rows * plan.N > Limits::kMaxTraceElements) {
    fail("x: y = x·w would hold " + std::to_string(rows * plan.N) + " values (B·T = " + std::to_string(rows) +
         " rows of N = " + std::to_string(plan.N) + "), more than the limit of " +
         std::to_string(Limits::kMaxTraceElements) + "; use fewer tokens or a smaller batch");
  }
  return plan;
}

}  // namespace detail

}  // namespace attn

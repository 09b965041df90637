// attend_backward(): attend()'s steps in reverse. Legend: B batch, T tokens, D width, H heads,
// dk/dv all-head widths, hk/hv per-head widths, do output width; rows = B·T.
//   forward:   x → projections → split into heads → per head passes 1–6 → merge → W_O → output
//   backward:  d_output → W_O → split → per head passes 6–1 → merge → projections → d_x, d_W…
#include <algorithm>
#include <cmath>
#include <string>

#include "core/attention.h"
#include "core/detail/internal.h"
#include "kernels/kernels.h"

namespace attn {

namespace {

using detail::Plan;
using detail::Projection;
using detail::zeros;

// y (C, R) = x (R, C)ᵀ, so every product below is one of the kernel table's two forms.
std::vector<float> transposed(const float* x, int R, int C) {
  std::vector<float> y(static_cast<size_t>(R) * C);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) y[static_cast<size_t>(c) * R + r] = x[static_cast<size_t>(r) * C + c];
  return y;
}

// b (N) = column sums of g (rows, N): a bias's gradient.
Tensor column_sums(const float* g, int rows, int N) {
  Tensor b = zeros({N});
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < N; ++c) b.data[static_cast<size_t>(c)] += g[static_cast<size_t>(r) * N + c];
  return b;
}

void check_grad_output(const TensorView& g, const Plan& plan) {
  const std::vector<int> want =
      plan.batched ? std::vector<int>{plan.B, plan.T, plan.d_out} : std::vector<int>{plan.T, plan.d_out};
  if (g.shape != want || g.data == nullptr) {
    throw Error("gradOutput: expected shape " + shape_string(want) + " (the output's), got " + shape_string(g.shape));
  }
  const long long n = g.size();
  for (long long i = 0; i < n; ++i) {
    if (!std::isfinite(g.data[i]) || std::fabs(g.data[i]) > Limits::kMaxMagnitude) {
      throw Error("gradOutput: every value must be finite with |value| ≤ 1e4, got " + std::to_string(g.data[i]) +
                  " at flat index " + std::to_string(i));
    }
  }
}

// The output projection, output = merged · W_O + b_O, in reverse: d_merged = d_output · W_Oᵀ,
// dW_O = mergedᵀ · d_output, db_O = Σ d_output (into grads); without W_O, d_merged = d_output.
// Shapes: merged (rows, dv), d_output (rows, d_out) → d_merged (rows, dv).
std::vector<float> output_projection_backward(Gradients& grads, const Inputs& in, const Plan& plan,
                                              const KernelTable& kernels, const Tensor& merged,
                                              const TensorView& grad_output) {
  const int rows = plan.B * plan.T;
  std::vector<float> d_merged(static_cast<size_t>(rows) * plan.dv);
  if (plan.has_wo) {
    kernels.matmul_nt(d_merged.data(), grad_output.data, in.wo.data, nullptr, rows, plan.d_out, plan.dv);
    grads.wo = zeros({plan.dv, plan.d_out});
    const std::vector<float> merged_t = transposed(merged.data.data(), rows, plan.dv);
    kernels.matmul(grads.wo.data.data(), merged_t.data(), grad_output.data, nullptr, plan.dv, rows, plan.d_out);
    if (in.bo.given()) grads.bo = column_sums(grad_output.data, rows, plan.d_out);
  } else {
    std::copy(grad_output.data, grad_output.data + static_cast<long long>(rows) * plan.dv, d_merged.begin());
  }
  return d_merged;
}

// The projections in reverse, from the merged heads' gradients dQ, dK (rows, dk) and dV (rows, dv):
// dx (rows, D) and each weight's and bias's gradient into grads. With no projection Q = K = V = x,
// so x's gradient is the three summed.
void projections_backward(Gradients& grads, const Inputs& in, const Plan& plan, const KernelTable& kernels,
                          const Tensor& dQ, const Tensor& dK, const Tensor& dV) {
  const int rows = plan.B * plan.T;
  grads.x = zeros(in.x.shape);
  float* dx = grads.x.data.data();
  const long long x_count = static_cast<long long>(rows) * plan.D;
  const std::vector<float> x_t =
      plan.projection == Projection::kNone ? std::vector<float>{} : transposed(in.x.data, rows, plan.D);
  std::vector<float> part(static_cast<size_t>(x_count));
  auto add_to_dx = [&]() {
    for (long long i = 0; i < x_count; ++i) dx[i] += part[static_cast<size_t>(i)];
  };
  switch (plan.projection) {
    case Projection::kNone:
      for (long long i = 0; i < x_count; ++i)
        dx[i] = dQ.data[static_cast<size_t>(i)] + dK.data[static_cast<size_t>(i)] + dV.data[static_cast<size_t>(i)];
      break;
    case Projection::kSeparate: {
      // q = x · W_Q + b_Q:  dW_Q = xᵀ · dQ,  db_Q = Σ dQ,  dx += dQ · W_Qᵀ (and K, V alike)
      const struct {
        const Tensor& d;
        const TensorView& w;
        const TensorView& bias;
        Tensor& dw;
        Tensor& db;
        int width;
      } parts[] = {{dQ, in.wq, in.bq, grads.wq, grads.bq, plan.dk},
                   {dK, in.wk, in.bk, grads.wk, grads.bk, plan.dk},
                   {dV, in.wv, in.bv, grads.wv, grads.bv, plan.dv}};
      for (const auto& p : parts) {
        p.dw = zeros({plan.D, p.width});
        kernels.matmul(p.dw.data.data(), x_t.data(), p.d.data.data(), nullptr, plan.D, rows, p.width);
        if (p.bias.given()) p.db = column_sums(p.d.data.data(), rows, p.width);
        kernels.matmul_nt(part.data(), p.d.data.data(), p.w.data, nullptr, rows, p.width, plan.D);
        add_to_dx();
      }
      break;
    }
    case Projection::kFused: {
      // qkv = x · W_qkvᵀ + b (nn.Linear layout, rows [0, d) q, [d, 2d) k, [2d, 3d) v):
      // dW block = dᵀ · x,  db block = Σ d,  dx += d · W block
      grads.wqkv = zeros(in.wqkv.shape);
      if (in.bqkv.given()) grads.bqkv = zeros(in.bqkv.shape);
      const Tensor* ds[] = {&dQ, &dK, &dV};
      const long long block = static_cast<long long>(plan.dk) * plan.D;
      for (int n = 0; n < 3; ++n) {
        const float* d = ds[n]->data.data();
        const std::vector<float> d_t = transposed(d, rows, plan.dk);
        kernels.matmul(grads.wqkv.data.data() + n * block, d_t.data(), in.x.data, nullptr, plan.dk, rows, plan.D);
        if (in.bqkv.given()) {
          const Tensor db = column_sums(d, rows, plan.dk);
          std::copy(db.data.begin(), db.data.end(), grads.bqkv.data.begin() + static_cast<long long>(n) * plan.dk);
        }
        kernels.matmul(part.data(), d, in.wqkv.data + n * block, nullptr, rows, plan.dk, plan.D);
        add_to_dx();
      }
      break;
    }
  }
}

}  // namespace

Gradients attend_backward(const Inputs& in, const Options& opt, const TensorView& grad_output) {
  const Plan plan = detail::validate(in, opt);
  check_grad_output(grad_output, plan);
  const int B = plan.B, T = plan.T, H = plan.H;
  const KernelTable& kernels = kernels_for(plan.kernel);
  const bool tiled = plan.kernel == Kernel::kTiled;

  // Forward again: the projections, each head's output (and, for the tiled kernel, its rows'
  // log Σ exp), the merged heads.
  std::vector<float> q_full, k_full, v_full;
  detail::project_qkv(q_full, k_full, v_full, in, plan, kernels);
  Tensor q = zeros({B, H, T, plan.hk}), k = zeros({B, H, T, plan.hk}), v = zeros({B, H, T, plan.hv});
  detail::split_heads(q, q_full, plan, plan.hk);
  detail::split_heads(k, k_full, plan, plan.hk);
  detail::split_heads(v, v_full, plan, plan.hv);
  const std::vector<std::uint8_t> keep = detail::dropout_mask(opt, plan);
  const long long square = static_cast<long long>(T) * T;
  std::vector<float> weights(tiled ? 0 : static_cast<size_t>(square)),
      scratch(tiled ? 0 : static_cast<size_t>(2 * square));
  std::vector<float> lse(tiled ? static_cast<size_t>(B) * H * T : 0);
  Tensor head_out = zeros({B, H, T, plan.hv});
  auto head_inputs = [&](int b, int h) { return detail::head_inputs(q, k, v, keep, opt, plan, b, h); };
  // Pass 4's weights of one head, recomputed (the backward needs them; T×T for one head at a time).
  auto forward_head = [&](int b, int h, float* out) {
    const HeadInputs hi = head_inputs(b, h);
    if (tiled) {
      kernels::attention_tiled_simd(out, lse.data() + (static_cast<long long>(b) * H + h) * T, hi.q, hi.k, hi.v,
                                    hi.key_keep, T, plan.hk, plan.hv, plan.alpha, opt.causal);
      return;
    }
    HeadIntermediates kept;
    kept.weights = weights.data();
    head_forward(out, kept, scratch.data(), hi, kernels);
  };
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      forward_head(b, h, head_out.data.data() + (static_cast<long long>(b) * H + h) * T * plan.hv);
  Tensor merged;
  detail::merge_heads(merged, head_out, plan, plan.hv);

  Gradients grads;
  std::vector<float> d_merged = output_projection_backward(grads, in, plan, kernels, merged, grad_output);
  // Merge, undone: each head's slice of d_merged.
  Tensor d_head_out = zeros({B, H, T, plan.hv});
  detail::split_heads(d_head_out, d_merged, plan, plan.hv);

  // Each head, passes 6 … 1.
  Tensor dq = zeros({B, H, T, plan.hk}), dk = zeros({B, H, T, plan.hk}), dv = zeros({B, H, T, plan.hv});
  std::vector<float> out_one(tiled ? 0 : static_cast<size_t>(T) * plan.hv);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const long long head = static_cast<long long>(b) * H + h;
      const HeadInputs hi = head_inputs(b, h);
      float* gq = dq.data.data() + head * T * plan.hk;
      float* gk = dk.data.data() + head * T * plan.hk;
      float* gv = dv.data.data() + head * T * plan.hv;
      const float* gout = d_head_out.data.data() + head * T * plan.hv;
      if (tiled) {
        kernels::attention_tiled_backward_simd(gq, gk, gv, gout, hi.q, hi.k, hi.v,
                                               head_out.data.data() + head * T * plan.hv, lse.data() + head * T,
                                               hi.key_keep, T, plan.hk, plan.hv, plan.alpha, opt.causal);
        continue;
      }
      forward_head(b, h, out_one.data());  // this head's weights back in `weights`
      head_backward(gq, gk, gv, scratch.data(), gout, weights.data(), hi, kernels);
    }

  // Split into heads, undone: (B·T, dk) and (B·T, dv).
  Tensor dQ, dK, dV;
  detail::merge_heads(dQ, dq, plan, plan.hk);
  detail::merge_heads(dK, dk, plan, plan.hk);
  detail::merge_heads(dV, dv, plan, plan.hv);

  projections_backward(grads, in, plan, kernels, dQ, dK, dV);
  return grads;
}

}  // namespace attn

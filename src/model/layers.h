// The layers of a nanoGPT-style transformer, forward and backward, as plain loops over
// caller buffers (llm.c style). Reference: karpathy/nanoGPT model.py, and PyTorch 1.13's
// formulas for each op (cited per function).
//
// Legend:
//   N  rows (B·T tokens, flattened)    B  batch       T  tokens per sequence (≤ block_size)
//   C  channels (n_embd)               I  in features  O  out features       V  vocabulary
// Every tensor is row-major and contiguous. Arguments: outputs, then inputs, then sizes.
//
// Conventions:
//   - Every function has a `_ref` template over the scalar type, instantiated for float (the
//     readable reference every fast path is checked against) and double (finite-difference
//     checks). The linear layer, where the time goes, and GELU (transcendental calls in a loop)
//     also have a float32 `_simd` path over the f32x4 layer of src/kernels/. The other ops have
//     none: they are O(N·C) next to the linear layers' O(N·C²), and their loops are plain
//     arithmetic the compilers vectorise where no reduction is involved (tests/cpp/model/layers_test.cpp
//     measures them beside the linear layer).
//   - Forward passes WRITE their outputs. Backward passes ADD into every gradient they produce
//     (dx, dW, db alike): the caller zeroes the gradient buffers once per step, and then a tied
//     weight (wte used by the embedding and by lm_head) or an activation read twice (a residual
//     stream) sums its uses without a second buffer. Gradient outputs that are null are skipped.
//   - Forward passes are written as numbered passes; each backward walks them in reverse and
//     says so.
//   - Nothing here validates sizes or indices: the model checks them once (check_tokens,
//     check_targets below for the integer inputs; ModelConfig for the sizes).
#pragma once

#include <cstdint>

#include "kernels/half.h"
#include "kernels/train_kernels.h"

namespace attn::model {

// ---------------------------------------------------------------------------------------------
// Linear, nn.Linear layout: w (O, I), y = x·wᵀ + b.

// The _simd versions run kernels::gemm_simd (gemm.h) on tiles of the output over the thread
// pool (threads.h): each tile owns its outputs, so no sum crosses threads, and they equal the
// _ref versions bit for bit for every thread count.

// y (N, O) = x (N, I) · w (O, I)ᵀ + b (O); b may be null (bias=False).
template <typename Real>
void linear_forward_ref(Real* y, const Real* x, const Real* w, const Real* b, int N, int I, int O);
void linear_forward_simd(float* y, const float* x, const float* w, const float* b, int N, int I, int O);
// The same with w's elements IEEE halves (a model whose weights are kept as F16, gpt.h's
// Precision), converted exactly as they are read (kernels::gemm_f16_*): equal bit for bit to
// linear_forward_ref / linear_forward_simd over w converted to float32 first. panels: w is kept
// as wᵀ (I, O) in kernels/gemm.h's panels of 32 outputs, which one token's product streams
// (kernels::gemm_panels_f16_simd); otherwise (O, I).
void linear_forward_f16_ref(float* y, const float* x, const std::uint16_t* w, const float* b, int N, int I, int O,
                            bool panels);
void linear_forward_f16_simd(float* y, const float* x, const std::uint16_t* w, const float* b, int N, int I, int O,
                             bool panels);
// The same with w's elements bfloat16s (gpt.h's Precision::kBF16), always kept as wᵀ (I, O) in
// panels: kernels::gemm_panels_bf16_ref / _simd, equal bit for bit to linear_forward_ref /
// linear_forward_simd over w converted to float32 and unpanelled.
void linear_forward_bf16_ref(float* y, const float* x, const kernels::Bf16* w, const float* b, int N, int I, int O);
void linear_forward_bf16_simd(float* y, const float* x, const kernels::Bf16* w, const float* b, int N, int I, int O);
// The same with float32 w kept as wᵀ (I, O) in kernels/gemm.h's panels of 32 outputs (a model
// kept for inference, gpt.h's Precision::kF32Panels): kernels::gemm_panels_ref / _simd, equal
// bit for bit to linear_forward_ref / linear_forward_simd over w (O, I).
void linear_forward_panels_ref(float* y, const float* x, const float* w, const float* b, int N, int I, int O);
void linear_forward_panels_simd(float* y, const float* x, const float* w, const float* b, int N, int I, int O);

// dx (N, I) += dy (N, O) · w (O, I);  dw (O, I) += dyᵀ · x;  db (O) += Σ_rows dy.
// Any of dx, dw, db may be null (not wanted).
template <typename Real>
void linear_backward_ref(Real* dx, Real* dw, Real* db, const Real* dy, const Real* x, const Real* w, int N, int I,
                         int O);
void linear_backward_simd(float* dx, float* dw, float* db, const float* dy, const float* x, const float* w, int N,
                          int I, int O);

// ---------------------------------------------------------------------------------------------
// LayerNorm over the last dimension: biased variance, y = (x − mean)·rstd·w + b. eps is the
// config's layer_norm_eps, 1e-5 by default (nanoGPT's LayerNorm(ndim, bias) calls
// F.layer_norm(x, (C,), weight, bias, 1e-5); Hugging Face's GPT-2 reads layer_norm_epsilon).

constexpr double kLayerNormEps = 1e-5;

// y (N, C), mean (N), rstd (N) = 1/√(var + eps) — the two saved for backward, either may be
// null; x (N, C), w (C), b (C) or null (bias=False). y may alias x.
template <typename Real>
void layernorm_forward_ref(Real* y, Real* mean, Real* rstd, const Real* x, const Real* w, const Real* b, int N, int C,
                           double eps = kLayerNormEps);

// dx (N, C) +=, dw (C) +=, db (C) += (any may be null); dy (N, C), x (N, C) the forward's input,
// w (C), mean (N), rstd (N) as the forward saved them.
template <typename Real>
void layernorm_backward_ref(Real* dx, Real* dw, Real* db, const Real* dy, const Real* x, const Real* w,
                            const Real* mean, const Real* rstd, int N, int C);

// ---------------------------------------------------------------------------------------------
// GELU, exact (erf) form. nanoGPT's MLP uses nn.GELU() (approximate='none') since it replaced
// its tanh `new_gelu` in early 2023, so this is torch's exact formula, in torch's order:
//   y = x · 0.5 · (1 + erf(x · √½))
//   dy/dx = cdf + x·pdf,  cdf = 0.5 · (1 + erf(x · √½)),  pdf = exp(−x²/2) / √(2π)
// An elementwise op with a _simd path after all: std::erf and std::exp are calls the compiler
// cannot vectorise, and they cost more than the MLP's matrix products at n_embd = 64 (measured
// in model/layers_test.cpp). The loops live with the other hot loops in src/kernels/train_kernels.h:
//   gelu_forward_ref<Real>(y, x, n)        y (n) = gelu(x (n)); y may alias x
//   gelu_forward_simd(y, x, n)
//   gelu_backward_ref<Real>(dx, dy, x, n)  dx (n) += dy (n) · gelu'(x (n))
//   gelu_backward_simd(dx, dy, x, n)
using kernels::gelu_backward_ref;
using kernels::gelu_backward_simd;
using kernels::gelu_forward_ref;
using kernels::gelu_forward_simd;
// The tanh form, GPT-2's gelu_new (ModelConfig::gelu = Gelu::kTanh), likewise in train_kernels.h:
//   y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
using kernels::gelu_tanh_backward_ref;
using kernels::gelu_tanh_backward_simd;
using kernels::gelu_tanh_forward_ref;
using kernels::gelu_tanh_forward_simd;

// ---------------------------------------------------------------------------------------------
// Token + position embedding: x[b, t] = wte[idx[b, t]] + wpe[t] (nanoGPT: tok_emb + pos_emb).

// x (B, T, C); idx (B, T) in [0, V); wte (V, C); wpe (≥ T, C): row t is position t.
template <typename Real>
void embedding_forward_ref(Real* x, const int* idx, const Real* wte, const Real* wpe, int B, int T, int C);
// The same with wte (V, C) kept as wteᵀ (C, V) in panels (gpt.h: it is the LM head's weight) and
// wpe (rows, C), both float32 (W = float: Precision::kF32Panels), halves (W = std::uint16_t:
// kF16) or bfloat16s (W = kernels::Bf16: kBF16), each row converted as it is gathered: x = f32(wte row) + f32(wpe row),
// the float32 sum of the exact values, as embedding_forward_ref over the tables converted and unpanelled.
template <typename W>
void embedding_forward_panels(float* x, const int* idx, const W* wte, const W* wpe, int B, int T, int C, int V);
// Scatter-add: dwte[idx[b, t]] += dx[b, t], dwpe[t] += dx[b, t]; either may be null.
template <typename Real>
void embedding_backward_ref(Real* dwte, Real* dwpe, const Real* dx, const int* idx, int B, int T, int C);

// ---------------------------------------------------------------------------------------------
// Residual add: y = a + b (nanoGPT's x = x + attn(ln_1(x))). y may alias a or b.

template <typename Real>
void residual_forward_ref(Real* y, const Real* a, const Real* b, long long n);
// da (n) += dy, db (n) += dy; either may be null.
template <typename Real>
void residual_backward_ref(Real* da, Real* db, const Real* dy, long long n);

// ---------------------------------------------------------------------------------------------
// Dropout with a given keep-mask, PyTorch's CPU semantics (_dropout_impl): kept values are
// multiplied by scale = 1 / (1 − p) computed in the scalar type, as torch divides its 0/1 noise
// by (1 − p) in float: scale = Real(1) / Real(1 − p). Dropped values become 0. p = 1 gives
// zeros (torch multiplies by 0). p = 0 or eval mode is the identity and needs no call.

// y (n) = keep ? x · scale : 0, keep (n) bytes, nonzero = keep; 0 ≤ p ≤ 1. y may alias x.
template <typename Real>
void dropout_forward_ref(Real* y, const Real* x, const std::uint8_t* keep, double p, long long n);
// dx (n) += keep ? dy · scale : 0.
template <typename Real>
void dropout_backward_ref(Real* dx, const Real* dy, const std::uint8_t* keep, double p, long long n);

// ---------------------------------------------------------------------------------------------
// Cross-entropy over logits with a fused softmax, as F.cross_entropy(logits (N, V), targets (N),
// ignore_index=-1) in nanoGPT: loss = mean over rows with target ≠ −1 of
// logsumexp(logits[i]) − logits[i, target[i]]. A batch whose targets are all −1 gives loss 0 and
// a zero gradient (PyTorch gives NaN: 0/0).

constexpr int kIgnoreIndex = -1;

// Returns the mean loss. probs (N, V) = softmax of each row, saved for backward (may alias
// logits: each row is read before it is overwritten); losses (N) the per-row loss, 0 for ignored
// rows (may be null); logits (N, V); targets (N) in [0, V) or −1.
template <typename Real>
Real cross_entropy_forward_ref(Real* probs, Real* losses, const Real* logits, const int* targets, int N, int V);
// dlogits (N, V) += dloss · (probs − onehot(target)) / n_valid for rows with target ≠ −1;
// ignored rows get nothing. dloss is the gradient of the mean loss (1 for loss.backward()).
template <typename Real>
void cross_entropy_backward_ref(Real* dlogits, const Real* probs, const int* targets, Real dloss, int N, int V);

// ---------------------------------------------------------------------------------------------
// Checks of the integer inputs the kernels index with; throw attn::Error naming `what` and the
// first bad position. Tokens must be in [0, V); targets in [0, V) or −1.
void check_tokens(const int* idx, long long n, int V, const char* what = "tokens");
void check_targets(const int* targets, long long n, int V, const char* what = "targets");

}  // namespace attn::model

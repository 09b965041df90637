// nanoGPT's GPT: forward passes 1–16 and their reverse, the training step and sampling (gpt.h).
// Legend: B batch, T tokens, N = B·T rows, C n_embd, H n_head, hs head size, V vocab, L n_layer.
#include "model/gpt.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

#include "core/head.h"
#include "core/messages.h"
#include "core/threads.h"
#include "core/torch_random.h"
#include "kernels/gemm.h"
#include "kernels/half.h"
#include "kernels/kernels.h"
#include "kernels/train_kernels.h"
#include "model/layers.h"

namespace attn::model {

// ---------------------------------------------------------------------------------------------
// Kernel tables

namespace {

// GELU with the table's count type, in chunks over the thread pool (elementwise: every element
// is computed alone, in the same vector lanes code wherever its chunk starts).
constexpr std::ptrdiff_t kGeluChunk = 1 << 14;
constexpr double kGeluFlops = 40;  // per element, erf and exp included
template <typename Real, void (*gelu)(Real*, const Real*, long long)>
void gelu_forward(Real* y, const Real* x, std::ptrdiff_t n) {
  const int chunks = static_cast<int>((n + kGeluChunk - 1) / kGeluChunk);
  parallel_for(chunks, kGeluFlops * static_cast<double>(n), [&](int c) {
    const std::ptrdiff_t at = c * kGeluChunk;
    gelu(y + at, x + at, std::min(kGeluChunk, n - at));
  });
}
template <typename Real, void (*gelu)(Real*, const Real*, const Real*, long long)>
void gelu_backward(Real* dx, const Real* dy, const Real* x, std::ptrdiff_t n) {
  const int chunks = static_cast<int>((n + kGeluChunk - 1) / kGeluChunk);
  parallel_for(chunks, kGeluFlops * static_cast<double>(n), [&](int c) {
    const std::ptrdiff_t at = c * kGeluChunk;
    gelu(dx + at, dy + at, x + at, std::min(kGeluChunk, n - at));
  });
}

// The layer kernels of one family: the _ref loops (any Real) or the f32x4 ones (float only).
template <typename Real>
struct ReferenceLayers {
  static constexpr auto linear_forward = linear_forward_ref<Real>;
  static constexpr auto linear_backward = linear_backward_ref<Real>;
  static constexpr auto gelu_forward = gelu_forward_ref<Real>;
  static constexpr auto gelu_backward = gelu_backward_ref<Real>;
  static constexpr auto gelu_tanh_forward = gelu_tanh_forward_ref<Real>;
  static constexpr auto gelu_tanh_backward = gelu_tanh_backward_ref<Real>;
  static constexpr auto linear_forward_f16 = linear_forward_f16_ref;
  static constexpr auto linear_forward_panels = linear_forward_panels_ref;
  static constexpr auto linear_forward_bf16 = linear_forward_bf16_ref;
};
struct SimdLayers {
  static constexpr auto linear_forward = linear_forward_simd;
  static constexpr auto linear_backward = linear_backward_simd;
  static constexpr auto gelu_forward = gelu_forward_simd;
  static constexpr auto gelu_backward = gelu_backward_simd;
  static constexpr auto gelu_tanh_forward = gelu_tanh_forward_simd;
  static constexpr auto gelu_tanh_backward = gelu_tanh_backward_simd;
  static constexpr auto linear_forward_f16 = linear_forward_f16_simd;
  static constexpr auto linear_forward_panels = linear_forward_panels_simd;
  static constexpr auto linear_forward_bf16 = linear_forward_bf16_simd;
};

// One table: a layer family's kernels (GELU in chunks over the pool), one head's passes over
// `heads`, and the tiled attention kernel and its backward or none.
template <typename Real, class Layers>
constexpr GptKernelsOf<Real> table_of(const KernelTableOf<Real>* heads,
                                      decltype(GptKernelsOf<Real>::tiled_forward) tiled_forward = nullptr,
                                      decltype(GptKernelsOf<Real>::tiled_backward) tiled_backward = nullptr) {
  return {Layers::linear_forward,
          Layers::linear_backward,
          gelu_forward<Real, Layers::gelu_forward>,
          gelu_backward<Real, Layers::gelu_backward>,
          heads,
          tiled_forward,
          tiled_backward,
          gelu_forward<Real, Layers::gelu_tanh_forward>,
          gelu_backward<Real, Layers::gelu_tanh_backward>,
          std::is_same_v<Real, float> ? Layers::linear_forward_f16 : nullptr,
          std::is_same_v<Real, float> ? Layers::linear_forward_panels : nullptr,
          std::is_same_v<Real, float> ? Layers::linear_forward_bf16 : nullptr};
}

const GptKernels kGptReference = table_of<float, ReferenceLayers<float>>(&kReferenceKernels);
const GptKernels kGptEigen = table_of<float, SimdLayers>(&kEigenKernels);
const GptKernels kGptSimd = table_of<float, SimdLayers>(&kSimdKernels);
const GptKernels kGptTiled =
    table_of<float, SimdLayers>(&kSimdKernels, kernels::attention_tiled_simd, kernels::attention_tiled_backward_simd);
const GptKernelsOf<double> kGptReferenceDouble = table_of<double, ReferenceLayers<double>>(&kReferenceKernelsDouble);
const GptKernelsOf<double> kGptTiledDouble = table_of<double, ReferenceLayers<double>>(
    &kReferenceKernelsDouble, kernels::attention_tiled_ref<double>, kernels::attention_tiled_backward_ref<double>);

// A training value for messages: NaN spelled as a learner reads it ("the loss is NaN").
std::string value_string(double value) { return std::isnan(value) ? "NaN" : number_string(value); }

}  // namespace

const GptKernels& gpt_kernels(Kernel kernel) {
  switch (kernel) {
    case Kernel::kReference: return kGptReference;
    case Kernel::kEigen: return kGptEigen;
    case Kernel::kTiled: return kGptTiled;
    default: return kGptSimd;
  }
}

const GptKernelsOf<double>& gpt_kernels_double(bool tiled) { return tiled ? kGptTiledDouble : kGptReferenceDouble; }

Kernel resolve_kernel(Kernel kernel, int T, bool attention_dropout) {
  if (kernel != Kernel::kAuto) return kernel;
  return !attention_dropout && T >= kTiledFromT ? Kernel::kTiled : Kernel::kSimd;
}

// ---------------------------------------------------------------------------------------------
// Dropout masks, activations

namespace {

// keep (n) = bernoulli(1 − p) draws, one random64() per element in order (TorchGenerator's
// bernoulli), in calls of at most kMaxElements: the stream is the same as one call's.
void draw_keep(std::vector<std::uint8_t>& keep, TorchGenerator& generator, double p, long long n) {
  keep.resize(static_cast<std::size_t>(n));
  for (long long at = 0; at < n;) {
    const long long count = std::min(n - at, TorchGenerator::kMaxElements);
    const Tensor noise = generator.bernoulli(1.0 - p, {static_cast<int>(count)});
    for (long long i = 0; i < count; ++i) keep[static_cast<std::size_t>(at + i)] = noise.data[i] != 0.0f;
    at += count;
  }
}

}  // namespace

void GptDropout::draw(const ModelConfig& config, int B, int T, std::uint64_t seed) {
  // embedding (B, T, C); per block: attention (B, H, T, T), attn_resid (B, T, C), mlp_resid (B, T, C)
  p = config.dropout;
  const long long NC = static_cast<long long>(B) * T * config.n_embd;
  const long long BHTT = static_cast<long long>(B) * config.n_head * T * T;
  TorchGenerator generator(seed);
  draw_keep(embedding, generator, p, NC);
  attention.resize(static_cast<std::size_t>(config.n_layer));
  attn_resid.resize(attention.size());
  mlp_resid.resize(attention.size());
  for (std::size_t l = 0; l < attention.size(); ++l) {
    draw_keep(attention[l], generator, p, BHTT);
    draw_keep(attn_resid[l], generator, p, NC);
    if (config.mlp) draw_keep(mlp_resid[l], generator, p, NC);
  }
}

long long activation_floats(const ModelConfig& c, int B, int T, bool tiled) {
  const long long N = static_cast<long long>(B) * T, C = c.n_embd, H = c.n_head, hs = C / H;
  const long long NC = N * C, ln = c.layer_norm ? NC + 2 * N : 0;
  long long block = ln + 3 * NC + (tiled ? B * H * T : B * H * T * static_cast<long long>(T)) + 2 * NC;
  if (c.mlp) block += NC + ln + 8 * NC;
  long long total = (c.n_layer + 1) * NC + c.n_layer * block + ln + 3 * N * c.vocab_size;
  // scratch: qkv and its gradient, five (N, C) gradients, the MLP's two (N, 4C), one head's
  // (T, T) twice and its dq, dk, dv
  total += 6 * NC + 5 * NC + (c.mlp ? 8 * NC : 0) + (tiled ? 0 : 2 * static_cast<long long>(T) * T) + 3 * T * hs;
  return total;
}

template <typename Real>
void GptActivationsOf<Real>::resize(const ModelConfig& c, int B_, int T_, bool tiled_) {
  B = B_, T = T_, tiled = tiled_;
  const std::size_t N = static_cast<std::size_t>(B) * T, C = static_cast<std::size_t>(c.n_embd);
  const std::size_t H = static_cast<std::size_t>(c.n_head), V = static_cast<std::size_t>(c.vocab_size);
  const std::size_t NC = N * C, TT = static_cast<std::size_t>(T) * T;
  const std::size_t L = static_cast<std::size_t>(c.n_layer);
  // resize() keeps capacity: a repeated or smaller batch allocates nothing.
  auto ln = [&](std::vector<Real>& y, std::vector<Real>& mean, std::vector<Real>& rstd) {
    y.resize(c.layer_norm ? NC : 0), mean.resize(c.layer_norm ? N : 0), rstd.resize(c.layer_norm ? N : 0);
  };
  stream.resize(L + 1);
  for (std::vector<Real>& s : stream) s.resize(NC);
  blocks.resize(L);
  for (Block& b : blocks) {
    ln(b.ln1, b.ln1_mean, b.ln1_rstd);
    b.q.resize(NC), b.k.resize(NC), b.v.resize(NC);
    b.weights.resize(tiled ? 0 : static_cast<std::size_t>(B) * H * TT);
    b.lse.resize(tiled ? static_cast<std::size_t>(B) * H * T : 0);
    b.heads.resize(NC), b.y.resize(NC);
    b.mid.resize(c.mlp ? NC : 0);
    if (c.mlp) {
      ln(b.ln2, b.ln2_mean, b.ln2_rstd);
    } else {
      b.ln2.clear(), b.ln2_mean.clear(), b.ln2_rstd.clear();
    }
    b.fc.resize(c.mlp ? 4 * NC : 0), b.gelu.resize(c.mlp ? 4 * NC : 0);
  }
  ln(lnf, lnf_mean, lnf_rstd);
  logits.resize(N * V), probs.resize(N * V), d_logits.resize(N * V);
  qkv.resize(3 * NC), d_qkv.resize(3 * NC);
  d_stream.resize(NC), d_branch.resize(NC), d_a.resize(NC), d_y.resize(NC), d_heads.resize(NC);
  d_hidden.resize(c.mlp ? 4 * NC : 0), d_fc.resize(c.mlp ? 4 * NC : 0);
}

// ---------------------------------------------------------------------------------------------
// Forward and backward

namespace {

template <typename Real>
void zero(std::vector<Real>& v) {
  std::fill(v.begin(), v.end(), Real(0));
}

// LayerNorm over the thread pool, in chunks of rows: rows are independent in the forward and in
// the backward's dx; dw and db are sums over rows and stay on the caller, in the row order of
// the reference (layers.h), so every thread count gives the reference's bits.
constexpr int kLayerNormRows = 32;
constexpr double kLayerNormFlops = 30;  // per element: the cost of ~30 flops of the vector kernels
template <typename Real>
void layernorm_forward_rows(Real* y, Real* mean, Real* rstd, const Real* x, const Real* w, const Real* b, int N, int C,
                            double eps) {
  parallel_for((N + kLayerNormRows - 1) / kLayerNormRows, kLayerNormFlops * N * C, [&](int chunk) {
    const int n0 = chunk * kLayerNormRows, rows = std::min(kLayerNormRows, N - n0);
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(n0) * C;
    layernorm_forward_ref<Real>(y + at, mean ? mean + n0 : nullptr, rstd ? rstd + n0 : nullptr, x + at, w, b, rows, C,
                                eps);
  });
}
template <typename Real>
void layernorm_backward_rows(Real* dx, Real* dw, Real* db, const Real* dy, const Real* x, const Real* w,
                             const Real* mean, const Real* rstd, int N, int C) {
  if (dw || db) layernorm_backward_ref<Real>(nullptr, dw, db, dy, x, w, mean, rstd, N, C);
  if (!dx) return;
  parallel_for((N + kLayerNormRows - 1) / kLayerNormRows, kLayerNormFlops * N * C, [&](int chunk) {
    const int n0 = chunk * kLayerNormRows, rows = std::min(kLayerNormRows, N - n0);
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(n0) * C;
    layernorm_backward_ref<Real>(dx + at, nullptr, nullptr, dy + at, x + at, w, mean + n0, rstd + n0, rows, C);
  });
}

// Passes 5 and 7 and their reverses: one head's (T, hs) block of a (B·T, width) matrix whose
// columns [column, column + hs) belong to it. to_head copies the block out, from_head back in.
template <typename Real>
void to_head(Real* head, const Real* rows, int b, int T, int width, int column, int hs) {
  // head: (T, hs); rows: (B·T, width)
  for (int t = 0; t < T; ++t) {
    const Real* row = rows + (static_cast<long long>(b) * T + t) * width + column;
    std::copy(row, row + hs, head + static_cast<long long>(t) * hs);
  }
}
template <typename Real>
void from_head(Real* rows, const Real* head, int b, int T, int width, int column, int hs) {
  // rows: (B·T, width); head: (T, hs)
  for (int t = 0; t < T; ++t) {
    const Real* from = head + static_cast<long long>(t) * hs;
    std::copy(from, from + hs, rows + (static_cast<long long>(b) * T + t) * width + column);
  }
}

}  // namespace

template <typename Real>
Real gpt_forward(GptActivationsOf<Real>& A, const Real* params, const ParamTable& table, const int* idx,
                 const int* targets, int B, int T, const GptKernelsOf<Real>& K, const GptDropout* dropout,
                 GptCaptureOf<Real>* capture) {
  // idx, targets: (B, T); params: table.total() floats; A sized here for (B, T)
  const ModelConfig& cfg = table.config();
  const int C = cfg.n_embd, H = cfg.n_head, hs = C / H, V = cfg.vocab_size, L = cfg.n_layer, N = B * T;
  const long long NC = static_cast<long long>(N) * C, TT = static_cast<long long>(T) * T;
  const bool tiled = K.tiled_forward != nullptr;
  const double p = dropout ? dropout->p : 0.0;
  const bool dropping = p > 0.0;
  const Real alpha = static_cast<Real>(1.0 / std::sqrt(static_cast<double>(hs)));  // nanoGPT's 1/√hs
  A.resize(cfg, B, T, tiled);
  auto param = [params](const ParamEntry* e) -> const Real* { return e ? params + e->offset : nullptr; };
  if (capture) capture->blocks.resize(static_cast<std::size_t>(L));

  // 1. embed: x = wte[idx] + wpe[t];  2. dropout
  Real* x0 = A.stream[0].data();
  embedding_forward_ref<Real>(x0, idx, param(&table.wte()), param(&table.wpe()), B, T, C);
  if (dropping) dropout_forward_ref<Real>(x0, x0, dropout->embedding.data(), p, NC);

  for (int l = 0; l < L; ++l) {
    const BlockEntries& E = table.block(l);
    typename GptActivationsOf<Real>::Block& S = A.blocks[static_cast<std::size_t>(l)];
    const Real* x = A.stream[static_cast<std::size_t>(l)].data();
    Real* x_out = A.stream[static_cast<std::size_t>(l) + 1].data();

    // 3. ln_1
    const Real* a = x;
    if (cfg.layer_norm) {
      layernorm_forward_rows<Real>(S.ln1.data(), S.ln1_mean.data(), S.ln1_rstd.data(), x, param(E.ln_1_weight),
                                   param(E.ln_1_bias), N, C, cfg.layer_norm_eps);
      a = S.ln1.data();
    }
    // 4. c_attn: qkv (N, 3C)
    K.linear_forward(A.qkv.data(), a, param(E.c_attn_weight), param(E.c_attn_bias), N, C, 3 * C);
    // 5. split into heads; 6. attend, each head; 7. merge. The B·H heads are independent tasks
    // over the thread pool, each with its own scratch.
    if (capture) {
      typename GptCaptureOf<Real>::Block& cap = capture->blocks[static_cast<std::size_t>(l)];
      const std::size_t head_size = static_cast<std::size_t>(H) * T * hs, square = static_cast<std::size_t>(H * TT);
      cap.q.resize(head_size), cap.k.resize(head_size), cap.v.resize(head_size);
      cap.scores.resize(square), cap.weights.resize(square);
    }
    parallel_for(B * H, static_cast<double>(B) * H * 4.0 * TT * hs, [&](int head_index) {
      const int b = head_index / H, h = head_index % H;
      const long long head = head_index, at = head * T * hs;
      HeadInputsOf<Real> in;
      in.q = S.q.data() + at, in.k = S.k.data() + at, in.v = S.v.data() + at;
      to_head(S.q.data() + at, A.qkv.data(), b, T, 3 * C, h * hs, hs);
      to_head(S.k.data() + at, A.qkv.data(), b, T, 3 * C, C + h * hs, hs);
      to_head(S.v.data() + at, A.qkv.data(), b, T, 3 * C, 2 * C + h * hs, hs);
      in.alpha = alpha, in.causal = true, in.T = T, in.hk = hs, in.hv = hs;
      Real* out = S.heads.data() + at;
      std::vector<Real> scratch(tiled && !capture ? 0 : static_cast<std::size_t>(TT));  // one head's (T, T)
      if (tiled) {
        K.tiled_forward(out, S.lse.data() + head * T, in.q, in.k, in.v, nullptr, T, hs, hs, alpha, true);
      } else {
        in.keep = dropping ? dropout->attention[static_cast<std::size_t>(l)].data() + head * TT : nullptr;
        in.dropout = static_cast<float>(p);
        HeadIntermediatesOf<Real> kept;
        kept.weights = S.weights.data() + head * TT;
        head_forward(out, kept, scratch.data(), in, *K.attention);
      }
      if (capture && b == capture->sequence) {
        // The page's view of this head: its q, k, v, every score and the weights (no dropout).
        typename GptCaptureOf<Real>::Block& cap = capture->blocks[static_cast<std::size_t>(l)];
        const long long hat = static_cast<long long>(h) * T * hs;
        std::copy(in.q, in.q + T * hs, cap.q.data() + hat);
        std::copy(in.k, in.k + T * hs, cap.k.data() + hat);
        std::copy(in.v, in.v + T * hs, cap.v.data() + hat);
        HeadInputsOf<Real> eval = in;
        eval.keep = nullptr;
        HeadIntermediatesOf<Real> kept;
        kept.scores = cap.scores.data() + h * TT;
        kept.weights = cap.weights.data() + h * TT;
        std::vector<Real> unused_out(static_cast<std::size_t>(T) * hs);
        head_forward(unused_out.data(), kept, scratch.data(), eval, *K.attention);
      }
      from_head(S.y.data(), out, b, T, C, h * hs, hs);
    });
    // 8. c_proj, dropout;  9. residual: x + z (into mid when the MLP follows)
    Real* after_attention = cfg.mlp ? S.mid.data() : x_out;
    K.linear_forward(after_attention, S.y.data(), param(E.attn_proj_weight), param(E.attn_proj_bias), N, C, C);
    if (dropping) {
      dropout_forward_ref<Real>(after_attention, after_attention,
                                dropout->attn_resid[static_cast<std::size_t>(l)].data(), p, NC);
    }
    residual_forward_ref<Real>(after_attention, x, after_attention, NC);
    if (!cfg.mlp) continue;

    // 10. ln_2
    const Real* a2 = S.mid.data();
    if (cfg.layer_norm) {
      layernorm_forward_rows<Real>(S.ln2.data(), S.ln2_mean.data(), S.ln2_rstd.data(), S.mid.data(),
                                   param(E.ln_2_weight), param(E.ln_2_bias), N, C, cfg.layer_norm_eps);
      a2 = S.ln2.data();
    }
    // 11. c_fc (N, 4C), GELU
    K.linear_forward(S.fc.data(), a2, param(E.c_fc_weight), param(E.c_fc_bias), N, C, 4 * C);
    (cfg.gelu == Gelu::kTanh ? K.gelu_tanh_forward : K.gelu_forward)(S.gelu.data(), S.fc.data(), 4 * NC);
    // 12. c_proj, dropout;  13. residual: mid + m
    K.linear_forward(x_out, S.gelu.data(), param(E.mlp_proj_weight), param(E.mlp_proj_bias), N, 4 * C, C);
    if (dropping) {
      dropout_forward_ref<Real>(x_out, x_out, dropout->mlp_resid[static_cast<std::size_t>(l)].data(), p, NC);
    }
    residual_forward_ref<Real>(x_out, S.mid.data(), x_out, NC);
  }

  // 14. ln_f
  const Real* h = A.stream[static_cast<std::size_t>(L)].data();
  if (cfg.layer_norm) {
    layernorm_forward_rows<Real>(A.lnf.data(), A.lnf_mean.data(), A.lnf_rstd.data(), h, param(table.ln_f_weight()),
                                 param(table.ln_f_bias()), N, C, cfg.layer_norm_eps);
    h = A.lnf.data();
  }
  // 15. lm_head: logits = h · wteᵀ
  K.linear_forward(A.logits.data(), h, param(&table.wte()), nullptr, N, C, V);
  // 16. loss
  if (!targets) return Real(0);
  return cross_entropy_forward_ref<Real>(A.probs.data(), nullptr, A.logits.data(), targets, N, V);
}

template <typename Real>
void gpt_backward(Real* grads, GptActivationsOf<Real>& A, const Real* params, const ParamTable& table, const int* idx,
                  const int* targets, const GptKernelsOf<Real>& K, const GptDropout* dropout) {
  // grads: table.total() floats +=; A: the forward's (B, T) activations; idx, targets: (B, T)
  const ModelConfig& cfg = table.config();
  const int B = A.B, T = A.T;
  const int C = cfg.n_embd, H = cfg.n_head, hs = C / H, V = cfg.vocab_size, L = cfg.n_layer, N = B * T;
  const long long NC = static_cast<long long>(N) * C, TT = static_cast<long long>(T) * T;
  const bool tiled = K.tiled_forward != nullptr;
  const double p = dropout ? dropout->p : 0.0;
  const bool dropping = p > 0.0;
  const Real alpha = static_cast<Real>(1.0 / std::sqrt(static_cast<double>(hs)));
  auto param = [params](const ParamEntry* e) -> const Real* { return e ? params + e->offset : nullptr; };
  auto grad = [grads](const ParamEntry* e) -> Real* { return e ? grads + e->offset : nullptr; };
  // The gradient of a dropout's output becomes its input's in d_branch; without dropout it is
  // the same buffer.
  auto through_dropout = [&](const Real* d_out, const std::vector<std::vector<std::uint8_t>>* masks,
                             int l) -> const Real* {
    if (!dropping) return d_out;
    zero(A.d_branch);
    const std::uint8_t* keep = masks ? (*masks)[static_cast<std::size_t>(l)].data() : dropout->embedding.data();
    dropout_backward_ref<Real>(A.d_branch.data(), d_out, keep, p, NC);
    return A.d_branch.data();
  };
  Real* d_stream = A.d_stream.data();  // d loss / d stream[l], walking l down from L
  zero(A.d_stream);

  // 16. loss: d_logits = (probs − onehot(target)) / n_valid
  zero(A.d_logits);
  cross_entropy_backward_ref<Real>(A.d_logits.data(), A.probs.data(), targets, Real(1), N, V);
  // 15. lm_head: d_h = d_logits · wte,  d_wte += d_logitsᵀ · h
  const Real* x_final = A.stream[static_cast<std::size_t>(L)].data();
  Real* d_h = cfg.layer_norm ? A.d_a.data() : d_stream;
  if (cfg.layer_norm) zero(A.d_a);
  K.linear_backward(d_h, grad(&table.wte()), nullptr, A.d_logits.data(), cfg.layer_norm ? A.lnf.data() : x_final,
                    param(&table.wte()), N, C, V);
  // 14. ln_f
  if (cfg.layer_norm) {
    layernorm_backward_rows<Real>(d_stream, grad(table.ln_f_weight()), grad(table.ln_f_bias()), A.d_a.data(), x_final,
                                  param(table.ln_f_weight()), A.lnf_mean.data(), A.lnf_rstd.data(), N, C);
  }

  for (int l = L - 1; l >= 0; --l) {
    const BlockEntries& E = table.block(l);
    typename GptActivationsOf<Real>::Block& S = A.blocks[static_cast<std::size_t>(l)];
    const Real* x = A.stream[static_cast<std::size_t>(l)].data();
    // d_stream holds d loss / d (this block's output).
    if (cfg.mlp) {
      // 13. residual, x_out = mid + m: both get d_stream (mid's share stays in d_stream)
      // 12. dropout, c_proj: d_gelu = d_m · W,  dW += d_mᵀ · gelu,  db += Σ d_m
      const Real* d_m = through_dropout(d_stream, dropping ? &dropout->mlp_resid : nullptr, l);
      zero(A.d_hidden);
      K.linear_backward(A.d_hidden.data(), grad(E.mlp_proj_weight), grad(E.mlp_proj_bias), d_m, S.gelu.data(),
                        param(E.mlp_proj_weight), N, 4 * C, C);
      // 11. GELU, then c_fc: d_a2 = d_fc · W
      zero(A.d_fc);
      (cfg.gelu == Gelu::kTanh ? K.gelu_tanh_backward : K.gelu_backward)(A.d_fc.data(), A.d_hidden.data(), S.fc.data(),
                                                                         4 * NC);
      Real* d_a2 = cfg.layer_norm ? A.d_a.data() : d_stream;
      if (cfg.layer_norm) zero(A.d_a);
      K.linear_backward(d_a2, grad(E.c_fc_weight), grad(E.c_fc_bias), A.d_fc.data(),
                        cfg.layer_norm ? S.ln2.data() : S.mid.data(), param(E.c_fc_weight), N, C, 4 * C);
      // 10. ln_2: d_mid += LayerNorm's backward
      if (cfg.layer_norm) {
        layernorm_backward_rows<Real>(d_stream, grad(E.ln_2_weight), grad(E.ln_2_bias), A.d_a.data(), S.mid.data(),
                                      param(E.ln_2_weight), S.ln2_mean.data(), S.ln2_rstd.data(), N, C);
      }
    }
    // 9. residual, mid = x + z: both get d_stream (x's share stays in d_stream)
    // 8. dropout, c_proj: d_y = d_z · W,  dW += d_zᵀ · y,  db += Σ d_z
    const Real* d_z = through_dropout(d_stream, dropping ? &dropout->attn_resid : nullptr, l);
    zero(A.d_y);
    K.linear_backward(A.d_y.data(), grad(E.attn_proj_weight), grad(E.attn_proj_bias), d_z, S.y.data(),
                      param(E.attn_proj_weight), N, C, C);
    // 7. merge, undone; 6. attend, each head's passes in reverse; 5. split, undone into d_qkv.
    // The B·H heads over the thread pool, as in the forward: each writes its own columns of d_qkv.
    parallel_for(B * H, static_cast<double>(B) * H * 8.0 * TT * hs, [&](int head_index) {
      const int b = head_index / H, h = head_index % H;
      const long long head = head_index, at = head * T * hs;
      Real* d_out = A.d_heads.data() + at;
      to_head(d_out, A.d_y.data(), b, T, C, h * hs, hs);
      HeadInputsOf<Real> in;
      in.q = S.q.data() + at, in.k = S.k.data() + at, in.v = S.v.data() + at;
      in.alpha = alpha, in.causal = true, in.T = T, in.hk = hs, in.hv = hs;
      // dq, dk, dv (T, hs) and, without the tiled kernel, 2·(T, T) of scratch
      std::vector<Real> grads(3 * static_cast<std::size_t>(T) * hs + (tiled ? 0 : 2 * static_cast<std::size_t>(TT)));
      Real* dq = grads.data();
      Real* dk = dq + T * hs;
      Real* dv = dk + T * hs;
      if (tiled) {
        K.tiled_backward(dq, dk, dv, d_out, in.q, in.k, in.v, S.heads.data() + at, S.lse.data() + head * T, nullptr, T,
                         hs, hs, alpha, true);
      } else {
        in.keep = dropping ? dropout->attention[static_cast<std::size_t>(l)].data() + head * TT : nullptr;
        in.dropout = static_cast<float>(p);
        head_backward(dq, dk, dv, dv + T * hs, d_out, S.weights.data() + head * TT, in, *K.attention);
      }
      from_head(A.d_qkv.data(), dq, b, T, 3 * C, h * hs, hs);
      from_head(A.d_qkv.data(), dk, b, T, 3 * C, C + h * hs, hs);
      from_head(A.d_qkv.data(), dv, b, T, 3 * C, 2 * C + h * hs, hs);
    });
    // 4. c_attn: d_a = d_qkv · W,  dW += d_qkvᵀ · a,  db += Σ d_qkv
    Real* d_a = cfg.layer_norm ? A.d_a.data() : d_stream;
    if (cfg.layer_norm) zero(A.d_a);
    K.linear_backward(d_a, grad(E.c_attn_weight), grad(E.c_attn_bias), A.d_qkv.data(),
                      cfg.layer_norm ? S.ln1.data() : x, param(E.c_attn_weight), N, C, 3 * C);
    // 3. ln_1: d_x += LayerNorm's backward
    if (cfg.layer_norm) {
      layernorm_backward_rows<Real>(d_stream, grad(E.ln_1_weight), grad(E.ln_1_bias), A.d_a.data(), x,
                                    param(E.ln_1_weight), S.ln1_mean.data(), S.ln1_rstd.data(), N, C);
    }
  }

  // 2. dropout; 1. embed: scatter-add into wte's rows and wpe's
  const Real* d_x0 = through_dropout(d_stream, nullptr, 0);
  embedding_backward_ref<Real>(grad(&table.wte()), grad(&table.wpe()), d_x0, idx, B, T, C);
}

template struct GptActivationsOf<float>;
template struct GptActivationsOf<double>;
template float gpt_forward<float>(GptActivationsOf<float>&, const float*, const ParamTable&, const int*, const int*,
                                  int, int, const GptKernelsOf<float>&, const GptDropout*, GptCaptureOf<float>*);
template double gpt_forward<double>(GptActivationsOf<double>&, const double*, const ParamTable&, const int*, const int*,
                                    int, int, const GptKernelsOf<double>&, const GptDropout*, GptCaptureOf<double>*);
template void gpt_backward<float>(float*, GptActivationsOf<float>&, const float*, const ParamTable&, const int*,
                                  const int*, const GptKernelsOf<float>&, const GptDropout*);
template void gpt_backward<double>(double*, GptActivationsOf<double>&, const double*, const ParamTable&, const int*,
                                   const int*, const GptKernelsOf<double>&, const GptDropout*);

// ---------------------------------------------------------------------------------------------
// Initialisation through PyTorch's generator

InitFill torch_fill(TorchGenerator& generator) {
  // TorchGenerator takes at most kMaxElements per call. Both draws are sequential per element,
  // and normal_'s blocks of 16 do not straddle calls of a multiple of 16, so a tensor drawn in
  // such calls (the last ≥ 16, keeping the tail's redraw where torch has it) is drawn as torch
  // draws it in one.
  const auto in_calls = [](float* data, std::size_t n, const std::function<void(Tensor&)>& draw) {
    const std::size_t most = static_cast<std::size_t>(TorchGenerator::kMaxElements);
    for (std::size_t at = 0; at < n;) {
      std::size_t count = n - at;
      if (count > most) count = count - most < 16 ? most - 16 : most;
      Tensor t;
      t.shape = {static_cast<int>(count)};
      t.data.assign(count, 0.0f);
      draw(t);
      std::copy(t.data.begin(), t.data.end(), data + at);
      at += count;
    }
  };
  InitFill fill;
  fill.normal = [&generator, in_calls](float* data, std::size_t n, double mean, double std) {
    in_calls(data, n, [&](Tensor& t) { generator.normal_(t, mean, std); });
  };
  fill.uniform = [&generator, in_calls](float* data, std::size_t n, double from, double to) {
    in_calls(data, n, [&](Tensor& t) { generator.uniform_(t, from, to); });
  };
  return fill;
}

// ---------------------------------------------------------------------------------------------
// Gpt

Gpt::Gpt(const ModelConfig& config, std::uint64_t seed) : table_(config) {
  params_.assign(table_.total(), 0.0f);
  TorchGenerator generator(seed);
  init_params(params_.data(), table_, torch_fill(generator));
}

Gpt::Gpt(const ModelConfig& config, ZeroParams, Precision precision) : table_(config), precision_(precision) {
  if (precision != Precision::kF16 && precision != Precision::kBF16) {
    params_.assign(table_.total(), 0.0f);
    return;
  }
  if (precision == Precision::kF16) {
    halves_.assign(table_.total(), 0);
  } else {
    bf16s_.assign(table_.total(), kernels::Bf16{});
  }
  std::size_t floats = 0;
  for (const ParamEntry& e : table_.entries()) {
    vector_offsets_.push_back(floats);
    if (e.shape.size() == 1) floats += e.size;
  }
  vectors_.assign(floats, 0.0f);
}

void Gpt::require_f32(const char* what) const {
  if (precision_ == Precision::kF32) return;
  if (precision_ == Precision::kF32Panels) {
    throw Error(std::string(what) +
                ": this model keeps its float32 weights for inference only (opened with inferenceOnly: true), "
                "which runs the trace, generation sessions and the interpretability tools; open it without "
                "inferenceOnly for this");
  }
  const char* kept =
      precision_ == Precision::kBF16 ? "BF16 (opened with weights: 'bf16')" : "F16 (opened with weights: 'f16')";
  throw Error(std::string(what) + ": this model keeps its weights as " + kept +
              ", which only runs inference "
              "(trace, generation sessions, the interpretability tools); open it with weights: 'f32' for this");
}

std::size_t Gpt::weight_bytes() const {
  return params_.size() * sizeof(float) + halves_.size() * sizeof(std::uint16_t) +
         bf16s_.size() * sizeof(kernels::Bf16) + vectors_.size() * sizeof(float);
}

bool Gpt::panels(const ParamEntry& e) const {
  return precision_ != Precision::kF32 && e.shape.size() == 2 && e.offset != table_.wpe().offset;
}

Gpt::WeightRef Gpt::weight(const ParamEntry& e) const {
  WeightRef w;
  w.panels = panels(e);
  if (precision_ == Precision::kF32 || precision_ == Precision::kF32Panels) {
    w.f32 = params_.data() + e.offset;
  } else if (e.shape.size() == 1) {
    w.f32 = vector(&e);
  } else if (precision_ == Precision::kF16) {
    w.f16 = halves_.data() + e.offset;
  } else {
    w.bf16 = bf16s_.data() + e.offset;
  }
  return w;
}

const float* Gpt::vector(const ParamEntry* e) const { return const_cast<Gpt*>(this)->vector(e); }

float* Gpt::vector(const ParamEntry* e) {
  if (!e) return nullptr;
  if (precision_ == Precision::kF32) return params_.data() + e->offset;
  if (precision_ == Precision::kF32Panels) {
    if (panels(*e)) throw Error("parameter " + e->name + ": a matrix, kept in panels (not in its own layout)");
    return params_.data() + e->offset;
  }
  if (e->shape.size() != 1) {
    throw Error("parameter " + e->name + ": a matrix, kept as " + (precision_ == Precision::kBF16 ? "BF16" : "F16") +
                " (not a float32 vector)");
  }
  const std::vector<ParamEntry>& entries = table_.entries();
  if (e < entries.data() || e >= entries.data() + entries.size()) {
    throw Error("parameter " + e->name + ": an entry of another model's table");
  }
  return vectors_.data() + vector_offsets_[static_cast<std::size_t>(e - entries.data())];
}

namespace {

// Row `row` of w (O, I) as float32, w's elements W (float32, halves or bfloat16s) kept as (O, I)
// or, panels, as wᵀ (I, O) in panels, where the row is column `row`.
template <typename W>
void row_of(const W* w, bool panels, int row, int I, int O, float* out) {
  const std::size_t first = static_cast<std::size_t>(row) * static_cast<std::size_t>(I);
  for (int i = 0; i < I; ++i)
    out[i] =
        kernels::weight_to_f32(w[panels ? kernels::panel_index(i, row, I, O) : first + static_cast<std::size_t>(i)]);
}

}  // namespace

void Gpt::read_row(const ParamEntry& e, int row, float* out) const {
  const int O = static_cast<int>(e.shape[0]), I = static_cast<int>(e.shape.back());
  const WeightRef w = weight(e);
  if (w.f16) {
    row_of(w.f16, w.panels, row, I, O, out);
  } else if (w.bf16) {
    row_of(w.bf16, w.panels, row, I, O, out);
  } else {
    row_of(w.f32, w.panels, row, I, O, out);
  }
}

void linear_forward(const GptKernels& K, float* y, const float* x, Gpt::WeightRef w, const float* b, int N, int I,
                    int O) {
  if (w.f16) {
    K.linear_forward_f16(y, x, w.f16, b, N, I, O, w.panels);
  } else if (w.bf16) {
    K.linear_forward_bf16(y, x, w.bf16, b, N, I, O);  // always in panels (Gpt::panels)
  } else if (w.panels) {
    K.linear_forward_panels(y, x, w.f32, b, N, I, O);
  } else {
    K.linear_forward(y, x, w.f32, b, N, I, O);
  }
}

void Gpt::prepare_training(const char* what) {
  require_f32(what);
  validate_for_training(config(), what);
  if (grads_.size() != table_.total()) grads_.assign(table_.total(), 0.0f);
}

namespace {

// The batch's sizes and the activations they need, before anything reads the tokens.
void check_sizes(const ModelConfig& cfg, const Batch& batch, bool tiled) {
  if (batch.B < 1 || batch.B > Limits::kMaxInputElements) {
    throw Error("batch: expected 1 ≤ B ≤ " + std::to_string(Limits::kMaxInputElements) + " sequences, got " +
                std::to_string(batch.B));
  }
  if (batch.T < 1 || batch.T > cfg.block_size) {
    throw Error("context: expected 1 ≤ T ≤ block_size = " + std::to_string(cfg.block_size) + " tokens, got " +
                std::to_string(batch.T));
  }
  const long long floats = activation_floats(cfg, batch.B, batch.T, tiled);
  if (floats > kMaxActivationFloats) {
    throw Error("batch: B = " + std::to_string(batch.B) + " sequences of T = " + std::to_string(batch.T) +
                " tokens need " + std::to_string(floats) + " floats of activations; at most " +
                std::to_string(kMaxActivationFloats) + " (2^26): use a smaller batch or context");
  }
}

}  // namespace

void Gpt::check(const Batch& batch) const {
  check_sizes(config(), batch, resolve_kernel(kernel_, batch.T, false) == Kernel::kTiled);
  const long long n = static_cast<long long>(batch.B) * batch.T;
  if (!batch.tokens) throw Error("tokens: required, (B, T) token ids");
  check_tokens(batch.tokens, n, config().vocab_size, "tokens");
  if (!batch.targets) return;
  check_targets(batch.targets, n, config().vocab_size, "targets");
  if (std::all_of(batch.targets, batch.targets + n, [](int t) { return t == kIgnoreIndex; })) {
    throw Error("targets: every target is -1 (ignored); at least one must be a token id for a loss");
  }
}

float Gpt::forward(const Batch& batch, const ForwardOptions& options) {
  require_f32("forward");
  check(batch);
  const bool dropping = options.training && config().dropout > 0.0;
  const Kernel kernel = resolve_kernel(kernel_, batch.T, dropping);
  if (kernel == Kernel::kTiled && dropping) {
    throw Error(
        "kernel: 'tiled' never holds the attention weights, so it cannot drop them; use 'auto' or 'simd' "
        "to train with dropout " +
        value_string(config().dropout));
  }
  check_sizes(config(), batch, kernel == Kernel::kTiled);
  if (options.capture && (options.capture->sequence < 0 || options.capture->sequence >= batch.B)) {
    throw Error("sequence: expected 0 ≤ sequence < B = " + std::to_string(batch.B) + ", got " +
                std::to_string(options.capture->sequence));
  }
  const std::size_t n = static_cast<std::size_t>(batch.B) * batch.T;
  tokens_.assign(batch.tokens, batch.tokens + n);
  has_targets_ = batch.targets != nullptr;
  if (has_targets_) targets_.assign(batch.targets, batch.targets + n);
  dropout_active_ = dropping;
  if (dropping) dropout_.draw(config(), batch.B, batch.T, options.dropout_seed);
  last_kernel_ = kernel;
  return gpt_forward<float>(acts_, params_.data(), table_, tokens_.data(), has_targets_ ? targets_.data() : nullptr,
                            batch.B, batch.T, gpt_kernels(kernel), dropping ? &dropout_ : nullptr, options.capture);
}

void Gpt::backward() {
  if (acts_.B == 0 || !has_targets_) throw Error("backward: the last forward had no targets to differentiate");
  prepare_training("backward");
  gpt_backward<float>(grads_.data(), acts_, params_.data(), table_, tokens_.data(), targets_.data(),
                      gpt_kernels(last_kernel_), dropout_active_ ? &dropout_ : nullptr);
}

// ---------------------------------------------------------------------------------------------
// Trainer

namespace {

// One update by the optimizer of a kind: the current one after backing it up and taking the new
// options (as editing a torch param_group), or a fresh one the commit keeps.
template <class Optimizer, class Options>
void update(Trainer::OptimizerState<Optimizer>& s, const Options& options, const std::vector<ParamSegment>& segments,
            std::vector<float>& params, const std::vector<float>& grads, double lr) {
  if (s.current) {
    if (s.backup) {
      *s.backup = *s.current;
    } else {
      s.backup = std::make_unique<Optimizer>(*s.current);
    }
    s.current->set_options(options);
    s.current->step(params.data(), grads.data(), lr);
  } else {
    s.fresh = std::make_unique<Optimizer>(segments, params.size(), options);
    s.fresh->step(params.data(), grads.data(), lr);
  }
}
// The optimizer's state as before the last update (the parameters are the caller's to restore).
template <class Optimizer>
void undo(Trainer::OptimizerState<Optimizer>& s) {
  if (s.fresh) {
    s.fresh.reset();
  } else if (s.current && s.backup) {
    *s.current = *s.backup;
  }
}
template <class Optimizer>
void clear(Trainer::OptimizerState<Optimizer>& s) {
  s.current.reset(), s.backup.reset(), s.fresh.reset();
}

}  // namespace

Trainer::Trainer(Gpt& model) : model_(model), segments_(param_segments(model.table())) {}

StepResult Trainer::step(const Batch& batch, const StepOptions& o) {
  // Everything checked before anything changes.
  if (!batch.targets) throw Error("targets: required for a training step");
  if (!(o.clip >= 0.0) || !std::isfinite(o.clip)) {
    throw Error("clip: expected a finite max gradient norm ≥ 0 (0: no clipping), got " + value_string(o.clip));
  }
  const double lr = learning_rate_at(o.schedule, steps_);
  const bool adamw = o.optimizer == OptimizerKind::kAdamW;
  if (adamw) {
    validate(o.adamw);
  } else {
    validate(o.sgd);
  }
  const std::string after = "the weights and optimizer state are those after step " + std::to_string(steps_);
  model_.prepare_training("step");

  // zero grads → forward → backward
  std::vector<float>& grads = model_.grads();
  std::fill(grads.begin(), grads.end(), 0.0f);
  ForwardOptions forward;
  forward.training = true;
  forward.dropout_seed = o.seed + static_cast<std::uint64_t>(steps_);
  const float loss = model_.forward(batch, forward);
  if (!std::isfinite(loss)) {
    // Finite weights that give a non-finite loss were made by the last update (a rate too high):
    // undo it too, back to the last weights whose loss was finite.
    if (undo_.valid) {
      undo_last_update();
      throw Error("step: the loss is " + value_string(loss) + " (the model diverged); the last update is undone too: " +
                  "the weights and optimizer state are those after step " + std::to_string(steps_));
    }
    throw Error("step: the loss is " + value_string(loss) + " (the model diverged); " + after);
  }
  model_.backward();
  // clip_grad_norm (with clip 0 it measures and scales by 1)
  const float norm =
      clip_grad_norm(grads.data(), segments_, o.clip > 0.0 ? o.clip : std::numeric_limits<double>::infinity());
  if (!std::isfinite(norm)) {
    throw Error("step: the gradient norm is " + value_string(norm) + " (the model diverged); " + after);
  }

  // The update, from a copy of everything it changes so a non-finite result can be undone.
  std::vector<float>& params = model_.params();
  params_backup_.assign(params.begin(), params.end());
  if (adamw) {
    update(adamw_, o.adamw, segments_, params, grads, lr);
  } else {
    update(sgd_, o.sgd, segments_, params, grads, lr);
  }
  const auto bad = std::find_if(params.begin(), params.end(), [](float v) { return !std::isfinite(v); });
  if (bad != params.end()) {
    const std::size_t at = static_cast<std::size_t>(bad - params.begin());
    std::string name = "?";
    for (const ParamEntry& e : model_.table().entries())
      if (at >= e.offset && at < e.offset + e.size) name = e.name;
    const std::string value = value_string(*bad);
    std::copy(params_backup_.begin(), params_backup_.end(), params.begin());
    adamw ? undo(adamw_) : undo(sgd_);
    undo_.valid = false;  // the backups now hold these weights, not the ones before the last update
    throw Error("step: the update made " + name + " " + value + " (the model diverged; lower lr); " + after);
  }
  // Committed: a fresh optimizer replaces the other kind's state.
  const bool fresh = adamw_.fresh || sgd_.fresh;
  undo_ = {true, fresh, o.optimizer};
  if (adamw_.fresh) clear(sgd_), adamw_.current = std::move(adamw_.fresh);
  if (sgd_.fresh) clear(adamw_), sgd_.current = std::move(sgd_.fresh);
  ++steps_;
  return StepResult{loss, norm, lr, steps_};
}

void Trainer::undo_last_update() {
  std::vector<float>& params = model_.params();
  std::copy(params_backup_.begin(), params_backup_.end(), params.begin());
  if (undo_.fresh_optimizer) {
    clear(adamw_), clear(sgd_);
  } else if (undo_.optimizer == OptimizerKind::kAdamW) {
    undo(adamw_);
  } else {
    undo(sgd_);
  }
  --steps_;
  undo_.valid = false;
}

}  // namespace attn::model

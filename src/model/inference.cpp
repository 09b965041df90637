// One sequence through the model with a KV cache, its capture, and sampling (inference.h).
// Legend: P cached tokens, n new rows, K = P + n keys, C n_embd, H n_head, hs head size,
// V vocab_size, L n_layer.
#include "model/inference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>

#include "core/head.h"
#include "core/messages.h"
#include "core/torch_random.h"
#include "model/layers.h"

namespace attn::model {

namespace {

// `list` (ascending, unique, each in [0, count)) or, when empty, 0 … count − 1.
std::vector<int> chosen(const std::vector<int>& list, int count, const char* name) {
  if (list.empty()) {
    std::vector<int> all(static_cast<std::size_t>(count));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] < 0 || list[i] >= count || (i > 0 && list[i] <= list[i - 1])) {
      throw Error(std::string(name) + "[" + std::to_string(i) + "]: " + std::to_string(list[i]) +
                  " — expected ascending, distinct indices in [0, " + std::to_string(count) + ")");
    }
  }
  return list;
}

int index_in(const std::vector<int>& list, int value) {
  const auto at = std::lower_bound(list.begin(), list.end(), value);
  return at != list.end() && *at == value ? static_cast<int>(at - list.begin()) : -1;
}

// The edits' first block and heads name blocks that run and heads that exist; from a block above
// 0 the stream is given and the cache is empty (L blocks of H heads, P tokens cached).
void check_edits(const ForwardEdits& edits, int L, int H, int P) {
  const int first = edits.first_layer;
  if (first < 0 || first > L) {
    throw Error("first_layer: expected 0 ≤ first_layer ≤ n_layer = " + std::to_string(L) + ", got " +
                std::to_string(first));
  }
  if (first > 0 && !edits.stream) throw Error("stream: required (n, C) when first_layer > 0");
  if (first > 0 && P > 0) {
    throw Error("first_layer: a forward from block " + std::to_string(first) + " needs an empty cache; " +
                std::to_string(P) + " tokens are cached");
  }
  for (std::size_t i = 0; i < edits.heads.size(); ++i) {
    const ForwardEdits::Head& e = edits.heads[i];
    const std::string at = "heads[" + std::to_string(i) + "]";
    if (e.layer < first || e.layer >= L) {
      throw Error(at + ".layer: expected " + std::to_string(first) + " ≤ layer < n_layer = " + std::to_string(L) +
                  " (the blocks that run), got " + std::to_string(e.layer));
    }
    if (e.head < 0 || e.head >= H) {
      throw Error(at + ".head: expected 0 ≤ head < n_head = " + std::to_string(H) + ", got " + std::to_string(e.head));
    }
  }
}

// Pass 7b: the edits' heads of block l, replaced in the merged heads y (n, C) before c_proj —
// by their value (hs) or by zeros.
void replace_heads(float* y, const ForwardEdits& edits, int l, int n, int C, int hs) {
  for (const ForwardEdits::Head& e : edits.heads) {
    if (e.layer != l) continue;
    for (int i = 0; i < n; ++i) {
      float* row = y + static_cast<std::size_t>(i) * C + static_cast<std::size_t>(e.head) * hs;
      if (e.value) {
        std::copy(e.value, e.value + hs, row);
      } else {
        std::fill(row, row + hs, 0.0f);
      }
    }
  }
}

// An empty capture of n rows over K keys, its buffers sized for what `request` asks of the
// chosen layers and heads (L blocks, width C, head size hs).
SequenceCapture empty_capture(const CaptureRequest& request, const std::vector<int>& layers,
                              const std::vector<int>& heads, int n, int K, int L, int C, int hs) {
  const std::size_t nC = static_cast<std::size_t>(n) * C;
  SequenceCapture out;
  out.rows = n, out.keys = K, out.layers = layers, out.heads = heads;
  if (request.qkv || request.scores || request.weights) {
    out.attention.resize(layers.size());
    const std::size_t Hc = heads.size();
    for (SequenceCapture::Layer& c : out.attention) {
      if (request.qkv) {
        c.q.resize(Hc * n * hs), c.k.resize(Hc * K * hs), c.v.resize(Hc * K * hs);
      }
      if (request.scores) c.scores.resize(Hc * n * K);
      if (request.weights) c.weights.resize(Hc * n * K);
    }
  }
  if (request.residual) out.residual.resize(static_cast<std::size_t>(L + 1) * nC);
  if (request.after_attention) out.after_attention.resize(static_cast<std::size_t>(L) * nC);
  if (request.z) out.z.resize(static_cast<std::size_t>(L) * nC);
  if (request.mlp_out) out.mlp_out.resize(static_cast<std::size_t>(L) * nC);
  return out;
}

// A capture beyond kMaxCaptureFloats is refused, naming what it would hold.
void check_capture_size(const ModelConfig& cfg, const std::vector<int>& layers, const std::vector<int>& heads, int n,
                        int K, const CaptureRequest& request) {
  const long long floats = capture_floats(cfg, n, K, request);
  if (floats > kMaxCaptureFloats) {
    throw Error("capture: " + std::to_string(layers.size()) + " layers × " + std::to_string(heads.size()) +
                " heads over " + std::to_string(n) + " × " + std::to_string(K) + " tokens need " +
                std::to_string(floats) + " floats; at most " + std::to_string(kMaxCaptureFloats) +
                " (2^26): ask for fewer layers or heads, or leave out scores and weights");
  }
}

}  // namespace

long long capture_floats(const ModelConfig& c, int rows, int keys, const CaptureRequest& r) {
  const long long n = rows, K = keys, H = r.heads.empty() ? c.n_head : static_cast<long long>(r.heads.size());
  const long long layers = r.layers.empty() ? c.n_layer : static_cast<long long>(r.layers.size());
  const long long hs = c.n_embd / c.n_head;
  long long per_layer = 0;
  if (r.qkv) per_layer += H * (n + 2 * K) * hs;
  if (r.scores) per_layer += H * n * K;
  if (r.weights) per_layer += H * n * K;
  long long total = layers * per_layer;
  if (r.residual) total += (c.n_layer + 1LL) * n * c.n_embd;
  if (r.after_attention) total += static_cast<long long>(c.n_layer) * n * c.n_embd;
  if (r.z) total += static_cast<long long>(c.n_layer) * n * c.n_embd;
  if (r.mlp_out) total += static_cast<long long>(c.n_layer) * n * c.n_embd;
  if (r.logits == LogitRows::kLast) total += c.vocab_size;
  if (r.logits == LogitRows::kAll) total += n * c.vocab_size;
  return total;
}

// ---------------------------------------------------------------------------------------------
// CachedSequence

CachedSequence::CachedSequence(const Gpt& model, int capacity, Kernel kernel)
    : model_(model), capacity_(capacity), kernel_(kernel) {
  const ModelConfig& c = model.config();
  if (capacity < 1 || capacity > c.block_size) {
    throw Error("capacity: expected 1 ≤ capacity ≤ block_size = " + std::to_string(c.block_size) + " tokens, got " +
                std::to_string(capacity));
  }
  const std::size_t per_layer = static_cast<std::size_t>(c.n_embd) * static_cast<std::size_t>(capacity);
  k_.assign(static_cast<std::size_t>(c.n_layer), std::vector<float>(per_layer));
  v_.assign(static_cast<std::size_t>(c.n_layer), std::vector<float>(per_layer));
}

void CachedSequence::append(const int* tokens, int n, const CaptureRequest& request, SequenceCapture& out,
                            const ForwardEdits* edits) {
  const ModelConfig& cfg = model_.config();
  const ParamTable& table = model_.table();
  const int C = cfg.n_embd, H = cfg.n_head, hs = C / H, V = cfg.vocab_size, L = cfg.n_layer;
  const int P = length_, K = P + n;
  const Captured captured = check_append(tokens, n, request, edits);  // before anything runs or changes
  const std::vector<int>& layers = captured.layers;
  const std::vector<int>& heads = captured.heads;
  const int first = edits ? edits->first_layer : 0;

  // P = 0 runs gpt.h's square pass 6 (tiled by kAuto's rule unless a head's scores or weights
  // are kept); P > 0 the rectangle, with the f32x4 products unless the reference was asked for.
  Kernel resolved = P == 0 ? resolve_kernel(kernel_, n, false) : kernel_ == Kernel::kAuto ? Kernel::kSimd : kernel_;
  const GptKernels& K_ = gpt_kernels(resolved);
  const AttendPlan plan{&K_, P == 0 && K_.tiled_forward != nullptr,
                        static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs))), P, K};  // alpha = 1/√hs
  // vectors as float32; the weight matrices as the model keeps them (float32, F16 or BF16)
  auto param = [this](const ParamEntry* e) -> const float* { return model_.vector(e); };
  auto weight = [this](const ParamEntry* e) { return model_.weight(*e); };
  const std::size_t nC = static_cast<std::size_t>(n) * C;

  size_scratch(n, K);

  out = empty_capture(request, layers, heads, n, K, L, C, hs);
  // Timing, when asked: what runs inside a `timed` call counts towards one of the totals.
  const auto clock = request.clock_ms;
  const double started = clock ? clock() : 0.0;
  auto timed = [&](double& total_ms, auto&& run) {
    if (!clock) return run();
    const double t0 = clock();
    run();
    total_ms += clock() - t0;
  };
  double& linear_ms = out.timings.linear_ms;
  double& attention_ms = out.timings.attention_ms;
  // The stream (n, C) at slot l of a capture the request asks for (residual: slot = blocks passed).
  auto keep = [&](bool asked, std::vector<float>& into, int l, const float* x) {
    if (asked) std::copy(x, x + nC, into.begin() + static_cast<std::ptrdiff_t>(l * nC));
  };

  embed(tokens, n, edits);  // 1.
  keep(request.residual, out.residual, first, x_.data());

  for (int l = first; l < L; ++l) {
    const BlockEntries& E = table.block(l);
    const int li = index_in(layers, l);
    SequenceCapture::Layer* kept =
        li >= 0 && !out.attention.empty() ? &out.attention[static_cast<std::size_t>(li)] : nullptr;

    // 3. ln_1;  4. c_attn
    const float* a = x_.data();
    if (cfg.layer_norm) {
      layernorm_forward_ref<float>(a_.data(), nullptr, nullptr, x_.data(), param(E.ln_1_weight), param(E.ln_1_bias), n,
                                   C, cfg.layer_norm_eps);
      a = a_.data();
    }
    timed(linear_ms,
          [&] { linear_forward(K_, qkv_.data(), a, weight(E.c_attn_weight), param(E.c_attn_bias), n, C, 3 * C); });

    timed(attention_ms, [&] { attend_heads(plan, l, n, kept, heads, request); });
    // 7b. the edits' heads, replaced before c_proj
    if (edits) replace_heads(y_.data(), *edits, l, n, C, hs);
    keep(request.z, out.z, l, y_.data());
    // 8. c_proj (into mid, or a without the MLP);  9. residual: x + z
    timed(linear_ms, [&] {
      linear_forward(K_, cfg.mlp ? mid_.data() : a_.data(), y_.data(), weight(E.attn_proj_weight),
                     param(E.attn_proj_bias), n, C, C);
    });
    if (cfg.mlp) {
      residual_forward_ref<float>(mid_.data(), x_.data(), mid_.data(), static_cast<long long>(nC));
      keep(request.after_attention, out.after_attention, l, mid_.data());
      // 10. ln_2;  11. c_fc, GELU;  12. c_proj;  13. residual
      const float* a2 = mid_.data();
      if (cfg.layer_norm) {
        layernorm_forward_ref<float>(a_.data(), nullptr, nullptr, mid_.data(), param(E.ln_2_weight), param(E.ln_2_bias),
                                     n, C, cfg.layer_norm_eps);
        a2 = a_.data();
      }
      timed(linear_ms,
            [&] { linear_forward(K_, fc_.data(), a2, weight(E.c_fc_weight), param(E.c_fc_bias), n, C, 4 * C); });
      (cfg.gelu == Gelu::kTanh ? K_.gelu_tanh_forward : K_.gelu_forward)(act_.data(), fc_.data(),
                                                                         static_cast<std::ptrdiff_t>(4 * nC));
      timed(linear_ms, [&] {
        linear_forward(K_, x_.data(), act_.data(), weight(E.mlp_proj_weight), param(E.mlp_proj_bias), n, 4 * C, C);
      });
      keep(request.mlp_out, out.mlp_out, l, x_.data());
      residual_forward_ref<float>(x_.data(), mid_.data(), x_.data(), static_cast<long long>(nC));
    } else {
      residual_forward_ref<float>(x_.data(), x_.data(), a_.data(), static_cast<long long>(nC));
      keep(request.after_attention, out.after_attention, l, x_.data());
    }
    keep(request.residual, out.residual, l + 1, x_.data());
  }

  // 14. ln_f;  15. lm_head, for the rows asked for
  if (request.logits != LogitRows::kNone) {
    const int first = request.logits == LogitRows::kLast ? n - 1 : 0, rows = n - first;
    const float* h = x_.data() + static_cast<std::size_t>(first) * C;
    if (cfg.layer_norm) {
      layernorm_forward_ref<float>(a_.data(), nullptr, nullptr, h, param(table.ln_f_weight()), param(table.ln_f_bias()),
                                   rows, C, cfg.layer_norm_eps);
      h = a_.data();
    }
    out.logits.resize(static_cast<std::size_t>(rows) * V);
    timed(linear_ms, [&] { linear_forward(K_, out.logits.data(), h, weight(&table.wte()), nullptr, rows, C, V); });
  }
  if (first == 0) length_ = K;  // from a block above 0 the cache below was not filled
  if (clock) {
    out.timings.measured = true;
    out.timings.total_ms = clock() - started;
  }
}

// Everything an append checks before anything runs or changes (see append): the tokens, the
// request, the edits and the capture's size; returns the layers and the heads it captures.
CachedSequence::Captured CachedSequence::check_append(const int* tokens, int n, const CaptureRequest& request,
                                                      const ForwardEdits* edits) const {
  const ModelConfig& cfg = model_.config();
  const int P = length_, L = cfg.n_layer, H = cfg.n_head;
  if (!tokens) throw Error("tokens: required");
  if (n < 1 || n > capacity_ - P) {
    throw Error("tokens: " + std::to_string(P) + " cached + " + std::to_string(n) + " new exceed the capacity of " +
                std::to_string(capacity_) + " tokens (expected 1 ≤ n ≤ " + std::to_string(capacity_ - P) + ")");
  }
  check_tokens(tokens, n, cfg.vocab_size, "tokens");
  if (request.mlp_out && !cfg.mlp) throw Error("mlp_out: this model has no MLP (mlp = false)");
  if (edits) check_edits(*edits, L, H, P);
  std::vector<int> layers = chosen(request.layers, L, "layers");
  std::vector<int> heads = chosen(request.heads, H, "heads");
  check_capture_size(cfg, layers, heads, n, P + n, request);
  return {std::move(layers), std::move(heads)};
}

// 1. embed (n rows at positions P … P + n − 1, P = the cached length) into x_ (n, C):
// x = wte[token] + wpe[P + i], from the weights as the model keeps them (float32, F16 or BF16) — or the
// edits' stream, entering block edits->first_layer.
void CachedSequence::embed(const int* tokens, int n, const ForwardEdits* edits) {
  const int C = model_.config().n_embd;
  const std::size_t at = static_cast<std::size_t>(length_) * C;
  if (edits && edits->stream) {
    std::copy(edits->stream, edits->stream + static_cast<std::size_t>(n) * C, x_.begin());
    return;
  }
  const ParamTable& table = model_.table();
  const Gpt::WeightRef wte = model_.weight(table.wte()), wpe = model_.weight(table.wpe());
  if (wte.f16) {
    embedding_forward_panels(x_.data(), tokens, wte.f16, wpe.f16 + at, 1, n, C, model_.config().vocab_size);
  } else if (wte.bf16) {
    embedding_forward_panels(x_.data(), tokens, wte.bf16, wpe.bf16 + at, 1, n, C, model_.config().vocab_size);
  } else if (wte.panels) {
    embedding_forward_panels(x_.data(), tokens, wte.f32, wpe.f32 + at, 1, n, C, model_.config().vocab_size);
  } else {
    embedding_forward_ref<float>(x_.data(), tokens, wte.f32, wpe.f32 + at, 1, n, C);
  }
}

// The scratch buffers for an append of n rows over K keys (P = K − n cached): grown, never shrunk.
void CachedSequence::size_scratch(int n, int K) {
  const ModelConfig& cfg = model_.config();
  const int C = cfg.n_embd, hs = C / cfg.n_head, P = K - n;
  const std::size_t nC = static_cast<std::size_t>(n) * C;
  x_.resize(nC), a_.resize(nC), qkv_.resize(3 * nC), y_.resize(nC), mid_.resize(nC);
  q_.resize(static_cast<std::size_t>(n) * hs), head_out_.resize(q_.size());
  fc_.resize(cfg.mlp ? 4 * nC : 0), act_.resize(fc_.size());
  if (P == 0) {
    square_.resize(static_cast<std::size_t>(n) * n), lse_.resize(static_cast<std::size_t>(n));
  } else {
    rows_.resize(static_cast<std::size_t>(n) * K);
  }
}

// Passes 5–7 of block l for the n new rows: each head's q, its k and v rows [P, P + n) into the
// cache, attention over the K = P + n keys, and the heads merged into y_ (n, C); the chosen heads'
// q, k, v, scores and weights into `kept` (the layer's capture, or null) as `request` asks.
void CachedSequence::attend_heads(const AttendPlan& plan, int l, int n, SequenceCapture::Layer* kept,
                                  const std::vector<int>& heads, const CaptureRequest& request) {
  const ModelConfig& cfg = model_.config();
  const int C = cfg.n_embd, H = cfg.n_head, hs = C / H, P = plan.P, K = plan.K;
  const std::size_t cap = static_cast<std::size_t>(capacity_);
  const KernelTable& products = *plan.kernels->attention;
  const float alpha = plan.alpha;
  float* kc = k_[static_cast<std::size_t>(l)].data();
  float* vc = v_[static_cast<std::size_t>(l)].data();
  for (int h = 0; h < H; ++h) {
    // 5. split: q (n, hs); this head's k and v rows [P, P + n) into the cache
    float* kh = kc + static_cast<std::size_t>(h) * cap * hs;
    float* vh = vc + static_cast<std::size_t>(h) * cap * hs;
    for (int i = 0; i < n; ++i) {
      const float* row = qkv_.data() + static_cast<std::size_t>(i) * 3 * C + static_cast<std::size_t>(h) * hs;
      std::copy(row, row + hs, q_.data() + static_cast<std::size_t>(i) * hs);
      std::copy(row + C, row + C + hs, kh + static_cast<std::size_t>(P + i) * hs);
      std::copy(row + 2 * C, row + 2 * C + hs, vh + static_cast<std::size_t>(P + i) * hs);
    }
    const int hi = kept ? index_in(heads, h) : -1;
    float* keep_scores =
        hi >= 0 && request.scores ? kept->scores.data() + static_cast<std::size_t>(hi) * n * K : nullptr;
    float* keep_weights =
        hi >= 0 && request.weights ? kept->weights.data() + static_cast<std::size_t>(hi) * n * K : nullptr;

    // 6. attend: the n query rows against the K keys
    if (P == 0) {
      HeadInputs in;
      in.q = q_.data(), in.k = kh, in.v = vh, in.alpha = alpha, in.causal = true, in.T = n, in.hk = hs, in.hv = hs;
      if (plan.tiled && !keep_scores && !keep_weights) {
        plan.kernels->tiled_forward(head_out_.data(), lse_.data(), in.q, in.k, in.v, nullptr, n, hs, hs, alpha, true);
      } else {
        HeadIntermediates intermediates;
        intermediates.scores = keep_scores, intermediates.weights = keep_weights;
        head_forward(head_out_.data(), intermediates, square_.data(), in, products);
      }
    } else {
      constexpr float kMinus = -std::numeric_limits<float>::infinity();
      float* s = rows_.data();
      // 6a. scores = q·kᵀ over every cached key;  6b. scale, and −∞ for the future
      products.matmul_nt(s, q_.data(), kh, nullptr, n, hs, K);
      if (keep_scores) std::copy(s, s + static_cast<std::size_t>(n) * K, keep_scores);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < K; ++j) {
          float& v = s[static_cast<std::size_t>(i) * K + j];
          v = j > P + i ? kMinus : v * alpha;
        }
      // 6c. softmax of each row;  6d. weights · v
      products.softmax_rows(s, n, K, false);
      if (keep_weights) std::copy(s, s + static_cast<std::size_t>(n) * K, keep_weights);
      products.matmul(head_out_.data(), s, vh, nullptr, n, K, hs);
    }
    if (hi >= 0 && request.qkv) {
      std::copy(q_.begin(), q_.end(), kept->q.begin() + static_cast<std::ptrdiff_t>(hi) * n * hs);
      std::copy(kh, kh + static_cast<std::size_t>(K) * hs, kept->k.begin() + static_cast<std::ptrdiff_t>(hi) * K * hs);
      std::copy(vh, vh + static_cast<std::size_t>(K) * hs, kept->v.begin() + static_cast<std::ptrdiff_t>(hi) * K * hs);
    }
    // 7. merge
    for (int i = 0; i < n; ++i) {
      const float* from = head_out_.data() + static_cast<std::size_t>(i) * hs;
      std::copy(from, from + hs, y_.data() + static_cast<std::size_t>(i) * C + static_cast<std::size_t>(h) * hs);
    }
  }
}

SequenceCapture trace_sequence(const Gpt& model, const std::vector<int>& tokens, const CaptureRequest& request,
                               Kernel kernel) {
  const int T = static_cast<int>(std::min<std::size_t>(tokens.size(), 1u << 30));
  if (T < 1 || T > model.config().block_size) {
    throw Error("tokens: expected 1 to block_size = " + std::to_string(model.config().block_size) + " token ids, got " +
                std::to_string(tokens.size()));
  }
  CachedSequence sequence(model, T, kernel);
  SequenceCapture out;
  sequence.append(tokens.data(), T, request, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The next token

void check_sampling(const SamplingOptions& o, int V) {
  if (!(o.temperature >= 0.0) || !std::isfinite(o.temperature)) {
    throw Error("temperature: expected a finite number ≥ 0 (0: always the most likely token), got " +
                number_string(o.temperature));
  }
  if (o.top_k < 0 || o.top_k > V) {
    throw Error("topK: expected an integer in [0, " + std::to_string(V) + "] (0: no cut), got " +
                std::to_string(o.top_k));
  }
  if (!(o.top_p > 0.0 && o.top_p <= 1.0)) {
    throw Error("topP: expected 0 < topP ≤ 1 (1: no cut), got " + number_string(o.top_p));
  }
}

std::vector<float> next_token_probs(const float* row, int V, const SamplingOptions& o) {
  // No logits, no most likely token: row[best] would read past the row (tests/fuzz F8).
  if (V < 1) throw Error("logits: expected the logits of at least one token (V ≥ 1), got " + std::to_string(V));
  // NaN or ±∞ would make every probability NaN (∞ − ∞), and sampling draw any token (F10).
  for (int v = 0; v < V; ++v)
    if (!std::isfinite(row[v]))
      throw Error("logits[" + std::to_string(v) + "]: must be finite, got " + number_string(row[v]));
  check_sampling(o, V);
  std::vector<float> probs(static_cast<std::size_t>(V), 0.0f);
  const int best = static_cast<int>(std::max_element(row, row + V) - row);  // the first of equal maxima
  if (o.temperature == 0.0) {
    probs[static_cast<std::size_t>(best)] = 1.0f;
    return probs;
  }
  // top-k: logits below the k-th largest become −∞ (ties at the k-th kept)
  float floor = -std::numeric_limits<float>::infinity();
  if (o.top_k > 0 && o.top_k < V) {
    std::vector<float> sorted(row, row + V);
    std::nth_element(sorted.begin(), sorted.begin() + (o.top_k - 1), sorted.end(), std::greater<float>());
    floor = sorted[static_cast<std::size_t>(o.top_k - 1)];
  }
  // softmax(logits / temperature), shifted by the max first so tiny temperatures stay finite
  std::vector<double> weights(static_cast<std::size_t>(V));
  const double max = row[best];
  double sum = 0.0;
  for (int v = 0; v < V; ++v) {
    weights[v] = row[v] < floor ? 0.0 : std::exp((row[v] - max) / o.temperature);
    sum += weights[v];
  }
  // top-p: ascending by probability, drop while the running sum stays ≤ 1 − p; the most likely
  // (the last) always stays. Ties: the larger id counts as less likely.
  if (o.top_p < 1.0) {
    std::vector<int> order;
    for (int v = 0; v < V; ++v)
      if (weights[v] > 0.0) order.push_back(v);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return row[a] != row[b] ? row[a] < row[b] : a > b; });
    double running = 0.0, kept = 0.0;
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      running += weights[order[i]] / sum;
      if (running > 1.0 - o.top_p) break;
      weights[order[i]] = 0.0;
    }
    for (double w : weights) kept += w;
    sum = kept;
  }
  // held in float as torch holds probs
  for (int v = 0; v < V; ++v) probs[v] = static_cast<float>(weights[v] / sum);
  return probs;
}

int sample_token(const float* row, int V, const SamplingOptions& o, TorchGenerator& generator) {
  const std::vector<float> probs = next_token_probs(row, V, o);
  if (o.temperature == 0.0) return static_cast<int>(std::max_element(row, row + V) - row);
  // torch.multinomial(probs, num_samples=1), drawn as torch 1.13 draws one sample on the CPU:
  // q = empty_like(probs).exponential_(1) — for each of the V entries in order one random64(),
  // u = (word & (2^53 − 1)) · 2^−53 and q = float(−log(1 − u)) — then argmax(probs / q), the
  // first of equal maxima (a race of exponential clocks: P(v wins) = probs[v]).
  float best = -1.0f;
  int next = 0;
  for (int v = 0; v < V; ++v) {
    const double u = static_cast<double>(generator.random64() & ((std::uint64_t{1} << 53) - 1)) * 0x1.0p-53;
    const float q = static_cast<float>(-std::log(1.0 - u));
    const float ratio = probs[static_cast<std::size_t>(v)] / q;
    if (ratio > best) best = ratio, next = v;
  }
  return next;
}

std::vector<int> top_tokens(const std::vector<float>& probs, int k) {
  std::vector<int> order(probs.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t m = std::min<std::size_t>(static_cast<std::size_t>(std::max(k, 0)), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m), order.end(),
                    [&](int a, int b) { return probs[a] != probs[b] ? probs[a] > probs[b] : a < b; });
  order.resize(m);
  return order;
}

// ---------------------------------------------------------------------------------------------
// Generation

namespace {

constexpr int kMaxGenerate = 1 << 16;

void check_prompt(const std::vector<int>& prompt, int V) {
  if (prompt.empty()) throw Error("prompt: expected at least one token id");
  if (prompt.size() > static_cast<std::size_t>(kMaxGenerate)) {
    throw Error("prompt: expected at most 65536 token ids, got " + std::to_string(prompt.size()));
  }
  check_tokens(prompt.data(), static_cast<long long>(prompt.size()), V, "prompt");
}

SamplingOptions sampling_of(const GenerateOptions& o) { return {o.temperature, o.top_k, o.top_p}; }

}  // namespace

std::vector<int> generate(Gpt& model, const std::vector<int>& prompt, int count, const GenerateOptions& o) {
  const ModelConfig& cfg = model.config();
  const int V = cfg.vocab_size;
  check_prompt(prompt, V);
  if (count < 0 || count > kMaxGenerate) {
    throw Error("count: expected 0 ≤ count ≤ 65536 new tokens, got " + std::to_string(count));
  }
  check_sampling(sampling_of(o), V);
  TorchGenerator generator(o.seed);
  std::vector<int> context = prompt, out;
  out.reserve(static_cast<std::size_t>(count));
  for (int n = 0; n < count; ++n) {
    // nanoGPT: idx_cond = idx if it fits, else its last block_size tokens
    const int T = std::min(static_cast<int>(context.size()), cfg.block_size);
    Batch batch;
    batch.tokens = context.data() + (context.size() - static_cast<std::size_t>(T));
    batch.B = 1, batch.T = T;
    model.forward(batch);
    const float* row = model.logits().data() + static_cast<std::size_t>(T - 1) * V;
    const int next = sample_token(row, V, sampling_of(o), generator);
    context.push_back(next);
    out.push_back(next);
  }
  return out;
}

GenerationSession::~GenerationSession() = default;

GenerationSession::GenerationSession(const Gpt& model, const std::vector<int>& prompt, const GenerateOptions& options,
                                     Kernel kernel)
    : model_(model), options_(options), cache_(model, model.config().block_size, kernel) {
  check_prompt(prompt, model.config().vocab_size);
  check_sampling(sampling_of(options), model.config().vocab_size);
  generator_ = std::make_unique<TorchGenerator>(options.seed);
  tokens_ = prompt;
  run_context();
}

void GenerationSession::run_context() {
  // The last block_size tokens from an empty cache, the last of them alone so that its row of
  // attention weights is captured as a cached step's would be.
  const int T = std::min(static_cast<int>(tokens_.size()), cache_.capacity());
  const int* first = tokens_.data() + (tokens_.size() - static_cast<std::size_t>(T));
  CaptureRequest silent;
  silent.qkv = silent.scores = silent.weights = silent.residual = false;
  silent.logits = LogitRows::kNone;
  cache_.clear();
  if (T > 1) cache_.append(first, T - 1, silent, capture_);
  CaptureRequest last;
  last.qkv = last.scores = last.residual = false;
  cache_.append(first + T - 1, 1, last, capture_);
  logits_ = capture_.logits;
}

GenerationSession::Step GenerationSession::step(int forced) {
  const ModelConfig& c = model_.config();
  const int V = c.vocab_size, L = c.n_layer, H = c.n_head;
  if (forced >= V) {
    throw Error("token: " + std::to_string(forced) +
                " is not a token id; expected 0 ≤ id < vocab_size = " + std::to_string(V));
  }
  if (tokens_.size() >= static_cast<std::size_t>(kMaxGenerate) * 2) {
    throw Error("session: " + std::to_string(tokens_.size()) + " tokens; start a new session");
  }
  Step s;
  const std::vector<float> probs = next_token_probs(logits_.data(), V, sampling_of(options_));
  s.top_tokens = top_tokens(probs, 10);
  for (int t : s.top_tokens) s.top_probs.push_back(probs[static_cast<std::size_t>(t)]);
  s.token = forced >= 0 ? forced : sample_token(logits_.data(), V, sampling_of(options_), *generator_);
  tokens_.push_back(s.token);

  s.recomputed = cache_.length() == cache_.capacity();
  if (s.recomputed) {
    run_context();
  } else {
    CaptureRequest last;
    last.qkv = last.scores = last.residual = false;
    cache_.append(&s.token, 1, last, capture_);
    logits_ = capture_.logits;
  }
  s.keys = cache_.length();
  s.position = s.keys - 1;
  s.attention.reserve(static_cast<std::size_t>(L) * H * s.keys);
  for (const SequenceCapture::Layer& layer : capture_.attention)
    s.attention.insert(s.attention.end(), layer.weights.begin(), layer.weights.end());

  const long long C = c.n_embd, keys = s.keys, lin = c.mlp ? 12 : 4;
  s.macs_full = L * (lin * C * C * keys + C * keys * (keys + 1)) + C * V;
  s.macs_cached = s.recomputed ? s.macs_full : L * (lin * C * C + 2 * C * keys) + C * V;
  return s;
}

}  // namespace attn::model

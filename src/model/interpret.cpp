// Knocking out heads, direct logit attribution and the logit lens (interpret.h), over
// CachedSequence's forward (inference.h) with its ForwardEdits.
// Legend: T tokens, R reference tokens, n rows run, L n_layer, H n_head, hs head size, C n_embd,
// V vocab_size, p position, c token, c′ other.
#include "model/interpret.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "model/inference.h"
#include "model/layers.h"

namespace attn::model {

const char* ablation_mode_name(AblationMode mode) { return mode == AblationMode::kMean ? "mean" : "zero"; }

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// Checks, each naming its argument

void check_sequence(const ModelConfig& cfg, const int* tokens, int T, const char* name) {
  if (!tokens) throw Error(std::string(name) + ": required");
  if (T < 1 || T > cfg.block_size) {
    throw Error(std::string(name) + ": expected 1 to block_size = " + std::to_string(cfg.block_size) +
                " token ids, got " + std::to_string(T));
  }
  check_tokens(tokens, T, cfg.vocab_size, name);
}

void check_index(int value, int count, const char* name, const char* what) {
  if (value < 0 || value >= count) {
    throw Error(std::string(name) + ": expected 0 ≤ " + name + " < " + what + " = " + std::to_string(count) + ", got " +
                std::to_string(value));
  }
}

void check_token(int token, int V, const char* name) {
  if (token < 0 || token >= V) {
    throw Error(std::string(name) + ": " + std::to_string(token) +
                " is not a token id; expected 0 ≤ id < vocab_size = " + std::to_string(V));
  }
}

// A mean ablation's reference text, before anything runs.
void check_ablation(const ModelConfig& cfg, const AblationOptions& o) {
  if (o.mode != AblationMode::kMean) return;
  if (o.reference.empty()) {
    throw Error("reference: mean ablation needs a reference text; expected 1 to block_size = " +
                std::to_string(cfg.block_size) + " token ids, got 0");
  }
  check_sequence(cfg, o.reference.data(), static_cast<int>(std::min<std::size_t>(o.reference.size(), 1u << 30)),
                 "reference");
}

// ---------------------------------------------------------------------------------------------
// Forwards

// A request that keeps nothing (the caller turns on what it reads).
CaptureRequest keep_nothing() {
  CaptureRequest r;
  r.qkv = r.scores = r.weights = r.residual = false;
  r.logits = LogitRows::kNone;
  return r;
}

SequenceCapture run(const Gpt& model, const int* tokens, int n, const CaptureRequest& request, Kernel kernel) {
  CachedSequence sequence(model, n, kernel);
  SequenceCapture out;
  sequence.append(tokens, n, request, out);
  return out;
}

// log p(c) of one row of logits (V): −cross_entropy, layers.h's fused softmax.
float log_prob(const float* row, int V, int c, std::vector<float>& scratch) {
  scratch.resize(static_cast<std::size_t>(V));
  float loss = 0;
  cross_entropy_forward_ref<float>(scratch.data(), &loss, row, &c, 1, V);
  return -loss;
}

// losses (n − 1) of the next tokens of logits (n, V) for tokens (n), and their mean (in double,
// as cross_entropy_forward_ref takes it); NaN when n = 1.
float next_token_losses(std::vector<float>& losses, const float* logits, const int* tokens, int n, int V,
                        std::vector<float>& scratch) {
  losses.assign(static_cast<std::size_t>(n - 1), 0.0f);
  if (n < 2) return kNaN;
  scratch.resize(static_cast<std::size_t>(V));
  double total = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    cross_entropy_forward_ref<float>(scratch.data(), &losses[static_cast<std::size_t>(i)],
                                     logits + static_cast<std::size_t>(i) * V, tokens + i + 1, 1, V);
    total += losses[static_cast<std::size_t>(i)];
  }
  return static_cast<float>(total / (n - 1));
}

// The value that replaces head (layer, head)'s z: null (zeros) or its row of the means (L, H, hs).
const float* replacement(const std::vector<float>& means, const ModelConfig& cfg, int layer, int head) {
  if (means.empty()) return nullptr;
  const int hs = cfg.n_embd / cfg.n_head;
  return means.data() + (static_cast<std::size_t>(layer) * cfg.n_head + head) * hs;
}

std::vector<float> means_for(const Gpt& model, const AblationOptions& o) {
  if (o.mode != AblationMode::kMean) return {};
  return mean_head_outputs(model, o.reference.data(), static_cast<int>(o.reference.size()), o.kernel);
}

}  // namespace

std::vector<float> mean_head_outputs(const Gpt& model, const int* reference, int R, Kernel kernel) {
  // out: (L, H, hs) = mean over the R rows of each block's z (R, C), whose columns are the heads'
  const ModelConfig& cfg = model.config();
  check_sequence(cfg, reference, R, "reference");
  CaptureRequest request = keep_nothing();
  request.z = true;
  const SequenceCapture capture = run(model, reference, R, request, kernel);
  const int L = cfg.n_layer, C = cfg.n_embd;
  std::vector<float> means(static_cast<std::size_t>(L) * C);
  for (int l = 0; l < L; ++l) {
    const float* z = capture.z.data() + static_cast<std::size_t>(l) * R * C;
    for (int j = 0; j < C; ++j) {
      double sum = 0.0;
      for (int i = 0; i < R; ++i) sum += z[static_cast<std::size_t>(i) * C + j];
      means[static_cast<std::size_t>(l) * C + j] = static_cast<float>(sum / R);
    }
  }
  return means;
}

// ---------------------------------------------------------------------------------------------
// 1. One head knocked out

void ablate_head(HeadAblation& out, const Gpt& model, const int* tokens, int T, int layer, int head, int position,
                 bool all_logits, const AblationOptions& options) {
  const ModelConfig& cfg = model.config();
  const int V = cfg.vocab_size, C = cfg.n_embd, hs = C / cfg.n_head;
  check_sequence(cfg, tokens, T, "tokens");
  check_index(layer, cfg.n_layer, "layer", "n_layer");
  check_index(head, cfg.n_head, "head", "n_head");
  check_index(position, T, "position", "T");
  check_ablation(cfg, options);

  const std::vector<float> means = means_for(model, options);
  const float* value = replacement(means, cfg, layer, head);
  out = HeadAblation{};
  out.value = value ? std::vector<float>(value, value + hs) : std::vector<float>(static_cast<std::size_t>(hs), 0.0f);

  // Both forwards whole (every row, every block): the clean one, and the one with the head's z
  // replaced at every row — TransformerLens's run_with_hooks on hook_z.
  CaptureRequest request = keep_nothing();
  request.logits = LogitRows::kAll;
  CachedSequence sequence(model, T, options.kernel);
  SequenceCapture clean, ablated;
  sequence.append(tokens, T, request, clean);
  ForwardEdits edits;
  edits.heads.push_back({layer, head, value});
  sequence.clear();
  sequence.append(tokens, T, request, ablated, &edits);

  std::vector<float> scratch;
  out.loss = next_token_losses(out.losses, clean.logits.data(), tokens, T, V, scratch);
  out.ablated_loss = next_token_losses(out.ablated_losses, ablated.logits.data(), tokens, T, V, scratch);
  const std::size_t row = static_cast<std::size_t>(position) * V;
  out.probs = next_token_probs(clean.logits.data() + row, V, SamplingOptions{});
  out.ablated_probs = next_token_probs(ablated.logits.data() + row, V, SamplingOptions{});
  if (all_logits) {
    out.logits = std::move(clean.logits);
    out.ablated_logits = std::move(ablated.logits);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Every head knocked out in turn

void ablation_sweep(AblationSweep& out, const Gpt& model, const int* tokens, int T, int position, int token,
                    const SweepOptions& options) {
  const ModelConfig& cfg = model.config();
  const int V = cfg.vocab_size, C = cfg.n_embd, L = cfg.n_layer, H = cfg.n_head;
  check_sequence(cfg, tokens, T, "tokens");
  check_index(position, T, "position", "T");
  check_token(token, V, "token");
  check_ablation(cfg, options.ablation);
  std::vector<int> layers = options.layers;
  if (layers.empty()) {
    layers.resize(static_cast<std::size_t>(L));
    std::iota(layers.begin(), layers.end(), 0);
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i] < 0 || layers[i] >= L || (i > 0 && layers[i] <= layers[i - 1])) {
      throw Error("layers[" + std::to_string(i) + "]: " + std::to_string(layers[i]) +
                  " — expected ascending, distinct blocks in [0, " + std::to_string(L) + ")");
    }
  }
  const std::vector<float> means = means_for(model, options.ablation);

  // The rows that run: with the loss, all of them; for the prediction at p alone, 0 … p, whose
  // last row is p (causal attention: no row ≤ p sees a later token).
  const int n = options.loss ? T : position + 1;
  CaptureRequest request = keep_nothing();
  request.logits = options.loss ? LogitRows::kAll : LogitRows::kLast;
  const std::size_t row_p = options.loss ? static_cast<std::size_t>(position) * V : 0;
  CaptureRequest clean_request = request;
  clean_request.residual = options.reuse;  // the stream before every block, (L + 1, n, C)

  out = AblationSweep{};
  out.layers = layers;
  std::vector<float> scratch, losses;
  CachedSequence sequence(model, n, options.ablation.kernel);
  SequenceCapture clean, ablated;
  sequence.append(tokens, n, clean_request, clean);
  out.log_prob = log_prob(clean.logits.data() + row_p, V, token, scratch);
  if (options.loss) out.loss = next_token_losses(losses, clean.logits.data(), tokens, n, V, scratch);

  out.ablated_log_prob.assign(static_cast<std::size_t>(L) * H, kNaN);
  if (options.loss) out.ablated_loss.assign(static_cast<std::size_t>(L) * H, kNaN);
  ForwardEdits edits;
  edits.heads.resize(1);
  for (int l : layers) {
    // Reuse: the stream before block l does not depend on a head of block l or above.
    edits.first_layer = options.reuse ? l : 0;
    edits.stream = options.reuse ? clean.residual.data() + static_cast<std::size_t>(l) * n * C : nullptr;
    for (int h = 0; h < H; ++h) {
      edits.heads[0] = {l, h, replacement(means, cfg, l, h)};
      sequence.clear();
      sequence.append(tokens, n, request, ablated, &edits);
      const std::size_t at = static_cast<std::size_t>(l) * H + h;
      out.ablated_log_prob[at] = log_prob(ablated.logits.data() + row_p, V, token, scratch);
      if (options.loss) out.ablated_loss[at] = next_token_losses(losses, ablated.logits.data(), tokens, n, V, scratch);
      out.rows_run += static_cast<long long>(n) * (L - edits.first_layer);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Direct logit attribution

void attribute_logit(LogitAttribution& out, const Gpt& model, const int* tokens, int T, int position, int token,
                     int other, Kernel kernel) {
  const ModelConfig& cfg = model.config();
  const ParamTable& table = model.table();
  const int V = cfg.vocab_size, C = cfg.n_embd, L = cfg.n_layer, H = cfg.n_head, hs = C / H;
  check_sequence(cfg, tokens, T, "tokens");
  check_index(position, T, "position", "T");
  check_token(token, V, "token");
  if (other != -1) check_token(other, V, "other");

  // The clean run of rows 0 … p: the stream, every block's z and MLP output, the logits of row p.
  const int n = position + 1, p = position;
  CaptureRequest request = keep_nothing();
  request.residual = true, request.z = true, request.mlp_out = cfg.mlp;
  request.logits = LogitRows::kLast;
  const SequenceCapture clean = run(model, tokens, n, request, kernel);

  auto param = [&model](const ParamEntry* e) -> const float* { return model.vector(e); };
  const float* ln_w = cfg.layer_norm ? model.vector(table.ln_f_weight()) : nullptr;
  const float* ln_b = cfg.layer_norm ? model.vector(table.ln_f_bias()) : nullptr;
  // W_U's rows of the two tokens (wte, tied), as float32 in either precision
  std::vector<float> row(static_cast<std::size_t>(C)), other_row(row.size());
  model.read_row(table.wte(), token, row.data());
  if (other >= 0) model.read_row(table.wte(), other, other_row.data());
  const std::size_t nC = static_cast<std::size_t>(n) * C, pC = static_cast<std::size_t>(p) * C;

  // The unembedding direction u = W_U[c] − W_U[c′], and d = ln_f.weight ⊙ u (C)
  std::vector<double> u(static_cast<std::size_t>(C)), d(u.size());
  for (int i = 0; i < C; ++i) {
    u[i] = row[static_cast<std::size_t>(i)];
    if (other >= 0) u[i] -= other_row[static_cast<std::size_t>(i)];
    d[i] = ln_w ? ln_w[i] * u[i] : u[i];
  }
  // The frozen scale: √(var + eps) of the clean stream at p (biased variance, as LayerNorm)
  const float* x = clean.residual.data() + static_cast<std::size_t>(L) * nC + pC;
  double scale = 1.0;
  if (cfg.layer_norm) {
    double mean = 0.0, var = 0.0;
    for (int i = 0; i < C; ++i) mean += x[i];
    mean /= C;
    for (int i = 0; i < C; ++i) var += (x[i] - mean) * (x[i] - mean);
    scale = std::sqrt(var / C + cfg.layer_norm_eps);
  }
  // apply_ln_to_stack and the dot product: (r − mean(r)) / scale · d (no centring without LayerNorm)
  std::vector<double> r(static_cast<std::size_t>(C));
  auto attribution = [&]() {
    double mean = 0.0, dot = 0.0;
    if (cfg.layer_norm) {
      for (double v : r) mean += v;
      mean /= C;
    }
    for (int i = 0; i < C; ++i) dot += (r[i] - mean) * d[i];
    return dot / scale;
  };
  auto of_floats = [&](const float* v) {
    std::copy(v, v + C, r.begin());
    return attribution();
  };

  out = LogitAttribution{};
  double total = 0.0;
  out.heads.resize(static_cast<std::size_t>(L) * H);
  if (cfg.mlp) out.mlps.resize(static_cast<std::size_t>(L));
  std::vector<double> biases(static_cast<std::size_t>(C), 0.0);
  std::vector<float> w_o_rows(static_cast<std::size_t>(C) * C), embedding_row(static_cast<std::size_t>(C));
  for (int l = 0; l < L; ++l) {
    const BlockEntries& E = table.block(l);
    // W_O (C, C): (out, in), head h's inputs are columns h·hs …; as float32 in either precision
    for (int o = 0; o < C; ++o)
      model.read_row(*E.attn_proj_weight, o, w_o_rows.data() + static_cast<std::size_t>(o) * C);
    const float* w_o = w_o_rows.data();
    const float* z = clean.z.data() + static_cast<std::size_t>(l) * nC + pC;
    for (int h = 0; h < H; ++h) {
      // head (l, h)'s result: r[o] = Σ_j W_O[o, h·hs + j] · z[h·hs + j]
      for (int o = 0; o < C; ++o) {
        const float* w = w_o + static_cast<std::size_t>(o) * C + static_cast<std::size_t>(h) * hs;
        double sum = 0.0;
        for (int j = 0; j < hs; ++j) sum += static_cast<double>(w[j]) * z[h * hs + j];
        r[o] = sum;
      }
      const double a = attribution();
      out.heads[static_cast<std::size_t>(l) * H + h] = static_cast<float>(a);
      total += a;
    }
    if (const float* b = param(E.attn_proj_bias))
      for (int i = 0; i < C; ++i) biases[i] += b[i];
    if (cfg.mlp) {
      const double a = of_floats(clean.mlp_out.data() + static_cast<std::size_t>(l) * nC + pC);
      out.mlps[static_cast<std::size_t>(l)] = static_cast<float>(a);
      total += a;
    }
  }
  model.read_row(table.wte(), tokens[p], embedding_row.data());
  const double embed = of_floats(embedding_row.data());
  model.read_row(table.wpe(), p, embedding_row.data());
  const double pos_embed = of_floats(embedding_row.data());
  r = biases;
  const double attention_bias = attribution();
  total += embed + pos_embed + attention_bias;
  double ln_bias = 0.0;
  if (ln_b)
    for (int i = 0; i < C; ++i) ln_bias += ln_b[i] * u[i];

  out.embed = static_cast<float>(embed);
  out.pos_embed = static_cast<float>(pos_embed);
  out.attention_bias = static_cast<float>(attention_bias);
  out.ln_bias = static_cast<float>(ln_bias);
  out.scale = static_cast<float>(scale);
  out.total = static_cast<float>(total);
  out.logit = clean.logits[static_cast<std::size_t>(token)] -
              (other >= 0 ? clean.logits[static_cast<std::size_t>(other)] : 0.0f);
}

// ---------------------------------------------------------------------------------------------
// 4. The logit lens

void logit_lens(LogitLens& out, const Gpt& model, const int* tokens, int T, const LensOptions& options) {
  const ModelConfig& cfg = model.config();
  const ParamTable& table = model.table();
  const int V = cfg.vocab_size, C = cfg.n_embd, L = cfg.n_layer;
  check_sequence(cfg, tokens, T, "tokens");
  const int most = std::min(V, kMaxLensTop);
  if (options.k < 1 || options.k > most) {
    throw Error("k: expected 1 ≤ k ≤ " + std::to_string(most) + " top tokens, got " + std::to_string(options.k));
  }
  std::vector<int> positions = options.positions;
  if (positions.empty()) {
    positions.resize(static_cast<std::size_t>(T));
    std::iota(positions.begin(), positions.end(), 0);
  }
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] < 0 || positions[i] >= T || (i > 0 && positions[i] <= positions[i - 1])) {
      throw Error("positions[" + std::to_string(i) + "]: " + std::to_string(positions[i]) +
                  " — expected ascending, distinct positions in [0, " + std::to_string(T) + ")");
    }
  }
  const bool chosen = options.token != -1;
  if (chosen) {
    check_token(options.token, V, "token");
    check_index(options.position, T, "position", "T");
  } else if (options.position != -1) {
    throw Error("token: required with position " + std::to_string(options.position) + " (or position -1)");
  }

  // The stream of rows 0 … the last position read, (L + 1, n, C)
  const int n = std::max(positions.back(), chosen ? options.position : 0) + 1;
  CaptureRequest request = keep_nothing();
  request.residual = true;
  const SequenceCapture clean = run(model, tokens, n, request, options.kernel);

  // Passes 14–15 of the forward (inference.h) on any rows of the stream, with the kernels its last
  // row's logits were computed with (so the lens after the last block is the model's logits).
  const GptKernels& K = gpt_kernels(resolve_kernel(options.kernel, n, false));
  const float* ln_w = cfg.layer_norm ? model.vector(table.ln_f_weight()) : nullptr;
  const float* ln_b = cfg.layer_norm && table.ln_f_bias() ? model.vector(table.ln_f_bias()) : nullptr;
  const Gpt::WeightRef wte = model.weight(table.wte());
  constexpr int kRows = 16;  // rows unembedded at once: (16, V) of logits
  std::vector<float> x(static_cast<std::size_t>(kRows) * C), normed(x.size()),
      logits(static_cast<std::size_t>(kRows) * V);
  // rows: (layer, position) pairs; each gives its logits row to `use`
  auto unembed = [&](const std::vector<std::pair<int, int>>& rows, auto&& use) {
    for (std::size_t r0 = 0; r0 < rows.size(); r0 += kRows) {
      const int m = static_cast<int>(std::min<std::size_t>(kRows, rows.size() - r0));
      for (int i = 0; i < m; ++i) {
        const auto [l, t] = rows[r0 + static_cast<std::size_t>(i)];
        const float* from = clean.residual.data() + (static_cast<std::size_t>(l) * n + t) * C;
        std::copy(from, from + C, x.begin() + static_cast<std::ptrdiff_t>(i) * C);
      }
      const float* h = x.data();
      if (cfg.layer_norm) {
        layernorm_forward_ref<float>(normed.data(), nullptr, nullptr, x.data(), ln_w, ln_b, m, C, cfg.layer_norm_eps);
        h = normed.data();
      }
      linear_forward(K, logits.data(), h, wte, nullptr, m, C, V);
      for (int i = 0; i < m; ++i)
        use(r0 + static_cast<std::size_t>(i), logits.data() + static_cast<std::size_t>(i) * V);
    }
  };
  // log Σ exp of a row, in double
  auto log_sum_exp = [V](const float* row) {
    const double max = *std::max_element(row, row + V);
    double sum = 0.0;
    for (int v = 0; v < V; ++v) sum += std::exp(row[v] - max);
    return max + std::log(sum);
  };

  out = LogitLens{};
  out.positions = positions;
  out.k = options.k;
  const std::size_t P = positions.size(), k = static_cast<std::size_t>(options.k);
  out.top_tokens.resize((L + 1) * P * k);
  out.top_probs.resize(out.top_tokens.size());
  std::vector<std::pair<int, int>> rows;
  for (int l = 0; l <= L; ++l)
    for (int t : positions) rows.emplace_back(l, t);
  std::vector<int> order(static_cast<std::size_t>(V));
  unembed(rows, [&](std::size_t r, const float* row) {
    // the k largest logits, ties to the smaller id
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + options.k, order.end(),
                      [row](int a, int b) { return row[a] != row[b] ? row[a] > row[b] : a < b; });
    const double lse = log_sum_exp(row);
    for (std::size_t j = 0; j < k; ++j) {
      out.top_tokens[r * k + j] = order[j];
      out.top_probs[r * k + j] = static_cast<float>(std::exp(row[order[j]] - lse));
    }
  });
  if (!chosen) return;
  rows.clear();
  for (int l = 0; l <= L; ++l) rows.emplace_back(l, options.position);
  out.token_ranks.resize(static_cast<std::size_t>(L) + 1);
  out.token_probs.resize(out.token_ranks.size());
  out.token_logits.resize(out.token_ranks.size());
  const int c = options.token;
  unembed(rows, [&](std::size_t l, const float* row) {
    int rank = 0;
    for (int v = 0; v < V; ++v) rank += row[v] > row[c] || (row[v] == row[c] && v < c);
    out.token_ranks[l] = rank;
    out.token_probs[l] = static_cast<float>(std::exp(row[c] - log_sum_exp(row)));
    out.token_logits[l] = row[c];
  });
}

}  // namespace attn::model

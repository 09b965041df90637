// The calls that run a model on one sequence (src/model/inference.h): model.trace and
// model.attention, model.generate, model.session's steps, and engine.nextToken.
//
// Legend: T tokens, V vocab_size, L layers, H heads (H' of them captured), hs head size, C width,
// K keys.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bindings/detail/call.h"
#include "bindings/detail/models.h"
#include "core/torch_random.h"
#include "model/inference.h"

namespace attn::abi::detail {

namespace {

// ---------------------------------------------------------------------------------------------
// Traces

const Enumeration& logit_rows_names() {
  static const Enumeration names{"logitRows", {"none", "last", "all"}};  // model::LogitRows by value
  return names;
}

// One sequence through the model keeping what is asked (CaptureRequest's fields and defaults);
// the layer count captured, and the stream: residual (L + 1, T, C), afterAttention (L, T, C),
// logits (1 or T, V) and timings (linear, attention and total milliseconds), those asked for.
// modelTraceLayer then gives each captured layer's tensors.
struct TraceIn {
  model::CaptureRequest request;
  int model = 0;
  std::vector<int> tokens;
  bool timings = false;
};
struct TraceOut {
  int layers = 0;
  FloatView residual, after_attention, logits;
  Tensor timings;
};
void model_trace(const TraceIn& in, TraceOut& out) {
  ModelSlot& m = model_slot(in.model);
  if (in.tokens.empty()) throw Error("tokens: expected 1 or more token ids");
  model::CaptureRequest request = in.request;
  if (in.timings) {
    if (!clock()) throw Error("timings: this build of the engine has no clock");
    request.clock_ms = clock();
  }
  m.capture = model::trace_sequence(m.gpt, in.tokens, request, m.gpt.kernel());
  const model::SequenceCapture& c = m.capture;
  const model::ModelConfig& cfg = m.gpt.config();
  out.layers = static_cast<int>(c.attention.size());
  if (!c.residual.empty()) out.residual = {{cfg.n_layer + 1, c.rows, cfg.n_embd}, c.residual.data()};
  if (!c.after_attention.empty()) out.after_attention = {{cfg.n_layer, c.rows, cfg.n_embd}, c.after_attention.data()};
  if (!c.logits.empty()) {
    out.logits = {{static_cast<int>(c.logits.size() / static_cast<std::size_t>(cfg.vocab_size)), cfg.vocab_size},
                  c.logits.data()};
  }
  if (c.timings.measured) {
    out.timings = {{3},
                   {static_cast<float>(c.timings.linear_ms), static_cast<float>(c.timings.attention_ms),
                    static_cast<float>(c.timings.total_ms)}};
  }
}
constexpr Entry kTraceTable[] = {
    integer("model", ATTN_ABI_MEMBER(TraceIn, model)),
    list("tokens", ATTN_ABI_MEMBER(TraceIn, tokens)),
    list("layers", ATTN_ABI_MEMBER(TraceIn, request.layers)),
    list("heads", ATTN_ABI_MEMBER(TraceIn, request.heads)),
    boolean("qkv", ATTN_ABI_MEMBER(TraceIn, request.qkv)),
    boolean("scores", ATTN_ABI_MEMBER(TraceIn, request.scores)),
    boolean("weights", ATTN_ABI_MEMBER(TraceIn, request.weights)),
    boolean("residual", ATTN_ABI_MEMBER(TraceIn, request.residual)),
    boolean("afterAttention", ATTN_ABI_MEMBER(TraceIn, request.after_attention)),
    choice("logits", ATTN_ABI_MEMBER(TraceIn, request.logits), logit_rows_names),
    boolean("timings", ATTN_ABI_MEMBER(TraceIn, timings)),
    result("residual", ATTN_ABI_MEMBER(TraceOut, residual)),
    result("afterAttention", ATTN_ABI_MEMBER(TraceOut, after_attention)),
    result("logits", ATTN_ABI_MEMBER(TraceOut, logits)),
    result("timings", ATTN_ABI_MEMBER(TraceOut, timings)),
    report_number("layers", ATTN_ABI_MEMBER(TraceOut, layers)),
};
const Registration kTrace{"modelTrace", run<TraceIn, TraceOut, model_trace>, {kTraceTable}};

// The index-th captured layer of the last trace: q (H', T, hs), k, v (H', K, hs), scores,
// weights (H', T, K), those captured; views of the model's capture.
struct LayerIn {
  int model = 0, layer = 0;
};
struct LayerOut {
  FloatView q, k, v, scores, weights;
};
void model_trace_layer(const LayerIn& in, LayerOut& out) {
  ModelSlot& m = model_slot(in.model);
  const model::SequenceCapture& c = m.capture;
  if (in.layer < 0 || static_cast<std::size_t>(in.layer) >= c.attention.size()) {
    throw Error("layer: expected 0 ≤ index < " + std::to_string(c.attention.size()) + ", got " +
                std::to_string(in.layer));
  }
  const model::SequenceCapture::Layer& l = c.attention[static_cast<std::size_t>(in.layer)];
  const int H = static_cast<int>(c.heads.size()), hs = m.gpt.config().n_embd / m.gpt.config().n_head;
  const int n = c.rows, K = c.keys;
  auto put = [](FloatView& t, std::vector<int> shape, const std::vector<float>& data) {
    if (!data.empty()) t = {std::move(shape), data.data()};
  };
  put(out.q, {H, n, hs}, l.q), put(out.k, {H, K, hs}, l.k), put(out.v, {H, K, hs}, l.v);
  put(out.scores, {H, n, K}, l.scores), put(out.weights, {H, n, K}, l.weights);
}
constexpr Entry kTraceLayerTable[] = {
    integer("model", ATTN_ABI_MEMBER(LayerIn, model)),
    integer("layer", ATTN_ABI_MEMBER(LayerIn, layer)),
    result("q", ATTN_ABI_MEMBER(LayerOut, q)),
    result("k", ATTN_ABI_MEMBER(LayerOut, k)),
    result("v", ATTN_ABI_MEMBER(LayerOut, v)),
    result("scores", ATTN_ABI_MEMBER(LayerOut, scores)),
    result("weights", ATTN_ABI_MEMBER(LayerOut, weights)),
};
const Registration kTraceLayer{"modelTraceLayer", run<LayerIn, LayerOut, model_trace_layer>, {kTraceLayerTable}};

// ---------------------------------------------------------------------------------------------
// Generation

// The sampling options of generate, sessions and nextToken (model::GenerateOptions' defaults),
// the first member of each of their inputs.
struct Sampling {
  double temperature = 1, top_p = 1, seed = 0;
  int top_k = 0;
  model::GenerateOptions options() const {
    model::GenerateOptions o;
    o.temperature = temperature, o.top_k = top_k, o.top_p = top_p, o.seed = TorchGenerator::seed_from_number(seed);
    return o;
  }
};
struct SamplingIn {
  Sampling sampling;
};
constexpr Entry kSamplingArguments[] = {
    number("temperature", ATTN_ABI_MEMBER(SamplingIn, sampling.temperature)),
    integer("topK", ATTN_ABI_MEMBER(SamplingIn, sampling.top_k)),
    number("topP", ATTN_ABI_MEMBER(SamplingIn, sampling.top_p)),
    number("seed", ATTN_ABI_MEMBER(SamplingIn, sampling.seed)),
};

// nanoGPT's generate from the prompt, with top-p: `count` new tokens.
struct GenerateIn {
  Sampling sampling;  // first: kSamplingArguments
  int model = 0, count = 0;
  std::vector<int> prompt;
};
struct TokensOut {
  Ints tokens;
};
void model_generate(const GenerateIn& in, TokensOut& out) {
  model::Gpt& gpt = model_slot(in.model).gpt;
  const std::vector<int> tokens = model::generate(gpt, in.prompt, in.count, in.sampling.options());
  out.tokens = {{static_cast<int>(tokens.size())}, std::vector<std::int32_t>(tokens.begin(), tokens.end())};
}
constexpr Entry kGenerateTable[] = {
    integer("model", ATTN_ABI_MEMBER(GenerateIn, model)),
    list("prompt", ATTN_ABI_MEMBER(GenerateIn, prompt)),
    integer("count", ATTN_ABI_MEMBER(GenerateIn, count)),
    result("tokens", ATTN_ABI_MEMBER(TokensOut, tokens)),
};
const Registration kGenerate{
    "modelGenerate", run<GenerateIn, TokensOut, model_generate>, {kSamplingArguments, kGenerateTable}};

// A generation session from the prompt (one token at a time with a KV cache).
struct SessionCreateIn {
  Sampling sampling;  // first: kSamplingArguments
  int model = 0;
  std::vector<int> prompt;
};
struct SessionOut {
  int session = 0;
};
void session_create(const SessionCreateIn& in, SessionOut& out) {
  ModelSlot& m = model_slot(in.model);
  out.session = add_session(
      in.model, std::make_unique<model::GenerationSession>(m.gpt, in.prompt, in.sampling.options(), m.gpt.kernel()));
}
constexpr Entry kSessionCreateTable[] = {
    integer("model", ATTN_ABI_MEMBER(SessionCreateIn, model)),
    list("prompt", ATTN_ABI_MEMBER(SessionCreateIn, prompt)),
    report_number("session", ATTN_ABI_MEMBER(SessionOut, session)),
};
const Registration kSessionCreate{
    "sessionCreate", run<SessionCreateIn, SessionOut, session_create>, {kSamplingArguments, kSessionCreateTable}};

// Draws the next token (or takes `token` ≥ 0) and runs it with the cache: the token, its
// position, the keys it attended to, whether the context was recomputed, the multiply-adds both
// ways; attention (L, H, keys), the 10 most likely tokens and their probabilities.
struct SessionIn {
  int session = 0;
  int token = -1;
};
struct StepOut {
  int token = 0, position = 0, keys = 0;
  bool recomputed = false;
  double macs_cached = 0, macs_full = 0;
  Tensor attention, top_probs;
  Ints top_tokens;
};
void session_step(const SessionIn& in, StepOut& out) {
  SessionSlot& s = session_slot(in.session, true);
  const model::GenerationSession::Step step = s.session->step(in.token);
  const model::ModelConfig& c = model_slot(s.model).gpt.config();
  out.attention = {{c.n_layer, c.n_head, step.keys}, step.attention};
  out.top_tokens = {{static_cast<int>(step.top_tokens.size())},
                    std::vector<std::int32_t>(step.top_tokens.begin(), step.top_tokens.end())};
  out.top_probs = {{static_cast<int>(step.top_probs.size())}, step.top_probs};
  out.token = step.token, out.position = step.position, out.keys = step.keys, out.recomputed = step.recomputed;
  out.macs_cached = static_cast<double>(step.macs_cached), out.macs_full = static_cast<double>(step.macs_full);
}
constexpr Entry kSessionStepTable[] = {
    integer("session", ATTN_ABI_MEMBER(SessionIn, session)),
    integer("token", ATTN_ABI_MEMBER(SessionIn, token)),
    result("attention", ATTN_ABI_MEMBER(StepOut, attention)),
    result("topTokens", ATTN_ABI_MEMBER(StepOut, top_tokens)),
    result("topProbs", ATTN_ABI_MEMBER(StepOut, top_probs)),
    report_number("token", ATTN_ABI_MEMBER(StepOut, token)),
    report_number("position", ATTN_ABI_MEMBER(StepOut, position)),
    report_number("keys", ATTN_ABI_MEMBER(StepOut, keys)),
    report_boolean("recomputed", ATTN_ABI_MEMBER(StepOut, recomputed)),
    report_number("macsCached", ATTN_ABI_MEMBER(StepOut, macs_cached)),
    report_number("macsFull", ATTN_ABI_MEMBER(StepOut, macs_full)),
};
const Registration kSessionStep{"sessionStep", run<SessionIn, StepOut, session_step>, {kSessionStepTable}};

// The prompt and every token appended so far.
void session_tokens(const SessionIn& in, TokensOut& out) {
  const std::vector<int>& tokens = session_slot(in.session, false).session->tokens();
  out.tokens = {{static_cast<int>(tokens.size())}, std::vector<std::int32_t>(tokens.begin(), tokens.end())};
}
constexpr Entry kSessionTokensTable[] = {
    integer("session", ATTN_ABI_MEMBER(SessionIn, session)),
    result("tokens", ATTN_ABI_MEMBER(TokensOut, tokens)),
};
const Registration kSessionTokens{"sessionTokens", run<SessionIn, TokensOut, session_tokens>, {kSessionTokensTable}};

void session_delete(const SessionIn& in, None&) { delete_session(in.session); }
constexpr Entry kSessionDeleteTable[] = {integer("session", ATTN_ABI_MEMBER(SessionIn, session))};
const Registration kSessionDelete{"sessionDelete", run<SessionIn, None, session_delete>, {kSessionDeleteTable}};

// The next-token distribution of one position's logits (V): probs (V) after temperature, top-k
// and top-p; the `top` most likely as topTokens and topProbs; and, when sample, token (1): the
// draw of torch.multinomial after torch.manual_seed(seed).
struct NextTokenIn {
  Sampling sampling;  // first: kSamplingArguments
  TensorView logits;
  bool sample = false;
  int top = 10;
};
struct NextTokenOut {
  Tensor probs, top_probs;
  Ints top_tokens, token;
};
void next_token(const NextTokenIn& in, NextTokenOut& out) {
  if (!in.logits.given()) throw Error("logits: required, the logits of one position (V)");
  const int V = in.logits.shape[0];
  if (in.top < 0 || in.top > V) {
    throw Error("top: expected 0 ≤ top ≤ " + std::to_string(V) + ", got " + std::to_string(in.top));
  }
  const model::SamplingOptions o{in.sampling.temperature, in.sampling.top_k, in.sampling.top_p};
  out.probs = {{V}, model::next_token_probs(in.logits.data, V, o)};
  const std::vector<int> best = model::top_tokens(out.probs.data, in.top);
  out.top_tokens = {{in.top}, std::vector<std::int32_t>(best.begin(), best.end())};
  out.top_probs.shape = {in.top};
  for (int t : best) out.top_probs.data.push_back(out.probs.data[static_cast<std::size_t>(t)]);
  if (in.sample) {
    TorchGenerator generator(TorchGenerator::seed_from_number(in.sampling.seed));
    out.token = {{1}, {model::sample_token(in.logits.data, V, o, generator)}};
  }
}
constexpr Entry kNextTokenTable[] = {
    tensor("logits", 1, 1, ATTN_ABI_MEMBER(NextTokenIn, logits)),
    boolean("sample", ATTN_ABI_MEMBER(NextTokenIn, sample)),
    integer("top", ATTN_ABI_MEMBER(NextTokenIn, top)),
    result("probs", ATTN_ABI_MEMBER(NextTokenOut, probs)),
    result("topTokens", ATTN_ABI_MEMBER(NextTokenOut, top_tokens)),
    result("topProbs", ATTN_ABI_MEMBER(NextTokenOut, top_probs)),
    result("token", ATTN_ABI_MEMBER(NextTokenOut, token)),
};
const Registration kNextToken{
    "nextToken", run<NextTokenIn, NextTokenOut, next_token>, {kSamplingArguments, kNextTokenTable}};

}  // namespace

}  // namespace attn::abi::detail

// The calls of the interpretability tools (src/model/interpret.h): model.ablate, ablationSweep,
// attribute and logitLens. Each runs on the model's own kernel; the core checks every argument
// and names it (a layer, head, position or token out of range, a reference text missing for mean
// ablation) before anything runs.
//
// Legend: T tokens, R reference tokens, L layers, H heads, hs head size, V vocab_size, P′
// positions read, k top tokens.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings/detail/call.h"
#include "bindings/detail/models.h"
#include "model/interpret.h"

namespace attn::abi::detail {

namespace {

const Enumeration& ablation_names() {
  static const Enumeration names{"ablation", {"zero", "mean"}};  // model::AblationMode by value
  return names;
}

Ints ints_of(const std::vector<int>& v, std::vector<int> shape) {
  return {std::move(shape), std::vector<std::int32_t>(v.begin(), v.end())};
}
Tensor tensor_of(std::vector<float> v, std::vector<int> shape) { return {std::move(shape), std::move(v)}; }

// How a head is knocked out, the first member of the inputs of modelAblate and modelAblationSweep.
struct Ablation {
  model::AblationMode mode = model::AblationMode::kZero;
  std::vector<int> reference;
  model::AblationOptions options(const model::Gpt& gpt) const {
    model::AblationOptions o;
    o.mode = mode, o.reference = reference, o.kernel = gpt.kernel();
    return o;
  }
};
struct AblationIn {
  Ablation ablation;
};
constexpr Entry kAblationArguments[] = {
    choice("mode", ATTN_ABI_MEMBER(AblationIn, ablation.mode), ablation_names),
    list("reference", ATTN_ABI_MEMBER(AblationIn, ablation.reference)),
};

// ---------------------------------------------------------------------------------------------
// One head knocked out: the next-token probabilities at `position` (V) and the losses (T − 1)
// clean and ablated, with every position's logits (T, V) when `logits`; value (hs), what replaced
// the head's output.

struct AblateIn {
  Ablation ablation;  // first: kAblationArguments
  int model = 0, layer = 0, head = 0, position = 0;
  std::vector<int> tokens;
  bool logits = false;
};
struct AblateOut {
  Tensor probs, ablated_probs, logits, ablated_logits, losses, ablated_losses, value;
  double loss = 0, ablated_loss = 0;
};
void model_ablate(const AblateIn& in, AblateOut& out) {
  const model::Gpt& gpt = model_slot(in.model).gpt;
  model::HeadAblation a;
  model::ablate_head(a, gpt, in.tokens.data(), static_cast<int>(in.tokens.size()), in.layer, in.head, in.position,
                     in.logits, in.ablation.options(gpt));
  const int T = static_cast<int>(in.tokens.size()), V = gpt.config().vocab_size;
  out.probs = tensor_of(std::move(a.probs), {V});
  out.ablated_probs = tensor_of(std::move(a.ablated_probs), {V});
  if (in.logits) {
    out.logits = tensor_of(std::move(a.logits), {T, V});
    out.ablated_logits = tensor_of(std::move(a.ablated_logits), {T, V});
  }
  out.losses = tensor_of(std::move(a.losses), {T - 1});
  out.ablated_losses = tensor_of(std::move(a.ablated_losses), {T - 1});
  const int hs = static_cast<int>(a.value.size());
  out.value = tensor_of(std::move(a.value), {hs});
  out.loss = a.loss, out.ablated_loss = a.ablated_loss;
}
constexpr Entry kAblateTable[] = {
    integer("model", ATTN_ABI_MEMBER(AblateIn, model)),
    list("tokens", ATTN_ABI_MEMBER(AblateIn, tokens)),
    integer("layer", ATTN_ABI_MEMBER(AblateIn, layer)),
    integer("head", ATTN_ABI_MEMBER(AblateIn, head)),
    integer("position", ATTN_ABI_MEMBER(AblateIn, position)),
    boolean("logits", ATTN_ABI_MEMBER(AblateIn, logits)),
    result("probs", ATTN_ABI_MEMBER(AblateOut, probs)),
    result("ablatedProbs", ATTN_ABI_MEMBER(AblateOut, ablated_probs)),
    result("logits", ATTN_ABI_MEMBER(AblateOut, logits)),
    result("ablatedLogits", ATTN_ABI_MEMBER(AblateOut, ablated_logits)),
    result("losses", ATTN_ABI_MEMBER(AblateOut, losses)),
    result("ablatedLosses", ATTN_ABI_MEMBER(AblateOut, ablated_losses)),
    result("value", ATTN_ABI_MEMBER(AblateOut, value)),
    report_number("loss", ATTN_ABI_MEMBER(AblateOut, loss)),
    report_number("ablatedLoss", ATTN_ABI_MEMBER(AblateOut, ablated_loss)),
};
const Registration kAblate{"modelAblate", run<AblateIn, AblateOut, model_ablate>, {kAblationArguments, kAblateTable}};

// ---------------------------------------------------------------------------------------------
// Every head of the chosen blocks (`layers`, ascending; none: all) knocked out in turn: log p(token)
// at `position` (L, H) and, when `loss`, the loss (L, H); NaN in blocks not swept. `reuse` false
// runs every ablation as a whole forward (to measure the reuse against).

struct SweepIn {
  Ablation ablation;  // first: kAblationArguments
  int model = 0, position = 0, token = 0;
  std::vector<int> tokens, layers;
  bool loss = false, reuse = true;
};
struct SweepOut {
  Tensor ablated_log_prob, ablated_loss;
  Ints layers;
  double log_prob = 0, loss = 0, rows_run = 0;
};
void model_ablation_sweep(const SweepIn& in, SweepOut& out) {
  const model::Gpt& gpt = model_slot(in.model).gpt;
  model::SweepOptions o;
  o.ablation = in.ablation.options(gpt), o.layers = in.layers, o.loss = in.loss, o.reuse = in.reuse;
  model::AblationSweep s;
  model::ablation_sweep(s, gpt, in.tokens.data(), static_cast<int>(in.tokens.size()), in.position, in.token, o);
  const int L = gpt.config().n_layer, H = gpt.config().n_head;
  out.ablated_log_prob = tensor_of(std::move(s.ablated_log_prob), {L, H});
  if (in.loss) out.ablated_loss = tensor_of(std::move(s.ablated_loss), {L, H});
  out.layers = ints_of(s.layers, {static_cast<int>(s.layers.size())});
  out.log_prob = s.log_prob, out.loss = s.loss, out.rows_run = static_cast<double>(s.rows_run);
}
constexpr Entry kSweepTable[] = {
    integer("model", ATTN_ABI_MEMBER(SweepIn, model)),
    list("tokens", ATTN_ABI_MEMBER(SweepIn, tokens)),
    list("layers", ATTN_ABI_MEMBER(SweepIn, layers)),
    integer("position", ATTN_ABI_MEMBER(SweepIn, position)),
    integer("token", ATTN_ABI_MEMBER(SweepIn, token)),
    boolean("loss", ATTN_ABI_MEMBER(SweepIn, loss)),
    boolean("reuse", ATTN_ABI_MEMBER(SweepIn, reuse)),
    result("ablatedLogProb", ATTN_ABI_MEMBER(SweepOut, ablated_log_prob)),
    result("ablatedLoss", ATTN_ABI_MEMBER(SweepOut, ablated_loss)),
    result("layers", ATTN_ABI_MEMBER(SweepOut, layers)),
    report_number("logProb", ATTN_ABI_MEMBER(SweepOut, log_prob)),
    report_number("loss", ATTN_ABI_MEMBER(SweepOut, loss)),
    report_number("rowsRun", ATTN_ABI_MEMBER(SweepOut, rows_run)),
};
const Registration kSweep{
    "modelAblationSweep", run<SweepIn, SweepOut, model_ablation_sweep>, {kAblationArguments, kSweepTable}};

// ---------------------------------------------------------------------------------------------
// Direct logit attribution of the logit of `token` at `position` (of token − other when other ≥
// 0): heads (L, H), mlps (L, or left out without MLPs) and the scalar components.

struct AttributeIn {
  int model = 0, position = 0, token = 0, other = -1;
  std::vector<int> tokens;
};
struct AttributeOut {
  Tensor heads, mlps;
  double embed = 0, pos_embed = 0, attention_bias = 0, ln_bias = 0, logit = 0, scale = 0, total = 0;
};
void model_attribute(const AttributeIn& in, AttributeOut& out) {
  const model::Gpt& gpt = model_slot(in.model).gpt;
  model::LogitAttribution a;
  model::attribute_logit(a, gpt, in.tokens.data(), static_cast<int>(in.tokens.size()), in.position, in.token, in.other,
                         gpt.kernel());
  const int L = gpt.config().n_layer, H = gpt.config().n_head;
  out.heads = tensor_of(std::move(a.heads), {L, H});
  if (!a.mlps.empty()) out.mlps = tensor_of(std::move(a.mlps), {L});
  out.embed = a.embed, out.pos_embed = a.pos_embed, out.attention_bias = a.attention_bias;
  out.ln_bias = a.ln_bias, out.logit = a.logit, out.scale = a.scale, out.total = a.total;
}
constexpr Entry kAttributeTable[] = {
    integer("model", ATTN_ABI_MEMBER(AttributeIn, model)),
    list("tokens", ATTN_ABI_MEMBER(AttributeIn, tokens)),
    integer("position", ATTN_ABI_MEMBER(AttributeIn, position)),
    integer("token", ATTN_ABI_MEMBER(AttributeIn, token)),
    integer("other", ATTN_ABI_MEMBER(AttributeIn, other)),
    result("heads", ATTN_ABI_MEMBER(AttributeOut, heads)),
    result("mlps", ATTN_ABI_MEMBER(AttributeOut, mlps)),
    report_number("embed", ATTN_ABI_MEMBER(AttributeOut, embed)),
    report_number("posEmbed", ATTN_ABI_MEMBER(AttributeOut, pos_embed)),
    report_number("attentionBias", ATTN_ABI_MEMBER(AttributeOut, attention_bias)),
    report_number("lnBias", ATTN_ABI_MEMBER(AttributeOut, ln_bias)),
    report_number("logit", ATTN_ABI_MEMBER(AttributeOut, logit)),
    report_number("scale", ATTN_ABI_MEMBER(AttributeOut, scale)),
    report_number("total", ATTN_ABI_MEMBER(AttributeOut, total)),
};
const Registration kAttribute{"modelAttribute", run<AttributeIn, AttributeOut, model_attribute>, {kAttributeTable}};

// ---------------------------------------------------------------------------------------------
// The logit lens at `positions` (none: all): the k most likely tokens and their probabilities
// (L + 1, P′, k), and with `token` ≥ 0 its rank, probability and logit at `position` (L + 1).

struct LensIn {
  int model = 0, k = 5, position = -1, token = -1;
  std::vector<int> tokens, positions;
};
struct LensOut {
  Ints positions, top_tokens, token_ranks;
  Tensor top_probs, token_probs, token_logits;
};
void model_logit_lens(const LensIn& in, LensOut& out) {
  const model::Gpt& gpt = model_slot(in.model).gpt;
  model::LensOptions o;
  o.positions = in.positions, o.k = in.k, o.position = in.position, o.token = in.token, o.kernel = gpt.kernel();
  model::LogitLens lens;
  model::logit_lens(lens, gpt, in.tokens.data(), static_cast<int>(in.tokens.size()), o);
  const int rows = gpt.config().n_layer + 1, P = static_cast<int>(lens.positions.size());
  out.positions = ints_of(lens.positions, {P});
  out.top_tokens = ints_of(lens.top_tokens, {rows, P, lens.k});
  out.top_probs = tensor_of(std::move(lens.top_probs), {rows, P, lens.k});
  if (!lens.token_ranks.empty()) {
    out.token_ranks = ints_of(lens.token_ranks, {rows});
    out.token_probs = tensor_of(std::move(lens.token_probs), {rows});
    out.token_logits = tensor_of(std::move(lens.token_logits), {rows});
  }
}
constexpr Entry kLensTable[] = {
    integer("model", ATTN_ABI_MEMBER(LensIn, model)),
    list("tokens", ATTN_ABI_MEMBER(LensIn, tokens)),
    list("positions", ATTN_ABI_MEMBER(LensIn, positions)),
    integer("k", ATTN_ABI_MEMBER(LensIn, k)),
    integer("position", ATTN_ABI_MEMBER(LensIn, position)),
    integer("token", ATTN_ABI_MEMBER(LensIn, token)),
    result("positions", ATTN_ABI_MEMBER(LensOut, positions)),
    result("topTokens", ATTN_ABI_MEMBER(LensOut, top_tokens)),
    result("topProbs", ATTN_ABI_MEMBER(LensOut, top_probs)),
    result("tokenRanks", ATTN_ABI_MEMBER(LensOut, token_ranks)),
    result("tokenProbs", ATTN_ABI_MEMBER(LensOut, token_probs)),
    result("tokenLogits", ATTN_ABI_MEMBER(LensOut, token_logits)),
};
const Registration kLens{"modelLogitLens", run<LensIn, LensOut, model_logit_lens>, {kLensTable}};

}  // namespace

}  // namespace attn::abi::detail

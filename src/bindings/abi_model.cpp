// The model calls (engine.createModel and a model's step, evaluate, logits, params, setParams,
// kernel, toSafetensors, dispose) and the registry of models and their sessions (detail/models.h).
// Token ids arrive as lists, `batch` × `context` of them; a call that fails records its message
// for lastError() and changes nothing.
//
// Legend: B batch, T context (tokens per sequence), V vocab_size, C n_embd.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings/detail/attention.h"
#include "bindings/detail/call.h"
#include "bindings/detail/models.h"
#include "core/messages.h"
#include "core/torch_random.h"
#include "model/config.h"
#include "model/gpt.h"
#include "model/inference.h"
#include "model/layers.h"
#include "model/safetensors.h"

namespace attn::abi::detail {

// ---------------------------------------------------------------------------------------------
// The registry

namespace {

std::map<int, std::unique_ptr<ModelSlot>> models;
int next_model = 1;
constexpr std::size_t kMaxModels = 256;

std::map<int, std::unique_ptr<SessionSlot>> sessions;
int next_session = 1;
constexpr std::size_t kMaxSessions = 256;

}  // namespace

ModelSlot& model_slot(int handle) {
  const auto found = models.find(handle);
  if (found == models.end()) throw Error("model: this model was disposed");
  return *found->second;
}

void check_room_for_a_model() {
  if (models.size() >= kMaxModels) {
    throw Error("model: more than " + std::to_string(kMaxModels) + " models are alive; dispose() some");
  }
}

int add_model(std::unique_ptr<model::Gpt> gpt) {
  check_room_for_a_model();
  models.emplace(next_model, std::make_unique<ModelSlot>(std::move(gpt)));
  return next_model++;
}

int add_session(int model, std::unique_ptr<model::GenerationSession> session) {
  if (sessions.size() >= kMaxSessions) {
    throw Error("session: more than " + std::to_string(kMaxSessions) + " sessions are alive; dispose() some");
  }
  auto slot = std::make_unique<SessionSlot>();
  slot->model = model, slot->weights_version = model_slot(model).weights_version;
  slot->session = std::move(session);
  sessions.emplace(next_session, std::move(slot));
  return next_session++;
}

SessionSlot& session_slot(int handle, bool current) {
  const auto found = sessions.find(handle);
  if (found == sessions.end()) throw Error("session: this session was disposed (or its model was)");
  SessionSlot& s = *found->second;
  if (current && model_slot(s.model).weights_version != s.weights_version) {
    throw Error(
        "session: the model's weights changed (a training step or setParams) since this session started; its "
        "cached keys and values are of the old weights: start a new session");
  }
  return s;
}

void delete_session(int handle) { sessions.erase(handle); }

const Enumeration& gelu_names() {
  static const Enumeration names{"gelu", {model::gelu_name(model::Gelu::kExact), model::gelu_name(model::Gelu::kTanh)}};
  return names;
}

namespace {

// B·T token ids (and as many targets when `targets`), checked against batch and context.
model::Batch batch_of(int batch, int context, const std::vector<int>& tokens, const std::vector<int>* targets) {
  if (batch < 1 || context < 1 || static_cast<long long>(batch) * context != static_cast<long long>(tokens.size())) {
    throw Error("batch: " + std::to_string(batch) + " × " + std::to_string(context) + " tokens, but tokens holds " +
                std::to_string(tokens.size()));
  }
  if (targets && targets->size() != tokens.size()) {
    throw Error("targets: " + std::to_string(targets->size()) + " ids, but tokens holds " +
                std::to_string(tokens.size()));
  }
  return {tokens.data(), targets ? targets->data() : nullptr, batch, context};
}

// ---------------------------------------------------------------------------------------------
// Creating, describing and disposing

// createModel: nanoGPT's GPT(config) after torch.manual_seed(seed); the five sizes are given
// (engine.js requires them; one left out, −1, is refused by the config's check), the rest default
// to nanoGPT's.
struct CreateIn {
  model::ConfigFields config;  // first: kConfigArguments
  double seed = 0;             // an integer in [−2^53, 2^53]
};
void model_create(const CreateIn& in, ModelOut& out) {
  model::ModelConfig c;
  c.vocab_size = in.config.vocab_size, c.block_size = in.config.block_size, c.n_layer = in.config.n_layer,
  c.n_head = in.config.n_head;
  c.n_embd = in.config.n_embd;
  if (in.config.bias >= 0) c.bias = in.config.bias != 0;
  if (in.config.mlp >= 0) c.mlp = in.config.mlp != 0;
  if (in.config.layer_norm >= 0) c.layer_norm = in.config.layer_norm != 0;
  if (in.config.gelu >= 0) c.gelu = static_cast<model::Gelu>(in.config.gelu);
  if (!std::isnan(in.config.dropout)) c.dropout = in.config.dropout;
  if (!std::isnan(in.config.layer_norm_eps)) c.layer_norm_eps = in.config.layer_norm_eps;
  check_room_for_a_model();
  out.model = add_model(std::make_unique<model::Gpt>(c, TorchGenerator::seed_from_number(in.seed)));
}
constexpr Entry kCreateTable[] = {
    number("seed", ATTN_ABI_MEMBER(CreateIn, seed)),
    report_number("model", ATTN_ABI_MEMBER(ModelOut, model)),
};
const Registration kCreate{"modelCreate", run<CreateIn, ModelOut, model_create>, {kConfigArguments, kCreateTable}};

struct ModelIn {
  int model = 0;
};

void model_delete(const ModelIn& in, None&) {
  for (auto it = sessions.begin(); it != sessions.end();)
    it = it->second->model == in.model ? sessions.erase(it) : std::next(it);
  models.erase(in.model);
}
constexpr Entry kDeleteTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
};
const Registration kDelete{"modelDelete", run<ModelIn, None, model_delete>, {kDeleteTable}};

// The config as created or loaded, every field given.
void model_config(const ModelIn& in, model::ModelConfig& out) { out = model_slot(in.model).gpt.config(); }
constexpr Entry kConfigTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
    report_number("vocabSize", ATTN_ABI_MEMBER(model::ModelConfig, vocab_size)),
    report_number("contextLength", ATTN_ABI_MEMBER(model::ModelConfig, block_size)),
    report_number("layers", ATTN_ABI_MEMBER(model::ModelConfig, n_layer)),
    report_number("heads", ATTN_ABI_MEMBER(model::ModelConfig, n_head)),
    report_number("width", ATTN_ABI_MEMBER(model::ModelConfig, n_embd)),
    report_boolean("bias", ATTN_ABI_MEMBER(model::ModelConfig, bias)),
    report_number("dropout", ATTN_ABI_MEMBER(model::ModelConfig, dropout)),
    report_boolean("mlp", ATTN_ABI_MEMBER(model::ModelConfig, mlp)),
    report_boolean("layerNorm", ATTN_ABI_MEMBER(model::ModelConfig, layer_norm)),
    report_choice("gelu", ATTN_ABI_MEMBER(model::ModelConfig, gelu), gelu_names),
    report_number("layerNormEps", ATTN_ABI_MEMBER(model::ModelConfig, layer_norm_eps)),
};
const Registration kConfig{"modelConfig", run<ModelIn, model::ModelConfig, model_config>, {kConfigTable}};

struct StepsOut {
  double steps = 0;
};
void model_steps(const ModelIn& in, StepsOut& out) {
  out.steps = static_cast<double>(model_slot(in.model).trainer.steps());
}
constexpr Entry kStepsTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
    report_number("steps", ATTN_ABI_MEMBER(StepsOut, steps)),
};
const Registration kSteps{"modelSteps", run<ModelIn, StepsOut, model_steps>, {kStepsTable}};

// The attention kernel of the model's forward and backward passes ("auto" is resolved per call).
struct KernelIn {
  int model = 0;
  Kernel kernel = Kernel::kAuto;
};
struct KernelOut {
  Kernel kernel = Kernel::kAuto;
};
void model_kernel(const ModelIn& in, KernelOut& out) { out.kernel = model_slot(in.model).gpt.kernel(); }
constexpr Entry kKernelTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
    report_choice("kernel", ATTN_ABI_MEMBER(KernelOut, kernel), kernel_names),
};
const Registration kKernel{"modelKernel", run<ModelIn, KernelOut, model_kernel>, {kKernelTable}};
void model_set_kernel(const KernelIn& in, None&) { model_slot(in.model).gpt.set_kernel(in.kernel); }
constexpr Entry kSetKernelTable[] = {
    integer("model", ATTN_ABI_MEMBER(KernelIn, model)),
    choice("kernel", ATTN_ABI_MEMBER(KernelIn, kernel), kernel_names),
};
const Registration kSetKernel{"modelSetKernel", run<KernelIn, None, model_set_kernel>, {kSetKernelTable}};

// The model's limits, as engine.limits.model names them.
struct LimitsOut {
  double max_vocab = model::ModelLimits::kMaxVocab, max_context = model::ModelLimits::kMaxBlockSize;
  double max_layers = model::ModelLimits::kMaxLayers, max_heads = model::ModelLimits::kMaxHeads;
  double max_width = model::ModelLimits::kMaxEmbd;
  double max_params = static_cast<double>(model::ModelLimits::kMaxParams);
  double max_train_params = static_cast<double>(model::ModelLimits::kMaxTrainParams);
  double max_capture = static_cast<double>(model::kMaxCaptureFloats);
  double max_activations = static_cast<double>(model::kMaxActivationFloats);
};
void model_limits(const None&, LimitsOut&) {}
constexpr Entry kLimitsTable[] = {
    report_number("maxVocab", ATTN_ABI_MEMBER(LimitsOut, max_vocab)),
    report_number("maxContext", ATTN_ABI_MEMBER(LimitsOut, max_context)),
    report_number("maxLayers", ATTN_ABI_MEMBER(LimitsOut, max_layers)),
    report_number("maxHeads", ATTN_ABI_MEMBER(LimitsOut, max_heads)),
    report_number("maxWidth", ATTN_ABI_MEMBER(LimitsOut, max_width)),
    report_number("maxParams", ATTN_ABI_MEMBER(LimitsOut, max_params)),
    report_number("maxTrainParams", ATTN_ABI_MEMBER(LimitsOut, max_train_params)),
    report_number("maxCapture", ATTN_ABI_MEMBER(LimitsOut, max_capture)),
    report_number("maxActivations", ATTN_ABI_MEMBER(LimitsOut, max_activations)),
};
const Registration kLimits{"modelLimits", run<None, LimitsOut, model_limits>, {kLimitsTable}};

// ---------------------------------------------------------------------------------------------
// Training and evaluation

const Enumeration& optimizer_names() {
  static const Enumeration names{"optimizer", {"adamw", "sgd"}};  // model::OptimizerKind by value
  return names;
}

// One training step. The schedule: constant lr; with warmup > 0 a linear warmup to lr (nanoGPT's
// (it + 1)/(warmup + 1)); with decaySteps > 0 also a cosine decay to minLr at decaySteps.
struct StepIn {
  int model = 0, batch = 0, context = 0;
  std::vector<int> tokens, targets;
  model::OptimizerKind optimizer = model::OptimizerKind::kAdamW;
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.95, eps = 1e-8, momentum = 0, clip = 1;
  double weight_decay = std::numeric_limits<double>::quiet_NaN();  // NaN: 0.1 for AdamW, 0 for SGD
  double warmup = 0, decay_steps = 0;                              // whole numbers ≥ 0; decaySteps 0: no decay
  double min_lr = std::numeric_limits<double>::quiet_NaN();        // NaN: lr / 10
  double seed = 0;  // dropout masks of step k: torch.manual_seed(seed + k)
};
struct StepOut {
  double loss = 0, grad_norm = 0, lr = 0, step = 0;
};

long long whole_steps(double v, const char* name) {
  if (!(v >= 0 && v <= 1e15) || v != std::floor(v)) {
    throw Error(std::string(name) + ": expected a whole number of steps ≥ 0, got " + number_string(v));
  }
  return static_cast<long long>(v);
}

void model_step(const StepIn& in, StepOut& out) {
  ModelSlot& m = model_slot(in.model);
  model::StepOptions o;
  o.optimizer = in.optimizer;
  const double weight_decay =
      std::isnan(in.weight_decay) ? (in.optimizer == model::OptimizerKind::kAdamW ? 0.1 : 0.0) : in.weight_decay;
  o.adamw.beta1 = in.beta1, o.adamw.beta2 = in.beta2, o.adamw.eps = in.eps, o.adamw.weight_decay = weight_decay;
  o.sgd.momentum = in.momentum, o.sgd.weight_decay = weight_decay;
  o.clip = in.clip;
  const long long warmup = whole_steps(in.warmup, "warmup"), decay = whole_steps(in.decay_steps, "decaySteps");
  o.schedule.learning_rate = in.lr;
  if (decay > 0) {
    if (decay <= warmup) {
      throw Error("decaySteps: expected more than warmup = " + std::to_string(warmup) + ", got " +
                  std::to_string(decay));
    }
    o.schedule = {true, in.lr, std::isnan(in.min_lr) ? in.lr / 10 : in.min_lr, warmup, decay};
  } else if (warmup > 0) {
    o.schedule = {true, in.lr, in.lr, warmup, warmup + 1};  // warmup, then lr (min_lr = lr)
  }
  o.seed = TorchGenerator::seed_from_number(in.seed);
  ++m.weights_version;  // a failed step may still have undone the last update
  const model::StepResult r = m.trainer.step(batch_of(in.batch, in.context, in.tokens, &in.targets), o);
  out.loss = r.loss, out.grad_norm = r.grad_norm, out.lr = r.lr, out.step = static_cast<double>(r.step);
}
constexpr Entry kStepTable[] = {
    integer("model", ATTN_ABI_MEMBER(StepIn, model)),
    list("tokens", ATTN_ABI_MEMBER(StepIn, tokens)),
    list("targets", ATTN_ABI_MEMBER(StepIn, targets)),
    integer("batch", ATTN_ABI_MEMBER(StepIn, batch)),
    integer("context", ATTN_ABI_MEMBER(StepIn, context)),
    choice("optimizer", ATTN_ABI_MEMBER(StepIn, optimizer), optimizer_names),
    number("lr", ATTN_ABI_MEMBER(StepIn, lr)),
    number("beta1", ATTN_ABI_MEMBER(StepIn, beta1)),
    number("beta2", ATTN_ABI_MEMBER(StepIn, beta2)),
    number("eps", ATTN_ABI_MEMBER(StepIn, eps)),
    number("weightDecay", ATTN_ABI_MEMBER(StepIn, weight_decay)),
    number("momentum", ATTN_ABI_MEMBER(StepIn, momentum)),
    number("clip", ATTN_ABI_MEMBER(StepIn, clip)),
    number("warmup", ATTN_ABI_MEMBER(StepIn, warmup)),
    number("decaySteps", ATTN_ABI_MEMBER(StepIn, decay_steps)),
    number("minLr", ATTN_ABI_MEMBER(StepIn, min_lr)),
    number("seed", ATTN_ABI_MEMBER(StepIn, seed)),
    report_number("loss", ATTN_ABI_MEMBER(StepOut, loss)),
    report_number("gradNorm", ATTN_ABI_MEMBER(StepOut, grad_norm)),
    report_number("lr", ATTN_ABI_MEMBER(StepOut, lr)),
    report_number("step", ATTN_ABI_MEMBER(StepOut, step)),
};
const Registration kStep{"modelStep", run<StepIn, StepOut, model_step>, {kStepTable}};

// The loss and accuracy over the targets ≠ −1 (eval mode), and every position's prediction: the
// argmax of its logits (the first of equals).
struct BatchIn {
  int model = 0, batch = 0, context = 0;
  std::vector<int> tokens, targets;
};
struct EvaluateOut {
  double loss = 0, accuracy = 0;
  Ints predictions;  // (B, T)
};
void model_evaluate(const BatchIn& in, EvaluateOut& out) {
  model::Gpt& gpt = model_slot(in.model).gpt;
  gpt.require_f32("evaluate");
  out.loss = gpt.forward(batch_of(in.batch, in.context, in.tokens, &in.targets));
  const int V = gpt.config().vocab_size;
  const std::size_t n = in.tokens.size();
  out.predictions = {{in.batch, in.context}, std::vector<std::int32_t>(n)};
  long long scored = 0, right = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = gpt.logits().data() + i * static_cast<std::size_t>(V);
    out.predictions.data[i] = static_cast<std::int32_t>(std::max_element(row, row + V) - row);
    if (in.targets[i] == model::kIgnoreIndex) continue;
    ++scored;
    right += out.predictions.data[i] == in.targets[i];
  }
  out.accuracy = static_cast<double>(right) / static_cast<double>(scored);  // scored ≥ 1: forward checked
}
constexpr Entry kEvaluateTable[] = {
    integer("model", ATTN_ABI_MEMBER(BatchIn, model)),
    list("tokens", ATTN_ABI_MEMBER(BatchIn, tokens)),
    list("targets", ATTN_ABI_MEMBER(BatchIn, targets)),
    integer("batch", ATTN_ABI_MEMBER(BatchIn, batch)),
    integer("context", ATTN_ABI_MEMBER(BatchIn, context)),
    result("predictions", ATTN_ABI_MEMBER(EvaluateOut, predictions)),
    report_number("loss", ATTN_ABI_MEMBER(EvaluateOut, loss)),
    report_number("accuracy", ATTN_ABI_MEMBER(EvaluateOut, accuracy)),
};
const Registration kEvaluate{"modelEvaluate", run<BatchIn, EvaluateOut, model_evaluate>, {kEvaluateTable}};

// The logits (B, T, V) of a batch without targets, a view of the model's until its next call.
// A trainable model runs its forward (passes 1–16); a model kept for inference (F16, BF16, or float32
// in panels) runs each sequence through the cached forward trace() runs, the same logits within
// float rounding (equal bit for bit to that model's trace).
struct LogitsOut {
  FloatView logits;
};
void model_logits(const BatchIn& in, LogitsOut& out) {
  ModelSlot& m = model_slot(in.model);
  model::Gpt& gpt = m.gpt;
  const model::Batch batch = batch_of(in.batch, in.context, in.tokens, nullptr);
  const int V = gpt.config().vocab_size;
  if (gpt.precision() == model::Precision::kF32) {
    gpt.forward(batch);
    out.logits = {{in.batch, in.context, V}, gpt.logits().data()};
    return;
  }
  // (B, T, V) within the trace's cap, checked before anything runs
  const long long floats = static_cast<long long>(in.batch) * in.context * V;
  if (floats > model::kMaxCaptureFloats) {
    throw Error("tokens: " + std::to_string(in.batch) + " × " + std::to_string(in.context) + " positions of " +
                std::to_string(V) + " logits are " + std::to_string(floats) + " floats; at most " +
                std::to_string(model::kMaxCaptureFloats) + " (2^26): ask for fewer sequences or tokens");
  }
  model::CaptureRequest request;
  request.logits = model::LogitRows::kAll;
  request.qkv = request.scores = request.weights = request.residual = false;
  std::vector<float> logits;
  logits.reserve(static_cast<std::size_t>(floats));
  for (int b = 0; b < in.batch; ++b) {
    const auto first = in.tokens.begin() + static_cast<std::ptrdiff_t>(b) * in.context;
    const std::vector<int> sequence(first, first + in.context);
    const model::SequenceCapture c = model::trace_sequence(gpt, sequence, request, gpt.kernel());
    logits.insert(logits.end(), c.logits.begin(), c.logits.end());
  }
  m.logits = std::move(logits);
  out.logits = {{in.batch, in.context, V}, m.logits.data()};
}
constexpr Entry kLogitsTable[] = {
    integer("model", ATTN_ABI_MEMBER(BatchIn, model)),    list("tokens", ATTN_ABI_MEMBER(BatchIn, tokens)),
    integer("batch", ATTN_ABI_MEMBER(BatchIn, batch)),    integer("context", ATTN_ABI_MEMBER(BatchIn, context)),
    result("logits", ATTN_ABI_MEMBER(LogitsOut, logits)),
};
const Registration kLogits{"modelLogits", run<BatchIn, LogitsOut, model_logits>, {kLogitsTable}};

// ---------------------------------------------------------------------------------------------
// Parameters

// Every parameter, back to back in the table's order: a view of the model's buffer.
struct ParamsOut {
  FloatView params;
};
void model_params(const ModelIn& in, ParamsOut& out) {
  model_slot(in.model).gpt.require_f32("params");
  const std::vector<float>& p = model_slot(in.model).gpt.params();
  out.params = {{static_cast<int>(p.size())}, p.data()};
}
constexpr Entry kParamsTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
    result("params", ATTN_ABI_MEMBER(ParamsOut, params)),
};
const Registration kParams{"modelParams", run<ModelIn, ParamsOut, model_params>, {kParamsTable}};

// The parameter table: per entry its state_dict name (the names one per line), rank, dims, and
// where its floats are in modelParams' buffer.
struct ParamTableOut {
  Bytes names;
  Ints ranks, dims;
  Doubles offsets, sizes;
};
void model_param_table(const ModelIn& in, ParamTableOut& out) {
  const std::vector<model::ParamEntry>& entries = model_slot(in.model).gpt.table().entries();
  std::string names;
  for (const model::ParamEntry& e : entries) {
    names += (names.empty() ? "" : "\n") + e.name;
    out.ranks.data.push_back(static_cast<std::int32_t>(e.shape.size()));
    out.dims.data.insert(out.dims.data.end(), e.shape.begin(), e.shape.end());
    out.offsets.data.push_back(static_cast<double>(e.offset));
    out.sizes.data.push_back(static_cast<double>(e.size));
  }
  const int n = static_cast<int>(entries.size());
  out.names = {{static_cast<int>(names.size())}, std::vector<std::uint8_t>(names.begin(), names.end())};
  out.ranks.shape = out.offsets.shape = out.sizes.shape = {n};
  out.dims.shape = {static_cast<int>(out.dims.data.size())};
}
constexpr Entry kParamTableTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
    text_result("names", ATTN_ABI_MEMBER(ParamTableOut, names)),
    result("ranks", ATTN_ABI_MEMBER(ParamTableOut, ranks)),
    result("dims", ATTN_ABI_MEMBER(ParamTableOut, dims)),
    result("offsets", ATTN_ABI_MEMBER(ParamTableOut, offsets)),
    result("sizes", ATTN_ABI_MEMBER(ParamTableOut, sizes)),
};
const Registration kParamTable{"modelParamTable", run<ModelIn, ParamTableOut, model_param_table>, {kParamTableTable}};

// setParams: the entries `params` (indices into the table) get `values`, their floats back to back
// in that order. Every value is checked finite before any is written (the optimizer's state is
// kept, as load_state_dict on the model alone).
struct SetParamsIn {
  int model = 0;
  std::vector<int> params;
  TensorView values;
};
void model_set_params(const SetParamsIn& in, None&) {
  ModelSlot& m = model_slot(in.model);
  m.gpt.require_f32("setParams");
  const std::vector<model::ParamEntry>& entries = m.gpt.table().entries();
  std::size_t total = 0;
  for (int index : in.params) {
    if (index < 0 || static_cast<std::size_t>(index) >= entries.size()) {
      throw Error("params: no parameter " + std::to_string(index) + " (the table has " +
                  std::to_string(entries.size()) + ")");
    }
    total += entries[static_cast<std::size_t>(index)].size;
  }
  if (total != static_cast<std::size_t>(in.values.given() ? in.values.size() : 0)) {
    throw Error("values: the parameters named hold " + std::to_string(total) + " floats, values has " +
                std::to_string(in.values.given() ? in.values.size() : 0));
  }
  const float* v = in.values.data;
  for (int index : in.params) {
    const model::ParamEntry& e = entries[static_cast<std::size_t>(index)];
    for (std::size_t i = 0; i < e.size; ++i)
      if (!std::isfinite(v[i])) {
        throw Error(e.name + ": every value must be finite, got " + std::to_string(v[i]) + " at flat index " +
                    std::to_string(i));
      }
    v += e.size;
  }
  v = in.values.data;
  for (int index : in.params) {
    const model::ParamEntry& e = entries[static_cast<std::size_t>(index)];
    std::copy(v, v + e.size, m.gpt.params().begin() + static_cast<std::ptrdiff_t>(e.offset));
    v += e.size;
  }
  ++m.weights_version;
}
constexpr Entry kSetParamsTable[] = {
    integer("model", ATTN_ABI_MEMBER(SetParamsIn, model)),
    list("params", ATTN_ABI_MEMBER(SetParamsIn, params)),
    tensor("values", 1, 1, ATTN_ABI_MEMBER(SetParamsIn, values)),
};
const Registration kSetParams{"modelSetParams", run<SetParamsIn, None, model_set_params>, {kSetParamsTable}};

// toSafetensors: the parameters as a safetensors file (F32, state_dict order, the config in its
// metadata), held here until the next export: a view, so a large model's file is not copied.
std::vector<std::uint8_t> exported;
struct ExportOut {
  ByteView file;
};
void model_export(const ModelIn& in, ExportOut& out) {
  const model::Gpt& gpt = model_slot(in.model).gpt;
  gpt.require_f32("toSafetensors");
  exported = model::export_safetensors(gpt.table(), gpt.params().data());
  out.file = {{static_cast<int>(exported.size())}, exported.data()};
}
constexpr Entry kExportTable[] = {
    integer("model", ATTN_ABI_MEMBER(ModelIn, model)),
    result("file", ATTN_ABI_MEMBER(ExportOut, file)),
};
const Registration kExport{"modelExport", run<ModelIn, ExportOut, model_export>, {kExportTable}};

}  // namespace

}  // namespace attn::abi::detail

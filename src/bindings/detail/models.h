// The models of the whole engine by handle, with what their calls keep between them, shared by
// the files that define model calls (abi_model.cpp holds the registry; abi_inference.cpp and
// abi_loader.cpp use it). Handles are ≥ 1; a call given a handle that is not alive fails naming
// "model" (or "session").
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "bindings/abi.h"
#include "bindings/detail/call.h"
#include "model/checkpoint.h"
#include "model/gpt.h"
#include "model/inference.h"

namespace attn::abi::detail {

// A generation session (model.session) and the weights it started from.
struct SessionSlot {
  int model = 0;
  long long weights_version = 0;
  std::unique_ptr<model::GenerationSession> session;
};

// A model and everything its calls keep between them.
struct ModelSlot {
  explicit ModelSlot(std::unique_ptr<model::Gpt> model) : gpt_owner(std::move(model)), gpt(*gpt_owner), trainer(gpt) {}
  std::unique_ptr<model::Gpt> gpt_owner;
  model::Gpt& gpt;
  model::Trainer trainer;
  model::SequenceCapture capture;  // the last modelTrace's, which modelTraceLayer reads
  std::vector<float> logits;       // the last modelLogits's of a model kept for inference
  long long weights_version = 0;   // bumped by every change of the weights (a step, setParams)
};

// The model of a handle; attn::Error naming model when it is not alive.
ModelSlot& model_slot(int handle);
// attn::Error when no further model may be added (checked before one is read or allocated).
void check_room_for_a_model();
// Adds a model; returns its handle.
int add_model(std::unique_ptr<model::Gpt> gpt);

// Sessions die with their model and refuse to step once its weights have changed.
int add_session(int model, std::unique_ptr<model::GenerationSession> session);
// The session of a handle; attn::Error naming session when it or its model is gone, or (when
// `current`) when the model's weights changed since it started.
SessionSlot& session_slot(int handle, bool current);
void delete_session(int handle);

// A model's config as its calls take it (createModel, loadModel's and openModel's overrides):
// model::ConfigFields, −1 or NaN where not given, the first member of each of their inputs.
struct ConfigIn {
  model::ConfigFields config;
};
const Enumeration& gelu_names();
// Its arguments, named as engine.createModel's config.
inline constexpr Entry kConfigArguments[] = {
    integer("vocabSize", ATTN_ABI_MEMBER(ConfigIn, config.vocab_size)),
    integer("contextLength", ATTN_ABI_MEMBER(ConfigIn, config.block_size)),
    integer("layers", ATTN_ABI_MEMBER(ConfigIn, config.n_layer)),
    integer("heads", ATTN_ABI_MEMBER(ConfigIn, config.n_head)),
    integer("width", ATTN_ABI_MEMBER(ConfigIn, config.n_embd)),
    boolean("bias", ATTN_ABI_MEMBER(ConfigIn, config.bias)),
    boolean("mlp", ATTN_ABI_MEMBER(ConfigIn, config.mlp)),
    boolean("layerNorm", ATTN_ABI_MEMBER(ConfigIn, config.layer_norm)),
    choice("gelu", ATTN_ABI_MEMBER(ConfigIn, config.gelu), gelu_names),
    number("dropout", ATTN_ABI_MEMBER(ConfigIn, config.dropout)),
    number("layerNormEps", ATTN_ABI_MEMBER(ConfigIn, config.layer_norm_eps)),
};

// A new model's handle in the report of createModel, loadModel and openModelFinish.
struct ModelOut {
  int model = 0;
};

}  // namespace attn::abi::detail

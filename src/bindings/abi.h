// The binary layout between the WASM core and web/engine/engine.js, written once.
//
// A call crosses the boundary through an arena in linear memory, so it costs two Embind calls
// with plain integer arguments and no emval objects (the seed's bank example is a ~10 µs call
// and emval traffic was most of it before the arena):
//   1. prepare(floats, ints, bytes) sizes the arena's three sections and returns the address of
//      the CallHeader, whose section addresses engine.js reads; it then writes
//        floats: the data of every given tensor argument, in the call's table order;
//        ints:   per tensor argument, then per flag argument: rank, then dims (rank 0: not given);
//        bytes:  the data of every given flag argument, in table order;
//      and, for attend, the scalar options into the CallHeader's option fields.
//   2. attend() / attend_backward() / project() / averaging() / pca() runs and returns the address of the ResultHeader:
//      `failed` (then lastError() has the message), the float data of every result tensor back
//      to back, and a layout of int32s: per tensor its index in the call's result names, rank
//      and dims.
// describe() lists all of it by name (header fields with their offsetof and type, each call's
// tensor and flag arguments and result names, the kernel and scale-mode names by enum value);
// module.abi() hands that to engine.js, which derives its writer and reader from it at load.
// The arena and the result buffers are reused by the next call, so the heap stays flat.
//
// Plain C++ (no Emscripten header): src/bindings/bindings.cpp exports these functions, and the
// native tests call them directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace attn::abi {

// Where one call's arguments are. Addresses are of linear memory (uintptr_t: 32 bits in WASM).
struct CallHeader {
  // Sections, set by prepare().
  std::uintptr_t floats = 0;
  std::uintptr_t ints = 0;
  std::uintptr_t bytes = 0;
  // attend()'s scalar options, written by engine.js.
  std::int32_t kernel = 0;  // attn::Kernel, an index into Description::kernels
  std::int32_t heads = 1;
  std::int32_t causal = 0;
  std::int32_t scale_mode = 0;  // attn::ScaleMode, an index into Description::scale_modes
  std::int32_t training = 0;
  std::int32_t materialize = 1;
  std::uint32_t seed_low = 0, seed_high = 0;
  float scale = 1.0f;  // the factor when scale_mode is kFactor
  float temperature = 1.0f;
  float dropout = 0.0f;
};

// What a call leaves for engine.js.
struct ResultHeader {
  std::int32_t failed = 0;  // nonzero: the call threw; lastError() has the message
  std::uintptr_t data = 0;  // float32[data_length]: every result tensor, back to back
  std::int32_t data_length = 0;
  std::uintptr_t layout = 0;  // int32[layout_length]: per tensor its result index, rank, dims
  std::int32_t layout_length = 0;
  std::int32_t kernel = 0;   // the attn::Kernel that ran (attend)
  std::int32_t batched = 0;  // x was (B, T, D)
  float scale = 1.0f;        // the scale s that was used (attend)
};

// The layout as plain data, for module.abi().
struct Field {
  const char* name;    // as engine.js spells it
  std::size_t offset;  // offsetof in its header
  const char* type;    // "i32", "u32" or "f32" in WASM ("u64" for addresses in a native build)
};
struct TensorArgument {
  const char* name;
  int min_rank, max_rank;
};
struct Call {
  const char* name;  // the engine method: "attend", "attendBackward", "project", "averaging", "pca", "draw"
  std::vector<TensorArgument> tensors;
  std::vector<const char*> flags;
  std::vector<const char*> shapes;  // integer-list arguments (rank, then dims), after the flags
  std::vector<const char*> results;
};
struct Description {
  std::vector<Field> sections;  // CallHeader: floats, ints, bytes
  std::vector<Field> options;   // CallHeader: attend's options
  std::vector<Field> result;    // ResultHeader
  std::vector<Call> calls;
  std::vector<const char*> kernels;      // kernel_name() by attn::Kernel value
  std::vector<const char*> scale_modes;  // by attn::ScaleMode value
  std::vector<const char*> draws;        // draw()'s operations by index
};
const Description& describe();

// The entry points. Each returns an address: prepare() the CallHeader, the others the ResultHeader.
std::uintptr_t prepare(int floats, int ints, int bytes);
std::uintptr_t attend();
std::uintptr_t project();
std::uintptr_t averaging();

// Not in the embeddable element's engine (ATTN_ENGINE_EMBED): attend's backward pass, PCA and
// PyTorch's generator. attend_backward() reads attend's arguments, then "gradOutput", and returns
// the gradient of every given input under the input's name.
std::uintptr_t attend_backward();
std::uintptr_t pca();

// PyTorch's CPU generator (attn::TorchGenerator) for engine.torchGenerator(): generators live
// here by handle. generator_create returns a handle ≥ 1, or 0 after recording the error.
// draw(handle, op, a, b, flag) runs Description::draws[op] on the arena's "input" tensor and
// "shape" list, with scalars a, b (low/high, mean/std, from/to, p, in/out features, words) and
// flag (nn.Linear's bias), and returns the ResultHeader: "values", and "bias" or "keep".
int generator_create(double seed);
void generator_delete(int handle);
std::uintptr_t draw(int handle, int op, double a, double b, int flag);
const std::string& last_error();
// Records a failure of a call made outside the arena (a generator's draw): lastError() returns it.
void record_error(const std::string& message);

// ---------------------------------------------------------------------------------------------
// Models (engine.createModel, engine.loadModel), not in the embeddable element's engine: a
// nanoGPT-style model (src/model/gpt.h) with its Trainer per handle, as generators. The option
// structs below cross to JavaScript as plain numbers in and plain objects out (bindings.cpp
// spells the fields as engine.js does); token ids go through the int32 input buffer, tensors
// through the ResultHeader of the "modelLogits" and "modelAttention" calls. A call that fails
// records the message for lastError() and answers 0, −1 or failed; a handle that is not alive fails naming "model".

// nanoGPT's GPTConfig, the GELU and LayerNorm eps, and the init seed. For model_load and
// model_open, a field below 0 (dropout, layer_norm_eps: NaN) is not given and comes from
// config.json, the file's metadata or its tensors (src/model/checkpoint.h says in which order).
struct ModelArgs {
  int vocab_size = -1, context_length = -1, layers = -1, heads = -1, width = -1;
  int bias = -1, mlp = -1, layer_norm = -1;  // 1 true, 0 false, −1 not given
  int gelu = -1;                             // 0 exact (nanoGPT's), 1 tanh (GPT-2's gelu_new), −1 not given
  double dropout = std::numeric_limits<double>::quiet_NaN();
  double layer_norm_eps = std::numeric_limits<double>::quiet_NaN();
  double seed = 0;  // torch.manual_seed(seed) before GPT(config): an integer in [−2^53, 2^53]
};

// One training step's options (engine.js fills every field; its defaults are documented in
// engine.d.ts). The schedule: constant lr; with warmup > 0 a linear warmup to lr (nanoGPT's
// (it + 1)/(warmup + 1)); with decay_steps > 0 also a cosine decay to min_lr at decay_steps.
struct StepArgs {
  int batch = 0, context = 0;       // B, T of the batch in the input buffer
  std::string optimizer = "adamw";  // "adamw" | "sgd"
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weight_decay = 0.1, momentum = 0, clip = 1;
  double warmup = 0, decay_steps = 0;                        // integers ≥ 0; decay_steps 0: no decay
  double min_lr = std::numeric_limits<double>::quiet_NaN();  // NaN: lr / 10
  double seed = 0;                                           // dropout masks of step k: torch.manual_seed(seed + k)
};
struct StepReport {
  int failed = 0;
  double loss = 0, grad_norm = 0, lr = 0, step = 0;
};
struct EvalReport {
  int failed = 0;
  double loss = 0, accuracy = 0;  // accuracy over the targets ≠ −1
};
// One entry of the parameter table: a state_dict name, its shape, and where its floats are in
// the buffers model_params() and model_stage() return.
struct ParamInfo {
  std::string name;
  std::vector<int> shape;
  double offset = 0, size = 0;
};

// The int32 input of the next model call: tokens (count) then targets (count). Sized by
// model_input(count), which returns the tokens' address; model_input_targets() the targets'.
std::uintptr_t model_input(int count);
std::uintptr_t model_input_targets();
// The int32 output of model_evaluate (predictions, B·T) and model_generate (new tokens).
std::uintptr_t model_output();

int model_create(const ModelArgs& args);  // a handle ≥ 1, or 0
// From the safetensors bytes in the arena's bytes section, nanoGPT's or Hugging Face's GPT-2
// layout; config_json: the text of Hugging Face's config.json, or empty.
int model_load(const ModelArgs& overrides, const std::string& config_json = "");

// A checkpoint read in slices (engine.openModel; src/model/checkpoint.h):
//   model_header_length(file_size): N from the 8 bytes in the arena's bytes section (file_size
//     −1: unknown), or −1;
//   model_open(overrides, file_size, config_json): from the first 8 + N bytes in the arena's
//     bytes section, a loader handle ≥ 1 (the parameters allocated), or 0;
//   model_open_copies(loader): the byte ranges to read, in file order; model_open_file_end(loader)
//     where the file must end (8 + N + the buffer the header describes);
//   model_open_buffer(loader, bytes): a staging buffer of that size for the next write;
//   model_open_write(loader, copy, offset, n): the first n staged bytes are bytes
//     [offset, offset + n) of that range: 1, or 0 (the loader is then gone);
//   model_open_finish(loader): the model's handle, or 0; model_open_cancel(loader) frees it.
// A failed call frees the loader and everything it allocated; models already open are untouched.
struct CopyRange {
  double begin = 0, end = 0;  // file bytes
  std::string name;           // the tensor, as the file names it
};
double model_header_length(double file_size);
int model_open(const ModelArgs& overrides, double file_size, const std::string& config_json);
std::vector<CopyRange> model_open_copies(int loader);
double model_open_file_end(int loader);
std::uintptr_t model_open_buffer(int loader, int bytes);
int model_open_write(int loader, int copy, double offset, int n);
int model_open_finish(int loader);
void model_open_cancel(int loader);
void model_delete(int handle);
ModelArgs model_config(int handle);  // the config as created or loaded (every field given)
double model_steps(int handle);      // steps taken, or −1
// The attention kernel of the model's forward and backward passes, by name ("reference" |
// "vectorized" | "simd" | "tiled" | "auto", the default): 1, or 0 with the error naming kernel.
// model_kernel gives the name set ("auto" is resolved per call by T), or "" for no model.
int model_set_kernel(int handle, const std::string& name);
std::string model_kernel(int handle);
StepReport model_step(int handle, const StepArgs& args);
EvalReport model_evaluate(int handle, int batch, int context);
std::uintptr_t model_logits(int handle, int batch, int context);  // ResultHeader of "modelLogits"
// One sequence through the model keeping what is asked (src/model/inference.h: model.trace and
// model.attention). The input holds the context tokens, then layer_count layer indices, then
// head_count head indices (0 of either: all). parts: a sum of kTrace* below; logits: 0 none,
// 1 the last row, 2 every row. Returns the number of layers captured, or −1. Then
// model_trace_layer(i) gives the i-th captured layer's q (H', T, hs), k, v (H', T, hs), scores,
// weights (H', T, T) as the ResultHeader of "modelAttention", and model_trace_stream the
// "modelTrace" tensors residual (L + 1, T, C), logits (1 or T, V) and timings (linear,
// attention and total milliseconds), those asked for.
constexpr int kTraceQkv = 1, kTraceScores = 2, kTraceWeights = 4, kTraceResidual = 8, kTraceTimings = 16,
              kTraceAfterAttention = 32;
int model_trace(int handle, int context, int layer_count, int head_count, int parts, int logits);
// The clock model_trace's timings read (milliseconds), set by the host: performance.now() in the
// WASM engines (bindings.cpp). Without one, asking for timings is an error naming timings.
void set_clock(double (*clock_ms)());
std::uintptr_t model_trace_layer(int handle, int index);
std::uintptr_t model_trace_stream(int handle);
// nanoGPT's generate from the prompt (prompt_length tokens in the input), with top-p; returns
// count, the new tokens in the output, or −1.
int model_generate(int handle, int prompt_length, int count, double temperature, int top_k, double top_p, double seed);

// Generation one token at a time with a KV cache (model.session): a session of a model, by
// handle, from the prompt in the input; 0 on error. A session dies with its model, and refuses to
// step once the model's weights have changed (a training step, setParams). session_step draws
// the next token (or takes `forced` ≥ 0) and returns its scalars; its tensors are the
// ResultHeader of "sessionStep" at session_step_result(): attention (L, H, keys), topTokens (10,
// as floats), topProbs (10). session_tokens gives the count, the tokens in the output.
struct SessionStepReport {
  int failed = 0;
  int token = 0, position = 0, keys = 0, recomputed = 0;
  double macs_cached = 0, macs_full = 0;
};
int session_create(int model, int prompt_length, double temperature, int top_k, double top_p, double seed);
SessionStepReport session_step(int session, int forced);
std::uintptr_t session_step_result();
int session_tokens(int session);
void session_delete(int session);

// The next-token distribution of the arena's "logits" (V) as call "nextToken": probs (V) after
// temperature, top-k and top-p; the `top` most likely as topTokens (as floats) and topProbs; and,
// when sample, "token" (1): the draw of torch.multinomial after torch.manual_seed(seed).
std::uintptr_t next_token(double temperature, int top_k, double top_p, double seed, int sample, int top);
std::vector<ParamInfo> model_param_table(int handle);  // empty (and lastError) for a dead handle
std::uintptr_t model_params(int handle);               // 0 for a dead handle
// setParams: model_stage() copies the parameters into a staging buffer engine.js writes the new
// tensors into; model_commit() checks every value is finite and makes it the parameters (the
// optimizer's state is kept, as load_state_dict on the model alone). Returns 1, or 0.
std::uintptr_t model_stage(int handle);
int model_commit(int handle);
// toSafetensors: the file's length, or −1; its bytes at model_export_data().
double model_export(int handle);
std::uintptr_t model_export_data();

// The core's thread pool (src/core/threads.h) for engine.threads, in the whole engine only (the
// element's never runs threaded): set_threads returns 1, or 0 after recording the error (a count
// outside [1, kMaxThreads]); threads() is the count in use (always 1 in a build without threads).
int set_threads(int count);
int threads();

}  // namespace attn::abi

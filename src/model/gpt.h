// nanoGPT's GPT (karpathy/nanoGPT model.py) over the flat parameter buffer of params.h: the
// forward pass over a batch of token ids, the backward pass of the mean cross-entropy into the
// flat gradient buffer, a training step (optimizer.h), and sampling.
//
// Legend: B batch, T tokens per sequence (1 ≤ T ≤ block_size), N = B·T rows, C n_embd,
// H n_head, hs = C/H head size, V vocab_size, L n_layer. Every buffer is row-major.
//
// The forward pass, numbered; gpt_backward walks the same numbers in reverse:
//   1. embed       x = wte[idx] + wpe[t]                                    (N, C)
//   2. dropout     x = drop(x)
//   per block (transformer.h.{l}):
//   3. ln_1        a = LayerNorm(x)                  (the identity without layer_norm)
//   4. c_attn      qkv = a·Wᵀ + b                                           (N, 3C)
//   5. split       q, k, v                                                  (B, H, T, hs) each
//   6. attend      per head: drop(softmax(causal(q·kᵀ/√hs)))·v — head_forward's passes 1–6,
//                  or the tiled kernel, which never holds (T, T)            (B, H, T, hs)
//   7. merge       y                                                        (N, C)
//   8. c_proj      z = drop(y·Wᵀ + b)
//   9. residual    x = x + z
//   10. ln_2       a = LayerNorm(x)                  (10–13 only with mlp)
//   11. c_fc, GELU g = gelu(a·Wᵀ + b)    (the config's GELU: exact or tanh)  (N, 4C)
//   12. c_proj     m = drop(g·Wᵀ + b)
//   13. residual   x = x + m
//   then:
//   14. ln_f       h = LayerNorm(x)
//   15. lm_head    logits = h·wteᵀ (the tied weight)                        (N, V)
//   16. loss       mean cross-entropy over the targets ≠ −1 (ignore_index)
//
// GELU is the exact (erf) form by default: nanoGPT's MLP calls nn.GELU() since it dropped its
// tanh `new_gelu` in 2023 (layers.h); config.gelu = kTanh gives GPT-2's gelu_new, and every
// LayerNorm uses config.layer_norm_eps. The mask is causal by index (nanoGPT's tril buffer).
//
// Everything is written once as templates over the scalar type and a table of kernels: the
// float tables differ only in which kernels they call (reference loops, f32x4, tiled attention),
// and the reference table in double is what the finite-difference tests differentiate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/attention.h"
#include "kernels/half.h"
#include "model/config.h"
#include "model/optimizer.h"
#include "model/params.h"

namespace attn {
class TorchGenerator;
template <typename Real>
struct KernelTableOf;  // core/head.h
}  // namespace attn

namespace attn::model {

// ---------------------------------------------------------------------------------------------
// Kernels

// The kernels one forward and backward call, by implementation. Every pointer has the contract
// of its namesake in layers.h, train_kernels.h or kernels.h (GELU's count is a ptrdiff_t, 32 bits
// in WASM: a 64-bit argument in a function pointer's signature would make Emscripten export a
// dynCall wrapper the embeddable element's glue, which also loads this engine, does not have).
template <typename Real>
struct GptKernelsOf {
  void (*linear_forward)(Real* y, const Real* x, const Real* w, const Real* b, int N, int I, int O);
  void (*linear_backward)(Real* dx, Real* dw, Real* db, const Real* dy, const Real* x, const Real* w, int N, int I,
                          int O);
  void (*gelu_forward)(Real* y, const Real* x, std::ptrdiff_t n);
  void (*gelu_backward)(Real* dx, const Real* dy, const Real* x, std::ptrdiff_t n);
  // One head's passes (head_forward / head_backward), and the attention capture of every kernel.
  const KernelTableOf<Real>* attention;
  // The tiled kernel and its backward (kernels.h), or null: the head's (T, T) weights are kept.
  void (*tiled_forward)(Real* out, Real* lse, const Real* q, const Real* k, const Real* v, const std::uint8_t* key_keep,
                        int T, int hk, int hv, Real alpha, bool causal);
  void (*tiled_backward)(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* q, const Real* k, const Real* v,
                         const Real* out, const Real* lse, const std::uint8_t* key_keep, int T, int hk, int hv,
                         Real alpha, bool causal);
  // GPT-2's tanh GELU (config.gelu = Gelu::kTanh), in place of gelu_forward / gelu_backward.
  void (*gelu_tanh_forward)(Real* y, const Real* x, std::ptrdiff_t n);
  void (*gelu_tanh_backward)(Real* dx, const Real* dy, const Real* x, std::ptrdiff_t n);
  // linear_forward over F16 weights (Precision::kF16) of the same family; null in double.
  void (*linear_forward_f16)(float* y, const float* x, const std::uint16_t* w, const float* b, int N, int I, int O,
                             bool panels);
  // linear_forward over float32 weights kept in panels (Precision::kF32Panels); null in double.
  void (*linear_forward_panels)(float* y, const float* x, const float* w, const float* b, int N, int I, int O);
  // linear_forward over bfloat16 weights in panels (Precision::kBF16); null in double.
  void (*linear_forward_bf16)(float* y, const float* x, const kernels::Bf16* w, const float* b, int N, int I, int O);
};
using GptKernels = GptKernelsOf<float>;

// The float table of a resolved kernel (not kAuto):
//   kReference  every _ref loop (layers, GELU, head passes): the reference of the others
//   kEigen      f32x4 layers, Eigen head passes
//   kSimd       f32x4 layers and head passes
//   kTiled      f32x4 layers, the tiled attention kernel and its backward (no (T, T) memory)
const GptKernels& gpt_kernels(Kernel kernel);
// The reference in double (finite differences), with the (T, T) head passes or the tiled loops.
const GptKernelsOf<double>& gpt_kernels_double(bool tiled);

// kAuto's choice for sequences of T tokens: kSimd, or kTiled from this T on when no attention
// dropout needs the weights. BM_GptStep in bench/native_bench.cpp measures a training step of the
// char model at B·T = 1024: the two are equal at T = 64 and the tiled kernel is ahead from 128
// (WASM: 44 against 47 ms at 128, 67 against 139 ms at 512), where B·H·T·T weights per layer
// also start to cost real memory.
constexpr int kTiledFromT = 128;
Kernel resolve_kernel(Kernel kernel, int T, bool attention_dropout);

// ---------------------------------------------------------------------------------------------
// Dropout, activations, attention capture

// The keep-masks (nonzero = keep) of one training forward with dropout p > 0, drawn as PyTorch
// 1.13's F.dropout draws them (keep = bernoulli(1 − p), TorchGenerator) in the forward's order:
// embedding (N, C); then per block attention weights (B, H, T, T), c_proj output (N, C) and,
// with mlp, the MLP output (N, C). After torch.manual_seed(seed), model.train() and one forward
// of the same batch, torch's masks are these.
struct GptDropout {
  double p = 0.0;
  std::vector<std::uint8_t> embedding;
  std::vector<std::vector<std::uint8_t>> attention, attn_resid, mlp_resid;  // per block
  void draw(const ModelConfig& config, int B, int T, std::uint64_t seed);
};

// What one forward keeps for its backward, sized by resize() and reused (no allocation when the
// batch shape repeats). The residual stream is stream[0] (after passes 1–2) … stream[L].
template <typename Real>
struct GptActivationsOf {
  struct Block {
    std::vector<Real> ln1, ln1_mean, ln1_rstd;  // (N, C), (N), (N); empty without layer_norm
    std::vector<Real> q, k, v;                  // (B, H, T, hs)
    std::vector<Real> weights;                  // (B, H, T, T) pass-4 weights; empty when tiled
    std::vector<Real> lse;                      // (B, H, T) rows' log Σ exp; tiled only
    std::vector<Real> heads;                    // (B, H, T, hs) each head's output
    std::vector<Real> y;                        // (N, C) merged heads
    std::vector<Real> mid;                      // (N, C) stream after the attention residual (mlp)
    std::vector<Real> ln2, ln2_mean, ln2_rstd;  // (N, C), (N), (N)  (mlp and layer_norm)
    std::vector<Real> fc, gelu;                 // (N, 4C) before and after GELU (mlp)
  };
  int B = 0, T = 0;
  bool tiled = false;
  std::vector<std::vector<Real>> stream;      // L + 1 of (N, C)
  std::vector<Block> blocks;                  // L
  std::vector<Real> lnf, lnf_mean, lnf_rstd;  // (N, C), (N), (N)
  std::vector<Real> logits;                   // (N, V)
  std::vector<Real> probs;                    // (N, V) softmax of the logits (with targets)
  std::vector<Real> d_logits;                 // (N, V) its gradient (backward)
  // Scratch of one forward or backward: qkv (N, 3C) and its gradient, the gradients of the
  // stream and of a branch (N, C), of the MLP's hidden layer (N, 4C). (Each head's (T, T) ×2 and
  // dq, dk, dv (T, hs) are the head's task's own, so heads can run on several threads.)
  std::vector<Real> qkv, d_qkv, d_stream, d_branch, d_a, d_y, d_hidden, d_fc, d_heads;

  void resize(const ModelConfig& config, int B, int T, bool tiled);
};
using GptActivations = GptActivationsOf<float>;

// The floats one forward and backward hold for a batch (B, T): GptActivationsOf::resize's, and
// one head's scratch ((T, T) ×2 and dq, dk, dv) — held once per thread while heads run in
// parallel, which the cap below does not count.
long long activation_floats(const ModelConfig& config, int B, int T, bool tiled);
// Their cap: 2^26 floats (256 MiB), a training batch's worth within WASM's 2 GiB beside the
// parameters, gradients and moments.
constexpr long long kMaxActivationFloats = 1LL << 26;

// One sequence's attention in every block, as attend()'s Trace names them (per head, no batch):
// q, k, v (H, T, hs); scores = q·kᵀ for every pair, unscaled and unmasked (H, T, T); weights the
// causal softmax (H, T, T), before attention dropout.
template <typename Real>
struct GptCaptureOf {
  int sequence = 0;  // which b of the batch
  struct Block {
    std::vector<Real> q, k, v, scores, weights;
  };
  std::vector<Block> blocks;
};
using GptCapture = GptCaptureOf<float>;

// ---------------------------------------------------------------------------------------------
// Forward and backward, unchecked (Gpt below checks): idx (B, T) in [0, V), targets (B, T) in
// [0, V) or −1, or null for logits only; 1 ≤ T ≤ block_size; dropout null or drawn for (B, T);
// capture null or capture->sequence in [0, B).

// Passes 1–16. Returns the mean loss (0 without targets); logits (and probs) are in acts.
template <typename Real>
Real gpt_forward(GptActivationsOf<Real>& acts, const Real* params, const ParamTable& table, const int* idx,
                 const int* targets, int B, int T, const GptKernelsOf<Real>& kernels,
                 const GptDropout* dropout = nullptr, GptCaptureOf<Real>* capture = nullptr);

// Passes 16–1 of the forward that filled acts (which had targets): grads (table.total()) +=
// d loss / d params; wte's gradient sums the embedding's and lm_head's. Uses acts' scratch.
template <typename Real>
void gpt_backward(Real* grads, GptActivationsOf<Real>& acts, const Real* params, const ParamTable& table,
                  const int* idx, const int* targets, const GptKernelsOf<Real>& kernels,
                  const GptDropout* dropout = nullptr);

// ---------------------------------------------------------------------------------------------
// The model

// A batch of B sequences of T tokens: tokens (B, T), targets (B, T) or null.
struct Batch {
  const int* tokens = nullptr;
  const int* targets = nullptr;
  int B = 0, T = 0;
};

struct ForwardOptions {
  bool training = false;           // dropout on (with the config's p > 0)
  std::uint64_t dropout_seed = 0;  // masks drawn as after torch.manual_seed(dropout_seed)
  GptCapture* capture = nullptr;   // filled for capture->sequence when given
};

// The initial weights of nanoGPT's GPT(config) after torch.manual_seed(seed): every draw through
// PyTorch 1.13's CPU generator (TorchGenerator), in init_params' order.
InitFill torch_fill(TorchGenerator& generator);

// How a model keeps its weight matrices (the tensors of rank 2: wte, wpe and every linear
// layer's weight) in memory:
//   kF32  float32, 4 bytes a weight: everything (training included) runs on them;
//   kF16  IEEE halves (kernels/half.h), 2 bytes a weight: read from a checkpoint by rounding
//         each float32 to the nearest half (an F16 file's values exactly; a BF16 file's through
//         float32), and converted back exactly as the kernels read them (while packing the
//         products' panels, and the embedding's rows as they are gathered), so every sum still
//         runs in float32. LayerNorm and bias vectors stay float32 (they are small). Inference
//         only: the cached forward (inference.h) and interpret.h's tools; training, forward()
//         and the float32 parameter buffer refuse with an error naming the precision.
//   kF32Panels  float32, 4 bytes a weight, kept for inference only as kF16 keeps its halves:
//         the products' weights in panels (below), vectors in place. The same values and the
//         same sums in the same order as kF32, so the same bits (tests/cpp/model/inference_test.cpp),
//         and one token's products about twice as fast: each weight is streamed once from one
//         place instead of read across 8 rows at a time (bench/one_row.mjs: GPT-2 small's 49
//         products of one token, 37 against 18.5 ms in WASM). What kF16 refuses it refuses.
//   kBF16  bfloat16s (kernels/half.h's Bf16), 2 bytes a weight, kept as kF16 keeps its halves
//         (matrices in panels, vectors float32), each float32 rounded to the nearest bfloat16 (a
//         BF16 file's values exactly; a weight that rounds beyond float32's range is refused by
//         name). Inference only, as kF16. Faster than kF16, most with one thread, where F16 is
//         bound by instructions: a bfloat16 is a float32's top half, so 4 weights convert in one
//         op against F16's three (kernels::gemm_panels_bf16_simd), and one token's products
//         stream at the speed of memory (README, Speed). The price: 7 mantissa bits against
//         F16's 10, each weight's rounding error 8 times F16's.
// The default for a model that does not fit as float32 is kF16 (the 'auto' choice): its rounding
// error is 8 times smaller than BF16's, and GPT-2's weights sit well inside F16's range (±65504;
// a checkpoint with a larger weight is refused by name); HF's GPT-2 files are F32 and convert
// to either.
enum class Precision { kF32, kF16, kF32Panels, kBF16 };

class Gpt {
 public:
  // Validates the config; parameters start as GPT(config) after torch.manual_seed(seed).
  explicit Gpt(const ModelConfig& config, std::uint64_t seed = 0);
  // Validates the config; parameters start at zero, to be filled by the caller (a checkpoint
  // being loaded), with none of the initialisation's random draws.
  struct ZeroParams {};
  Gpt(const ModelConfig& config, ZeroParams, Precision precision = Precision::kF32);

  Precision precision() const { return precision_; }
  // attn::Error "<what>: …" naming the precision unless the weights are float32 (training, the
  // float32 parameter buffer, forward()).
  void require_f32(const char* what) const;
  // Bytes the weights take in memory (params.h's table at 4 or 2 bytes a weight, the float32
  // vectors of an F16 model included).
  std::size_t weight_bytes() const;

  // A weight as the kernels read it: float32 (f32), halves (f16) or bfloat16s (bf16), one set.
  struct WeightRef {
    const float* f32 = nullptr;
    const std::uint16_t* f16 = nullptr;
    const kernels::Bf16* bf16 = nullptr;
    bool panels = false;  // kept in panels: panels() below
  };
  // kF16, kBF16 and kF32Panels keep every weight that a product reads — the blocks' linear weights (c_attn, c_proj,
  // c_fc, the MLP's c_proj) and wte (the LM head) — in kernels/gemm.h's panel layout: w (O, I)
  // as wᵀ (I, O) cut into panels of 32 outputs, each panel's I rows back to back, element w(o, i)
  // at kernels::panel_index(i, o, I, O). One token's products stream each panel from its start to
  // its end (kernels::gemm_panels_f16_simd); read_row and the embedding gather a row from them.
  // wpe, only gathered, stays (rows, C). The same K·N halves as (O, I): no second copy.
  bool panels(const ParamEntry& e) const;
  // Any entry's values as they are kept (an F16 model's vectors are float32: f32 set).
  WeightRef weight(const ParamEntry& e) const;
  // The float32 values of an entry of rank 1 (LayerNorm, biases) in any precision, or of any
  // entry in kF32 (and of wpe in kF32Panels); null for null.
  const float* vector(const ParamEntry* e) const;
  float* vector(const ParamEntry* e);
  // kF16: the halves, table().total() of them at the table's offsets (vectors' slots unused;
  // panels() entries in panels).
  std::vector<std::uint16_t>& halves() { return halves_; }
  const std::vector<std::uint16_t>& halves() const { return halves_; }
  // kBF16: the bfloat16s, as halves() holds kF16's halves.
  std::vector<kernels::Bf16>& bf16s() { return bf16s_; }
  const std::vector<kernels::Bf16>& bf16s() const { return bf16s_; }
  // Row `row` of a rank-2 entry as float32 (C values into out).
  void read_row(const ParamEntry& e, int row, float* out) const;

  const ModelConfig& config() const { return table_.config(); }
  const ParamTable& table() const { return table_; }
  std::vector<float>& params() { return params_; }
  // Empty in kF16; in kF32Panels the table's floats with the panels() entries in panels.
  const std::vector<float>& params() const { return params_; }
  // The gradient buffer (table().total() floats) exists once training starts (backward, or
  // Trainer::step): a model that is only run holds its weights alone. Empty before.
  std::vector<float>& grads() { return grads_; }
  const std::vector<float>& grads() const { return grads_; }
  // Allocates the gradient buffer (zeroed) if there is none, after validate_for_training:
  // attn::Error naming `what` for a model above the training cap.
  void prepare_training(const char* what = "step");

  // Which kernels run (kAuto by default: resolve_kernel per batch).
  Kernel kernel() const { return kernel_; }
  void set_kernel(Kernel kernel) { kernel_ = kernel; }

  // attn::Error naming the argument: B ≥ 1, 1 ≤ T ≤ block_size, activations within their cap,
  // tokens in [0, V), targets in [0, V) or −1 and not all −1 (nothing to score: an error rather
  // than torch's NaN or a silent 0), tokens non-null.
  void check(const Batch& batch) const;
  // Checks, then passes 1–16. Returns the mean loss (0 without targets).
  float forward(const Batch& batch, const ForwardOptions& options = {});
  // grads += d loss / d params for the last forward, which must have had targets
  // (prepare_training("backward") first).
  void backward();
  // (B·T, V) of the last forward.
  const std::vector<float>& logits() const { return acts_.logits; }
  // The kernel the last forward ran.
  Kernel last_kernel() const { return last_kernel_; }

 private:
  ParamTable table_;
  std::vector<float> params_, grads_;
  Precision precision_ = Precision::kF32;
  std::vector<std::uint16_t> halves_;        // kF16: every entry's slot, the matrices' used
  std::vector<kernels::Bf16> bf16s_;         // kBF16: the same
  std::vector<float> vectors_;               // kF16, kBF16: the rank-1 entries, float32, back to back
  std::vector<std::size_t> vector_offsets_;  // kF16, kBF16: per entry, its first float in vectors_
  Kernel kernel_ = Kernel::kAuto;
  Kernel last_kernel_ = Kernel::kSimd;
  GptActivations acts_;
  GptDropout dropout_;
  bool dropout_active_ = false;
  std::vector<int> tokens_, targets_;  // the last forward's batch, for backward
  bool has_targets_ = false;
};

// y (N, O) = x (N, I) · wᵀ + b with w as the model keeps it: K.linear_forward over float32,
// K.linear_forward_panels over float32 in panels, K.linear_forward_f16 over halves,
// K.linear_forward_bf16 over bfloat16s.
void linear_forward(const GptKernels& K, float* y, const float* x, Gpt::WeightRef w, const float* b, int N, int I,
                    int O);

// ---------------------------------------------------------------------------------------------
// Training

enum class OptimizerKind { kAdamW, kSGD };

struct StepOptions {
  OptimizerKind optimizer = OptimizerKind::kAdamW;
  AdamWOptions adamw;  // nanoGPT's betas (0.9, 0.95), weight decay 0.1
  SGDOptions sgd;      // plain SGD
  double clip = 1.0;   // clip_grad_norm's max_norm; 0 turns clipping off (the norm is still measured)
  LrSchedule schedule{false, 1e-3, 1e-4, 0, 1};  // constant 1e-3 unless decay_lr
  std::uint64_t seed = 0;                        // step k's dropout masks: torch.manual_seed(seed + k)
};

struct StepResult {
  float loss = 0;       // before the update
  float grad_norm = 0;  // global 2-norm before clipping
  double lr = 0;        // the rate this step used
  long long step = 0;   // steps taken, this one included
};

// Steps of nanoGPT's train.py loop on a Gpt: zero grads → forward → backward → clip_grad_norm →
// lr of the schedule at this step → AdamW or SGD. Deterministic: the same model, batches and
// options give the same weights bit for bit (with the same kernel and build).
class Trainer {
 public:
  explicit Trainer(Gpt& model);

  // One step on a batch with targets. A non-finite loss or gradient norm, or an update that
  // leaves a non-finite weight, throws attn::Error saying which; the weights and the optimizer's
  // state are then exactly as before the call and steps() does not advance — except that a
  // non-finite loss from finite weights also undoes the update before it (the one that made
  // them, e.g. by a rate far too high), so the weights kept are the last that gave a finite
  // loss, and steps() goes back by one. Switching the optimizer kind starts the new one from
  // fresh state; other options may change between steps.
  StepResult step(const Batch& batch, const StepOptions& options);

  long long steps() const { return steps_; }
  const AdamW* adamw() const { return adamw_.current.get(); }
  const SGD* sgd() const { return sgd_.current.get(); }

  // One optimizer kind's state (gpt.cpp updates, undoes and commits it alike for every kind).
  template <class Optimizer>
  struct OptimizerState {
    std::unique_ptr<Optimizer> current;  // null until this kind's first committed step
    std::unique_ptr<Optimizer> backup;   // current as it was before the last update
    std::unique_ptr<Optimizer> fresh;    // an update's new optimizer, until the update is committed
  };

 private:
  Gpt& model_;
  std::vector<ParamSegment> segments_;
  OptimizerState<AdamW> adamw_;
  OptimizerState<SGD> sgd_;
  std::vector<float> params_backup_;
  long long steps_ = 0;
  // What the backups undo: the last committed update (once), made by this optimizer kind,
  // which it started fresh.
  struct Undo {
    bool valid = false;
    bool fresh_optimizer = false;
    OptimizerKind optimizer = OptimizerKind::kAdamW;
  } undo_;
  void undo_last_update();
};

// Sampling and generation (nanoGPT's generate, and one token at a time with a KV cache) are in
// inference.h.

}  // namespace attn::model

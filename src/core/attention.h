// attention-explorer core: self-attention with every intermediate kept.
//
// Dimension legend (used in every comment below):
//   B  batch            T   tokens (sequence length)      D   model width (x columns)
//   H  heads            dk  query/key width (all heads)   dv  value width (all heads)
//   hk = dk / H         hv  = dv / H                      do  output width (after W_O)
// All tensors are row-major float32.
//
// This header knows nothing of Emscripten; src/bindings/ wraps it for JavaScript.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

// Every bad input throws this. The message names the argument, the expected and the actual
// shape or value, e.g. "wq: expected shape (4, d_out) with 4 = x width, got (3, 2)".
class Error : public std::invalid_argument {
 public:
  explicit Error(const std::string& message) : std::invalid_argument(message) {}
};

// Documented limits. They are checked before anything is allocated.
struct Limits {
  static constexpr int kMaxBatch = 1024;
  static constexpr int kMaxTokens = 16384;                   // T
  static constexpr int kMaxWidth = 4096;                     // D, dk, dv, do
  static constexpr int kMaxHeads = 256;                      // H
  static constexpr long long kMaxInputElements = 1LL << 24;  // any one input tensor
  // B·H·T·T when the full weight matrices are materialised (5 such tensors are kept).
  static constexpr long long kMaxScoreElements = 1LL << 24;
  // Every value the call keeps or scratches (q, k, v, T×T tensors, outputs, dropout mask):
  // 2^27 floats = 512 MiB, a quarter of the WASM module's 2 GiB ceiling.
  static constexpr long long kMaxTraceElements = 1LL << 27;
  // Multiply-adds of one call (projections, B·H·T·T·(hk + hv), W_O): about a minute of WASM
  // SIMD at most, so a typo cannot hang a page for hours. T = 16384, H = 8, hs = 64 fits.
  static constexpr long long kMaxWork = 1LL << 39;
  // |value| of every input. With the width limits this keeps every product below FLT_MAX, so
  // finite inputs always give finite outputs (docs/limits.md has the derivation).
  static constexpr float kMaxMagnitude = 1e4f;
  // |scale / temperature|, the factor applied to the scores, for the same reason.
  static constexpr float kMaxAlpha = 1e6f;
};

// A read-only view of caller memory: row-major, shape.size() dims. An empty view
// (data == nullptr and shape empty) means "not given".
struct TensorView {
  const float* data = nullptr;
  std::vector<int> shape;

  bool given() const { return data != nullptr || !shape.empty(); }
  // Element count: 0 when empty or any dim ≤ 0; saturates at LLONG_MAX instead of overflowing.
  long long size() const;
};

// An owned tensor in the trace.
struct Tensor {
  std::vector<int> shape;
  std::vector<float> data;

  long long size() const { return static_cast<long long>(data.size()); }
  // Element access by flat index into a row-major shape; convenience for tests.
  float at(std::initializer_list<int> index) const;
};

// Which kernels run the passes. The names kernel_name() gives are the seeds' words, which the
// JavaScript API uses too: kEigen is "vectorized".
enum class Kernel {
  kReference,  // "reference": the unravelled loops of seed 000 (src/kernels/ _ref), scalar
  kEigen,      // "vectorized": Eigen matrix expressions
  kSimd,       // "simd": hand-written f32x4 kernels (src/kernels/ _simd)
  kTiled,      // "tiled": online-softmax tiles; never materialises T×T
  kAuto,       // "auto": kSimd, or kTiled when intermediates are not wanted and nothing needs weights
};
const char* kernel_name(Kernel kernel);
// Parses "reference" | "vectorized" | "simd" | "tiled" | "auto"; throws attn::Error naming `argument`.
Kernel parse_kernel(const std::string& name, const std::string& argument = "kernel");

enum class ScaleMode {
  kInverseSqrtHeadSize,  // s = 1/√hk (the default)
  kNone,                 // s = 1
  kFactor,               // s = Options::scale_factor
};

// All inputs. x is (T, D) or (B, T, D). Projection choices:
//   - none of wq/wk/wv/wqkv given: Q = K = V = x ("naive" attention);
//   - wq (D, dk), wk (D, dk), wv (D, dv) applied as x·W, optional bq, bk (dk), bv (dv);
//   - wqkv (3·d, D) in nn.Linear layout applied as x·Wᵀ + bqkv (3·d), split into q, k, v (d each).
//   - optional wo (dv, do) applied as merged·W_O + bo (do).
struct Inputs {
  TensorView x;
  TensorView wq, wk, wv, bq, bk, bv;
  TensorView wqkv, bqkv;
  TensorView wo, bo;
};

struct Options {
  int heads = 1;
  bool causal = false;
  // Key padding: (T) or (B, T) bytes, nonzero = keep the key. Empty = keep all.
  std::vector<std::uint8_t> key_padding;
  std::vector<int> key_padding_shape;
  ScaleMode scale_mode = ScaleMode::kInverseSqrtHeadSize;
  float scale_factor = 1.0f;
  float temperature = 1.0f;  // scaled = scores · s / temperature
  // Dropout on the weights, PyTorch semantics: only when training and p > 0; keep with
  // probability 1−p and scale kept weights by 1/(1−p).
  float dropout = 0.0f;
  std::uint64_t seed = 0;
  bool training = false;
  // Explicit keep-mask (B, H, T, T) bytes, nonzero = keep; overrides the seeded draw.
  std::vector<std::uint8_t> dropout_keep;
  Kernel kernel = Kernel::kAuto;
  // false: keep only q, k, v, head outputs, merged and output (no T×T tensors); lets the
  // tiled kernel run long sequences.
  bool materialize = true;
};

// Every intermediate of one call. Per-head tensors have shape (B, H, T, …) even when the
// input was (T, D); `batched` tells the caller whether to drop the leading B = 1.
struct Trace {
  int batch = 1, tokens = 0, width = 0, heads = 1;
  int dk = 0, dv = 0, d_out = 0;
  bool batched = false;
  float scale = 1.0f;                  // the s actually used (before temperature)
  Kernel kernel = Kernel::kReference;  // the kernel actually used

  Tensor q, k, v;       // (B, H, T, hk) / (B, H, T, hk) / (B, H, T, hv)
  Tensor scores;        // (B, H, T, T)  q·kᵀ
  Tensor scaled;        // (B, H, T, T)  scores · s / temperature
  Tensor masked;        // (B, H, T, T)  scaled with −∞ where masked
  Tensor weights;       // (B, H, T, T)  row softmax; a fully masked row is all 0
  Tensor dropped;       // (B, H, T, T)  weights after dropout (= weights when inactive)
  Tensor head_outputs;  // (B, H, T, hv) dropped · v
  Tensor merged;        // (B, T, dv)    heads concatenated, head h owns [h·hv, (h+1)·hv)
  Tensor output;        // (B, T, do)    merged·W_O + b_O, or merged when no W_O
};

// The whole forward pass. Throws attn::Error on any bad input; never asserts.
Trace attend(const Inputs& inputs, const Options& options);

// The gradient of a loss with respect to every input attend() was given, from the gradient of
// the loss with respect to its output (grad_output, shaped like Trace::output). Each tensor is
// shaped like the input it belongs to; an input not given gets an empty tensor. The backward
// pass walks the forward's steps in reverse (backward.cpp): output projection, merge of the
// heads, each head's passes 6 … 1 (head.cpp; masked entries and fully masked rows get zero
// gradient; dropout uses the forward's keep-mask), split into heads, projections. The kernel
// choice is the forward's: 'tiled' (materialize = false) recomputes each head's weights tile by
// tile from the rows' log Σ exp, never holding T×T. Throws attn::Error as attend() does, and
// names gradOutput for a wrong shape or a non-finite value.
struct Gradients {
  Tensor x;
  Tensor wq, wk, wv, bq, bk, bv;
  Tensor wqkv, bqkv;
  Tensor wo, bo;
};
Gradients attend_backward(const Inputs& inputs, const Options& options, const TensorView& grad_output);

// Seed 001's first multi-head form: H independent single-head attentions, each with its own
// column slice of W_Q, W_K, W_V (head h owns columns [h·hk, (h+1)·hk)), their outputs
// concatenated. Same Trace layout as attend(); a test proves the two forms agree.
Trace attend_heads_separately(const Inputs& inputs, const Options& options);

// The plain linear layer: y = x·w + b, applied to every row of x (the seed's "X W" that cannot
// tell the two banks apart). x (T, D) or (B, T, D), w (D, N), b (N) or not given; y has x's
// shape with N columns. Same checks and limits as attend(): every bad input throws attn::Error
// naming x, w or b with the expected and the actual shape or value. kernel picks the matmul
// (kAuto and kTiled: the f32x4 one).
Tensor linear(const TensorView& x, const TensorView& w, const TensorView& b = {}, Kernel kernel = Kernel::kAuto);

// Seed 002's causal averaging ("bag of words"): every token becomes the mean of itself and
// the tokens before it, computed three ways that must agree.
struct AveragingTrace {
  bool batched = false;
  Tensor loop;             // (B, T, D)  for b, t: mean of x[b, :t+1]
  Tensor tril_weights;     // (T, T)     tril(ones) with rows normalised to sum 1
  Tensor matmul;           // (B, T, D)  tril_weights · x
  Tensor masked_zeros;     // (T, T)     zeros with −∞ above the diagonal
  Tensor softmax_weights;  // (T, T)  softmax(masked_zeros) (= tril_weights)
  Tensor softmax;          // (B, T, D)  softmax_weights · x
};
AveragingTrace causal_average(const TensorView& x);

// Cosine similarity of two equal-length vectors (0 when either is all zero).
float cosine_similarity(const float* a, const float* b, int n);

}  // namespace attn

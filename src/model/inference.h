// Running a model on one sequence, as the page shows it: a forward pass that keeps what is asked
// for (every layer's and head's q, k, v, scores and weights, the residual stream, the logits),
// generation one token at a time with a KV cache, and the next-token distribution with
// temperature, top-k and top-p, sampled as torch.multinomial draws.
//
// Legend: P tokens already in the cache, n new tokens (rows), K = P + n keys, T tokens of a whole
// sequence, C n_embd, H n_head (H' of them captured), hs = C/H, V vocab_size, L n_layer.
//
// The cached forward, numbered (gpt.h's passes for the rows [P, P + n), eval mode):
//   1. embed      x = wte[token] + wpe[P + i]                                      (n, C)
//   per block:
//   3. ln_1       a = LayerNorm(x)
//   4. c_attn     qkv = a·Wᵀ + b                                                   (n, 3C)
//   5. split      q (H, n, hs); k, v appended to the cache's rows [P, P + n)       (H, K, hs)
//   6. attend     per head, the n query rows against the K cached keys, causally:
//                 P = 0 is gpt.h's square pass 6 (head_forward, or the tiled kernel when
//                 neither scores nor weights are kept); P > 0 is the rectangle of
//                   6a. scores  s = q·kᵀ                                            (n, K)
//                   6b. scale   s·(1/√hs), −∞ where key j > P + i (the future)
//                   6c. softmax each row
//                   6d. out     w·v                                                 (n, hs)
//   7–13. merge, c_proj, residual, ln_2, c_fc, GELU, c_proj, residual (gpt.h)
//   14. ln_f;  15. lm_head for the last row, or every row                          (1 or n, V)
// With ForwardEdits (interpret.h's interventions): a given stream in place of pass 1, entering
// block first_layer; and after pass 7 (7b) chosen heads' outputs replaced before c_proj.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/attention.h"
#include "model/gpt.h"

namespace attn {
class TorchGenerator;
}

namespace attn::model {

// ---------------------------------------------------------------------------------------------
// What one forward keeps

enum class LogitRows { kNone, kLast, kAll };

struct CaptureRequest {
  std::vector<int> layers;       // which layers' attention to keep, ascending; empty: every layer
  std::vector<int> heads;        // which heads of those layers, ascending; empty: every head
  bool qkv = true;               // q (H', n, hs) and the k, v of every key (H', K, hs)
  bool scores = true;            // q·kᵀ unscaled, for every pair, masked or not (H', n, K)
  bool weights = true;           // the causal softmax of the scaled scores (H', n, K)
  bool residual = true;          // the stream after the embedding and after every block (L + 1, n, C)
  bool after_attention = false;  // the stream after each block's attention add, before its MLP (L, n, C)
  bool z = false;                // each block's heads' outputs side by side before c_proj, y (L, n, C)
  bool mlp_out = false;          // each block's MLP output before its residual add (L, n, C); needs mlp
  LogitRows logits = LogitRows::kLast;
  // Time the passes (SequenceCapture::timings) with this clock (milliseconds, monotonic); null:
  // no timings. The core reads no clock of its own: the WASM engines would then import libc's
  // clock_gettime, which the element's glue does not have (src/bindings/ passes performance.now).
  double (*clock_ms)() = nullptr;
};

struct SequenceCapture {
  int rows = 0, keys = 0;          // n and K of the forward that filled it
  std::vector<int> layers, heads;  // as captured (every one when the request left them empty)
  struct Layer {
    std::vector<float> q, k, v, scores, weights;  // empty where not asked for
  };
  std::vector<Layer> attention;        // one per entry of `layers`
  std::vector<float> residual;         // (L + 1, n, C) or empty
  std::vector<float> after_attention;  // (L, n, C) or empty: x + attention(x) of every block
  std::vector<float> z;                // (L, n, C) or empty: TransformerLens's hook_z, merged
  std::vector<float> mlp_out;          // (L, n, C) or empty: TransformerLens's hook_mlp_out
  std::vector<float> logits;           // (1, V), (n, V) or empty
  // With request.timings: milliseconds in the linear layers (c_attn, c_proj, c_fc, the MLP's
  // c_proj, lm_head), in attention (split, pass 6, merge), and in the whole append.
  struct Timings {
    bool measured = false;
    double linear_ms = 0, attention_ms = 0, total_ms = 0;
  } timings;
};

// Floats a capture of n rows over K keys holds, for the guard below.
long long capture_floats(const ModelConfig& config, int rows, int keys, const CaptureRequest& request);
// Its cap: 2^26 floats (256 MiB), as for a training batch's activations. GPT-2 small's every
// layer and head at T = 1024 would be 2·12·12·1024² = 302M floats for the scores and weights
// alone: that asks for fewer layers or heads, or no scores.
constexpr long long kMaxCaptureFloats = 1LL << 26;

// What one forward changes (interpret.h's tools), passed to append; by default nothing.
struct ForwardEdits {
  // In place of pass 1 (the embedding), the stream `stream` (n, C) enters block first_layer
  // (0 … L) — a clean run's capture of the stream before it — and the blocks below do not run.
  // From first_layer > 0 the cache must be empty and stays empty (the blocks below compute no
  // keys or values for it), and a capture leaves the layers below zero.
  int first_layer = 0;
  const float* stream = nullptr;  // (n, C); required when first_layer > 0
  // Heads whose output is replaced after pass 6, before c_proj (TransformerLens's hook_z), at
  // every one of the n rows: by `value` (hs), or by zeros when value is null.
  struct Head {
    int layer = 0, head = 0;
    const float* value = nullptr;
  };
  std::vector<Head> heads;
};

// ---------------------------------------------------------------------------------------------
// One sequence, cached

class CachedSequence {
 public:
  // A cache of `capacity` tokens (1 … block_size) for a model that outlives it; `kernel` as
  // Gpt::kernel (kAuto: resolve_kernel by the length of each append).
  CachedSequence(const Gpt& model, int capacity, Kernel kernel = Kernel::kAuto);

  int length() const { return length_; }  // P: tokens in the cache
  int capacity() const { return capacity_; }
  // Forgets every token (the buffers are kept).
  void clear() { length_ = 0; }

  // Runs tokens[0 … n) at positions P … P + n − 1 (1 ≤ n, P + n ≤ capacity, ids in [0, V))
  // and appends their keys and values; fills `out` as `request` asks (attn::Error naming the
  // argument for a bad request or a capture beyond kMaxCaptureFloats, before anything runs).
  // `edits`, when given, changes the forward as ForwardEdits says (checked likewise).
  void append(const int* tokens, int n, const CaptureRequest& request, SequenceCapture& out,
              const ForwardEdits* edits = nullptr);

 private:
  // What every head of one append shares: the kernels, whether the square pass runs tiled, 1/√hs,
  // the P cached tokens and the K = P + n keys.
  struct AttendPlan {
    const GptKernels* kernels;
    bool tiled;
    float alpha;
    int P, K;
  };
  struct Captured {
    std::vector<int> layers, heads;  // the layers and heads an append's capture keeps, in order
  };
  Captured check_append(const int* tokens, int n, const CaptureRequest& request, const ForwardEdits* edits) const;
  void embed(const int* tokens, int n, const ForwardEdits* edits);
  void size_scratch(int n, int K);
  void attend_heads(const AttendPlan& plan, int l, int n, SequenceCapture::Layer* kept, const std::vector<int>& heads,
                    const CaptureRequest& request);

  const Gpt& model_;
  int capacity_ = 0, length_ = 0;
  Kernel kernel_;
  std::vector<std::vector<float>> k_, v_;  // per layer (H, capacity, hs)
  // Scratch, sized by the longest append so far.
  std::vector<float> x_, a_, qkv_, q_, heads_, y_, mid_, fc_, act_, square_, lse_, rows_, head_out_;
};

// The forward of one whole sequence (T = tokens.size() ≤ block_size) with its capture: what
// model.trace() shows. The logits of the last row equal Gpt::forward's for the same kernel.
SequenceCapture trace_sequence(const Gpt& model, const std::vector<int>& tokens, const CaptureRequest& request,
                               Kernel kernel = Kernel::kAuto);

// ---------------------------------------------------------------------------------------------
// The next token

struct SamplingOptions {
  double temperature = 1.0;  // ≥ 0; 0 takes the most likely token (the first of equals)
  int top_k = 0;             // ≥ 0; 0 keeps all V, k keeps the k largest logits (ties at the k-th kept)
  double top_p = 1.0;        // in (0, 1]; 1 keeps all; p keeps the most likely tokens whose probabilities reach p
};
// attn::Error naming temperature, topK or topP when out of range.
void check_sampling(const SamplingOptions& options, int V);

// The distribution the next token is drawn from: softmax(logits / temperature) over the tokens
// that top-k, then top-p keep (Hugging Face's TopKLogitsWarper and TopPLogitsWarper, in that
// order: top-p sorts the kept tokens by probability, ascending, and drops those whose running sum
// stays ≤ 1 − p; the most likely token is always kept), the others 0. In double, returned as
// float (V). Temperature 0: 1 for the most likely token (the first of equals), 0 elsewhere.
std::vector<float> next_token_probs(const float* logits, int V, const SamplingOptions& options);

// One token drawn from that distribution as torch 1.13's CPU torch.multinomial(probs, 1) draws it
// from `generator`: V exponential draws q_v (one random64() each), then the first argmax of
// probs_v / q_v. Temperature 0 draws nothing and takes the argmax of the logits.
int sample_token(const float* logits, int V, const SamplingOptions& options, TorchGenerator& generator);

// The k most likely tokens of probs (V), most likely first (ties: the smaller id first).
std::vector<int> top_tokens(const std::vector<float>& probs, int k);

// ---------------------------------------------------------------------------------------------
// Generation

struct GenerateOptions {
  double temperature = 1.0;
  int top_k = 0;
  double top_p = 1.0;
  std::uint64_t seed = 0;  // torch.manual_seed(seed) before the first draw
};

// nanoGPT's generate(): `count` times, crop the context to its last block_size tokens, run the
// model (eval) on it, take the last position's logits / temperature, keep the top k and the top
// p, softmax, sample one token as torch.multinomial(probs, 1) draws it after
// torch.manual_seed(seed) (the same tokens as nanoGPT's generate — and Hugging Face's sampling
// with top_p — for the same weights and seed, unless two candidates tie within float rounding)
// and append it. Every token is a full forward of the context (no cache). Returns the `count`
// new tokens. attn::Error for an empty prompt, a token outside [0, V), count outside [0, 2^16],
// or a bad option.
std::vector<int> generate(Gpt& model, const std::vector<int>& prompt, int count, const GenerateOptions& options);

// Generation one token at a time with a KV cache, for the page: each step runs only the new
// token (its query row against the cached keys and values).
//
// When the sequence fills the context (block_size tokens) the next token cannot be appended to
// the cache: positions are absolute (wpe), so keeping the last block_size − 1 tokens would move
// every one of them. The step then does what nanoGPT's generate does — crop the sequence to its
// last block_size tokens and recompute them all — and says so (recomputed = true; its cached
// cost is the full cost). The tokens are therefore generate()'s for the same seed and options.
class GenerationSession {
 public:
  // Runs the prompt (1 … 65536 ids; its last block_size tokens when longer) into the cache.
  GenerationSession(const Gpt& model, const std::vector<int>& prompt, const GenerateOptions& options,
                    Kernel kernel = Kernel::kAuto);
  ~GenerationSession();

  struct Step {
    int token = 0;                // the token appended
    int position = 0;             // its position in the model's context (0 … block_size − 1)
    bool recomputed = false;      // the context was full: cropped and recomputed
    std::vector<int> top_tokens;  // the 10 most likely of the distribution it was drawn from
    std::vector<float> top_probs;
    // The new token's query row against every key in the cache, itself included: (L, H, keys).
    std::vector<float> attention;
    int keys = 0;
    // Multiply-adds of running this token (the linear layers, q·k and weights·v of the causal
    // pairs, lm_head for the last row), and of recomputing the whole context instead:
    //   cached  L·(lin·C² + 2·C·keys) + C·V
    //   full    L·(lin·C²·keys + C·keys·(keys + 1)) + C·V        (keys = the context's length)
    // with lin = 12 (attention 4C² + MLP 8C² per token; 4 without the MLP). LayerNorm, GELU,
    // softmax and the embedding (O(C) per token) are not multiply-adds of a product and are left
    // out. A recomputed step costs `full` both ways.
    long long macs_cached = 0, macs_full = 0;
  };
  // Draws the next token (with the session's generator) — or takes `forced` (≥ 0, drawing
  // nothing) — appends it and runs it through the model.
  Step step(int forced = -1);

  const std::vector<int>& tokens() const { return tokens_; }    // prompt and every token appended
  const std::vector<float>& logits() const { return logits_; }  // the last position's (V)
  const GenerateOptions& options() const { return options_; }

 private:
  const Gpt& model_;
  GenerateOptions options_;
  std::unique_ptr<TorchGenerator> generator_;
  CachedSequence cache_;
  std::vector<int> tokens_;
  std::vector<float> logits_;
  SequenceCapture capture_;
  void run_context();  // clears the cache and runs the last block_size tokens
};

}  // namespace attn::model

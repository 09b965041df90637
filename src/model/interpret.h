// What a head does, not only where it looks (issue 32): four tools on one sequence, each one call
// with plain inputs and outputs, exact against PyTorch (tests/cpp/model/interpret_test.cpp).
//   ablate_head      knock out one head — its output zeroed before c_proj, or replaced by its mean
//                    over a reference text — and see the next-token probabilities at a position
//                    and the sequence's loss change
//   ablation_sweep   every head knocked out in turn: the layer × head picture of the effect on one
//                    prediction (and on the loss), rerunning only the blocks from the ablated one up
//   attribute_logit  direct logit attribution: what each head, each MLP, the embeddings and the
//                    attention biases write toward a token at a position, through the final
//                    LayerNorm (its scale frozen at the clean run's) and the unembedding
//   logit_lens       the residual stream after the embedding and after every block, each read
//                    through the final LayerNorm (applied afresh) and the unembedding
//
// Legend: T tokens of the sequence, R tokens of a reference text, L n_layer, H n_head, hs = C/H
// head size, C n_embd, V vocab_size, k top tokens. "The prediction at p" (0 ≤ p < T) is the
// distribution of the token after tokens[p]: logits row p. c is a candidate token, c′ a second
// one (a logit difference c − c′). The loss is the mean cross-entropy of every next token,
// −log p(tokens[i + 1] | tokens[0 … i]) for i = 0 … T − 2 (NaN when T = 1: nothing to score).
//
// The definitions are TransformerLens's (HookedTransformer, ActivationCache), with these choices:
//   - Zero ablation is a hook on hook_z setting head h's z (T, hs) to 0: c_proj's bias stays.
//     Mean ablation sets it to the head's z averaged over every position of ONE reference text
//     (R tokens), the same vector at every position (TransformerLens users usually average over a
//     batch of texts, sometimes per position; here it is one text, all positions).
//   - Direct logit attribution is logit_attrs over get_full_resid_decomposition(expand_neurons =
//     False) at p: components L·H head results (z_h · W_O_h, no bias), L MLP outputs (their bias
//     included), embed, pos_embed, and the attention biases summed over blocks; each passed
//     through apply_ln_to_stack (centred, divided by the final LayerNorm's scale √(var + eps) of
//     the clean stream at p — frozen, so the components add up), then dotted with
//     ln_f.weight ⊙ W_U[c] (TransformerLens folds the weight into W_U with fold_ln). The final
//     LayerNorm's bias gives ln_f.bias · W_U[c] (TransformerLens's b_U after folding), returned
//     apart, so Σ components + ln_bias = the logit of c. We do not centre the unembedding
//     (TransformerLens's center_unembed does by default): our attributions add up to the model's
//     own logit, theirs to the logit minus its mean over the vocabulary — the same for a logit
//     difference and for probabilities.
//   - The logit lens is accumulated_resid(apply_ln = True) at the unembed — ln_final applied to
//     each stream with its own statistics — times W_U (GPT-2 has no b_U). The entry after the
//     last block is the model's own logits, bit for bit.
// Sums and the attribution's dot products are in double; logits, probabilities and losses come
// from the model's float kernels, as the forward computes them. Ties in a ranking go to the
// smaller token id.
//
// Every call throws attn::Error naming the argument for a bad one (a layer, head, position or
// token out of range, an empty or too long sequence or reference text) before anything runs.
#pragma once

#include <limits>
#include <vector>

#include "core/attention.h"
#include "model/gpt.h"

namespace attn::model {

enum class AblationMode { kZero, kMean };
const char* ablation_mode_name(AblationMode mode);  // "zero", "mean"

struct AblationOptions {
  AblationMode mode = AblationMode::kZero;
  std::vector<int> reference;  // kMean: the reference text, 1 … block_size token ids
  Kernel kernel = Kernel::kAuto;
};

// Each head's output z averaged over the R positions of the reference text: (L, H, hs) — what
// mean ablation puts in its place. The sum is in double.
std::vector<float> mean_head_outputs(const Gpt& model, const int* reference, int R, Kernel kernel = Kernel::kAuto);

// ---------------------------------------------------------------------------------------------
// 1. One head knocked out

struct HeadAblation {
  std::vector<float> probs, ablated_probs;    // (V): softmax of the logits at p, clean and ablated
  std::vector<float> logits, ablated_logits;  // (T, V) every position's, when all_logits; else empty
  std::vector<float> losses, ablated_losses;  // (T − 1): row i is −log p(tokens[i + 1] | tokens[0 … i])
  float loss = std::numeric_limits<float>::quiet_NaN();          // the mean of losses (NaN when T = 1)
  float ablated_loss = std::numeric_limits<float>::quiet_NaN();  // and of ablated_losses
  std::vector<float> value;  // (hs): what replaced the head's z at every position (zeros, or the mean)
};

// tokens (T), 1 ≤ T ≤ block_size; 0 ≤ layer < L, 0 ≤ head < H, 0 ≤ position < T.
void ablate_head(HeadAblation& out, const Gpt& model, const int* tokens, int T, int layer, int head, int position,
                 bool all_logits, const AblationOptions& options = {});

// ---------------------------------------------------------------------------------------------
// 2. Every head knocked out in turn

struct SweepOptions {
  AblationOptions ablation;
  // The blocks whose heads are knocked out, ascending and distinct; empty: every block. (A page
  // can sweep block by block and draw each row of the picture as it comes.)
  std::vector<int> layers;
  bool loss = false;  // also every ablation's loss: runs all T rows and the whole unembedding
  // true: an ablation of a head of block l starts from the clean run's stream before block l (the
  // same bits as a whole forward, l blocks fewer); false: every ablation is a whole forward (the
  // naive way, kept to measure and to test the reuse against).
  bool reuse = true;
};

struct AblationSweep {
  std::vector<int> layers;              // the blocks swept
  float log_prob = 0;                   // clean log p(c) at p
  std::vector<float> ablated_log_prob;  // (L, H): with head (l, h) knocked out; NaN in blocks not swept
  float loss = std::numeric_limits<float>::quiet_NaN();  // clean, when options.loss (NaN when T = 1)
  std::vector<float> ablated_loss;  // (L, H) when options.loss (NaN in blocks not swept), else empty
  long long rows_run = 0;           // Σ over the ablated forwards of rows × blocks run: the work reuse saves
};

// Without options.loss only the rows 0 … p run (the prediction at p cannot see later tokens), and
// the unembedding only for row p. tokens (T); 0 ≤ position < T, 0 ≤ token < V.
void ablation_sweep(AblationSweep& out, const Gpt& model, const int* tokens, int T, int position, int token,
                    const SweepOptions& options = {});

// ---------------------------------------------------------------------------------------------
// 3. Direct logit attribution

struct LogitAttribution {
  std::vector<float> heads;  // (L, H): head (l, h)'s output at p, z_h · W_O_h (no bias)
  std::vector<float> mlps;   // (L): block l's MLP output at p, its bias included; empty without MLP
  float embed = 0;           // wte[tokens[p]]
  float pos_embed = 0;       // wpe[p]
  float attention_bias = 0;  // Σ over blocks of the attention's c_proj bias (0 without bias)
  float ln_bias = 0;         // ln_f.bias · (W_U[c] − W_U[c′]): the final LayerNorm's own term
  float logit = 0;           // the clean logit of c at p (minus that of c′)
  float scale = 1;           // √(var + eps) of the clean stream at p, the frozen scale (1 without LayerNorm)
  float total = 0;           // Σ of every component but ln_bias (in double): = logit − ln_bias up to rounding
};

// The attribution of the logit of `token` at `position`, or of the difference token − other
// (other = −1: none). tokens (T); 0 ≤ position < T; 0 ≤ token, other < V.
void attribute_logit(LogitAttribution& out, const Gpt& model, const int* tokens, int T, int position, int token,
                     int other = -1, Kernel kernel = Kernel::kAuto);

// ---------------------------------------------------------------------------------------------
// 4. The logit lens

struct LensOptions {
  std::vector<int> positions;  // ascending, distinct, in [0, T); empty: every position
  int k = 5;                   // top tokens per layer and position: 1 … min(V, kMaxLensTop)
  int position = -1;           // with token: the chosen token's rank and probability at this position
  int token = -1;              // −1: none
  Kernel kernel = Kernel::kAuto;
};
constexpr int kMaxLensTop = 100;

struct LogitLens {
  std::vector<int> positions;  // P′ positions, as read
  int k = 0;
  std::vector<int> top_tokens;      // (L + 1, P′, k): entry l reads the stream after l blocks (0: the
  std::vector<float> top_probs;     // embedding), the most likely token first; (L + 1, P′, k)
  std::vector<int> token_ranks;     // (L + 1): 0 for the most likely; empty without a token
  std::vector<float> token_probs;   // (L + 1)
  std::vector<float> token_logits;  // (L + 1)
};

// Each position read costs L + 1 rows of the unembedding (C·V multiply-adds each): on GPT-2 small
// 13 × 38.6M per position, so a long sequence asks for a few positions.
void logit_lens(LogitLens& out, const Gpt& model, const int* tokens, int T, const LensOptions& options = {});

}  // namespace attn::model

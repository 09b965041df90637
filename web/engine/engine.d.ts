// Types for web/engine/engine.js: the JavaScript API of the attention-explorer WASM core.
// Shapes use: B batch, T tokens, D model width, H heads, hk = d_k / H, hv = d_v / H, do output width.

/** A dense row-major tensor. Arrays returned by the engine are JS-owned copies. */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

/** A matrix or batch as nested arrays of numbers, or a flat tensor. */
export type TensorLike = number[] | number[][] | number[][][] | { shape: number[]; data: Float32Array | number[] };

/** Booleans (true = keep) as nested arrays, or a flat tensor of 0/1. */
export type FlagsLike = boolean[] | boolean[][] | number[] | number[][] | { shape: number[]; data: ArrayLike<number> };

export type KernelName = 'reference' | 'vectorized' | 'simd' | 'tiled' | 'auto';

export interface AttendOptions {
  /** Token vectors: (T, D) or batched (B, T, D). Required. */
  x: TensorLike;
  /** Query/key/value projections (D, d_k), (D, d_k), (D, d_v), applied as x·W. Omit all three for Q = K = V = x. */
  wq?: TensorLike;
  wk?: TensorLike;
  wv?: TensorLike;
  /** Optional biases (d_k), (d_k), (d_v). */
  bq?: TensorLike;
  bk?: TensorLike;
  bv?: TensorLike;
  /** Alternative fused projection in nn.Linear layout: weight (3·d, D) applied as x·Wᵀ, bias (3·d); split into q, k, v. */
  wqkv?: TensorLike;
  bqkv?: TensorLike;
  /** Optional output projection (d_v, do) applied as merged·W, and its bias (do). */
  wo?: TensorLike;
  bo?: TensorLike;
  /** Number of heads; must divide d_k and d_v. Default 1. */
  heads?: number;
  /** Mask keys after each query (−∞ before the softmax). Default false. */
  causal?: boolean;
  /** Per key: true = keep. Shape (T) or (B, T). A query with every key masked gets zero weights and a zero output (PyTorch gives NaN). */
  keyPadding?: FlagsLike | null;
  /** true → scores · 1/√hk (default); false → unscaled; a number → that factor. */
  scale?: boolean | number;
  /** Softmax temperature: scaled = scores · scale / temperature. Default 1, must be > 0. */
  temperature?: number;
  /** Dropout probability p in [0, 1) on the weights, applied only when training: kept weights are scaled by 1/(1−p). */
  dropout?: number;
  /** Seed of the dropout draw (an integer ≥ 0); the same seed gives the same mask. */
  seed?: number;
  /** Apply dropout (PyTorch's train mode). Default false (eval: dropout is the identity). */
  training?: boolean;
  /** Explicit dropout keep-mask (B, H, T, T) (for tests); overrides the seeded draw. */
  dropoutKeep?: FlagsLike | null;
  /** Implementation. 'auto' picks 'simd', or 'tiled' when materialize is false and no dropout applies. */
  kernel?: KernelName;
  /** false: no T×T tensors in the trace (for long sequences; enables 'tiled'). Default true. */
  materialize?: boolean;
}

export type TraceTensorName =
  | 'q' | 'k' | 'v' | 'scores' | 'scaled' | 'masked' | 'weights' | 'dropped' | 'headOutputs' | 'merged' | 'output';

/** Every intermediate of one attend() call. Per-head tensors are [H, T, …] ([B, H, T, …] when batched). */
export interface Trace {
  /** Projected queries [H, T, hk], keys [H, T, hk] and values [H, T, hv]. */
  q: Tensor;
  k: Tensor;
  v: Tensor;
  /** q·kᵀ for every pair, masked or not [H, T, T]. Absent when materialize is false. */
  scores?: Tensor;
  /** scores · scale / temperature. */
  scaled?: Tensor;
  /** scaled with −Infinity where the causal or padding mask hides a key. */
  masked?: Tensor;
  /** Row softmax of masked: each row sums to 1 (or is all 0 when fully masked). */
  weights?: Tensor;
  /** weights after dropout (equal to weights when dropout is off). */
  dropped?: Tensor;
  /** dropped · v per head [H, T, hv]. */
  headOutputs: Tensor;
  /** Heads concatenated [T, d_v]: head h owns columns [h·hv, (h+1)·hv). */
  merged: Tensor;
  /** merged · W_O + b_O, or merged when no W_O [T, do]. */
  output: Tensor;
  /** The kernel that actually ran. */
  kernel: Exclude<KernelName, 'auto'>;
  /** The scale factor s actually used (before temperature). */
  scale: number;
  /** Whether x was (B, T, D). */
  batched: boolean;
  /** Wall time of the computation in milliseconds. */
  ms: number;
  /** A tensor as nested arrays. Throws AttentionError for an unknown name. */
  get(name: TraceTensorName): number[][] | number[][][] | number[][][][];
}

/** Seed 002's causal averaging ("bag of words"), three ways that agree. */
export interface AveragingResult {
  /** for each t: mean of x[:t+1] — (T, D) or (B, T, D) */
  loop: Tensor;
  /** tril(ones(T, T)) with rows normalised to sum 1 */
  trilWeights: Tensor;
  /** trilWeights · x */
  matmul: Tensor;
  /** zeros with −Infinity above the diagonal (T, T) */
  maskedZeros: Tensor;
  /** softmax(maskedZeros) — equal to trilWeights */
  softmaxWeights: Tensor;
  /** softmaxWeights · x */
  softmax: Tensor;
  batched: boolean;
  get(name: 'loop' | 'trilWeights' | 'matmul' | 'maskedZeros' | 'softmaxWeights' | 'softmax'): number[][] | number[][][];
}

export interface ProjectOptions {
  /** Token vectors: (T, D) or batched (B, T, D). Required. */
  x: TensorLike;
  /** The weight (D, N), applied as x·w. Required. */
  w: TensorLike;
  /** Optional bias (N), added to every row. */
  b?: TensorLike | null;
}

/** y = x·w + b: (T, N), or (B, T, N) for a batched x. */
export interface Projection extends Tensor {
  /** y as nested arrays. */
  get(): number[][] | number[][][];
}

/** Seed 003's bank example, exactly as the seed gives it. */
export interface BankExample {
  /** stream, mud, money, loan, bank → 4-d embeddings */
  vocabulary: Record<string, number[]>;
  /** The plain linear layer (4, 3). */
  W: number[][];
  /** Projections (4, 2), (4, 2), (4, 3). */
  W_query: number[][];
  W_key: number[][];
  W_value: number[][];
  contexts: { river: string[]; finance: string[] };
}

export interface Limits {
  maxBatch: number;
  maxTokens: number;
  maxWidth: number;
  maxHeads: number;
  maxInputElements: number;
  maxScoreElements: number;
  /**
   * The model's limits (whole engine only): config ranges; parameters ≤ 2^29 for a model that
   * is run (GPT-2 small and medium fit the 4 GB WebAssembly memory), ≤ 2^26 for one that is
   * trained; a training batch's activations and a trace's capture ≤ 2^26 floats each.
   */
  model?: {
    maxVocab: number;
    maxContext: number;
    maxLayers: number;
    maxHeads: number;
    maxWidth: number;
    maxParams: number;
    maxTrainParams: number;
    maxActivations: number;
    maxCapture: number;
  };
}

/** engine.pca's answer: points x (N, D) seen through their two directions of largest spread. */
export interface PcaResult {
  mean: Tensor;        // (D)
  components: Tensor;  // (2, D) unit directions, each signed so its largest entry is positive
  projected: Tensor;   // (N, 2) (x − mean) · componentsᵀ
  explained: Tensor;   // (2) share of the total variance along each component
  get(name: 'mean' | 'components' | 'projected' | 'explained'): number[] | number[][];
}

/**
 * PyTorch 1.13's CPU generator (x86-64, no MKL) after torch.manual_seed(seed), bit for bit:
 * successive draws continue one stream, as successive notebook cells do. Shapes are arrays of 1 to
 * 8 integers ≥ 0 (at most 2^24 elements). Bad arguments throw AttentionError naming them; a
 * rejected call draws nothing.
 */
export interface TorchGenerator {
  /** torch.rand(*shape): uniform in [0, 1). */
  rand(shape: number[]): Tensor;
  /** torch.randn(*shape): standard normal, with torch's paths for fewer and for 16 or more elements. */
  randn(shape: number[]): Tensor;
  /** torch.randint(low, high, shape): integers in [low, high), |low|, |high| ≤ 2^24 (exact in float32). */
  randint(low: number, high: number, shape: number[]): Tensor;
  /** nn.Linear(inFeatures, outFeatures, bias) default initialisation, weight (out, in) in torch's layout. */
  linear(inFeatures: number, outFeatures: number, options?: { bias?: boolean }): { weight: Tensor; bias: Tensor | null };
  /** nn.Embedding(count, dim) initialisation: normal(0, 1). */
  embedding(count: number, dim: number): Tensor;
  /** Tensor.normal_(mean, std) of a fresh tensor. */
  normal(mean: number, std: number, shape: number[]): Tensor;
  /** Tensor.uniform_(from, to) of a fresh tensor. */
  uniform(from: number, to: number, shape: number[]): Tensor;
  /** 0/1 draws of probability p, as dropout's noise is drawn (bernoulli_ without MKL). */
  bernoulli(p: number, shape: number[]): Tensor;
  /** F.dropout(input, p, training=True): the keep mask (1 = kept) and the output, kept × 1/(1 − p). */
  dropout(input: TensorLike, p: number): { keep: Tensor; output: Tensor };
  /** Advances the stream by `words` 32-bit draws (cells a notebook ran but the page does not show). */
  skip(words: number): void;
  /** Frees the generator now (otherwise it is freed when garbage-collected). */
  dispose(): void;
}

/** attend()'s arguments and options, and the gradient of a loss by attend()'s output. */
export interface AttendBackwardOptions extends AttendOptions {
  /** ∂loss/∂output, shaped like attend()'s output: (T, do) or (B, T, do). Finite, |value| ≤ 1e4. */
  gradOutput: TensorLike;
}

export type GradientName = 'x' | 'wq' | 'wk' | 'wv' | 'bq' | 'bk' | 'bv' | 'wqkv' | 'bqkv' | 'wo' | 'bo';

/**
 * engine.attendBackward's answer: ∂loss/∂input for every input attend() was given, under the
 * input's name and shaped like it (x, wq, …, bo); inputs not given are absent.
 */
export type Gradients = Partial<Record<GradientName, Tensor>> & {
  get(name: GradientName): number[] | number[][] | number[][][];
};


// ---------------------------------------------------------------------------------------------
// Models: engine.createModel / engine.loadModel (web/engine/model.js; src/model/gpt.h).
// Shapes: B batch, T tokens (1 ≤ T ≤ contextLength), V vocabSize, H heads, hs = width / heads.

/**
 * nanoGPT's GPTConfig (karpathy/nanoGPT model.py) plus two switches for teaching. The model has
 * nanoGPT's architecture and parameter names: transformer.wte, .wpe, .h.{i}.ln_1, .attn.c_attn
 * (fused q, k, v in nn.Linear layout), .attn.c_proj, .ln_2, .mlp.c_fc, .mlp.c_proj (exact erf
 * GELU, nn.GELU() as nanoGPT's MLP since 2023, not the tanh `new_gelu`), transformer.ln_f, and
 * lm_head tied to wte. Attention is causal.
 */
export interface ModelConfig {
  /** Token ids are 0 … vocabSize − 1. Required, 1 … 131072. */
  vocabSize: number;
  /** block_size: the longest context, rows of wpe. Required, 1 … 16384. */
  contextLength: number;
  /** Transformer blocks. Required, 0 … 64 (0: embeddings → ln_f → lm_head). */
  layers: number;
  /** Attention heads; must divide width. Required, 1 … 256. */
  heads: number;
  /** n_embd. Required, 1 … 4096. At most 2^29 parameters in all (2^26 to train). */
  width: number;
  /** Biases in every Linear and LayerNorm. Default true. */
  bias?: boolean;
  /** p of every dropout (embeddings, attention weights, residual branches), in [0, 1); only step() applies it. Default 0. */
  dropout?: number;
  /** false: attention-only blocks (no ln_2, no MLP). Default true. */
  mlp?: boolean;
  /** false: no LayerNorms (ln_1, ln_2, ln_f become the identity). Default true. */
  layerNorm?: boolean;
  /**
   * The MLP's GELU: 'exact' (erf; nanoGPT's nn.GELU(), the default) or 'tanh' (GPT-2's
   * gelu_new, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), which Hugging Face's checkpoints use).
   */
  gelu?: 'exact' | 'tanh';
  /** Every LayerNorm's eps, in (0, 1]. Default 1e-5 (GPT-2's layer_norm_epsilon too). */
  layerNormEps?: number;
  /** The weights are PyTorch's GPT(config) after torch.manual_seed(seed), bit for bit (1.13, x86-64). Default 0. */
  seed?: number;
}

/**
 * B sequences of T token ids, row-major: tokens[b·T + t]. targets[i] is the token to predict
 * after tokens[0 … i] of its row, or −1 to ignore that position (PyTorch's ignore_index); at
 * least one target must not be −1.
 */
export interface Batch {
  tokens: Int32Array | number[];
  targets: Int32Array | number[];
  /** B ≥ 1. */
  batch: number;
  /** T, 1 … contextLength. */
  context: number;
}

/**
 * One step of nanoGPT's training loop: zero grads → forward → backward → clip_grad_norm(clip) →
 * this step's lr → AdamW (weight decay on 2-D weights only) or SGD. PyTorch 1.13's arithmetic.
 */
export interface StepOptions {
  /** Default 'adamw'. Switching starts the other optimizer from fresh state. */
  optimizer?: 'adamw' | 'sgd';
  /** Learning rate, finite ≥ 0 (the peak with a schedule). Default 1e-3. */
  lr?: number;
  /** AdamW's betas, each in [0, 1). Default [0.9, 0.95] (nanoGPT's). */
  betas?: [number, number];
  /** AdamW's eps. Default 1e-8. */
  eps?: number;
  /** Decoupled weight decay (AdamW) or L2 (SGD), on 2-D weights only. Default 0.1 for AdamW, 0 for SGD. */
  weightDecay?: number;
  /** SGD momentum. Default 0. */
  momentum?: number;
  /** Max global gradient norm (clip_grad_norm_); 0: no clipping. Default 1. */
  clip?: number;
  /** Steps of linear warmup, nanoGPT's lr·(it + 1)/(warmup + 1); then lr. Default 0. */
  warmup?: number;
  /** With decaySteps > warmup: cosine decay from lr to minLr at step decaySteps, minLr after. Default 0 (none). */
  decaySteps?: number;
  /** The floor of the cosine decay. Default lr / 10. */
  minLr?: number;
  /** Dropout masks of step k: torch.manual_seed(seed + k) before the forward (torch's masks). Default 0. */
  seed?: number;
}

export interface StepResult {
  /** Mean cross-entropy of the batch before the update. */
  loss: number;
  /** Global gradient 2-norm before clipping. */
  gradNorm: number;
  /** The learning rate this step used. */
  lr: number;
  /** Steps taken, this one included. */
  step: number;
}

/**
 * One layer's attention over one sequence: q, k, v (H, T, hs); scores = q·kᵀ unscaled, every
 * pair (H, T, T); weights, the causal softmax (H, T, T). From trace(), H' of the heads and only
 * the tensors asked for (get() of another throws AttentionError).
 */
export interface LayerAttention {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  scores: Tensor;
  weights: Tensor;
  get(name: 'q' | 'k' | 'v' | 'scores' | 'weights'): number[][][];
}

export interface GenerateOptions {
  /** ≥ 0; 0 always takes the most likely token. Default 1. */
  temperature?: number;
  /** Keep the k most likely tokens (ties at the k-th kept), 0 … vocabSize; 0: all. Default 0. */
  topK?: number;
  /**
   * Nucleus sampling, Hugging Face's TopPLogitsWarper after top-k: the tokens sorted by
   * probability, ascending, are dropped while their running sum stays ≤ 1 − topP; the most
   * likely is always kept. In (0, 1]; 1: all. Default 1.
   */
  topP?: number;
  /** torch.manual_seed(seed) before the first draw: the tokens nanoGPT's generate samples with torch.multinomial for the same weights. Default 0. */
  seed?: number;
}

/**
 * What model.trace keeps of one forward over T tokens. Every layer and head of a long input can
 * be too much (GPT-2 small at T = 1024: 2 · 12 · 12 · 1024² = 302M floats of scores and
 * weights): a capture above limits.model.maxCapture (2^26 floats) is an AttentionError
 * (argument 'capture') that says to ask for fewer layers or heads, or to leave out scores and
 * weights.
 */
export interface TraceOptions {
  /** Layers whose attention to keep: ascending, distinct, in [0, layers). [] (default): every layer. */
  layers?: number[];
  /** Heads of those layers to keep: ascending, distinct, in [0, heads). [] (default): every head. */
  heads?: number[];
  /** q (H', T, hs), k and v (H', T, hs). Default true. */
  qkv?: boolean;
  /** q·kᵀ, unscaled, for every pair, masked or not (H', T, T). Default true. */
  scores?: boolean;
  /** The causal softmax of the scaled scores (H', T, T): row i over keys 0 … i, zeros after. Default true. */
  weights?: boolean;
  /** The residual stream after the embedding and after every block, before ln_f (L + 1, T, C). Default true. */
  residual?: boolean;
  /**
   * The stream after each block's attention add, before its MLP: x + c_proj(attention(ln_1(x)))
   * (L, T, C). With residual, a block's attention branch is afterAttention[l] − residual[l] and
   * its MLP branch residual[l + 1] − afterAttention[l]. Default false.
   */
  afterAttention?: boolean;
  /** The logits of the last position (1, V), of every position (T, V), or none. Default 'last'. */
  logits?: 'last' | 'all' | 'none';
}

/** model.trace's answer for one sequence of T tokens. */
export interface ModelTrace {
  /** T. */
  tokens: number;
  /** The layers and heads captured (every one when the options left them empty). */
  layers: number[];
  heads: number[];
  /**
   * One entry per captured layer (attention[i] is layer layers[i]), holding what was asked:
   * q (H', T, hs), k (H', T, hs), v (H', T, hs), scores (H', T, T), weights (H', T, T), with
   * H' = heads.length (heads[h] is row h).
   */
  attention: LayerAttention[];
  /** (L + 1, T, C): residual[0] after the embedding, residual[l + 1] after block l; null when not asked. */
  residual: Tensor | null;
  /** (L, T, C): the stream after block l's attention add; null when not asked. */
  afterAttention: Tensor | null;
  /** (1, V) or (T, V); null for logits: 'none'. */
  logits: Tensor | null;
}

/** How model.ablate and model.ablationSweep knock a head out. */
export interface AblationOptions {
  /**
   * 'zero' (default): the head's output z (T, hs) is set to 0 before the output projection
   * (c_proj's bias stays), TransformerLens's hook_z zero ablation. 'mean': replaced by the
   * head's z averaged over every position of `reference` (the same vector at every position).
   */
  mode?: 'zero' | 'mean';
  /** mode 'mean': the reference text, 1 … contextLength token ids (required then). */
  reference?: Int32Array | number[];
}

/** model.ablate's options: the head, and the prediction whose probabilities are returned. */
export interface AblateOptions extends AblationOptions {
  /** The block, 0 … layers − 1 (required). */
  layer: number;
  /** The head, 0 … heads − 1 (required). */
  head: number;
  /** The prediction at `position` is of the token after tokens[position]: 0 … T − 1, default T − 1. */
  position?: number;
  /** Also every position's logits, clean and ablated (T, V). Default false. */
  logits?: boolean;
}

/** model.ablate's answer: clean and with the head knocked out. */
export interface Ablation {
  layer: number;
  head: number;
  position: number;
  mode: 'zero' | 'mean';
  /** The next-token probabilities at `position` (V), softmax of the logits at temperature 1. */
  probs: Float32Array;
  ablatedProbs: Float32Array;
  /** losses[i] = −log p(tokens[i + 1] | tokens[0 … i]) (T − 1), and their mean (null when T = 1). */
  losses: Float32Array;
  ablatedLosses: Float32Array;
  loss: number | null;
  ablatedLoss: number | null;
  /** What replaced the head's z at every position (hs): zeros, or its mean over the reference. */
  value: Float32Array;
  /** Every position's logits (T, V) with options.logits, else null. */
  logits: Projection | null;
  ablatedLogits: Projection | null;
}

/** model.ablationSweep's options. */
export interface SweepOptions extends AblationOptions {
  /** The candidate token whose log-probability at `position` each ablation measures (required). */
  token: number;
  /** 0 … T − 1, default T − 1. */
  position?: number;
  /**
   * The blocks whose heads are knocked out: ascending, distinct; [] (default) every block. A page
   * sweeps one block per call to fill the layer × head picture row by row (each call reruns the
   * clean forward once: one forward per block more than a whole sweep).
   */
  layers?: number[];
  /** Also every ablation's loss over the whole sequence (runs all T rows and the whole unembedding). Default false. */
  loss?: boolean;
  /**
   * true (default): an ablation of a head of block l starts from the clean stream before block
   * l, which gives a whole forward's bits while running l blocks fewer; false: every ablation is
   * a whole forward (to measure the reuse against).
   */
  reuse?: boolean;
}

/** model.ablationSweep's answer: every head of the chosen blocks knocked out in turn. */
export interface AblationSweep {
  position: number;
  token: number;
  mode: 'zero' | 'mean';
  /** The blocks swept. */
  layers: number[];
  /** Clean log p(token) at position. */
  logProb: number;
  /** (L, H): log p(token) with head (l, h) knocked out; NaN in blocks not swept. Its effect is ablatedLogProb − logProb. */
  ablatedLogProb: Projection;
  /** Clean loss with options.loss (null without it, or when T = 1). */
  loss: number | null;
  /** (L, H) with options.loss (NaN in blocks not swept), else null. */
  ablatedLoss: Projection | null;
  /** Σ over the ablated forwards of rows × blocks run: the work the reuse saves. */
  rowsRun: number;
}

/**
 * model.attribute's answer: the logit of `token` at `position` (minus that of `other`) split
 * into what each part of the model writes to the residual stream at that position, each read
 * through the final LayerNorm with its scale frozen at the clean run's (so the parts add up) and
 * the unembedding: Σ heads + Σ mlps + embed + posEmbed + attentionBias + lnBias = logit, up to
 * float rounding (TransformerLens's logit attribution, without centring the unembedding).
 */
export interface LogitAttribution {
  position: number;
  token: number;
  other: number | null;
  /** (L, H): head (l, h)'s output z_h · W_O_h (c_proj's bias not included). */
  heads: Projection;
  /** (L): block l's MLP output, its bias included; null for a model without MLPs. */
  mlps: Float32Array | null;
  /** The token embedding wte[tokens[position]] and the position embedding wpe[position]. */
  embed: number;
  posEmbed: number;
  /** Σ over blocks of the attention output projection's bias (0 without biases). */
  attentionBias: number;
  /** ln_f.bias · W_U[token] (− W_U[other]): the final LayerNorm's own term. */
  lnBias: number;
  /** The clean logit of token at position (minus other's). */
  logit: number;
  /** √(var + eps) of the clean stream at position: the frozen scale (1 without LayerNorm). */
  scale: number;
  /** Σ of every component but lnBias (in double). */
  total: number;
}

/** model.logitLens's options. */
export interface LensOptions {
  /** Positions read: ascending, distinct, in [0, T); [] (default) every one. Each costs L + 1 unembeddings (C·V each). */
  positions?: number[];
  /** Top tokens per layer and position: 1 … min(V, 100). Default 5. */
  k?: number;
  /** With token: the chosen token's rank, probability and logit at this position, per layer. The two go together. */
  position?: number;
  token?: number;
}

/**
 * model.logitLens's answer: the residual stream after the embedding (entry 0) and after each
 * block l (entry l + 1), each read through the final LayerNorm (applied afresh, with its own
 * statistics) and the unembedding, as TransformerLens's accumulated_resid(apply_ln = True). The
 * last entry is the model's own prediction, bit for bit.
 */
export interface LogitLens {
  positions: number[];
  k: number;
  /** (L + 1, P, k): the most likely tokens, most likely first (ties: smaller id first). */
  topTokens: { shape: number[]; data: Int32Array };
  /** (L + 1, P, k): their probabilities. */
  topProbs: Projection;
  /** With options.token: its rank (0: the most likely), probability and logit per entry (L + 1); else null. */
  token: { position: number; token: number; ranks: Int32Array; probs: Float32Array; logits: Float32Array } | null;
}

/** One step of a generation session. */
export interface SessionStep {
  /** The token appended: drawn, or the one given. */
  token: number;
  /** Its position in the model's context, 0 … contextLength − 1. */
  position: number;
  /** Keys its query row attended to: every cached token and itself (position + 1). */
  keys: number;
  /**
   * The context was full (contextLength tokens): the step cropped the sequence to its last
   * contextLength tokens and recomputed them all, as nanoGPT's generate does (positions are
   * absolute, so cached keys cannot slide). Its cached cost is then the full cost.
   */
  recomputed: boolean;
  /** The 10 most likely tokens of the distribution the token was drawn from (after temperature, top-k, top-p), most likely first. */
  topTokens: Int32Array;
  topProbs: Float32Array;
  /** The new token's query row against every key: (L, H, keys) weights; get() gives nested arrays. */
  attention: Tensor & { get(): number[][][] };
  /**
   * Multiply-adds of this step, from the shapes: `cached` runs only the new token —
   * L·(lin·C² + 2·C·keys) + C·V — and `full` recomputes the whole context of `keys` tokens —
   * L·(lin·C²·keys + C·keys·(keys + 1)) + C·V — with lin = 12 (q, k, v, output projection 4C²
   * and the MLP 8C² per token; 4 without an MLP), the causal pairs of q·k and weights·v only,
   * and lm_head for the last position only (C·V). LayerNorm, GELU, softmax and the embedding
   * (O(C) per token) are not counted.
   */
  macs: { cached: number; full: number };
}

/**
 * Generation one token at a time with a KV cache: the session holds every layer's keys and
 * values of the tokens so far; each step runs only the new token. Its tokens are
 * model.generate()'s for the same prompt and options (the same torch.multinomial draws). A
 * session dies with its model (AttentionError 'session' after), and refuses to step once the
 * model's weights changed (a training step, setParams).
 */
export interface Session {
  /** The prompt (its last contextLength tokens are the context) and every token appended. */
  readonly tokens: number[];
  /** Draws the next token — or appends options.token, drawing nothing — and runs it through the model. */
  step(options?: { token?: number }): SessionStep;
  /** Frees the session and its cache now (also freed when garbage-collected). */
  dispose(): void;
}

/** engine.nextToken's answer for one position's logits (V). */
export interface NextToken {
  /** The distribution after temperature, top-k and top-p (V), zeros where cut. */
  probs: Float32Array;
  /** The `top` most likely tokens, most likely first (ties: smaller id first), and their probabilities. */
  topTokens: Int32Array;
  topProbs: Float32Array;
  /** With a seed: the token torch.multinomial(probs, 1) draws after torch.manual_seed(seed); else null. */
  token: number | null;
}

/**
 * Where engine.openModel reads a checkpoint from: bytes in memory, a Blob or File (read slice by
 * slice), a URL (one streaming GET, read forward; the server need not send Content-Length), or
 * {size, read(offset, length)} returning (a promise of) exactly `length` bytes.
 */
export type CheckpointSource =
  | Uint8Array
  | ArrayBuffer
  | Blob
  | string
  | URL
  | {
      size: number;
      read(offset: number, length: number): Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;
    };

/** loadModel's and openModel's options: config fields that win over the file's, and config.json. */
export interface LoadOptions extends Partial<Omit<ModelConfig, 'seed'>> {
  /**
   * Hugging Face's config.json: its text, parsed object or bytes (openModel: or a Blob).
   * model_type must be gpt2 (or absent); n_embd, n_head, n_layer, n_positions, vocab_size,
   * layer_norm_epsilon and activation_function (gelu_new, gelu_pytorch_tanh, gelu_fast: 'tanh';
   * gelu: 'exact') are read; an option this engine cannot run (another activation, n_inner ≠
   * 4·n_embd, scale_attn_by_inverse_layer_idx, cross-attention) is an AttentionError naming it.
   */
  config?: string | object | Uint8Array | ArrayBuffer | Blob;
  /**
   * How the model keeps its weight matrices in memory. 'f32': float32, 4 bytes a weight.
   * 'f16': IEEE halves, 2 bytes a weight (GPT-2 small: 249 MB of weights instead of 498 MB),
   * each rounded to the nearest half as it is read (an F16 file's values exactly) and converted
   * back exactly as the kernels read it, so sums still run in float32; LayerNorm and bias vectors
   * stay float32. An F16 model runs inference only — trace(), generation sessions and the
   * interpretability tools, logits() through the trace's forward; step(), evaluate(), params(), setParams() and
   * toSafetensors() throw an AttentionError naming the precision. A weight beyond F16's range
   * (±65504) is an AttentionError naming the tensor. 'bf16': bfloat16s, 2 bytes a weight, kept
   * and refused as 'f16' is; each weight is a float32's top 16 bits (rounded to nearest even), so
   * 4 weights convert in one instruction against F16's three: with one thread GPT-2 writes a token
   * faster than with 'f16' (see the README's measurements), at 8 times F16's rounding error
   * (2^−8 of a weight against 2^−11). A weight that rounds beyond float32's range (±3.39e38) is an
   * AttentionError naming the tensor. 'auto' (the default): 'f16' where float32
   * would not fit the memory left (4 GiB of wasm32 less what the engine holds, and half of
   * navigator.deviceMemory where the browser reports it, less 128 MB for the engine), else 'f32'.
   * model.weights says which was chosen.
   */
  weights?: 'f32' | 'f16' | 'bf16' | 'auto';
  /**
   * True for a model that is only run (trace(), generation sessions, the interpretability
   * tools): float32 weights are kept as F16's are, each product's weights in panels of 32 outputs
   * that one token streams once from one place. The same numbers bit for bit, one token's
   * products about twice as fast (GPT-2 small: 37 against 18.5 ms in WASM, measured); step(),
   * evaluate(), params(), setParams() and toSafetensors() throw an AttentionError naming the
   * call, whose message says the model was opened with inferenceOnly; logits() runs each
   * sequence through the trace's forward. F16 and BF16 weights are always so. Default false.
   */
  inferenceOnly?: boolean;
}

export interface OpenOptions extends LoadOptions {
  /** Called after every slice: bytes of tensors read so far, of `total`. */
  onProgress?: (progress: { loaded: number; total: number }) => void;
  /** Aborts the read (and a download): the promise rejects with AttentionError 'signal'. */
  signal?: AbortSignal;
  /** Bytes per slice, 1 … 2^26. Default 8 MiB: what JavaScript holds of the file at a time. */
  sliceBytes?: number;
}

/**
 * A trainable model in the WASM core. Every bad batch, token id or option throws AttentionError
 * naming it (nothing is changed then); so does any call after dispose(). Deterministic: the same
 * config, seed, batches and options give the same weights.
 */
export interface Model {
  /** The config as created or loaded. */
  readonly config: Readonly<Required<ModelConfig>>;
  /**
   * How the weights are kept (LoadOptions.weights; inferenceOnly: LoadOptions.inferenceOnly, or
   * F16 or BF16) and the bytes they take in the engine's memory.
   */
  readonly weights: { precision: 'f32' | 'f16' | 'bf16'; inferenceOnly: boolean; bytes: number };
  /**
   * The attention kernel of every forward and backward pass: 'auto' (the default: 'simd', or
   * 'tiled' from 128 tokens when no attention dropout needs the weights), or one of the others
   * to compare them; the same seed, data and kernel give the same run. An unknown name throws
   * AttentionError (argument 'kernel').
   */
  kernel: KernelName;
  /** Training steps taken. */
  readonly steps: number;
  /**
   * One training step (dropout applies). A non-finite loss or gradient norm, or an update that
   * would make a weight non-finite, throws AttentionError (argument 'step') saying so, and leaves
   * the weights and the optimizer's state as they were before the call.
   * A model above limits.model.maxTrainParams (2^26 parameters: GPT-2 is one) is run, not
   * trained: step throws AttentionError 'step' naming that cap, and nothing is allocated.
   */
  step(batch: Batch, options?: StepOptions): StepResult;
  /** Eval mode (no dropout): mean loss, accuracy over the targets ≠ −1, and each position's argmax (B·T). */
  evaluate(batch: Batch): { loss: number; accuracy: number; predictions: Int32Array };
  /** Logits of one sequence (T, V), or of a batch {tokens, batch, context} (B, T, V); get() gives nested arrays. */
  logits(tokens: Int32Array | number[] | Omit<Batch, 'targets'>): Tensor & { get(): number[][] | number[][][] };
  /** Every layer's attention over one sequence of 1 … contextLength tokens (eval mode): trace(tokens).attention without the stream and logits. */
  attention(tokens: Int32Array | number[]): LayerAttention[];
  /**
   * One sequence of 1 … contextLength tokens through the model (eval mode), keeping what
   * `options` asks: every (or the chosen) layer's and head's q, k, v, scores and weights, the
   * residual stream after the embedding and after every block, and the logits. For the page:
   * per-head pictures, and the cosine of one word's vector between two sentences after every
   * layer (residual[l][t]). Its last logits equal logits(tokens)'s last row within float rounding.
   */
  trace(tokens: Int32Array | number[], options?: TraceOptions): ModelTrace;
  /**
   * Generation one token at a time with a KV cache, after the prompt (1 … 65536 token ids; its
   * last contextLength tokens are run into the cache now). Options as generate's.
   */
  session(prompt: Int32Array | number[], options?: GenerateOptions): Session;
  /**
   * nanoGPT's generate: `count` (0 … 65536) times, crop the context to its last contextLength
   * tokens, take the last position's logits / temperature, keep the top k, then the top p,
   * softmax, and sample as torch.multinomial(probs, 1) does after torch.manual_seed(seed) (torch
   * 1.13, CPU). Every token is a full forward of the context (session() caches). Returns the new tokens only.
   */
  generate(prompt: Int32Array | number[], count: number, options?: GenerateOptions): number[];
  /**
   * One head knocked out (zeroed, or replaced by its mean over a reference text) on one sequence
   * of 1 … contextLength tokens: the next-token probabilities at a position and the sequence's
   * loss, clean and ablated (eval mode). Exact against PyTorch with TransformerLens's hooks.
   */
  ablate(tokens: Int32Array | number[], options: AblateOptions): Ablation;
  /**
   * Every head of the chosen blocks knocked out in turn: log p(token) at a position (and the
   * loss) per head, the layer × head picture of what each head does for one prediction. A head
   * of block l reruns blocks l … L − 1 only; without the loss only rows 0 … position run.
   */
  ablationSweep(tokens: Int32Array | number[], options: SweepOptions): AblationSweep;
  /** Direct logit attribution of the logit of options.token (minus options.other's) at options.position (default T − 1). */
  attribute(tokens: Int32Array | number[], options: { token: number; position?: number; other?: number | null }): LogitAttribution;
  /** The logit lens: the stream after the embedding and after every block read as a prediction. */
  logitLens(tokens: Int32Array | number[], options?: LensOptions): LogitLens;
  /** Every parameter by nanoGPT's name (named_parameters order; lm_head.weight is transformer.wte.weight): copies. */
  params(): Record<string, Tensor>;
  /**
   * Replaces the named parameters (any subset; 'lm_head.weight' names wte). Each must have its
   * exact shape and finite values; otherwise nothing changes. The optimizer's state is kept.
   */
  setParams(params: Record<string, TensorLike>): void;
  /**
   * A safetensors file (F32, state_dict order with lm_head.weight, the config in __metadata__):
   * PyTorch reads it with safetensors.torch.load_file and load_state_dict(…, strict=False)
   * (torch < 2 also registers attn.bias mask buffers, which the file leaves out).
   */
  toSafetensors(): Uint8Array;
  /** Frees the model now (also freed when garbage-collected). */
  dispose(): void;
}

export interface Engine {
  /** A new model, initialised as PyTorch's GPT(config) after torch.manual_seed(config.seed). Not in the element's small engine. */
  createModel(config: ModelConfig): Model;
  /**
   * A model from a safetensors file held in memory (F32, F16 or BF16; every file is treated as
   * hostile), in nanoGPT's layout or Hugging Face's GPT-2 (GPT2LMHeadModel / GPT2Model:
   * gpt2, distilgpt2, gpt2-medium, …: names with or without "transformer.", Conv1D weights
   * (in, out) transposed on the way in, attn.bias / attn.masked_bias buffers ignored,
   * lm_head.weight optional and equal to wte). The config comes from `overrides`, which win,
   * then overrides.config (config.json), then the file's metadata (toSafetensors writes it),
   * then what its tensors show — all but the head count: pass `heads` (an AttentionError with
   * argument 'heads' says so; GPT-2's heads are 64 wide). A GPT-2 file's GELU is 'tanh' and eps
   * 1e-5 unless config.json says otherwise. A model above 2^26 parameters is run, not trained.
   * Not in the element's small engine.
   */
  loadModel(bytes: Uint8Array | ArrayBuffer, overrides?: LoadOptions): Model;
  /**
   * The same, read slice by slice so that a large checkpoint (GPT-2 small: 500 MB as F32) is
   * never held twice: the 8-byte header length is checked first, then the header (names,
   * shapes, dtypes, the config; a file claiming more than fits is refused before anything is
   * allocated), then the parameters are allocated in the engine and each tensor's bytes are read
   * (sliceBytes at a time) and converted into place. Any failure — a bad file, a truncated
   * download (the error names the byte offset), abort — rejects with an AttentionError and frees
   * what was allocated; models already open are untouched. Not in the element's small engine.
   */
  openModel(source: CheckpointSource, options?: OpenOptions): Promise<Model>;
  /**
   * The next-token distribution of one position's logits (V): temperature (0: all on the most
   * likely), top-k, top-p as generate() applies them; the `top` (default 10, 0 … V) most likely;
   * and with `seed`, the token torch.multinomial draws after torch.manual_seed(seed) — the first
   * token generate() would give. Not in the element's small engine.
   */
  nextToken(
    logits: Float32Array | number[] | TensorLike,
    options?: { temperature?: number; topK?: number; topP?: number; seed?: number; top?: number },
  ): NextToken;
  /**
   * The backward pass of attend(): the gradient of a loss by every input, from gradOutput (the
   * loss's gradient by the output), as PyTorch's autograd computes it (tests/fixtures/backward).
   * The kernel choice is attend()'s; 'tiled' (materialize: false) never holds T×T. Masked keys and
   * rows without keys get zero gradient; dropout uses the forward's keep-mask (the same seed).
   * Not in the element's small engine.
   */
  attendBackward(options: AttendBackwardOptions): Gradients;
  /** The same with attend()'s arguments as they are and the output's gradient beside them. */
  attendBackward(options: AttendOptions, gradOutput: TensorLike): Gradients;
  /** The two principal components of x (N, D), computed by the core (Eigen). Not in the element's small engine. */
  pca(options: { x: TensorLike }): PcaResult;
  /** PyTorch's CPU generator seeded like torch.manual_seed(seed) (an integer, |seed| ≤ 2^53). Not in the element's small engine. */
  torchGenerator(seed?: number): TorchGenerator;
  /** What this build can do beyond attention: the element inlines a small build without these. */
  readonly features: Readonly<{
    attendBackward: boolean;
    pca: boolean;
    torchGenerator: boolean;
    createModel: boolean;
    loadModel: boolean;
    openModel: boolean;
  }>;
  /** Self-attention with every intermediate. Throws AttentionError naming the bad argument. */
  attend(options: AttendOptions): Trace;
  /**
   * The plain linear layer y = x·w + b (seed 003's "X W"), computed by the core. Throws
   * AttentionError naming x, w or b with the expected and the actual shape or value.
   */
  project(options: ProjectOptions): Projection;
  /** Causal averaging of x (T, D) or (B, T, D). */
  averaging(options: { x: TensorLike }): AveragingResult;
  /** The seed bank example (a fresh copy). */
  examples(): BankExample;
  /** Cosine similarity of two equal-length vectors (0 when either is all zero). */
  cosine(a: TensorLike, b: TensorLike): number;
  /** Bytes of WASM linear memory (grows, never shrinks: a leak shows as growth). */
  heapBytes(): number;
  /** Bytes currently allocated by the core's malloc: flat across calls when nothing leaks. */
  heapUsed(): number;
  /**
   * Threads the core's loops run on (the linear layers in output tiles, attention over batch ×
   * heads), the caller included. Set an integer in [1, maxThreads]; anything else throws an
   * AttentionError with argument 'threads' naming the range. Every count gives bit-identical
   * results. The threaded engine starts with maxThreads; the single-thread one stays at 1.
   */
  threads: number;
  /** The most threads this engine can use: the cores (at most 8) for the threaded engine, else 1. */
  readonly maxThreads: number;
  /**
   * Why this engine runs on one thread — not in a Web Worker, the page not cross-origin isolated,
   * the threaded engine failed to start (with its error), loaded without `threads: 'auto'` — or
   * null for the threaded engine.
   */
  readonly singleThreadReason: string | null;
  /** true when the WASM SIMD128 kernels are in use. */
  readonly simd: boolean;
  readonly version: string;
  readonly limits: Readonly<Limits>;
}

/** Thrown for every bad argument; `argument` names it (e.g. 'wq', 'heads'). */
export class AttentionError extends Error {
  readonly argument?: string;
}

export interface EngineOptions {
  /** The bytes of attention_engine.wasm (the single-thread build): skips the fetch, e.g. in a bundle. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * 'auto': the threaded engine where it can run — inside a Web Worker of a cross-origin
   * isolated page (served with `Cross-Origin-Opener-Policy: same-origin` and
   * `Cross-Origin-Embedder-Policy: require-corp`) on a machine with more than one core — and the
   * single-thread engine everywhere else, or when the threaded one fails to start (no error:
   * `singleThreadReason` says why). 1 (the default): the single-thread engine.
   */
  threads?: 'auto' | 1;
  /**
   * Where the threaded build's files are served: its ES module glue, its pthread worker script
   * and its .wasm (default: attention_engine_threads.mjs, .worker.js, .wasm beside engine.js;
   * dist/ names them attention-explorer.engine-threads.*). Same-origin URLs (no blob:).
   */
  threadsFiles?: { glue: string; worker: string; wasm: string };
}

/**
 * Loads the WASM module once and returns the shared engine (one per `threads` kind): the same
 * call in browsers and Node ≥ 18.
 */
export function loadEngine(options?: EngineOptions): Promise<Engine>;

/** The threaded engine's default thread count: the machine's cores, at most this many. */
export const MAX_DEFAULT_THREADS: 8;

/**
 * Why the threaded engine cannot run in `scope` (by default globalThis), as a sentence, or null
 * where it can (a Web Worker of a cross-origin isolated page, on more than one core).
 */
export function threadsUnavailableReason(scope?: object): string | null;

/** One field of a header in the arena layout: its name, byte offset and type. */
export interface AbiField {
  name: string;
  offset: number;
  type: 'i32' | 'u32' | 'f32';
}

/** A scalar argument or report field of a call: a number, an integer, a boolean or an enum's name. */
export interface AbiScalar {
  name: string;
  kind: 'number' | 'integer' | 'boolean' | 'enum';
  /** The enum whose names it takes (AbiTable.enums), for kind 'enum'. */
  enum?: string;
}

/** One call of the core as the module describes it: its arguments, results and report, in order. */
export interface AbiCall {
  /** invoke()'s index of the call. */
  id: number;
  tensors: { name: string; ranks: number[] }[];
  flags: string[];
  shapes: string[];
  lists: string[];
  blobs: string[];
  scalars: AbiScalar[];
  results: { name: string; type: 'f32' | 'f64' | 'i32' | 'u8' | 'utf8' }[];
  report: AbiScalar[];
}

/**
 * The one binary interface between engine.js and the core, as the module describes it
 * (module.abi(), src/bindings/abi.h): the header fields, every call by name with its arguments,
 * results and report fields, and every enum's names by value.
 */
export interface AbiTable {
  sections: AbiField[];
  result: AbiField[];
  /** The type of the result layout's words: 'u32' in WebAssembly. */
  word: string;
  calls: Record<string, AbiCall>;
  enums: Record<string, string[]>;
}

/** One result tensor of a call, until the next call: copy() gives a JS-owned copy of [from, to). */
export interface AbiTensor {
  name: string;
  type: 'f32' | 'f64' | 'i32' | 'u8' | 'utf8';
  shape: number[];
  count: number;
  copy(from?: number, to?: number): Float32Array | Float64Array | Int32Array | Uint8Array | string;
}

/**
 * The writer and reader web/engine/abi.js derives from `table` (by default module.abi()) for a
 * loaded Emscripten module; loadEngine() calls it. Throws an Error starting "engine ABI:" when
 * the table and abi.js do not name the same header fields and calls. call() runs one call with
 * its arguments by name and throws the core's error as an AttentionError. For tools and tests.
 */
export function bindAbi(module: object, table?: AbiTable): {
  calls: AbiTable['calls'];
  enums: AbiTable['enums'];
  call(
    name: string,
    args?: Record<string, unknown>,
  ): { names: string[]; report: Record<string, number | boolean | string>; tensors: AbiTensor[] };
};

/** Normalises a tensor argument; throws AttentionError naming `name`. */
export function toTensor(value: TensorLike, name: string, ranks?: number[]): Tensor;

/** Nested arrays from a tensor. */
export function toNested(tensor: Tensor): number | number[] | number[][] | number[][][] | number[][][][];

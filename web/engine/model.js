// Models for web/engine/engine.js: engine.createModel, engine.loadModel and engine.openModel give
// a nanoGPT-compatible transformer the core trains and runs (src/model/gpt.h, inference.h,
// checkpoint.h), held by handle: nanoGPT's own files and Hugging Face's GPT-2 checkpoints.
// Every argument is checked here first and named in an AttentionError, and the core checks again.
// Token ids travel through the core's int32 input buffer, scalars as plain arguments, tensors
// through the arena's results (src/bindings/abi.h); addresses are read unsigned (>>> 0), as the
// 4 GB engine's lie above 2^31. A file of its own so that the embeddable element's bundle, whose
// small engine has no models, leaves it out (scripts/build-dist.mjs).
//
// Shapes: B batch, T tokens (≤ contextLength), V vocabSize, L layers, H heads (H' of them
// captured), hs = width / heads, C width.

import { describe } from './args.js';
import { bindSourceErrors, configText, configTextSync, openSource } from './checkpoint-source.js';
// engine.js's own helpers, handed over by modelMethods (engine.js imports this file, and keeps
// them out of its public exports).
let AttentionError, MAX_ELEMENTS, Projection, Result, coreError, guarded, ownArguments, readTensor, shapeText;

// createModel's config: the required sizes, then the switches with nanoGPT's defaults.
const MODEL_SIZES = ['vocabSize', 'contextLength', 'layers', 'heads', 'width'];
const MODEL_SWITCHES = {
  bias: true,
  dropout: 0,
  mlp: true,
  layerNorm: true,
  gelu: 'exact',
  layerNormEps: 1e-5,
  seed: 0,
};
const MODEL_KEYS = new Set([...MODEL_SIZES, ...Object.keys(MODEL_SWITCHES)]);
// loadModel's and openModel's options beside the config's fields.
const LOAD_KEYS = new Set([...MODEL_KEYS, 'config']);
const OPEN_KEYS = new Set([...LOAD_KEYS, 'onProgress', 'signal', 'sliceBytes']);
const GELUS = ['exact', 'tanh']; // the core's Gelu values, in order
const DEFAULT_SLICE = 8 << 20; // bytes per read of openModel: 8 MiB in JavaScript at a time
const MAX_SLICE = 1 << 26;
// step()'s options and defaults (nanoGPT's train.py where it has one: betas, weight decay, clip).
const STEP_DEFAULTS = {
  optimizer: 'adamw',
  lr: 1e-3,
  betas: [0.9, 0.95],
  eps: 1e-8,
  weightDecay: undefined, // 0.1 for AdamW, 0 for SGD
  momentum: 0,
  clip: 1,
  warmup: 0,
  decaySteps: 0,
  minLr: undefined, // lr / 10
  seed: 0,
};
const GENERATE_DEFAULTS = { temperature: 1, topK: 0, topP: 1, seed: 0 };
const NEXT_TOKEN_DEFAULTS = { temperature: 1, topK: 0, topP: 1, seed: undefined, top: 10 };
const TRACE_DEFAULTS = {
  layers: [],
  heads: [],
  qkv: true,
  scores: true,
  weights: true,
  residual: true,
  afterAttention: false,
  logits: 'last',
  timings: false,
};
const TRACE_PARTS = { qkv: 1, scores: 2, weights: 4, residual: 8, timings: 16, afterAttention: 32 }; // abi.h's kTrace*
const LOGIT_ROWS = ['none', 'last', 'all'];
const MAX_GENERATE = 1 << 16;
const MAX_FILE_BYTES = 2 ** 31 - 1;

const integerIn = (value, name, lo, hi) => {
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new AttentionError(`${name}: expected an integer in [${lo}, ${hi}], got ${describe(value)}`, name);
  }
  return value;
};
const booleanOf = (value, name) => {
  if (typeof value !== 'boolean')
    throw new AttentionError(`${name}: expected true or false, got ${describe(value)}`, name);
  return value;
};
// A finite number ≥ lo and < hi (≤ hi when closed).
const numberIn = (value, name, lo, hi = Infinity, closed = true) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < lo || (closed ? value > hi : value >= hi)) {
    const range = hi === Infinity ? `≥ ${lo}` : `in [${lo}, ${hi}${closed ? ']' : ')'}`;
    throw new AttentionError(`${name}: expected a finite number ${range}, got ${describe(value)}`, name);
  }
  return value;
};
const seedOf = (value, name = 'seed') => {
  if (!Number.isSafeInteger(value)) {
    throw new AttentionError(`${name}: expected an integer in [−2^53, 2^53], got ${describe(value)}`, name);
  }
  return value;
};

// The config fields present in `own`, checked against the core's limits. `required`: the five
// sizes must all be there (createModel); loadModel's overrides may give any of them.
function checkModelConfig(own, limits, required) {
  const c = {};
  const sizes = {
    vocabSize: [1, limits.maxVocab],
    contextLength: [1, limits.maxContext],
    layers: [0, limits.maxLayers],
    heads: [1, limits.maxHeads],
    width: [1, limits.maxWidth],
  };
  for (const name of MODEL_SIZES) {
    if (own[name] === undefined) {
      if (required) throw new AttentionError(`${name}: required, an integer in [${sizes[name].join(', ')}]`, name);
      continue;
    }
    c[name] = integerIn(own[name], name, ...sizes[name]);
  }
  if (c.width !== undefined && c.heads !== undefined && c.width % c.heads !== 0) {
    throw new AttentionError(`heads: ${c.heads} must divide width = ${c.width}`, 'heads');
  }
  for (const name of ['bias', 'mlp', 'layerNorm']) if (own[name] !== undefined) c[name] = booleanOf(own[name], name);
  if (own.dropout !== undefined) c.dropout = numberIn(own.dropout, 'dropout', 0, 1, false);
  if (own.gelu !== undefined && !GELUS.includes(own.gelu)) {
    throw new AttentionError(
      `gelu: expected 'exact' (nanoGPT's) or 'tanh' (GPT-2's), got ${describe(own.gelu)}`,
      'gelu',
    );
  }
  if (own.gelu !== undefined) c.gelu = own.gelu;
  if (own.layerNormEps !== undefined) {
    const eps = own.layerNormEps;
    if (typeof eps !== 'number' || !(eps > 0 && eps <= 1)) {
      throw new AttentionError(`layerNormEps: expected a number in (0, 1], got ${describe(eps)}`, 'layerNormEps');
    }
    c.layerNormEps = eps;
  }
  if (own.seed !== undefined) c.seed = seedOf(own.seed);
  return c;
}

// Any error as an AttentionError: ours as they are, others (a throwing getter, a failed fetch)
// naming the argument being read.
const asAttentionError = (error, argument) =>
  error instanceof AttentionError
    ? error
    : new AttentionError(`${argument}: ${error?.message ?? String(error)}`, argument);

const topPOf = (value) => {
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new AttentionError(`topP: expected a number in (0, 1] (1: no cut), got ${describe(value)}`, 'topP');
  }
  return value;
};

// Token ids (an Int32Array or an array of integers) of exactly `count` entries in [lo, hi).
function tokenIds(context, value, name, count, lo, hi) {
  context.reading = name;
  if (!(value instanceof Int32Array || Array.isArray(value) || ArrayBuffer.isView(value))) {
    throw new AttentionError(`${name}: expected an Int32Array or an array of token ids, got ${describe(value)}`, name);
  }
  if (value.length !== count) {
    throw new AttentionError(`${name}: expected ${count} token ids (batch × context), got ${value.length}`, name);
  }
  for (let i = 0; i < count; i++) {
    const v = value[i];
    if (!Number.isInteger(v) || v < lo || v >= hi) {
      const range = lo < 0 ? `an id in [0, ${hi}) or -1 (ignored)` : `an id in [0, ${hi})`;
      throw new AttentionError(`${name}[${i}]: expected ${range}, got ${describe(v)}`, name);
    }
  }
  return value;
}

// Models not disposed by hand are freed when garbage-collected.
const models = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((free) => free()) : null;

/** A trainable nanoGPT-compatible model in the core; see engine.d.ts. */
class Model {
  #module;
  #abi;
  #handle;
  #free;
  #config;
  #limits;

  constructor(module, abi, handle, seed) {
    this.#module = module;
    this.#abi = abi;
    this.#handle = handle;
    this.#free = () => module.modelDelete(handle);
    models?.register(this, this.#free, this);
    const c = module.modelConfig(handle);
    this.#config = Object.freeze({
      vocabSize: c.vocabSize,
      contextLength: c.contextLength,
      layers: c.layers,
      heads: c.heads,
      width: c.width,
      bias: c.bias === 1,
      dropout: c.dropout,
      mlp: c.mlp === 1,
      layerNorm: c.layerNorm === 1,
      gelu: GELUS[c.gelu],
      layerNormEps: c.layerNormEps,
      seed,
    });
  }

  /** The handle, or an AttentionError once disposed. */
  #live(what) {
    if (!this.#handle) throw new AttentionError(`${what}: this model was disposed`, what);
    return this.#handle;
  }

  /** Writes a batch {tokens, targets, batch, context} into the core's input; returns B and T. */
  #writeBatch(context, batch, withTargets) {
    context.reading = 'batch';
    if (batch === null || typeof batch !== 'object' || Array.isArray(batch) || ArrayBuffer.isView(batch)) {
      throw new AttentionError(`batch: expected {tokens, targets, batch, context}, got ${describe(batch)}`, 'batch');
    }
    const { vocabSize, contextLength } = this.#config;
    const B = integerIn(batch.batch, 'batch', 1, MAX_ELEMENTS);
    const T = integerIn(batch.context, 'context', 1, contextLength);
    if (B * T > MAX_ELEMENTS)
      throw new AttentionError(`batch: ${B} × ${T} tokens is more than ${MAX_ELEMENTS}`, 'batch');
    const tokens = tokenIds(context, batch.tokens, 'tokens', B * T, 0, vocabSize);
    const targets = withTargets ? tokenIds(context, batch.targets, 'targets', B * T, -1, vocabSize) : null;
    this.#writeTokens(tokens, targets);
    return { B, T };
  }

  #writeTokens(tokens, targets = null) {
    const module = this.#module;
    const at = module.modelInput(tokens.length) >>> 2;
    module.HEAP32.set(tokens, at); // after modelInput: growing memory replaces the views
    if (targets) module.HEAP32.set(targets, module.modelInputTargets() >>> 2);
  }

  /** One sequence of token ids (1 ≤ T ≤ contextLength) into the input; returns T. */
  #writeSequence(context, tokens, name = 'tokens') {
    context.reading = name;
    const T = tokens?.length;
    if (!(Array.isArray(tokens) || ArrayBuffer.isView(tokens)) || T < 1 || T > this.#config.contextLength) {
      throw new AttentionError(
        `${name}: expected an array of 1 to ${this.#config.contextLength} token ids, got ${describe(tokens)}`,
        name,
      );
    }
    this.#writeTokens(tokenIds(context, tokens, name, T, 0, this.#config.vocabSize));
    return T;
  }

  /** The config as created or loaded (frozen). */
  get config() {
    return this.#config;
  }

  /** The attention kernel of every forward and backward pass (see engine.d.ts). */
  get kernel() {
    return this.#module.modelKernel(this.#live('kernel'));
  }
  set kernel(name) {
    guarded('kernel', () => {
      const handle = this.#live('kernel');
      if (typeof name !== 'string') {
        throw new AttentionError(
          `kernel: expected 'reference', 'vectorized', 'simd', 'tiled' or 'auto', got ${describe(name)}`,
          'kernel',
        );
      }
      if (!this.#module.modelSetKernel(handle, name)) throw coreError(this.#module);
    });
  }

  /** Training steps taken. */
  get steps() {
    const steps = this.#module.modelSteps(this.#live('steps'));
    if (steps < 0) throw coreError(this.#module);
    return steps;
  }

  /** One training step on a batch; see engine.d.ts. */
  step(batch, options = {}) {
    return guarded('step', (context) => {
      const handle = this.#live('step');
      const own = ownArguments(context, options, 'options', new Set(Object.keys(STEP_DEFAULTS)));
      const o = { ...STEP_DEFAULTS };
      for (const key of Object.keys(own)) if (own[key] !== undefined) o[key] = own[key];
      if (o.optimizer !== 'adamw' && o.optimizer !== 'sgd') {
        throw new AttentionError(`optimizer: expected 'adamw' or 'sgd', got ${describe(o.optimizer)}`, 'optimizer');
      }
      numberIn(o.lr, 'lr', 0);
      if (!Array.isArray(o.betas) || o.betas.length !== 2) {
        throw new AttentionError(`betas: expected [beta1, beta2], each in [0, 1), got ${describe(o.betas)}`, 'betas');
      }
      o.betas.forEach((b) => numberIn(b, 'betas', 0, 1, false));
      numberIn(o.eps, 'eps', 0);
      const weightDecay = numberIn(o.weightDecay ?? (o.optimizer === 'adamw' ? 0.1 : 0), 'weightDecay', 0);
      numberIn(o.momentum, 'momentum', 0);
      numberIn(o.clip, 'clip', 0);
      integerIn(o.warmup, 'warmup', 0, Number.MAX_SAFE_INTEGER);
      integerIn(o.decaySteps, 'decaySteps', 0, Number.MAX_SAFE_INTEGER);
      if (o.decaySteps > 0 && o.decaySteps <= o.warmup) {
        throw new AttentionError(
          `decaySteps: expected more than warmup = ${o.warmup}, got ${o.decaySteps}`,
          'decaySteps',
        );
      }
      if (o.minLr !== undefined) numberIn(o.minLr, 'minLr', 0);
      seedOf(o.seed);
      const { B, T } = this.#writeBatch(context, batch, true);
      // prettier-ignore
      const r = this.#module.modelStep(
        handle, B, T, o.optimizer, o.lr, o.betas[0], o.betas[1], o.eps, weightDecay, o.momentum, o.clip,
        o.warmup, o.decaySteps, o.minLr ?? NaN, o.seed,
      );
      if (r.failed) throw coreError(this.#module);
      return { loss: r.loss, gradNorm: r.gradNorm, lr: r.lr, step: r.step };
    });
  }

  /** Loss, accuracy and the argmax prediction of every position of a batch (eval mode). */
  evaluate(batch) {
    return guarded('evaluate', (context) => {
      const handle = this.#live('evaluate');
      const { B, T } = this.#writeBatch(context, batch, true);
      const r = this.#module.modelEvaluate(handle, B, T);
      if (r.failed) throw coreError(this.#module);
      const at = this.#module.modelOutput() >>> 2;
      return { loss: r.loss, accuracy: r.accuracy, predictions: this.#module.HEAP32.slice(at, at + B * T) };
    });
  }

  /** Logits of one sequence (T, V), or of a batch {tokens, batch, context} (B, T, V). */
  logits(tokens) {
    return guarded('logits', (context) => {
      const handle = this.#live('logits');
      const sequence = Array.isArray(tokens) || ArrayBuffer.isView(tokens);
      const { B, T } = sequence
        ? { B: 1, T: this.#writeSequence(context, tokens) }
        : this.#writeBatch(context, tokens, false);
      return new Projection(this.#abi.read('modelLogits', this.#module.modelLogits(handle, B, T)), 'logits', sequence);
    });
  }

  /** Every layer's attention over one sequence: per layer a Result holding q, k, v, scores, weights. */
  attention(tokens) {
    return guarded('attention', (context) =>
      this.#trace(context, 'attention', tokens, { residual: false, logits: 'none' }),
    ).attention;
  }

  /** One sequence through the model, keeping what `options` asks for; see engine.d.ts. */
  trace(tokens, options = {}) {
    return guarded('trace', (context) => this.#trace(context, 'trace', tokens, options));
  }

  #trace(context, what, tokens, options) {
    const handle = this.#live(what);
    const own = ownArguments(context, options, 'options', new Set(Object.keys(TRACE_DEFAULTS)));
    const o = { ...TRACE_DEFAULTS };
    for (const key of Object.keys(own)) if (own[key] !== undefined) o[key] = own[key];
    const { layers: L, heads: H } = this.#config;
    const indices = (list, name, count) => {
      context.reading = name;
      if (
        !Array.isArray(list) ||
        list.some((v, i) => !Number.isInteger(v) || v < 0 || v >= count || v <= list[i - 1])
      ) {
        throw new AttentionError(
          `${name}: expected ascending, distinct indices in [0, ${count}) (or [] for all), got ${describe(list)}`,
          name,
        );
      }
      return list;
    };
    const layers = indices(o.layers, 'layers', L),
      heads = indices(o.heads, 'heads', H);
    let parts = 0;
    for (const [name, bit] of Object.entries(TRACE_PARTS)) if (booleanOf(o[name], name)) parts += bit;
    if (!LOGIT_ROWS.includes(o.logits)) {
      throw new AttentionError(`logits: expected 'none', 'last' or 'all', got ${describe(o.logits)}`, 'logits');
    }
    context.reading = 'tokens';
    const T = tokens?.length;
    if (!(Array.isArray(tokens) || ArrayBuffer.isView(tokens)) || T < 1 || T > this.#config.contextLength) {
      throw new AttentionError(
        `tokens: expected an array of 1 to ${this.#config.contextLength} token ids, got ${describe(tokens)}`,
        'tokens',
      );
    }
    const ids = tokenIds(context, tokens, 'tokens', T, 0, this.#config.vocabSize);
    this.#writeTokens(Int32Array.from([...ids, ...layers, ...heads]));
    const module = this.#module;
    const count = module.modelTrace(handle, T, layers.length, heads.length, parts, LOGIT_ROWS.indexOf(o.logits));
    if (count < 0) throw coreError(module);
    const stream = new Result(this.#abi.read('modelTrace', module.modelTraceStream(handle)), () => false);
    const all = (list, n) => (list.length ? list.slice() : Array.from({ length: n }, (_, i) => i));
    return {
      tokens: T,
      layers: all(layers, L),
      heads: all(heads, H),
      attention: Array.from(
        { length: count },
        (_, i) => new Result(this.#abi.read('modelAttention', module.modelTraceLayer(handle, i)), () => false),
      ),
      residual: stream.residual ?? null,
      afterAttention: stream.afterAttention ?? null,
      logits: stream.logits ?? null,
      ...(o.timings && {
        timings: { linear: stream.timings.data[0], attention: stream.timings.data[1], total: stream.timings.data[2] },
      }),
    };
  }

  /** Generation one token at a time with a KV cache, from `prompt`; see engine.d.ts. */
  session(prompt, options = {}) {
    return guarded('session', (context) => {
      const handle = this.#live('session');
      const o = this.#generateOptions(context, options);
      this.#writePrompt(context, prompt);
      const session = this.#module.sessionCreate(handle, prompt.length, o.temperature, o.topK, o.topP, o.seed);
      if (session === 0) throw coreError(this.#module);
      return new Session(this.#module, this.#abi, session, this.#config);
    });
  }

  #generateOptions(context, options) {
    const own = ownArguments(context, options, 'options', new Set(Object.keys(GENERATE_DEFAULTS)));
    const o = { ...GENERATE_DEFAULTS };
    for (const key of Object.keys(own)) if (own[key] !== undefined) o[key] = own[key];
    numberIn(o.temperature, 'temperature', 0);
    integerIn(o.topK, 'topK', 0, this.#config.vocabSize);
    topPOf(o.topP);
    seedOf(o.seed);
    return o;
  }

  #writePrompt(context, prompt) {
    context.reading = 'prompt';
    if (!(Array.isArray(prompt) || ArrayBuffer.isView(prompt)) || prompt.length < 1 || prompt.length > MAX_GENERATE) {
      throw new AttentionError(
        `prompt: expected an array of 1 to ${MAX_GENERATE} token ids, got ${describe(prompt)}`,
        'prompt',
      );
    }
    this.#writeTokens(tokenIds(context, prompt, 'prompt', prompt.length, 0, this.#config.vocabSize));
  }

  /** `count` new tokens after `prompt`, as nanoGPT's generate; see engine.d.ts. */
  generate(prompt, count, options = {}) {
    return guarded('generate', (context) => {
      const handle = this.#live('generate');
      const o = this.#generateOptions(context, options);
      integerIn(count, 'count', 0, MAX_GENERATE);
      this.#writePrompt(context, prompt);
      const n = this.#module.modelGenerate(handle, prompt.length, count, o.temperature, o.topK, o.topP, o.seed);
      if (n < 0) throw coreError(this.#module);
      const at = this.#module.modelOutput() >>> 2;
      return Array.from(this.#module.HEAP32.subarray(at, at + n));
    });
  }

  /** Every parameter by its nanoGPT name: {shape, data} copies (lm_head.weight is transformer.wte.weight). */
  params() {
    const handle = this.#live('params');
    const table = this.#module.modelParamTable(handle);
    const base = this.#module.modelParams(handle) >>> 2;
    return Object.fromEntries(
      table.map(({ name, shape, offset, size }) => [
        name,
        { shape, data: this.#module.HEAPF32.slice(base + offset, base + offset + size) },
      ]),
    );
  }

  /** Replaces the parameters named in `params` (all or some); see engine.d.ts. */
  setParams(params) {
    return guarded('setParams', (context) => {
      const handle = this.#live('setParams');
      const table = new Map(this.#module.modelParamTable(handle).map((e) => [e.name, e]));
      const own = ownArguments(context, params, 'params', new Set([...table.keys(), 'lm_head.weight']));
      if (own['lm_head.weight'] !== undefined && own['transformer.wte.weight'] !== undefined) {
        throw new AttentionError(
          'lm_head.weight: it is transformer.wte.weight (tied); give one of the two',
          'lm_head.weight',
        );
      }
      const writes = [];
      for (const [name, value] of Object.entries(own)) {
        const entry = table.get(name === 'lm_head.weight' ? 'transformer.wte.weight' : name);
        const t = readTensor(context, value, name, [entry.shape.length]);
        if (t.shape.join() !== entry.shape.join()) {
          throw new AttentionError(
            `${name}: expected shape ${shapeText(entry.shape)}, got ${shapeText(t.shape)}`,
            name,
          );
        }
        writes.push([entry.offset, t.data]);
      }
      const stage = this.#module.modelStage(handle) >>> 2;
      for (const [offset, data] of writes) this.#module.HEAPF32.set(data, stage + offset);
      if (!this.#module.modelCommit(handle)) throw coreError(this.#module);
    });
  }

  /** The parameters as a safetensors file (F32, state_dict order, the config in its metadata). */
  toSafetensors() {
    const handle = this.#live('toSafetensors');
    const n = this.#module.modelExport(handle);
    if (n < 0) throw coreError(this.#module);
    const at = this.#module.modelExportData();
    return this.#module.HEAPU8.slice(at, at + n);
  }

  /** Frees the model now (it is also freed when garbage-collected); later calls throw AttentionError. */
  dispose() {
    if (!this.#handle) return;
    models?.unregister(this);
    this.#free();
    this.#handle = 0;
  }
}

// Sessions not disposed by hand are freed when garbage-collected (or with their model).
const sessions = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((free) => free()) : null;

/** Generation one token at a time with a KV cache (model.session); see engine.d.ts. */
class Session {
  #module;
  #abi;
  #handle;
  #free;
  #vocabSize;

  constructor(module, abi, handle, config) {
    this.#module = module;
    this.#abi = abi;
    this.#handle = handle;
    this.#vocabSize = config.vocabSize;
    this.#free = () => module.sessionDelete(handle);
    sessions?.register(this, this.#free, this);
  }

  #live(what) {
    if (!this.#handle) throw new AttentionError(`${what}: this session was disposed`, what);
    return this.#handle;
  }

  /** The prompt and every token appended so far. */
  get tokens() {
    const n = this.#module.sessionTokens(this.#live('tokens'));
    if (n < 0) throw coreError(this.#module);
    const at = this.#module.modelOutput() >>> 2;
    return Array.from(this.#module.HEAP32.subarray(at, at + n));
  }

  /** Draws the next token (or appends options.token), runs it with the cache; see engine.d.ts. */
  step(options = {}) {
    return guarded('step', (context) => {
      const handle = this.#live('step');
      const own = ownArguments(context, options, 'options', new Set(['token']));
      const forced = own.token === undefined ? -1 : integerIn(own.token, 'token', 0, this.#vocabSize - 1);
      const r = this.#module.sessionStep(handle, forced);
      if (r.failed) throw coreError(this.#module);
      const tensors = new Result(this.#abi.read('sessionStep', this.#module.sessionStepResult()), () => false);
      return {
        token: r.token,
        position: r.position,
        keys: r.keys,
        recomputed: r.recomputed === 1,
        topTokens: Int32Array.from(tensors.topTokens.data),
        topProbs: tensors.topProbs.data,
        attention: new Projection(
          {
            names: ['attention'],
            layout: Int32Array.of(0, 3, ...tensors.attention.shape),
            data: tensors.attention.data,
          },
          'attention',
        ),
        macs: { cached: r.macsCached, full: r.macsFull },
      };
    });
  }

  /** Frees the session and its cache now (also freed when garbage-collected, or with its model). */
  dispose() {
    if (!this.#handle) return;
    sessions?.unregister(this);
    this.#free();
    this.#handle = 0;
  }
}

// A logits vector (V) as {shape, data}: a Float32Array, an array of numbers, or {shape, data}.
function logitsOf(context, value) {
  context.reading = 'logits';
  const t =
    value instanceof Float32Array || (Array.isArray(value) && typeof value[0] === 'number')
      ? readTensor(context, { shape: [value.length], data: value }, 'logits', [1])
      : readTensor(context, value, 'logits', [1]);
  return t;
}

/**
 * engine.createModel and engine.loadModel for a loaded module (the whole engine) and its
 * arena `abi`; `limits` is module.limits(), `kit` engine.js's helpers.
 */
export function modelMethods(module, abi, limits, kit) {
  ({ AttentionError, MAX_ELEMENTS, Projection, Result, coreError, guarded, ownArguments, readTensor, shapeText } = kit);
  bindSourceErrors(AttentionError);
  const flag = (v) => (v === undefined ? -1 : Number(v));
  // The config fields a load gives (−1 / NaN: from the file, config.json or the tensors).
  const loadArgs = (c) => [
    c.vocabSize ?? -1,
    c.contextLength ?? -1,
    c.layers ?? -1,
    c.heads ?? -1,
    c.width ?? -1,
    flag(c.bias),
    c.dropout ?? NaN,
    flag(c.mlp),
    flag(c.layerNorm),
    c.gelu === undefined ? -1 : GELUS.indexOf(c.gelu),
    c.layerNormEps ?? NaN,
  ];
  return {
    /** A new nanoGPT-compatible model, initialised as PyTorch's GPT(config) after torch.manual_seed(seed). */
    createModel(config) {
      return guarded('createModel', (context) => {
        const own = ownArguments(context, config, 'config', MODEL_KEYS);
        const c = { ...MODEL_SWITCHES, ...checkModelConfig(own, limits.model, true) };
        // prettier-ignore
        const handle = module.modelCreate(
          c.vocabSize, c.contextLength, c.layers, c.heads, c.width, Number(c.bias), c.dropout, Number(c.mlp),
          Number(c.layerNorm), GELUS.indexOf(c.gelu), c.layerNormEps, c.seed,
        );
        if (handle === 0) throw coreError(module);
        return new Model(module, abi, handle, c.seed);
      });
    },

    /** A model from a safetensors file (bytes): nanoGPT's layout or Hugging Face's GPT-2; see engine.d.ts. */
    loadModel(bytes, overrides = {}) {
      return guarded('loadModel', (context) => {
        context.reading = 'bytes';
        const data = bytes instanceof Uint8Array ? bytes : bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : null;
        if (!data)
          throw new AttentionError(`bytes: expected a Uint8Array or ArrayBuffer, got ${describe(bytes)}`, 'bytes');
        if (data.length > MAX_FILE_BYTES)
          throw new AttentionError(`bytes: ${data.length} bytes; at most ${MAX_FILE_BYTES}`, 'bytes');
        const own = ownArguments(context, overrides, 'overrides', LOAD_KEYS);
        const c = checkModelConfig(own, limits.model, false);
        context.reading = 'config';
        const config = configTextSync(own.config);
        abi.writeBytes(data);
        const handle = module.modelLoad(...loadArgs(c), config);
        if (handle === 0) throw coreError(module);
        return new Model(module, abi, handle, c.seed ?? 0);
      });
    },

    /**
     * A model read slice by slice from bytes, a Blob or File, a URL or {size, read(offset,
     * length)}: nanoGPT's layout or Hugging Face's GPT-2; see engine.d.ts.
     */
    async openModel(source, options = {}) {
      const context = { reading: 'openModel' };
      let own, c, slice;
      try {
        own = ownArguments(context, options, 'options', OPEN_KEYS);
        c = checkModelConfig(own, limits.model, false);
        slice = own.sliceBytes === undefined ? DEFAULT_SLICE : integerIn(own.sliceBytes, 'sliceBytes', 1, MAX_SLICE);
        if (own.onProgress !== undefined && typeof own.onProgress !== 'function') {
          throw new AttentionError(`onProgress: expected a function, got ${describe(own.onProgress)}`, 'onProgress');
        }
      } catch (error) {
        throw asAttentionError(error, context.reading);
      }
      const signal = own.signal;
      const check = () => {
        if (signal?.aborted) throw new AttentionError('signal: openModel was aborted', 'signal');
      };
      let reader = null,
        loader = 0;
      try {
        check();
        const config = await configText(own.config);
        reader = await openSource(source, signal);
        const size = reader.size ?? -1;
        // 1. the header's length from the first 8 bytes, checked before anything else is read
        const first = await reader.read(0, Math.min(8, reader.size ?? 8)); // a shorter file: the core says so
        abi.writeBytes(first);
        const n = module.modelHeaderLength(size);
        if (n < 0) throw coreError(module);
        // 2. the header: the config, every tensor matched, the parameters allocated
        const header = new Uint8Array(8 + n);
        header.set(first);
        header.set(await reader.read(8, n), 8);
        check();
        abi.writeBytes(header);
        loader = module.modelOpen(...loadArgs(c), size, config);
        if (loader === 0) throw coreError(module);
        // 3. each tensor's bytes, slice by slice, straight into its place
        const copies = module.modelOpenCopies(loader);
        const total = copies.reduce((sum, r) => sum + (r.end - r.begin), 0);
        let loaded = 0;
        for (let i = 0; i < copies.length; i++) {
          const { begin, end } = copies[i];
          for (let at = begin; at < end; at += slice) {
            const length = Math.min(slice, end - at);
            const bytes = await reader.read(at, length);
            check();
            const staging = module.modelOpenBuffer(loader, length) >>> 0;
            if (staging === 0) throw coreError(module);
            module.HEAPU8.set(bytes, staging);
            if (!module.modelOpenWrite(loader, i, at - begin, length)) throw coreError(module);
            loaded += length;
            own.onProgress?.({ loaded, total });
          }
        }
        await reader.finish(module.modelOpenFileEnd(loader));
        // 4. the model
        const handle = module.modelOpenFinish(loader);
        loader = 0; // finished or failed, the core freed it
        if (handle === 0) throw coreError(module);
        return new Model(module, abi, handle, 0);
      } catch (error) {
        throw asAttentionError(error, 'source');
      } finally {
        if (loader) module.modelOpenCancel(loader);
        reader?.close();
      }
    },

    /** The next-token distribution of one position's logits (V); see engine.d.ts. */
    nextToken(logits, options = {}) {
      return guarded('nextToken', (context) => {
        const t = logitsOf(context, logits);
        const own = ownArguments(context, options, 'options', new Set(Object.keys(NEXT_TOKEN_DEFAULTS)));
        const o = { ...NEXT_TOKEN_DEFAULTS };
        for (const key of Object.keys(own)) if (own[key] !== undefined) o[key] = own[key];
        const V = t.data.length;
        numberIn(o.temperature, 'temperature', 0);
        integerIn(o.topK, 'topK', 0, V);
        topPOf(o.topP);
        integerIn(o.top, 'top', 0, V);
        if (o.seed !== undefined) seedOf(o.seed);
        abi.write('nextToken', { logits: t }, Object.create(null), null);
        const r = new Result(
          abi.read(
            'nextToken',
            module.nextToken(o.temperature, o.topK, o.topP, o.seed ?? 0, Number(o.seed !== undefined), o.top),
          ),
          () => false,
        );
        return {
          probs: r.probs.data,
          topTokens: Int32Array.from(r.topTokens.data),
          topProbs: r.topProbs.data,
          token: r.token ? r.token.data[0] : null,
        };
      });
    },
  };
}

// Models for web/engine/engine.js: engine.createModel, engine.loadModel and engine.openModel give
// a nanoGPT-compatible transformer the core trains and runs (src/model/gpt.h, inference.h,
// checkpoint.h), held by handle: nanoGPT's own files and Hugging Face's GPT-2 checkpoints.
// Every argument is checked here first and named in an AttentionError, and the core checks again.
// Each method is one or a few calls of the core's model calls (src/bindings/abi_model.cpp,
// abi_inference.cpp, abi_loader.cpp) through abi.js, by name: the options' names, defaults and
// enums are the calls' (module.abi()), never a list of this file's. A file of its own so that the
// embeddable element's bundle, whose small engine has no models, leaves it out
// (scripts/build-dist.mjs).
//
// Shapes: B batch, T tokens (≤ contextLength), V vocabSize, L layers, H heads (H' of them
// captured), hs = width / heads, C width.

import {
  AttentionError,
  MAX_ELEMENTS,
  asAttentionError,
  booleanOf,
  describe,
  guarded,
  integerIn,
  numberIn,
  ownArguments,
  readTensor,
  seedOf,
  shapeText,
} from './args.js';
import { configText, configTextSync, openSource } from './checkpoint-source.js';
import { ablate, ablationSweep, ascendingIndices, attribute, logitLens } from './interpret.js';
import { Projection, Result } from './result.js';

const DEFAULT_SLICE = 8 << 20; // bytes per read of openModel: 8 MiB in JavaScript at a time
const MAX_SLICE = 1 << 26;
const MAX_GENERATE = 1 << 16;
const MAX_FILE_BYTES = 2 ** 31 - 1;
// The config's sizes, required by createModel, with their limits in engine.limits.model.
const SIZES = {
  vocabSize: 'maxVocab',
  contextLength: 'maxContext',
  layers: 'maxLayers',
  heads: 'maxHeads',
  width: 'maxWidth',
};

// Every argument name of a call, in the description's order.
const argumentNames = (call) => [
  ...call.tensors.map((t) => t.name),
  ...call.flags,
  ...call.shapes,
  ...call.lists,
  ...call.blobs,
  ...call.scalars.map((s) => s.name),
];
// A caller's options with nothing undefined, onto `into`.
const given = (own, into = {}) => {
  for (const key of Object.keys(own)) if (own[key] !== undefined) into[key] = own[key];
  return into;
};

// The config fields present in `own`, checked against the core's limits. `required`: the five
// sizes must all be there (createModel); loadModel's overrides may give any of them. Types the
// core's description names (booleans, the GELU's names) are checked as the call is written.
function checkModelConfig(own, limits, required) {
  const c = given(own);
  for (const [name, limit] of Object.entries(SIZES)) {
    const range = [name === 'layers' ? 0 : 1, limits[limit]];
    if (own[name] === undefined) {
      if (required) throw new AttentionError(`${name}: required, an integer in [${range.join(', ')}]`, name);
      continue;
    }
    integerIn(own[name], name, ...range);
  }
  if (c.width !== undefined && c.heads !== undefined && c.width % c.heads !== 0) {
    throw new AttentionError(`heads: ${c.heads} must divide width = ${c.width}`, 'heads');
  }
  if (c.dropout !== undefined) numberIn(c.dropout, 'dropout', 0, 1, false);
  if (c.layerNormEps !== undefined) {
    const eps = c.layerNormEps;
    if (typeof eps !== 'number' || !(eps > 0 && eps <= 1)) {
      throw new AttentionError(`layerNormEps: expected a number in (0, 1], got ${describe(eps)}`, 'layerNormEps');
    }
  }
  if (c.seed !== undefined) seedOf(c.seed);
  return c;
}

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

// One sequence of 1 to `max` token ids in [0, vocabSize).
function sequence(context, tokens, name, max, vocabSize) {
  context.reading = name;
  const T = tokens?.length;
  if (!(Array.isArray(tokens) || ArrayBuffer.isView(tokens)) || T < 1 || T > max) {
    throw new AttentionError(`${name}: expected an array of 1 to ${max} token ids, got ${describe(tokens)}`, name);
  }
  return tokenIds(context, tokens, name, T, 0, vocabSize);
}

// Models not disposed by hand are freed when garbage-collected.
const models = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((free) => free()) : null;

/** A trainable nanoGPT-compatible model in the core; see engine.d.ts. */
class Model {
  #abi;
  #handle;
  #free;
  #config;

  constructor(abi, handle, seed) {
    this.#abi = abi;
    this.#handle = handle;
    this.#free = () => abi.call('modelDelete', { model: handle });
    models?.register(this, this.#free, this);
    this.#config = Object.freeze({ ...abi.call('modelConfig', { model: handle }).report, seed });
  }

  /** The handle, or an AttentionError once disposed. */
  #live(what) {
    if (!this.#handle) throw new AttentionError(`${what}: this model was disposed`, what);
    return this.#handle;
  }

  /** A batch {tokens, targets, batch, context} checked: the call's arguments. */
  #batch(context, batch, withTargets) {
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
    const targets = withTargets ? tokenIds(context, batch.targets, 'targets', B * T, -1, vocabSize) : undefined;
    return { batch: B, context: T, tokens, targets };
  }

  /** The config as created or loaded (frozen). */
  get config() {
    return this.#config;
  }

  /** How the weights are kept: {precision: 'f32' | 'f16' | 'bf16', inferenceOnly, bytes} (see engine.d.ts). */
  get weights() {
    const { weights, inferenceOnly, bytes } = this.#abi.call('modelWeights', { model: this.#live('weights') }).report;
    return { precision: weights, inferenceOnly, bytes };
  }

  /** The attention kernel of every forward and backward pass (see engine.d.ts). */
  get kernel() {
    return this.#abi.call('modelKernel', { model: this.#live('kernel') }).report.kernel;
  }
  set kernel(name) {
    guarded('kernel', () => {
      this.#abi.call('modelSetKernel', { model: this.#live('kernel'), kernel: name });
    });
  }

  /** Training steps taken. */
  get steps() {
    return this.#abi.call('modelSteps', { model: this.#live('steps') }).report.steps;
  }

  /** One training step on a batch; see engine.d.ts. */
  step(batch, options = {}) {
    return guarded('step', (context) => {
      const model = this.#live('step');
      const known = argumentNames(this.#abi.calls.modelStep).filter((n) => !STEP_ARGUMENTS.includes(n));
      const own = ownArguments(context, options, 'options', new Set([...known, 'betas']));
      const { betas, ...o } = given(own);
      if (o.lr !== undefined) numberIn(o.lr, 'lr', 0);
      if (betas !== undefined) {
        if (!Array.isArray(betas) || betas.length !== 2) {
          throw new AttentionError(`betas: expected [beta1, beta2], each in [0, 1), got ${describe(betas)}`, 'betas');
        }
        betas.forEach((b) => numberIn(b, 'betas', 0, 1, false));
        [o.beta1, o.beta2] = betas;
      }
      for (const name of ['eps', 'weightDecay', 'momentum', 'clip', 'minLr'])
        if (o[name] !== undefined) numberIn(o[name], name, 0);
      if (o.seed !== undefined) seedOf(o.seed);
      const { report } = this.#abi.call('modelStep', { model, ...this.#batch(context, batch, true), ...o });
      return { loss: report.loss, gradNorm: report.gradNorm, lr: report.lr, step: report.step };
    });
  }

  /** Loss, accuracy and the argmax prediction of every position of a batch (eval mode). */
  evaluate(batch) {
    return guarded('evaluate', (context) => {
      const model = this.#live('evaluate');
      const r = this.#abi.call('modelEvaluate', { model, ...this.#batch(context, batch, true) });
      return { loss: r.report.loss, accuracy: r.report.accuracy, predictions: r.tensors[0].copy() };
    });
  }

  /** Logits of one sequence (T, V), or of a batch {tokens, batch, context} (B, T, V). */
  logits(tokens) {
    return guarded('logits', (context) => {
      const model = this.#live('logits');
      const single = Array.isArray(tokens) || ArrayBuffer.isView(tokens);
      const args = single
        ? (({ contextLength, vocabSize }) => {
            const ids = sequence(context, tokens, 'tokens', contextLength, vocabSize);
            return { tokens: ids, batch: 1, context: ids.length };
          })(this.#config)
        : this.#batch(context, tokens, false);
      return new Projection(new Result(this.#abi.call('modelLogits', { model, ...args }), () => single).logits);
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
    const model = this.#live(what);
    const known = argumentNames(this.#abi.calls.modelTrace).filter((n) => n !== 'model' && n !== 'tokens');
    const o = given(ownArguments(context, options, 'options', new Set(known)));
    const { layers: L, heads: H, contextLength, vocabSize } = this.#config;
    const layers = ascendingIndices(context, o.layers ?? [], 'layers', L),
      heads = ascendingIndices(context, o.heads ?? [], 'heads', H);
    const ids = sequence(context, tokens, 'tokens', contextLength, vocabSize);
    const traced = this.#abi.call('modelTrace', { ...o, model, tokens: ids, layers, heads });
    const stream = new Result(traced); // copied before the layers' calls replace it
    const all = (list, n) => (list.length ? list.slice() : Array.from({ length: n }, (_, i) => i));
    return {
      tokens: ids.length,
      layers: all(layers, L),
      heads: all(heads, H),
      attention: Array.from(
        { length: traced.report.layers },
        (_, layer) => new Result(this.#abi.call('modelTraceLayer', { model, layer })),
      ),
      residual: stream.residual ?? null,
      afterAttention: stream.afterAttention ?? null,
      logits: stream.logits ?? null,
      ...(o.timings && {
        timings: { linear: stream.timings.data[0], attention: stream.timings.data[1], total: stream.timings.data[2] },
      }),
    };
  }

  // The interpretability tools (web/engine/interpret.js): one sequence's token ids checked here,
  // the options there.
  #interpret(what, tool, tokens, options) {
    return guarded(what, (context) => {
      const model = this.#live(what);
      const { contextLength, vocabSize } = this.#config;
      const check = (c, value, name) => sequence(c, value, name, contextLength, vocabSize);
      return tool(this.#abi, model, this.#config, check(context, tokens, 'tokens'), context, options, check);
    });
  }

  /** One head knocked out (zeroed, or its mean over a reference text); see engine.d.ts. */
  ablate(tokens, options = {}) {
    return this.#interpret('ablate', ablate, tokens, options);
  }

  /** Every head of the chosen blocks knocked out in turn: the layer × head picture; see engine.d.ts. */
  ablationSweep(tokens, options = {}) {
    return this.#interpret('ablationSweep', ablationSweep, tokens, options);
  }

  /** Direct logit attribution of a token's logit at a position; see engine.d.ts. */
  attribute(tokens, options = {}) {
    return this.#interpret('attribute', attribute, tokens, options);
  }

  /** The logit lens: the stream after the embedding and every block read as logits; see engine.d.ts. */
  logitLens(tokens, options = {}) {
    return this.#interpret('logitLens', logitLens, tokens, options);
  }

  /** Generation one token at a time with a KV cache, from `prompt`; see engine.d.ts. */
  session(prompt, options = {}) {
    return guarded('session', (context) => {
      const model = this.#live('session');
      const o = this.#generateOptions(context, options);
      const { report } = this.#abi.call('sessionCreate', { model, ...o, prompt: this.#prompt(context, prompt) });
      return new Session(this.#abi, report.session, this.#config);
    });
  }

  // generate's and session's options: the sampling arguments the calls take.
  #generateOptions(context, options) {
    const known = this.#abi.calls.modelGenerate.scalars
      .map((s) => s.name)
      .filter((n) => n !== 'model' && n !== 'count');
    const o = given(ownArguments(context, options, 'options', new Set(known)));
    if (o.temperature !== undefined) numberIn(o.temperature, 'temperature', 0);
    if (o.topK !== undefined) integerIn(o.topK, 'topK', 0, this.#config.vocabSize);
    if (o.topP !== undefined) topPOf(o.topP);
    if (o.seed !== undefined) seedOf(o.seed);
    return o;
  }

  #prompt(context, prompt) {
    return sequence(context, prompt, 'prompt', MAX_GENERATE, this.#config.vocabSize);
  }

  /** `count` new tokens after `prompt`, as nanoGPT's generate; see engine.d.ts. */
  generate(prompt, count, options = {}) {
    return guarded('generate', (context) => {
      const model = this.#live('generate');
      const o = this.#generateOptions(context, options);
      integerIn(count, 'count', 0, MAX_GENERATE);
      const r = this.#abi.call('modelGenerate', { model, ...o, count, prompt: this.#prompt(context, prompt) });
      return Array.from(r.tensors[0]?.copy() ?? []);
    });
  }

  /** The parameter table: [{name, shape, offset, size}], in the buffer's order. */
  #table(model) {
    const t = new Result(this.#abi.call('modelParamTable', { model }));
    const dims = t.dims.data;
    let at = 0;
    return t.names.data.split('\n').map((name, i) => {
      const rank = t.ranks.data[i];
      at += rank;
      return {
        name,
        shape: Array.from(dims.subarray(at - rank, at)),
        offset: t.offsets.data[i],
        size: t.sizes.data[i],
      };
    });
  }

  /** Every parameter by its nanoGPT name: {shape, data} copies (lm_head.weight is transformer.wte.weight). */
  params() {
    const model = this.#live('params');
    const table = this.#table(model);
    const [all] = this.#abi.call('modelParams', { model }).tensors;
    return Object.fromEntries(
      table.map(({ name, shape, offset, size }) => [name, { shape, data: all.copy(offset, offset + size) }]),
    );
  }

  /** Replaces the parameters named in `params` (all or some); see engine.d.ts. */
  setParams(params) {
    return guarded('setParams', (context) => {
      const model = this.#live('setParams');
      const table = this.#table(model);
      const byName = new Map(table.map((e, i) => [e.name, { ...e, index: i }]));
      const own = ownArguments(context, params, 'params', new Set([...byName.keys(), 'lm_head.weight']));
      if (own['lm_head.weight'] !== undefined && own['transformer.wte.weight'] !== undefined) {
        throw new AttentionError(
          'lm_head.weight: it is transformer.wte.weight (tied); give one of the two',
          'lm_head.weight',
        );
      }
      const indices = [],
        chunks = [];
      for (const [name, value] of Object.entries(own)) {
        const entry = byName.get(name === 'lm_head.weight' ? 'transformer.wte.weight' : name);
        const t = readTensor(context, value, name, [entry.shape.length]);
        if (t.shape.join() !== entry.shape.join()) {
          throw new AttentionError(
            `${name}: expected shape ${shapeText(entry.shape)}, got ${shapeText(t.shape)}`,
            name,
          );
        }
        indices.push(entry.index);
        chunks.push(t.data);
      }
      const total = chunks.reduce((n, c) => n + c.length, 0);
      this.#abi.call('modelSetParams', { model, params: indices, values: total ? { shape: [total], chunks } : null });
    });
  }

  /** The parameters as a safetensors file (F32, state_dict order, the config in its metadata). */
  toSafetensors() {
    return this.#abi.call('modelExport', { model: this.#live('toSafetensors') }).tensors[0].copy();
  }

  /** Frees the model now (it is also freed when garbage-collected); later calls throw AttentionError. */
  dispose() {
    if (!this.#handle) return;
    models?.unregister(this);
    this.#free();
    this.#handle = 0;
  }
}
// modelStep's arguments that are not step()'s options (the batch's, and betas' two halves).
const STEP_ARGUMENTS = ['model', 'tokens', 'targets', 'batch', 'context', 'beta1', 'beta2'];

// Sessions not disposed by hand are freed when garbage-collected (or with their model).
const sessions = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((free) => free()) : null;

/** Generation one token at a time with a KV cache (model.session); see engine.d.ts. */
class Session {
  #abi;
  #handle;
  #free;
  #vocabSize;

  constructor(abi, handle, config) {
    this.#abi = abi;
    this.#handle = handle;
    this.#vocabSize = config.vocabSize;
    this.#free = () => abi.call('sessionDelete', { session: handle });
    sessions?.register(this, this.#free, this);
  }

  #live(what) {
    if (!this.#handle) throw new AttentionError(`${what}: this session was disposed`, what);
    return this.#handle;
  }

  /** The prompt and every token appended so far. */
  get tokens() {
    return Array.from(this.#abi.call('sessionTokens', { session: this.#live('tokens') }).tensors[0].copy());
  }

  /** Draws the next token (or appends options.token), runs it with the cache; see engine.d.ts. */
  step(options = {}) {
    return guarded('step', (context) => {
      const session = this.#live('step');
      const own = ownArguments(context, options, 'options', new Set(['token']));
      const token = own.token === undefined ? -1 : integerIn(own.token, 'token', 0, this.#vocabSize - 1);
      const raw = this.#abi.call('sessionStep', { session, token });
      const t = new Result(raw);
      const r = raw.report;
      return {
        token: r.token,
        position: r.position,
        keys: r.keys,
        recomputed: r.recomputed,
        topTokens: t.topTokens.data,
        topProbs: t.topProbs.data,
        attention: new Projection(t.attention),
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
  return value instanceof Float32Array || (Array.isArray(value) && typeof value[0] === 'number')
    ? readTensor(context, { shape: [value.length], data: value }, 'logits', [1])
    : readTensor(context, value, 'logits', [1]);
}

// createModel's config: its call's arguments (the seed included); loadModel's and openModel's
// overrides: the same but the seed, and config.json.
const configKeys = (abi) => argumentNames(abi.calls.modelCreate);
const loadKeys = (abi) => new Set([...configKeys(abi), 'config']);
const overrides = ({ seed, ...c }) => c;
const utf8 = (text) => new TextEncoder().encode(text);

// How a loaded model keeps its weights (src/model/gpt.h's Precision): 'f32', 'f16' (half the
// memory, inference only), 'bf16' (half the memory, inference only, one token's products faster
// with one thread, 8 times F16's rounding error) or 'auto' (the default): F16 where the weights as float32 would not fit
// the memory left — what wasm32 can still address (4 GiB less what the engine holds now, the old
// model included while a new one opens) and half of navigator.deviceMemory where the browser
// tells it — less RUNTIME_BYTES for the engine's working buffers. The core decides once it knows
// the parameter count (modelOpen's `budget`).
const WEIGHTS = ['f32', 'f16', 'bf16', 'auto'];
const WASM_LIMIT_BYTES = 4 * 1024 ** 3;
const RUNTIME_BYTES = 128e6; // web/lib/hub/memory.js's measure of the engine beyond its weights
const DEVICE_SHARE = 0.5;

/** The `weights` option checked: 'f32', 'f16', 'bf16' or 'auto' (undefined: 'auto'). */
function weightsOf(value) {
  if (value === undefined) return 'auto';
  if (!WEIGHTS.includes(value))
    throw new AttentionError(`weights: expected 'f32', 'f16', 'bf16' or 'auto', got ${describe(value)}`, 'weights');
  return value;
}

/** Bytes float32 weights may take for 'auto': see WEIGHTS above. */
export function weightsBudget(heapBytes, deviceMemoryGB) {
  let budget = WASM_LIMIT_BYTES - heapBytes - RUNTIME_BYTES;
  if (Number.isFinite(deviceMemoryGB) && deviceMemoryGB > 0)
    budget = Math.min(budget, deviceMemoryGB * 1024 ** 3 * DEVICE_SHARE - heapBytes - RUNTIME_BYTES);
  return Math.max(0, budget);
}

/**
 * The `inferenceOnly` option checked (undefined: false): float32 weights kept in the products'
 * panels (gpt.h's kF32Panels): the same numbers, one token's products about twice as fast, no
 * training or params() (F16 and BF16 are always so).
 */
const inferenceOnlyOf = (value) => (value === undefined ? false : booleanOf(value, 'inferenceOnly'));

// The calls' weights, budget and inferenceOnly arguments for the checked options.
function precisionArguments(weights, inferenceOnly, heapBytes) {
  const deviceMemory = globalThis.navigator?.deviceMemory;
  return { weights, budget: weights === 'auto' ? weightsBudget(heapBytes(), deviceMemory) : NaN, inferenceOnly };
}

/** A new nanoGPT-compatible model, initialised as PyTorch's GPT(config) after torch.manual_seed(seed). */
function createModel(abi, limits, config) {
  return guarded('createModel', (context) => {
    const c = checkModelConfig(ownArguments(context, config, 'config', new Set(configKeys(abi))), limits.model, true);
    const { report } = abi.call('modelCreate', c);
    return new Model(abi, report.model, c.seed ?? 0);
  });
}

/** A model from a safetensors file (bytes): nanoGPT's layout or Hugging Face's GPT-2; see engine.d.ts. */
function loadModel(abi, limits, heapBytes, bytes, options) {
  return guarded('loadModel', (context) => {
    context.reading = 'bytes';
    const data = bytes instanceof Uint8Array ? bytes : bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : null;
    if (!data) throw new AttentionError(`bytes: expected a Uint8Array or ArrayBuffer, got ${describe(bytes)}`, 'bytes');
    if (data.length > MAX_FILE_BYTES)
      throw new AttentionError(`bytes: ${data.length} bytes; at most ${MAX_FILE_BYTES}`, 'bytes');
    const own = ownArguments(context, options, 'overrides', new Set([...loadKeys(abi), 'weights', 'inferenceOnly']));
    const { config, weights, inferenceOnly, ...c } = checkModelConfig(own, limits.model, false);
    const precision = precisionArguments(weightsOf(weights), inferenceOnlyOf(inferenceOnly), heapBytes);
    context.reading = 'config';
    const text = utf8(configTextSync(config));
    const { report } = abi.call('modelLoad', { ...overrides(c), ...precision, file: data, config: text });
    return new Model(abi, report.model, c.seed ?? 0);
  });
}

// openModel's options, checked: the config's overrides, the slice length and onProgress.
function openOptions(abi, limits, options) {
  const context = { reading: 'openModel' };
  try {
    const own = ownArguments(
      context,
      options,
      'options',
      new Set([...loadKeys(abi), 'onProgress', 'signal', 'sliceBytes', 'weights', 'inferenceOnly']),
    );
    const { onProgress, signal, sliceBytes, config, weights, inferenceOnly, ...fields } = own;
    context.reading = 'weights';
    const precision = weightsOf(weights);
    context.reading = 'inferenceOnly';
    const inferenceOnlyChecked = inferenceOnlyOf(inferenceOnly);
    const slice = sliceBytes === undefined ? DEFAULT_SLICE : integerIn(sliceBytes, 'sliceBytes', 1, MAX_SLICE);
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      throw new AttentionError(`onProgress: expected a function, got ${describe(onProgress)}`, 'onProgress');
    }
    return {
      c: overrides(checkModelConfig(fields, limits.model, false)),
      slice,
      onProgress,
      signal,
      config,
      precision,
      inferenceOnly: inferenceOnlyChecked,
    };
  } catch (error) {
    throw asAttentionError(error, context.reading);
  }
}

/**
 * A model read slice by slice from bytes, a Blob or File, a URL or {size, read(offset,
 * length)}: nanoGPT's layout or Hugging Face's GPT-2; see engine.d.ts.
 */
async function openModel(abi, limits, heapBytes, source, options) {
  const {
    c,
    slice,
    onProgress,
    signal,
    config: configOption,
    precision,
    inferenceOnly,
  } = openOptions(abi, limits, options);
  const check = () => {
    if (signal?.aborted) throw new AttentionError('signal: openModel was aborted', 'signal');
  };
  let reader = null,
    loader = 0;
  try {
    check();
    const config = utf8(await configText(configOption));
    reader = await openSource(source, signal);
    const fileSize = reader.size ?? -1;
    // 1. the header's length from the first 8 bytes, checked before anything else is read
    const first = await reader.read(0, Math.min(8, reader.size ?? 8)); // a shorter file: the core says so
    const n = abi.call('modelHeaderLength', { head: first, fileSize }).report.length;
    // 2. the header: the config, every tensor matched, the parameters allocated
    const header = new Uint8Array(8 + n);
    header.set(first);
    header.set(await reader.read(8, n), 8);
    check();
    const opened = abi.call('modelOpen', {
      ...c,
      ...precisionArguments(precision, inferenceOnly, heapBytes),
      header,
      config,
      fileSize,
    });
    loader = opened.report.loader;
    const { fileEnd } = opened.report;
    const [begins, ends] = opened.tensors.map((t) => t.copy());
    // 3. each tensor's bytes, slice by slice, straight into its place
    const total = begins.reduce((sum, begin, i) => sum + (ends[i] - begin), 0);
    let loaded = 0;
    for (let i = 0; i < begins.length; i++) {
      for (let at = begins[i]; at < ends[i]; at += slice) {
        const length = Math.min(slice, ends[i] - at);
        const bytes = await reader.read(at, length);
        check();
        abi.call('modelOpenWrite', { loader, copy: i, offset: at - begins[i], bytes });
        loaded += length;
        onProgress?.({ loaded, total });
      }
    }
    await reader.finish(fileEnd);
    // 4. the model
    const finishing = loader;
    loader = 0; // finished or failed, the core frees it
    return new Model(abi, abi.call('modelOpenFinish', { loader: finishing }).report.model, 0);
  } catch (error) {
    throw asAttentionError(error, 'source');
  } finally {
    if (loader) abi.call('modelOpenCancel', { loader });
    reader?.close();
  }
}

/** The next-token distribution of one position's logits (V); see engine.d.ts. */
function nextToken(abi, logits, options) {
  return guarded('nextToken', (context) => {
    const t = logitsOf(context, logits);
    const known = abi.calls.nextToken.scalars.map((s) => s.name).filter((n) => n !== 'sample');
    const o = given(ownArguments(context, options, 'options', new Set(known)));
    const V = t.data.length;
    if (o.temperature !== undefined) numberIn(o.temperature, 'temperature', 0);
    if (o.topK !== undefined) integerIn(o.topK, 'topK', 0, V);
    if (o.topP !== undefined) topPOf(o.topP);
    if (o.top !== undefined) integerIn(o.top, 'top', 0, V);
    if (o.seed !== undefined) seedOf(o.seed);
    const r = new Result(abi.call('nextToken', { ...o, logits: t, sample: o.seed !== undefined }));
    return {
      probs: r.probs.data,
      topTokens: r.topTokens.data,
      topProbs: r.topProbs.data,
      token: r.token ? r.token.data[0] : null,
    };
  });
}

/**
 * engine.createModel, loadModel, openModel and nextToken over the whole engine's model calls
 * (`abi`, abi.js's); `limits` is engine.limits.
 */
export function modelMethods(abi, limits, heapBytes = () => 0) {
  return {
    createModel: (config) => createModel(abi, limits, config),
    loadModel: (bytes, options = {}) => loadModel(abi, limits, heapBytes, bytes, options),
    openModel: (source, options = {}) => openModel(abi, limits, heapBytes, source, options),
    nextToken: (logits, options = {}) => nextToken(abi, logits, options),
  };
}

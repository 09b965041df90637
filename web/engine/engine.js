// The JavaScript face of the WASM attention core: one engine instance per page (or Node
// process), arguments checked and normalised here, computation in C++ (src/core/ via
// src/bindings/). Every bad argument throws an AttentionError naming it; the engine keeps
// answering after an error. All returned arrays are copies owned by JavaScript. Every call
// crosses by name through abi.js, which takes the arguments' order, kinds and enums from the
// core's description of its calls (src/bindings/abi.h).
//
// Shapes: B batch, T tokens, D width, H heads, hk/hv per-head widths.

import {
  AttentionError,
  MAX_ELEMENTS,
  count,
  describe,
  finite,
  flagsOf,
  guarded,
  ownArguments,
  readTensor,
  shapeText,
} from './args.js';
import { bindAbi } from './abi.js';
import { modelMethods } from './model.js';
import { Projection, Result } from './result.js';
import { MAX_DEFAULT_THREADS, threadsUnavailableReason, defaultThreadsFiles, startThreadedModule } from './threads.js';

export { AttentionError, toTensor, toNested } from './args.js';
export { bindAbi } from './abi.js';
export { MAX_DEFAULT_THREADS, threadsUnavailableReason };

// attend's options that are not tensors, with their defaults. Every call's tensor arguments and
// their ranks come from the core's description (abi.js).
const OPTION_DEFAULTS = {
  heads: 1,
  causal: false,
  keyPadding: null,
  scale: true,
  temperature: 1,
  dropout: 0,
  seed: 0,
  training: false,
  dropoutKeep: null,
  kernel: 'auto',
  materialize: true,
};
function checkOptions(args, maxHeads) {
  const o = { ...OPTION_DEFAULTS };
  for (const key of Object.keys(OPTION_DEFAULTS)) if (args[key] !== undefined) o[key] = args[key];
  if (!Number.isInteger(o.heads) || o.heads < 1 || o.heads > maxHeads) {
    throw new AttentionError(`heads: expected an integer in [1, ${maxHeads}], got ${describe(o.heads)}`, 'heads');
  }
  for (const key of ['causal', 'training', 'materialize']) {
    if (typeof o[key] !== 'boolean')
      throw new AttentionError(`${key}: expected true or false, got ${describe(o[key])}`, key);
  }
  if (!(typeof o.scale === 'boolean' || (typeof o.scale === 'number' && Number.isFinite(o.scale) && o.scale !== 0))) {
    throw new AttentionError(
      `scale: expected true (1/√head size), false (none) or a finite non-zero number, got ${describe(o.scale)}`,
      'scale',
    );
  }
  if (typeof o.temperature !== 'number' || !Number.isFinite(o.temperature) || o.temperature <= 0) {
    throw new AttentionError(
      `temperature: expected a finite number > 0, got ${describe(o.temperature)}`,
      'temperature',
    );
  }
  if (typeof o.dropout !== 'number' || !(o.dropout >= 0 && o.dropout < 1)) {
    throw new AttentionError(`dropout: expected p in [0, 1), got ${describe(o.dropout)}`, 'dropout');
  }
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) {
    throw new AttentionError(`seed: expected an integer ≥ 0, got ${describe(o.seed)}`, 'seed');
  }
  return o;
}

// attend's scalar arguments and flags from its checked options.
const SCALE_MODE = (scale) => (scale === true ? 'inverseSqrtHeadSize' : scale === false ? 'none' : 'factor');
function attendArguments(context, o) {
  return {
    keyPadding: o.keyPadding === null ? null : flagsOf(context, o.keyPadding, 'keyPadding'),
    dropoutKeep: o.dropoutKeep === null ? null : flagsOf(context, o.dropoutKeep, 'dropoutKeep'),
    kernel: o.kernel,
    heads: o.heads,
    causal: o.causal,
    scaleMode: SCALE_MODE(o.scale),
    scale: typeof o.scale === 'number' ? o.scale : 1,
    temperature: o.temperature,
    dropout: o.dropout,
    seed: o.seed,
    training: o.training,
    materialize: o.materialize,
  };
}

class Trace extends Result {
  constructor(raw, ms) {
    super(raw, () => !raw.report.batched);
    this.kernel = raw.report.kernel;
    this.scale = raw.report.scale;
    this.batched = raw.report.batched;
    this.ms = ms;
  }
}

class Averaging extends Result {
  constructor(raw) {
    const { batched } = raw.report;
    super(raw, (name) => !batched && (name === 'loop' || name === 'matmul' || name === 'softmax'));
    this.batched = batched;
  }
}

/** engine.pca's answer: mean (D), components (2, D), projected (N, 2), explained (2). */
class Pca extends Result {}

// A draw's shape: a non-empty array of integers ≥ 0.
function drawShape(shape, name = 'shape') {
  if (
    !Array.isArray(shape) ||
    shape.length === 0 ||
    shape.length > 8 ||
    !shape.every((d) => Number.isInteger(d) && d >= 0)
  ) {
    throw new AttentionError(`${name}: expected an array of 1 to 8 integers ≥ 0, got ${describe(shape)}`, name);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (count > MAX_ELEMENTS)
    throw new AttentionError(`${name}: ${shapeText(shape)} has more than ${MAX_ELEMENTS} elements`, name);
  return shape;
}

// Generators not disposed by hand are freed when garbage-collected.
const generators = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((free) => free()) : null;

/**
 * PyTorch 1.13's CPU generator (x86-64, no MKL), bit for bit, after torch.manual_seed(seed):
 * each draw continues the stream as successive notebook cells do. Results are {shape, data:
 * Float32Array}. Errors are AttentionErrors naming the argument.
 */
class TorchGenerator {
  #draw;
  #handle;
  #free;

  constructor(abi, seed) {
    const handle = abi.call('generatorCreate', { seed }).report.generator;
    this.#handle = handle;
    this.#free = () => abi.call('generatorDelete', { generator: handle });
    generators?.register(this, this.#free, this);
    this.#draw = (op, { input = null, shape = null, a = 0, b = 0, flag = false } = {}) => {
      if (!this.#handle) throw new AttentionError(`${op}: this generator was disposed`, op);
      return new Result(abi.call('draw', { generator: this.#handle, op, input, shape, a, b, flag }));
    };
  }

  /** torch.rand(*shape): uniform in [0, 1). */
  rand(shape) {
    return this.#draw('rand', { shape: drawShape(shape) }).values;
  }

  /** torch.randn(*shape): standard normal (torch's small and large sampling paths). */
  randn(shape) {
    return this.#draw('randn', { shape: drawShape(shape) }).values;
  }

  /** torch.randint(low, high, shape): integers in [low, high), |low|, |high| ≤ 2^24 (exact in float32). */
  randint(low, high, shape) {
    for (const [v, name] of [
      [low, 'low'],
      [high, 'high'],
    ]) {
      if (!Number.isInteger(v) || Math.abs(v) > 2 ** 24) {
        throw new AttentionError(`${name}: expected an integer in [−2^24, 2^24], got ${describe(v)}`, name);
      }
    }
    return this.#draw('randint', { shape: drawShape(shape), a: low, b: high }).values;
  }

  /** nn.Linear(inFeatures, outFeatures, bias) initialisation: {weight (out, in), bias (out) or null}. */
  linear(inFeatures, outFeatures, { bias = true } = {}) {
    if (typeof bias !== 'boolean')
      throw new AttentionError(`bias: expected true or false, got ${describe(bias)}`, 'bias');
    const r = this.#draw('linear', {
      a: count(inFeatures, 'inFeatures'),
      b: count(outFeatures, 'outFeatures'),
      flag: bias,
    });
    return { weight: r.values, bias: r.bias ?? null };
  }

  /** nn.Embedding(count, dim) initialisation: normal(0, 1) of shape (count, dim). */
  embedding(countOf, dim) {
    return this.#draw('embedding', { a: count(countOf, 'count'), b: count(dim, 'dim') }).values;
  }

  /** tensor.normal_(mean, std) on a fresh tensor of `shape`. */
  normal(mean, std, shape) {
    return this.#draw('normal', { shape: drawShape(shape), a: finite(mean, 'mean'), b: finite(std, 'std') }).values;
  }

  /** tensor.uniform_(from, to) on a fresh tensor of `shape`. */
  uniform(from, to, shape) {
    return this.#draw('uniform', { shape: drawShape(shape), a: finite(from, 'from'), b: finite(to, 'to') }).values;
  }

  /** Bernoulli draws of probability p (0/1 values), as dropout's noise is drawn. */
  bernoulli(p, shape) {
    return this.#draw('bernoulli', { shape: drawShape(shape), a: finite(p, 'p') }).values;
  }

  /** F.dropout(input, p, training=True): {keep (0/1), output}, both shaped like input. */
  dropout(input, p) {
    const t = guarded('input', (context) => readTensor(context, input, 'input', [1, 2, 3, 4]));
    const r = this.#draw('dropout', { input: t, a: finite(p, 'p') });
    return { keep: r.keep, output: r.values };
  }

  /** Advances the stream by `words` 32-bit draws (cells the page does not show). */
  skip(words) {
    this.#draw('skip', { a: count(words, 'words') });
  }

  /** Frees the generator now (it is also freed when garbage-collected). */
  dispose() {
    if (!this.#handle) return;
    generators?.unregister(this);
    this.#free();
    this.#handle = 0;
  }
}

// A method whose calls this build of the engine lacks: the element's small engine.
const unavailable = (call, what) => {
  throw new AttentionError(
    `${call}: this build of the engine has no ${what} (the embeddable element's small engine); load the whole engine`,
    call,
  );
};
// createModel and loadModel where there are none: the element's small engine, or its bundle,
// which leaves web/engine/model.js out (scripts/build-dist.mjs).
const withoutModels = {
  createModel: () => unavailable('createModel', 'models'),
  loadModel: () => unavailable('loadModel', 'models'),
  openModel: async () => unavailable('openModel', 'models'),
  nextToken: () => unavailable('nextToken', 'models'),
};

// The calls whose tensor arguments a caller names, with the options each accepts besides them.
const TENSOR_CALLS = { attend: true, attendBackward: true, project: false, averaging: false, pca: false };

/** engine.attend, attendBackward, project, averaging and pca over `abi` (abi.js's). */
function tensorMethods(abi, limits) {
  const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
  // Per call: the tensor arguments with their ranks, and every option name it accepts.
  const calls = Object.fromEntries(
    Object.entries(TENSOR_CALLS)
      .filter(([name]) => abi.calls[name])
      .map(([name, options]) => {
        const tensors = abi.calls[name].tensors.map(({ name: arg, ranks }) => ({ name: arg, ranks }));
        const known = new Set([...tensors.map((t) => t.name), ...(options ? Object.keys(OPTION_DEFAULTS) : [])]);
        return [name, { tensors, known }];
      }),
  );
  // The call's tensor arguments from a snapshot of the caller's options; x is required.
  const readTensors = (context, call, own) => {
    const tensors = Object.create(null); // no inherited entries, even from a polluted prototype
    for (const { name, ranks } of calls[call].tensors) {
      if (own[name] !== undefined && own[name] !== null) tensors[name] = readTensor(context, own[name], name, ranks);
    }
    if (!tensors.x) throw new AttentionError('x: required, expected (T, D) or (B, T, D) numbers', 'x');
    return tensors;
  };

  return {
    /** Self-attention with every intermediate; see engine.d.ts. */
    attend(args) {
      return guarded('attend', (context) => {
        const own = ownArguments(context, args, 'attend', calls.attend.known);
        const o = checkOptions(own, limits.maxHeads);
        const tensors = readTensors(context, 'attend', own);
        const start = now();
        const raw = abi.call('attend', { ...tensors, ...attendArguments(context, o) });
        return new Trace(raw, now() - start);
      });
    },

    /**
     * The gradient of a loss by every input of attend(args) from gradOutput, the loss's gradient
     * by the output (shaped like it): attendBackward(args, gradOutput), or gradOutput inside
     * args; see engine.d.ts.
     */
    attendBackward(args, gradOutput) {
      if (gradOutput !== undefined) {
        if (args === null || typeof args !== 'object' || Array.isArray(args))
          throw new AttentionError(
            `attendBackward: expected attend()'s options object, got ${describe(args)}`,
            'attendBackward',
          );
        if (args.gradOutput !== undefined)
          throw new AttentionError('gradOutput: given twice (in the options and as the second argument)', 'gradOutput');
        args = { ...args, gradOutput };
      }
      return guarded('attendBackward', (context) => {
        if (!calls.attendBackward) unavailable('attendBackward', 'backward pass');
        const own = ownArguments(context, args, 'attendBackward', calls.attendBackward.known);
        const o = checkOptions(own, limits.maxHeads);
        const tensors = readTensors(context, 'attendBackward', own);
        if (!tensors.gradOutput) {
          throw new AttentionError(
            "gradOutput: required, the gradient of the loss by the output, shaped like attend()'s output",
            'gradOutput',
          );
        }
        return new Result(abi.call('attendBackward', { ...tensors, ...attendArguments(context, o) }));
      });
    },

    /** The plain linear layer y = x·w + b; see engine.d.ts. */
    project(args) {
      return guarded('project', (context) => {
        const own = ownArguments(context, args, 'project', calls.project.known);
        return new Projection(new Result(abi.call('project', readTensors(context, 'project', own))).y);
      });
    },

    /** Seed 002's causal averaging, three ways. */
    averaging(args) {
      return guarded('averaging', (context) => {
        const own = ownArguments(context, args, 'averaging', calls.averaging.known);
        return new Averaging(abi.call('averaging', readTensors(context, 'averaging', own)));
      });
    },

    /** The two principal components of points x (N, D); see engine.d.ts. */
    pca(args) {
      return guarded('pca', (context) => {
        if (!calls.pca) unavailable('pca', 'PCA');
        const own = ownArguments(context, args, 'pca', calls.pca.known);
        return new Pca(abi.call('pca', readTensors(context, 'pca', own)));
      });
    },
  };
}

function makeEngine(module, { maxThreads = 1, singleThreadReason = null } = {}) {
  const abi = bindAbi(module);
  const limits = Object.freeze({
    ...abi.call('limits').report,
    ...(abi.calls.modelLimits && { model: abi.call('modelLimits').report }),
  });

  return {
    simd: module.simd(),
    version: module.version(),
    limits,

    ...tensorMethods(abi, limits),

    /** What this build of the engine can do beyond attention (the element's small engine cannot). */
    features: Object.freeze({
      attendBackward: Boolean(abi.calls.attendBackward),
      pca: Boolean(abi.calls.pca),
      torchGenerator: Boolean(abi.calls.draw),
      createModel: Boolean(modelMethods && abi.calls.modelCreate),
      loadModel: Boolean(modelMethods && abi.calls.modelLoad),
      openModel: Boolean(modelMethods && abi.calls.modelOpen),
    }),

    ...(modelMethods && abi.calls.modelCreate ? modelMethods(abi, limits, () => module.heapBytes()) : withoutModels),

    /** PyTorch's CPU generator after torch.manual_seed(seed); see engine.d.ts. */
    torchGenerator(seed = 0) {
      return guarded('seed', () => {
        if (!abi.calls.draw) unavailable('torchGenerator', 'PyTorch generator');
        if (!Number.isSafeInteger(seed)) {
          throw new AttentionError(`seed: expected an integer in [−2^53, 2^53], got ${describe(seed)}`, 'seed');
        }
        return new TorchGenerator(abi, seed);
      });
    },

    /** Seed 003's bank example (a fresh copy each call). */
    examples() {
      return module.examples();
    },

    /** Cosine similarity of two equal-length vectors (0 when either is all zero). */
    cosine(a, b) {
      const [ta, tb] = guarded('a', (context) => [readTensor(context, a, 'a', [1]), readTensor(context, b, 'b', [1])]);
      return abi.call('cosine', { a: ta, b: tb }).report.similarity;
    },

    /** Current size of the WASM heap in bytes (for leak checks). */
    heapBytes() {
      return module.heapBytes();
    },

    /** Bytes currently allocated by the core's malloc (sees leaks smaller than the spare heap). */
    heapUsed() {
      return module.heapUsed();
    },

    /** Threads the core's loops use, the caller included: 1 … maxThreads; see engine.d.ts. */
    get threads() {
      return maxThreads > 1 ? abi.call('threads').report.count : 1;
    },
    set threads(count) {
      if (!Number.isInteger(count) || count < 1 || count > maxThreads) {
        const why = maxThreads === 1 ? ` (this engine runs on one thread: ${singleThreadReason})` : '';
        throw new AttentionError(
          `threads: expected an integer in [1, ${maxThreads}]${why}, got ${describe(count)}`,
          'threads',
        );
      }
      if (maxThreads > 1) abi.call('setThreads', { count });
    },
    /** The most threads this engine can use: 1 for the single-thread build. */
    maxThreads,
    /** Why this engine runs on one thread (null for the threaded build). */
    singleThreadReason,
  };
}

const enginePromises = new Map();

// The compiled core: a .wasm beside this file, fetched in browsers and read from disk in Node
// (Emscripten 3.1.6's own loader cannot do both from one ES module).
async function fetchBytes(url) {
  if (url.startsWith('file:') && typeof process === 'object' && process.versions?.node) {
    const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
    return readFile(new URL(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`loadEngine: could not load ${url} (HTTP ${response.status})`);
  return response.arrayBuffer();
}

/**
 * Loads the WASM module once and returns the shared engine. Same call in browsers and Node.
 * `options.wasmBinary` (bytes of attention_engine.wasm) skips the fetch, e.g. in a bundle.
 * `options.threads: 'auto'`: the threaded engine where it can run (threadsUnavailableReason),
 * else the single-thread one; `options.threadsFiles` ({glue, worker, wasm} URLs) say where a
 * bundle serves the threaded build's files. One engine per kind is shared.
 */
export function loadEngine(options = {}) {
  const kind = options.threads === 'auto' ? 'auto' : 'single';
  if (!enginePromises.has(kind)) {
    const promise = createEngine(options).catch((error) => {
      enginePromises.delete(kind);
      throw error;
    });
    enginePromises.set(kind, promise);
  }
  return enginePromises.get(kind);
}

/**
 * A new engine instance of its own (loadEngine() shares one): e.g. a second build of the engine
 * beside the first. Options as for loadEngine.
 */
export async function createEngine(options = {}) {
  const { threads = 1, threadsFiles = defaultThreadsFiles() } = options;
  if (threads !== 1 && threads !== 'auto')
    throw new AttentionError(
      `threads: expected 'auto' (the threaded engine where it can run) or 1, got ${describe(threads)}`,
      'threads',
    );
  let singleThreadReason = "the engine was loaded without threads: 'auto'";
  if (threads === 'auto') {
    singleThreadReason = threadsUnavailableReason();
    if (!singleThreadReason) {
      const started = await startThreadedModule(threadsFiles).catch((error) => ({ error }));
      try {
        if (started.error) throw started.error;
        const engine = makeEngine(started.module, { maxThreads: started.maxThreads });
        engine.threads = started.maxThreads;
        return engine;
      } catch (error) {
        started.stop?.();
        singleThreadReason = `the threaded engine failed to start (${error.message})`;
      }
    }
  }
  const [{ default: createAttentionModule }, wasmBinary] = await Promise.all([
    import('./attention_engine.mjs'),
    options.wasmBinary ?? fetchBytes(new URL('./attention_engine.wasm', import.meta.url).href),
  ]);
  return makeEngine(await createAttentionModule({ wasmBinary }), { singleThreadReason });
}

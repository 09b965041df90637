// The JavaScript face of the WASM attention core: one engine instance per page (or Node
// process), arguments checked and normalised here, computation in C++ (src/core/ via
// src/bindings/). Every bad argument throws an AttentionError naming it; the engine keeps
// answering after an error. All returned arrays are copies owned by JavaScript.
//
// Shapes: B batch, T tokens, D width, H heads, hk/hv per-head widths.

import { describe } from './args.js';
import { modelMethods } from './model.js';
import { MAX_DEFAULT_THREADS, threadsUnavailableReason, defaultThreadsFiles, startThreadedModule } from './threads.js';

export { MAX_DEFAULT_THREADS, threadsUnavailableReason };

/** Thrown for every bad argument; `.argument` names it. */
export class AttentionError extends Error {
  constructor(message, argument) {
    super(message);
    this.name = 'AttentionError';
    this.argument = argument;
  }
}

// attend's options that are not tensors, with their defaults. Every call's tensor arguments and
// their ranks come from the core's layout table (bindAbi below).
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
const MAX_ELEMENTS = 1 << 24;

const shapeText = (shape) => `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;

/**
 * Normalises a tensor argument: nested number arrays, or {shape, data} with a typed array or
 * plain array. Returns {shape, data: Float32Array}. Throws AttentionError naming `name`.
 */
export function toTensor(value, name, ranks = [1, 2, 3, 4]) {
  const expected = ranks.map((r) => `${r}-d`).join(' or ');
  let shape, data;
  if (value && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'shape' in value) {
    shape = value.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 1)) {
      throw new AttentionError(`${name}: shape must be an array of integers ≥ 1, got ${JSON.stringify(shape)}`, name);
    }
    const count = shape.reduce((a, b) => a * b, 1);
    if (count > MAX_ELEMENTS)
      throw new AttentionError(`${name}: shape ${shapeText(shape)} has more than ${MAX_ELEMENTS} elements`, name);
    if (!(ArrayBuffer.isView(value.data) || Array.isArray(value.data))) {
      throw new AttentionError(
        `${name}: data must be a Float32Array or an array of numbers, got ${describe(value.data)}`,
        name,
      );
    }
    if (value.data.length !== count) {
      throw new AttentionError(
        `${name}: shape ${shapeText(shape)} needs ${count} values, data has ${value.data.length}`,
        name,
      );
    }
    data = value.data instanceof Float32Array ? value.data.slice() : Float32Array.from(value.data, Number);
  } else if (Array.isArray(value)) {
    shape = [];
    for (let level = value; Array.isArray(level); level = level[0]) {
      if (level.length === 0)
        throw new AttentionError(`${name}: empty array at depth ${shape.length}; expected ${expected} numbers`, name);
      shape.push(level.length);
      if (shape.length > 4) break;
    }
    const count = shape.reduce((a, b) => a * b, 1);
    if (count > MAX_ELEMENTS)
      throw new AttentionError(`${name}: shape ${shapeText(shape)} has more than ${MAX_ELEMENTS} elements`, name);
    data = new Float32Array(count);
    let offset = 0;
    const index = []; // the path to the current node, spelled out only in an error message
    const at = () => index.map((i) => `[${i}]`).join('');
    const walk = (node, depth) => {
      if (depth === shape.length) {
        if (typeof node !== 'number') {
          throw new AttentionError(`${name}${at()}: expected a number, got ${describe(node)}`, name);
        }
        if (!Number.isFinite(node)) {
          throw new AttentionError(`${name}${at()}: every value must be a finite number, got ${node}`, name);
        }
        data[offset++] = node;
        return;
      }
      if (!Array.isArray(node) || node.length !== shape[depth]) {
        throw new AttentionError(
          `${name}${at()}: ragged array: expected ${shape[depth]} entries (shape ${shapeText(shape)}), got ${describe(node)}`,
          name,
        );
      }
      for (let i = 0; i < node.length; i++) {
        index.push(i);
        walk(node[i], depth + 1);
        index.pop();
      }
    };
    walk(value, 0);
  } else {
    throw new AttentionError(
      `${name}: expected ${expected} nested arrays of numbers or {shape, data}, got ${describe(value)}`,
      name,
    );
  }
  if (!ranks.includes(shape.length)) {
    throw new AttentionError(`${name}: expected a ${expected} tensor, got shape ${shapeText(shape)}`, name);
  }
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      throw new AttentionError(`${name}: every value must be a finite number, got ${data[i]} at flat index ${i}`, name);
    }
  }
  return { shape: shape.slice(), data };
}

/** Nested arrays from {shape, data} (data a typed array or a plain array). */
export function toNested({ shape, data }) {
  if (shape.length === 0) return data[0];
  const stride = shape.slice(1).reduce((a, b) => a * b, 1);
  const slice = (from, to) => Array.from(data.subarray ? data.subarray(from, to) : data.slice(from, to));
  const build = (offset, dims) => {
    if (dims.length === 1) return slice(offset, offset + dims[0]);
    const inner = dims.slice(1).reduce((a, b) => a * b, 1);
    return Array.from({ length: dims[0] }, (_, i) => build(offset + i * inner, dims.slice(1)));
  };
  return stride >= 0 ? build(0, shape) : [];
}

/**
 * Runs fn(context) for one call named `what`; any error that is not already an AttentionError
 * (a throwing getter, a revoked Proxy: code we do not control) becomes one naming
 * context.reading, the argument being read when it was thrown.
 */
function guarded(what, fn) {
  const context = { reading: what };
  try {
    return fn(context);
  } catch (error) {
    if (error instanceof AttentionError) throw error;
    const name = context.reading;
    throw new AttentionError(`${name}: could not read the argument (${error?.message ?? String(error)})`, name);
  }
}

/** toTensor for one argument of a call: notes in `context` that `name` is being read. */
function readTensor(context, value, name, ranks) {
  context.reading = name;
  return toTensor(value, name, ranks);
}

/**
 * A snapshot of the caller's own enumerable properties, each read once: inherited ones
 * (a polluted Object.prototype) are ignored and a getter cannot change its answer mid-call.
 */
function ownArguments(context, args, what, allowed) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new AttentionError(`${what}: expected an options object, got ${describe(args)}`, what);
  }
  const own = Object.create(null);
  for (const key of Object.keys(args)) {
    if (!allowed.has(key)) {
      throw new AttentionError(`${key}: unknown option; known options are ${[...allowed].join(', ')}`, key);
    }
    context.reading = key;
    own[key] = args[key];
  }
  return own;
}

function checkOptions(args, maxHeads, kernels) {
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
  if (typeof o.kernel !== 'string' || !kernels.includes(o.kernel)) {
    throw new AttentionError(
      `kernel: expected one of ${kernels.map((k) => `'${k}'`).join(', ')}, got ${describe(o.kernel)}`,
      'kernel',
    );
  }
  return o;
}

function flags(context, value, name) {
  // Booleans (or 0/1) as nested arrays or a flat array → {shape, data: Uint8Array}.
  context.reading = name;
  const asNumbers = (v) => (Array.isArray(v) ? v.map(asNumbers) : typeof v === 'boolean' ? Number(v) : v);
  const tensor = toTensor(Array.isArray(value) ? asNumbers(value) : value, name, [1, 2, 3, 4]);
  for (const f of tensor.data) {
    if (f !== 0 && f !== 1) throw new AttentionError(`${name}: expected booleans (true = keep), got ${f}`, name);
  }
  return { shape: tensor.shape, data: Uint8Array.from(tensor.data) };
}

// ---------------------------------------------------------------------------------------------
// The binary layout shared with the core. src/bindings/abi.h describes it once and the module
// exports that table (module.abi()): header fields by name with their offset and type, each
// call's tensor and flag arguments in packing order with their ranks, each call's result names,
// and the kernel and scale-mode names by enum value. bindAbi() derives the arena writer and the
// result reader from it; engine.js keeps no offset, order or integer tag of its own, only the
// names below, which bindAbi() checks against the table in both directions at load, so a field
// renamed or added on either side fails loudly there rather than garbling a call.

const HEAPS = { i32: 'HEAP32', u32: 'HEAPU32', f32: 'HEAPF32' };
const MODEL_CALLS = ['modelLogits', 'modelAttention', 'modelTrace', 'sessionStep', 'nextToken'];
const CALLS = ['attend', 'attendBackward', 'project', 'averaging', 'pca', 'draw', ...MODEL_CALLS];
// Calls the embeddable element's small engine (attention_engine_embed) leaves out.
const OPTIONAL_CALLS = ['attendBackward', 'pca', 'draw', ...MODEL_CALLS];
const SECTION_FIELDS = ['floats', 'ints', 'bytes'];
const RESULT_FIELDS = ['failed', 'data', 'dataLength', 'layout', 'layoutLength', 'kernel', 'batched', 'scale'];
// attend's option fields, each computed from the checked options (o) and the table (abi).
const SCALE_MODE = (scale) => (scale === true ? 'inverseSqrtHeadSize' : scale === false ? 'none' : 'factor');
const OPTION_FIELDS = {
  kernel: (o, abi) => abi.kernels.indexOf(o.kernel),
  heads: (o) => o.heads,
  causal: (o) => Number(o.causal),
  scaleMode: (o, abi) => abi.scaleModes.indexOf(SCALE_MODE(o.scale)),
  training: (o) => Number(o.training),
  materialize: (o) => Number(o.materialize),
  seedLow: (o) => o.seed % 2 ** 32,
  seedHigh: (o) => Math.floor(o.seed / 2 ** 32),
  scale: (o) => (typeof o.scale === 'number' ? o.scale : 1),
  temperature: (o) => o.temperature,
  dropout: (o) => o.dropout,
};

/** The core's last error (module.lastError()) as an AttentionError naming the argument it starts with. */
function coreError(module) {
  const message = module.lastError();
  const argument = /^([A-Za-z_][\w.-]*)(?:\[\d+\])*\s*:/.exec(message)?.[1];
  return new AttentionError(message, argument);
}

function abiError(message) {
  return new Error(`engine ABI: ${message} (src/bindings/abi.h and web/engine/engine.js disagree)`);
}

// The table's fields {name, offset, type} as {name → {heap, word}}; every name in `expected`
// must be there, and nothing else.
function fieldsByName(fields, expected, what) {
  const byName = new Map();
  for (const { name, offset, type } of fields) {
    if (!expected.includes(name)) throw abiError(`${what} field '${name}' is not one engine.js knows`);
    if (!HEAPS[type] || offset % 4 !== 0) throw abiError(`${what} field '${name}' is ${type} at offset ${offset}`);
    byName.set(name, { heap: HEAPS[type], word: offset / 4 });
  }
  for (const name of expected) if (!byName.has(name)) throw abiError(`${what} has no field '${name}'`);
  return byName;
}

/**
 * The arena writer and result reader for `module`, derived from its layout table (by default
 * module.abi()). Throws when the table and engine.js do not name the same fields and calls.
 * Returns {calls, kernels, write(call, tensors, flags, options), read(call, address)}.
 */
export function bindAbi(module, table = module.abi()) {
  const sections = fieldsByName(table.sections, SECTION_FIELDS, 'call header');
  const options = fieldsByName(table.options, Object.keys(OPTION_FIELDS), 'attend options');
  const result = fieldsByName(table.result, RESULT_FIELDS, 'result header');
  for (const name of Object.keys(table.calls))
    if (!CALLS.includes(name)) throw abiError(`call '${name}' is not one engine.js makes`);
  for (const name of CALLS)
    if (!table.calls[name] && !OPTIONAL_CALLS.includes(name)) throw abiError(`there is no call '${name}'`);
  const optionWriters = table.options.map(({ name }) => ({ ...options.get(name), value: OPTION_FIELDS[name] }));
  const field = (byName, name) => {
    const f = byName.get(name);
    if (!f) throw abiError(`no field '${name}'`);
    return f;
  };
  const [floatsAt, intsAt, bytesAt] = SECTION_FIELDS.map((name) => field(sections, name));
  const results = Object.fromEntries(RESULT_FIELDS.map((name) => [name, field(result, name)]));
  const get = (base, f) => module[f.heap][base + f.word];

  return {
    calls: table.calls,
    kernels: table.kernels,
    draws: table.draws,

    /**
     * Packs one call's checked arguments into the arena: tensors {name → {shape, data}},
     * flags {name → {shape, data: Uint8Array}} and shapes {name → integer list} by the call's
     * table order, and for attend the options' fields.
     */
    write(call, tensors, flags, o, shapes = {}) {
      const { tensors: tensorArgs, flags: flagArgs, shapes: shapeArgs = [] } = table.calls[call];
      const ints = [];
      let floatCount = 0,
        byteCount = 0;
      for (const { name } of tensorArgs) {
        const t = tensors[name];
        if (t) {
          ints.push(t.shape.length, ...t.shape);
          floatCount += t.data.length;
        } else {
          ints.push(0);
        }
      }
      for (const name of flagArgs) {
        const f = flags[name];
        if (f) {
          ints.push(f.shape.length, ...f.shape);
          byteCount += f.data.length;
        } else {
          ints.push(0);
        }
      }
      for (const name of shapeArgs) {
        const list = shapes[name];
        if (list) ints.push(list.length, ...list);
        else ints.push(0);
      }
      const base = module.prepare(floatCount, ints.length, byteCount) >>> 2;
      // Read the heap views after prepare(): growing memory replaces them.
      let floats = get(base, floatsAt) >>> 2;
      for (const { name } of tensorArgs) {
        const t = tensors[name];
        if (!t) continue;
        module.HEAPF32.set(t.data, floats);
        floats += t.data.length;
      }
      module.HEAP32.set(ints, get(base, intsAt) >>> 2);
      let bytes = get(base, bytesAt);
      for (const name of flagArgs) {
        const f = flags[name];
        if (!f) continue;
        module.HEAPU8.set(f.data, bytes);
        bytes += f.data.length;
      }
      if (o) for (const w of optionWriters) module[w.heap][base + w.word] = w.value(o, table);
    },

    /** Puts `bytes` (a Uint8Array) in the arena's bytes section, for a call that reads a file. */
    writeBytes(bytes) {
      const base = module.prepare(0, 0, bytes.length) >>> 2;
      module.HEAPU8.set(bytes, get(base, bytesAt));
    },

    /**
     * The ResultHeader at `address`: throws the core's error as an AttentionError, or returns
     * {names, data (a JS-owned copy), layout, kernel, batched, scale}; layout holds per tensor
     * its index in names (the call's result names), rank and dims.
     */
    read(call, address) {
      const base = address >>> 2;
      if (get(base, results.failed) !== 0) throw coreError(module);
      const data = get(base, results.data) >>> 2,
        layout = get(base, results.layout) >>> 2;
      return {
        names: table.calls[call].results,
        data: module.HEAPF32.slice(data, data + get(base, results.dataLength)),
        layout: module.HEAP32.slice(layout, layout + get(base, results.layoutLength)),
        kernel: table.kernels[get(base, results.kernel)],
        batched: get(base, results.batched) !== 0,
        scale: get(base, results.scale),
      };
    },
  };
}

// A call's tensors as own enumerable properties {shape, data}: views into the one
// Float32Array read() copied out. get() lives on the prototype, so a result costs no
// defineProperty; #names are the tensors this kind of result can hold.
class Result {
  #names;

  constructor(raw, dropBatch) {
    const { names, layout, data } = raw;
    this.#names = names;
    let at = 0,
      offset = 0;
    while (at < layout.length) {
      const name = names[layout[at]];
      const rank = layout[at + 1];
      at += 2;
      const shape = [];
      let count = 1;
      for (let d = 0; d < rank; d++) {
        const dim = layout[at + d];
        count *= dim;
        if (d > 0 || !dropBatch(name)) shape.push(dim);
      }
      at += rank;
      this[name] = { shape, data: data.subarray(offset, offset + count) };
      offset += count;
    }
  }

  /** A tensor as nested arrays; throws AttentionError for a name this result does not hold. */
  get(name) {
    const t = this.#names.includes(name) && Object.prototype.hasOwnProperty.call(this, name) ? this[name] : undefined;
    if (!t) {
      const held = this.#names.filter((n) => Object.prototype.hasOwnProperty.call(this, n));
      throw new AttentionError(`get: unknown tensor '${name}'; available: ${held.join(', ')}`, 'get');
    }
    return toNested(t);
  }
}

class Trace extends Result {
  constructor(raw, ms) {
    super(raw, () => !raw.batched);
    this.kernel = raw.kernel;
    this.scale = raw.scale;
    this.batched = raw.batched;
    this.ms = ms;
  }
}

class Averaging extends Result {
  constructor(raw) {
    super(raw, (name) => !raw.batched && (name === 'loop' || name === 'matmul' || name === 'softmax'));
    this.batched = raw.batched;
  }
}

/**
 * One tensor result as {shape, data} and get() for nested arrays: engine.project's y, a model's
 * logits (dropBatch: a single sequence's, without the batch dimension).
 */
class Projection {
  constructor(raw, name = 'y', dropBatch = false) {
    const t = new Result(raw, () => dropBatch)[name];
    this.shape = t.shape;
    this.data = t.data;
  }

  /** The tensor as nested arrays. */
  get() {
    return toNested(this);
  }
}

/** engine.pca's answer: mean (D), components (2, D), projected (N, 2), explained (2). */
class Pca extends Result {
  constructor(raw) {
    super(raw, () => false);
  }
}

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

const finite = (value, name) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new AttentionError(`${name}: expected a finite number, got ${describe(value)}`, name);
  }
  return value;
};
const count = (value, name) => {
  if (!Number.isInteger(value) || value < 0 || value > MAX_ELEMENTS) {
    throw new AttentionError(`${name}: expected an integer in [0, ${MAX_ELEMENTS}], got ${describe(value)}`, name);
  }
  return value;
};

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

  constructor(module, abi, seed) {
    const handle = module.generatorCreate(seed);
    if (handle === 0) throw new AttentionError(module.lastError(), 'seed');
    this.#handle = handle;
    this.#free = () => module.generatorDelete(handle);
    generators?.register(this, this.#free, this);
    this.#draw = (op, { input = null, shape = null, a = 0, b = 0, flag = 0 } = {}) => {
      if (!this.#handle) throw new AttentionError(`${op}: this generator was disposed`, op);
      abi.write('draw', input ? { input } : {}, Object.create(null), null, shape ? { shape } : {});
      return new Result(abi.read('draw', module.draw(this.#handle, abi.draws.indexOf(op), a, b, flag)), () => false);
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
      flag: Number(bias),
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

// createModel and loadModel where there are none: the element's small engine, or its bundle,
// which leaves web/engine/model.js out (scripts/build-dist.mjs).
const noModels = (what) => () => {
  throw new AttentionError(
    `${what}: this build of the engine has no models (the embeddable element's small engine); load the whole engine`,
    what,
  );
};
const withoutModels = {
  createModel: noModels('createModel'),
  loadModel: noModels('loadModel'),
  openModel: async (...args) => noModels('openModel')(...args),
  nextToken: noModels('nextToken'),
};
// What model.js shares with this file, handed over rather than exported (not public API).
const MODEL_KIT = Object.freeze({
  AttentionError,
  MAX_ELEMENTS,
  Projection,
  Result,
  coreError,
  guarded,
  ownArguments,
  readTensor,
  shapeText,
});

function makeEngine(module, { maxThreads = 1, singleThreadReason = null } = {}) {
  const limits = Object.freeze(module.limits());
  const abi = bindAbi(module);
  const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
  // Per call: the tensor arguments with their ranks, and every option name it accepts.
  const calls = Object.fromEntries(
    CALLS.filter((name) => abi.calls[name]).map((name) => {
      const tensors = abi.calls[name].tensors.map(({ name: arg, ranks }) => ({ name: arg, ranks }));
      const options = name === 'attend' || name === 'attendBackward' ? Object.keys(OPTION_DEFAULTS) : [];
      return [name, { tensors, known: new Set([...tensors.map((t) => t.name), ...options]) }];
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
  const none = Object.create(null);

  return {
    simd: module.simd(),
    version: module.version(),
    limits,

    /** Self-attention with every intermediate; see engine.d.ts. */
    attend(args) {
      return guarded('attend', (context) => {
        const own = ownArguments(context, args, 'attend', calls.attend.known);
        const o = checkOptions(own, limits.maxHeads, abi.kernels);
        const tensors = readTensors(context, 'attend', own);
        const flagged = Object.create(null);
        for (const name of abi.calls.attend.flags) if (o[name] !== null) flagged[name] = flags(context, o[name], name);
        const start = now();
        abi.write('attend', tensors, flagged, o);
        const raw = abi.read('attend', module.attend());
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
        if (!calls.attendBackward)
          throw new AttentionError(
            "attendBackward: this build of the engine has no backward pass (the embeddable element's small engine); load the whole engine",
            'attendBackward',
          );
        const own = ownArguments(context, args, 'attendBackward', calls.attendBackward.known);
        const o = checkOptions(own, limits.maxHeads, abi.kernels);
        const tensors = readTensors(context, 'attendBackward', own);
        if (!tensors.gradOutput) {
          throw new AttentionError(
            "gradOutput: required, the gradient of the loss by the output, shaped like attend()'s output",
            'gradOutput',
          );
        }
        const flagged = Object.create(null);
        for (const name of abi.calls.attendBackward.flags)
          if (o[name] !== null) flagged[name] = flags(context, o[name], name);
        abi.write('attendBackward', tensors, flagged, o);
        return new Result(abi.read('attendBackward', module.attendBackward()), () => false);
      });
    },

    /** The plain linear layer y = x·w + b; see engine.d.ts. */
    project(args) {
      return guarded('project', (context) => {
        const own = ownArguments(context, args, 'project', calls.project.known);
        abi.write('project', readTensors(context, 'project', own), none, null);
        return new Projection(abi.read('project', module.project()));
      });
    },

    /** Seed 002's causal averaging, three ways. */
    averaging(args) {
      return guarded('averaging', (context) => {
        const own = ownArguments(context, args, 'averaging', calls.averaging.known);
        abi.write('averaging', readTensors(context, 'averaging', own), none, null);
        return new Averaging(abi.read('averaging', module.averaging()));
      });
    },

    /** What this build of the engine can do beyond attention (the element's small engine cannot). */
    features: Object.freeze({
      attendBackward: Boolean(abi.calls.attendBackward),
      pca: Boolean(abi.calls.pca),
      torchGenerator: Boolean(abi.calls.draw),
      createModel: Boolean(modelMethods && module.modelCreate),
      loadModel: Boolean(modelMethods && module.modelLoad),
      openModel: Boolean(modelMethods && module.modelOpen),
    }),

    ...(modelMethods && module.modelCreate ? modelMethods(module, abi, limits, MODEL_KIT) : withoutModels),

    /** The two principal components of points x (N, D); see engine.d.ts. */
    pca(args) {
      return guarded('pca', (context) => {
        if (!calls.pca)
          throw new AttentionError(
            "pca: this build of the engine has no PCA (the embeddable element's small engine); load the whole engine",
            'pca',
          );
        const own = ownArguments(context, args, 'pca', calls.pca.known);
        abi.write('pca', readTensors(context, 'pca', own), none, null);
        return new Pca(abi.read('pca', module.pca()));
      });
    },

    /** PyTorch's CPU generator after torch.manual_seed(seed); see engine.d.ts. */
    torchGenerator(seed = 0) {
      return guarded('seed', () => {
        if (!calls.draw)
          throw new AttentionError(
            "torchGenerator: this build of the engine has no PyTorch generator (the embeddable element's small engine); load the whole engine",
            'torchGenerator',
          );
        if (!Number.isSafeInteger(seed)) {
          throw new AttentionError(`seed: expected an integer in [−2^53, 2^53], got ${describe(seed)}`, 'seed');
        }
        return new TorchGenerator(module, abi, seed);
      });
    },

    /** Seed 003's bank example (a fresh copy each call). */
    examples() {
      return module.examples();
    },

    /** Cosine similarity of two equal-length vectors (0 when either is all zero). */
    cosine(a, b) {
      const [ta, tb] = guarded('a', (context) => [readTensor(context, a, 'a', [1]), readTensor(context, b, 'b', [1])]);
      if (ta.data.length !== tb.data.length) {
        throw new AttentionError(`b: expected length ${ta.data.length} like a, got ${tb.data.length}`, 'b');
      }
      return module.cosine(ta.data, tb.data);
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
      return maxThreads > 1 ? module.threads() : 1;
    },
    set threads(count) {
      if (!Number.isInteger(count) || count < 1 || count > maxThreads) {
        const why = maxThreads === 1 ? ` (this engine runs on one thread: ${singleThreadReason})` : '';
        throw new AttentionError(
          `threads: expected an integer in [1, ${maxThreads}]${why}, got ${describe(count)}`,
          'threads',
        );
      }
      if (maxThreads > 1 && !module.setThreads(count)) throw coreError(module);
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

// The JavaScript face of the WASM attention core: one engine instance per page (or Node
// process), arguments checked and normalised here, computation in C++ (src/core/ via
// src/bindings/). Every bad argument throws an AttentionError naming it; the engine keeps
// answering after an error. All returned arrays are copies owned by JavaScript.
//
// Shapes: B batch, T tokens, D width, H heads, hk/hv per-head widths.

/** Thrown for every bad argument; `.argument` names it. */
export class AttentionError extends Error {
  constructor(message, argument) {
    super(message);
    this.name = 'AttentionError';
    this.argument = argument;
  }
}

const TENSOR_ARGS = ['x', 'wq', 'wk', 'wv', 'bq', 'bk', 'bv', 'wqkv', 'bqkv', 'wo', 'bo'];
const TENSOR_RANKS = { x: [2, 3], wq: [2], wk: [2], wv: [2], bq: [1], bk: [1], bv: [1], wqkv: [2], bqkv: [1], wo: [2], bo: [1] };
const OPTION_DEFAULTS = {
  heads: 1, causal: false, keyPadding: null, scale: true, temperature: 1,
  dropout: 0, seed: 0, training: false, dropoutKeep: null, kernel: 'auto', materialize: true,
};
const KNOWN = new Set([...TENSOR_ARGS, ...Object.keys(OPTION_DEFAULTS)]);
const KERNELS = ['reference', 'vectorized', 'simd', 'tiled', 'auto'];
const MAX_ELEMENTS = 1 << 24;

const describe = (value) => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number') return String(value);
  return typeof value;
};
const shapeText = (shape) => `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;

/**
 * Normalises a tensor argument: nested number arrays, or {shape, data} with a typed array or
 * plain array. Returns {shape, data: Float32Array}. Throws AttentionError naming `name`.
 */
export function toTensor(value, name, ranks = [1, 2, 3, 4]) {
  reading = name;
  const expected = ranks.map((r) => `${r}-d`).join(' or ');
  let shape, data;
  if (value && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'shape' in value) {
    shape = value.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 1)) {
      throw new AttentionError(`${name}: shape must be an array of integers ≥ 1, got ${JSON.stringify(shape)}`, name);
    }
    const count = shape.reduce((a, b) => a * b, 1);
    if (count > MAX_ELEMENTS) throw new AttentionError(`${name}: shape ${shapeText(shape)} has more than ${MAX_ELEMENTS} elements`, name);
    if (!(ArrayBuffer.isView(value.data) || Array.isArray(value.data))) {
      throw new AttentionError(`${name}: data must be a Float32Array or an array of numbers, got ${describe(value.data)}`, name);
    }
    if (value.data.length !== count) {
      throw new AttentionError(`${name}: shape ${shapeText(shape)} needs ${count} values, data has ${value.data.length}`, name);
    }
    data = value.data instanceof Float32Array ? value.data.slice() : Float32Array.from(value.data, Number);
  } else if (Array.isArray(value)) {
    shape = [];
    for (let level = value; Array.isArray(level); level = level[0]) {
      if (level.length === 0) throw new AttentionError(`${name}: empty array at depth ${shape.length}; expected ${expected} numbers`, name);
      shape.push(level.length);
      if (shape.length > 4) break;
    }
    const count = shape.reduce((a, b) => a * b, 1);
    if (count > MAX_ELEMENTS) throw new AttentionError(`${name}: shape ${shapeText(shape)} has more than ${MAX_ELEMENTS} elements`, name);
    data = new Float32Array(count);
    let offset = 0;
    const index = [];  // the path to the current node, spelled out only in an error message
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
          `${name}${at()}: ragged array: expected ${shape[depth]} entries (shape ${shapeText(shape)}), got ${describe(node)}`, name);
      }
      for (let i = 0; i < node.length; i++) {
        index.push(i);
        walk(node[i], depth + 1);
        index.pop();
      }
    };
    walk(value, 0);
  } else {
    throw new AttentionError(`${name}: expected ${expected} nested arrays of numbers or {shape, data}, got ${describe(value)}`, name);
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

/** Nested arrays from {shape, data}. */
export function toNested({ shape, data }) {
  if (shape.length === 0) return data[0];
  const stride = shape.slice(1).reduce((a, b) => a * b, 1);
  const build = (offset, dims) => {
    if (dims.length === 1) return Array.from(data.subarray(offset, offset + dims[0]));
    const inner = dims.slice(1).reduce((a, b) => a * b, 1);
    return Array.from({ length: dims[0] }, (_, i) => build(offset + i * inner, dims.slice(1)));
  };
  return stride >= 0 ? build(0, shape) : [];
}

// The argument being read, for errors raised by code we do not control (a getter or Proxy
// trap that throws): see guarded().
let reading = 'attend';

/**
 * Runs fn; any error that is not already an AttentionError (a throwing getter, a revoked
 * Proxy) becomes one naming the argument being read.
 */
function guarded(what, fn) {
  reading = what;
  try {
    return fn();
  } catch (error) {
    if (error instanceof AttentionError) throw error;
    throw new AttentionError(`${reading}: could not read the argument (${error?.message ?? String(error)})`, reading);
  }
}

/**
 * A snapshot of the caller's own enumerable properties, each read once: inherited ones
 * (a polluted Object.prototype) are ignored and a getter cannot change its answer mid-call.
 */
function ownArguments(args, what, allowed) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new AttentionError(`${what}: expected an options object, got ${describe(args)}`, what);
  }
  const own = Object.create(null);
  for (const key of Object.keys(args)) {
    if (!allowed.has(key)) {
      throw new AttentionError(`${key}: unknown option; known options are ${[...allowed].join(', ')}`, key);
    }
    reading = key;
    own[key] = args[key];
  }
  return own;
}

function checkOptions(args, maxHeads) {
  const o = { ...OPTION_DEFAULTS };
  for (const key of Object.keys(args)) if (args[key] !== undefined && !TENSOR_ARGS.includes(key)) o[key] = args[key];
  if (!Number.isInteger(o.heads) || o.heads < 1 || o.heads > maxHeads) {
    throw new AttentionError(`heads: expected an integer in [1, ${maxHeads}], got ${describe(o.heads)}`, 'heads');
  }
  for (const key of ['causal', 'training', 'materialize']) {
    if (typeof o[key] !== 'boolean') throw new AttentionError(`${key}: expected true or false, got ${describe(o[key])}`, key);
  }
  if (!(typeof o.scale === 'boolean' || (typeof o.scale === 'number' && Number.isFinite(o.scale) && o.scale !== 0))) {
    throw new AttentionError(`scale: expected true (1/√head size), false (none) or a finite non-zero number, got ${describe(o.scale)}`, 'scale');
  }
  if (typeof o.temperature !== 'number' || !Number.isFinite(o.temperature) || o.temperature <= 0) {
    throw new AttentionError(`temperature: expected a finite number > 0, got ${describe(o.temperature)}`, 'temperature');
  }
  if (typeof o.dropout !== 'number' || !(o.dropout >= 0 && o.dropout < 1)) {
    throw new AttentionError(`dropout: expected p in [0, 1), got ${describe(o.dropout)}`, 'dropout');
  }
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) {
    throw new AttentionError(`seed: expected an integer ≥ 0, got ${describe(o.seed)}`, 'seed');
  }
  if (typeof o.kernel !== 'string' || !KERNELS.includes(o.kernel)) {
    throw new AttentionError(`kernel: expected one of ${KERNELS.map((k) => `'${k}'`).join(', ')}, got ${describe(o.kernel)}`, 'kernel');
  }
  return o;
}

function flags(value, name) {
  // Booleans (or 0/1) as nested arrays or a flat array → {shape, data: Uint8Array}.
  const asNumbers = (v) => (Array.isArray(v) ? v.map(asNumbers) : typeof v === 'boolean' ? Number(v) : v);
  const tensor = toTensor(Array.isArray(value) ? asNumbers(value) : value, name, [1, 2, 3, 4]);
  for (const f of tensor.data) {
    if (f !== 0 && f !== 1) throw new AttentionError(`${name}: expected booleans (true = keep), got ${f}`, name);
  }
  return { shape: tensor.shape, data: Uint8Array.from(tensor.data) };
}

// Writes attend()'s checked arguments into the WASM arena the way src/bindings/bindings.cpp
// reads them (see the comment there): floats, ints, bytes.
function writeAttendArguments(module, tensors, o) {
  const ints = [];
  let total = 0;
  for (const name of TENSOR_ARGS) {
    const t = tensors[name];
    if (t) {
      ints.push(t.shape.length, ...t.shape);
      total += t.data.length;
    } else {
      ints.push(0);
    }
  }
  const scaleMode = o.scale === true ? 0 : o.scale === false ? 1 : 2;
  ints.push(o.heads, Number(o.causal), scaleMode, Number(o.training), Number(o.materialize),
    o.seed % 2 ** 32, Math.floor(o.seed / 2 ** 32));
  const padding = o.keyPadding === null ? null : flags(o.keyPadding, 'keyPadding');
  const keep = o.dropoutKeep === null ? null : flags(o.dropoutKeep, 'dropoutKeep');
  if (padding) ints.push(padding.shape.length, ...padding.shape);
  else ints.push(0);
  ints.push(keep ? keep.data.length : 0);
  const paddingBytes = padding ? padding.data.length : 0;

  const header = module.prepare(total, ints.length, paddingBytes + (keep ? keep.data.length : 0)) >> 2;
  // Read the views after prepare(): growing memory replaces them.
  const [floats, intsAt, bytes] = [module.HEAPU32[header], module.HEAPU32[header + 1], module.HEAPU32[header + 2]];
  let offset = floats >> 2;
  for (const name of TENSOR_ARGS) {
    if (!tensors[name]) continue;
    module.HEAPF32.set(tensors[name].data, offset);
    offset += tensors[name].data.length;
  }
  module.HEAP32.set(ints, intsAt >> 2);
  if (padding) module.HEAPU8.set(padding.data, bytes);
  if (keep) module.HEAPU8.set(keep.data, bytes + paddingBytes);
}

// Reads a ResultHeader (src/bindings/bindings.cpp) at `address`: throws the core's error, or
// returns {data (a JS-owned copy), layout, kernel, batched, scale}.
function readResult(module, address) {
  const h = address >> 2;
  const i32 = module.HEAP32;
  if (i32[h] !== 0) {
    const message = module.lastError();
    const argument = /^([A-Za-z_][\w-]*)\s*:/.exec(message)?.[1];
    throw new AttentionError(message, argument);
  }
  const data = module.HEAPF32.slice(i32[h + 1] >> 2, (i32[h + 1] >> 2) + i32[h + 2]);
  const layout = i32.slice(i32[h + 3] >> 2, (i32[h + 3] >> 2) + i32[h + 4]);
  return { data, layout, kernel: KERNELS[i32[h + 5]], batched: i32[h + 6] !== 0, scale: module.HEAPF32[h + 7] };
}

// The tensors a result may hold, in the order src/bindings/bindings.cpp (kResultNames) numbers them.
const RESULT_NAMES = ['q', 'k', 'v', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'headOutputs', 'merged',
  'output', 'loop', 'trilWeights', 'matmul', 'maskedZeros', 'softmaxWeights', 'softmax'];

// A call's tensors as own enumerable properties {shape, data}: views into the one
// Float32Array the binding returns (a JS-owned copy). layout: per tensor its RESULT_NAMES
// index, rank, dims. get() lives on the prototype, so a result costs no defineProperty.
class Result {
  constructor(raw, dropBatch) {
    const { layout, data } = raw;
    let at = 0, offset = 0;
    while (at < layout.length) {
      const name = RESULT_NAMES[layout[at]];
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
    const t = RESULT_NAMES.includes(name) && Object.prototype.hasOwnProperty.call(this, name) ? this[name] : undefined;
    if (!t) {
      const held = RESULT_NAMES.filter((n) => Object.prototype.hasOwnProperty.call(this, n));
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

function makeEngine(module) {
  const limits = Object.freeze(module.limits());
  const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
  return {
    simd: module.simd(),
    version: module.version(),
    limits,

    /** Self-attention with every intermediate; see engine.d.ts. */
    attend(args) {
      return guarded('attend', () => {
        const own = ownArguments(args, 'attend', KNOWN);
        const o = checkOptions(own, limits.maxHeads);
        const tensors = Object.create(null);  // no inherited entries, even from a polluted prototype
        for (const name of TENSOR_ARGS) {
          if (own[name] !== undefined && own[name] !== null) tensors[name] = toTensor(own[name], name, TENSOR_RANKS[name]);
        }
        if (!tensors.x) throw new AttentionError('x: required, expected (T, D) or (B, T, D) numbers', 'x');
        const start = now();
        writeAttendArguments(module, tensors, o);
        const raw = readResult(module, module.attend(KERNELS.indexOf(o.kernel),
          typeof o.scale === 'number' ? o.scale : 1, o.temperature, o.dropout));
        return new Trace(raw, now() - start);
      });
    },

    /** Seed 002's causal averaging, three ways. */
    averaging(args) {
      return guarded('averaging', () => {
        const own = ownArguments(args, 'averaging', new Set(['x']));
        if (own.x === undefined) throw new AttentionError('x: required, expected (T, D) or (B, T, D) numbers', 'x');
        const x = toTensor(own.x, 'x', [2, 3]);
        const header = module.prepare(x.data.length, x.shape.length, 0) >> 2;
        module.HEAPF32.set(x.data, module.HEAPU32[header] >> 2);
        module.HEAP32.set(x.shape, module.HEAPU32[header + 1] >> 2);
        const raw = readResult(module, module.averaging());
        return new Averaging(raw);
      });
    },

    /** Seed 003's bank example (a fresh copy each call). */
    examples() {
      return module.examples();
    },

    /** Cosine similarity of two equal-length vectors (0 when either is all zero). */
    cosine(a, b) {
      const [ta, tb] = guarded('a', () => [toTensor(a, 'a', [1]), toTensor(b, 'b', [1])]);
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
  };
}

let enginePromise = null;

// The compiled core: attention_engine.wasm beside this file, fetched in browsers and read from
// disk in Node (Emscripten 3.1.6's own loader cannot do both from one ES module).
async function wasmBytes() {
  const url = new URL('./attention_engine.wasm', import.meta.url);
  if (url.protocol === 'file:' && typeof process === 'object' && process.versions?.node) {
    const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`loadEngine: could not load ${url} (HTTP ${response.status})`);
  return response.arrayBuffer();
}

/**
 * Loads the WASM module once and returns the shared engine. Same call in browsers and Node.
 * `options.wasmBinary` (bytes of attention_engine.wasm) skips the fetch, e.g. in a bundle.
 */
export function loadEngine(options = {}) {
  if (!enginePromise) {
    enginePromise = Promise.all([import('./attention_engine.mjs'), options.wasmBinary ?? wasmBytes()])
      .then(([{ default: createAttentionModule }, wasmBinary]) => createAttentionModule({ wasmBinary }))
      .then(makeEngine)
      .catch((error) => {
        enginePromise = null;
        throw error;
      });
  }
  return enginePromise;
}

// What web/engine/ reads a caller's arguments with (engine.js, model.js, abi.js): the error every
// bad argument throws, the words its message uses, and the checks of tensors, numbers and
// options every method shares. The engine is the bottom of the web side (docs/architecture.md):
// it imports nothing from web/lib/, which imports clip and describe from here.

// User-perceived characters where the runtime can tell them (Intl.Segmenter), else code points:
// either way a cut never splits a surrogate pair, and with the segmenter not an emoji sequence.
const graphemes =
  typeof Intl !== 'undefined' && typeof Intl.Segmenter === 'function'
    ? (
        (segmenter) => (s) =>
          Array.from(segmenter.segment(s), (g) => g.segment)
      )(new Intl.Segmenter(undefined, { granularity: 'grapheme' }))
    : (s) => Array.from(s);

/** `text` cut to `n` characters (graphemes) with an ellipsis. */
export function clip(text, n = 40) {
  const s = String(text);
  if (s.length <= n) return s; // n UTF-16 units hold at most n characters
  const chars = graphemes(s);
  return chars.length > n ? `${chars.slice(0, n).join('')}…` : s;
}

/** A short description of any value for an error message: "an array of length 3", "the string "x"". */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(clip(value, 40))}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

/** Thrown for every bad argument; `.argument` names it. */
export class AttentionError extends Error {
  constructor(message, argument) {
    super(message);
    this.name = 'AttentionError';
    this.argument = argument;
  }
}

/** The most elements of one tensor argument (2^24). */
export const MAX_ELEMENTS = 1 << 24;

/** "(3, 4)", "(3,)": a shape as Python prints it. */
export const shapeText = (shape) => `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;

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
export function guarded(what, fn) {
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
export function readTensor(context, value, name, ranks) {
  context.reading = name;
  return toTensor(value, name, ranks);
}

/**
 * A snapshot of the caller's own enumerable properties, each read once: inherited ones
 * (a polluted Object.prototype) are ignored and a getter cannot change its answer mid-call.
 */
export function ownArguments(context, args, what, allowed) {
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

/** Booleans (or 0/1) as nested arrays or a flat array → {shape, data: Uint8Array}. */
export function flagsOf(context, value, name) {
  context.reading = name;
  const asNumbers = (v) => (Array.isArray(v) ? v.map(asNumbers) : typeof v === 'boolean' ? Number(v) : v);
  const tensor = toTensor(Array.isArray(value) ? asNumbers(value) : value, name, [1, 2, 3, 4]);
  for (const f of tensor.data) {
    if (f !== 0 && f !== 1) throw new AttentionError(`${name}: expected booleans (true = keep), got ${f}`, name);
  }
  return { shape: tensor.shape, data: Uint8Array.from(tensor.data) };
}

// The checks of one number; each returns it, or throws an AttentionError naming `name`.
/** An integer in [lo, hi]. */
export const integerIn = (value, name, lo, hi) => {
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new AttentionError(`${name}: expected an integer in [${lo}, ${hi}], got ${describe(value)}`, name);
  }
  return value;
};
/** true or false. */
export const booleanOf = (value, name) => {
  if (typeof value !== 'boolean')
    throw new AttentionError(`${name}: expected true or false, got ${describe(value)}`, name);
  return value;
};
/** A finite number ≥ lo and < hi (≤ hi when closed). */
export const numberIn = (value, name, lo, hi = Infinity, closed = true) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < lo || (closed ? value > hi : value >= hi)) {
    const range = hi === Infinity ? `≥ ${lo}` : `in [${lo}, ${hi}${closed ? ']' : ')'}`;
    throw new AttentionError(`${name}: expected a finite number ${range}, got ${describe(value)}`, name);
  }
  return value;
};
/** A seed for torch.manual_seed: an integer in [−2^53, 2^53]. */
export const seedOf = (value, name = 'seed') => {
  if (!Number.isSafeInteger(value)) {
    throw new AttentionError(`${name}: expected an integer in [−2^53, 2^53], got ${describe(value)}`, name);
  }
  return value;
};

// Any error as an AttentionError: ours as they are, others (a throwing getter, a failed fetch)
// naming the argument being read.
export const asAttentionError = (error, argument) =>
  error instanceof AttentionError
    ? error
    : new AttentionError(`${argument}: ${error?.message ?? String(error)}`, argument);

/** Any finite number. */
export const finite = (value, name) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new AttentionError(`${name}: expected a finite number, got ${describe(value)}`, name);
  }
  return value;
};
/** A count of elements: an integer in [0, 2^24]. */
export const count = (value, name) => {
  if (!Number.isInteger(value) || value < 0 || value > MAX_ELEMENTS) {
    throw new AttentionError(`${name}: expected an integer in [0, ${MAX_ELEMENTS}], got ${describe(value)}`, name);
  }
  return value;
};

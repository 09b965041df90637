// The one binary interface with the core (src/bindings/abi.h). The module describes every call
// (module.abi()): the two headers' fields with their offsets and types, and per call its
// arguments, results and report fields in order, with every enum's names. bindAbi() derives the
// arena writer and the result reader from that description, so this file keeps no offset, order,
// enum value or argument list of its own: a call is made by name with its arguments by name,
//   abi.call('modelStep', { model, tokens, targets, batch, context, optimizer: 'adamw', lr })
// and answers {report, tensors}. The only names here are those of the header fields and the
// calls engine.js and model.js make, which bindAbi() checks against the description at load.

import { AttentionError, describe } from './args.js';

const HEAPS = { i32: 'HEAP32', u32: 'HEAPU32', f32: 'HEAPF32' };
const SECTION_FIELDS = ['floats', 'ints', 'bytes', 'numbers'];
const RESULT_FIELDS = ['failed', 'report', 'layout', 'layoutLength'];
// The calls engine.js and model.js make: the element's small engine has the first ones only.
const ATTENTION_CALLS = ['attend', 'averaging', 'cosine', 'limits', 'project'];
const OTHER_CALLS = [
  'attendBackward',
  'pca',
  'draw',
  'generatorCreate',
  'generatorDelete',
  'setThreads',
  'threads',
  'modelCreate',
  'modelLoad',
  'modelHeaderLength',
  'modelOpen',
  'modelOpenWrite',
  'modelOpenFinish',
  'modelOpenCancel',
  'modelWeights',
  'modelDelete',
  'modelConfig',
  'modelSteps',
  'modelKernel',
  'modelSetKernel',
  'modelLimits',
  'modelStep',
  'modelEvaluate',
  'modelLogits',
  'modelParams',
  'modelParamTable',
  'modelSetParams',
  'modelExport',
  'modelTrace',
  'modelTraceLayer',
  'modelGenerate',
  'sessionCreate',
  'sessionStep',
  'sessionTokens',
  'sessionDelete',
  'nextToken',
  'modelAblate',
  'modelAblationSweep',
  'modelAttribute',
  'modelLogitLens',
];
// Result tensors by element type: the heap they are read from and its element size.
const ELEMENTS = {
  f32: ['HEAPF32', 4],
  f64: ['HEAPF64', 8],
  i32: ['HEAP32', 4],
  u8: ['HEAPU8', 1],
  utf8: ['HEAPU8', 1],
};

function abiError(message) {
  return new Error(`engine ABI: ${message} (src/bindings/ and web/engine/abi.js disagree)`);
}

/** The core's last error (module.lastError()) as an AttentionError naming the argument it starts with. */
export function coreError(module) {
  const message = module.lastError();
  const argument = /^([A-Za-z_][\w.-]*)(?:\[\d+\])*\s*:/.exec(message)?.[1];
  return new AttentionError(message, argument);
}

// The description's fields {name, offset, type} as {name → {heap, word}}; every name in
// `expected` must be there, and nothing else.
function fieldsByName(fields, expected, what) {
  const byName = new Map();
  for (const { name, offset, type } of fields) {
    if (!expected.includes(name)) throw abiError(`${what} field '${name}' is not one abi.js knows`);
    if (!HEAPS[type] || offset % 4 !== 0) throw abiError(`${what} field '${name}' is ${type} at offset ${offset}`);
    byName.set(name, { heap: HEAPS[type], word: offset / 4 });
  }
  for (const name of expected) if (!byName.has(name)) throw abiError(`${what} has no field '${name}'`);
  return byName;
}

// A scalar argument's value as the double the core reads; undefined: not given (NaN).
function scalarValue(scalar, value, enums) {
  if (value === undefined) return NaN;
  const { name, kind } = scalar;
  if (kind === 'enum') {
    const values = enums[scalar.enum];
    const at = typeof value === 'string' ? values.indexOf(value) : -1;
    if (at < 0) {
      const list = values.map((v) => `'${v}'`);
      throw new AttentionError(
        `${name}: expected ${list.slice(0, -1).join(', ')} or ${list.at(-1)}, got ${describe(value)}`,
        name,
      );
    }
    return at;
  }
  if (kind === 'boolean') {
    if (typeof value !== 'boolean')
      throw new AttentionError(`${name}: expected true or false, got ${describe(value)}`, name);
    return Number(value);
  }
  if (typeof value !== 'number' || (kind === 'integer' && !Number.isInteger(value))) {
    throw new AttentionError(
      `${name}: expected ${kind === 'integer' ? 'an integer' : 'a number'}, got ${describe(value)}`,
      name,
    );
  }
  return value;
}

// A call's description with every argument name and its kind, for a caller's arguments by name.
function planOf(name, call) {
  const kinds = new Map();
  for (const t of call.tensors) kinds.set(t.name, 'tensor');
  for (const kind of ['flags', 'shapes', 'lists', 'blobs']) for (const n of call[kind]) kinds.set(n, kind);
  for (const s of call.scalars) kinds.set(s.name, 'scalar');
  return { ...call, name, kinds, resultNames: call.results.map((r) => r.name) };
}

// Packs a call's arguments into the arena, in the order of its description (abi.h): `at` reads
// the call header's fields.
function writeArguments(module, at, p, args, enums) {
  for (const key of Object.keys(args)) {
    if (!p.kinds.has(key) && args[key] !== undefined) throw abiError(`call '${p.name}' has no argument '${key}'`);
  }
  // Own properties only: a polluted Object.prototype adds no argument.
  const own = (name) => (Object.prototype.hasOwnProperty.call(args, name) ? args[name] : undefined);
  const given = (name) => own(name) ?? null;
  const parts = (t) => t.chunks ?? [t.data]; // a tensor's data, or its chunks back to back
  // 1. the sections' sizes
  let floatCount = 0,
    intCount = 0,
    byteCount = 0;
  for (const { name } of p.tensors) {
    const t = given(name);
    intCount += 1 + (t ? t.shape.length : 0);
    if (t) for (const part of parts(t)) floatCount += part.length;
  }
  for (const name of p.flags) {
    const f = given(name);
    intCount += 1 + (f ? f.shape.length : 0);
    if (f) byteCount += f.data.length;
  }
  for (const name of [...p.shapes, ...p.lists]) intCount += 1 + (given(name)?.length ?? 0);
  for (const name of p.blobs) {
    intCount += 1;
    byteCount += given(name)?.length ?? 0;
  }
  const numbers = p.scalars.map((s) => scalarValue(s, own(s.name), enums));
  // 2. the arena, then the heap views (growing memory replaces them)
  const base = module.prepare(floatCount, intCount, byteCount, numbers.length) >>> 2;
  const { HEAPF32, HEAP32, HEAPU8, HEAPF64 } = module;
  let floats = at(base, 'floats') >>> 2,
    ints = at(base, 'ints') >>> 2,
    bytes = at(base, 'bytes') >>> 0;
  const list = (values) => {
    HEAP32[ints++] = values.length;
    HEAP32.set(values, ints);
    ints += values.length;
  };
  const shaped = (value) => (value ? list(value.shape) : (HEAP32[ints++] = 0));
  for (const { name } of p.tensors) {
    const t = given(name);
    shaped(t);
    if (!t) continue;
    for (const part of parts(t)) {
      HEAPF32.set(part, floats);
      floats += part.length;
    }
  }
  for (const name of p.flags) {
    const f = given(name);
    shaped(f);
    if (!f) continue;
    HEAPU8.set(f.data, bytes);
    bytes += f.data.length;
  }
  for (const name of p.shapes) shaped(given(name) && { shape: given(name) });
  for (const name of p.lists) list(given(name) ?? []);
  for (const name of p.blobs) {
    const blob = given(name) ?? new Uint8Array(0);
    HEAP32[ints++] = blob.length;
    HEAPU8.set(blob, bytes);
    bytes += blob.length;
  }
  HEAPF64.set(numbers, at(base, 'numbers') >>> 3);
}

// The ResultHeader at `address`: the core's error as an AttentionError, or {names, report,
// tensors}; `at` reads the result header's fields.
function readResult(module, at, p, address, enums) {
  const base = address >>> 2;
  if (at(base, 'failed') !== 0) throw coreError(module);
  const report = {};
  const values = module.HEAPF64.subarray(at(base, 'report') >>> 3);
  p.report.forEach((field, i) => {
    const v = values[i];
    report[field.name] = field.kind === 'boolean' ? v !== 0 : field.kind === 'enum' ? enums[field.enum][v] : v;
  });
  const layout = at(base, 'layout') >>> 2;
  const words = module.HEAPU32.subarray(layout, layout + at(base, 'layoutLength'));
  const tensors = [];
  for (let w = 0; w < words.length;) {
    const { name, type } = p.results[words[w]];
    const address = words[w + 1];
    const shape = Array.from(words.subarray(w + 3, w + 3 + words[w + 2]));
    w += 3 + shape.length;
    const count = shape.reduce((a, b) => a * b, 1);
    const [heap, size] = ELEMENTS[type];
    const copy = (from = 0, to = count) => {
      const first = address / size + from;
      const out = module[heap].slice(first, first + (to - from));
      return type === 'utf8' ? new TextDecoder().decode(out) : out;
    };
    tensors.push({ name, type, shape, count, copy });
  }
  return { names: p.resultNames, report, tensors };
}

/**
 * The writer and reader for `module`, derived from its description (by default module.abi()).
 * Throws when the description and abi.js do not name the same header fields and calls.
 * Returns {calls, enums, call(name, args)}: call packs `args` (by argument name: tensors as
 * {shape, data: Float32Array} or {shape, chunks: [Float32Array, …]} written back to back, flags
 * as {shape, data: Uint8Array}, shapes and lists as arrays of integers, blobs as Uint8Arrays,
 * scalars as numbers, booleans or enum names; null or undefined: not given), runs the call and
 * returns {names, report, tensors}: the call's result names, its report by field (booleans and
 * enum names as such) and its given result tensors [{name, type, shape, count, copy(from,
 * to)}], whose copy() gives a JS-owned copy of elements [from, to) (a string for utf8 text) until
 * the next call. A failed call throws the core's AttentionError.
 */
export function bindAbi(module, table = module.abi()) {
  const sections = fieldsByName(table.sections, SECTION_FIELDS, 'call header');
  const result = fieldsByName(table.result, RESULT_FIELDS, 'result header');
  if (table.word !== 'u32') throw abiError(`layout words are ${table.word}`);
  const known = [...ATTENTION_CALLS, ...OTHER_CALLS];
  for (const name of Object.keys(table.calls))
    if (!known.includes(name)) throw abiError(`call '${name}' is not one engine.js makes`);
  for (const name of ATTENTION_CALLS) if (!table.calls[name]) throw abiError(`there is no call '${name}'`);
  const field = (fields) => (base, name) => {
    const f = fields.get(name);
    return module[f.heap][base + f.word];
  };
  const [callField, resultField] = [field(sections), field(result)];
  const plans = new Map();
  return {
    calls: table.calls,
    enums: table.enums,
    /** Runs call `name` with `args` by name; see above. */
    call(name, args = {}) {
      let p = plans.get(name);
      if (!p) {
        if (!table.calls[name])
          throw new AttentionError(
            `${name}: this build of the engine has no ${name} call; load the whole engine`,
            name,
          );
        plans.set(name, (p = planOf(name, table.calls[name])));
      }
      writeArguments(module, callField, p, args, table.enums);
      return readResult(module, resultField, p, module.invoke(p.id), table.enums);
    },
  };
}

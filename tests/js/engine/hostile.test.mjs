// Hostile arguments at every entry of the WASM engine: engine.attend, engine.averaging and
// engine.cosine. Each row is one bad argument; each must throw an AttentionError whose message
// starts with the argument's name (and whose .argument is that name), and the very next good
// call must still return the right numbers (checked against a plain-JS attention below).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();

// ---- a good call and its answer, computed independently in float64 ----
// x (3, 4), Q = K = V = x, s = 1/√4, no mask: out = softmax(x xᵀ / 2) x.
const X = [
  [1, 0, 0.5, -1],
  [0, 2, 0, 0.25],
  [-0.5, 0.5, 1, 1],
];
function naiveAttention(x, scale) {
  return x.map((qi) => {
    const s = x.map((kj) => scale * qi.reduce((a, q, c) => a + q * kj[c], 0));
    const m = Math.max(...s);
    const e = s.map((v) => Math.exp(v - m));
    const z = e.reduce((a, b) => a + b, 0);
    return x[0].map((_, c) => e.reduce((a, w, j) => a + (w / z) * x[j][c], 0));
  });
}
const WANT = naiveAttention(X, 0.5);
function assertGoodCallStillWorks() {
  const out = engine.attend({ x: X }).get('output');
  for (let i = 0; i < WANT.length; i++)
    for (let c = 0; c < WANT[i].length; c++)
      assert.ok(
        Math.abs(out[i][c] - WANT[i][c]) < 1e-5,
        `good call: output[${i}][${c}] = ${out[i][c]}, want ${WANT[i][c]}`,
      );
  const avg = engine.averaging({ x: X }).get('loop');
  assert.ok(Math.abs(avg[2][1] - (0 + 2 + 0.5) / 3) < 1e-6, 'good averaging call');
  assert.ok(Math.abs(engine.cosine([1, 0], [1, 1]) - Math.SQRT1_2) < 1e-6, 'good cosine call'); // float32 result
}

// Checks one hostile call: AttentionError, named argument first in the message.
function expectNamed(call, argument) {
  let thrown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown !== undefined, `no error thrown (expected one naming ${argument})`);
  assert.ok(thrown instanceof AttentionError, `not an AttentionError: ${thrown?.name}: ${thrown?.message}`);
  assert.ok(thrown.message.startsWith(argument), `message does not start with '${argument}': ${thrown.message}`);
  assert.equal(thrown.argument, argument, `error.argument for: ${thrown.message}`);
  assert.ok(thrown.message.length > argument.length + 10, `message too short to help: ${thrown.message}`);
  return thrown;
}

// Hostile building blocks.
const throwingGetter = (key, base = {}) =>
  Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get() {
      throw new Error(`getter ${key} exploded`);
    },
  });
const arrayWithThrowingIndex = () => {
  const row = [1, 2];
  Object.defineProperty(row, 0, {
    get() {
      throw new Error('index getter exploded');
    },
  });
  return [row, [3, 4]];
};
const sparseRow = () => {
  const row = [1, 2, 3];
  delete row[1];
  return [row, [4, 5, 6]];
};
const sparseData = () => {
  const data = new Array(6);
  data[0] = 1;
  return { shape: [2, 3], data };
};
const revokedProxy = () => {
  const { proxy, revoke } = Proxy.revocable([[1, 2]], {});
  revoke();
  return proxy;
};
const ownKeysBomb = (base) =>
  new Proxy(base, {
    ownKeys() {
      throw new Error('ownKeys exploded');
    },
  });
const hugeShape = (shape) => ({ shape, data: new Float32Array(4) });
const x2 = [
  [1, 2],
  [3, 4],
];
const proj = (d = 2, k = 1) => ({
  wq: Array.from({ length: d }, () => Array(k).fill(0.5)),
  wk: Array.from({ length: d }, () => Array(k).fill(0.5)),
  wv: Array.from({ length: d }, () => Array(k).fill(0.5)),
});

// [what, args, argument named]
const ATTEND = [
  // the options object itself
  ['args undefined', undefined, 'attend'],
  ['args null', null, 'attend'],
  ['args a number', 42, 'attend'],
  ['args a string', 'x', 'attend'],
  ['args an array', [[1, 2]], 'attend'],
  ['args a function', () => 1, 'attend'],
  ['args with a throwing getter', throwingGetter('heads', { x: x2 }), 'heads'],
  ['args whose keys throw (Proxy)', ownKeysBomb({ x: x2 }), 'attend'],
  ['unknown option', { x: x2, mask: true }, 'mask'],
  ['unknown option (case)', { x: x2, Heads: 1 }, 'Heads'],
  ['unknown option __proto__ (JSON)', JSON.parse('{"x": [[1, 2]], "__proto__": {"heads": 2}}'), '__proto__'],
  ['unknown option constructor', { x: x2, constructor: 1 }, 'constructor'],
  ['unknown option "" ', { x: x2, '': 1 }, ''],
  // x: types
  ['x missing', {}, 'x'],
  ['x null', { x: null }, 'x'],
  ['x a string', { x: 'bank' }, 'x'],
  ['x a number', { x: 3 }, 'x'],
  ['x true', { x: true }, 'x'],
  ['x a plain object', { x: { a: 1 } }, 'x'],
  ['x a Map', { x: new Map([[0, [1]]]) }, 'x'],
  ['x a Symbol', { x: Symbol('x') }, 'x'],
  ['x a BigInt', { x: 10n }, 'x'],
  ['x a function', { x: () => [[1]] }, 'x'],
  ['x a revoked Proxy', { x: revokedProxy() }, 'x'],
  ['x getter that throws', throwingGetter('x'), 'x'],
  ['x element getter that throws', { x: arrayWithThrowingIndex() }, 'x'],
  ['x {shape} getter that throws', { x: throwingGetter('shape', { data: [1, 2] }) }, 'x'],
  // x: contents
  ['x ragged', { x: [[1, 2], [3]] }, 'x'],
  [
    'x ragged deeper',
    {
      x: [
        [[1, 2]],
        [
          [3, 4],
          [5, 6],
        ],
      ],
    },
    'x',
  ],
  ['x row is a number', { x: [[1, 2], 3] }, 'x'],
  ['x strings', { x: [['1', '2']] }, 'x'],
  ['x objects', { x: [[{}, 1]] }, 'x'],
  ['x null entry', { x: [[null, 1]] }, 'x'],
  ['x boolean entry', { x: [[true, 1]] }, 'x'],
  ['x BigInt entry', { x: [[1n, 2n]] }, 'x'],
  ['x sparse row', { x: sparseRow() }, 'x'],
  ['x sparse data', { x: sparseData() }, 'x'],
  ['x NaN', { x: [[1, NaN]] }, 'x'],
  ['x +Infinity', { x: [[1, Infinity]] }, 'x'],
  ['x -Infinity', { x: [[-Infinity, 1]] }, 'x'],
  ['x beyond float32 (1e39)', { x: [[1e39, 1]] }, 'x'],
  ['x NaN in a Float32Array', { x: { shape: [1, 2], data: new Float32Array([0, NaN]) } }, 'x'],
  ['x empty', { x: [] }, 'x'],
  ['x empty row', { x: [[]] }, 'x'],
  ['x 1-d', { x: [1, 2, 3] }, 'x'],
  ['x 4-d', { x: [[[[1]]]] }, 'x'],
  ['x 6-d', { x: [[[[[[1]]]]]] }, 'x'],
  ['x beyond |value| ≤ 1e4 (float32 overflow guard)', { x: [[1e5, 1]] }, 'x'],
  [
    'x 3e38 (finite, overflows in the scores)',
    {
      x: [
        [3e38, 3e38],
        [3e38, -3e38],
      ],
    },
    'x',
  ],
  // x: {shape, data}
  ['x shape missing data', { x: { shape: [2, 2] } }, 'x'],
  ['x data a string', { x: { shape: [2, 2], data: 'abcd' } }, 'x'],
  ['x data too short (typed)', { x: { shape: [2, 3], data: new Float32Array(5) } }, 'x'],
  ['x data too long (typed)', { x: { shape: [2, 3], data: new Float64Array(7) } }, 'x'],
  ['x data a DataView', { x: { shape: [1, 2], data: new DataView(new ArrayBuffer(8)) } }, 'x'],
  ['x shape fractional', { x: { shape: [2.5, 2], data: new Float32Array(5) } }, 'x'],
  ['x shape negative', { x: { shape: [-2, -2], data: new Float32Array(4) } }, 'x'],
  ['x shape zero', { x: { shape: [0, 4], data: new Float32Array(0) } }, 'x'],
  ['x shape NaN', { x: { shape: [NaN, 2], data: new Float32Array(2) } }, 'x'],
  ['x shape strings', { x: { shape: ['2', '2'], data: new Float32Array(4) } }, 'x'],
  ['x shape not an array', { x: { shape: '2,2', data: new Float32Array(4) } }, 'x'],
  ['x shape rank 1', { x: { shape: [4], data: new Float32Array(4) } }, 'x'],
  ['x huge shape (2^60 elements)', { x: hugeShape([2 ** 30, 2 ** 30]) }, 'x'],
  ['x huge shape (1e308)', { x: hugeShape([1e308, 1]) }, 'x'],
  ['x over the element limit (4096 × 4097)', { x: hugeShape([4096, 4097]) }, 'x'],
  ['x T over the token limit', { x: { shape: [16385, 1], data: new Float32Array(16385) } }, 'x'],
  ['x D over the width limit', { x: { shape: [1, 4097], data: new Float32Array(4097) } }, 'x'],
  ['x batch over the limit', { x: { shape: [1025, 1, 1], data: new Float32Array(1025) } }, 'x'],
  ['x B·T·T over the weights limit', { x: { shape: [8192, 1], data: new Float32Array(8192) } }, 'x'],
  [
    'x needing more intermediate values than the limit',
    {
      x: { shape: [16384, 1], data: new Float32Array(16384) },
      wq: { shape: [1, 4096], data: new Float32Array(4096) },
      wk: { shape: [1, 4096], data: new Float32Array(4096) },
      wv: { shape: [1, 4096], data: new Float32Array(4096) },
      kernel: 'tiled',
      materialize: false,
    },
    'x',
  ],
  ['x huge sparse array', { x: [new Array(2 ** 24 + 1)] }, 'x'],
  // projections
  ['wq without wk, wv', { x: x2, wq: [[1], [1]] }, 'wk'],
  ['wq rows ≠ D', { x: x2, ...proj(3) }, 'wq'],
  [
    'wk columns ≠ wq columns',
    {
      x: x2,
      ...proj(2),
      wk: [
        [1, 1],
        [1, 1],
      ],
    },
    'wk',
  ],
  ['wv a string', { x: x2, ...proj(2), wv: 'identity' }, 'wv'],
  ['wq with NaN', { x: x2, ...proj(2), wq: [[NaN], [1]] }, 'wq'],
  ['wq 3-d', { x: x2, ...proj(2), wq: [[[1]], [[1]]] }, 'wq'],
  ['bq wrong length', { x: x2, ...proj(2), bq: [1, 2] }, 'bq'],
  ['bk 2-d', { x: x2, ...proj(2), bk: [[1]] }, 'bk'],
  ['bv Infinity', { x: x2, ...proj(2), bv: [Infinity] }, 'bv'],
  ['wq beyond |value| ≤ 1e4', { x: x2, ...proj(2), wq: [[2e4], [1]] }, 'wq'],
  ['bias without projections', { x: x2, bq: [1, 2] }, 'bq'],
  [
    'wqkv rows not 3·d',
    {
      x: x2,
      wqkv: [
        [1, 2],
        [3, 4],
      ],
    },
    'wqkv',
  ],
  ['wqkv columns ≠ D', { x: x2, wqkv: [[1], [2], [3]] }, 'wqkv'],
  [
    'wqkv and wq',
    {
      x: x2,
      wqkv: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      wq: [[1], [1]],
    },
    'wqkv',
  ],
  ['bqkv without wqkv', { x: x2, bqkv: [1, 2, 3] }, 'bqkv'],
  [
    'bqkv wrong length',
    {
      x: x2,
      wqkv: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      bqkv: [1],
    },
    'bqkv',
  ],
  ['wo rows ≠ d_v', { x: x2, wo: [[1, 2, 3]] }, 'wo'],
  ['bo without wo', { x: x2, bo: [1, 2] }, 'bo'],
  ['bo wrong length', { x: x2, wo: [[1], [1]], bo: [1, 2] }, 'bo'],
  [
    'wq width over the limit',
    {
      x: [[1]],
      wq: { shape: [1, 4097], data: new Float32Array(4097) },
      wk: { shape: [1, 4097], data: new Float32Array(4097) },
      wv: [[1]],
    },
    'wq',
  ],
  // heads
  ['heads 0', { x: x2, heads: 0 }, 'heads'],
  ['heads -1', { x: x2, heads: -1 }, 'heads'],
  ['heads 1.5', { x: x2, heads: 1.5 }, 'heads'],
  ['heads NaN', { x: x2, heads: NaN }, 'heads'],
  ['heads Infinity', { x: x2, heads: Infinity }, 'heads'],
  ['heads "2"', { x: x2, heads: '2' }, 'heads'],
  ['heads null', { x: x2, heads: null }, 'heads'],
  ['heads true', { x: x2, heads: true }, 'heads'],
  ['heads not dividing D', { x: [[1, 2, 3]], heads: 2 }, 'heads'],
  ['heads 257 (over the limit)', { x: { shape: [1, 257], data: new Float32Array(257) }, heads: 257 }, 'heads'],
  ['heads 2^31', { x: x2, heads: 2 ** 31 }, 'heads'],
  ['heads 2^32 + 1', { x: x2, heads: 2 ** 32 + 1 }, 'heads'],
  ['heads 1e300', { x: x2, heads: 1e300 }, 'heads'],
  // booleans
  ['causal "yes"', { x: x2, causal: 'yes' }, 'causal'],
  ['causal 1', { x: x2, causal: 1 }, 'causal'],
  ['causal null', { x: x2, causal: null }, 'causal'],
  ['training "false"', { x: x2, training: 'false' }, 'training'],
  ['materialize 0', { x: x2, materialize: 0 }, 'materialize'],
  // scale, temperature
  ['scale 0', { x: x2, scale: 0 }, 'scale'],
  ['scale -0', { x: x2, scale: -0 }, 'scale'],
  ['scale NaN', { x: x2, scale: NaN }, 'scale'],
  ['scale Infinity', { x: x2, scale: Infinity }, 'scale'],
  ['scale "yes"', { x: x2, scale: 'yes' }, 'scale'],
  ['scale null', { x: x2, scale: null }, 'scale'],
  ['scale 1e39 (float32 overflow)', { x: x2, scale: 1e39 }, 'scale'],
  ['scale 1e-50 (float32 underflow to 0)', { x: x2, scale: 1e-50 }, 'scale'],
  ['scale 2e6 (|scale / temperature| > 1e6)', { x: x2, scale: 2e6 }, 'scale'],
  ['temperature 1e-7 (|scale / temperature| > 1e6)', { x: x2, temperature: 1e-7 }, 'temperature'],
  ['temperature 0', { x: x2, temperature: 0 }, 'temperature'],
  ['temperature -1', { x: x2, temperature: -1 }, 'temperature'],
  ['temperature NaN', { x: x2, temperature: NaN }, 'temperature'],
  ['temperature Infinity', { x: x2, temperature: Infinity }, 'temperature'],
  ['temperature "hot"', { x: x2, temperature: 'hot' }, 'temperature'],
  ['temperature 1e-300 (float32 underflow)', { x: x2, temperature: 1e-300 }, 'temperature'],
  ['temperature 1e39 (float32 overflow)', { x: x2, temperature: 1e39 }, 'temperature'],
  // dropout, seed
  ['dropout 1', { x: x2, dropout: 1 }, 'dropout'],
  ['dropout -0.1', { x: x2, dropout: -0.1 }, 'dropout'],
  ['dropout NaN', { x: x2, dropout: NaN }, 'dropout'],
  ['dropout "0.1"', { x: x2, dropout: '0.1' }, 'dropout'],
  ['dropout 0.99999999 (rounds to 1 in float32)', { x: x2, dropout: 0.99999999, training: true }, 'dropout'],
  ['seed -1', { x: x2, seed: -1 }, 'seed'],
  ['seed 1.5', { x: x2, seed: 1.5 }, 'seed'],
  ['seed 2^60', { x: x2, seed: 2 ** 60 }, 'seed'],
  ['seed "7"', { x: x2, seed: '7' }, 'seed'],
  // kernel, materialize combinations
  ['kernel unknown', { x: x2, kernel: 'cuda' }, 'kernel'],
  ['kernel empty', { x: x2, kernel: '' }, 'kernel'],
  ['kernel upper case', { x: x2, kernel: 'SIMD' }, 'kernel'],
  ['kernel a number', { x: x2, kernel: 3 }, 'kernel'],
  ['kernel an object', { x: x2, kernel: { toString: () => 'simd' } }, 'kernel'],
  ['kernel null', { x: x2, kernel: null }, 'kernel'],
  ['kernel __proto__', { x: x2, kernel: '__proto__' }, 'kernel'],
  ['tiled with materialize', { x: x2, kernel: 'tiled' }, 'kernel'],
  [
    'tiled with dropout in training',
    { x: x2, kernel: 'tiled', materialize: false, training: true, dropout: 0.5 },
    'kernel',
  ],
  // key padding and dropout keep-mask
  ['keyPadding too short', { x: x2, keyPadding: [true] }, 'keyPadding'],
  ['keyPadding too long', { x: x2, keyPadding: [true, true, true] }, 'keyPadding'],
  ['keyPadding a string', { x: x2, keyPadding: 'all' }, 'keyPadding'],
  ['keyPadding a number', { x: x2, keyPadding: 1 }, 'keyPadding'],
  ['keyPadding 2 is not a flag', { x: x2, keyPadding: [1, 2] }, 'keyPadding'],
  ['keyPadding strings', { x: x2, keyPadding: ['true', 'false'] }, 'keyPadding'],
  ['keyPadding NaN', { x: x2, keyPadding: [NaN, 1] }, 'keyPadding'],
  [
    'keyPadding ragged',
    {
      x: [
        [[1], [2]],
        [[3], [4]],
      ],
      keyPadding: [[true, true], [true]],
    },
    'keyPadding',
  ],
  [
    'keyPadding (B, T) for unbatched x',
    {
      x: x2,
      keyPadding: [
        [true, true],
        [true, true],
      ],
    },
    'keyPadding',
  ],
  ['keyPadding {shape, data} mismatch', { x: x2, keyPadding: { shape: [2], data: [1] } }, 'keyPadding'],
  ['dropoutKeep wrong size', { x: x2, training: true, dropout: 0.5, dropoutKeep: [1, 0, 1] }, 'dropoutKeep'],
  ['dropoutKeep not flags', { x: x2, training: true, dropout: 0.5, dropoutKeep: [1, 0, 1, 3] }, 'dropoutKeep'],
  ['dropoutKeep a string', { x: x2, training: true, dropout: 0.5, dropoutKeep: 'keep' }, 'dropoutKeep'],
];

for (const [what, args, argument] of ATTEND) {
  test(`attend: ${what} → AttentionError naming '${argument}'; the next good call is right`, () => {
    expectNamed(() => engine.attend(args), argument);
    assertGoodCallStillWorks();
  });
}

const AVERAGING = [
  ['args undefined', undefined, 'averaging'],
  ['args null', null, 'averaging'],
  ['args an array', [[1, 2]], 'averaging'],
  ['args a string', 'x', 'averaging'],
  ['x missing', {}, 'x'],
  ['unknown key', { x: x2, causal: true }, 'causal'],
  ['unknown key __proto__ (JSON)', JSON.parse('{"x": [[1]], "__proto__": {}}'), '__proto__'],
  ['x a string', { x: 'abc' }, 'x'],
  ['x ragged', { x: [[1, 2], [3]] }, 'x'],
  ['x 1-d', { x: [1, 2] }, 'x'],
  ['x NaN', { x: [[NaN]] }, 'x'],
  ['x -Infinity', { x: [[-Infinity]] }, 'x'],
  ['x getter that throws', throwingGetter('x'), 'x'],
  ['x element getter that throws', { x: arrayWithThrowingIndex() }, 'x'],
  ['x sparse', { x: sparseRow() }, 'x'],
  ['x data too short', { x: { shape: [2, 2], data: new Float32Array(3) } }, 'x'],
  ['x huge shape', { x: hugeShape([2 ** 40, 1]) }, 'x'],
  ['x T·T over the limit', { x: { shape: [8192, 1], data: new Float32Array(8192) } }, 'x'],
];
for (const [what, args, argument] of AVERAGING) {
  test(`averaging: ${what} → AttentionError naming '${argument}'; the next good call is right`, () => {
    expectNamed(() => engine.averaging(args), argument);
    assertGoodCallStillWorks();
  });
}

const COSINE = [
  ['a missing', [undefined, [1]], 'a'],
  ['a a string', ['abc', [1]], 'a'],
  ['a 2-d', [[[1]], [1]], 'a'],
  ['a empty', [[], []], 'a'],
  ['a NaN', [[NaN], [1]], 'a'],
  ['a object', [{ length: 1, 0: 1 }, [1]], 'a'],
  ['b missing', [[1], undefined], 'b'],
  ['b Infinity', [[1], [Infinity]], 'b'],
  ['b other length', [[1, 2], [1]], 'b'],
  ['b strings', [[1], ['1']], 'b'],
  ['a element getter that throws', [arrayWithThrowingIndex()[0], [1, 2]], 'a'],
];
for (const [what, args, argument] of COSINE) {
  test(`cosine: ${what} → AttentionError naming '${argument}'; the next good call is right`, () => {
    expectNamed(() => engine.cosine(...args), argument);
    assertGoodCallStillWorks();
  });
}

test('prototype pollution: inherited tensors and options on Object.prototype are ignored', () => {
  const clean = engine.attend({ x: X }).get('output');
  const polluted = ['wq', 'wk', 'wv', 'wo', 'heads', 'causal', 'temperature', 'keyPadding'];
  try {
    Object.prototype.wq = [[0], [0], [0], [0]];
    Object.prototype.wk = [[0], [0], [0], [0]];
    Object.prototype.wv = [[0], [0], [0], [0]];
    Object.prototype.wo = [[9, 9, 9, 9]];
    Object.prototype.heads = 2;
    Object.prototype.causal = true;
    Object.prototype.temperature = 1e-3;
    Object.prototype.keyPadding = [false, false, false];
    let got;
    try {
      got = engine.attend({ x: X }).get('output');
    } catch (error) {
      assert.fail(`a clean call failed while Object.prototype was polluted: ${error.message}`);
    }
    assert.deepEqual(got, clean, 'polluted Object.prototype changed the result');
  } finally {
    for (const key of polluted) delete Object.prototype[key];
  }
  assertGoodCallStillWorks();
});

test('a Proxy x whose traps count reads cannot make attend read out of bounds', () => {
  // Length lies after the first read: the walk must use what it measured or refuse.
  let reads = 0;
  const rows = [
    [1, 2],
    [3, 4],
  ];
  const liar = new Proxy(rows, {
    get(target, key) {
      if (key === 'length') return ++reads > 1 ? 1e6 : 2;
      return target[key];
    },
  });
  try {
    engine.attend({ x: liar });
  } catch (error) {
    assert.ok(error instanceof AttentionError && error.message.startsWith('x'), `${error.name}: ${error.message}`);
  }
  assertGoodCallStillWorks();
});

test('float32 overflow at finite inputs is refused or stays finite, never silent NaN', () => {
  // |x| ≈ 3e38 is finite in float32, but x·xᵀ overflows. The documented policy (docs/limits.md)
  // is that such inputs either throw an AttentionError naming x or give finite weights.
  const big = 3e38;
  let trace;
  try {
    trace = engine.attend({
      x: [
        [big, big],
        [big, -big],
      ],
      kernel: 'reference',
    });
  } catch (error) {
    expectNamed(() => {
      throw error;
    }, 'x');
    assertGoodCallStillWorks();
    return;
  }
  const bad = [...trace.weights.data].filter((v) => !Number.isFinite(v)).length;
  assert.equal(bad, 0, `weights has ${bad} NaN/Inf entries for finite inputs: ${[...trace.weights.data]}`);
});

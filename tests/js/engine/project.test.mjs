// engine.project({x, w, b}): the plain linear layer y = x·w + b through the WASM core — its
// values, its errors (AttentionError naming x, w or b), and a flat heap over many calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();
const bank = engine.examples();
const river = bank.contexts.river.map((word) => bank.vocabulary[word]);

// y = x·w + b in double, from nested arrays.
const linear = (x, w, b) =>
  x.map((row) => w[0].map((_, j) => row.reduce((sum, v, c) => sum + v * w[c][j], b ? b[j] : 0)));

// float32 rounding of a sum of D + 1 terms of size ≤ 2: (D + 1)·2⁻²⁴·Σ|terms| ≤ 1e-6 here.
function assertClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: rows`);
  actual.forEach((row, i) =>
    row.forEach((v, j) => {
      assert.ok(
        Math.abs(v - expected[i][j]) <= 1e-6 + 1e-6 * Math.abs(expected[i][j]),
        `${what}[${i}][${j}]: ${v} vs ${expected[i][j]}`,
      );
    }),
  );
}

test('project: the seed bank example is x·W, and both banks come out the same', () => {
  const y = engine.project({ x: river, w: bank.W });
  assert.deepEqual(y.shape, [3, 3]);
  assert.ok(y.data instanceof Float32Array);
  assertClose(y.get(), linear(river, bank.W), 'river');
  const finance = engine.project({ x: bank.contexts.finance.map((word) => bank.vocabulary[word]), w: bank.W });
  assert.deepEqual(Array.from(finance.data.subarray(3, 6)), Array.from(y.data.subarray(3, 6)), 'bank is row 1 of both');
});

test('project: a bias is added to every row, and {shape, data} and batched x work', () => {
  const b = [0.5, -1, 2];
  assertClose(engine.project({ x: river, w: bank.W, b }).get(), linear(river, bank.W, b), 'with b');
  const x = { shape: [2, 3, 4], data: Float32Array.from({ length: 24 }, (_, i) => (i % 7) / 7 - 0.5) };
  const y = engine.project({ x, w: { shape: [4, 3], data: bank.W.flat() }, b });
  assert.deepEqual(y.shape, [2, 3, 3]);
  const nested = y.get();
  for (let batch = 0; batch < 2; batch++) {
    const rows = Array.from({ length: 3 }, (_, t) =>
      Array.from(x.data.subarray((batch * 3 + t) * 4, (batch * 3 + t + 1) * 4)),
    );
    assertClose(nested[batch], linear(rows, bank.W, b), `batch ${batch}`);
  }
});

test('project equals the v that attend gives with wq = wk = wv = W (the route compute.js took)', () => {
  const y = engine.project({ x: river, w: bank.W });
  const { v } = engine.attend({ x: river, wq: bank.W, wk: bank.W, wv: bank.W });
  assert.deepEqual(v.shape, [1, 3, 3]);
  assert.deepEqual(Array.from(y.data), Array.from(v.data));
});

const throwingGetter = (key, base = {}) =>
  Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get() {
      throw new Error(`getter ${key} exploded`);
    },
  });

const bad = [
  ['x missing', { w: bank.W }, 'x', /x: required/],
  [
    'x ragged',
    {
      x: [
        [1, 2, 3, 4],
        [1, 2],
      ],
      w: bank.W,
    },
    'x',
    /ragged/,
  ],
  ['x 1-d', { x: [1, 2, 3, 4], w: bank.W }, 'x', /2-d or 3-d/],
  ['x with NaN', { x: [[1, NaN, 0, 0]], w: bank.W }, 'x', /finite/],
  ['x too large', { x: [[2e4, 0, 0, 0]], w: bank.W }, 'x', /at most 10000/],
  ['x getter that throws', throwingGetter('x', { w: bank.W }), 'x', /could not read/],
  ['w missing', { x: river }, 'w', /w: required, expected shape \(4, N\)/],
  [
    'w rows ≠ x width',
    {
      x: river,
      w: [
        [1, 2, 3],
        [4, 5, 6],
      ],
    },
    'w',
    /expected shape \(4, 3\).*got \(2, 3\)/,
  ],
  ['w 3-d', { x: river, w: [[[1]]] }, 'w', /2-d/],
  ['w with Infinity', { x: river, w: [[1], [Infinity], [0], [0]] }, 'w', /finite/],
  ['w getter that throws', throwingGetter('w', { x: river }), 'w', /could not read/],
  ['b wrong length', { x: river, w: bank.W, b: [1, 2] }, 'b', /expected shape \(3,\).*got \(2,\)/],
  ['b 2-d', { x: river, w: bank.W, b: [[1, 2, 3]] }, 'b', /1-d/],
  ['b a string', { x: river, w: bank.W, b: 'bias' }, 'b', /expected/],
  ['unknown option', { x: river, w: bank.W, bias: [1, 2, 3] }, 'bias', /unknown option; known options are x, w, b/],
  ['not an object', [river, bank.W], 'project', /expected an options object/],
];
for (const [what, args, argument, message] of bad) {
  test(`project error: ${what} → AttentionError naming ${argument}, then a good call works`, () => {
    assert.throws(
      () => engine.project(args),
      (error) => {
        assert.ok(error instanceof AttentionError, `${error.name}: ${error.message}`);
        assert.equal(error.argument, argument, error.message);
        assert.match(error.message, message);
        return true;
      },
    );
    assert.deepEqual(engine.project({ x: river, w: bank.W }).shape, [3, 3]);
  });
}

test('5,000 project calls of varying shapes (and failing ones) leave the WASM heap flat', () => {
  const shapes = [
    [1, 1, 1],
    [3, 4, 3],
    [17, 5, 9],
    [2, 7, 3, 4],
    [67, 16, 3],
  ];
  const call = (i) => {
    const s = shapes[i % shapes.length];
    const [T, D, N] = s.length === 4 ? s.slice(1) : s;
    const xShape = s.length === 4 ? [s[0], T, D] : [T, D];
    const count = xShape.reduce((a, v) => a * v, 1);
    return {
      x: { shape: xShape, data: Float32Array.from({ length: count }, (_, k) => ((k * 7 + i) % 11) / 11) },
      w: { shape: [D, N], data: Float32Array.from({ length: D * N }, (_, k) => ((k * 3) % 5) / 5) },
      b: i % 2 ? { shape: [N], data: new Float32Array(N).fill(0.25) } : undefined,
    };
  };
  for (let i = 0; i < 200; i++) engine.project(call(i));
  const bytes = engine.heapBytes(),
    used = engine.heapUsed();
  let failures = 0;
  for (let i = 0; i < 5000; i++) {
    const y = engine.project(call(i));
    assert.ok(y.data.length > 0);
    if (i % 10 === 0) {
      try {
        engine.project({ ...call(i), w: { shape: [99, 2], data: new Float32Array(198) } }); // fails in the core
      } catch (error) {
        assert.ok(error instanceof AttentionError);
        failures++;
      }
    }
  }
  engine.project(call(0));
  console.log(
    `[ measured ] project soak: heap ${bytes} → ${engine.heapBytes()} bytes, malloc'd ${used} → ${engine.heapUsed()} bytes, ${failures} failing calls`,
  );
  assert.equal(failures, 500);
  assert.equal(engine.heapBytes(), bytes);
  assert.equal(engine.heapUsed(), used);
});

// The WASM engine through its JS API: PyTorch fixtures (every intermediate), the seed's bank
// numbers, shapes, errors followed by good calls, and a flat heap over 10,000 calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures');
const engine = await loadEngine();

// Float32 through two implementations of the same sums of a few terms: 1e-5 absolute plus
// 1e-4 relative covers rounding-order differences (values are O(1)–O(10)).
const ABS = 1e-5,
  REL = 1e-4;
const decode = (v) => (v === '-inf' ? -Infinity : v);

function assertClose(actual, expected, name) {
  assert.deepEqual(actual.shape, expected.shape, `${name}: shape`);
  const want = expected.data.map(decode);
  for (let i = 0; i < want.length; i++) {
    const a = actual.data[i],
      e = want[i];
    if (e === -Infinity) {
      assert.equal(a, -Infinity, `${name}[${i}]: expected -Infinity, got ${a}`);
      continue;
    }
    assert.ok(Math.abs(a - e) <= ABS + REL * Math.abs(e), `${name}[${i}]: expected ${e}, got ${a}`);
  }
}

// Fixture options (core naming) → engine.attend options.
function attendArgs(fixture, kernel) {
  const { options: o, inputs } = fixture;
  const args = { kernel };
  for (const [name, tensor] of Object.entries(inputs)) args[name] = { shape: tensor.shape, data: tensor.data };
  if (o.heads !== undefined) args.heads = o.heads;
  if (o.causal !== undefined) args.causal = o.causal;
  if (o.scale !== undefined) args.scale = o.scale === 'default' ? true : o.scale === 'none' ? false : o.scale;
  if (o.temperature !== undefined) args.temperature = o.temperature;
  if (o.dropout !== undefined) args.dropout = o.dropout;
  if (o.training !== undefined) args.training = o.training;
  if (o.dropout_keep) args.dropoutKeep = o.dropout_keep;
  if (o.key_padding) args.keyPadding = { shape: o.key_padding.shape, data: o.key_padding.data };
  return args;
}

const TRACE_NAMES = {
  q: 'q',
  k: 'k',
  v: 'v',
  scores: 'scores',
  scaled: 'scaled',
  masked: 'masked',
  weights: 'weights',
  dropped: 'dropped',
  head_outputs: 'headOutputs',
  merged: 'merged',
  output: 'output',
};

const fixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('.json') && f !== 'causal_average.json');
for (const file of fixtures) {
  const fixture = JSON.parse(readFileSync(join(fixturesDir, file), 'utf8'));
  for (const kernel of ['reference', 'vectorized', 'simd']) {
    test(`fixture ${fixture.name} matches PyTorch on every intermediate (${kernel})`, () => {
      const trace = engine.attend(attendArgs(fixture, kernel));
      assert.equal(trace.kernel, kernel);
      for (const [fixtureName, traceName] of Object.entries(TRACE_NAMES)) {
        const expected = fixture.expected[fixtureName];
        if (!expected) continue;
        // The fixture layout always carries B; an unbatched trace drops it.
        const shape = fixture.expected.batched ? expected.shape : expected.shape.slice(1);
        assertClose(trace[traceName], { shape, data: expected.data }, `${file}:${traceName}`);
      }
    });
  }
}

test('causal averaging: the three forms equal PyTorch (seed 002)', () => {
  const fixture = JSON.parse(readFileSync(join(fixturesDir, 'causal_average.json'), 'utf8'));
  const result = engine.averaging({ x: fixture.inputs.x });
  const names = {
    loop: 'loop',
    tril_weights: 'trilWeights',
    matmul: 'matmul',
    masked_zeros: 'maskedZeros',
    softmax_weights: 'softmaxWeights',
    softmax: 'softmax',
  };
  for (const [fixtureName, name] of Object.entries(names))
    assertClose(result[name], fixture.expected[fixtureName], name);
});

const bank = engine.examples();
const embed = (tokens) => tokens.map((t) => bank.vocabulary[t]);
const round3 = (rows) => rows.map((r) => r.map((v) => Math.round(v * 1000) / 1000));

test('seed 003: raw attention reproduces the printed numbers', () => {
  const river = engine.attend({ x: embed(bank.contexts.river), scale: false });
  const finance = engine.attend({ x: embed(bank.contexts.finance), scale: false });
  assert.deepEqual(round3(river.get('output')), [
    [1.001, 0.188, 0.047, 0.438],
    [0.949, 0.356, 0.089, 0.313],
    [0.987, 0.15, 0.037, 0.52],
  ]);
  assert.deepEqual(round3(finance.get('output')), [
    [0.161, 1.181, 0.04, 0.243],
    [0.325, 1.078, 0.081, 0.19],
    [0.158, 1.163, 0.04, 0.278],
  ]);
});

test('seed 003: projected attention scaled by 1/√2 reproduces the printed numbers', () => {
  const args = { wq: bank.W_query, wk: bank.W_key, wv: bank.W_value };
  const river = engine.attend({ x: embed(bank.contexts.river), ...args });
  const finance = engine.attend({ x: embed(bank.contexts.finance), ...args });
  assert.ok(Math.abs(river.scale - Math.SQRT1_2) < 1e-7);
  assert.deepEqual(round3(river.get('output')), [
    [0.992, 0.221, 0.261],
    [0.957, 0.314, 0.256],
    [0.986, 0.232, 0.263],
  ]);
  assert.deepEqual(round3(finance.get('output')), [
    [0.188, 1.158, 0.169],
    [0.297, 1.089, 0.18],
    [0.204, 1.146, 0.172],
  ]);
  // "bank" starts identical and ends different.
  assert.equal(engine.cosine(bank.vocabulary.bank, bank.vocabulary.bank), 1);
  assert.ok(engine.cosine(river.get('output')[1], finance.get('output')[1]) < 0.9);
});

test('shapes: unbatched multi-head is [H, T, …], batched is [B, H, T, …]', () => {
  const x = Array.from({ length: 5 }, (_, t) => Array.from({ length: 8 }, (_, c) => Math.sin(t * 8 + c)));
  const single = engine.attend({ x, heads: 2 });
  assert.deepEqual(single.q.shape, [2, 5, 4]);
  assert.deepEqual(single.weights.shape, [2, 5, 5]);
  assert.deepEqual(single.headOutputs.shape, [2, 5, 4]);
  assert.deepEqual(single.output.shape, [5, 8]);
  const batched = engine.attend({ x: [x, x, x], heads: 4, causal: true });
  assert.deepEqual(batched.scores.shape, [3, 4, 5, 5]);
  assert.deepEqual(batched.merged.shape, [3, 5, 8]);
  assert.equal(batched.batched, true);
  const lean = engine.attend({ x, heads: 2, materialize: false });
  assert.equal(lean.kernel, 'tiled');
  assert.equal(lean.weights, undefined);
  for (let i = 0; i < single.output.data.length; i++)
    assert.ok(Math.abs(lean.output.data[i] - single.output.data[i]) < 1e-5);
  assert.deepEqual(single.get('weights').length, 2);
  assert.throws(() => single.get('nope'), AttentionError);
});

test('values are copies: a later call does not change an earlier trace', () => {
  const first = engine.attend({
    x: [
      [1, 2],
      [3, 4],
    ],
  });
  const before = Array.from(first.output.data);
  engine.attend({
    x: [
      [9, 9],
      [9, 9],
      [9, 9],
    ],
  });
  assert.deepEqual(Array.from(first.output.data), before);
});

const good = () => engine.attend({ x: embed(bank.contexts.river), wq: bank.W_query, wk: bank.W_key, wv: bank.W_value });
const goodOutput = round3(good().get('output'));
const ERRORS = [
  ['x missing', {}, 'x'],
  ['x not an array', { x: 'bank' }, 'x'],
  ['x ragged', { x: [[1, 2], [3]] }, 'x'],
  ['x with NaN', { x: [[1, NaN]] }, 'x'],
  ['x with Infinity', { x: [[1, Infinity]] }, 'x'],
  ['x empty', { x: [] }, 'x'],
  ['x 1-d', { x: [1, 2, 3] }, 'x'],
  ['x shape/data mismatch', { x: { shape: [2, 2], data: new Float32Array(3) } }, 'x'],
  ['wq rows ≠ x width', { x: [[1, 2, 3]], wq: [[1], [1]], wk: [[1], [1]], wv: [[1], [1]] }, 'wq'],
  ['only wq', { x: [[1, 2]], wq: [[1], [1]] }, 'wk'],
  ['bias length', { x: [[1, 2]], wq: [[1], [1]], wk: [[1], [1]], wv: [[1], [1]], bq: [1, 2] }, 'bq'],
  [
    'wqkv rows not 3·d',
    {
      x: [[1, 2]],
      wqkv: [
        [1, 2],
        [3, 4],
      ],
    },
    'wqkv',
  ],
  [
    'wqkv and wq',
    {
      x: [[1, 2]],
      wqkv: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      wq: [[1], [1]],
    },
    'wqkv',
  ],
  ['heads not dividing', { x: [[1, 2, 3]], heads: 2 }, 'heads'],
  ['heads 0', { x: [[1, 2]], heads: 0 }, 'heads'],
  ['heads fractional', { x: [[1, 2]], heads: 1.5 }, 'heads'],
  ['dropout 1', { x: [[1, 2]], dropout: 1 }, 'dropout'],
  ['dropout negative', { x: [[1, 2]], dropout: -0.1 }, 'dropout'],
  ['temperature 0', { x: [[1, 2]], temperature: 0 }, 'temperature'],
  ['scale string', { x: [[1, 2]], scale: 'yes' }, 'scale'],
  ['kernel unknown', { x: [[1, 2]], kernel: 'cuda' }, 'kernel'],
  ['unknown option', { x: [[1, 2]], mask: true }, 'mask'],
  [
    'key padding wrong size',
    {
      x: [
        [1, 2],
        [3, 4],
      ],
      keyPadding: [true],
    },
    'keyPadding',
  ],
  ['tiled with materialize', { x: [[1, 2]], kernel: 'tiled' }, 'kernel'],
  ['wo rows ≠ d_v', { x: [[1, 2]], wo: [[1, 2, 3]] }, 'wo'],
  ['T beyond the limit', { x: { shape: [20000, 1], data: new Float32Array(20000) } }, 'x'],
];
for (const [what, args, argument] of ERRORS) {
  test(`error: ${what} → AttentionError naming ${argument}, then a good call still works`, () => {
    assert.throws(
      () => engine.attend(args),
      (error) => {
        assert.ok(error instanceof AttentionError, `not an AttentionError: ${error}`);
        assert.ok(error.message.startsWith(argument) || error.message.includes(argument), error.message);
        return true;
      },
    );
    assert.deepEqual(round3(good().get('output')), goodOutput);
  });
}

test('10,000 calls of varying shapes leave the WASM heap size and allocated bytes unchanged', () => {
  // Warm up so the allocator has reached its working size, then measure.
  const shapes = [
    [3, 4, 1],
    [7, 6, 2],
    [16, 8, 4],
    [33, 12, 3],
    [5, 10, 5],
  ];
  const call = (i) => {
    const [T, D, H] = shapes[i % shapes.length];
    const data = new Float32Array(T * D).map((_, j) => Math.sin(i + j));
    return engine.attend({ x: { shape: [T, D], data }, heads: H, causal: i % 2 === 0 });
  };
  for (let i = 0; i < 200; i++) call(i);
  const before = engine.heapBytes();
  const usedBefore = engine.heapUsed();
  for (let i = 0; i < 10000; i++) call(i);
  assert.equal(engine.heapBytes(), before);
  // The arena and result buffers are reused, so allocated bytes may only vary by the largest
  // call's worth between shapes, never grow with the number of calls.
  const usedAfter = engine.heapUsed();
  assert.ok(usedAfter <= usedBefore + 64 * 1024, `malloc'd bytes grew from ${usedBefore} to ${usedAfter}`);
});

test('engine.simd is true for the SIMD build; version and limits are reported', () => {
  assert.equal(engine.simd, true);
  assert.match(engine.version, /^\d+\.\d+\.\d+$/);
  assert.equal(engine.limits.maxTokens, 16384);
});

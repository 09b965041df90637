// engine.attendBackward: attention's backward pass through the WASM core against PyTorch's
// autograd (tests/fixtures/backward/, make_backward_fixtures.py), its errors (AttentionError
// naming the argument), and a flat heap over many calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();
const FIXTURES = new URL('../../fixtures/backward/', import.meta.url);
const tensorOf = ({ shape, data }) => ({ shape, data: Float32Array.from(data) });

// The fixture's options as attend()'s arguments.
function argsOf(fixture) {
  const args = Object.fromEntries(Object.entries(fixture.inputs).map(([name, t]) => [name, tensorOf(t)]));
  const o = fixture.options;
  args.heads = o.heads;
  args.causal = o.causal;
  args.scale = o.scale === 'default' ? true : o.scale === 'none' ? false : o.scale;
  args.temperature = o.temperature;
  args.dropout = o.dropout;
  args.training = o.training;
  if (o.dropout_keep) args.dropoutKeep = { shape: o.dropout_keep.shape, data: o.dropout_keep.data };
  if (o.key_padding) args.keyPadding = { shape: o.key_padding.shape, data: o.key_padding.data };
  args.gradOutput = tensorOf(fixture.grad_output);
  return args;
}

for (const file of readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const fixture = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));
  for (const kernel of ['reference', 'vectorized', 'simd', 'tiled']) {
    if (kernel === 'tiled' && fixture.options.dropout_keep) continue; // the tiled kernel has no dropout
    test(`attendBackward matches PyTorch autograd: ${fixture.name} (${kernel})`, () => {
      const args = { ...argsOf(fixture), kernel, materialize: kernel !== 'tiled' };
      const grads = engine.attendBackward(args);
      // Both float32 results lie within the fixture's tolerance of float64 (the generator checks
      // PyTorch's), so they lie within twice it of each other.
      const abs = 2 * fixture.tolerance.abs,
        rel = 2 * fixture.tolerance.rel;
      for (const [name, want] of Object.entries(fixture.expected)) {
        const got = grads[name];
        assert.ok(got, `gradient of ${name}`);
        assert.deepEqual(got.shape, want.shape, `${name} shape`);
        want.data.forEach((w, i) => {
          assert.ok(Math.abs(got.data[i] - w) <= abs + rel * Math.abs(w), `d${name}[${i}]: ${got.data[i]} vs ${w}`);
        });
      }
      assert.deepEqual(Object.keys(grads).sort(), Object.keys(fixture.inputs).sort(), 'one gradient per given input');
    });
  }
}

test('attendBackward: get() gives nested arrays shaped like the input', () => {
  const bank = engine.examples();
  const x = bank.contexts.river.map((word) => bank.vocabulary[word]);
  const grads = engine.attendBackward({
    x,
    wq: bank.W_query,
    wk: bank.W_key,
    wv: bank.W_value,
    gradOutput: [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ],
  });
  assert.equal(grads.get('x').length, 3);
  assert.equal(grads.get('x')[0].length, 4);
  assert.equal(grads.get('wv').length, 4);
  assert.equal(grads.get('wv')[0].length, 3);
  // Σ output ⊙ I only reads the diagonal of the output, and v = x·W_V: dW_V = xᵀ·(weightsᵀ·I).
  const trace = engine.attend({ x, wq: bank.W_query, wk: bank.W_key, wv: bank.W_value });
  const w = trace.get('weights')[0];
  const want = x[0].map((_, r) =>
    [0, 1, 2].map((c) =>
      w.reduce((sum, row, i) => sum + row.reduce((s, wij, j) => s + wij * (i === c ? x[j][r] : 0), 0), 0),
    ),
  );
  grads
    .get('wv')
    .forEach((row, r) =>
      row.forEach((v, c) => assert.ok(Math.abs(v - want[r][c]) < 1e-5, `dW_V[${r}][${c}] ${v} vs ${want[r][c]}`)),
    );
  assert.throws(
    () => grads.get('wqkv'),
    (e) => e instanceof AttentionError && /available: x, wq, wk, wv/.test(e.message),
  );
});

test('attendBackward: bad arguments throw AttentionError naming them', () => {
  const x = [
    [1, 2],
    [3, 4],
    [5, 6],
  ];
  const cases = [
    [{ x }, 'gradOutput', /required/],
    [
      {
        x,
        gradOutput: [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9],
        ],
      },
      'gradOutput',
      /expected shape \(3, 2\)/,
    ],
    [
      {
        x,
        gradOutput: [
          [1, 2],
          [3, NaN],
          [5, 6],
        ],
      },
      'gradOutput',
      /finite/,
    ],
    [
      {
        x,
        gradOutput: [
          [1, 2],
          [3, 4],
          [5, 1e5],
        ],
      },
      'gradOutput',
      /1e4/,
    ],
    [{ x, gradOutput: [1, 2] }, 'gradOutput', /./],
    [
      {
        x,
        gradOutput: [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        heads: 0,
      },
      'heads',
      /integer/,
    ],
    [
      {
        x,
        gradOutput: [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        wq: [[1]],
      },
      'wk',
      /./,
    ],
    [
      {
        x,
        gradOutput: [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        grad: 1,
      },
      'grad',
      /unknown option/,
    ],
    [
      {
        x,
        gradOutput: [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        kernel: 'tiled',
        materialize: false,
        training: true,
        dropout: 0.5,
      },
      'kernel',
      /dropout/,
    ],
  ];
  for (const [args, argument, message] of cases) {
    assert.throws(
      () => engine.attendBackward(args),
      (e) => {
        assert.ok(e instanceof AttentionError, `${argument}: ${e}`);
        assert.equal(e.argument, argument, e.message);
        assert.match(e.message, message);
        return true;
      },
    );
  }
  assert.throws(
    () => engine.attendBackward(null),
    (e) => e instanceof AttentionError && e.argument === 'attendBackward',
  );
  // The engine still answers.
  assert.equal(engine.attendBackward({ x, gradOutput: x }).x.shape.length, 2);
});

test('attendBackward: the heap is flat over many calls', () => {
  const x = { shape: [2, 33, 8], data: Float32Array.from({ length: 2 * 33 * 8 }, (_, i) => Math.sin(i)) };
  const w = { shape: [8, 8], data: Float32Array.from({ length: 64 }, (_, i) => Math.cos(i) / 3) };
  const args = { x, wq: w, wk: w, wv: w, heads: 2, causal: true, gradOutput: x };
  for (let i = 0; i < 5; i++) engine.attendBackward(args);
  const used = engine.heapUsed();
  for (let i = 0; i < 200; i++) engine.attendBackward(i % 2 ? args : { ...args, kernel: 'tiled', materialize: false });
  assert.ok(engine.heapUsed() <= used + 4096, `heap used ${used} → ${engine.heapUsed()}`);
});

test("attendBackward takes attend()'s arguments as they are, with gradOutput as a second argument", () => {
  const ex = engine.examples();
  const x = ex.contexts.river.map((w) => ex.vocabulary[w]);
  const args = { x, wq: ex.W_query, wk: ex.W_key, wv: ex.W_value, causal: true };
  const gradOutput = [
    [1, 0, 0.5],
    [0, -1, 0],
    [0.25, 0, 2],
  ];
  const inside = engine.attendBackward({ ...args, gradOutput });
  const beside = engine.attendBackward(args, gradOutput);
  for (const name of ['x', 'wq', 'wk', 'wv']) assert.deepEqual(beside.get(name), inside.get(name), name);
  assert.deepEqual(beside.wq.shape, [4, 2]);
  assert.ok(beside.wq.data instanceof Float32Array);
  assert.throws(
    () => engine.attendBackward({ ...args, gradOutput }, gradOutput),
    (e) => e instanceof AttentionError && e.argument === 'gradOutput' && /given twice/.test(e.message),
  );
  assert.throws(
    () => engine.attendBackward('x', gradOutput),
    (e) => e instanceof AttentionError && /expected attend\(\)'s options object, got the string "x"/.test(e.message),
  );
});

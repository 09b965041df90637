// Tests of web/lib/compute.js and web/lib/explain.js against the real WASM engine: the numbers
// the page shows for the seed, the bank cosines, errors collected (not thrown), and the
// explanation terms of each kind of cell.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { defaultState } from '../../web/lib/state.js';
import { computeAll, attendArgs, toNested, maxAbsDiff, headColumns, averagingNested } from '../../web/lib/compute.js';
import { explainCell, modelFor, covers } from '../../web/lib/explain.js';

let engine, seed;
before(async () => {
  assert.ok(
    fs.existsSync(new URL('../../web/engine/attention_engine.mjs', import.meta.url)),
    'web/engine/attention_engine.mjs is missing: run `node scripts/build.mjs`',
  );
  const { loadEngine } = await import('../../web/engine/engine.js');
  engine = await loadEngine();
  seed = defaultState(engine.examples());
});

const close = (a, b, tol) =>
  assert.ok(
    maxAbsDiff(a, b) <= tol,
    `max |diff| ${maxAbsDiff(a, b)} > ${tol}:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`,
  );

test('pure helpers: toNested, maxAbsDiff, headColumns, attendArgs', () => {
  assert.deepEqual(toNested({ shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) }), [
    [1, 2, 3],
    [4, 5, 6],
  ]);
  assert.deepEqual(toNested({ shape: [1, 2, 1], data: [7, 8] }), [[[7], [8]]]);
  assert.equal(maxAbsDiff([[1, 2]], [[1, 2.5]]), 0.5);
  assert.equal(maxAbsDiff([[1]], [[1, 2]]), Infinity);
  assert.deepEqual(headColumns([[1, 2, 3, 4]], 1, 2), [[3, 4]]);
  const s = defaultState({
    vocabulary: { a: [1, 2] },
    W: [[1], [1]],
    W_query: [[1], [0]],
    W_key: [[1], [0]],
    W_value: [[1], [0]],
    contexts: { river: ['a'], finance: ['a'] },
  });
  assert.ok('wq' in attendArgs(s, ['a']));
  const raw = attendArgs({ ...s, options: { ...s.options, projections: false } }, ['a', 'a']);
  assert.ok(!('wq' in raw) && !('wk' in raw) && !('wv' in raw));
  assert.deepEqual(raw.x, [
    [1, 2],
    [1, 2],
  ]);
});

test('the seed state computes seed 003’s outputs, plain-layer rows and bank cosines', () => {
  const r = computeAll(engine, seed);
  assert.deepEqual(r.errors, []);
  close(
    r.contexts.river.trace.output,
    [
      [0.992, 0.221, 0.261],
      [0.957, 0.314, 0.256],
      [0.986, 0.232, 0.263],
    ],
    5e-4,
  );
  close(
    r.contexts.finance.trace.output,
    [
      [0.188, 1.158, 0.169],
      [0.297, 1.089, 0.18],
      [0.204, 1.146, 0.172],
    ],
    5e-4,
  );
  close(
    r.contexts.river.linear,
    [
      [1.2, 0.33, 0.24],
      [0.98, 1.14, 0.2],
      [0.9, 0.45, 0.72],
    ],
    1e-6,
  );
  assert.equal(r.cosines.length, 1);
  const c = r.cosines[0];
  assert.equal(c.word, 'bank');
  assert.ok(Math.abs(c.embedding - 1) < 1e-7 && Math.abs(c.linear - 1) < 1e-7);
  assert.ok(c.attention < 0.99);
  const avg = averagingNested(r.averaging);
  close(avg.loop, avg.matmul, 1e-6);
  close(avg.loop, avg.softmax, 1e-6);
});

test('raw attention without scaling gives the seed’s raw outputs', () => {
  const s = { ...seed, options: { ...seed.options, projections: false, scale: false } };
  const r = computeAll(engine, s);
  close(
    r.contexts.river.trace.output,
    [
      [1.001, 0.188, 0.047, 0.438],
      [0.949, 0.356, 0.089, 0.313],
      [0.987, 0.15, 0.037, 0.52],
    ],
    5e-4,
  );
  close(
    r.contexts.finance.trace.output,
    [
      [0.161, 1.181, 0.04, 0.243],
      [0.325, 1.078, 0.081, 0.19],
      [0.158, 1.163, 0.04, 0.278],
    ],
    5e-4,
  );
});

test('engine errors are collected with the argument named, not thrown', () => {
  const s = { ...seed, options: { ...seed.options, heads: 3 } };
  const r = computeAll(engine, s);
  assert.equal(r.contexts.river.trace, null);
  assert.ok(r.errors.length >= 2);
  assert.match(r.errors[0], /^river: .*heads/);
});

test('explanations list the terms the engine summed, and their source cells', () => {
  const r = computeAll(engine, seed);
  const m = modelFor(seed, r.contexts.river, 0);
  const score = explainCell(m, 'scores', 1, 0);
  assert.equal(score.lines[0], '0.840 × 1.230 + 0.840 × 0.030');
  assert.equal(score.result, '1.058');
  assert.deepEqual(score.sources, [
    { matrix: 'q', row: 1 },
    { matrix: 'k', row: 0 },
  ]);
  const q = explainCell(m, 'q', 1, 0);
  assert.equal(q.lines[0], '0.800 × 1.000 + 0.800 × 0.000 + 0.200 × 0.200 + 0.000 × 0.000');
  assert.equal(q.result, '0.840');
  const scaled = explainCell(m, 'scaled', 1, 0);
  assert.match(scaled.lines[0], /1\.058 × 0\.7071/);
  assert.match(scaled.lines[1], /1\/√2/);
  const w = explainCell(m, 'weights', 1, 0);
  assert.match(w.lines.join('\n'), /exp\(0\.748 − 0\.950\)/);
  assert.match(w.lines.at(-1), /row 1 sums to 1\.000/);
  const out = explainCell(m, 'out', 1, 0);
  assert.equal(out.lines[0], '0.320 × 1.200 + 0.392 × 0.800 + 0.288 × 0.900');
  assert.equal(out.result, '0.957');
  assert.deepEqual(out.sources, [
    { matrix: 'weights', row: 1 },
    { matrix: 'v', col: 0 },
  ]);
  const o = explainCell(m, 'output', 1, 0);
  assert.equal(o.lines[0], out.lines[0], 'one head: the output is the weighted sum of values');
  assert.match(o.title, /new vector of “bank”/);
  const lin = explainCell(m, 'linear', 1, 1);
  assert.equal(lin.result, '1.140');
  assert.ok(covers({ matrix: 'q', row: 1 }, 1, 5) && !covers({ matrix: 'q', row: 1 }, 0, 0));
  // causal: masked cells say so
  const c = { ...seed, options: { ...seed.options, causal: true } };
  const mc = modelFor(c, computeAll(engine, c).contexts.river, 0);
  assert.match(explainCell(mc, 'masked', 0, 2).lines[0], /comes after/);
  assert.match(explainCell(mc, 'weights', 0, 2).lines[0], /exp\(−∞\) = 0/);
  assert.equal(explainCell(mc, 'nonsense', 0, 0), null);
});

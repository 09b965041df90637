// web/lib/compute.js against the real WASM engine: the numbers the page shows for the seed, the
// bank cosines, errors collected (not thrown), the order and W_O experiments, and the results
// computed once per change of what they depend on.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { defaultState, notebookState } from '../../../web/lib/state.js';
import {
  computeAll,
  attendArgs,
  toNested,
  maxAbsDiff,
  headColumns,
  averagingNested,
  createResults,
  outputProjection,
  reversedRun,
  sideBySide,
} from '../../../web/lib/compute.js';

let engine, seed;
before(async () => {
  assert.ok(
    fs.existsSync(new URL('../../../web/engine/attention_engine.mjs', import.meta.url)),
    'web/engine/attention_engine.mjs is missing: run `node scripts/build.mjs`',
  );
  const { loadEngine } = await import('../../../web/engine/engine.js');
  engine = await loadEngine();
  seed = notebookState(engine.examples());
});

const close = (a, b, tol) =>
  assert.ok(
    maxAbsDiff(a, b) <= tol,
    `max |diff| ${maxAbsDiff(a, b)} > ${tol}:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`,
  );

test('ComputeHelpers_ToNestedMaxAbsDiffHeadColumnsAndAttendArgs', () => {
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

test('ComputeAll_TheSeedStateGivesSeed003sOutputsLinearRowsAndBankCosines', () => {
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

test('ComputeAll_RawAttentionWithoutScalingGivesTheSeedsRawOutputs', () => {
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

test('ComputeAll_EngineErrorsAreCollectedNamingTheArgumentNotThrown', () => {
  const s = { ...seed, options: { ...seed.options, heads: 3 } };
  const r = computeAll(engine, s);
  assert.equal(r.contexts.river.trace, null);
  assert.ok(r.errors.length >= 2);
  assert.match(r.errors[0], /^river: .*heads/);
});

test('SideBySide_PutsEachHeadsColumnsInItsBlock', () => {
  const perHead = [
    [
      [1, 2],
      [3, 4],
    ],
    [
      [5, 6],
      [7, 8],
    ],
  ];
  const merged = sideBySide(perHead);
  assert.deepEqual(merged, [
    [1, 2, 5, 6],
    [3, 4, 7, 8],
  ]);
  assert.deepEqual(headColumns(merged, 1, 2), perHead[1], 'headColumns undoes it');
});

test('ReversedRun_IsAttentionOverTheTokensBackwards', () => {
  const back = reversedRun(engine, seed, seed.contexts.river);
  assert.deepEqual(back.tokens, ['mud', 'bank', 'stream']);
  assert.equal(back.error, null);
  const expected = engine.attend({ ...attendArgs(seed, back.tokens) }).get('output');
  close(back.output, expected, 0);
  const bad = reversedRun(engine, { ...seed, options: { ...seed.options, temperature: -1 } }, seed.contexts.river);
  assert.equal(bad.output, null);
  assert.match(bad.error, /temperature/, 'the engine names the argument');
});

test('OutputProjection_IsMergedTimesASeededWo', () => {
  const entry = computeAll(engine, seed).contexts.river;
  const p = outputProjection(engine, seed, entry);
  const n = entry.trace.merged[0].length;
  assert.equal(p.wo.length, n);
  assert.deepEqual(outputProjection(engine, seed, entry).wo, p.wo, 'the same W_O every time (seeded)');
  const byHand = entry.trace.merged.map((row) => p.wo[0].map((_, c) => row.reduce((s, v, k) => s + v * p.wo[k][c], 0)));
  close(p.output, byHand, 1e-5);
});

test('ComputeAll_TheFocusExtrasComeWithTheResultsUnlessAskedNot', () => {
  const r = computeAll(engine, seed);
  assert.deepEqual(r.reversed.tokens, ['mud', 'bank', 'stream']);
  assert.ok(r.projection.output);
  const plain = computeAll(engine, seed, { averaging: false, focusExtras: false });
  assert.equal(plain.reversed, null);
  assert.equal(plain.projection, null);
  assert.equal(plain.averaging, null);
});

test('Results_ComputeOncePerChangeAndKeepTheLastGoodContext', () => {
  let calls = 0;
  const counting = new Proxy(engine, {
    get: (target, key) =>
      key === 'attend'
        ? (...args) => (calls++, target.attend(...args))
        : (Reflect.get(target, key).bind?.(target) ?? Reflect.get(target, key)),
  });
  const results = createResults();
  assert.equal(results.update(counting, seed), true);
  const first = calls;
  assert.equal(results.update(counting, { ...seed, theme: 'dark', view: ['weights'] }), false, 'no number changed');
  assert.equal(calls, first);
  results.invalidate();
  assert.equal(results.update(counting, seed), true, 'another engine: compute again');
  // The engine refuses the river sentence: its last good result stays, marked stale.
  const good = results.current.contexts.river.trace;
  const refused = { ...seed, vocab: { ...seed.vocab, mud: [NaN, 0, 0, 0] } };
  assert.equal(results.update(counting, refused), true);
  const river = results.current.contexts.river;
  assert.equal(river.trace, good);
  assert.equal(river.stale, true);
  assert.match(river.error, /^river: x/);
  assert.ok(results.current.errors.length > 0);
});

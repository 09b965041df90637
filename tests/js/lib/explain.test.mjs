// web/lib/explain.js against the real WASM engine: an explanation lists the terms the engine
// summed and the cells they came from; a figure's cell (what ui/heatmap.js locate() says it is)
// finds its model and its sources; a learned head's weight is its softmax, explained.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { notebookState } from '../../../web/lib/state.js';
import { computeAll } from '../../../web/lib/compute.js';
import { explainCell, explainLearnedWeight, isSource, modelAt, modelFor, covers } from '../../../web/lib/explain.js';

let engine, seed;
before(async () => {
  const { loadEngine } = await import('../../../web/engine/engine.js');
  engine = await loadEngine();
  seed = notebookState(engine.examples());
});

test('ExplainCell_ListsTheTermsTheEngineSummedAndTheirSourceCells', () => {
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

test('ModelAt_AFiguresCellFindsItsSentenceAndHeadOrNone', () => {
  // Without projections Q = K = V = X, four wide: two heads of two columns.
  const state = { ...seed, options: { ...seed.options, projections: false, heads: 2, head: 1 } };
  const r = computeAll(engine, state);
  const finance = modelAt(state, r, { matrix: 'weights', context: 'finance', head: 0, row: 1, col: 0 });
  assert.equal(finance.h, 0, 'the figure says head 0');
  assert.deepEqual(finance.tokens, state.contexts.finance);
  assert.equal(modelAt(state, r, { matrix: 'q', context: 'river', row: 0, col: 0 }).h, 1, 'else the chosen head');
  assert.equal(modelAt(state, r, { matrix: 'q', context: 'river', head: 9, row: 0, col: 0 }).h, 1, 'clamped');
  assert.equal(modelAt(state, r, { matrix: 'w', row: 0, col: 0 }), null, 'a figure of no sentence');
  assert.equal(modelAt(state, r, { matrix: 'x', context: 'moon', row: 0, col: 0 }), null);
  assert.ok(modelAt(seed, computeAll(engine, seed), { matrix: 'avg-x', context: 'river', row: 0, col: 0 }).avg);
});

test('IsSource_SameMatrixSentenceAndHeadAndCovered', () => {
  const explained = { context: 'river', head: 0 };
  const at = (matrix, extra = {}) => ({ matrix, context: 'river', row: 1, col: 2, ...extra });
  assert.equal(isSource({ matrix: 'q', row: 1 }, at('q'), explained), true);
  assert.equal(isSource({ matrix: 'q', row: 0 }, at('q'), explained), false, 'another row');
  assert.equal(isSource({ matrix: 'k', row: 1 }, at('q'), explained), false, 'another matrix');
  assert.equal(isSource({ matrix: 'q', row: 1 }, at('q', { context: 'finance' }), explained), false);
  assert.equal(isSource({ matrix: 'q', row: 1 }, at('q', { head: 1 }), explained), false, "another head's");
  assert.equal(isSource({ matrix: 'x', col: 2 }, at('x', { context: undefined }), explained), true);
});

test('ExplainLearnedWeight_IsTheSoftmaxOfTheScaledScoresUpToTheRow', () => {
  // Row 1 of a causal head with head size 4: scores 2 and 0 scaled by 1/2 → softmax [e/(e+1), 1/(e+1)].
  const text = explainLearnedWeight({ scores: [2, 0, 9], weight: 0.731, hs: 4 }, 1, 0);
  assert.match(text, /^weight\[1\]\[0\] = exp\(scaled score 1\.000 − row max 1\.000\)/);
  assert.match(text, /Σ over the 2 visible keys \(1\.368\) = 0\.731 \(the engine: 0\.731\)/);
  assert.match(text, /q·k \/ √4 = 2\.000 \/ 2\.000/);
  assert.match(explainLearnedWeight({ scores: [1, 2], weight: 0, hs: 4 }, 0, 1), /cannot look ahead at 1/);
});

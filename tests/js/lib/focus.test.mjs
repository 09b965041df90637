// focusView (web/lib/focus.js): what every view reads about the focused context, derived once
// from the state and the engine's results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../web/engine/engine.js';
import { defaultState } from '../../../web/lib/state.js';
import { computeAll } from '../../../web/lib/compute.js';
import { focusView, highlightRows, strongestKeys } from '../../../web/lib/focus.js';

const engine = await loadEngine();
const defaults = defaultState(engine.examples());

test('FocusView_HighlightsTheSharedWordsRows', () => {
  const f = focusView(defaults, computeAll(engine, defaults));
  assert.equal(f.name, 'river');
  assert.deepEqual(f.tokens, ['stream', 'bank', 'mud']);
  assert.deepEqual(f.highlightRows, [1]);
  assert.deepEqual(highlightRows(defaults, ['bank', 'x', 'bank']), [0, 2]);
  assert.equal(f.heads, 1);
  assert.deepEqual([f.hk, f.hv], [2, 3]);
});

test('FocusView_ClampsTheHeadToTheHeadsThereAre', () => {
  const state = { ...defaults, options: { ...defaults.options, projections: false, heads: 2, head: 1 } };
  const results = computeAll(engine, state);
  assert.equal(focusView(state, results).head, 1);
  const fewer = { ...state, options: { ...state.options, heads: 1, head: 1 } };
  const f = focusView(fewer, computeAll(engine, fewer));
  assert.equal(f.head, 0);
  assert.equal(f.hk, 4);
});

test('FocusView_WeightsUsedAreTheDroppedOnesWhileDropoutIsActive', () => {
  const state = { ...defaults, options: { ...defaults.options, dropout: 0.5, training: true } };
  const f = focusView(state, computeAll(engine, state));
  assert.equal(f.dropping, true);
  assert.deepEqual(f.weightsUsed, f.trace.dropped[0]);
  const evaluation = { ...state, options: { ...state.options, training: false } };
  const g = focusView(evaluation, computeAll(engine, evaluation));
  assert.equal(g.dropping, false);
  assert.deepEqual(g.weightsUsed, g.trace.weights[0]);
});

test('FocusView_IsMaskedFollowsTheCausalMask', () => {
  const state = { ...defaults, options: { ...defaults.options, causal: true } };
  const f = focusView(state, computeAll(engine, state));
  assert.equal(f.isMasked(0, 1), true);
  assert.equal(f.isMasked(1, 0), false);
});

test('FocusView_IsNullWithoutATrace', () => {
  assert.equal(focusView(defaults, null), null);
  assert.equal(focusView(defaults, { contexts: { river: { tokens: ['bank'], trace: null } } }), null);
  assert.equal(focusView({ ...defaults, focus: 'nowhere' }, computeAll(engine, defaults)), null);
});

test('StrongestKeys_EachHeadsLargestWeightOfARow', () => {
  const trace = {
    weights: [
      [
        [1, 0],
        [0.3, 0.7],
      ],
      [
        [1, 0],
        [0.6, 0.4],
      ],
    ],
  };
  assert.deepEqual(strongestKeys(trace, 1), [
    { j: 1, w: 0.7 },
    { j: 0, w: 0.6 },
  ]);
});

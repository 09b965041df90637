// Unit tests of web/lib/steps.js (the stepper's unravelled loops).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopSteps, progress } from '../../../web/lib/steps.js';

test('LoopSteps_TDotProductsASoftmaxAndAWeightedSumPerQueryRow', () => {
  for (const T of [1, 3, 5]) assert.equal(loopSteps(T, false).length, T * (T + 2));
  const s = loopSteps(2, false);
  assert.deepEqual(
    s.map((x) => x.kind),
    ['score', 'score', 'softmax', 'sum', 'score', 'score', 'softmax', 'sum'],
  );
  assert.deepEqual(s[4], { kind: 'score', i: 1, j: 0 });
});

test('LoopSteps_UnderTheCausalMaskLaterKeysAreMaskedInsteadOfScored', () => {
  const s = loopSteps(3, true)
    .filter((x) => x.kind === 'mask')
    .map((x) => [x.i, x.j]);
  assert.deepEqual(s, [
    [0, 1],
    [0, 2],
    [1, 2],
  ]);
});

test('Progress_SaysWhichCellsAreFilledAfterNSteps', () => {
  const T = 3;
  let p = progress(T, 0);
  assert.equal(p.score(0, 0), false);
  p = progress(T, 2);
  assert.deepEqual([p.score(0, 0), p.score(0, 1), p.score(0, 2), p.weights(0)], [true, true, false, false]);
  p = progress(T, 4);
  assert.deepEqual([p.weights(0), p.output(0)], [true, false]);
  p = progress(T, 5);
  assert.deepEqual([p.output(0), p.score(1, 0)], [true, false]);
  p = progress(T, T * (T + 2));
  assert.ok([0, 1, 2].every((i) => p.output(i) && p.weights(i) && p.score(i, 2)));
});

test('StepCount_IsTheFocusedContextsLoopLength', async () => {
  const { stepCount } = await import('../../../web/lib/steps.js');
  const state = { focus: 'b', contexts: { a: ['x'], b: ['x', 'y', 'z', 'w'] }, options: { causal: true } };
  assert.equal(stepCount(state), 4 * 6);
  assert.equal(stepCount({ ...state, focus: 'gone' }), 1 * 3, 'an unknown focus counts the first context');
});

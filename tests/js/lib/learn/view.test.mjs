// What the Learn section derives to draw a run (web/lib/learn/view.js): evaluation intervals,
// position:token labels, the head the bank task opens on, the speeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SPEEDS,
  EVALUATIONS_PER_RUN,
  evalInterval,
  positionLabels,
  bestBankHead,
  thinPoints,
  MAX_CHART_POINTS,
} from '../../../../web/lib/learn/view.js';

test('EvalInterval_GivesAboutSixtyHeldOutPointsPerRun', () => {
  for (const until of [1, 10, 60, 300, 600, 1200, 2000, 20000]) {
    const every = evalInterval(until);
    assert.ok(Number.isInteger(every) && every >= 1, `${until}: ${every}`);
    const points = Math.floor(until / every);
    assert.ok(points <= Math.max(until, EVALUATIONS_PER_RUN + 15), `${until}: ${points} points`);
    if (until >= EVALUATIONS_PER_RUN) assert.ok(points >= 40, `${until}: only ${points} held-out points`);
  }
  assert.equal(evalInterval(Infinity), 25);
  assert.equal(evalInterval(NaN), 25);
});

test('PositionLabels_ReadPositionColonToken', () => {
  assert.deepEqual(positionLabels([5, 2, 10], ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '|']), [
    '0:5',
    '1:2',
    '2:|',
  ]);
  assert.deepEqual(positionLabels([3], null), ['0:3']);
});

test('BestBankHead_IsTheHeadThatLooksMostAtTheContextWord', () => {
  const bank = { contexts: { river: { onContext: [0.2, 0.9, 0.4] }, finance: { onContext: [0.3, 0.8, 0.95] } } };
  assert.equal(bestBankHead(bank), 1, 'mean 0.85 beats 0.675');
  assert.equal(bestBankHead({ contexts: { river: { onContext: [0.5] }, finance: { onContext: [0.5] } } }), 0);
});

test('Speeds_RunFromFullSpeedToOneStepASecond', () => {
  assert.equal(SPEEDS[0].value, Infinity);
  assert.equal(SPEEDS.at(-1).value, 1);
  assert.ok(SPEEDS.every((s, i) => i === 0 || s.value < SPEEDS[i - 1].value));
});

test('ThinPoints_ALongLineKeepsItsRecentHalfAndEveryOtherOlderPoint', () => {
  const short = Array.from({ length: MAX_CHART_POINTS }, (_, i) => [i, i]);
  thinPoints(short);
  assert.equal(short.length, MAX_CHART_POINTS, 'short lines stay whole');
  const long = Array.from({ length: MAX_CHART_POINTS + 2 }, (_, i) => [i, i]);
  thinPoints(long);
  const half = (MAX_CHART_POINTS + 2) >> 1;
  assert.equal(long.length, Math.ceil(half / 2) + (MAX_CHART_POINTS + 2 - half));
  assert.deepEqual(long.slice(0, 3), [
    [0, 0],
    [2, 2],
    [4, 4],
  ]);
  assert.deepEqual(long.at(-1), [MAX_CHART_POINTS + 1, MAX_CHART_POINTS + 1], 'the newest point stays');
});

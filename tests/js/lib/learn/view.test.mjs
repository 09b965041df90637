// What the Learn section derives to draw a run (web/lib/learn/view.js): evaluation intervals,
// position:token labels, the head the bank task opens on, the speeds and paces, the bank probe's
// sentence in every state of its numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SPEEDS,
  SPEED_MAX,
  paceOf,
  speedProblem,
  bankClaim,
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

test('PaceOf_WatchIsTheTasksPaceUntilItsPatternFormsTheOthersHold', () => {
  const task = { watch: { stepsPerSecond: 2 } };
  assert.deepEqual(paceOf('watch', task), { stepsPerSecond: 2, untilFormed: true });
  assert.deepEqual(paceOf(undefined, task), { stepsPerSecond: 2, untilFormed: true }, 'watch is the default');
  assert.deepEqual(paceOf('fast', task), { stepsPerSecond: Infinity, untilFormed: false });
  assert.deepEqual(paceOf(4, task), { stepsPerSecond: 4, untilFormed: false });
  assert.deepEqual(paceOf('watch', null), { stepsPerSecond: Infinity, untilFormed: true }, 'no task: no pace to keep');
  for (const ok of ['watch', 'fast', 1, 0.25, SPEED_MAX]) assert.equal(speedProblem(ok), null, String(ok));
  for (const bad of [0, -1, SPEED_MAX + 1, NaN, 'slow', '4', null])
    assert.match(speedProblem(bad), /expected "watch", "fast" or a number of steps per second/, String(bad));
});

// The bank probe as lib/learn/session.js reports it: bank at position 5 (6 tokens seen), the
// deciding word at 3 ("mud" in one sentence, "loan" in the other).
const VOCAB = ['.', 'because', 'of', 'the', 'mud', 'loan', 'bank'];
const probe = (river, finance, corpus = null) => ({
  contexts: {
    river: { tokens: [1, 2, 3, 4, 3, 6], bank: 5, decider: 3, chance: 1 / 6, onContext: river },
    finance: { tokens: [1, 2, 3, 5, 3, 6], bank: 5, decider: 3, chance: 1 / 6, onContext: finance },
  },
  corpus,
});

test('BankClaim_SaysWhichHeadLooksAtTheDecidingWordAgainstChanceInEveryState', () => {
  const chance = /an even spread over the 6 tokens “bank” can see \(itself and the 5 before it\) would give each 0\.17/;
  // Step 0: nothing learnt.
  const none = bankClaim(probe([0.17, 0.16], [0.17, 0.18]), VOCAB);
  assert.match(
    none,
    /^No head looks back at the deciding word yet: the most “bank” gives “mud” is 0\.17 \(head 1\), “loan” 0\.18 \(head 2\)/,
  );
  assert.match(none, chance);
  // One head for both sentences.
  const one = bankClaim(probe([0.12, 0.99], [0.2, 0.9]), VOCAB);
  assert.match(
    one,
    /^Head 2 looks back from “bank” at the word that decides its sense: 0\.99 of its attention on “mud”, 0\.90 on “loan”/,
  );
  assert.match(one, chance);
  // A head per sense.
  assert.match(
    bankClaim(probe([0.94, 0.1], [0.05, 0.88]), VOCAB),
    /^Head 1 looks back from “bank” at “mud” \(0\.94\), head 2 at “loan” \(0\.88\): each head has learnt one sense's words/,
  );
  // Only one sense so far.
  assert.match(
    bankClaim(probe([0.2, 0.1], [0.05, 0.88]), VOCAB),
    /^Head 2 looks back from “bank” at “loan” \(0\.88\), but no head at “mud” yet \(at most 0\.20\)/,
  );
  // With the training sentences' average.
  assert.match(
    bankClaim(probe([0.12, 0.99], [0.2, 0.9], { onContext: [0.7, 0.88], chance: 0.15, sentences: 28 }), VOCAB),
    /Over the 28 training sentences with a deciding word before “bank”, head 2 gives that word 0\.88 on average \(chance 0\.15\)\.$/,
  );
});

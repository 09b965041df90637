// What the real-model section derives from the interpretability tools (web/lib/real/interpret.js):
// the rows of the knock-out bars, the layer × head effects, the attribution's parts, the lens's
// positions, and each figure's sentence, checked against the numbers it is made from in several
// states (the head helps, hurts, does not matter; the top prediction flips or not; the token
// forms early, late or never).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ablationClaim,
  attributionClaim,
  attributionParts,
  choosePrediction,
  comparisonRows,
  comparisonScale,
  headName,
  lensClaim,
  lensPositions,
  sweepClaim,
  sweepEffects,
  topIndices,
  NOTABLE,
  openingClaims,
  openingPrediction,
  strongestEffect,
  sweepsUnasked,
} from '../../../../web/lib/real/interpret.js';

const text = (id) => ['␣the', '␣river', '␣bank', '␣money', '␣water'][id];

test('Interpret_TopIndicesAreTheLargestFirstWithTiesToTheSmallerId', () => {
  assert.deepEqual(topIndices([0.1, 0.4, 0.4, 0.05, 0.05], 3), [1, 2, 0]);
  assert.deepEqual(topIndices(Float32Array.of(3, 1, 2), 5), [0, 2, 1]);
});

test('Interpret_ComparisonRowsHoldBothTopsAndTheCandidateSortedByTheCleanProbability', () => {
  const probs = [0.5, 0.3, 0.1, 0.06, 0.04],
    ablated = [0.2, 0.1, 0.05, 0.6, 0.05];
  const rows = comparisonRows(probs, ablated, 1, 4);
  assert.deepEqual(
    rows.map((r) => r.id),
    [0, 3, 4],
  );
  assert.deepEqual(rows[1], { id: 3, clean: 0.06, ablated: 0.6 });
});

test('Interpret_TheKnockOutSentenceSaysWhichWayTheCandidateMovedAndAFlip', () => {
  const base = { layer: 2, head: 3, mode: 'zero', loss: 3.2, ablatedLoss: 3.5 };
  const lower = ablationClaim({ ...base, probs: [0.1, 0.6, 0.3], ablatedProbs: [0.5, 0.2, 0.3] }, 1, text);
  assert.match(lower, /^Knocking out L3H4 lowers the chance of “␣river” from 60% to 20%/);
  assert.match(lower, /“␣the” becomes the top prediction/);
  assert.match(lower, /from 3\.200 to 3\.500/);
  const raise = ablationClaim(
    { ...base, mode: 'mean', probs: [0.5, 0.2, 0.3], ablatedProbs: [0.4, 0.3, 0.3] },
    1,
    text,
  );
  assert.match(
    raise,
    /L3H4 \(replaced by its mean\) raises the chance of “␣river” from 20% to 30%: this head was working against it/,
  );
  assert.doesNotMatch(raise, /becomes the top/);
  const same = ablationClaim({ ...base, probs: [0.5, 0.2, 0.3], ablatedProbs: [0.5005, 0.2001, 0.2994] }, 1, text);
  assert.match(same, /leaves the chance of “␣river” at 20%.*does not need this head/);
  // Small probabilities keep a decimal.
  const small = ablationClaim({ ...base, probs: [0.95, 0.05, 0], ablatedProbs: [0.99, 0.01, 0] }, 1, text);
  assert.match(small, /from 5\.0% to 1\.0%/);
});

test('Interpret_SweepEffectsAreTheChangeOfLogPWithNaNWhereNotMeasured', () => {
  const rows = new Map([[1, Float32Array.of(-2, -1.5)]]);
  const e = sweepEffects(rows, 2, 2, -1);
  assert.ok(Number.isNaN(e[0]) && Number.isNaN(e[1]));
  assert.deepEqual(Array.from(e.slice(2)), [-1, -0.5]);
});

test('Interpret_TheSweepSentenceNamesTheHeadThatMattersMostOrSaysNoneDoes', () => {
  const L = 2,
    H = 2,
    logProb = Math.log(0.5);
  assert.equal(
    sweepClaim({ effect: new Float32Array(4), L, H, logProb, done: 1 }, '␣river'),
    '1 of 2 blocks measured so far.',
  );
  assert.equal(
    sweepClaim({ effect: new Float32Array(4), L, H, logProb, done: 1, cancelled: true }, 'x'),
    'Stopped after 1 of 2 blocks.',
  );
  const effect = Float32Array.of(-0.05, -1.2, 0.3, -0.2);
  const most = sweepClaim({ effect, L, H, logProb, done: 2 }, '␣river');
  assert.match(
    most,
    /Of all 4 heads, knocking out L1H2 changes the chance of “␣river” most: log p goes down by 1\.20 \(from 50% to 15%\)/,
  );
  assert.match(most, / 2 heads lower it by more than 0\.1/);
  const one = sweepClaim({ effect: Float32Array.of(0, -1.2, 0.3, 0), L, H, logProb, done: 2 }, 'x');
  assert.match(one, / 1 head lowers it by more than 0\.1/);
  const up = sweepClaim({ effect: Float32Array.of(0.02, 0.5, 0, 0), L, H, logProb, done: 2 }, 'x');
  assert.match(up, /L1H2 .* goes up by 0\.50/);
  assert.doesNotMatch(up, /lower it/);
  const none = sweepClaim({ effect: Float32Array.of(0.01, -0.02, NOTABLE / 2, 0), L, H, logProb, done: 2 }, '␣river');
  assert.match(
    none,
    /No single head matters much here: knocking out any one of the 4 changes log p\(“␣river”\) by at most 0\.05/,
  );
});

test('Interpret_AttributionPartsAddUpAndTheSentenceNamesTheStrongestPushes', () => {
  const a = {
    heads: { data: Float32Array.of(0.5, -2, 3, 0.25) },
    mlps: Float32Array.of(1, -0.5),
    embed: 0.75,
    posEmbed: -0.25,
    attentionBias: 0.1,
    lnBias: 0.15,
    logit: 3.0,
  };
  const parts = attributionParts(a, 2, 2);
  assert.deepEqual(
    parts.map((p) => p.name),
    [
      'token embedding',
      'position embedding',
      'L1H1',
      'L1H2',
      'MLP 1',
      'L2H1',
      'L2H2',
      'MLP 2',
      'attention biases',
      'final LayerNorm bias',
    ],
  );
  const sum = parts.reduce((s, p) => s + p.value, 0);
  assert.ok(Math.abs(sum - 3.0) < 1e-6);
  const claim = attributionClaim(a, 2, 2, '␣river');
  assert.equal(
    claim,
    'The largest direct push toward “␣river” comes from L2H1 (+3.00), the largest push against it from L1H2 (−2.00); all the parts add up to the logit 3.00 (checked: 3.00).',
  );
  // Without MLPs.
  assert.equal(attributionParts({ ...a, mlps: null }, 2, 2).filter((p) => p.kind === 'mlp').length, 0);
});

test('Interpret_TheLensSentenceSaysWhereTheTokenBecomesAndStaysTheTopPrediction', () => {
  assert.equal(
    lensClaim([40, 3, 0, 0, 0], '␣river'),
    '“␣river” becomes the top prediction after layer 2 (of 4) and stays there; its rank after the embedding was 41.',
  );
  assert.match(lensClaim([0, 0, 0], 'x'), /straight from the embedding/);
  // Top at layer 1, lost, top again from layer 3: "stays" counts from the last time it became top.
  assert.match(lensClaim([5, 0, 2, 0, 0], 'x'), /after layer 3 \(of 4\)/);
  assert.equal(
    lensClaim([9, 2, 4], '␣bank'),
    '“␣bank” is ranked 5 after the last layer; it was ranked 10 after the embedding and 3 at best (after layer 1).',
  );
  assert.doesNotMatch(lensClaim([1, 3, 2], 'x'), /at best/);
});

test('Interpret_TheLensReadsEveryPositionWhenItFitsElseTheChosenAndThoseBefore', () => {
  const small = { layers: 4, width: 128, vocabSize: 4096 };
  assert.deepEqual(lensPositions(small, 6, 3), [0, 1, 2, 3, 4, 5]);
  const gpt2 = { layers: 12, width: 768, vocabSize: 50257 };
  const each = 13 * 768 * 50257;
  assert.deepEqual(lensPositions(gpt2, 16, 10, 3 * each), [8, 9, 10]);
  assert.deepEqual(lensPositions(gpt2, 16, 1, 3 * each), [0, 1]);
  assert.deepEqual(lensPositions(gpt2, 16, 5, 1), [5]);
  assert.equal(headName(0, 7), 'L1H8');
});

test('Interpret_TheOpeningIsTheModelsSurestRightGuessOfTheSentencesNextToken', () => {
  const ids = [5, 6, 7, 8];
  // Right at 0 (p 0.3) and 2 (p 0.5); position 1 has a higher p but is not the top token.
  assert.deepEqual(openingPrediction({ actual: [0.3, 0.9, 0.5], top: [6, 1, 8, 0] }, ids), {
    position: 2,
    token: 8,
    right: true,
  });
  // Never right: the highest probability.
  assert.deepEqual(openingPrediction({ actual: [0.3, 0.9, 0.5], top: [0, 0, 0, 0] }, ids), {
    position: 1,
    token: 7,
    right: false,
  });
  assert.equal(openingPrediction({ actual: [], top: [1] }, [1]), null);
});

test('Interpret_TheStrongestEffectIsTheLargestChangeEitherWayAmongThoseMeasured', () => {
  assert.deepEqual(strongestEffect(Float32Array.of(NaN, -0.2, 0.5, -0.4), 2), { layer: 1, head: 0, effect: 0.5 });
  assert.equal(strongestEffect(Float32Array.of(NaN, NaN), 2), null);
  assert.equal(sweepsUnasked({ layers: 4, heads: 4, width: 128 }), true);
  assert.equal(sweepsUnasked({ layers: 12, heads: 12, width: 768 }), false);
});

test('Interpret_TheOpeningNamesTheClearestPreviousTokenHeadAndSaysWhetherThereIsAnInductionHead', () => {
  const roles = (previous, induction) => ({
    strongest: {
      previous: [{ layer: 1, head: 2, score: previous }],
      induction: [{ layer: 3, head: 0, score: induction }],
    },
  });
  const none = openingClaims(roles(0.22, 0.012), 3);
  // Spread evenly over 3 tokens: (1/2 + 1/3) / 2 = 0.42.
  assert.equal(
    none.head,
    'L2H3 is this model’s clearest previous-token head: on a held text, 0.22 of its attention goes to the token just before (0.42 if spread evenly).',
  );
  assert.deepEqual(none.previous, { layer: 1, head: 2, name: 'L2H3' }, 'the head named, for its Show button');
  assert.equal(none.hasInduction, false);
  assert.match(
    none.induction,
    /^Its best induction score is 0\.01 \(L4H1\), under the 0\.3 .* no induction head\. Learn’s repeat task trains one in seconds/,
  );
  const found = openingClaims(roles(0.9, 0.45), 10);
  assert.equal(found.hasInduction, true);
  assert.match(found.induction, /^L4H1 has an induction score of 0\.45/);
});

test('Interpret_TheBarsScaleIsTheLargestProbabilityCleanOrKnockedOut', () => {
  assert.equal(
    comparisonScale([
      { clean: 0.2, ablated: 0.5 },
      { clean: 0.3, ablated: 0.1 },
    ]),
    0.5,
  );
  assert.equal(comparisonScale([{ clean: 0.4, ablated: 0.1 }]), 0.4);
  assert.equal(comparisonScale([{ clean: 0, ablated: 0 }]), 1);
});

test('Interpret_ChoosingAPredictionKeepsWhatTheReaderDidNotChange', () => {
  const start = { ids: '1,2', position: 3, token: 7, layer: undefined, head: undefined, mode: 'zero' };
  // A new position drops the candidate; the rest stays, and the input is not changed.
  assert.deepEqual(choosePrediction(start, { position: 1, token: -1 }, null), { ...start, position: 1, token: -1 });
  assert.equal(start.position, 3);
  // A candidate < 0 is ignored; one ≥ 0 is taken.
  assert.deepEqual(choosePrediction(start, { token: -1 }, null), start);
  assert.equal(choosePrediction(start, { token: 4 }, null).token, 4);
  // A layer alone takes the run's head, else 0; a head alone the run's layer, else 0.
  assert.deepEqual(pick(choosePrediction(start, { layer: 2 }, { layer: 5, head: 6 })), [2, 6]);
  assert.deepEqual(pick(choosePrediction(start, { layer: 2 }, null)), [2, 0]);
  assert.deepEqual(pick(choosePrediction(start, { head: 3 }, { layer: 5, head: 6 })), [5, 3]);
  assert.deepEqual(pick(choosePrediction({ ...start, layer: 1, head: 1 }, { head: 3 }, { layer: 5, head: 6 })), [1, 3]);
  // Both at once (a cell of the sweep): both taken.
  assert.deepEqual(pick(choosePrediction(start, { layer: 2, head: 3 }, { layer: 5, head: 6 })), [2, 3]);
  assert.equal(choosePrediction(start, { mode: 'mean' }, null).mode, 'mean');
});
const pick = (p) => [p.layer, p.head];

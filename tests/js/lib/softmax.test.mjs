// web/lib/softmax.js: the page's one softmax (explanations, the √dₖ experiment, a learned head's
// weight): it subtracts the row's largest score first, and a masked score weighs exactly 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { softmax, softmaxParts } from '../../../web/lib/softmax.js';

test('Softmax_SubtractsTheMaxSoHugeScoresDoNotOverflow', () => {
  assert.deepEqual(softmax([1000, 1000]), [0.5, 0.5]);
  const w = softmax([0, Math.log(3)]);
  assert.ok(Math.abs(w[1] - 0.75) < 1e-15);
});

test('Softmax_AMaskedScoreWeighsZeroAndTheMaxIsTheLargestFinite', () => {
  const { max, exps, sum, weights } = softmaxParts([1, -Infinity, Math.log(3) + 1]);
  assert.equal(max, Math.log(3) + 1);
  assert.equal(exps[1], 0);
  assert.ok(Math.abs(sum - 4 / 3) < 1e-15);
  assert.deepEqual(
    weights.map((w) => Number(w.toFixed(12))),
    [0.25, 0, 0.75],
  );
  assert.deepEqual(softmaxParts([-Infinity, -Infinity]).max, 0, 'no finite score: max 0');
});

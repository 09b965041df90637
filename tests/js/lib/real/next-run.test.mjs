// web/lib/real/next-run.js: what "What happens next" shows of a run (the vectors cut to what
// fits, the token as shown, the bars in percent of the most likely), and its run against a fake
// model: once per change of its inputs, an overtaken answer dropped, a failure asked again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNextRun, nextPicture } from '../../../../web/lib/real/next-run.js';

// L = 2 blocks, T = 2 tokens, C = 2, as in view.test.mjs: the last token's vectors are known.
const trace = () => ({
  width: 2,
  T: 2,
  L: 2,
  residual: Float32Array.from([9, 9, 3, 4, 9, 9, 6, 8, 9, 9, 0, 1]),
  afterAttention: Float32Array.from([9, 9, 3, 6, 9, 9, 0, 0]),
  logits: Float32Array.of(0),
});
const encoded = { ids: [5, 6], pieces: [{ display: 'a' }, { display: ' bank' }] };
const next = { topTokens: [3, 4, 5], topProbs: [0.5, 0.25, 0], topText: [' x', 'y', 'z'] };

test('NextPicture_CutsTheVectorsShowsSpacesAndScalesTheBarsToTheMostLikely', () => {
  const p = nextPicture(encoded, trace(), next, { show: 1, temperature: 1 });
  assert.equal(p.token, '␣bank');
  assert.equal(p.show, 1);
  assert.equal(p.width, 2);
  assert.equal(p.layers, 2);
  assert.deepEqual(p.vectors, { x0: [3], attention: [0], mid: [3], mlp: [3], x1: [6], xL: [0] });
  assert.deepEqual(
    p.bars.map((b) => [b.id, b.text, b.percent]),
    [
      [3, '␣x', 100],
      [4, 'y', 50],
    ],
  );
  assert.match(p.leftOut, /top-k and top-p cut them/);
  assert.match(p.said.claim, /after 2 blocks the vector has length 1\.00/);
  assert.equal(nextPicture(encoded, trace(), next, { show: 8, temperature: 1 }).show, 2, 'never more than the width');
});

function fakeReal({ fail = false } = {}) {
  const real = { calls: [], info: { name: 'tiny' }, fail };
  real.ensure = async () => {
    if (real.fail) throw new Error('no model');
  };
  real.call = async (op) => {
    real.calls.push(op);
    return op === 'encode' ? encoded : op === 'trace' ? trace() : next;
  };
  return real;
}

test('NextRun_RunsOncePerInputsAndAsksAgainAfterAFailure', async () => {
  const real = fakeReal({ fail: true });
  let g = { model: 'm', sentence: 'a bank', temperature: 1 };
  const runs = createNextRun({ real, gpt: () => g, state: () => ({}) });
  await assert.rejects(runs.run({ show: () => 8 }), /no model/);
  real.fail = false;
  const first = await runs.run({ show: () => 8 });
  assert.equal(first.temperature, 1);
  assert.equal(first.token, '␣bank');
  assert.deepEqual(real.calls, ['encode', 'trace', 'next']);
  assert.equal(await runs.run({ show: () => 8 }), null, 'the same inputs: nothing new');
  g = { ...g, temperature: 0.5 };
  assert.equal((await runs.run({ show: () => 8 })).temperature, 0.5);
});

test('NextRun_DropsAnAnswerANewerRunOvertook', async () => {
  const real = fakeReal();
  let g = { model: 'm', sentence: 'a bank', temperature: 1 };
  const runs = createNextRun({ real, gpt: () => g, state: () => ({}) });
  const older = runs.run({ show: () => 8 });
  g = { ...g, temperature: 2 };
  const newer = runs.run({ show: () => 8 });
  assert.equal(await older, null);
  assert.equal((await newer).temperature, 2);
});

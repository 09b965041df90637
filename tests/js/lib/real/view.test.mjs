// web/lib/real/view.js: what the real-model section derives from a model's trace — the mean over a
// layer's heads and the rollout are causal and row-stochastic, a word is found as a whole word,
// the last token's way through the blocks, the next-token list without its zero-probability tail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  attentionRollout,
  lastTokenThroughBlocks,
  listedCandidates,
  meanOverHeads,
  traceLimits,
  wordPosition,
} from '../../../../web/lib/real/view.js';
import { fromTokenizerJson } from '../../../../web/lib/tokenizer/index.js';

const tokenizerText = readFileSync(
  new URL('../../../../web/models/brown-wordnet.tokenizer.json', import.meta.url),
  'utf8',
);

test('RealView_RolloutAndMeanAreRowStochastic', () => {
  const L = 3,
    H = 2,
    T = 4;
  const weights = new Float32Array(L * H * T * T);
  // Head 0 attends to the first token, head 1 to itself.
  for (let l = 0; l < L; l++)
    for (let i = 0; i < T; i++) {
      weights[((l * H + 0) * T + i) * T + 0] = 1;
      weights[((l * H + 1) * T + i) * T + i] = 1;
    }
  const mean = meanOverHeads(weights, L, H, T);
  assert.equal(mean[0], 1, 'token 0: both heads on itself');
  assert.equal(mean[1 * T + 0], 0.5);
  assert.equal(mean[1 * T + 1], 0.5);
  const rollout = attentionRollout(weights, L, H, T);
  for (let i = 0; i < T; i++) {
    const row = Array.from(rollout.subarray(i * T, (i + 1) * T));
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6);
    for (let j = i + 1; j < T; j++) assert.equal(row[j], 0, 'causal in, causal out');
  }
  // Each layer keeps 3/4 on the token itself (half identity, half the self head) and sends 1/4 to
  // token 0: after 3 layers token 2 keeps (3/4)^3 of itself.
  assert.ok(Math.abs(rollout[2 * T + 2] - 0.421875) < 1e-6);
  assert.ok(Math.abs(rollout[2 * T + 0] - (1 - 0.421875)) < 1e-6);
  assert.equal(traceLimits({ contextLength: 1024 }).tokens, 128);
  assert.equal(traceLimits({ contextLength: 64 }).tokens, 64);
});

test('RealView_TheWordsLastTokenIsFoundAsAWholeWord', () => {
  const tokenizer = fromTokenizerJson(tokenizerText);
  const at = wordPosition(tokenizer, 'She took the money to the Bank.', 'bank');
  assert.ok(at, 'case does not matter');
  assert.equal(tokenizer.decode(at.ids.slice(0, at.index + 1)), 'She took the money to the Bank');
  assert.equal(wordPosition(tokenizer, 'The banks were closed.', 'bank'), null, 'not a whole word');
  assert.equal(wordPosition(tokenizer, 'x', '  '), null);
  assert.ok(wordPosition(tokenizer, 'a (bank) b', 'bank'));
  assert.ok(wordPosition(tokenizer, 'price: $5.00 bank', '$5.00'), 'regex characters are literal');
});

test('RealView_TheLastTokensBranchesAreTheDifferencesOfItsVectors', () => {
  // L = 2 blocks, T = 2 tokens, C = 2: the last token (1) is read at each layer's position.
  const t = {
    width: 2,
    T: 2,
    L: 2,
    residual: Float32Array.from([9, 9, 3, 4, 9, 9, 6, 8, 9, 9, 0, 1]), // (L + 1, T, C)
    afterAttention: Float32Array.from([9, 9, 3, 6, 9, 9, 0, 0]), // (L, T, C)
  };
  const r = lastTokenThroughBlocks(t);
  assert.deepEqual(r.x0, [3, 4]);
  assert.deepEqual(r.mid, [3, 6]);
  assert.deepEqual(r.attention, [0, 2], 'x + attention − x');
  assert.deepEqual(r.x1, [6, 8]);
  assert.deepEqual(r.mlp, [3, 2], 'after block 1 − (x + attention)');
  assert.deepEqual(r.xL, [0, 1]);
  assert.deepEqual(r.lengths, { x0: 5, attention: 2, mlp: Math.sqrt(13), xL: 1 });
});

test('ListedCandidates_LeaveOutZeroProbabilitiesAndSayWhyAndWhatEscapesMean', () => {
  // Temperature 0: one token takes it all; the rest are the vocabulary's first ids, control bytes.
  const greedy = listedCandidates(
    {
      topTokens: Int32Array.of(7, 0, 1, 2),
      topProbs: Float32Array.of(1, 0, 0, 0),
      topText: [' the', '⟨U+0000⟩', '⟨U+0001⟩', '⟨U+0002⟩'],
    },
    { temperature: 0 },
  );
  assert.deepEqual(greedy.shown, [{ id: 7, p: 1, text: '␣the', title: null }]);
  assert.match(
    greedy.leftOut,
    /Every other token has probability 0: at temperature 0 the most likely token takes it all/,
  );
  const cut = listedCandidates({ topTokens: [3, 4], topProbs: [0.6, 0], topText: ['\\n', 'x'] }, { temperature: 1 });
  assert.match(cut.leftOut, /top-k and top-p cut them/);
  assert.match(cut.shown[0].title, /a line break/);
  const all = listedCandidates(
    { topTokens: [3, 4, 5], topProbs: [0.5, 0.3, 0.2], topText: ['⟨U+200D⟩', '⟨F0 9F⟩', '\\t'] },
    { temperature: 1 },
  );
  assert.equal(all.leftOut, null);
  assert.match(all.shown[0].title, /an invisible or control character, by its code point/);
  assert.match(all.shown[1].title, /bytes of a character split between tokens/);
  assert.match(all.shown[2].title, /a tab/);
});

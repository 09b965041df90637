// Head scores (web/lib/head-scores.js) on hand-built attention patterns whose scores are known,
// and through the engine on a model whose heads are set to a known pattern.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  headScores,
  inductionScores,
  inductionSequence,
  positionalScores,
  strongestHeads,
} from '../../../web/lib/head-scores.js';
import { loadEngine } from '../../../web/engine/engine.js';

// (H, T, T) causal weights, one pattern per head: row i gets `pick(i)` → a key, or uniform.
function pattern(T, heads) {
  const data = new Float32Array(heads.length * T * T);
  heads.forEach((pick, h) => {
    for (let i = 0; i < T; i++) {
      const j = pick ? pick(i) : null;
      for (let k = 0; k <= i; k++) data[h * T * T + i * T + k] = j === null ? 1 / (i + 1) : k === j ? 1 : 0;
    }
  });
  return { shape: [heads.length, T, T], data };
}

const close = (a, b, tol = 1e-6) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('PositionalScores_OneForTheHeadThatDoesItAndUniformOtherwise', () => {
  const T = 8;
  const layer = pattern(T, [(i) => Math.max(i - 1, 0), () => 0, (i) => i, null]);
  const s = positionalScores([layer, layer]);
  // Row 1's previous token is the first token: 1 of the 7 rows counts for both.
  assert.deepEqual(s.previous[1].slice(0, 3), [1, 1 / 7, 0]);
  assert.deepEqual(s.first[0].slice(0, 3), [1 / 7, 1, 0]);
  assert.deepEqual(s.self[0].slice(0, 3), [0, 0, 1]);
  // The uniform head: mean over i = 1…7 of 1/(i + 1).
  let mean = 0;
  for (let i = 1; i < T; i++) mean += 1 / (i + 1) / (T - 1);
  close(s.previous[0][3], mean);
  close(s.first[0][3], mean);
  close(s.self[0][3], mean);
  assert.ok(Number.isNaN(positionalScores([pattern(1, [null])]).previous[0][0]));
});

test('InductionScores_FindTheHeadThatLooksAfterTheEarlierOccurrence', () => {
  const R = 5;
  const prefix = 1;
  const T = prefix + 2 * R;
  // Head 0: induction (second copy attends to i − R + 1); head 1: previous token; head 2: uniform.
  const layer = pattern(T, [(i) => (i >= prefix + R ? i - R + 1 : 0), (i) => Math.max(i - 1, 0), null]);
  const [scores] = inductionScores([layer], { R, prefix });
  assert.equal(scores[0], 1);
  assert.equal(scores[1], 0);
  assert.throws(
    () => inductionScores([layer], { R: 4, prefix }),
    /11 tokens; an induction sequence of prefix 1 \+ 2 × 4 has 9/,
  );
  assert.deepEqual(
    strongestHeads([scores], 2).map((h) => [h.layer, h.head]),
    [
      [0, 0],
      [0, 2],
    ],
  );
});

test('InductionSequence_RepeatsDistinctSeededTokensAvoidingExcluded', () => {
  const s = inductionSequence({ vocabSize: 20, R: 6, seed: 3, prefix: [19], exclude: [0, 1] });
  assert.equal(s.length, 13);
  assert.equal(s[0], 19);
  assert.deepEqual(s.slice(1, 7), s.slice(7));
  assert.equal(new Set(s.slice(1, 7)).size, 6);
  assert.ok(s.slice(1).every((id) => id >= 2 && id < 19));
  assert.deepEqual(s, inductionSequence({ vocabSize: 20, R: 6, seed: 3, prefix: [19], exclude: [0, 1] }));
  assert.throws(() => inductionSequence({ vocabSize: 5, R: 5, exclude: [0] }), /R: expected an integer in \[1, 4\]/);
});

test('HeadScores_ThroughTheEngineFindAPreviousTokenHead', async () => {
  // A one-layer attention-only model whose head 0 attends to the previous token: positions'
  // embeddings are one-hot, and W_q·W_kᵀ maps position i's query onto position i − 1's key with a
  // large gain; head 1 gets zero query weights (uniform attention).
  const engine = await loadEngine();
  const T = 12;
  const C = 32;
  const model = engine.createModel({
    vocabSize: 7,
    contextLength: T,
    layers: 1,
    heads: 2,
    width: C,
    mlp: false,
    layerNorm: false,
    bias: false,
    seed: 1,
  });
  const params = model.params();
  const wte = new Float32Array(7 * C);
  const wpe = new Float32Array(T * C);
  for (let t = 0; t < T; t++) wpe[t * C + t] = 1;
  const attn = new Float32Array(3 * C * C); // c_attn.weight (3C, C): q rows, k rows, v rows
  const hs = C / 2;
  for (let d = 0; d < hs && d + 1 < T; d++) {
    attn[d * C + d + 1] = 30; // head 0 query dim d reads position d + 1
    attn[(C + d) * C + d] = 30; // head 0 key dim d reads position d
  }
  model.setParams({
    'transformer.wte.weight': { shape: [7, C], data: wte },
    'transformer.wpe.weight': { shape: [T, C], data: wpe },
    'transformer.h.0.attn.c_attn.weight': { shape: [3 * C, C], data: attn },
  });
  assert.equal(params['transformer.h.0.attn.c_attn.weight'].shape.join(), `${3 * C},${C}`);
  const tokens = [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6];
  const scores = headScores((t) => model.attention(t), { tokens, vocabSize: 7, R: 3, samples: 2, exclude: [0] });
  assert.ok(scores.previous[0][0] > 0.99, `previous-token head: ${scores.previous[0][0]}`);
  assert.ok(scores.previous[0][1] < 0.4, `uniform head: ${scores.previous[0][1]}`);
  assert.deepEqual(strongestHeads(scores.previous, 1)[0], { layer: 0, head: 0, score: scores.previous[0][0] });
  assert.equal(scores.induction.length, 1);
  model.dispose();
});

// What each attention head does, measured from its causal weights (any model: ours, GPT-2, a
// Learn model). Pure, no DOM; tests/js/lib/head-scores.test.mjs.
//
// Legend: L layers, H heads, T tokens; weights[l] is (H, T, T), row i the query at position i,
// column j the key, rows summing to 1 over j ≤ i.
//
// Per head, over the query rows i ≥ 1 (row 0 can only attend to itself, so it says nothing):
//   previous  mean weight on the token before: w[i][i − 1]
//   first     mean weight on the first token: w[i][0]
//   self      mean weight on itself (the diagonal): w[i][i]
// and, on a sequence of R random tokens repeated twice (after `prefix` tokens, e.g. one
// <|endoftext|>), the induction score (Olsson et al. 2022, "In-context learning and induction
// heads"): for each query i in the second copy, the mean weight on the token right after the
// earlier occurrence of the current token, i − R + 1. A head that copies "what came next last
// time" scores near 1; uniform attention over i + 1 keys scores about 1/(i + 1).

import { seededRandom } from './learn/random.js';

export const HEAD_SCORE_KINDS = Object.freeze(['previous', 'first', 'self', 'induction']);

/** A layer's weights as {H, T, data}, from {shape, data} or an engine Result (its `weights`). */
function layerWeights(layer, l) {
  const t = layer && layer.weights && layer.weights.shape ? layer.weights : layer;
  if (!t || !Array.isArray(t.shape) || t.shape.length !== 3 || !t.data || t.shape[1] !== t.shape[2]) {
    throw new TypeError(`weights[${l}]: expected (H, T, T) attention weights as {shape, data} or a Result`);
  }
  const [H, T] = t.shape;
  if (t.data.length !== H * T * T) {
    throw new TypeError(`weights[${l}]: ${t.data.length} values for shape (${H}, ${T}, ${T})`);
  }
  return { H, T, data: t.data };
}

/** Mean over the rows i in [from, T) of w[i][key(i)] for one head. */
function meanOf(data, base, T, from, key) {
  let sum = 0;
  let n = 0;
  for (let i = from; i < T; i++) {
    const j = key(i);
    if (j < 0 || j > i) continue;
    sum += data[base + i * T + j];
    n++;
  }
  return n ? sum / n : NaN;
}

/**
 * Previous-token, first-token and self scores of every head: {previous, first, self}, each an
 * (L, H) array of arrays. NaN where T = 1 (no row to measure).
 */
export function positionalScores(weights) {
  const out = { previous: [], first: [], self: [] };
  weights.forEach((layer, l) => {
    const { H, T, data } = layerWeights(layer, l);
    for (const kind of Object.keys(out)) out[kind].push([]);
    for (let h = 0; h < H; h++) {
      const base = h * T * T;
      out.previous[l].push(meanOf(data, base, T, 1, (i) => i - 1));
      out.first[l].push(meanOf(data, base, T, 1, () => 0));
      out.self[l].push(meanOf(data, base, T, 1, (i) => i));
    }
  });
  return out;
}

/**
 * The induction score of every head, (L, H), from weights over a sequence built by
 * inductionSequence: `prefix` tokens, then R tokens, then the same R again.
 */
export function inductionScores(weights, { R, prefix = 0 }) {
  return weights.map((layer, l) => {
    const { H, T, data } = layerWeights(layer, l);
    if (T !== prefix + 2 * R) {
      throw new TypeError(
        `weights[${l}]: ${T} tokens; an induction sequence of prefix ${prefix} + 2 × ${R} has ${prefix + 2 * R}`,
      );
    }
    const scores = [];
    for (let h = 0; h < H; h++) {
      scores.push(meanOf(data, h * T * T, T, prefix + R, (i) => i - R + 1));
    }
    return scores;
  });
}

/**
 * The repeated random sequence of the induction score: `prefix` then R ids drawn uniformly
 * (seeded, without repeats within the R, so "the earlier occurrence" is unique) from [0,
 * vocabSize) minus `exclude`, then the same R ids again.
 */
export function inductionSequence({ vocabSize, R, seed = 0, prefix = [], exclude = [] }) {
  const banned = new Set([...exclude, ...prefix]);
  if (!Number.isInteger(R) || R < 1 || R > vocabSize - banned.size) {
    throw new RangeError(`R: expected an integer in [1, ${vocabSize - banned.size}], got ${R}`);
  }
  const random = seededRandom(seed);
  const chosen = [];
  const used = new Set(banned);
  while (chosen.length < R) {
    const id = random.int(vocabSize);
    if (used.has(id)) continue;
    used.add(id);
    chosen.push(id);
  }
  return [...prefix, ...chosen, ...chosen];
}

/**
 * Every score of a model: runs `attention(tokens)` (e.g. (t) => model.attention(t), per layer
 * (H, T, T) weights) on `text` tokens for the positional scores and on `samples` induction
 * sequences (averaged) for the induction score. Returns {previous, first, self, induction},
 * each (L, H).
 */
export function headScores(attention, { tokens, vocabSize, R = 50, samples = 4, prefix = [], exclude = [], seed = 0 }) {
  const scores = positionalScores(attention(tokens));
  let induction = null;
  for (let s = 0; s < samples; s++) {
    const sequence = inductionSequence({ vocabSize, R, seed: seed + s, prefix, exclude });
    const one = inductionScores(attention(sequence), { R, prefix: prefix.length });
    induction = induction ? induction.map((row, l) => row.map((v, h) => v + one[l][h])) : one;
  }
  scores.induction = induction.map((row) => row.map((v) => v / samples));
  return scores;
}

/** The n highest-scoring heads of one kind: [{layer, head, score}], best first (ties: earlier layer, head). */
export function strongestHeads(scores, n = 3) {
  const all = [];
  scores.forEach((row, layer) =>
    row.forEach((score, head) => Number.isFinite(score) && all.push({ layer, head, score })),
  );
  all.sort((a, b) => b.score - a.score || a.layer - b.layer || a.head - b.head);
  return all.slice(0, n);
}

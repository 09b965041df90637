// What the first section says, derived from the numbers it shows (so it stays true whatever the
// weights, the temperature or the mask): the claim — the shared word starts equal and comes out
// different — and one honest sentence on what the attention weights do and do not do here.
// Pure; unit-tested in tests/js/lib/contrast.test.mjs.
import { fmt } from './format.js';

/** Row i of a (H, T, T) weights tensor averaged over heads. */
export function meanHeadsRow(weights, i) {
  const H = weights.length;
  return weights[0][i].map((_, j) => weights.reduce((s, w) => s + w[i][j], 0) / H);
}

const list = (tokens, row) => tokens.map((t, j) => `${t} ${fmt(row[j], 2)}`).join(', ');

/**
 * @param {object} state  the explorer state
 * @param {{contexts, cosines}} results  computeAll's results
 * @returns {{claim: string, honest: string}}  honest is '' when there is nothing to compare
 */
export function contrastClaims(state, results) {
  const names = Object.keys(results.contexts);
  const row = results.cosines[0];
  if (!row || names.length < 2) {
    return {
      claim: 'Add the same word to two sentences to compare what attention makes of it in each.',
      honest: '',
    };
  }
  const [a, b] = names;
  const A = results.contexts[a],
    B = results.contexts[b];
  const w = `“${row.word}”`;
  if (row.attention === null || !A.trace || !B.trace) {
    return { claim: `${w} is the same vector in both sentences before attention.`, honest: '' };
  }
  const same = row.embedding !== null && row.embedding > 0.9995;
  const apart = row.attention < 0.9995;
  const claim = same
    ? apart
      ? `${w} is the same vector in both sentences (cosine ${fmt(row.embedding)}), and still the same after a plain linear layer (${fmt(row.linear ?? 1)}); after self-attention the two ${w}s differ: cosine ${fmt(row.attention)}.`
      : `${w} is the same vector in both sentences, and with these settings self-attention leaves the two equal too (cosine ${fmt(row.attention)}).`
    : `${w} starts with different vectors in the two sentences (cosine ${fmt(row.embedding)}); after self-attention the cosine is ${fmt(row.attention)}.`;

  // Where the shared word looks in each sentence (averaged over heads).
  const rowA = meanHeadsRow(A.trace.weights, row.i);
  const rowB = meanHeadsRow(B.trace.weights, row.j);
  const topOf = (r) => r.reduce((best, v, j) => (v > r[best] ? j : best), 0);
  const [ta, tb] = [topOf(rowA), topOf(rowB)];
  const even = rowA[ta] < 0.5 && rowB[tb] < 0.5;
  const where = `${a}: ${list(A.tokens, rowA)}; ${b}: ${list(B.tokens, rowB)}`;
  const onSelf = A.tokens[ta] === row.word && B.tokens[tb] === row.word;
  const picked = `“${A.tokens[ta]}” (${fmt(rowA[ta], 2)}) in “${a}” and “${B.tokens[tb]}” (${fmt(rowB[tb], 2)}) in “${b}”`;
  const gap = row.attention - row.average;
  const relation =
    gap > 0.02
      ? 'more alike than plain averages of the two sentences'
      : gap < -0.02
        ? 'further apart than plain averages of the two sentences'
        : 'about as alike as plain averages of the two sentences';
  const versus = `(cosine ${fmt(row.attention)}, against ${fmt(row.average)} with equal weights)`;
  const honest = even
    ? `${w} spreads its attention almost evenly (${where}): these weights do not pick out the word that says which ${row.word} it is, and the two differ because each mixes in different neighbours, ending ${relation} ${versus}.`
    : onSelf
      ? `${w} attends mostly to itself, ${picked} (${where}), so the two end ${relation} ${versus}.`
      : `${w}’s attention goes mostly to ${picked} (${where}), so the two end ${relation} ${versus}.`;
  return { claim, honest };
}

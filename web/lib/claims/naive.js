// What "Naive scores" says: in how many rows a token's best match is itself, and the shared
// word's softmax row, from X·Xᵀ as the engine computed it. Pure.
import { q, weightsList } from './words.js';

const TEXT = {
  none: 'The naive scores could not be computed for this sentence.',
  all: (row) =>
    `In every row the largest score is the token with itself (outlined): each token matches itself best, and its softmax row favours it — ${row}.`,
  some: (n, T, row) => `In ${n} of ${T} rows the largest score is the token with itself (outlined); ${row}.`,
  row: (word, list) => `${q(word)} gives ${list}`,
};

/**
 * @param {{scores: number[][], weights: number[][]}|null} naive  results.contexts[name].naive
 * @param {string[]} tokens
 * @param {number} row  the row the sentence reads (the shared word's)
 */
export function naiveClaim(naive, tokens, row) {
  if (!naive) return TEXT.none;
  const { scores, weights } = naive;
  const selfBest = scores.filter((r, i) => r.every((v) => v <= r[i])).length;
  const said = TEXT.row(tokens[row], weightsList(tokens, weights[row]));
  return selfBest === tokens.length ? TEXT.all(said) : TEXT.some(selfBest, tokens.length, said);
}

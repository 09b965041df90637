// What "Queries, keys and values" says: which key the shared word's query matches best, from its
// row of Q·Kᵀ (the probe table beside Q, K and V shows the same numbers). Pure.
import { fmt } from '../format.js';
import { argmax, q } from './words.js';

const TEXT = {
  self: (w, order) => `The query of ${q(w)} matches its own key best (${order}): its largest score is with itself.`,
  other: (w, best, order, unique) =>
    `The query of ${q(w)} matches the key of ${q(best)} best (${order}): it looks past itself${unique ? ', at a word the other sentences do not have' : ''}.`,
};

/**
 * @param {number[]} row  the word's query against every key (unscaled scores of the head shown)
 * @param {string[]} tokens
 * @param {number} i  the word's row
 * @param {(j: number) => boolean} shared  whether key j is a word every sentence has
 * @returns {{claim: string, best: number}}
 */
export function qkvClaim(row, tokens, i, shared) {
  const best = argmax(row);
  const order = row
    .map((v, j) => [v, j])
    .sort((a, b) => b[0] - a[0])
    .map(([v, j]) => `${tokens[j]} ${fmt(v)}`)
    .join(', ');
  return {
    best,
    claim: best === i ? TEXT.self(tokens[i], order) : TEXT.other(tokens[i], tokens[best], order, !shared(best)),
  };
}

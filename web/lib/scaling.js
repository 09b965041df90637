// Why attention divides its scores by √dₖ (seed 001's remark, as numbers): with query and key
// entries drawn from N(0, 1), a dot product over dₖ numbers has variance dₖ, so its spread grows
// like √dₖ; the softmax of ever wider scores puts nearly all the weight on one key, and its
// gradient vanishes. Divided by √dₖ the spread stays near 1 at every width. Pure; the numbers
// come from a seeded generator, so the page and the tests see the same draws.
import { seededRandom } from './learn/random.js';

export const SCALING_WIDTHS = Object.freeze([1, 4, 16, 64, 256, 1024]);

/** softmax of a row (max subtracted first, so large scores do not overflow exp). */
export function softmax(row) {
  const max = Math.max(...row);
  const e = row.map((s) => Math.exp(s - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

const std = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
};

/**
 * One query against `keys` random keys of width dk.
 * @returns {{dk, scores: number[], spread: number, spreadScaled: number, weights: number[],
 *   weightsScaled: number[], largest: number, largestScaled: number}}
 *   spread: the standard deviation of the scores over `pairs` random query–key pairs (the first
 *   `keys` of them are the ones shown), before and after dividing by √dk.
 */
export function scalingExample(dk, { keys = 12, pairs = 400, seed = 1 } = {}) {
  const rng = seededRandom(seed * 7919 + dk);
  const vector = () => Array.from({ length: dk }, () => rng.normal());
  const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
  const q = vector();
  const scores = Array.from({ length: keys }, () => dot(q, vector()));
  const sample = scores.concat(Array.from({ length: pairs - keys }, () => dot(vector(), vector())));
  const root = Math.sqrt(dk);
  const weights = softmax(scores);
  const weightsScaled = softmax(scores.map((s) => s / root));
  return {
    dk,
    scores,
    spread: std(sample),
    spreadScaled: std(sample) / root,
    weights,
    weightsScaled,
    largest: Math.max(...weights),
    largestScaled: Math.max(...weightsScaled),
  };
}

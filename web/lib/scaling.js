// Why attention divides its scores by √dₖ (seed 001's remark, as numbers): with query and key
// entries drawn from N(0, 1), a dot product over dₖ numbers has variance dₖ, so its spread grows
// like √dₖ; the softmax of ever wider scores puts nearly all the weight on one key, and its
// gradient vanishes. Divided by √dₖ the spread stays near 1 at every width. Pure; the numbers
// come from a seeded generator, so the page and the tests see the same draws.
import { seededRandom } from './learn/random.js';
import { softmax } from './softmax.js';

export const SCALING_WIDTHS = Object.freeze([1, 4, 16, 64, 256, 1024]);

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
  // Plain loops over two reused buffers (the page draws 800 vectors of up to 1,024 entries at
  // load); the same draws in the same order, summed in the same order, as the obvious code.
  const a = new Float64Array(dk);
  const b = new Float64Array(dk);
  const draw = (v) => {
    for (let i = 0; i < dk; i++) v[i] = rng.normal();
    return v;
  };
  const dot = (x, y) => {
    let s = 0;
    for (let i = 0; i < dk; i++) s += x[i] * y[i];
    return s;
  };
  const q = draw(new Float64Array(dk));
  const scores = Array.from({ length: keys }, () => dot(q, draw(b)));
  const sample = scores.slice();
  for (let p = keys; p < pairs; p++) sample.push(dot(draw(a), draw(b)));
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

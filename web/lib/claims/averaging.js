// What "Averaging the past" says about its three forms, from the engine's numbers. Pure.
import { fmt } from '../format.js';
import { maxAbsDiff } from '../compute.js';
import { q } from './words.js';

const TEXT = {
  none: 'Causal averaging could not be computed for this context.',
  agree: (last, T, row) =>
    `The three forms agree: ${q(last)} becomes the average of all ${T} tokens, ${row}; the first token keeps its own vector.`,
  differ: 'The three forms differ by more than float rounding: something is wrong.',
};

/**
 * @param {{loop, matmul, softmax}|null} a  engine.averaging's results as nested arrays
 * @param {string[]} tokens
 * @returns {string}
 */
export function averagingClaim(a, tokens) {
  if (!a) return TEXT.none;
  // The float32 differences themselves are in the engineers' panel.
  const agree = Math.max(maxAbsDiff(a.loop, a.matmul), maxAbsDiff(a.loop, a.softmax)) < 1e-5;
  const last = a.loop.length - 1;
  return agree ? TEXT.agree(tokens[last], tokens.length, a.loop[last].map((v) => fmt(v)).join(', ')) : TEXT.differ;
}

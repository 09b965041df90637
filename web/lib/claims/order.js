// What "Order" says about the sentence run forwards and reversed, from the engine's two runs. Pure.
import { fmt } from '../format.js';
import { maxAbsDiff } from '../compute.js';

const TEXT = {
  failed: (error) => `The reversed sentence could not be computed: ${error}`,
  same: (d) =>
    `Every token’s output is the same in both orders: largest difference ${d} (float32 rounding of sums taken in another order).`,
  causal: (d) =>
    `With the causal mask on, reversing changes the outputs: the mask is the only part that knows about positions (a token may only look back). Largest change of a token’s output: ${d}.`,
  causalSame: (d) =>
    `The causal mask knows about positions (a token may only look back), yet here reversing leaves every output as it was (largest change ${d}): these tokens look alike to attention.`,
};

/**
 * @param {number[][]} mine  the outputs as written
 * @param {{output: number[][]|null, error: string|null}} reversed  lib/compute.js reversedRun
 * @param {boolean} causal
 * @returns {string}
 */
export function orderClaim(mine, reversed, causal) {
  if (reversed.error) return TEXT.failed(reversed.error);
  // Row i of the reversed run belongs to token T − 1 − i: put it back in place to compare.
  const diff = maxAbsDiff(mine, reversed.output.slice().reverse());
  if (!causal) return TEXT.same(fmt(diff, 7));
  return diff > 1e-5 ? TEXT.causal(fmt(diff)) : TEXT.causalSame(fmt(diff, 7));
}

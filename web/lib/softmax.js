// The page's one softmax, for the numbers it explains or draws itself (the engine computes
// attention's own): exp(s − max) ÷ Σ exp(s − max) along a row, the largest score subtracted first
// so exp never overflows (it cancels in the division); a masked score (−∞) weighs exactly 0.
// Pure; unit-tested in tests/js/lib/softmax.test.mjs.

/**
 * @param {number[]} row  scores, −∞ for masked ones
 * @returns {{max: number, exps: number[], sum: number, weights: number[]}}
 *   max: the largest finite score (0 when there is none); exps: exp(s − max) per score
 */
export function softmaxParts(row) {
  const finite = row.filter(Number.isFinite);
  const max = finite.length ? Math.max(...finite) : 0;
  const exps = row.map((s) => (Number.isFinite(s) ? Math.exp(s - max) : 0));
  const sum = exps.reduce((a, b) => a + b, 0);
  return { max, exps, sum, weights: exps.map((e) => e / sum) };
}

/** softmax of a row: weights ≥ 0 that sum to 1. */
export function softmax(row) {
  return softmaxParts(row).weights;
}

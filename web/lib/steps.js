// The unravelled loops of seed 000 as a list of steps, for the stepper. Pure.
// For each query i: for each key j a dot product (or a mask when causal and j > i), then the
// row softmax, then the weighted sum of value rows into output row i. T·(T + 2) steps.

/** @returns {Array<{kind: 'score'|'mask'|'softmax'|'sum', i: number, j?: number}>} */
export function loopSteps(T, causal) {
  const steps = [];
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) steps.push({ kind: causal && j > i ? 'mask' : 'score', i, j });
    steps.push({ kind: 'softmax', i });
    steps.push({ kind: 'sum', i });
  }
  return steps;
}

/**
 * What is filled in after the first `done` steps.
 * @returns {{score: (i, j) => boolean, weights: (i) => boolean, output: (i) => boolean}}
 */
export function progress(T, done) {
  const per = T + 2;
  const rowsDone = Math.floor(done / per); // rows fully finished
  const inRow = done % per; // steps done in the current row
  return {
    score: (i, j) => i < rowsDone || (i === rowsDone && j < inRow),
    weights: (i) => i < rowsDone || (i === rowsDone && inRow > T),
    output: (i) => i < rowsDone,
  };
}

/** Number of stepper positions for the state's focused context: T·(T + 2). */
export function stepCount(state) {
  const tokens = state.contexts[state.focus] || Object.values(state.contexts)[0] || [];
  return loopSteps(tokens.length, state.options.causal).length;
}

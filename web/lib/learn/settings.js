// Each Learn task's model and training settings, its context and the pace it is watched at: the
// numbers a link's state starts from (learn-state.js) and the tasks train with (tasks.js). Data
// only, in a file of its own so that the element's file, which checks the Learn state of a link
// or an attribute, carries no task code and no corpus. Pure.
//
// `watch` is the pace a reader watches at (the Learn section's default): steps per second such
// that the pattern forms (tasks.js patternFormed) 10–20 s after Train is pressed, measured on the
// default run in Node (tests/js/lib/learn/session.test.mjs
// Task_<id>_PatternFormsWithinTenToTwentySecondsAtItsWatchPace). A pace changes when steps are
// taken, never which: the run is the same at any pace.

const frozen = (o) => Object.freeze(o);

export const TASK_SETTINGS = frozen({
  copy: frozen({
    context: 8,
    model: { layers: 1, heads: 1, width: 16, mlp: false, layerNorm: true, bias: true },
    train: { lr: 0.01, batch: 16, steps: 300 },
    watch: { stepsPerSecond: 3 }, // the pattern forms at step 41: 13.7 s
  }),
  reverse: frozen({
    context: 10,
    model: { layers: 1, heads: 1, width: 32, mlp: false, layerNorm: true, bias: true },
    train: { lr: 0.01, batch: 16, steps: 600 },
    watch: { stepsPerSecond: 2 }, // step 28: 14.0 s
  }),
  sort: frozen({
    context: 10,
    model: { layers: 2, heads: 2, width: 32, mlp: true, layerNorm: true, bias: true },
    train: { lr: 0.005, batch: 32, steps: 1200 },
    watch: { stepsPerSecond: 7 }, // step 96: 13.7 s
  }),
  repeat: frozen({
    context: 16,
    model: { layers: 2, heads: 2, width: 64, mlp: false, layerNorm: true, bias: true },
    train: { lr: 0.003, batch: 32, steps: 2000 },
    watch: { stepsPerSecond: 100 }, // step 1,340: 13.4 s
  }),
  // The bank sentences: width 32 and a rate of 0.005 give, over 8 seeds, a head that puts ≥ 0.85
  // of "bank"'s attention on the probe's deciding word after 600 steps (chance 0.17); width 16 at
  // 0.01 did so in 5 of 8.
  bank: frozen({
    context: 12,
    model: { layers: 1, heads: 2, width: 32, mlp: true, layerNorm: true, bias: true },
    train: { lr: 0.005, batch: 16, steps: 600 },
    watch: { stepsPerSecond: 6 }, // step 89: 14.8 s
  }),
  // The character model over the reader's text (or the sample).
  text: frozen({
    context: 32,
    model: { layers: 2, heads: 4, width: 64, mlp: true, layerNorm: true, bias: true },
    train: { lr: 0.003, batch: 16, steps: 2000 },
    watch: { stepsPerSecond: 30 }, // a held-out loss of 1 at step 450: 15.0 s
  }),
});

// One training run of the Learn section: a task, the model settings and a seed → a model the
// engine trains one batch at a time. Pure over the engine it is given (engine.createModel), so the
// same code runs in a Web Worker (web/learn-worker.js) and inline on the page in time slices
// (tools/trainer.js), and in Node for the tests.
//
// Deterministic: the model starts from the seed (the engine initialises as PyTorch would after
// torch.manual_seed(seed)), and the batch of step k is drawn from its own generator seeded by
// (seed, k), so a run paused and resumed, sliced differently, or replayed from a shared link
// reaches the same weights (with the same kernel).
import { seededRandom } from './random.js';
import { TASKS, taskBatch, heldOut, accuracy, sentenceTask, textTask } from './tasks.js';

// Bounds the page enforces before a model is made (the engine checks its own, larger, limits).
export const LEARN_LIMITS = Object.freeze({
  layers: 4,
  heads: 8,
  width: 128,
  context: 64,
  batch: 64,
  steps: 20000,
  textChars: 20000,
  sentences: 200,
  lrMin: 1e-5,
  lrMax: 1,
});

/** The task a spec names: {id} for the built-in ones, or {id: 'bank'|'text', sentences|text}. */
export function taskFor(spec) {
  if (spec.id in TASKS) return TASKS[spec.id];
  if (spec.id === 'bank') return sentenceTask(spec.sentences);
  if (spec.id === 'text') return textTask(spec.text, { context: spec.context ?? 32 });
  throw new RangeError(
    `task: unknown task "${spec.id}"; expected one of ${[...Object.keys(TASKS), 'bank', 'text'].join(', ')}`,
  );
}

/** Checks settings against LEARN_LIMITS; returns a list of problems (empty when fine). */
export function checkSettings(s) {
  const problems = [];
  const int = (name, lo, hi) => {
    if (!Number.isInteger(s[name]) || s[name] < lo || s[name] > hi)
      problems.push(`${name}: expected a whole number in [${lo}, ${hi}], got ${s[name]}`);
  };
  int('layers', 1, LEARN_LIMITS.layers);
  int('heads', 1, LEARN_LIMITS.heads);
  int('width', 1, LEARN_LIMITS.width);
  int('batch', 1, LEARN_LIMITS.batch);
  int('seed', 0, 2 ** 31 - 1);
  if (Number.isInteger(s.width) && Number.isInteger(s.heads) && s.width % s.heads !== 0) {
    problems.push(`heads: ${s.heads} must divide the width ${s.width}`);
  }
  if (!(typeof s.lr === 'number' && s.lr >= LEARN_LIMITS.lrMin && s.lr <= LEARN_LIMITS.lrMax)) {
    problems.push(`learning rate: expected a number in [${LEARN_LIMITS.lrMin}, ${LEARN_LIMITS.lrMax}], got ${s.lr}`);
  }
  return problems;
}

/** A generator for step k of a run seeded `seed`: independent of how the run was sliced. */
const stepRandom = (seed, k) =>
  seededRandom((Math.imul(seed ^ 0x2545f491, 0x9e3779b1) + Math.imul(k + 1, 0x85ebca6b)) >>> 0);

/**
 * @param {object} engine  a loaded engine (web/engine/engine.js)
 * @param {{task: object, settings: {layers, heads, width, mlp, layerNorm, lr, batch, seed}}} spec
 */
export function createSession(engine, { task: taskSpec, settings }) {
  const task = taskFor(taskSpec);
  const problems = checkSettings(settings);
  if (problems.length) throw new RangeError(problems.join('; '));
  const model = engine.createModel({
    vocabSize: task.vocab.length,
    contextLength: task.context,
    layers: settings.layers,
    heads: settings.heads,
    width: settings.width,
    mlp: settings.mlp,
    layerNorm: settings.layerNorm,
    bias: true,
    seed: settings.seed,
  });
  const held = heldOut(task, settings.seed);
  let losses = [];

  return {
    task,
    model,
    /** Trains `count` steps; returns the loss of each. Throws (keeping the last good weights) on divergence. */
    train(count) {
      const out = [];
      for (let n = 0; n < count; n++) {
        const k = model.steps;
        const batch = taskBatch(task, stepRandom(settings.seed, k), settings.batch);
        const r = model.step(batch, { lr: settings.lr });
        out.push({ step: r.step, loss: r.loss });
      }
      losses = losses.concat(out);
      return out;
    },
    /** Loss and accuracy on the held-out examples (never trained on). */
    evaluate() {
      const r = model.evaluate(held);
      return { step: model.steps, loss: r.loss, accuracy: accuracy(r.predictions, held.targets) };
    },
    /** An example to look at: the first held-out sequence (its tokens and targets). */
    example() {
      const T = task.context;
      return { tokens: Array.from(held.tokens.subarray(0, T)), targets: Array.from(held.targets.subarray(0, T)) };
    },
    /** Every layer's attention over `tokens`: [{weights (H,T,T), q, k, v, scores}] as nested arrays. */
    attention(tokens) {
      return model.attention(tokens).map((layer) => ({
        weights: layer.get('weights'),
        scores: layer.get('scores'),
        q: layer.get('q'),
        k: layer.get('k'),
        v: layer.get('v'),
      }));
    },
    generate(prompt, count, options) {
      return model.generate(prompt, count, options);
    },
    get steps() {
      return model.steps;
    },
    dispose() {
      model.dispose();
    },
  };
}

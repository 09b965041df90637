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
import { BANK_CONTEXTS, BANK_DECIDERS, bankDecider, words } from './corpus.js';
import { LEARN_LIMITS } from '../limits.js';
import { checkSettings } from './learn-state.js';
import { seedStartProblem, seedStartParams, seedBlocks } from './seed-start.js';

export { LEARN_LIMITS, checkSettings };

/** The task a spec names: {id} for the built-in ones, or {id: 'bank'|'text', sentences|text}
 * (a bank spec's fromSeed is read by createSession). */
export function taskFor(spec) {
  if (spec.id in TASKS) return TASKS[spec.id];
  if (spec.id === 'bank') return sentenceTask(spec.sentences);
  if (spec.id === 'text') return textTask(spec.text, { context: spec.context ?? 32 });
  throw new RangeError(
    `task: unknown task "${spec.id}"; expected one of ${[...Object.keys(TASKS), 'bank', 'text'].join(', ')}`,
  );
}

/** A generator for step k of a run seeded `seed`: independent of how the run was sliced. */
const stepRandom = (seed, k) =>
  seededRandom((Math.imul(seed ^ 0x2545f491, 0x9e3779b1) + Math.imul(k + 1, 0x85ebca6b)) >>> 0);

/** Cosine similarity of two equally long vectors (0 when one is all zeros). */
export function cosine(a, b) {
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/**
 * Layer 1's attention output at row `row`: for every head, Σ_j weights[h][row][j] · v[h][j],
 * the heads side by side (the vector the seed calls the context vector, before W_O).
 * @param {{weights: number[][][], v: number[][][]}} layer  (H, T, T) and (H, T, hd)
 */
export function attentionOutputAt(layer, row) {
  const out = [];
  layer.weights.forEach((w, hh) => {
    const v = layer.v[hh];
    for (let d = 0; d < v[0].length; d++) {
      let sum = 0;
      for (let j = 0; j < v.length; j++) sum += w[row][j] * v[j][d];
      out.push(sum);
    }
  });
  return out;
}

/**
 * @param {object} engine  a loaded engine (web/engine/engine.js)
 * @param {{task: object, settings: {layers, heads, width, mlp, layerNorm, lr, batch, seed}}} spec
 * @param {Uint8Array} [checkpoint]  safetensors bytes to start from instead of a fresh model
 *   (engine.loadModel; its vocabulary size and context must fit the task's)
 */
export function createSession(engine, { task: taskSpec, settings }, checkpoint = null) {
  const task = taskFor(taskSpec);
  const problems = checkSettings(settings);
  if (problems.length) throw new RangeError(problems.join('; '));
  const { model, loaded, seed003 } = startModel(engine, task, taskSpec, settings, checkpoint);
  // The held-out examples: 128 sequences, or fewer of a long context (≤ 2048 tokens in all), so
  // that an evaluation — every ~1/60 of a run — stays a small share of the training time.
  const held = heldOut(task, settings.seed, Math.max(16, Math.min(128, Math.floor(2048 / task.context))));
  const example = {
    tokens: Array.from(held.tokens.subarray(0, task.context)),
    targets: Array.from(held.targets.subarray(0, task.context)),
  };
  const bankIds = task.id === 'bank' ? bankProbeTokens(task) : null;

  const attentionOf = (tokens) =>
    model.attention(tokens).map((layer) => ({
      weights: layer.get('weights'),
      scores: layer.get('scores'),
      q: layer.get('q'),
      k: layer.get('k'),
      v: layer.get('v'),
    }));

  return {
    task,
    model,
    settings: { ...settings },
    /** Trains up to `count` steps, stopping early once `budgetMs` have passed (when given);
     * returns the loss of each. Throws (keeping the last good weights) on divergence. */
    train(count, budgetMs = Infinity, now = () => performance.now()) {
      const out = [];
      const t0 = now();
      for (let n = 0; n < count; n++) {
        const k = model.steps;
        const batch = taskBatch(task, stepRandom(settings.seed, k), settings.batch);
        const r = model.step(batch, { lr: settings.lr });
        out.push({ step: r.step, loss: r.loss });
        if (now() - t0 >= budgetMs) break;
      }
      return out;
    },
    /** Loss and accuracy on the held-out examples (never trained on). */
    evaluate() {
      const r = model.evaluate(held);
      return { step: model.steps, loss: r.loss, accuracy: accuracy(r.predictions, held.targets) };
    },
    /** An example to look at: the first held-out sequence (its tokens and targets). */
    example() {
      return { tokens: example.tokens.slice(), targets: example.targets.slice() };
    },
    /** Every layer's attention over `tokens`: [{weights (H,T,T), q, k, v, scores}] as nested arrays. */
    attention: attentionOf,
    /**
     * The bank task's probe (null for other tasks): the two probe sentences (corpus.js
     * BANK_CONTEXTS, read up to "bank") through the model; for each, layer 1's attention from
     * "bank" to the word that decides its sense, per head, beside chance (1/(i + 1) for "bank" at
     * position i: an even spread over the tokens it can see), and the cosine similarity of the two
     * "bank" outputs. `corpus`: the same attention averaged over every training sentence with a
     * deciding word before "bank", beside the average chance (null when none has one).
     */
    bank() {
      if (!bankIds) return null;
      const out = {};
      for (const [name, ids] of Object.entries(bankIds.contexts)) {
        const layer = attentionOf(ids.tokens)[0];
        out[name] = {
          tokens: ids.tokens,
          bank: ids.bank,
          decider: ids.decider,
          chance: 1 / (ids.bank + 1),
          onContext: layer.weights.map((w) => w[ids.bank][ids.decider]),
          output: attentionOutputAt(layer, ids.bank),
        };
      }
      return {
        contexts: out,
        corpus: corpusAttention(model, bankIds.corpus),
        cosine: cosine(out.river.output, out.finance.output),
        // When started from the notebook: head 1's W_query, W_key, W_value block, the notebook's and now.
        seedWeights: seed003
          ? {
              start: { wq: seed003.W_query, wk: seed003.W_key, wv: seed003.W_value },
              now: seedBlocks(model.params(), seed003),
            }
          : null,
      };
    },
    /** What the reader should know about an imported checkpoint (null when nothing). */
    loadNote: loaded?.note ?? null,
    /** One report for the views: held-out loss and accuracy, the example's attention, the bank
     * probe (and the import's note, if any). */
    report() {
      return {
        ...this.evaluate(),
        example: this.example(),
        attention: attentionOf(example.tokens),
        bank: this.bank(),
        loadNote: this.loadNote,
      };
    },
    generate(prompt, count, options) {
      return model.generate(prompt, count, options);
    },
    /** The model as a safetensors file (nanoGPT's names, its config in the metadata). */
    checkpoint() {
      return model.toSafetensors();
    },
    get steps() {
      return model.steps;
    },
    dispose() {
      model.dispose();
    },
  };
}

/**
 * The session's model: from the checkpoint, else fresh from the settings — for the bank task
 * optionally from seed 003's hand-set weights (lib/learn/seed-start.js).
 * @returns {{model, loaded: {model, note}|null, seed003: object|null}}  seed003: engine.examples() when started from it
 */
function startModel(engine, task, taskSpec, settings, checkpoint) {
  const loaded = checkpoint ? loadCheckpoint(engine, checkpoint, task, settings) : null;
  const model = loaded
    ? loaded.model
    : engine.createModel({
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
  // The bank model can start from seed 003's hand-set weights (lib/learn/seed-start.js).
  const seed003 = task.id === 'bank' && taskSpec.fromSeed && !checkpoint ? engine.examples() : null;
  if (seed003) {
    const problem = seedStartProblem(settings, seed003);
    if (problem) {
      model.dispose();
      throw new RangeError(`fromSeed: ${problem}; choose a larger width or fewer heads, or start at random`);
    }
    model.setParams(seedStartParams(model.params(), seed003, task.vocab));
  }
  return { model, loaded, seed003 };
}

/**
 * The bank probe's token ids: each probe sentence with where "bank" and its deciding word are,
 * and every training sentence that has a deciding word before "bank", cut after "bank".
 */
function bankProbeTokens(task) {
  const contexts = {};
  for (const [name, ws] of Object.entries(BANK_CONTEXTS)) {
    const tokens = ws.map((w) => task.vocab.indexOf(w));
    if (tokens.some((t) => t < 0)) return null;
    contexts[name] = { tokens, bank: ws.indexOf('bank'), decider: ws.indexOf(BANK_DECIDERS[name]) };
  }
  const corpus = [];
  for (const sentence of task.sentences) {
    const ws = words(sentence);
    const at = bankDecider(ws);
    if (at) corpus.push({ tokens: ws.slice(0, at.bank + 1).map((w) => task.vocab.indexOf(w)), ...at });
  }
  return { contexts, corpus };
}

/**
 * Layer 1's attention from "bank" to its deciding word, per head, averaged over `sentences`
 * (bankProbeTokens' corpus), and the average chance 1/(i + 1); null for no sentences.
 * @returns {{onContext: number[], chance: number, sentences: number}|null}
 */
function corpusAttention(model, sentences) {
  if (!sentences.length) return null;
  let sums = null;
  let chance = 0;
  for (const { tokens, bank, decider } of sentences) {
    const weights = model.attention(tokens)[0].get('weights');
    sums ||= weights.map(() => 0);
    weights.forEach((w, hh) => (sums[hh] += w[bank][decider]));
    chance += 1 / (bank + 1);
  }
  return {
    onContext: sums.map((x) => x / sentences.length),
    chance: chance / sentences.length,
    sentences: sentences.length,
  };
}

/**
 * A model from a checkpoint for `task`: its vocabulary and context must fit the task's. A file
 * without our metadata (PyTorch's own save_file) tells its config by its tensors, all but the head
 * count: then the Heads setting is used, and the note says so.
 * @returns {{model, note: string|null}}
 */
function loadCheckpoint(engine, bytes, task, settings) {
  let model,
    note = null;
  try {
    model = engine.loadModel(bytes);
  } catch (err) {
    if (err.argument !== 'heads') throw err;
    model = engine.loadModel(bytes, { heads: settings.heads });
    note =
      `The file does not record how many heads its model has (its tensors cannot tell); it was read with ` +
      `${settings.heads} as the Heads setting says. If the pictures look wrong, set Heads to the model's and import it again.`;
  }
  const c = model.config;
  const why =
    c.vocabSize !== task.vocab.length
      ? `it has a vocabulary of ${c.vocabSize} tokens; this task has ${task.vocab.length}`
      : c.contextLength < task.context
        ? `its context is ${c.contextLength} tokens; this task needs ${task.context}`
        : null;
  if (why) {
    model.dispose();
    throw new RangeError(`checkpoint: ${why}`);
  }
  return { model, note };
}

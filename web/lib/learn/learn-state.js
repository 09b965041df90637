// The Learn section's part of the explorer state (state.learn): which task, the model and training
// settings, the seed and how many steps were trained — everything a shared link needs to retrain
// to the same weights (for the bank task, also whether it starts from notebook 3's weights) — plus
// the reader's own corpus when it is small enough for a URL, the pace it is watched at (speed:
// 'watch', the default, 'fast' or steps per second), and for an embedded figure the run's length
// (until) and whether it trains on sight (autoplay). Pure;
// sanitizeLearn checks an untrusted value (from a link or the element's attributes) the way
// lib/share.js checks the rest. Unit-tested in tests/js/lib/learn/learn-state.test.mjs.
import { LEARN_LIMITS } from '../limits.js';
import { describe } from '../text.js';
import { TASK_SETTINGS } from './settings.js';

export const LEARN_TASKS = Object.freeze(Object.keys(TASK_SETTINGS));
// The corpus travels in the link only up to these sizes; longer ones stay on this page.
export const LINK_TEXT_CHARS = 2000;
export const LINK_SENTENCES = 40;

export const SPEED_MAX = 1000; // the largest pace a link or the speed attribute may ask for

/** Why `value` cannot be a pace choice, or null: 'watch', 'fast', or steps per second in (0, SPEED_MAX]. */
export function speedProblem(value) {
  if (value === 'watch' || value === 'fast') return null;
  if (typeof value === 'number' && value > 0 && value <= SPEED_MAX) return null;
  return `expected "watch", "fast" or a number of steps per second in (0, ${SPEED_MAX}]`;
}

const SETTING_KEYS = ['layers', 'heads', 'width', 'mlp', 'layerNorm', 'lr', 'batch', 'seed'];

/** The defaults of a task: its own model and training settings, seed 0, nothing trained. */
export function defaultLearn(taskId = 'reverse') {
  const task = TASK_SETTINGS[taskId];
  if (!task) throw new RangeError(`task: unknown task "${taskId}"; expected one of ${LEARN_TASKS.join(', ')}`);
  const { bias, ...model } = task.model; // every model here has biases
  const out = { task: taskId, ...model, lr: task.train.lr, batch: task.train.batch, seed: 0, steps: 0 };
  if (taskId === 'text') out.context = task.context;
  if (taskId === 'bank') out.fromSeed = false; // start from notebook 3's weights (lib/learn/seed-start.js)
  return out;
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

/** The session spec of a learn state ({task: {id, sentences|text, context}, settings}). */
export function sessionSpec(learn) {
  const task = { id: learn.task };
  if (learn.task === 'bank' && learn.sentences) task.sentences = learn.sentences;
  if (learn.task === 'bank' && learn.fromSeed) task.fromSeed = true;
  if (learn.task === 'text') {
    if (learn.text) task.text = learn.text;
    task.context = learn.context;
  }
  const settings = {};
  for (const k of SETTING_KEYS) settings[k] = learn[k];
  return { task, settings };
}

/** What a link may carry of a learn state: the corpus only when small. */
export function linkLearn(learn) {
  if (!learn) return learn;
  const out = { ...learn };
  if (out.text && out.text.length > LINK_TEXT_CHARS) delete out.text;
  if (out.sentences && out.sentences.length > LINK_SENTENCES) delete out.sentences;
  return out;
}

const SENTENCE = /^[a-z' ]+$/;

/**
 * @param {unknown} untrusted  state.learn from a link or the element (null: no Learn state)
 * @returns {{learn: object|null, problems: string[]}}  every problem names the field
 */
export function sanitizeLearn(untrusted) {
  const problems = [];
  if (untrusted === null || untrusted === undefined) return { learn: null, problems };
  if (typeof untrusted !== 'object' || Array.isArray(untrusted)) {
    return { learn: null, problems: [`learn: expected an object, got ${describe(untrusted)}`] };
  }
  const taskId = untrusted.task ?? 'reverse';
  if (!LEARN_TASKS.includes(taskId)) {
    return {
      learn: null,
      problems: [`learn.task: expected one of ${LEARN_TASKS.join(', ')}, got ${describe(untrusted.task)}`],
    };
  }
  const learn = defaultLearn(taskId);
  const candidate = { ...learn };
  for (const k of SETTING_KEYS) if (k in untrusted) candidate[k] = untrusted[k];
  for (const k of ['mlp', 'layerNorm']) {
    if (typeof candidate[k] !== 'boolean') {
      problems.push(`learn.${k}: expected true or false, got ${describe(candidate[k])}`);
      candidate[k] = learn[k];
    }
  }
  const bad = checkSettings(candidate);
  if (bad.length) problems.push(...bad.map((p) => `learn.${p}`));
  else Object.assign(learn, candidate);

  if ('steps' in untrusted) {
    const s = untrusted.steps;
    if (Number.isInteger(s) && s >= 0 && s <= LEARN_LIMITS.steps) learn.steps = s;
    else problems.push(`learn.steps: expected a whole number in [0, ${LEARN_LIMITS.steps}], got ${describe(s)}`);
  }
  if ('until' in untrusted) {
    const u = untrusted.until;
    if (Number.isInteger(u) && u >= 1 && u <= LEARN_LIMITS.steps) learn.until = u;
    else problems.push(`learn.until: expected a whole number in [1, ${LEARN_LIMITS.steps}], got ${describe(u)}`);
  }
  if ('speed' in untrusted) {
    // The pace (lib/learn/view.js paceOf): when steps are taken, never which; absent = 'watch'.
    const problem = speedProblem(untrusted.speed);
    if (problem) problems.push(`learn.speed: ${problem}, got ${describe(untrusted.speed)}`);
    else learn.speed = untrusted.speed;
  }
  if ('autoplay' in untrusted) {
    if (typeof untrusted.autoplay === 'boolean') learn.autoplay = untrusted.autoplay;
    else problems.push(`learn.autoplay: expected true or false, got ${describe(untrusted.autoplay)}`);
  }
  if (taskId === 'text') {
    if ('context' in untrusted) {
      const c = untrusted.context;
      if (Number.isInteger(c) && c >= 4 && c <= LEARN_LIMITS.context) learn.context = c;
      else problems.push(`learn.context: expected a whole number in [4, ${LEARN_LIMITS.context}], got ${describe(c)}`);
    }
    if ('text' in untrusted) {
      const t = untrusted.text;
      if (typeof t !== 'string' || t.length > LEARN_LIMITS.textChars) {
        problems.push(
          `learn.text: expected a text of at most ${LEARN_LIMITS.textChars} characters, got ${describe(t)}`,
        );
      } else if (t.length < learn.context + 2) {
        problems.push(
          `learn.text: the text has ${t.length} characters; the context of ${learn.context} needs ${learn.context + 2}`,
        );
      } else learn.text = t;
    }
  }
  if (taskId === 'bank' && 'fromSeed' in untrusted) {
    if (typeof untrusted.fromSeed === 'boolean') learn.fromSeed = untrusted.fromSeed;
    else problems.push(`learn.fromSeed: expected true or false, got ${describe(untrusted.fromSeed)}`);
  }
  if (taskId === 'bank' && 'sentences' in untrusted) {
    const problem = checkSentences(untrusted.sentences);
    if (problem) problems.push(`learn.sentences: ${problem}`);
    else learn.sentences = untrusted.sentences.map((s) => s.trim().toLowerCase());
  }
  return { learn, problems };
}

/** Why a list of sentences cannot be the bank corpus, or null when it can. */
export function checkSentences(sentences) {
  if (!Array.isArray(sentences) || sentences.length < 2 || sentences.length > LEARN_LIMITS.sentences) {
    return `expected a list of 2 to ${LEARN_LIMITS.sentences} sentences, got ${describe(sentences)}`;
  }
  for (const [n, s] of sentences.entries()) {
    if (typeof s !== 'string' || !SENTENCE.test(s.trim().toLowerCase())) {
      return `sentence ${n + 1} (${describe(s)}): use lower-case letters, apostrophes and spaces only`;
    }
    const count = s.trim().split(/\s+/).length;
    if (count > LEARN_LIMITS.sentenceWords) {
      return `sentence ${n + 1} has ${count} words; at most ${LEARN_LIMITS.sentenceWords}`;
    }
  }
  const all = sentences.join(' ').toLowerCase().split(/\s+/);
  for (const w of ['bank']) if (!all.includes(w)) return `no sentence uses the word "${w}"`;
  return null;
}

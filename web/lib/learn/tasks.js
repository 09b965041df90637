// The Learn section's tasks: each has a vocabulary, a seeded generator of examples, the attention
// pattern a model that solves it must form (one sentence), the model and training settings that
// learn it in seconds, and an accuracy measure. Pure; unit-tested in tests/js/lib/learn/tasks.test.mjs.
//
// An example is {tokens, targets}: two equally long arrays of token ids. The model reads tokens
// and is scored only where targets ≥ 0 (−1 = ignored, as nanoGPT's ignore_index), so a task
// scores just the positions whose answer is determined by what came before.
import { seededRandom } from './random.js';
import { BANK_CONTEXTS, BANK_SENTENCES, SAMPLE_TEXT, charVocab, wordVocab, words } from './corpus.js';
import { TASK_SETTINGS } from './settings.js';

const letters = (n) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));
const digits = Array.from({ length: 10 }, (_, i) => String(i));

/**
 * @typedef {{id: string, title: string, pattern: string, vocab: string[], context: number,
 *   model: object, train: object, goal: number, watch: {stepsPerSecond: number},
 *   example: (rng) => {tokens: number[], targets: number[]}}} Task
 * context, model, train and watch: settings.js.
 */

/** Copy the previous token: the answer at position t is the token at t − 1. */
const copy = {
  id: 'copy',
  ...TASK_SETTINGS.copy,
  title: 'Copy the previous token',
  pattern: 'Each position attends to the one just before it: one diagonal below the main one.',
  vocab: letters(10),
  goal: 0.98,
  example(rng) {
    const tokens = Array.from({ length: this.context }, () => rng.int(this.vocab.length));
    return { tokens, targets: tokens.map((_, t) => (t === 0 ? -1 : tokens[t - 1])) };
  },
};

/** Reverse: n digits, a bar, then the same digits backwards. */
const reverse = {
  id: 'reverse',
  ...TASK_SETTINGS.reverse,
  title: 'Reverse a sequence',
  pattern: 'After the bar, each position looks back at the digit mirrored about the bar: an anti-diagonal.',
  vocab: [...digits, '|'],
  n: 5,
  goal: 0.98,
  example(rng) {
    const x = Array.from({ length: this.n }, () => rng.int(10));
    const seq = [...x, 10, ...x.slice().reverse()];
    return nextTokens(seq, this.n);
  },
};

/** Sort: n digits, a bar, then the digits in increasing order. */
const sort = {
  id: 'sort',
  ...TASK_SETTINGS.sort,
  title: 'Sort digits',
  pattern:
    'Each answer position looks for the smallest digit it has not written yet: its attention jumps to where that digit sits in the input.',
  vocab: [...digits, '|'],
  n: 5,
  goal: 0.95,
  example(rng) {
    const x = Array.from({ length: this.n }, () => rng.int(10));
    const seq = [...x, 10, ...x.slice().sort((a, b) => a - b)];
    return nextTokens(seq, this.n);
  },
};

/**
 * Repeat a random sequence: m distinct letters (m varies, so no fixed offset works), then the
 * same m again, then padding. Predicting the second copy needs an induction circuit over two
 * layers: a first-layer head that looks at the previous token, and a second-layer head that finds
 * the earlier occurrence of the current token and copies what followed it.
 */
const repeat = {
  id: 'repeat',
  ...TASK_SETTINGS.repeat,
  title: 'Repeat a random sequence (induction)',
  pattern:
    'In layer 2, each token of the second copy looks at the token that followed its earlier occurrence (a diagonal offset by the length of the sequence); layer 1 prepares that by looking one token back.',
  vocab: [...letters(16), '.'],
  minLength: 4,
  maxLength: 8,
  goal: 0.95,
  example(rng) {
    const m = this.minLength + rng.int(this.maxLength - this.minLength + 1);
    const r = rng.shuffle(Array.from({ length: 16 }, (_, i) => i)).slice(0, m);
    const pad = 16;
    const seq = [...r, ...r];
    while (seq.length < this.context + 1) seq.push(pad);
    const tokens = seq.slice(0, this.context);
    // Scored: positions m … 2m − 2 (tokens of the second copy whose next token is known).
    const targets = tokens.map((_, p) => (p >= m && p <= 2 * m - 2 ? seq[p + 1] : -1));
    return { tokens, targets };
  },
};

/** tokens = seq[0..n−1], targets = seq[1..n] where position ≥ `from` (the answer part), else −1. */
function nextTokens(seq, from) {
  const tokens = seq.slice(0, -1);
  return { tokens, targets: tokens.map((_, p) => (p >= from ? seq[p + 1] : -1)) };
}

/** The bank sentences' and the character model's settings (the built-in tasks carry their own). */
/** The bank sentences' and the character model's settings (the built-in tasks carry their own). */
export const SENTENCE_DEFAULTS = TASK_SETTINGS.bank;
export const TEXT_DEFAULTS = TASK_SETTINGS.text;

/**
 * Next-word prediction over short sentences (word-level), e.g. the bank corpus: an example is one
 * sentence padded with '.' to the context; every word after the first is scored.
 */
export function sentenceTask(
  sentences = BANK_SENTENCES,
  { context = SENTENCE_DEFAULTS.context, id = 'bank', title = 'Bank, learned' } = {},
) {
  // Notebook 3's five words (a model can start from its weights) and the probe's words are always
  // in the vocabulary, whatever the reader's sentences.
  const vocab = wordVocab(sentences, [
    'stream',
    'bank',
    'mud',
    'money',
    'loan',
    ...Object.values(BANK_CONTEXTS).flat(),
  ]);
  const encoded = sentences.map((s) => words(s).map((w) => vocab.indexOf(w)));
  const longest = Math.max(...encoded.map((e) => e.length));
  if (longest > context + 1) throw new RangeError(`a sentence has ${longest - 1} words; the context holds ${context}`);
  return {
    id,
    title,
    pattern:
      '“bank” should look back at the word that tells which bank is meant (stream, mud, river, water — or money, loan, cash, debt): the model reads left to right, so only words before “bank” can decide, and the word after it (flooded or lent, crumbled or closed) depends on them.',
    vocab,
    context,
    sentences: sentences.slice(),
    model: SENTENCE_DEFAULTS.model,
    train: SENTENCE_DEFAULTS.train,
    goal: null, // no accuracy goal: next words are not all predictable
    watch: SENTENCE_DEFAULTS.watch,
    example(rng) {
      const e = encoded[rng.int(encoded.length)];
      const seq = e.slice();
      while (seq.length < context + 1) seq.push(0);
      const tokens = seq.slice(0, context);
      return { tokens, targets: tokens.map((_, p) => (p + 1 < e.length ? seq[p + 1] : -1)) };
    },
  };
}

/** Character-level next-character prediction over `text`: random windows of the context. */
export function textTask(
  text = SAMPLE_TEXT,
  { context = TEXT_DEFAULTS.context, id = 'text', title = 'Your own text' } = {},
) {
  const vocab = charVocab(text);
  const ids = Array.from(text, (c) => vocab.indexOf(c));
  if (ids.length < context + 2)
    throw new RangeError(`the text has ${ids.length} characters; it needs at least ${context + 2}`);
  return {
    id,
    title,
    pattern:
      'Heads learn to look at the characters that predict the next one: the previous letters of the word, the space before it.',
    vocab,
    context,
    model: TEXT_DEFAULTS.model,
    train: TEXT_DEFAULTS.train,
    goal: null,
    watch: TEXT_DEFAULTS.watch,
    example(rng) {
      const start = rng.int(ids.length - context - 1);
      return { tokens: ids.slice(start, start + context), targets: ids.slice(start + 1, start + context + 1) };
    },
  };
}

export const TASKS = Object.freeze({ copy, reverse, sort, repeat });

// When the bank and text tasks' patterns count as formed: a head that puts this much of "bank"'s
// attention on its deciding word, over the training sentences (chance is about 0.15); a held-out
// loss this low on the character model (its samples then read as words of the text).
export const BANK_FORMED = 0.8;
export const TEXT_FORMED = 1;

/**
 * Whether a session's report (lib/learn/session.js report()) shows the task's pattern formed: the
 * accuracy goal reached, for the tasks that have one; for the bank task, a head of layer 1 that
 * looks from "bank" at its deciding word (BANK_FORMED, over the corpus); for the text task, its
 * held-out loss at TEXT_FORMED or below. The Learn section watches at the task's pace until then.
 */
export function patternFormed(task, report) {
  if (!task || !report) return false;
  if (task.goal) return report.accuracy >= task.goal;
  if (task.id === 'bank')
    return Boolean(report.bank?.corpus) && Math.max(...report.bank.corpus.onContext) >= BANK_FORMED;
  return report.loss <= TEXT_FORMED;
}

/**
 * A batch of `size` examples: {tokens, targets} as Int32Arrays of (size × T), row-major.
 * @param {Task} task
 * @param {{next(): number, int(n): number, shuffle(a): any[]}} rng
 */
export function taskBatch(task, rng, size) {
  const T = task.context;
  const tokens = new Int32Array(size * T);
  const targets = new Int32Array(size * T);
  for (let b = 0; b < size; b++) {
    const ex = task.example(rng);
    tokens.set(ex.tokens, b * T);
    targets.set(ex.targets, b * T);
  }
  return { tokens, targets, batch: size, context: T };
}

/** Fraction of scored positions (targets ≥ 0) whose prediction equals the target. */
export function accuracy(predictions, targets) {
  let right = 0;
  let scored = 0;
  for (let i = 0; i < targets.length; i++) {
    if (targets[i] < 0) continue;
    scored += 1;
    if (predictions[i] === targets[i]) right += 1;
  }
  return scored ? right / scored : 0;
}

/** A fixed held-out set for a task: `size` examples from their own seed, never trained on. */
export function heldOut(task, seed, size = 128) {
  return taskBatch(task, seededRandom((seed ^ 0x5bd1e995) >>> 0), size);
}

/** The ids of `text`'s tokens in `vocab` (space-separated words, or characters). */
export function encode(vocab, tokens) {
  return tokens.map((t) => {
    const id = vocab.indexOf(t);
    if (id < 0) throw new RangeError(`"${t}" is not in the vocabulary`);
    return id;
  });
}

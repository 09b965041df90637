// The explorer's state: its default (seed 003's bank example, from engine.examples(), with W_Q and
// W_K set by hand so that "bank" looks for the word that says which bank it is), the bounds the
// UI enforces, and pure transitions used by the editing views. Every transition returns {state}
// or {error} (a message for a visible notice); none mutates its input.

import { LIMITS } from './limits.js';
import { parseNumber } from './format.js';

export { LIMITS };

export const STEPS = ['x', 'qkv', 'scores', 'scaled', 'masked', 'weights', 'output'];
export const VIEWS = [
  'contexts',
  'notebook',
  'controls',
  'edit',
  'naive',
  'lines',
  'plane',
  ...STEPS,
  'heads',
  'loops',
  'formula',
  'averaging',
  'scaling',
  'order',
  'learn',
  'model',
  'gpt',
  'next',
];
export const KERNELS = ['reference', 'vectorized', 'simd'];

const copy = (m) => m.map((row) => row.slice());
// The engine hands out float32 values widened to doubles (1.2000000476837158); keep the seed's
// short decimals instead (they round to the same float32).
const short = (v) => Number(Math.fround(v).toPrecision(7));
const shortMatrix = (m) => m.map((row) => Array.from(row, short));

/**
 * The page's default W_Q and W_K, set by hand for the seed's 4-wide vocabulary (d0 and d1 say
 * river or money, d2 is a feature only "bank" has, d3 is large for the words around "bank" —
 * stream 0.3, mud 0.9, money 0.1, loan 0.6 — and 0 for bank itself): W_Q turns d2 into a query
 * and W_K turns d3 into a key, so bank's query meets the largest key in the word that says which
 * bank it is (0.86 of its attention on "mud", 0.77 on "loan"). Two columns each, like the
 * notebook's, so the plane draws them as they are. lib/presets.js offers them as a preset.
 */
export const CONTEXT_SEEKING_QK = Object.freeze({
  wq: Object.freeze(
    [
      [0, 0],
      [0, 0],
      [5, 0],
      [0, 0],
    ].map(Object.freeze),
  ),
  wk: Object.freeze(
    [
      [0, 0],
      [0, 0],
      [0, 0],
      [5, 0],
    ].map(Object.freeze),
  ),
});

/** The state format: 2 since the default W_Q and W_K became CONTEXT_SEEKING_QK (lib/share.js reads 1 too). */
export const STATE_VERSION = 2;

/**
 * The notebook's example as seed 003 prints it, from engine.examples(): its embeddings, its two
 * sentences and its hand-set W_query, W_key, W_value and W (the "bank" query spreads its
 * attention almost evenly with these).
 */
export function notebookState(examples) {
  const vocab = {};
  for (const [word, vec] of Object.entries(examples.vocabulary)) vocab[word] = Array.from(vec, short);
  return {
    v: STATE_VERSION,
    example: 'both',
    vocab,
    contexts: { river: examples.contexts.river.slice(), finance: examples.contexts.finance.slice() },
    weights: {
      wq: shortMatrix(examples.W_query),
      wk: shortMatrix(examples.W_key),
      wv: shortMatrix(examples.W_value),
      w: shortMatrix(examples.W),
    },
    options: {
      projections: true,
      scale: true,
      causal: false,
      temperature: 1,
      dropout: 0,
      seed: 0,
      training: false,
      heads: 1,
      head: 0,
      kernel: 'simd',
    },
    focus: 'river',
    notebook: '001',
    view: ['all'],
    step: 0,
    selected: null,
    theme: 'auto',
    learn: null, // the Learn section's run (lib/learn/learn-state.js); null until the reader changes it
    gpt: null, // the real-model section's sentence and options (lib/real/gpt-state.js); null: its defaults
  };
}

/**
 * The page's default: the notebook's example with W_Q and W_K set to look for the context word
 * (CONTEXT_SEEKING_QK) where its vectors are the seed's 4 numbers wide; W_V and W stay the
 * notebook's.
 */
export function defaultState(examples) {
  const state = notebookState(examples);
  if (dims(state).D !== CONTEXT_SEEKING_QK.wq.length) return state;
  return { ...state, weights: { ...state.weights, wq: copy(CONTEXT_SEEKING_QK.wq), wk: copy(CONTEXT_SEEKING_QK.wk) } };
}

export const dims = (state) => ({
  D: Object.values(state.vocab)[0]?.length ?? state.weights.wq.length,
  dk: state.weights.wq[0]?.length ?? 0,
  dv: state.weights.wv[0]?.length ?? 0,
});

/** Numbers of heads that divide both dk and dv. */
export function validHeads(state) {
  // Without projections Q = K = V = X, so the head size divides D.
  const { D, dk: dq, dv: dval } = dims(state);
  const [dk, dv] = state.options.projections ? [dq, dval] : [D, D];
  const out = [];
  for (let h = 1; h <= Math.min(dk, dv, LIMITS.heads); h++) if (dk % h === 0 && dv % h === 0) out.push(h);
  return out;
}

function checkValue(v) {
  if (!Number.isFinite(v)) return `value must be a finite number, got ${v}`;
  if (Math.abs(v) > LIMITS.absValue) return `value must be within ±${LIMITS.absValue}, got ${v}`;
  return null;
}

/**
 * Sets one number. target: {matrix: 'wq'|'wk'|'wv'|'w'} or {word}.
 */
export function setValue(state, target, row, col, value) {
  const err = checkValue(value);
  if (err) return { error: err };
  if (target.word !== undefined) {
    const vec = state.vocab[target.word];
    if (!vec || col < 0 || col >= vec.length) return { error: `no embedding cell ${target.word}[${col}]` };
    const next = vec.slice();
    next[col] = value;
    return { state: { ...state, vocab: { ...state.vocab, [target.word]: next } } };
  }
  const m = state.weights[target.matrix];
  if (!m || !m[row] || col < 0 || col >= m[row].length) return { error: `no cell ${target.matrix}[${row}][${col}]` };
  const next = copy(m);
  next[row][col] = value;
  return { state: { ...state, weights: { ...state.weights, [target.matrix]: next } } };
}

export function addToken(state, context, word, index = Infinity) {
  const tokens = state.contexts[context];
  if (!tokens) return { error: `unknown context "${context}"` };
  if (!(word in state.vocab)) return { error: `"${word}" is not in the vocabulary; add it first` };
  if (tokens.length >= LIMITS.tokens) return { error: `a context holds at most ${LIMITS.tokens} tokens` };
  const next = tokens.slice();
  next.splice(Math.min(index, next.length), 0, word);
  return { state: withContext(state, context, next) };
}

export function removeToken(state, context, index) {
  const tokens = state.contexts[context];
  if (!tokens || index < 0 || index >= tokens.length) return { error: `no token ${index} in "${context}"` };
  if (tokens.length <= 1) return { error: 'a context needs at least one token' };
  const next = tokens.slice();
  next.splice(index, 1);
  return { state: withContext(state, context, next) };
}

export function moveToken(state, context, index, delta) {
  const tokens = state.contexts[context];
  const to = index + delta;
  if (!tokens || index < 0 || index >= tokens.length) return { error: `no token ${index} in "${context}"` };
  if (to < 0 || to >= tokens.length) return { error: 'the token is already at that end' };
  const next = tokens.slice();
  [next[index], next[to]] = [next[to], next[index]];
  return { state: withContext(state, context, next) };
}

function withContext(state, context, tokens) {
  return { ...state, contexts: { ...state.contexts, [context]: tokens }, step: 0, selected: null };
}

export function validateWord(word, vocab) {
  if (typeof word !== 'string' || word.trim() === '') return 'the word is empty';
  if (word.length > LIMITS.wordChars) return `a word has at most ${LIMITS.wordChars} characters`;
  if (/[\u0000-\u001f]/.test(word)) return 'the word contains control characters';
  if (vocab && word in vocab) return `"${word}" is already in the vocabulary`;
  return null;
}

/** The transition back to `defaults` (the page's start), keeping the reader's theme. */
export const resetTo = (defaults) => (state) => ({ state: { ...structuredClone(defaults), theme: state.theme } });

/**
 * A new word's vector as the reader typed it: numbers separated by commas, spaces or semicolons
 * ("0.5, 0, 0, 0.5"), one per embedding dimension; nothing typed is all zeros.
 * @returns {{values: number[]} | {error: string}}  the error names the word and the number
 */
export function parseWordVector(state, word, text) {
  const { D } = dims(state);
  const err = validateWord(word, state.vocab);
  if (err) return { error: `new word: ${err}` };
  const parts = text.trim() === '' ? new Array(D).fill('0') : text.split(/[,\s;]+/).filter(Boolean);
  if (parts.length !== D)
    return {
      error: `new word “${word}”: its vector needs ${D} numbers, one per embedding dimension; got ${parts.length}`,
    };
  const values = [];
  for (const [n, p] of parts.entries()) {
    const r = parseNumber(p);
    if (r.error) return { error: `new word “${word}”, number ${n + 1}: ${r.error}` };
    values.push(r.value);
  }
  return { values };
}

export function addWord(state, word, vector) {
  word = String(word).trim();
  const err = validateWord(word, state.vocab);
  if (err) return { error: err };
  if (Object.keys(state.vocab).length >= LIMITS.words)
    return { error: `the vocabulary holds at most ${LIMITS.words} words` };
  const { D } = dims(state);
  if (!Array.isArray(vector) || vector.length !== D)
    return { error: `the vector needs ${D} numbers (one per embedding dimension), got ${vector?.length ?? 0}` };
  for (const v of vector) {
    const e = checkValue(v);
    if (e) return { error: e };
  }
  return { state: { ...state, vocab: { ...state.vocab, [word]: vector.slice() } } };
}

export function removeWord(state, word) {
  if (!(word in state.vocab)) return { error: `"${word}" is not in the vocabulary` };
  for (const [name, tokens] of Object.entries(state.contexts)) {
    if (tokens.every((t) => t === word))
      return { error: `"${word}" is all of the ${name} context; add another token there first` };
  }
  if (Object.keys(state.vocab).length <= 1) return { error: 'the vocabulary needs at least one word' };
  const vocab = { ...state.vocab };
  delete vocab[word];
  const contexts = {};
  for (const [name, tokens] of Object.entries(state.contexts)) contexts[name] = tokens.filter((t) => t !== word);
  return { state: { ...state, vocab, contexts, step: 0, selected: null } };
}

/**
 * Changes a width: 'D' (embedding width: a column of every vector, a row of every weight matrix),
 * 'dk' (columns of W_Q and W_K) or 'dv' (columns of W_V). New entries are 0; the heads option
 * falls back to 1 when it no longer divides dk and dv.
 */
export function resize(state, which, size) {
  if (!['D', 'dk', 'dv'].includes(which)) return { error: `resize: unknown width "${which}"` };
  if (!Number.isInteger(size) || size < 1 || size > LIMITS.width)
    return { error: `${which} must be an integer in 1..${LIMITS.width}, got ${size}` };
  const fit = (row, n) => (row.length >= n ? row.slice(0, n) : [...row, ...new Array(n - row.length).fill(0)]);
  const { weights } = state;
  let next;
  if (which === 'D') {
    const vocab = {};
    for (const [w, vec] of Object.entries(state.vocab)) vocab[w] = fit(vec, size);
    const rows = (m) => {
      const cols = m[0].length;
      return fit(m, size).map((r) => (r === 0 ? new Array(cols).fill(0) : r.slice()));
    };
    next = {
      ...state,
      vocab,
      weights: { wq: rows(weights.wq), wk: rows(weights.wk), wv: rows(weights.wv), w: rows(weights.w) },
    };
  } else if (which === 'dk') {
    next = {
      ...state,
      weights: { ...weights, wq: weights.wq.map((r) => fit(r, size)), wk: weights.wk.map((r) => fit(r, size)) },
    };
  } else {
    next = { ...state, weights: { ...weights, wv: weights.wv.map((r) => fit(r, size)) } };
  }
  const heads = validHeads(next);
  if (!heads.includes(next.options.heads)) next = { ...next, options: { ...next.options, heads: 1, head: 0 } };
  return { state: { ...next, step: 0, selected: null } };
}

/**
 * The words shared by every context (the "bank" of the seed), highlighted throughout. A single
 * context shares nothing with another, so nothing is highlighted there.
 */
export function sharedWords(state) {
  const lists = Object.values(state.contexts);
  if (lists.length < 2) return [];
  return [...new Set(lists[0])].filter((w) => lists.every((l) => l.includes(w)));
}

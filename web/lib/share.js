// The URL-hash serialisation of the explorer state, and the gate every untrusted state passes.
//
// Hash format: "2" + base64url(UTF-8 JSON of the fields that differ from the defaults). The
// leading digit is the format version, and says which defaults the link was written against:
// "2…" the page's (W_Q and W_K that look for the context word, lib/state.js CONTEXT_SEEKING_QK),
// "1…" (links made before 0.4.0) the notebook's hand-set W_query and W_key (V1_WEIGHTS below),
// so an old link keeps opening exactly what it showed. Because sanitizeState() fills every
// missing field from the defaults, a link to the default state is just "2e30" and an edited one
// carries only its edits. decodeState() also accepts a plain (optionally percent-encoded) JSON
// object, so a blogger can write `embed.html#{"example":"river","view":["weights"]}` by hand; a
// JSON state says its format in `v` (none: the current one).
//
// Nothing here touches the DOM: problems are returned as strings for the caller to show as text.
import { VIEWS as STATE_VIEWS, KERNELS as STATE_KERNELS, STATE_VERSION } from './state.js';

export const FORMAT_VERSION = String(STATE_VERSION);
// The formats a link or a JSON state may say it is in.
const FORMATS = Object.freeze([1, STATE_VERSION]);

/**
 * The W_Q and W_K that format 1's defaults had (seed 003's hand-set W_query and W_key, the page's
 * default until 0.4.0): frozen with the format, so a "1…" link decodes the same whatever the
 * page's defaults become. tests/js/lib/share.test.mjs checks them against engine.examples().
 */
export const V1_WEIGHTS = Object.freeze({
  wq: [
    [1, 0],
    [0, 1],
    [0.2, 0.2],
    [0, 0],
  ],
  wk: [
    [1, 0],
    [0, 1],
    [0, 0],
    [0.1, 0.1],
  ],
});

/**
 * The defaults a state of format `v` was written against: format 1's had V1_WEIGHTS for W_Q and
 * W_K where the vocabulary is the seed's 4 numbers wide; the current format's are `defaults`.
 */
export function defaultsOfFormat(v, defaults) {
  const width = Object.values(defaults.vocab)[0]?.length ?? 0;
  if (v !== 1 || width !== V1_WEIGHTS.wq.length) return defaults;
  return { ...defaults, weights: { ...defaults.weights, wq: V1_WEIGHTS.wq, wk: V1_WEIGHTS.wk } };
}

import { LIMITS } from './limits.js';
import { clip, describe } from './text.js';
import { sanitizeLearn, linkLearn } from './learn/learn-state.js';
import { sanitizeGpt } from './real/gpt-state.js';

export { LIMITS };

export const EXAMPLES = Object.freeze(['river', 'finance', 'both', 'averaging']);
// The page's views and kernels (web/lib/state.js), plus 'all'.
export const VIEWS = Object.freeze(['all', ...STATE_VIEWS]);
export const KERNELS = Object.freeze([...STATE_KERNELS]);
export const THEMES = Object.freeze(['auto', 'light', 'dark']);
const TOP_LEVEL = [
  'v',
  'example',
  'vocab',
  'contexts',
  'weights',
  'options',
  'focus',
  'view',
  'step',
  'selected',
  'theme',
  'notebook',
  'learn',
  'gpt',
];
export const NOTEBOOK_IDS = Object.freeze(['000', '001', '002', '003', '004']);
const OPTION_KEYS = [
  'projections',
  'scale',
  'causal',
  'temperature',
  'dropout',
  'seed',
  'training',
  'heads',
  'head',
  'kernel',
];

export class ShareError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ShareError';
  }
}

// ---------------------------------------------------------------------------------------------
// base64url of UTF-8 bytes, without padding. Works in browsers and Node ≥ 16 (btoa/atob).

function bytesToBase64url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function base64urlToBytes(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ShareError('hash: not base64url text');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let binary;
  try {
    binary = atob(padded);
  } catch {
    throw new ShareError('hash: not valid base64url');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Deep equality for JSON-like values (numbers compared with Object.is so -0 survives a link).

function sameJSON(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  // Key order matters for vocab/contexts (it is display order), so compare it too.
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i] || !sameJSON(a[ka[i]], b[kb[i]])) return false;
  }
  return true;
}

// The fields of `state` that differ from `defaults` (top level and inside options).
function delta(state, defaults) {
  if (!defaults) return state;
  const out = {};
  for (const key of TOP_LEVEL) {
    if (!(key in state)) continue;
    if (key === 'options' && state.options && defaults.options) {
      const opts = {};
      for (const k of OPTION_KEYS) {
        if (k in state.options && !sameJSON(state.options[k], defaults.options[k])) opts[k] = state.options[k];
      }
      if (Object.keys(opts).length) out.options = opts;
    } else if (key === 'weights' && state.weights && defaults.weights) {
      // Only the edited matrices; sanitizeState() takes the others from the defaults.
      const w = {};
      for (const k of Object.keys(state.weights)) {
        if (!sameJSON(state.weights[k], defaults.weights[k])) w[k] = state.weights[k];
      }
      if (Object.keys(w).length) out.weights = w;
    } else if (key === 'learn') {
      const learn = linkLearn(state.learn);
      if (!sameJSON(learn ?? null, defaults.learn ?? null)) out.learn = learn;
    } else if (!sameJSON(state[key], defaults[key])) {
      out[key] = state[key];
    }
  }
  // An example that names a context also focuses it when read back (sanitizeState), so a focus
  // elsewhere must be written even when it is the default one.
  const ex = state.example;
  if (typeof ex === 'string' && isPlainObject(state.contexts) && ex in state.contexts && state.focus !== ex)
    out.focus = state.focus;
  return out;
}

// state → hash text (no leading '#'). With `defaults`, only the differences are written.
// -0 is written as 0 by JSON; everything else (any finite double) round-trips exactly.
export function encodeState(state, defaults = null) {
  if (state === null || typeof state !== 'object') {
    throw new ShareError(`state: expected an object, got ${describe(state)}`);
  }
  const json = JSON.stringify(delta(state, defaults));
  return FORMAT_VERSION + bytesToBase64url(new TextEncoder().encode(json));
}

// hash text (with or without '#') → the untrusted object it holds; throws ShareError.
// An empty hash decodes to {} (= the defaults). Pass the result through sanitizeState().
export function decodeState(text) {
  if (typeof text !== 'string') throw new ShareError(`hash: expected a string, got ${describe(text)}`);
  let body = text.startsWith('#') ? text.slice(1) : text;
  if (body.length > LIMITS.hashChars) {
    throw new ShareError(`hash: ${body.length} characters, more than the limit of ${LIMITS.hashChars}`);
  }
  if (body === '') return {};
  let json;
  if (body.startsWith('{') || body.startsWith('%7B') || body.startsWith('%7b')) {
    try {
      json = decodeURIComponent(body);
    } catch {
      throw new ShareError('hash: malformed percent-encoding');
    }
  } else if (FORMATS.includes(Number(body[0]))) {
    const bytes = base64urlToBytes(body.slice(1));
    try {
      json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ShareError('hash: the decoded bytes are not UTF-8 text');
    }
  } else {
    throw new ShareError(
      `hash: unknown format "${clip(body, 12)}"; expected "${FORMATS.join('…" or "')}…" or a JSON object`,
    );
  }
  let value;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new ShareError(`hash: not valid JSON (${error.message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ShareError(`hash: expected a JSON object, got ${describe(value)}`);
  }
  // A versioned link's digit is its format (what its fields differ from), unless its JSON says.
  if (!body.startsWith('{') && !body.startsWith('%') && !Object.prototype.hasOwnProperty.call(value, 'v'))
    value.v = Number(body[0]);
  return value;
}

// ---------------------------------------------------------------------------------------------
// sanitizeState(untrusted, defaults) → {state, problems}
// Every field is checked against LIMITS; a bad field falls back to its default and adds one
// problem naming the field, what was expected and what was found. Missing fields take their
// defaults silently — those of the state's format (`v`: defaultsOfFormat). The returned state
// is in the current format and shares no objects with `untrusted`.

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

// Word / context name check: returns an error text or ''.
function badName(name, what) {
  if (typeof name !== 'string') return `${what}: expected a string, got ${describe(name)}`;
  if (name.length < 1 || name.length > LIMITS.wordChars) {
    return `${what} "${clip(name, 30)}": expected 1 to ${LIMITS.wordChars} characters, got ${name.length}`;
  }
  // __proto__ would re-parent a plain object when assigned; control characters are invisible.
  if (name === '__proto__') return `${what} "__proto__": not allowed as a name`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return `${what} "${clip(name, 30)}": contains control characters`;
  return '';
}

function badNumber(value, what) {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return `${what}: expected a finite number, got ${describe(value)}`;
  }
  if (Math.abs(value) > LIMITS.absValue) {
    return `${what}: expected |value| ≤ ${LIMITS.absValue}, got ${value}`;
  }
  return '';
}

// (rows × cols) array of arrays of bounded finite numbers, or an error text.
function checkMatrix(value, what, rows, maxCols) {
  if (!Array.isArray(value)) return { error: `${what}: expected a ${rows}×n array of arrays, got ${describe(value)}` };
  if (value.length !== rows) return { error: `${what}: expected ${rows} rows (= vector width D), got ${value.length}` };
  let cols = -1;
  for (let r = 0; r < rows; r++) {
    const row = value[r];
    if (!Array.isArray(row)) return { error: `${what}[${r}]: expected an array, got ${describe(row)}` };
    if (cols < 0) cols = row.length;
    if (row.length !== cols) return { error: `${what}: row ${r} has ${row.length} columns, row 0 has ${cols}` };
    if (cols < 1 || cols > maxCols) return { error: `${what}: expected 1 to ${maxCols} columns, got ${cols}` };
    for (let c = 0; c < cols; c++) {
      const err = badNumber(row[c], `${what}[${r}][${c}]`);
      if (err) return { error: err };
    }
  }
  return { value: value.map((row) => row.slice()), cols };
}

function checkVocab(vocab) {
  if (!isPlainObject(vocab)) return { error: `vocab: expected an object of word → vector, got ${describe(vocab)}` };
  const words = Object.keys(vocab);
  if (words.length < 1 || words.length > LIMITS.words) {
    return { error: `vocab: expected 1 to ${LIMITS.words} words, got ${words.length}` };
  }
  const out = {};
  let width = -1;
  for (const word of words) {
    const err = badName(word, 'vocab word');
    if (err) return { error: err };
    const vec = vocab[word];
    if (!Array.isArray(vec))
      return { error: `vocab["${clip(word, 30)}"]: expected an array of numbers, got ${describe(vec)}` };
    if (width < 0) width = vec.length;
    if (vec.length < 1 || vec.length > LIMITS.width) {
      return { error: `vocab["${clip(word, 30)}"]: expected 1 to ${LIMITS.width} numbers, got ${vec.length}` };
    }
    if (vec.length !== width) {
      return { error: `vocab["${clip(word, 30)}"]: expected ${width} numbers like the first word, got ${vec.length}` };
    }
    for (let i = 0; i < vec.length; i++) {
      const e = badNumber(vec[i], `vocab["${clip(word, 30)}"][${i}]`);
      if (e) return { error: e };
    }
    out[word] = vec.slice();
  }
  return { value: out, width };
}

function checkContexts(contexts, vocab) {
  if (!isPlainObject(contexts))
    return { error: `contexts: expected an object of name → token list, got ${describe(contexts)}` };
  const names = Object.keys(contexts);
  if (names.length < 1 || names.length > LIMITS.contexts) {
    return { error: `contexts: expected 1 to ${LIMITS.contexts} named contexts, got ${names.length}` };
  }
  const out = {};
  for (const name of names) {
    const err = badName(name, 'context name');
    if (err) return { error: err };
    const tokens = contexts[name];
    if (!Array.isArray(tokens) || tokens.length < 1 || tokens.length > LIMITS.tokens) {
      return { error: `contexts["${clip(name, 30)}"]: expected 1 to ${LIMITS.tokens} tokens, got ${describe(tokens)}` };
    }
    for (const token of tokens) {
      if (typeof token !== 'string' || !Object.prototype.hasOwnProperty.call(vocab, token)) {
        return { error: `contexts["${clip(name, 30)}"]: token ${describe(token)} is not in the vocabulary` };
      }
    }
    out[name] = tokens.slice();
  }
  return { value: out };
}

/** The D × D identity: a missing matrix of a vocabulary whose width is not the seed's. */
export function identityMatrix(width) {
  return Array.from({ length: width }, (_, i) => Array.from({ length: width }, (_, j) => (i === j ? 1 : 0)));
}

// A matrix left out takes the defaults' when the vocabulary has the seed's width, else the D × D
// identity (queries, keys and values equal to the embeddings, and X·W = X).
function checkWeights(weights, width, defaults) {
  if (!isPlainObject(weights))
    return { error: `weights: expected an object {wq, wk, wv, w}, got ${describe(weights)}` };
  const out = {};
  for (const key of Object.keys(weights)) {
    if (!['wq', 'wk', 'wv', 'w'].includes(key))
      return { error: `weights.${clip(key, 24)}: unknown matrix; expected wq, wk, wv or w` };
  }
  for (const key of ['wq', 'wk', 'wv', 'w']) {
    const given = key in weights ? weights[key] : (defaults?.[key] ?? identityMatrix(width));
    const m = checkMatrix(given, `weights.${key}`, width, LIMITS.width);
    if (m.error) return m;
    out[key] = m.value;
  }
  if (out.wq && out.wk && out.wq[0].length !== out.wk[0].length) {
    return {
      error: `weights.wk: expected ${out.wq[0].length} columns like weights.wq (queries and keys share dk), got ${out.wk[0].length}`,
    };
  }
  return { value: out };
}

export function sanitizeState(untrusted, currentDefaults) {
  if (!isPlainObject(currentDefaults)) throw new ShareError('defaults: expected the default state object');
  const problems = [];
  if (untrusted === undefined || untrusted === null) return { state: clone(currentDefaults), problems };
  if (!isPlainObject(untrusted)) {
    problems.push(`state: expected an object, got ${describe(untrusted)}`);
    return { state: clone(currentDefaults), problems };
  }
  const has = (key) => Object.prototype.hasOwnProperty.call(untrusted, key);
  for (const key of Object.keys(untrusted)) {
    if (!TOP_LEVEL.includes(key)) problems.push(`"${clip(key, 24)}": unknown field, ignored`);
  }
  if (has('v') && !FORMATS.includes(untrusted.v))
    problems.push(
      `v: expected format version ${FORMATS.join(' or ')}, got ${describe(untrusted.v)}; read what could be read`,
    );
  const defaults = defaultsOfFormat(untrusted.v, currentDefaults);
  const state = clone(defaults);
  const width = sanitizeNumbers(state, untrusted, has, defaults, problems);
  if (has('example')) sanitizeExample(state, untrusted.example, !has('focus'), problems);
  if (has('options')) sanitizeOptions(state.options, untrusted.options, problems);
  const headGiven = has('options') && isPlainObject(untrusted.options) && 'head' in untrusted.options;
  fitHeads(state, width, headGiven, problems);
  if (has('focus')) sanitizeFocus(state, untrusted.focus, problems);
  if (!Object.prototype.hasOwnProperty.call(state.contexts, state.focus)) state.focus = Object.keys(state.contexts)[0];
  if (has('view')) sanitizeView(state, untrusted.view, problems);
  sanitizeReading(state, untrusted, has, problems);
  state.v = STATE_VERSION;
  return { state, problems };
}

// Vocabulary, contexts and weights must agree on D, so they are checked together; when the
// vocabulary is rejected the defaults of all three are kept. Returns the width D.
function sanitizeNumbers(state, untrusted, has, defaults, problems) {
  let width = Object.values(state.vocab)[0]?.length ?? 0;
  let vocabFromLink = false;
  if (has('vocab')) {
    const v = checkVocab(untrusted.vocab);
    if (v.error) {
      problems.push(`${v.error}; using the default vocabulary`);
    } else {
      state.vocab = v.value;
      width = v.width;
      vocabFromLink = true;
    }
  }
  const c = checkContexts(has('contexts') ? untrusted.contexts : state.contexts, state.vocab);
  if (c.error) {
    problems.push(`${c.error}; using the default contexts`);
    const fallback = checkContexts(defaults.contexts, state.vocab);
    if (fallback.error) {
      // The default contexts name words this vocabulary lacks: keep the default vocabulary.
      state.vocab = clone(defaults.vocab);
      width = Object.values(state.vocab)[0]?.length ?? 0;
      if (vocabFromLink) problems.push('vocab: the default contexts need the default vocabulary; using it');
    }
    state.contexts = clone(defaults.contexts);
  } else {
    state.contexts = c.value;
  }
  const defaultWidth = Object.values(defaults.vocab)[0]?.length ?? 0;
  const fallbackWeights = width === defaultWidth ? defaults.weights : undefined;
  const w = checkWeights(has('weights') ? untrusted.weights : {}, width, fallbackWeights);
  if (!w.error) state.weights = w.value;
  else if (width === defaultWidth) {
    problems.push(`${w.error}; using the default weights`);
    state.weights = clone(defaults.weights);
  } else {
    problems.push(`${w.error}; using the default example`);
    state.vocab = clone(defaults.vocab);
    state.contexts = clone(defaults.contexts);
    state.weights = clone(defaults.weights);
  }
  return width;
}

// example: one of EXAMPLES or the name of a context (shown alone, and focused unless the state
// says otherwise).
function sanitizeExample(state, ex, focusIt, problems) {
  const isContext = typeof ex === 'string' && Object.prototype.hasOwnProperty.call(state.contexts, ex);
  if (typeof ex === 'string' && (EXAMPLES.includes(ex) || isContext)) {
    state.example = ex;
    if (isContext && focusIt) state.focus = ex;
  } else
    problems.push(
      `example: expected one of ${[...EXAMPLES, ...Object.keys(state.contexts).filter((n) => !EXAMPLES.includes(n))]
        .map((n) => clip(n, 24))
        .join(', ')}, got ${describe(ex)}`,
    );
}

function sanitizeOptions(opts, o, problems) {
  if (!isPlainObject(o)) {
    problems.push(`options: expected an object, got ${describe(o)}`);
    return;
  }
  for (const key of Object.keys(o)) {
    if (!OPTION_KEYS.includes(key)) problems.push(`options.${clip(key, 24)}: unknown option, ignored`);
  }
  const take = (key, ok, expected) => {
    if (!(key in o)) return;
    if (ok(o[key])) opts[key] = o[key];
    else problems.push(`options.${key}: expected ${expected}, got ${describe(o[key])}`);
  };
  const number = (lo, hi, integer = false) => [
    (x) => typeof x === 'number' && Number.isFinite(x) && x >= lo && x <= hi && (!integer || Number.isInteger(x)),
    `${integer ? 'an integer' : 'a number'} in [${lo}, ${hi}]`,
  ];
  const boolean = [(x) => typeof x === 'boolean', 'true or false'];
  take('projections', ...boolean);
  take('causal', ...boolean);
  take('training', ...boolean);
  take(
    'scale',
    (x) => typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x) && x > 0 && x <= LIMITS.absValue),
    `true, false or a number in (0, ${LIMITS.absValue}]`,
  );
  take('temperature', ...number(0.01, 100));
  take('dropout', (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x < 1, 'a number in [0, 1)');
  take('seed', ...number(0, 2 ** 31 - 1, true));
  take('heads', ...number(1, LIMITS.heads, true));
  take('head', ...number(0, LIMITS.heads - 1, true));
  take('kernel', (x) => KERNELS.includes(x), `one of ${KERNELS.join(', ')}`);
}

// Heads must divide every width they split: dk and dv with projections, D without.
function fitHeads(state, width, headGiven, problems) {
  const opts = state.options;
  const widths = opts.projections
    ? [state.weights.wq?.[0]?.length, state.weights.wv?.[0]?.length].filter((n) => n !== undefined)
    : [width];
  const bad = widths.find((n) => n % opts.heads !== 0);
  if (bad !== undefined) {
    problems.push(`options.heads: ${opts.heads} heads do not divide width ${bad}; using 1 head`);
    opts.heads = 1;
  }
  if (opts.head >= opts.heads) {
    if (headGiven) problems.push(`options.head: expected an integer in [0, ${opts.heads - 1}], got ${opts.head}`);
    opts.head = 0;
  }
}

function sanitizeFocus(state, f, problems) {
  if (typeof f === 'string' && Object.prototype.hasOwnProperty.call(state.contexts, f)) state.focus = f;
  else
    problems.push(
      `focus: expected one of the contexts (${Object.keys(state.contexts)
        .map((n) => clip(n, 24))
        .join(', ')}), got ${describe(f)}`,
    );
}

function sanitizeView(state, given, problems) {
  const view =
    typeof given === 'string'
      ? given
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : given;
  if (!Array.isArray(view) || view.length > VIEWS.length * 2) {
    problems.push(`view: expected a list of steps from ${VIEWS.join(', ')}, got ${describe(given)}`);
    return;
  }
  // None known: the view the state had (the defaults' — the page's 'all' —, or the current one).
  const { known, unknown } = knownViews(view);
  problems.push(...unknown);
  if (known.length) state.view = known;
}

/**
 * The names of a view list the explorer knows (each once, in order), and a problem naming each
 * it does not and the accepted ones. The element's attributes and inline JSON use it too
 * (lib/attributes.js), where a view of unknown names gives the element's default figure.
 * @returns {{known: string[], unknown: string[]}}
 */
export function knownViews(names) {
  const known = [];
  const unknown = [];
  for (const name of names) {
    if (typeof name === 'string' && VIEWS.includes(name)) {
      if (!known.includes(name)) known.push(name);
    } else {
      unknown.push(`view: unknown step ${describe(name)}; expected one of ${VIEWS.join(', ')}`);
    }
  }
  return { known, unknown };
}

const isSelected = (s) =>
  isPlainObject(s) &&
  typeof s.matrix === 'string' &&
  /^[a-zA-Z][a-zA-Z0-9]{0,23}$/.test(s.matrix) &&
  Number.isInteger(s.row) &&
  s.row >= 0 &&
  s.row < LIMITS.cell &&
  Number.isInteger(s.col) &&
  s.col >= 0 &&
  s.col < LIMITS.cell;

// Where the reader is: the stepper's step, the row picked, the notebook, Learn's and the real
// model's parts, the theme.
function sanitizeReading(state, untrusted, has, problems) {
  if (has('step')) {
    const s = untrusted.step;
    if (Number.isInteger(s) && s >= 0 && s <= LIMITS.step) state.step = s;
    else problems.push(`step: expected an integer in [0, ${LIMITS.step}], got ${describe(s)}`);
  }
  if (has('selected')) {
    const s = untrusted.selected;
    if (s === null) state.selected = null;
    else if (isSelected(s)) state.selected = { matrix: s.matrix, row: s.row, col: s.col };
    else
      problems.push(
        `selected: expected null or {matrix: a name, row and col integers in [0, ${LIMITS.cell - 1}]}, got ${describe(s)}`,
      );
  }
  if (has('notebook')) {
    if (NOTEBOOK_IDS.includes(untrusted.notebook)) state.notebook = untrusted.notebook;
    else problems.push(`notebook: expected one of ${NOTEBOOK_IDS.join(', ')}, got ${describe(untrusted.notebook)}`);
  }
  if (has('learn')) {
    const out = sanitizeLearn(untrusted.learn);
    state.learn = out.learn;
    problems.push(...out.problems);
  }
  if (has('gpt')) {
    const out = sanitizeGpt(untrusted.gpt);
    state.gpt = out.gpt;
    problems.push(...out.problems);
  }
  if (has('theme')) {
    if (THEMES.includes(untrusted.theme)) state.theme = untrusted.theme;
    else problems.push(`theme: expected one of ${THEMES.join(', ')}, got ${describe(untrusted.theme)}`);
  }
}

// hash → {state: the untrusted object it holds, problems}; a hash that cannot be decoded
// becomes one problem and no state (= the defaults once sanitized).
export function readHash(hash) {
  try {
    return { state: decodeState(hash), problems: [] };
  } catch (error) {
    return { state: undefined, problems: [`${error.message}; showing the default example`] };
  }
}

// hash → {state, problems}: decoded and sanitized.
export function stateFromHash(hash, defaults) {
  const read = readHash(hash);
  const out = sanitizeState(read.state, defaults);
  return { state: out.state, problems: [...read.problems, ...out.problems] };
}

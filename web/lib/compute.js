// Turns the state into engine calls and collects what the views draw. Every number shown on
// the page comes from here, i.e. from the WASM engine (engine.attend / cosine / averaging), once
// per state change (createResults); views only draw them.

import { toNested } from '../engine/engine.js';
import { seededRandom } from './learn/random.js';

export { toNested };

/** Arguments of engine.attend for one context's tokens. */
export function attendArgs(state, tokens) {
  const o = state.options;
  const args = {
    x: tokens.map((w) => state.vocab[w]),
    heads: o.heads,
    causal: o.causal,
    scale: o.scale,
    temperature: o.temperature,
    dropout: o.dropout,
    seed: o.seed,
    training: o.training,
    kernel: o.kernel,
  };
  if (o.projections) Object.assign(args, { wq: state.weights.wq, wk: state.weights.wk, wv: state.weights.wv });
  return args;
}

const NAMES = ['q', 'k', 'v', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'headOutputs', 'merged', 'output'];

/** A trace as plain nested arrays plus its metadata. */
export function unpackTrace(trace) {
  const out = { kernel: trace.kernel, scale: trace.scale, ms: trace.ms };
  for (const name of NAMES) out[name] = trace[name] ? trace.get(name) : null;
  return out;
}

/**
 * Runs everything the page shows for the current state.
 * @param {{averaging?: boolean, focusExtras?: boolean}} what
 *   averaging: engine.averaging of the focused context; focusExtras: its reversed run and its
 *   output projection (see reversedRun, outputProjection)
 * @returns {{contexts: Object<string, {tokens, x, linear, naive, trace, error}>, cosines: Array,
 *            averaging, reversed, projection, errors: string[], ms: number}}
 *   errors: what the engine refused of the main results; the extras carry their own error
 */
export function computeAll(engine, state, { averaging = true, focusExtras = true } = {}) {
  const errors = [];
  const contexts = {};
  let ms = 0;
  for (const [name, tokens] of Object.entries(state.contexts)) {
    const entry = {
      tokens,
      x: tokens.map((w) => state.vocab[w]),
      linear: null,
      naive: null,
      trace: null,
      error: null,
    };
    try {
      const t = engine.attend(attendArgs(state, tokens));
      entry.trace = unpackTrace(t);
      ms += t.ms;
    } catch (err) {
      entry.error = `${name}: ${err.message}`;
      errors.push(entry.error);
    }
    try {
      // Naive attention, as seed 003 first computes it: scores X·Xᵀ, softmax, weights·X.
      const t = engine.attend({ x: entry.x, scale: false, kernel: state.options.kernel });
      entry.naive = { scores: t.get('scores')[0], weights: t.get('weights')[0], output: t.get('output') };
    } catch (err) {
      errors.push(`${name} (naive scores X·Xᵀ): ${err.message}`);
    }
    try {
      // The plain linear layer x·W: each token transformed on its own.
      entry.linear = engine.project({ x: entry.x, w: state.weights.w }).get();
    } catch (err) {
      errors.push(`${name} (plain linear layer): ${err.message}`);
    }
    contexts[name] = entry;
  }
  const cosines = [];
  const [a, b] = Object.keys(contexts);
  if (a && b) {
    const A = contexts[a],
      B = contexts[b];
    for (const word of new Set(A.tokens)) {
      const i = A.tokens.indexOf(word),
        j = B.tokens.indexOf(word);
      if (j < 0) continue;
      const row = { word, i, j, embedding: null, linear: null, average: null, attention: null };
      try {
        row.embedding = engine.cosine(A.x[i], B.x[j]);
        if (A.linear && B.linear) row.linear = engine.cosine(A.linear[i], B.linear[j]);
        if (A.trace && B.trace) {
          row.attention = engine.cosine(A.trace.output[i], B.trace.output[j]);
          row.average = engine.cosine(equalWeightsRow(A.trace, i), equalWeightsRow(B.trace, j));
        }
      } catch (err) {
        errors.push(`cosine of "${word}": ${err.message}`);
      }
      cosines.push(row);
    }
  }
  let avg = null;
  const focus = contexts[state.focus] || contexts[a];
  if (averaging && focus) {
    try {
      avg = engine.averaging({ x: focus.x });
    } catch (err) {
      errors.push(`causal averaging: ${err.message}`);
    }
  }
  const extras = focusExtras && focus;
  const reversed = extras ? reversedRun(engine, state, focus.tokens) : null;
  const projection = extras ? outputProjection(engine, state, focus) : null;
  return { contexts, cosines, averaging: avg, reversed, projection, errors, ms };
}

/**
 * The order experiment: the same attention over the tokens in reverse order.
 * @returns {{tokens: string[], output: number[][]|null, error: string|null}}  tokens: reversed
 */
export function reversedRun(engine, state, tokens) {
  const back = tokens.slice().reverse();
  try {
    return { tokens: back, output: unpackTrace(engine.attend(attendArgs(state, back))).output, error: null };
  } catch (err) {
    return { tokens: back, output: null, error: err.message };
  }
}

/**
 * The heads mixed by an output projection W_O (nanoGPT's attn.c_proj): a (C, C) matrix drawn from
 * N(0, 1/C) with a fixed seed (C: the merged width, every head's value columns), applied by the
 * engine: output = merged · W_O.
 * @returns {{wo: number[][], output: number[][]|null, error: string|null}}
 */
export function outputProjection(engine, state, entry) {
  const n = entry.trace ? entry.trace.merged[0].length : mergedWidth(state, entry);
  const rng = seededRandom(4242 + n);
  const wo = Array.from({ length: n }, () => Array.from({ length: n }, () => rng.normal() / Math.sqrt(n)));
  try {
    return { wo, output: engine.attend({ ...attendArgs(state, entry.tokens), wo }).get('output'), error: null };
  } catch (err) {
    return { wo, output: null, error: err.message };
  }
}
// The merged width where the engine gave no trace: V's columns (X's without projections).
const mergedWidth = (state, entry) => (state.options.projections ? state.weights.wv[0].length : entry.x[0].length);

/** What the results depend on, as one string: a change of anything else (the view, the theme…) computes nothing. */
export function resultsKey(state) {
  return JSON.stringify([state.vocab, state.contexts, state.weights, state.options, state.focus]);
}

/**
 * The explorer's results: computeAll once per change of what they depend on (resultsKey). A
 * context the engine rejects keeps its last good result — its tokens, vectors and trace together,
 * so labels match numbers — marked {stale: true, error}, so the page never blanks.
 * @returns {{current: object|null, version: number, update(engine, state): boolean, invalidate()}}
 *   update: true when it computed (the state's numbers changed, or invalidate() was called);
 *   version: how many times it has computed
 */
export function createResults() {
  let key = '';
  let current = null;
  let lastGood = null;
  let version = 0;
  return {
    get current() {
      return current;
    },
    /** Counts the computations: a section's own numbers (render.js) are computed again when it moves. */
    get version() {
      return version;
    },
    update(engine, state) {
      const next = resultsKey(state);
      if (next === key) return false;
      key = next;
      const r = computeAll(engine, state);
      for (const [name, entry] of Object.entries(r.contexts)) {
        if (!entry.trace && lastGood?.contexts[name]?.trace) {
          r.contexts[name] = { ...lastGood.contexts[name], stale: true, error: entry.error };
        }
      }
      current = r;
      version += 1;
      if (!r.errors.length) lastGood = r;
      return true;
    },
    /** Another engine (the whole one, swapped in): compute again at the next update. */
    invalidate() {
      key = '';
    },
  };
}

/**
 * Row i of attention with every weight equal: the plain average of the value rows token i may
 * see (all of them, or those up to i under the causal mask), each head's columns side by side —
 * what a trace's output row would be if its softmax spread its weight evenly (before W_O).
 */
export function equalWeightsRow(trace, i) {
  return trace.v.flatMap((values, h) => {
    const seen = values.filter((_, j) => trace.masked[h][i][j] !== -Infinity);
    return values[0].map((_, c) => (seen.length ? seen.reduce((sum, row) => sum + row[c], 0) / seen.length : 0));
  });
}

/**
 * Times engine.attend(args) over repeated calls for about `budgetMs` (one call of a small example
 * is far below a browser clock's resolution). Returns {microseconds per call, calls, kernel},
 * or null when the engine rejects the arguments.
 */
export function timeAttention(engine, args, now, budgetMs = 20) {
  let trace;
  try {
    trace = engine.attend(args);
  } catch {
    return null;
  }
  let calls = 0;
  const start = now();
  let elapsed = 0;
  do {
    engine.attend(args);
    calls += 1;
    elapsed = now() - start;
  } while (elapsed < budgetMs && calls < 100000);
  return { microseconds: (elapsed * 1000) / calls, calls, kernel: trace.kernel };
}

/** Largest |a − b| over two equally shaped nested arrays (for "the three forms are equal"). */
export function maxAbsDiff(a, b) {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return Infinity;
    return a.reduce((m, x, i) => Math.max(m, maxAbsDiff(x, b[i])), 0);
  }
  return Math.abs(a - b);
}

/** Every head's (T, n) matrix side by side: (T, H·n), head h in columns [h·n, (h+1)·n). */
export function sideBySide(perHead) {
  return perHead[0].map((_, i) => perHead.flatMap((m) => m[i]));
}

/** Rows i of a (T, C) nested array restricted to head h's columns [h·n, (h+1)·n). */
export function headColumns(matrix, h, n) {
  return matrix.map((row) => row.slice(h * n, (h + 1) * n));
}

/** engine.averaging() result with every field as nested arrays. */
export function averagingNested(avg) {
  const out = {};
  for (const [k, v] of Object.entries(avg)) if (v && typeof v === 'object') out[k] = toNested(v);
  return out;
}

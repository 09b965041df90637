// What the views draw about one context, derived once from the state and the engine's results:
// the trace, its tokens, the head shown (clamped to the heads there are), the rows of the shared
// word ("bank") that every view highlights, and the weights the output was computed with (after
// dropout when it is active). Views read this instead of re-deriving it. Pure.
import { sharedWords } from './state.js';

/** Rows of `tokens` that hold a word every context shares (highlighted throughout). */
export function highlightRows(state, tokens) {
  const shared = sharedWords(state);
  return tokens.map((w, i) => (shared.includes(w) ? i : -1)).filter((i) => i >= 0);
}

/**
 * Where row `row` looks most in each head: the key it gives its largest weight, and that weight.
 * @returns {{j: number, w: number}[]}  one per head
 */
export function strongestKeys(trace, row) {
  return trace.weights.map((w) => {
    const r = w[row];
    const j = r.reduce((b, v, k) => (v > r[b] ? k : b), 0);
    return { j, w: r[j] };
  });
}

/**
 * @returns {null | {name, entry, trace, tokens, heads, head, hk, hv, highlightRows: number[],
 *   dropping: boolean, weightsUsed: number[][], isMasked: (i, j) => boolean}}
 *   null while the context has no trace (the engine rejected it and nothing was kept).
 */
export function focusView(state, results, name = state.focus) {
  const entry = results?.contexts[name];
  if (!entry?.trace) return null;
  const trace = entry.trace;
  const heads = trace.q.length;
  const head = Math.min(state.options.head, heads - 1);
  const dropping = state.options.training && state.options.dropout > 0 && Boolean(trace.dropped);
  const masked = trace.masked?.[head];
  return {
    name,
    entry,
    trace,
    tokens: entry.tokens,
    heads,
    head,
    hk: trace.q[head][0].length,
    hv: trace.v[head][0].length,
    highlightRows: highlightRows(state, entry.tokens),
    dropping,
    weightsUsed: dropping ? trace.dropped[head] : trace.weights?.[head],
    isMasked: (i, j) => masked?.[i]?.[j] === -Infinity,
  };
}

// Hand-set weights that show one idea each, for the seed's 4-wide vocabulary (d0 and d1 say
// river or money, d2 is a feature only "bank" has, d3 is large for the words around "bank" —
// stream 0.3, mud 0.9, money 0.1, loan 0.6 — and 0 for bank itself); the notebook's own weights;
// and the head counts the Heads menu offers. Pure.
import { CONTEXT_SEEKING_QK, LIMITS, notebookState, resize } from './state.js';

/**
 * "bank" looks for the context word (the page's default W_Q and W_K): W_Q turns d2 (bank's own
 * feature) into a query, W_K turns d3 into a key, so bank's query meets the largest key in the
 * word that says which bank it is.
 */
export const CONTEXT_SEEKING = Object.freeze({ width: 4, weights: CONTEXT_SEEKING_QK });

/**
 * The notebook's hand-set W_query, W_key, W_value and W (seed 003, from engine.examples()), one
 * head, projections and scaling on: the numbers the notebook prints.
 * @returns {{state} | {error}}
 */
export function withNotebookWeights(state, examples) {
  const notebook = notebookState(examples);
  const preset = { width: Object.values(notebook.vocab)[0].length, weights: notebook.weights };
  return withPreset(state, preset);
}

/** Whether the state's weights are the notebook's (seed 003's W_query, W_key, W_value and W). */
export function hasNotebookWeights(state, examples) {
  const w = notebookState(examples).weights;
  return ['wq', 'wk', 'wv', 'w'].every((k) => JSON.stringify(state.weights[k]) === JSON.stringify(w[k]));
}

/** Whether `preset` fits the state's vocabulary (its width). */
export function presetApplies(state, preset) {
  return (Object.values(state.vocab)[0]?.length ?? 0) === preset.width;
}

/** The state with the preset's matrices, projections and scaling on: {state} or {error}. */
export function withPreset(state, preset) {
  if (!presetApplies(state, preset))
    return { error: `these weights are for a vocabulary of width ${preset.width}; reset to the start first` };
  const weights = { ...state.weights };
  for (const [k, m] of Object.entries(preset.weights)) weights[k] = m.map((row) => row.slice());
  const heads = preset.heads ?? 1;
  return {
    state: { ...state, weights, options: { ...state.options, projections: true, scale: true, heads, head: 0 } },
  };
}

/**
 * Two heads that look at different things (4 query/key columns, 2 per head; W_V the identity):
 * head 0 is CONTEXT_SEEKING's (bank's query meets the context word's key), head 1 compares d0
 * and d1 — river-ness and money-ness — so each token's query matches its own kind, itself most.
 */
export const TWO_HEADS = Object.freeze({
  width: 4,
  heads: 2,
  weights: {
    wq: [
      [0, 0, 3, 0],
      [0, 0, 0, 3],
      [5, 0, 0, 0],
      [0, 0, 0, 0],
    ],
    wk: [
      [0, 0, 3, 0],
      [0, 0, 0, 3],
      [0, 0, 0, 0],
      [5, 0, 0, 0],
    ],
    wv: [
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ],
  },
});

/** Head counts the Heads selector offers: those that divide the widths, or do after zero columns are added. */
export function headChoices(state, maxWidth, maxHeads) {
  const D = Object.values(state.vocab)[0]?.length ?? 0;
  const [dk, dv] = state.options.projections ? [state.weights.wq[0].length, state.weights.wv[0].length] : [D, D];
  const out = [];
  for (let H = 1; H <= maxHeads; H++) {
    const pad = (n) => Math.ceil(n / H) * H;
    const [k, v] = [pad(dk), pad(dv)];
    const fits = state.options.projections ? k <= maxWidth && v <= maxWidth : k === dk;
    if (fits) out.push({ heads: H, dk: k, dv: v, padded: k !== dk || v !== dv });
  }
  return out;
}

/** The state with H heads, the query/key and value widths padded with zero columns to fit. */
export function withHeads(state, H) {
  const choice = headChoices(state, LIMITS.width, LIMITS.heads).find((c) => c.heads === H);
  if (!choice) return { error: `heads: ${H} heads do not fit these widths` };
  let next = state;
  if (state.options.projections) {
    for (const [which, n] of [
      ['dk', choice.dk],
      ['dv', choice.dv],
    ]) {
      const current = which === 'dk' ? next.weights.wq[0].length : next.weights.wv[0].length;
      if (n === current) continue;
      const r = resize(next, which, n);
      if (r.error) return r;
      next = r.state;
    }
  }
  return { state: { ...next, options: { ...next.options, heads: H, head: 0 } } };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
// `m` is `preset` with zero columns added (the Heads menu pads the widths that way).
const padded = (m, preset) =>
  m.length === preset.length &&
  m.every(
    (row, i) =>
      row.length >= preset[i].length && row.every((v, j) => (j < preset[i].length ? v === preset[i][j] : v === 0)),
  );

/**
 * Which hand-set weights the state has: 'raw' (projections off: queries, keys and values are
 * the embeddings), 'notebook' (seed 003's, all four matrices), 'context-seeking' (its W_Q and
 * W_K, maybe padded with zero columns for more heads), 'two-heads' (TWO_HEADS' W_Q, W_K and W_V)
 * or 'own' (anything else).
 */
export function weightsKind(state, examples) {
  const w = state.weights;
  if (!state.options.projections) return 'raw';
  if (hasNotebookWeights(state, examples)) return 'notebook';
  if (padded(w.wq, CONTEXT_SEEKING.weights.wq) && padded(w.wk, CONTEXT_SEEKING.weights.wk)) return 'context-seeking';
  if (['wq', 'wk', 'wv'].every((k) => same(w[k], TWO_HEADS.weights[k]))) return 'two-heads';
  return 'own';
}

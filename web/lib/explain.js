// "Explain this number": how one cell of one matrix was computed from the cells it came from.
// Pure: it reads the engine's intermediates (nested arrays) and lists the terms; the result
// shown is the engine's own value. Unit-tested in tests/js/lib/explain.test.mjs.
import { fmt } from './format.js';
import { averagingNested } from './compute.js';
import { softmaxParts } from './softmax.js';

/**
 * The focus context as the explanations see it, for one head h.
 * @typedef {{tokens: string[], x: number[][], wq?: number[][], wk?: number[][], wv?: number[][],
 *   projections: boolean, h: number, hk: number, hv: number, heads: number,
 *   q: number[][], k: number[][], v: number[][], scores: number[][], scaled: number[][],
 *   masked: number[][], weights: number[][], dropped?: number[][], out: number[][],
 *   merged: number[][], output: number[][], scale: number, temperature: number,
 *   causal: boolean, dropout: number, training: boolean}} Model
 */

/** Builds a Model from an unpacked trace (see compute.js) for head h. */
export function modelFor(state, entry, h = 0) {
  const t = entry.trace;
  const o = state.options;
  const q = t.q[h],
    k = t.k[h],
    v = t.v[h];
  return {
    tokens: entry.tokens,
    x: entry.x,
    wq: o.projections ? state.weights.wq : null,
    wk: o.projections ? state.weights.wk : null,
    wv: o.projections ? state.weights.wv : null,
    projections: o.projections,
    h,
    heads: t.q.length,
    hk: q[0]?.length ?? 0,
    hv: v[0]?.length ?? 0,
    q,
    k,
    v,
    scores: t.scores[h],
    scaled: t.scaled[h],
    masked: t.masked[h],
    weights: t.weights[h],
    dropped: t.dropped ? t.dropped[h] : null,
    out: t.headOutputs[h],
    merged: t.merged,
    output: t.output,
    scale: t.scale,
    temperature: o.temperature,
    causal: o.causal,
    dropout: o.dropout,
    training: o.training,
    W: state.weights,
    w: state.weights.w,
    linear: entry.linear,
  };
}

/**
 * The Model behind one cell of a figure, located by the figure itself ({context, head}: what
 * ui/heatmap.js's locate() says), with the averaging results for the avg-* matrices; null when
 * that context has no trace (the engine rejected it and nothing was kept) or the figure names none.
 */
export function modelAt(state, results, at) {
  const entry = at.context === undefined ? null : results?.contexts[at.context];
  if (!entry?.trace) return null;
  const head = at.head ?? state.options.head;
  const model = modelFor(state, entry, Math.min(head, entry.trace.q.length - 1));
  model.avg = results.averaging ? averagingNested(results.averaging) : null;
  return model;
}

const times = (a, b) => `${fmt(a)} × ${fmt(b)}`;
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

const tok = (m, n) => `“${m.tokens[n]}”`;

// One explainer per matrix: (m, i, j, matrix) → {title, lines, result, sources}.
const embedding = (m, i, j) => ({
  title: `X[${i}][${j}]`,
  lines: [`dimension ${j} of the embedding of ${tok(m, i)}`],
  result: fmt(m.x[i][j]),
  sources: [],
});

function projected(m, i, j, matrix) {
  const M = m[matrix];
  const W = m['w' + matrix];
  const n = matrix === 'v' ? m.hv : m.hk;
  const col = m.h * n + j; // column of the full projection matrix
  const name = matrix.toUpperCase();
  if (!W) {
    return {
      title: `${name}[${i}][${j}]`,
      lines: [`projections are off, so ${name} = X: this is X[${i}][${col}]`],
      result: fmt(M[i][j]),
      sources: [{ matrix: 'x', row: i, col }],
    };
  }
  const terms = m.x[i].map((xv, d) => xv * W[d][col]);
  return {
    title: `${name}[${i}][${j}] = row ${i} of X · column ${col} of W_${name}`,
    lines: [m.x[i].map((xv, d) => times(xv, W[d][col])).join(' + '), `= ${terms.map((t) => fmt(t)).join(' + ')}`],
    result: fmt(M[i][j]),
    sources: [
      { matrix: 'x', row: i },
      { matrix: 'w' + matrix, col },
    ],
  };
}

function scores(m, i, j) {
  const terms = m.q[i].map((qv, c) => qv * m.k[j][c]);
  return {
    title: `score[${i}][${j}] = q of ${tok(m, i)} · k of ${tok(m, j)}`,
    lines: [m.q[i].map((qv, c) => times(qv, m.k[j][c])).join(' + '), `= ${terms.map((t) => fmt(t)).join(' + ')}`],
    result: fmt(m.scores[i][j]),
    sources: [
      { matrix: 'q', row: i },
      { matrix: 'k', row: j },
    ],
  };
}

function scaled(m, i, j) {
  const lines = [
    `${fmt(m.scores[i][j])} × ${fmt(m.scale, 4)}` +
      (m.temperature !== 1 ? ` ÷ ${fmt(m.temperature, 2)} (temperature)` : ''),
  ];
  lines.push(
    m.scale === 1
      ? 'scaling is off (factor 1)'
      : `the factor ${fmt(m.scale, 4)} is 1/√${m.hk}, one over the square root of the head size`,
  );
  return {
    title: `scaled[${i}][${j}]`,
    lines,
    result: fmt(m.scaled[i][j]),
    sources: [{ matrix: 'scores', row: i, col: j }],
  };
}

function masked(m, i, j) {
  const hidden = !Number.isFinite(m.masked[i][j]);
  return {
    title: `masked[${i}][${j}]`,
    lines: [
      hidden
        ? `${tok(m, j)} comes after ${tok(m, i)}: the causal mask hides it with −∞, so its weight will be exactly 0`
        : m.causal
          ? `${tok(m, j)} is not after ${tok(m, i)}: kept as is`
          : 'no mask: kept as is',
    ],
    result: fmt(m.masked[i][j]),
    sources: [{ matrix: 'scaled', row: i, col: j }],
  };
}

function weights(m, i, j) {
  const row = m.masked[i];
  const { max, exps, sum: total } = softmaxParts(row);
  const lines = [
    `exp(${fmt(row[j])} − ${fmt(max)}) ÷ Σ exp(row ${i} − max)`,
    `= ${fmt(exps[j], 4)} ÷ (${exps.map((e) => fmt(e, 4)).join(' + ')})`,
    `= ${fmt(exps[j], 4)} ÷ ${fmt(total, 4)}`,
  ];
  if (!Number.isFinite(row[j])) lines.unshift('a masked score: exp(−∞) = 0');
  lines.push('subtracting the row’s largest score first keeps exp from overflowing; it cancels in the division');
  lines.push(`row ${i} sums to ${fmt(sum(m.weights[i]), 3)}`);
  return {
    title: `weight[${i}][${j}]: how much ${tok(m, i)} attends to ${tok(m, j)}`,
    lines,
    result: fmt(m.weights[i][j]),
    sources: [{ matrix: 'masked', row: i }],
  };
}

function dropped(m, i, j) {
  const kept = m.dropped[i][j] !== 0 || m.weights[i][j] === 0;
  return {
    title: `after dropout[${i}][${j}]`,
    lines: [
      !m.training
        ? 'evaluation mode: dropout does nothing'
        : kept
          ? `kept (probability ${fmt(1 - m.dropout, 2)}) and scaled by 1/(1 − ${fmt(m.dropout, 2)}): ${fmt(m.weights[i][j])} ÷ ${fmt(1 - m.dropout, 2)}`
          : `dropped (probability ${fmt(m.dropout, 2)}): set to 0`,
    ],
    result: fmt(m.dropped[i][j]),
    sources: [{ matrix: 'weights', row: i, col: j }],
  };
}

function out(m, i, j) {
  const W = m.dropped && m.training && m.dropout > 0 ? m.dropped : m.weights;
  const terms = W[i].map((w, n) => w * m.v[n][j]);
  return {
    title: `output[${i}][${j}] = Σₙ weight[${i}][n] × v[n][${j}]`,
    lines: [W[i].map((w, n) => times(w, m.v[n][j])).join(' + '), `= ${terms.map((t) => fmt(t)).join(' + ')}`],
    result: fmt(m.out[i][j]),
    sources: [
      { matrix: W === m.weights ? 'weights' : 'dropped', row: i },
      { matrix: 'v', col: j },
    ],
  };
}

function merged(m, i, j) {
  const h = Math.floor(j / m.hv);
  return {
    title: `merged[${i}][${j}]`,
    lines: [`column ${j - h * m.hv} of head ${h}'s output, placed at column ${j} by concatenating the heads`],
    result: fmt(m.merged[i][j]),
    sources: h === m.h ? [{ matrix: 'out', row: i, col: j - h * m.hv }] : [],
  };
}

function output(m, i, j) {
  // One head and no output projection: the output is that head's weighted sum.
  if (m.heads === 1 && m.out[i]?.length === m.output[i].length) {
    const e = out(m, i, j);
    return { ...e, title: `new vector of ${tok(m, i)}, dimension ${j}: ${e.title}`, result: fmt(m.output[i][j]) };
  }
  return {
    title: `output[${i}][${j}]`,
    lines: [`the new vector of ${tok(m, i)}, dimension ${j}: the heads’ outputs side by side`],
    result: fmt(m.output[i][j]),
    sources: [{ matrix: 'merged', row: i, col: j }],
  };
}

function linear(m, i, j) {
  const terms = m.x[i].map((xv, d) => xv * m.w[d][j]);
  return {
    title: `(X·W)[${i}][${j}] = row ${i} of X · column ${j} of W`,
    lines: [
      m.x[i].map((xv, d) => times(xv, m.w[d][j])).join(' + '),
      `= ${terms.map((t) => fmt(t)).join(' + ')}`,
      'each token is transformed on its own: no other token is involved',
    ],
    result: fmt(m.linear[i][j]),
    sources: [
      { matrix: 'x', row: i },
      { matrix: 'w', col: j },
    ],
  };
}

const WEIGHT_NAMES = { wq: ['W_Q', 'Q'], wk: ['W_K', 'K'], wv: ['W_V', 'V'], w: ['W', 'X·W'] };
function weight(m, i, j, matrix) {
  const [name, made] = WEIGHT_NAMES[matrix];
  return {
    title: `${name}[${i}][${j}]`,
    lines: [`how much embedding dimension ${i} feeds column ${j} of ${made}; a learned weight you can edit`],
    result: fmt((m.W || m)[matrix][i][j]),
    sources: [],
  };
}

const averaging = {
  'avg-tril': (m, i, j) => ({
    title: `averaging weight[${i}][${j}]`,
    lines: [
      j <= i
        ? `row ${i} averages the ${i + 1} tokens up to and including ${tok(m, i)}: 1/${i + 1}`
        : `${tok(m, j)} is in the future of ${tok(m, i)}: 0`,
    ],
    result: fmt(m.avg.trilWeights[i][j]),
    sources: [],
  }),
  'avg-zeros': (m, i, j) => ({
    title: `masked zeros[${i}][${j}]`,
    lines: [j <= i ? 'every allowed score is 0: no token is preferred' : 'a future token: −∞'],
    result: fmt(m.avg.maskedZeros[i][j]),
    sources: [],
  }),
  'avg-softmax': (m, i, j) => ({
    title: `softmax of masked zeros[${i}][${j}]`,
    lines: [j <= i ? `exp(0) ÷ (${i + 1} × exp(0)) = 1/${i + 1}` : 'exp(−∞) = 0'],
    result: fmt(m.avg.softmaxWeights[i][j]),
    sources: [{ matrix: 'avg-zeros', row: i }],
  }),
};
const AVERAGE_OF = { 'avg-loop': 'loop', 'avg-matmul': 'matmul', 'avg-out': 'softmax' };
function average(m, i, j, matrix) {
  const xs = m.x.slice(0, i + 1).map((r) => r[j]);
  return {
    title: `average[${i}][${j}]`,
    lines: [`mean of column ${j} over tokens 0..${i}: (${xs.map((v) => fmt(v)).join(' + ')}) ÷ ${i + 1}`],
    result: fmt(m.avg[AVERAGE_OF[matrix]][i][j]),
    sources: [{ matrix: 'avg-x', col: j }],
  };
}

const EXPLAINERS = {
  x: embedding,
  'avg-x': embedding,
  q: projected,
  k: projected,
  v: projected,
  scores,
  scaled,
  masked,
  weights,
  dropped,
  out,
  merged,
  output,
  linear,
  wq: weight,
  wk: weight,
  wv: weight,
  w: weight,
  ...averaging,
  'avg-loop': average,
  'avg-matmul': average,
  'avg-out': average,
};

/**
 * How cell (i, j) of `matrix` (a name above: 'x', 'q' … 'output', 'linear', the weights, the
 * averaging ones) was computed, for the Model m; null for a matrix it does not know.
 * @returns {{title: string, lines: string[], result: string,
 *            sources: Array<{matrix: string, row?: number, col?: number}>} | null}
 */
export function explainCell(m, matrix, i, j) {
  return Object.hasOwn(EXPLAINERS, matrix) ? EXPLAINERS[matrix](m, i, j, matrix) : null;
}

/**
 * Weight (i, j) of a learned causal head, from its row of scores: the engine's scores are q·k
 * unscaled; its softmax sees them divided by √(head size), over the keys up to i.
 * @param {{scores: number[], weight: number, hs: number}} row  scores: row i's; weight: the engine's (i, j)
 */
export function explainLearnedWeight({ scores, weight, hs }, i, j) {
  if (j > i) return `Position ${i} cannot look ahead at ${j}: the causal mask sets its score to −∞, its weight to 0.`;
  const scaled = scores.slice(0, i + 1).map((x) => x / Math.sqrt(hs));
  const { max, sum, weights } = softmaxParts(scaled);
  return `weight[${i}][${j}] = exp(scaled score ${fmt(scaled[j])} − row max ${fmt(max)}) / Σ over the ${i + 1} visible keys (${fmt(sum)}) = ${fmt(weights[j])} (the engine: ${fmt(weight)}); scaled score = q·k / √${hs} = ${fmt(scores[j])} / ${fmt(Math.sqrt(hs))} of the learned query and key.`;
}

/** Whether source spec s covers cell (i, j) of its matrix. */
export function covers(s, i, j) {
  return (s.row === undefined || s.row === i) && (s.col === undefined || s.col === j);
}

/**
 * Whether a located figure cell (see modelAt) is one of the cells source s of an explanation
 * names: the same matrix, of the explained context and head (where the figure is of one), covered.
 * @param {{matrix: string, row?: number, col?: number}} s
 * @param {{matrix: string, context?: string, head?: number, row: number, col: number}} cell
 * @param {{context: string, head: number}} explained
 */
export function isSource(s, cell, explained) {
  return (
    cell.matrix === s.matrix &&
    (cell.context === undefined || cell.context === explained.context) &&
    (cell.head === undefined || cell.head === explained.head) &&
    covers(s, cell.row, cell.col)
  );
}

// The bank measure, anisotropy-corrected (issue 32): does the residual stream tell two senses of a
// word apart, layer by layer? Pure: it takes the vectors it is given (the engine's trace
// residuals); tests/js/lib/real/sense-separation.test.mjs checks it against the same numbers
// computed in PyTorch (tests/fixtures/make_interpret_fixtures.py).
//
// Legend: L + 1 streams (after the embedding, then after each of L blocks), T tokens of a
// sentence, C width, N uses of the word (one per sentence).
//
// Raw cosine between two uses of a word misleads in any real model: hidden states grow
// anisotropic with depth, so in GPT-2's upper layers any two tokens have a high cosine
// (Ethayarajh, EMNLP 2019, "How Contextual are Contextualized Word Representations?"). So per
// layer, for a word used in several sentences of each sense:
//   same        mean cosine between the word's vectors in sentences of the same sense (each pair once)
//   different   mean cosine between its vectors in sentences of different senses
//   baseline    mean and spread (population standard deviation) of the cosines between unrelated
//               tokens: every pair of other tokens (not the word) of two different sentences,
//               position 0 left out (a model's first position is an outlier: in GPT-2 its vector's
//               norm is tens of times the others', the same for any first token)
//   separation  same − different, and z = separation / baseline sd: how much closer same-sense
//               uses are, in units of the spread of unrelated tokens' cosines (the anisotropy,
//               the baseline's mean, cancels in the difference; a chart shows same − mean and
//               different − mean)
//   nearest     how many uses have as nearest other use (highest cosine, ties to the earlier
//               use) one of the same sense, beside the chance rate (n_sense − 1)/(N − 1) averaged
// Each layer's outcome, with the thresholds below: "clear" when z ≥ 2 and every use's nearest
// neighbour shares its sense; "weak" when z ≥ 0.5; "none" otherwise. The verdict is the best
// outcome over the layers (then the larger z, then the earlier layer), said in a sentence made
// from that layer's numbers.

import { describe } from '../text.js';
import { fmt } from '../format.js';

export const SENSE_THRESHOLDS = Object.freeze({ clearZ: 2, weakZ: 0.5 });

/** The page's default sentences: a few per sense, editable. */
export const DEFAULT_SENSES = Object.freeze({
  word: 'bank',
  senses: Object.freeze([
    Object.freeze({
      name: 'river',
      sentences: Object.freeze([
        'He sat on the bank of the river and fished.',
        'The boat drifted toward the muddy bank.',
        'Reeds grew thick along the bank of the stream.',
        'We walked along the river bank at dusk.',
      ]),
    }),
    Object.freeze({
      name: 'money',
      sentences: Object.freeze([
        'She took her savings to the bank on Monday.',
        'The bank raised its interest rates again.',
        'He opened an account at the bank downtown.',
        'The bank approved the loan for their new house.',
      ]),
    }),
  ]),
});

// The verdict's sentences (teaching prose is data): each a function of the numbers it reads.
const where = (layer) => (layer === 0 ? 'after the embedding' : `after block ${layer}`);
const nearestText = (m) =>
  `${m.nearest.correct} of ${m.nearest.total} uses have a nearest other use of the same sense ` +
  `(chance ${fmt(100 * m.nearest.chance, 0)}%)`;
const numbersText = (word, m) =>
  `${where(m.layer)}, uses of “${word}” in the same sense have cosine ${fmt(m.same, 2)} and in ` +
  `different senses ${fmt(m.different, 2)}, against ${fmt(m.baseline.mean, 2)} ± ${fmt(m.baseline.sd, 2)} ` +
  `between unrelated tokens`;
export const VERDICT_TEXT = Object.freeze({
  clear: (word, m) =>
    `The model separates the two senses clearly: ${numbersText(word, m)} — the same sense is closer by ` +
    `${fmt(m.z, 1)} times that spread, and ${nearestText(m)}.`,
  weak: (word, m) =>
    `The model separates the two senses only weakly: at best (${numbersText(word, m)}), the same sense is ` +
    `closer by ${fmt(m.z, 1)} times that spread, and ${nearestText(m)}.`,
  none: (word, m) =>
    `The model does not separate the two senses: at no layer are uses of “${word}” in the same sense closer ` +
    `than uses in different senses by half the spread of unrelated tokens' cosines (the most: ${fmt(m.z, 2)} ` +
    `times, ${where(m.layer)}; ${nearestText(m)}).`,
});

function fail(argument, message, Kind = RangeError) {
  throw Object.assign(new Kind(`${argument}: ${message}`), { argument });
}

/** A {shape: [L + 1, T, C], data} stream, checked; returns its sizes. */
function streamOf(use, i) {
  const r = use && use.residual;
  if (!r || !Array.isArray(r.shape) || r.shape.length !== 3 || !r.data || typeof r.data.length !== 'number') {
    fail(`uses[${i}].residual`, `expected the stream as {shape: [L + 1, T, C], data}, got ${describe(r)}`, TypeError);
  }
  const [layers, T, C] = r.shape;
  if (![layers, T, C].every((n) => Number.isInteger(n) && n >= 1)) {
    fail(`uses[${i}].residual`, `expected a shape of three positive integers, got [${r.shape.join(', ')}]`);
  }
  if (r.data.length !== layers * T * C) {
    fail(`uses[${i}].residual`, `${r.data.length} values for shape [${layers}, ${T}, ${C}]`);
  }
  return { layers, T, C, data: r.data };
}

function norm(data, at, C) {
  let s = 0;
  for (let i = 0; i < C; i++) s += data[at + i] * data[at + i];
  return Math.sqrt(s);
}

function cosine(a, at, na, b, bt, nb, C) {
  if (!(na > 0 && nb > 0)) return 0;
  let s = 0;
  for (let i = 0; i < C; i++) s += a[at + i] * b[bt + i];
  return s / (na * nb);
}

const mean = (values) => values.reduce((s, v) => s + v, 0) / values.length;
const OUTCOME_RANK = { clear: 2, weak: 1, none: 0 };

/**
 * The measure, per layer, and the verdict.
 * @param {Array<{sense: string, position: number, residual: {shape: number[], data: ArrayLike<number>}}>} uses
 *   one per sentence: its sense, where the word is (its last token), and the sentence's stream
 *   (L + 1, T, C) — every use with the same L + 1 and C; at least two senses, two uses of each
 * @param {{word?: string}} [options] the word, for the sentence
 * @returns {{senses: string[], layers: object[], verdict: {outcome: string, layer: number, sentence: string}}}
 */
export function senseSeparation(uses, { word = DEFAULT_SENSES.word } = {}) {
  if (!Array.isArray(uses)) fail('uses', `expected an array of uses, got ${describe(uses)}`, TypeError);
  const streams = uses.map((u, i) => {
    if (!u || typeof u.sense !== 'string' || !u.sense) {
      fail(`uses[${i}].sense`, `expected the name of a sense, got ${describe(u && u.sense)}`, TypeError);
    }
    const s = streamOf(u, i);
    if (!Number.isInteger(u.position) || u.position < 0 || u.position >= s.T) {
      fail(`uses[${i}].position`, `expected the word's token, 0 ≤ position < ${s.T}, got ${describe(u.position)}`);
    }
    if (s.layers !== streamOf(uses[0], 0).layers || s.C !== streamOf(uses[0], 0).C) {
      fail(`uses[${i}].residual`, `shape [${u.residual.shape.join(', ')}] does not match uses[0]'s L + 1 and C`);
    }
    return s;
  });
  const senses = [...new Set(uses.map((u) => u.sense))];
  const count = (sense) => uses.filter((u) => u.sense === sense).length;
  if (senses.length < 2 || senses.some((s) => count(s) < 2)) {
    fail(
      'uses',
      `expected at least two senses with at least two uses each, got ${senses.map((s) => `${s}: ${count(s)}`).join(', ') || 'none'}`,
    );
  }
  const N = uses.length;
  const { layers: L1, C } = streams[0];
  // Baseline tokens: positions ≥ 1 other than the word's.
  const others = streams.map((s, i) => {
    const list = [];
    for (let t = 1; t < s.T; t++) if (t !== uses[i].position) list.push(t);
    return list;
  });
  let basePairs = 0;
  for (let i = 0; i < N; i++) for (let j = i + 1; j < N; j++) basePairs += others[i].length * others[j].length;
  if (basePairs < 2) {
    fail('uses', `the sentences have ${basePairs} pairs of unrelated tokens for the baseline; at least 2 are needed`);
  }

  const layers = [];
  for (let l = 0; l < L1; l++) {
    const at = (i, t) => (l * streams[i].T + t) * C;
    // the word's vectors, their cosines
    const norms = streams.map((s, i) => norm(s.data, at(i, uses[i].position), C));
    const cos = Array.from({ length: N }, () => new Float64Array(N));
    const same = [];
    const different = [];
    for (let i = 0; i < N; i++)
      for (let j = i + 1; j < N; j++) {
        const v = cosine(
          streams[i].data,
          at(i, uses[i].position),
          norms[i],
          streams[j].data,
          at(j, uses[j].position),
          norms[j],
          C,
        );
        cos[i][j] = cos[j][i] = v;
        (uses[i].sense === uses[j].sense ? same : different).push(v);
      }
    // the baseline: unrelated tokens of different sentences
    const otherNorms = others.map((list, i) => list.map((t) => norm(streams[i].data, at(i, t), C)));
    const base = [];
    for (let i = 0; i < N; i++)
      for (let j = i + 1; j < N; j++)
        others[i].forEach((a, x) =>
          others[j].forEach((b, y) =>
            base.push(
              cosine(streams[i].data, at(i, a), otherNorms[i][x], streams[j].data, at(j, b), otherNorms[j][y], C),
            ),
          ),
        );
    const baseMean = mean(base);
    const sd = Math.sqrt(base.reduce((s, v) => s + (v - baseMean) ** 2, 0) / base.length);
    const sameMean = mean(same);
    const differentMean = mean(different);
    const separation = sameMean - differentMean;
    const z = sd > 0 ? separation / sd : separation === 0 ? 0 : Math.sign(separation) * Infinity;
    // nearest other use
    let correct = 0;
    let chance = 0;
    for (let i = 0; i < N; i++) {
      let best = -1;
      for (let j = 0; j < N; j++) if (j !== i && (best < 0 || cos[i][j] > cos[i][best])) best = j;
      if (uses[best].sense === uses[i].sense) correct++;
      chance += (count(uses[i].sense) - 1) / (N - 1);
    }
    const nearest = { correct, total: N, accuracy: correct / N, chance: chance / N };
    const outcome =
      z >= SENSE_THRESHOLDS.clearZ && correct === N ? 'clear' : z >= SENSE_THRESHOLDS.weakZ ? 'weak' : 'none';
    layers.push({
      layer: l,
      same: sameMean,
      different: differentMean,
      baseline: { mean: baseMean, sd, pairs: base.length },
      corrected: { same: sameMean - baseMean, different: differentMean - baseMean },
      separation,
      z,
      nearest,
      outcome,
    });
  }
  let best = layers[0];
  for (const m of layers) {
    const r = OUTCOME_RANK[m.outcome] - OUTCOME_RANK[best.outcome];
    if (r > 0 || (r === 0 && m.z > best.z)) best = m;
  }
  return {
    senses,
    layers,
    verdict: { outcome: best.outcome, layer: best.layer, sentence: VERDICT_TEXT[best.outcome](word, best) },
  };
}

/**
 * What the sense chart draws of a measure (senseSeparation's result): per layer [layer, value] of
 * the same-sense and different-sense cosines above the baseline, and a y range in tenths that
 * holds them, 0 and at least 0.1.
 * @returns {{same: number[][], different: number[][], y0: number, y1: number}}
 */
export function senseChartSeries(result) {
  const same = result.layers.map((m) => [m.layer, m.corrected.same]);
  const different = result.layers.map((m) => [m.layer, m.corrected.different]);
  const values = [...same, ...different].map(([, v]) => v);
  const y0 = Math.floor(Math.min(0, ...values) * 10) / 10;
  const y1 = Math.ceil(Math.max(0.1, ...values) * 10) / 10;
  return { same, different, y0, y1 };
}

// What "Loops" narrates at each step, with the step's numbers. Pure.
import { fmt, fmtVector } from '../format.js';
import { q } from './words.js';

const TEXT = {
  start: 'Press “Step” or “Play” to start with the first query.',
  last: '. That was the last row: the loops are done.',
};

/**
 * @param {null|{kind: 'score'|'mask'|'softmax'|'sum', i: number, j?: number}} s  the step just done
 * @param {object} f  lib/focus.js focusView (trace, head, tokens, weightsUsed)
 * @param {object} options  state.options
 */
export function narrate(s, { trace: t, head: hd, tokens: tok, weightsUsed: W }, options) {
  if (!s) return TEXT.start;
  if (s.kind === 'score') {
    const qs = t.q[hd],
      k = t.k[hd];
    return (
      `Query ${q(tok[s.i])} · key ${q(tok[s.j])}: ${qs[s.i].map((a, c) => `${fmt(a)}×${fmt(k[s.j][c])}`).join(' + ')} = ${fmt(t.scores[hd][s.i][s.j])}` +
      (t.scale !== 1 || options.temperature !== 1 ? `, scaled to ${fmt(t.scaled[hd][s.i][s.j])}` : '') +
      '.'
    );
  }
  if (s.kind === 'mask') return `${q(tok[s.j])} comes after ${q(tok[s.i])}: skipped, its score is −∞.`;
  if (s.kind === 'softmax')
    return `Softmax of row ${q(tok[s.i])}: weights ${fmtVector(W[s.i])}, summing to ${fmt(W[s.i].reduce((a, b) => a + b, 0))}.`;
  return (
    `Output row ${q(tok[s.i])} = ${W[s.i].map((w, j) => `${fmt(w)}·v(${tok[j]})`).join(' + ')} = ${fmtVector(t.headOutputs[hd][s.i])}` +
    (s.i === tok.length - 1 ? TEXT.last : '.')
  );
}

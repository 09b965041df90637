// Item 8: the formula softmax(QKᵀ/√dₖ)·V, then the same formula with the current numbers for one
// query row, as MathML built by ui/mathml.js (each <math> carries its TeX as an annotation).
// Token names never go into the formulas (they are untrusted); rows are named by index and the
// names are shown as plain text beside them.
import { h, uid, setOptions, withSection } from '../ui/dom.js';
import { math, mi, mn, mo, mtext, opname, row, frac, sqrt, sup, sub, fenced, vector, space } from '../ui/mathml.js';
import { fmt } from '../lib/format.js';
import { focusView } from '../lib/focus.js';
import { formulaLegend } from '../lib/claims/formula.js';

const TEXT = {
  title: 'The formula',
  // “Everything above” only where the step-by-step section is shown above it (ui/dom.js withSection).
  introAfterSteps: 'Everything above, in one line. ',
  intro:
    'Q·Kᵀ holds all the dot products; dividing by √dₖ keeps them in a range where the softmax still spreads its weight; the softmax runs along each row; multiplying by V takes the weighted sums.',
  pick: 'With the numbers of query row ',
};

// Numbers as the formulas print them: 3 decimals, ASCII minus (TeX), −∞ as \infty.
const num = (v) => (v === -Infinity ? '-\\infty' : fmt(v, 3).replace('\u2212', '-'));
const numbers = (xs) => vector(xs.map(num));
const top = mo('\u22a4', '\\top');
const transposed = (name) => sup(mi(name), top);

/** Attention(Q, K, V) = softmax(QKᵀ/√d_k)·V, as two halves a narrow screen may put on two lines. */
function generalFormula() {
  const attention = row(opname('Attention'), fenced('(', ')', row(mi('Q'), mo(','), mi('K'), mo(','), mi('V'))));
  const scores = frac(row(mi('Q'), transposed('K')), sqrt(sub(mi('d'), mi('k'))));
  return [row(attention, mo('=')), row(opname('softmax'), fenced('(', ')', scores), mi('V'))];
}

/** The formula's lines for query row i of head hd, with the trace's numbers. */
function rowFormulas(t, hd, i, options) {
  const hk = t.q[hd][0].length;
  const qiKt = row(sub(mi('q'), mn(i)), transposed('K'));
  const temperature = options.temperature !== 1 ? frac(mn(1), mn(num(options.temperature))) : null;
  const factorParts = [];
  if (options.scale) factorParts.push(frac(mn(1), sqrt(mn(hk))));
  if (temperature) factorParts.push(temperature);
  const factor = factorParts.length
    ? row(...factorParts.flatMap((p, n) => (n ? [mo('\u00b7', '\\cdot'), p] : [p])))
    : mn(1);
  const s = t.scale / options.temperature;
  const lines = [
    row(qiKt, mo('='), numbers(t.scores[hd][i])),
    [
      row(factor, space(0.1667), qiKt, mo('='), numbers(t.scaled[hd][i])),
      ...(s !== 1 ? [row(fenced('(', ')', row(mo('\u00d7', '\\times'), mn(num(s)))))] : []),
    ],
  ];
  if (options.causal) lines.push(row(mtext('masked: '), numbers(t.masked[hd][i])));
  lines.push(row(opname('softmax'), fenced('(', ')', mo('\u00b7', '\\cdot')), mo('='), numbers(t.weights[hd][i])));
  const terms = t.weights[hd][i].flatMap((w, j) => [
    ...(j ? [mo('+')] : []),
    mn(num(w)),
    space(0.1667),
    sub(mi('v'), mn(j)),
  ]);
  // The weighted sum and its value: two halves that wrap onto two lines where the width is short.
  lines.push([row(sub(mtext('output'), mn(i)), mo('='), ...terms), row(mo('='), numbers(t.headOutputs[hd][i]))]);
  return lines;
}

export function render(section, app) {
  const { doc, store } = app;
  // Math blocks may scroll sideways on a phone: focusable so the keyboard can scroll them too.
  const mathBox = (label, extra = '') =>
    h(doc, 'div', { class: `ae-math ${extra}`, tabindex: 0, role: 'group', 'aria-label': label });
  const general = mathBox('the attention formula', 'ae-math-general ae-math-wrap');
  general.append(...generalFormula().map((part) => math(doc, part)));
  const rowId = uid('row');
  const rowSel = h(doc, 'select', {
    id: rowId,
    onchange: (e) => store.set({ selected: { matrix: 'weights', row: Number(e.target.value), col: 0 } }),
  });
  const legend = h(doc, 'p', { class: 'ae-help' });
  const steps = h(doc, 'div', { class: 'ae-math-steps' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, withSection(doc, 'pipeline', TEXT.introAfterSteps), TEXT.intro),
    general,
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: rowId }, TEXT.pick), rowSel),
    legend,
    steps,
  );
  let last = '';

  return {
    update() {
      const { state, results } = app;
      const f = focusView(state, results);
      if (!f) return;
      const { trace: t, head: hd, tokens: tok, highlightRows: hl } = f;
      const sel = state.selected?.row;
      const i = Number.isInteger(sel) && sel < tok.length ? sel : Math.max(0, hl[0] ?? 0);
      setOptions(
        doc,
        rowSel,
        tok.map((w, n) => ({ value: n, label: `${n}: ${w}` })),
        i,
      );
      legend.textContent = formulaLegend(f, i, state.focus);
      const lines = rowFormulas(t, hd, i, state.options);
      const key = lines
        .map((l) =>
          [l]
            .flat()
            .map((part) => part.tex)
            .join(' '),
        )
        .join('\n');
      if (key === last) return;
      last = key;
      steps.replaceChildren(
        ...lines.map((l) =>
          h(
            doc,
            'div',
            {
              class: `ae-math${Array.isArray(l) ? ' ae-math-wrap' : ''}`,
              tabindex: 0,
              role: 'group',
              'aria-label': 'the formula with the numbers of the selected row',
            },
            ...[l].flat().map((part) => math(doc, part)),
          ),
        ),
      );
    },
  };
}

// Item 8: the formula softmax(QKᵀ/√dₖ)·V typeset with KaTeX (bundled, no CDN), then the same
// formula with the current numbers for one query row. Token names never go into TeX (they are
// untrusted); rows are named by index and the names are shown as plain text.
// KaTeX is loaded on first use (it is the largest script on the page and not needed for the
// first paint), and typesetting is throttled while a value is being dragged (app.dragging).
import { h, uid, setOptions } from '../lib/dom.js';
import { fmt } from '../lib/format.js';
import { sharedWords } from '../lib/state.js';

const tex = (v) => fmt(v, 3).replace('\u2212', '-').replace('-\u221e', '-\\infty');
const vec = (xs) => `\\begin{bmatrix}${xs.map(tex).join(' & ')}\\end{bmatrix}`;

export function render(section, app) {
  const { doc, store } = app;
  // Math blocks may scroll sideways on a phone: focusable so the keyboard can scroll them too.
  const mathBox = (label, extra = '') => h(doc, 'div', { class: `ae-math ${extra}`, tabindex: 0, role: 'group', 'aria-label': label });
  const general = mathBox('the attention formula', 'ae-math-general');
  const rowId = uid('row');
  const rowSel = h(doc, 'select', { id: rowId, onchange: (e) => store.set({ selected: { matrix: 'weights', row: Number(e.target.value), col: 0 } }) });
  const legend = h(doc, 'p', { class: 'ae-help' });
  const steps = h(doc, 'div', { class: 'ae-math-steps' });
  section.append(
    h(doc, 'h2', {}, 'The formula'),
    h(doc, 'p', {}, 'Everything above, in one line. Q·Kᵀ holds all the dot products; dividing by √dₖ keeps them in a range where the softmax still spreads its weight; the softmax runs along each row; multiplying by V takes the weighted sums.'),
    general,
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: rowId }, 'With the numbers of query row '), rowSel),
    legend, steps);
  let katex = null;
  let last = '';
  let lastTime = -Infinity;
  let timer = 0;
  const THROTTLE_MS = 120;
  const katexReady = import('../vendor/katex/katex.mjs').then((m) => {
    katex = m.default;
    katex.render('\\operatorname{Attention}(Q,K,V)=\\operatorname{softmax}\\!\\left(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\right)V', general, { displayMode: true, throwOnError: false, output: 'htmlAndMathml' });
    update();
  }, (err) => { general.textContent = `The formula could not be typeset: ${err.message}`; });

  function typeset(lines) {
    timer = 0;
    lastTime = app.win.performance.now();
    steps.replaceChildren();
    for (const l of lines) {
      const div = mathBox('the formula with the numbers of the selected row');
      katex.render(l, div, { displayMode: true, throwOnError: false, output: 'htmlAndMathml' });
      steps.append(div);
    }
  }

  function update() {
    const { state, results } = app;
    if (!results) return;
    const entry = results.contexts[state.focus];
    if (!entry?.trace) return;
    const t = entry.trace;
    const hd = Math.min(state.options.head, t.q.length - 1);
    const tok = entry.tokens;
    const sel = state.selected?.row;
    const i = Number.isInteger(sel) && sel < tok.length ? sel : Math.max(0, tok.indexOf(sharedWords(state)[0]));
    setOptions(doc, rowSel, tok.map((w, n) => ({ value: n, label: `${n}: ${w}` })), i);
    legend.textContent = `Row ${i} is “${tok[i]}” in “${state.focus}”; keys and values 0…${tok.length - 1} are ${tok.map((w, n) => `${n} “${w}”`).join(', ')}.`;
    const hk = t.q[hd][0].length;
    const s = t.scale / state.options.temperature;
    const factor = state.options.scale
      ? `\\frac{1}{\\sqrt{${hk}}}` + (state.options.temperature !== 1 ? `\\cdot\\frac{1}{${tex(state.options.temperature)}}` : '')
      : (state.options.temperature !== 1 ? `\\frac{1}{${tex(state.options.temperature)}}` : '1');
    const lines = [
      `q_{${i}}K^{\\top} = ${vec(t.scores[hd][i])}`,
      `${factor}\\, q_{${i}}K^{\\top} = ${vec(t.scaled[hd][i])}` + (s !== 1 ? `\\quad(\\times ${tex(s)})` : ''),
      ...(state.options.causal ? [`\\text{masked: } ${vec(t.masked[hd][i])}`] : []),
      `\\operatorname{softmax}(\\cdot) = ${vec(t.weights[hd][i])}`,
      `\\text{output}_{${i}} = ${t.weights[hd][i].map((w, j) => `${tex(w)}\\,v_{${j}}`).join(' + ')} = ${vec(t.headOutputs[hd][i])}`,
    ];
    const key = lines.join('\n');
    if (key === last || !katex) return;   // typesetting is the slowest part of an update
    last = key;
    // At most one typesetting per THROTTLE_MS; the last change always gets typeset.
    if (timer) app.win.clearTimeout(timer);
    const wait = app.dragging ? lastTime + THROTTLE_MS - app.win.performance.now() : 0;
    if (wait <= 0) typeset(lines);
    else timer = app.win.setTimeout(() => typeset(lines), wait);
  }
  return { update, ready: katexReady, destroy: () => timer && app.win.clearTimeout(timer) };
}

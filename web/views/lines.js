// Attention as lines: where each token of the focused context looks, one colour per head, with
// head toggles, token isolation (ui/attention-lines.js), the numbers as tables for screen readers
// and PNG/SVG exports. The bank section draws the same picture small beside its tables.
import { h, uid } from '../ui/dom.js';
import { createAttentionLines } from '../ui/attention-lines.js';
import { headColor } from '../lib/palette.js';
import { focusView } from '../lib/focus.js';
import { linesLayout } from '../lib/lines-image.js';
import { fileStem } from '../lib/text.js';
import { saveLines } from '../tools/lines-export.js';
import { exportBar } from '../tools/export-buttons.js';

const TEXT = {
  title: 'Where each token looks',
  intro:
    'Each line joins a query token on the left to a key token on the right; the wider and darker the line, the larger its weight (a row of weights sums to 1, so each token’s lines share out one unit). Hover, focus or tap a token to see only its lines and read their weights; masked pairs have no line.',
  heads: 'Heads shown',
  numbers: 'The same weights as numbers',
};

export function render(section, app) {
  const { doc } = app;
  // One picture per sentence shown: the example's alone, or every sentence for "both".
  const figures = h(doc, 'div', { class: 'ae-row ae-lines-row' });
  const pictures = new Map(); // context name → lines picture
  const toggles = h(doc, 'fieldset', { class: 'ae-radio ae-head-toggles' });
  const hidden = new Set(); // heads the reader switched off
  const numbers = h(doc, 'div', { class: 'ae-row' });
  let tables = [];
  let last = null; // {view, name}: the focused sentence's picture, for the exports
  const exports = exportBar(doc, {
    className: 'ae-lines-export',
    label: 'Export the lines picture',
    save: (kind) =>
      saveLines(
        doc,
        kind,
        linesLayout({ ...last.view, title: `attention lines: ${last.name}` }),
        fileStem(`lines ${last.name}`),
      ),
  });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    toggles,
    figures,
    exports,
    h(doc, 'details', { class: 'ae-lines-numbers' }, h(doc, 'summary', {}, TEXT.numbers), numbers),
  );

  function picture(name) {
    let lines = pictures.get(name);
    if (!lines) {
      lines = createAttentionLines(doc, { label: `attention lines of ${name}`, colors: 'heads' });
      lines.el.dataset.context = name;
      pictures.set(name, lines);
    }
    return lines;
  }

  function update() {
    const { state, results } = app;
    const f = focusView(state, results);
    if (!f) return;
    const { trace: t, heads: H, tokens } = f;
    const theme = app.container.dataset.theme;
    // Head toggles (only when there is more than one head).
    if (toggles.dataset.heads !== String(H)) buildToggles(doc, toggles, H, theme, hidden, update);
    toggles.hidden = H === 1;
    const heads = Array.from({ length: H }, (_, hh) => hh).filter((hh) => !hidden.has(hh));
    // The sentences to draw: the example's alone when it names one, else all; the focused first.
    const names = Object.keys(results.contexts).filter((n) => results.contexts[n].trace);
    const shown = names.includes(state.example)
      ? [state.example]
      : [state.focus, ...names.filter((n) => n !== state.focus)].filter((n) => names.includes(n));
    for (const name of pictures.keys()) if (!shown.includes(name)) pictures.get(name).el.remove();
    shown.forEach((name) => {
      const entry = results.contexts[name];
      const tr = entry.trace;
      const view = {
        tokens: entry.tokens,
        weights: tr.weights,
        heads,
        colors: 'heads',
        masked: (hh, i, j) => tr.masked[hh][i][j] === -Infinity,
      };
      const lines = picture(name);
      if (lines.el.parentNode !== figures) figures.append(lines.el);
      lines.update({
        ...view,
        theme,
        caption: `“${name}”: ${entry.tokens.join(' ')}${H > 1 ? ` · ${heads.length} of ${H} heads` : ''}`,
      });
      if (name === state.focus || !last || !shown.includes(last.name)) last = { view, name };
    });
    // Keep the pictures in the order of `shown`.
    shown.forEach((name) => figures.append(pictures.get(name).el));
    // The numbers: one weights table per head, of the focused sentence.
    if (tables.length !== H) {
      numbers.replaceChildren();
      tables = Array.from({ length: H }, (_, hh) => {
        const hm = app.heatmap({
          id: `lines-weights-${hh}`,
          caption: '',
          rowLabels: [],
          colLabels: [],
          values: [[0]],
          kind: 'weights',
        });
        numbers.append(hm.el);
        return hm;
      });
    }
    tables.forEach((hm, hh) =>
      hm.update({
        context: state.focus,
        values: t.weights[hh],
        rowLabels: tokens,
        colLabels: tokens,
        masked: (i, j) => t.masked[hh][i][j] === -Infinity,
        caption: `head ${hh}: weights (query row, key column)`,
        cornerLabel: 'query \\ key',
      }),
    );
  }
  return { update };
}

// One checkbox per head, in its colour: a head switched off (`hidden`) draws no lines.
function buildToggles(doc, toggles, H, theme, hidden, redraw) {
  toggles.dataset.heads = String(H);
  hidden.clear();
  toggles.replaceChildren(
    h(doc, 'legend', {}, TEXT.heads),
    ...Array.from({ length: H }, (_, hh) => {
      const id = uid('head');
      const onchange = (e) => {
        if (e.target.checked) hidden.delete(hh);
        else hidden.add(hh);
        redraw();
      };
      return h(
        doc,
        'span',
        {},
        h(doc, 'input', { type: 'checkbox', id, checked: true, onchange }),
        h(
          doc,
          'label',
          { for: id },
          h(doc, 'span', { class: 'ae-swatch', style: `background:${headColor(hh, theme)}` }),
          `head ${hh}`,
        ),
      );
    }),
  );
}

// Every layer × head of a model as small multiples of attention lines over one sequence, each
// with a button that shows it enlarged (the chosen head, drawn by head-heatmap.js), and their
// exports: the chosen head's lines, or every layer and head as one picture (PNG 2× with the
// weights inside as CSV, or SVG). Used by the Learn section; `labels` read position:token.
import { h } from '../../ui/dom.js';
import { createAttentionLines } from '../../ui/attention-lines.js';
import { saveLines, saveGrid } from '../../tools/lines-export.js';
import { linesLayout, gridLayout } from '../../lib/lines-image.js';
import { fileStem } from '../../lib/text.js';
import { exportButton, exportStatus, reportExport } from '../../tools/export-buttons.js';
import { announceWhenScrolling } from '../../ui/scroll-region.js';

const TEXT = {
  title: 'Every layer and head on one held-out example',
  labels:
    'In each picture the queries are on the left and the keys on the right; a line goes from a query to a key it attends to, thicker and darker for more weight. Labels read position:token (“3:9” is the token 9 at position 3).',
  pick: 'Show as heatmap',
  exportLines: 'Save the chosen head’s lines',
  exportGrid: 'Every layer and head as one picture',
};
const causal = (_, i, j) => j > i;

/**
 * @param {Element} parent
 * @param {{doc, onPick: (layer, head) => void, title: () => string, stem: () => string}} ctx
 *   onPick: the reader chose a head; title: the export's title; stem: the export file names' stem
 * @returns {{update({attention, labels, chosen}), clear()}}
 */
export function render(parent, { doc, onPick, title, stem }) {
  const box = h(doc, 'div', { class: 'ae-learn-grid ae-hm-scroll' });
  announceWhenScrolling(box, () => TEXT.title);
  const status = exportStatus(doc);
  let cells = [];
  let shown = null; // {attention, labels, chosen}

  function saveHead(kind) {
    const { attention, labels, chosen } = shown;
    const L = linesLayout({
      tokens: labels,
      weights: [attention[chosen.layer].weights[chosen.head]],
      masked: causal,
      title: `${title()}: layer ${chosen.layer + 1}, head ${chosen.head + 1}`,
    });
    return saveLines(doc, kind, L, fileStem(`${stem()} layer ${chosen.layer + 1} head ${chosen.head + 1}`));
  }
  function saveEvery(kind) {
    const { attention, labels } = shown;
    const G = gridLayout({
      tokens: labels,
      attention: attention.map((layer) => layer.weights),
      masked: causal,
      title: `${title()}: every layer and head`,
    });
    return saveGrid(doc, kind, G, fileStem(`${stem()} every head`));
  }
  const button = (kind, what, label) =>
    exportButton(
      doc,
      kind,
      () =>
        shown &&
        (what === 'head'
          ? reportExport(status, () => saveHead(kind), `${kind.toUpperCase()} saved`)
          : reportExport(status, () => saveEvery(kind), `${kind.toUpperCase()} of every head saved`)),
      { label },
    );
  const exports = h(
    doc,
    'div',
    { class: 'ae-export-actions ae-learn-lines-export', role: 'group', 'aria-label': TEXT.exportLines },
    h(doc, 'span', {}, `${TEXT.exportLines}: `),
    button('png', 'head', TEXT.exportLines),
    button('svg', 'head', TEXT.exportLines),
    h(
      doc,
      'span',
      { class: 'ae-learn-grid-export', role: 'group', 'aria-label': TEXT.exportGrid },
      ` ${TEXT.exportGrid}: `,
      button('png', 'grid', TEXT.exportGrid),
      button('svg', 'grid', TEXT.exportGrid),
    ),
    status,
  );
  const labelsHelp = h(doc, 'p', { class: 'ae-help ae-learn-labels' }, TEXT.labels);
  const heading = h(doc, 'h3', { class: 'ae-prose' }, TEXT.title);
  parent.append(heading, labelsHelp, box, exports);

  function build(L, H) {
    box.replaceChildren();
    box.style.setProperty('--ae-learn-heads', String(H));
    cells = [];
    for (let l = 0; l < L; l++) {
      for (let hh = 0; hh < H; hh++) {
        const lines = createAttentionLines(doc, {
          compact: true,
          caption: `layer ${l + 1} · head ${hh + 1}`,
          label: `attention lines of layer ${l + 1}, head ${hh + 1}`,
        });
        const pick = h(
          doc,
          'button',
          { type: 'button', class: 'ae-btn ae-learn-pick', onclick: () => onPick(l, hh) },
          TEXT.pick,
        );
        const cell = h(doc, 'div', { class: 'ae-learn-cell', dataset: { layer: l, head: hh } }, lines.el, pick);
        box.append(cell);
        cells.push({ lines, cell });
      }
    }
  }

  return {
    update({ attention, labels, chosen }) {
      shown = { attention, labels, chosen };
      const L = attention.length;
      const H = attention[0]?.weights.length ?? 0;
      // One layer of one head is the enlarged heatmap already: no grid of one.
      const one = L * H === 1;
      heading.hidden = one;
      labelsHelp.hidden = one; // it describes the lines, not the enlarged heatmap
      box.hidden = one;
      if (cells.length !== L * H) build(L, H);
      const theme = parent.closest('.ae-root')?.dataset.theme === 'dark' ? 'dark' : 'light';
      cells.forEach(({ lines, cell }, n) => {
        const l = Math.floor(n / H),
          hh = n % H;
        cell.classList.toggle('ae-learn-chosen', l === chosen.layer && hh === chosen.head);
        lines.update({ tokens: labels, weights: [attention[l].weights[hh]], theme, masked: causal });
      });
      exports.hidden = false;
    },
    /** No model on screen (a new task is starting): no pictures of the old one. */
    clear() {
      shown = null;
      cells = [];
      box.replaceChildren();
      exports.hidden = true;
      status.textContent = '';
    },
  };
}

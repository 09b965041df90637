// Item 1: two contexts, one word. The shared word ("bank") has the same embedding in both
// sentences and the same vector after a plain linear layer; only self-attention, which mixes in
// the neighbours, makes the two differ. Cosine similarities (engine.cosine) say by how much.
import { h } from '../ui/dom.js';
import { createAttentionLines } from '../ui/attention-lines.js';
import { fmt } from '../lib/format.js';
import { setValue } from '../lib/state.js';
import { highlightRows } from '../lib/focus.js';

const dimLabels = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);

export function render(section, app) {
  const { doc } = app;
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, 'Two sentences, one word'),
    h(
      doc,
      'p',
      {},
      'The word “bank” means something different next to “stream” and “mud” than next to “money” and “loan”. ',
      'An embedding table cannot know that: it hands “bank” the same vector in both sentences. ',
      'A layer that treats each token on its own (a plain linear layer, X·W) still cannot tell them apart. ',
      'Self-attention can, because each token’s new vector is a weighted mix of the value vectors of every token in the sentence, itself included.',
    ),
    h(
      doc,
      'p',
      { class: 'ae-help' },
      'Cosine similarity compares the directions of two vectors: 1 when they point the same way, 0 at right angles, −1 opposite; their lengths do not matter.',
    ),
  );
  const grid = h(doc, 'div', { class: 'ae-two' });
  section.append(grid);
  const cols = {};

  const cosTable = h(doc, 'table', { class: 'ae-cos' });
  const cosCaption = h(doc, 'caption', {});
  const cosBody = h(doc, 'tbody');
  cosTable.append(
    cosCaption,
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'col' }, 'vectors compared'),
        h(doc, 'th', { scope: 'col' }, 'cosine similarity'),
      ),
    ),
    cosBody,
  );
  const wHolder = h(doc, 'div', { class: 'ae-card' });
  const wMap = app.heatmap({
    id: 'w',
    caption: 'W, the plain linear layer (D × 3)',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    editable: {
      commit: (i, j, v) => app.edit((s) => setValue(s, { matrix: 'w' }, i, j, v)),
      error: app.notify,
    },
  });
  wHolder.append(wMap.el);
  section.append(h(doc, 'div', { class: 'ae-cos-wrap' }, h(doc, 'div', { class: 'ae-card' }, cosTable), wHolder));

  function column(name) {
    const title = h(doc, 'h3', {});
    const card = h(doc, 'div', { class: 'ae-card ae-context', 'data-context': name }, title);
    const common = { context: name, rowLabels: [], colLabels: [], values: [[0]] };
    const x = app.heatmap({ ...common, id: 'x', caption: 'X: embeddings' });
    const linear = app.heatmap({ ...common, id: 'linear', caption: 'X·W: plain linear layer' });
    const output = app.heatmap({ ...common, id: 'output', caption: 'self-attention output' });
    const lines = createAttentionLines(doc, { compact: true, label: `where each token of ${name} looks` });
    card.append(lines.el, x.el, linear.el, output.el);
    const stale = h(doc, 'p', { class: 'ae-stale', hidden: true }, 'Showing the last result the engine could compute.');
    card.append(stale);
    grid.append(card);
    return { card, title, x, linear, output, lines, stale };
  }

  return {
    update() {
      const { state, results } = app;
      for (const [name, entry] of Object.entries(results.contexts)) {
        const c = (cols[name] ||= column(name));
        c.title.textContent = `${name}: ${entry.tokens.join(' ')}`;
        const hl = highlightRows(state, entry.tokens);
        c.x.update({
          values: entry.x,
          rowLabels: entry.tokens,
          colLabels: dimLabels(entry.x[0].length, 'd'),
          highlightRows: hl,
        });
        if (entry.linear?.length)
          c.linear.update({
            values: entry.linear,
            rowLabels: entry.tokens,
            colLabels: dimLabels(entry.linear[0].length, 'c'),
            highlightRows: hl,
          });
        if (entry.trace) {
          const t = entry.trace;
          c.lines.update({
            tokens: entry.tokens,
            weights: t.weights,
            masked: (hh, i, j) => t.masked[hh][i][j] === -Infinity,
            theme: app.container.dataset.theme,
            caption: 'where each token looks (line width = attention weight)',
          });
          c.output.update({
            values: entry.trace.output,
            rowLabels: entry.tokens,
            colLabels: dimLabels(entry.trace.output[0].length, 'o'),
            highlightRows: hl,
          });
        }
        c.stale.hidden = !entry.stale;
        // state.example names one context to show alone ('river', 'finance'); else all of them.
        c.card.hidden = name !== state.example && state.example in results.contexts;
      }
      const w = state.weights.w;
      wMap.update({
        values: w,
        rowLabels: dimLabels(w.length, 'd'),
        colLabels: dimLabels(w[0].length, 'c'),
        caption: `W, the plain linear layer (${w.length} × ${w[0].length})`,
      });
      const names = Object.keys(results.contexts);
      cosCaption.textContent = results.cosines.length
        ? `The shared word in “${names[0]}” and “${names[1]}”`
        : 'The two contexts share no word: add one to both to compare its vectors.';
      // Rows are rebuilt only when the shared words change; otherwise their numbers are updated in place.
      const KINDS = [
        ['embedding', 'embeddings'],
        ['linear', 'after the plain linear layer'],
        ['attention', 'after self-attention'],
      ];
      const key = results.cosines.map((c) => c.word).join('\u0000');
      if (cosBody.dataset.key !== key) {
        cosBody.dataset.key = key;
        cosBody.replaceChildren(
          ...results.cosines.flatMap((c) =>
            KINDS.map(([kind, label]) =>
              h(
                doc,
                'tr',
                { class: kind === 'attention' ? 'ae-cos-key' : '' },
                h(doc, 'th', { scope: 'row' }, `“${c.word}”, ${label}`),
                h(doc, 'td', { 'data-cos': kind, 'data-word': c.word }),
              ),
            ),
          ),
        );
      }
      const cells = cosBody.querySelectorAll('td');
      results.cosines.forEach((c, n) =>
        KINDS.forEach(([kind], m) => {
          const td = cells[n * KINDS.length + m];
          const v = c[kind];
          const text = v === null ? '—' : fmt(v);
          if (td.textContent !== text) td.textContent = text;
          td.dataset.value = v === null ? '' : String(v);
        }),
      );
    },
  };
}

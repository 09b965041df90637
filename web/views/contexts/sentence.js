// One sentence of the bank contrast: where its words look, as lines — the shared word's own lines
// shown with their weights until the reader points at another word — and, below the section's
// claims, its self-attention output; behind the section's details its embeddings X and X·W (the
// plain linear layer). Every matrix's rows are the sentence's tokens (a click picks one for the
// formula).
import { h } from '../../ui/dom.js';
import { createAttentionLines } from '../../ui/attention-lines.js';
import { indexLabels } from '../../lib/format.js';
import { highlightRows } from '../../lib/focus.js';

const TEXT = {
  title: (name, tokens) => `${name}: ${tokens.join(' ')}`,
  lines: (word) => (word ? `where “${word}” looks` : 'where each word looks'),
  stale: 'Showing the last result the engine could compute.',
};

/**
 * @param {{grid: Element, outputs: Element, details: Element}} places  the pictures' row, the
 *   outputs' row, the matrices behind the disclosure
 * @param {object} app
 * @param {string} name  the context
 * @returns {{update(state, entry, outputCaption)}}  entry: results.contexts[name]; outputCaption(name)
 */
export function render({ grid, outputs, details }, app, name) {
  const { doc } = app;
  const title = h(doc, 'h3', {});
  const card = h(doc, 'div', { class: 'ae-card ae-context', 'data-context': name }, title);
  const common = { context: name, rowLabels: [], colLabels: [], values: [[0]] };
  const shows = (matrix) => ({ shows: { matrix, tokenRows: true } });
  const lines = createAttentionLines(doc, {
    compact: true,
    colors: 'heads',
    gap: 110,
    label: `where each token of ${name} looks`,
  });
  lines.el.classList.add('ae-contrast-lines');
  const output = app.heatmap({ ...common, ...shows('output'), id: 'output', caption: 'self-attention output' });
  const stale = h(doc, 'p', { class: 'ae-stale', hidden: true }, TEXT.stale);
  card.append(lines.el, stale);
  grid.append(card);
  outputs.append(output.el);
  const x = app.heatmap({ ...common, ...shows('x'), id: 'x', caption: `X of “${name}”: embeddings` });
  const linear = app.heatmap({
    ...common,
    ...shows('linear'),
    id: 'linear',
    caption: `X·W of “${name}”: plain linear layer`,
  });
  details.append(x.el, linear.el);

  return {
    update(state, entry, outputCaption) {
      title.textContent = TEXT.title(name, entry.tokens);
      const hl = highlightRows(state, entry.tokens);
      x.update({
        values: entry.x,
        rowLabels: entry.tokens,
        colLabels: indexLabels(entry.x[0].length, 'd'),
        highlightRows: hl,
      });
      if (entry.linear?.length)
        linear.update({
          values: entry.linear,
          rowLabels: entry.tokens,
          colLabels: indexLabels(entry.linear[0].length, 'c'),
          highlightRows: hl,
        });
      if (entry.trace) {
        const t = entry.trace;
        lines.update({
          tokens: entry.tokens,
          weights: t.weights,
          masked: (hh, i, j) => t.masked[hh][i][j] === -Infinity,
          theme: app.container.dataset.theme,
          caption: TEXT.lines(entry.tokens[hl[0]]),
          focus: hl.length ? { side: 'query', index: hl[0] } : null,
        });
        output.update({
          values: t.output,
          rowLabels: entry.tokens,
          colLabels: indexLabels(t.output[0].length, 'o'),
          highlightRows: hl,
          caption: outputCaption(name),
        });
      }
      stale.hidden = !entry.stale;
      // state.example names one context to show alone ('river', 'finance'); else all of them.
      const alone = name !== state.example && state.example in app.results.contexts;
      card.hidden = alone;
      output.el.hidden = alone;
    },
  };
}

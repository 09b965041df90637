// Two sentences, one word (seed 003): "bank" has the same embedding in both sentences and the
// same vector after a plain linear layer; self-attention mixes each token with its sentence, so
// the two "bank"s come out different. The cosine table says by how much, beside a plain average
// of each sentence — which shows honestly what these hand-set weights do and do not do: they
// spread "bank"'s attention almost evenly, so the two differ because their neighbours differ.
// The matrices behind it (X, X·W, W) are one click deeper.
import { h } from '../ui/dom.js';
import { createAttentionLines } from '../ui/attention-lines.js';
import { fmt } from '../lib/format.js';
import { setValue } from '../lib/state.js';
import { highlightRows } from '../lib/focus.js';
import { contrastClaims } from '../lib/contrast.js';

const TEXT = {
  title: 'Two sentences, one word',
  intro:
    '“bank” means one thing next to “stream” and “mud”, another next to “money” and “loan”, yet an embedding table gives it one vector in both, and a layer that treats each token on its own (a plain linear layer, X·W) keeps the two equal. Self-attention replaces each token’s vector with a weighted mix of its sentence — the lines show the weights — so the same word can come out different.',
  cosineHelp: 'Cosine: 1 when two vectors point the same way, 0 at right angles, −1 opposite.',
  details: 'The numbers behind it: X, X·W and W',
  learnPointer:
    'These weights were set by hand. A model that learns them does more: in Learn (“Bank, learned”), one head comes to put about 0.96 of “bank”’s attention on the word that says which bank it is.',
  goLearn: 'Go to Learn',
  kinds: {
    embedding: 'as embeddings',
    linear: 'after the plain linear layer X·W',
    average: 'plain average of its sentence (equal weights)',
    attention: 'after self-attention',
  },
};
const KINDS = ['embedding', 'linear', 'average', 'attention'];
const dimLabels = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);

export function render(section, app) {
  const { doc } = app;
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  const honest = h(doc, 'p', { class: 'ae-prose ae-contrast-honest' });
  // The learned bank model is on this page's Learn section; where there is none, nothing to point at.
  const pointer = app.sections.some((s) => s.id === 'learn')
    ? h(
        doc,
        'p',
        { class: 'ae-prose ae-help' },
        TEXT.learnPointer,
        ' ',
        h(doc, 'button', { type: 'button', class: 'ae-link', onclick: () => app.goTo('learn') }, TEXT.goLearn),
      )
    : null;
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    claim,
  );
  const grid = h(doc, 'div', { class: 'ae-two' });
  section.append(grid);
  const cols = {};

  const cosCaption = h(doc, 'caption', {});
  const cosBody = h(doc, 'tbody');
  const cosTable = h(
    doc,
    'table',
    { class: 'ae-cos' },
    cosCaption,
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'col' }, 'the shared word, compared'),
        h(doc, 'th', { scope: 'col' }, 'cosine'),
      ),
    ),
    cosBody,
  );
  section.append(
    h(doc, 'div', { class: 'ae-card ae-cos-card' }, cosTable, h(doc, 'p', { class: 'ae-help' }, TEXT.cosineHelp)),
    honest,
    pointer,
  );

  // One click deeper: the embeddings, the plain linear layer and its editable W.
  const details = h(doc, 'div', { class: 'ae-row' });
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
  section.append(
    h(doc, 'details', { class: 'ae-details ae-contrast-details' }, h(doc, 'summary', {}, TEXT.details), details),
  );

  function column(name) {
    const title = h(doc, 'h3', {});
    const card = h(doc, 'div', { class: 'ae-card ae-context', 'data-context': name }, title);
    const common = { context: name, rowLabels: [], colLabels: [], values: [[0]] };
    const lines = createAttentionLines(doc, { compact: true, label: `where each token of ${name} looks` });
    lines.el.classList.add('ae-contrast-lines');
    // Their rows are the sentence's tokens: a click picks one for the formula.
    const shows = (matrix) => ({ shows: { matrix, tokenRows: true } });
    const output = app.heatmap({ ...common, ...shows('output'), id: 'output', caption: 'self-attention output' });
    const stale = h(doc, 'p', { class: 'ae-stale', hidden: true }, 'Showing the last result the engine could compute.');
    card.append(h(doc, 'div', { class: 'ae-row' }, lines.el, output.el), stale);
    grid.append(card);
    // Its matrices behind the figure, in the details.
    const x = app.heatmap({ ...common, ...shows('x'), id: 'x', caption: `X of “${name}”: embeddings` });
    const linear = app.heatmap({
      ...common,
      ...shows('linear'),
      id: 'linear',
      caption: `X·W of “${name}”: plain linear layer`,
    });
    details.append(x.el, linear.el);
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
            caption: 'where each token looks',
          });
          c.output.update({
            values: t.output,
            rowLabels: entry.tokens,
            colLabels: dimLabels(t.output[0].length, 'o'),
            highlightRows: hl,
          });
        }
        c.stale.hidden = !entry.stale;
        // state.example names one context to show alone ('river', 'finance'); else all of them.
        c.card.hidden = name !== state.example && state.example in results.contexts;
      }
      details.append(wMap.el); // after every context's matrices
      const w = state.weights.w;
      wMap.update({
        values: w,
        rowLabels: dimLabels(w.length, 'd'),
        colLabels: dimLabels(w[0].length, 'c'),
        caption: `W, the plain linear layer (${w.length} × ${w[0].length})`,
      });

      if (pointer) pointer.hidden = !(state.view.includes('all') || state.view.includes('learn'));
      const names = Object.keys(results.contexts);
      const said = contrastClaims(state, results);
      claim.textContent = said.claim;
      honest.textContent = said.honest;
      honest.hidden = !said.honest;
      cosCaption.textContent = results.cosines.length
        ? `“${names[0]}” against “${names[1]}”`
        : 'The sentences share no word: add one to both to compare its vectors.';
      // Rows are rebuilt only when the shared words change; otherwise their numbers change in place.
      const key = results.cosines.map((c) => c.word).join('\u0000');
      if (cosBody.dataset.key !== key) {
        cosBody.dataset.key = key;
        cosBody.replaceChildren(
          ...results.cosines.flatMap((c) =>
            KINDS.map((kind) =>
              h(
                doc,
                'tr',
                { class: kind === 'attention' ? 'ae-cos-key' : '' },
                h(doc, 'th', { scope: 'row' }, `“${c.word}”, ${TEXT.kinds[kind]}`),
                h(doc, 'td', { 'data-cos': kind, 'data-word': c.word }),
              ),
            ),
          ),
        );
      }
      const cells = cosBody.querySelectorAll('td');
      results.cosines.forEach((c, n) =>
        KINDS.forEach((kind, m) => {
          const td = cells[n * KINDS.length + m];
          const v = c[kind];
          const text = v === null || v === undefined ? '—' : fmt(v);
          if (td.textContent !== text) td.textContent = text;
          td.dataset.value = v === null || v === undefined ? '' : String(v);
        }),
      );
    },
  };
}

// The shared word compared across the two sentences: the cosine of its two vectors as embeddings,
// after the plain linear layer, as a plain average of its sentence and after self-attention (the
// row the section's claim reads), one row each.
import { h, headedTable } from '../../ui/dom.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  cosineHelp: 'Cosine: 1 when two vectors point the same way, 0 at right angles, −1 opposite.',
  against: (w, a, b) => `“${w}” in “${a}” against “${b}”`,
  noShared: 'The sentences share no word: add one to both to compare its vectors.',
  kinds: {
    embedding: 'as embeddings',
    linear: 'after a plain linear layer X·W',
    average: 'as a plain average of its sentence',
    attention: 'after self-attention',
  },
};
const KINDS = ['embedding', 'linear', 'average', 'attention'];

/**
 * @param {Element} parent
 * @param {{doc}} ctx
 * @returns {{el: Element, update(results)}}
 */
export function render(parent, { doc }) {
  const { table, caption, body } = headedTable(doc, 'ae-cos', ['its two vectors', 'cosine']);
  const el = h(doc, 'div', { class: 'ae-card ae-cos-card' }, table, h(doc, 'p', { class: 'ae-help' }, TEXT.cosineHelp));
  parent.append(el);
  return {
    el,
    update(results) {
      const names = Object.keys(results.contexts);
      caption.textContent = results.cosines.length
        ? TEXT.against(results.cosines[0].word, names[0], names[1])
        : TEXT.noShared;
      // Rows are rebuilt only when the shared words change; otherwise their numbers change in place.
      const key = results.cosines.map((c) => c.word).join('\u0000');
      if (body.dataset.key !== key) {
        body.dataset.key = key;
        body.replaceChildren(
          ...results.cosines.flatMap((c) =>
            KINDS.map((kind) =>
              h(
                doc,
                'tr',
                { class: kind === 'attention' ? 'ae-cos-key' : '' },
                h(
                  doc,
                  'th',
                  { scope: 'row' },
                  results.cosines.length > 1 ? `“${c.word}”, ${TEXT.kinds[kind]}` : TEXT.kinds[kind],
                ),
                h(doc, 'td', { 'data-cos': kind, 'data-word': c.word }),
              ),
            ),
          ),
        );
      }
      const cells = body.querySelectorAll('td');
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

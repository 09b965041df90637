// The probe beside Q, K and V: the shared word's query dotted with every key — its row of Q·Kᵀ,
// unscaled — the best match marked; the row of numbers the section's claim reads.
import { h, headedTable } from '../../ui/dom.js';
import { fmt } from '../../lib/format.js';

const probeTitle = (word) => `The query of “${word}” against every key`;

/**
 * @param {Element} parent
 * @param {{doc}} ctx
 * @returns {{update({tokens, row, best, headNote, word})}}  row: the scores of the word's query
 */
export function render(parent, { doc }) {
  const { table, caption, body } = headedTable(doc, 'ae-cos ae-probe', ['key of', 'query · key']);
  parent.append(h(doc, 'div', { class: 'ae-card ae-probe-card' }, table));
  return {
    update({ tokens, row, best, headNote, word }) {
      caption.textContent = probeTitle(word) + headNote;
      const key = tokens.join('\u0000');
      if (body.dataset.key !== key) {
        body.dataset.key = key;
        body.replaceChildren(
          ...tokens.map((tok) => h(doc, 'tr', {}, h(doc, 'th', { scope: 'row' }, `“${tok}”`), h(doc, 'td'))),
        );
      }
      [...body.children].forEach((tr, j) => {
        tr.classList.toggle('ae-cos-key', j === best);
        tr.lastChild.textContent = fmt(row[j]);
      });
    },
  };
}

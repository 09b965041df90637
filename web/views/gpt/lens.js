// The logit lens: the residual stream after the embedding and after each layer, each read
// through the final LayerNorm and the unembedding as if the model stopped there — the most likely
// next token per layer (rows) and position (columns) as chips coloured by its probability, so the
// prediction is seen forming layer by layer; and the chosen candidate's rank per layer. Draws
// lib/real/interpret-run.js's answer; the sentence is lib/real/interpret.js's.
import { h } from '../../ui/dom.js';
import { colorScale, legendFor, textColorFor } from '../../lib/colormaps.js';
import { fmt } from '../../lib/format.js';
import { lensClaim } from '../../lib/real/interpret.js';
import { announceWhenScrolling } from '../../ui/scroll-region.js';

const TEXT = {
  title: 'The prediction forming, layer by layer (the logit lens)',
  help: 'Each row reads the residual stream after one more layer through the final LayerNorm and the unembedding, as if the model stopped there. Each chip is the most likely next token at that position (hover for the top five); its colour is that token’s probability.',
  embedding: 'embedding',
  after: (l) => `after layer ${l}`,
  legend: 'probability of the top token, 0 → 1, one scale',
  rank: (text) => `Rank of “${text}” at the chosen position`,
  some: (n, T) => `Positions ${n} of ${T} are read (each costs a full unembedding per layer).`,
};

/**
 * @param {Element} parent
 * @param {{doc}} ctx
 * @returns {{update({lens, pieces, config, theme})}}
 */
export function render(parent, { doc }) {
  const claim = h(doc, 'p', { class: 'ae-claim ae-lens-claim', 'aria-live': 'polite' });
  // The page's scrolling box: a labelled region in the tab order only while it scrolls.
  const scroller = h(doc, 'div', { class: 'ae-hm-scroll ae-lens-scroll' });
  announceWhenScrolling(scroller, () => TEXT.title);
  const table = h(doc, 'table', { class: 'ae-lens-table' });
  scroller.append(table);
  const legend = h(doc, 'p', { class: 'ae-legend ae-lens-legend' });
  const ranks = h(doc, 'p', { class: 'ae-help ae-lens-ranks' });
  const note = h(doc, 'p', { class: 'ae-help ae-lens-note', hidden: true });
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    claim,
    scroller,
    legend,
    ranks,
    note,
  );
  return {
    update({ lens, pieces, config, theme }) {
      if (!lens || !pieces || !config) return;
      const rows = config.layers + 1,
        P = lens.positions.length,
        k = lens.k;
      const color = colorScale('weights', [0, 1], theme);
      const head = h(
        doc,
        'tr',
        {},
        h(doc, 'td', { class: 'ae-lens-corner' }),
        ...lens.positions.map((t) =>
          h(
            doc,
            'th',
            { scope: 'col', class: t === lens.token?.position ? 'ae-lens-chosen' : null },
            pieces[t].display.replace(/ /g, '␣'),
          ),
        ),
      );
      const body = [];
      // The last layer on top, as the stream flows upward in the block diagram.
      for (let l = rows - 1; l >= 0; l--) {
        const cells = [];
        for (let i = 0; i < P; i++) {
          const at = (l * P + i) * k;
          const p = lens.topProbs.data[at];
          const top = Array.from(
            { length: k },
            (_, j) => `${lens.topText[at + j].replace(/ /g, '␣')} ${fmt(lens.topProbs.data[at + j], 3)}`,
          );
          const bg = color(p);
          cells.push(
            h(
              doc,
              'td',
              {
                class: 'ae-lens-cell',
                style: `background: ${bg}; color: ${textColorFor(bg)}`,
                title: top.join('\n'),
                dataset: { token: lens.topTokens.data[at], p },
              },
              lens.topText[at].replace(/ /g, '␣'),
            ),
          );
        }
        body.push(h(doc, 'tr', {}, h(doc, 'th', { scope: 'row' }, l === 0 ? TEXT.embedding : TEXT.after(l)), ...cells));
      }
      table.replaceChildren(h(doc, 'thead', {}, head), h(doc, 'tbody', {}, ...body));
      const lg = legendFor('weights', [0, 1], theme);
      legend.replaceChildren(
        h(doc, 'span', { class: 'ae-legend-end' }, '0'),
        h(doc, 'span', {
          class: 'ae-legend-bar',
          style: `background: linear-gradient(to right, ${lg.stops.join(', ')})`,
        }),
        h(doc, 'span', { class: 'ae-legend-end' }, '1'),
        h(doc, 'span', { class: 'ae-legend-text' }, TEXT.legend),
      );
      const t = lens.token;
      if (t) {
        const text = t.text.replace(/ /g, '␣');
        claim.textContent = lensClaim(Array.from(t.ranks), text);
        claim.dataset.ranks = JSON.stringify(Array.from(t.ranks));
        ranks.textContent = `${TEXT.rank(text)}: ${Array.from(t.ranks, (r, l) => `${l === 0 ? TEXT.embedding : TEXT.after(l)} ${r + 1}`).join(' · ')}.`;
      }
      note.hidden = P === pieces.length;
      note.textContent = TEXT.some(`${lens.positions[0]}–${lens.positions[P - 1]}`, pieces.length);
    },
  };
}

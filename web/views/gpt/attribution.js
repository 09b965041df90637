// Direct logit attribution: what each head, each MLP and the embeddings write toward the chosen
// candidate at the chosen position, read through the final LayerNorm with its scale frozen at the
// clean run's (said on the figure) and the unembedding. A layer × (heads, MLP) grid on the
// diverging scale centred on 0, the other parts as bars, and the sum checked against the logit.
// Draws lib/real/interpret-run.js's answer; the sentence is lib/real/interpret.js's.
import { h } from '../../ui/dom.js';
import { colorScale, legendFor } from '../../lib/colormaps.js';
import { fmt } from '../../lib/format.js';
import { attributionClaim, attributionParts } from '../../lib/real/interpret.js';

const TEXT = {
  title: 'What each part writes toward the prediction',
  help: 'The residual stream at the chosen position is a sum: the embeddings plus what every head and every MLP added. Each part is read through the final LayerNorm and the unembedding on its own, giving how much it pushes the candidate’s logit up or down (direct logit attribution).',
  frozen: (s) =>
    `The final LayerNorm is not linear; its scale is frozen at the clean run’s (√(var + ε) = ${fmt(s, 3)}) so that the parts add up. Only direct effects are shown: a head that acts through later layers shows little here.`,
  legend: 'push on the candidate’s logit; own scale, centred on 0',
  mlp: 'MLP',
  sum: (sum, logit) => `Σ parts = ${fmt(sum, 3)}; the model’s logit = ${fmt(logit, 3)}.`,
};

/**
 * @param {Element} parent
 * @param {{doc}} ctx
 * @returns {{update({attribution, config, theme})}}
 */
export function render(parent, { doc }) {
  const claim = h(doc, 'p', { class: 'ae-claim ae-attr-claim', 'aria-live': 'polite' });
  const frozen = h(doc, 'p', { class: 'ae-help ae-attr-frozen' });
  const grid = h(doc, 'div', { class: 'ae-ko-grid ae-attr-grid', role: 'group', 'aria-label': TEXT.title });
  const legend = h(doc, 'p', { class: 'ae-legend ae-attr-legend' });
  const others = h(doc, 'ol', { class: 'ae-gpt-bars ae-attr-others' });
  const sum = h(doc, 'p', { class: 'ae-help ae-attr-sum' });
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    claim,
    grid,
    legend,
    others,
    sum,
    frozen,
  );
  return {
    update({ attribution: a, config, theme }) {
      if (!a || !config) return;
      const { layers: L, heads: H } = config;
      const parts = attributionParts(a, L, H);
      const total = parts.reduce((s, p) => s + p.value, 0);
      claim.textContent = attributionClaim(a, L, H, a.text.replace(/ /g, '␣'));
      const inGrid = parts.filter((p) => p.kind === 'head' || p.kind === 'mlp');
      const color = colorScale(
        'signed',
        inGrid.map((p) => p.value),
        theme,
      );
      const columns = H + (a.mlps ? 1 : 0);
      grid.style.setProperty('--ae-ko-heads', String(columns));
      const cell = (p) =>
        h(doc, 'span', {
          class: `ae-ko-cell ae-attr-cell${p.kind === 'mlp' ? ' ae-attr-mlp' : ''}`,
          style: `background: ${color(p.value)}`,
          title: `${p.name}: ${fmt(p.value, 3)}`,
          'aria-label': `${p.name}: ${fmt(p.value, 3)}`,
          role: 'img',
          dataset: { value: p.value, name: p.name },
        });
      const rows = [h(doc, 'span', { class: 'ae-ko-corner' })];
      for (let hh = 0; hh < H; hh++) rows.push(h(doc, 'span', { class: 'ae-ko-collabel' }, `H${hh + 1}`));
      if (a.mlps) rows.push(h(doc, 'span', { class: 'ae-ko-collabel' }, TEXT.mlp));
      for (let l = 0; l < L; l++) {
        rows.push(h(doc, 'span', { class: 'ae-ko-rowlabel' }, `L${l + 1}`));
        for (const p of inGrid.filter((q) => q.layer === l)) rows.push(cell(p));
      }
      grid.replaceChildren(...rows);
      const lg = legendFor(
        'signed',
        inGrid.map((p) => p.value),
        theme,
      );
      legend.replaceChildren(
        h(doc, 'span', { class: 'ae-legend-end' }, fmt(lg.min, 2)),
        h(doc, 'span', {
          class: 'ae-legend-bar',
          style: `background: linear-gradient(to right, ${lg.stops.join(', ')})`,
        }),
        h(doc, 'span', { class: 'ae-legend-end' }, fmt(lg.max, 2)),
        h(doc, 'span', { class: 'ae-legend-text' }, TEXT.legend),
      );
      const rest = parts.filter((p) => p.kind !== 'head' && p.kind !== 'mlp');
      const max = Math.max(...rest.map((p) => Math.abs(p.value))) || 1;
      others.replaceChildren(
        ...rest.map((p) =>
          h(
            doc,
            'li',
            { class: 'ae-gpt-bar ae-attr-bar', dataset: { value: p.value, name: p.name } },
            h(doc, 'span', { class: 'ae-gpt-bar-token' }, p.name),
            h(
              doc,
              'span',
              { class: 'ae-attr-track' },
              h(doc, 'span', {
                class: `ae-attr-fill${p.value < 0 ? ' ae-attr-negative' : ''}`,
                style: `width: ${(50 * Math.abs(p.value)) / max}%; ${p.value < 0 ? 'right: 50%' : 'left: 50%'}`,
              }),
            ),
            h(doc, 'span', { class: 'ae-gpt-bar-p' }, fmt(p.value, 3)),
          ),
        ),
      );
      sum.textContent = TEXT.sum(total, a.logit);
      sum.dataset.sum = String(total);
      sum.dataset.logit = String(a.logit);
      frozen.textContent = TEXT.frozen(a.scale);
    },
  };
}

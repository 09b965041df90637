// Why ÷√dₖ: the spread of random query·key scores at growing widths, and the softmax of one
// query's scores with and without the division (lib/scaling.js), as a table and two bar charts.
import { h, uid } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { SCALING_WIDTHS, scalingExample } from '../lib/scaling.js';
import { svgEl } from '../ui/svg.js';

const TEXT = {
  title: 'Why divide by √dₖ?',
  intro:
    'Draw a query and some keys with random entries (mean 0, spread 1). Each score adds up dₖ products, so the wider the vectors, the wider the scores spread: about √dₖ. A softmax of widely spread scores gives almost all the weight to the largest one — attention stops mixing, and learning stalls because the other weights barely move. Dividing by √dₖ brings the spread back to about 1 at any width.',
  width: 'Width dₖ',
  table: 'Scores of random queries and keys',
  head: ['dₖ', 'spread of q·k', 'spread of q·k / √dₖ', 'largest weight, unscaled', 'largest weight, ÷√dₖ'],
};

export function render(section, app) {
  const { doc } = app;
  const id = uid('dk');
  const input = h(doc, 'input', {
    id,
    type: 'range',
    min: 0,
    max: SCALING_WIDTHS.length - 1,
    step: 1,
    value: 3,
    'aria-valuetext': '',
    oninput: () => draw(),
  });
  const output = h(doc, 'output', { for: id });
  const rows = SCALING_WIDTHS.map((dk) => scalingExample(dk));
  const table = h(
    doc,
    'table',
    { class: 'ae-scaling-table' },
    h(doc, 'caption', {}, TEXT.table),
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        TEXT.head.map((t) => h(doc, 'th', { scope: 'col' }, t)),
      ),
    ),
    h(
      doc,
      'tbody',
      {},
      rows.map((r) =>
        h(
          doc,
          'tr',
          { dataset: { dk: r.dk } },
          h(doc, 'th', { scope: 'row' }, String(r.dk)),
          h(doc, 'td', {}, fmt(r.spread, 2)),
          h(doc, 'td', {}, fmt(r.spreadScaled, 2)),
          h(doc, 'td', { class: 'ae-scaling-unscaled' }, fmt(r.largest, 3)),
          h(doc, 'td', { class: 'ae-scaling-scaled' }, fmt(r.largestScaled, 3)),
        ),
      ),
    ),
  );
  const bars = (caption) => {
    const svg = svgEl(doc, 'svg', { viewBox: '0 0 240 100', class: 'ae-bars', role: 'img' });
    const fig = h(doc, 'figure', { class: 'ae-bars-figure' }, h(doc, 'figcaption', {}, caption));
    fig.append(svg);
    return { fig, svg };
  };
  const unscaled = bars('softmax(q·k): weights over 12 keys');
  const scaled = bars('softmax(q·k / √dₖ)');
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    // The table beside the slider and the two softmaxes it picks, where there is room.
    h(
      doc,
      'div',
      { class: 'ae-scaling-row' },
      h(doc, 'div', { class: 'ae-hm-scroll', tabindex: 0, role: 'region', 'aria-label': TEXT.table }, table),
      h(
        doc,
        'div',
        { class: 'ae-scaling-side' },
        h(doc, 'div', { class: 'ae-ctl ae-ctl-range' }, h(doc, 'label', { for: id }, `${TEXT.width} `), input, output),
        h(doc, 'div', { class: 'ae-row' }, unscaled.fig, scaled.fig),
      ),
    ),
  );

  function paint({ svg }, weights, label) {
    svg.replaceChildren();
    const w = 240 / weights.length;
    weights.forEach((v, n) => {
      const height = Math.max(0.5, v * 96);
      svg.append(svgEl(doc, 'rect', { x: n * w + 2, y: 98 - height, width: w - 4, height, class: 'ae-bar' }));
    });
    svg.setAttribute('aria-label', `${label}: ${weights.map((v) => fmt(v, 2)).join(', ')}`);
  }
  function draw() {
    const r = rows[Number(input.value)];
    output.textContent = String(r.dk);
    input.setAttribute('aria-valuetext', `dₖ = ${r.dk}`);
    for (const tr of table.tBodies[0].rows) tr.classList.toggle('ae-hl-row', Number(tr.dataset.dk) === r.dk);
    paint(unscaled, r.weights, 'unscaled weights');
    paint(scaled, r.weightsScaled, 'scaled weights');
  }
  draw();
  return { update() {} };
}

// The plane's second picture: where every token of both sentences ends up — after self-attention,
// where the two copies of the shared word ("bank") land apart, or after the plain linear layer,
// where they coincide — with their distance said in numbers, and the vectors as a table one click
// deeper. Points move smoothly between states (CSS transitions on transform).
import { h, fillTable } from '../../ui/dom.js';
import { radios } from '../../ui/controls.js';
import { createPlanePicture } from '../../ui/plane-picture.js';
import { svgEl } from '../../ui/svg.js';
import { fmt } from '../../lib/format.js';
import { planeScale, distance, tokenPoints } from '../../lib/plane.js';
import { foldOnPhone } from '../../ui/fold.js';

const TEXT = {
  title: 'Where the shared word ends up',
  intro:
    'Each point is one token’s new vector in one sentence. With self-attention, the shared word takes in its neighbours and the two copies land apart; through the plain linear layer (a layer that treats each token alone) they land on the same spot.',
  table: 'The vectors as numbers',
  mode: 'Vectors after',
  modes: { attention: 'self-attention', linear: 'the plain linear layer' },
  sharedMark: 'the shared word',
  label: (mode) => `every token’s vector after ${mode}, both sentences`,
  columnAxes: ['output column 0 →', 'output column 1 →'],
  pcaAxes: ['1st principal direction →', '2nd principal direction →'],
  apart: (word, d, mode, kept) =>
    `The two “${word}”s are ${fmt(d)} apart after ${mode} (distance of the full vectors)${kept ? `; the picture keeps ${kept} % of their spread` : ''}.`,
  vectors: (mode) => `vectors after ${mode}`,
  head: ['token (sentence)', 'vector'],
};

/**
 * @param {Element} parent
 * @param {{doc, app, exports(what, svg, table): Element}} ctx  exports: the picture's export bar
 * @returns {{update(results, planes)}}  planes: {attention, linear}, every token's vector in 2-D
 *   after each (lib/plane.js toPlane's answer, in tokenPoints' order)
 */
export function render(parent, { doc, app, exports }) {
  let mode = 'attention';
  let shown = null;
  let shownPlanes = null;
  const modeBox = radios(doc, {
    legend: TEXT.mode,
    choices: Object.entries(TEXT.modes),
    value: mode,
    onChange: (value) => {
      mode = value;
      draw(shown, shownPlanes);
    },
  });
  const note = h(doc, 'p', { class: 'ae-help ae-plane-distance', 'aria-live': 'polite' });
  const picture = createPlanePicture(doc, 'out');
  const table = h(doc, 'table', { class: 'ae-plane-table' });
  const legend = h(doc, 'p', { class: 'ae-plane-legend' });
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    modeBox.el,
    h(doc, 'figure', { class: 'ae-plane-figure' }, picture.svg, legend, note),
    h(doc, 'details', { class: 'ae-details' }, h(doc, 'summary', {}, TEXT.table), table),
    exports('outputs', picture.svg, table),
  );
  foldOnPhone(app, 'Export the picture', [parent.lastElementChild]);
  const dot = (cls, text) => h(doc, 'span', {}, h(doc, 'span', { class: `ae-swatch ae-plane-dot${cls}` }), text);

  function draw(results, planes) {
    if (!results || !planes) return;
    shown = results;
    shownPlanes = planes;
    const { svg } = picture;
    const { names, rows } = tokenPoints(results, mode);
    const out = planes[mode];
    if (!rows.length || !out) return;
    const S = planeScale(out.xy);
    svg.setAttribute('viewBox', `0 0 ${S.size} ${S.size}`);
    svg.setAttribute('aria-label', TEXT.label(TEXT.modes[mode]));
    picture.axes(S);
    const labels = [];
    rows.forEach((r, n) => {
      const [x, y] = S.at(out.xy[n]);
      const g = picture.item(`out-${r.name}-${r.i}`, () => {
        const group = svgEl(doc, 'g', { class: 'ae-plane-point' });
        group.append(svgEl(doc, 'circle', { r: 5 }), svgEl(doc, 'title'));
        return group;
      });
      const text = picture.item(`out-label-${r.name}-${r.i}`, () => svgEl(doc, 'text', { class: 'ae-plane-label' }));
      g.classList.toggle('ae-plane-shared', r.shared);
      g.classList.toggle('ae-plane-ctx-1', r.name === names[1]);
      text.classList.toggle('ae-plane-shared', r.shared);
      g.style.transform = `translate(${x}px, ${y}px)`;
      g.children[1].textContent = `${r.word} (${r.name})`;
      // Every point is labelled: its word, and for the shared word its sentence too.
      text.textContent = r.shared ? `${r.word} (${r.name})` : r.word;
      labels.push({ x, y, text });
      Object.assign(g.dataset, { context: r.name, index: r.i, word: r.word, x: out.xy[n][0], y: out.xy[n][1] });
    });
    picture.axisTitles(S, out.projected ? TEXT.pcaAxes : TEXT.columnAxes);
    picture.sweep();
    picture.placeAll(S.size, labels);
    legend.replaceChildren(
      ...names.map((n, i) => dot(i === 1 ? ' ae-plane-ctx-1' : '', n)),
      dot(' ae-plane-ring', TEXT.sharedMark),
    );
    const word = results.cosines[0]?.word;
    const pair = rows.filter((r) => r.shared && r.word === word);
    if (pair.length === 2) {
      const d = distance(pair[0].v, pair[1].v);
      const kept = out.projected ? fmt(100 * (out.explained[0] + out.explained[1]), 1) : null;
      note.textContent = TEXT.apart(word, d, TEXT.modes[mode], kept);
      note.dataset.distance = String(d);
    } else note.textContent = '';
    fillTable(doc, table, {
      caption: TEXT.vectors(TEXT.modes[mode]),
      head: TEXT.head,
      rows: rows.map((r) => [`${r.word} (${r.name})`, r.v.map((v) => fmt(v)).join(', ')]),
    });
  }

  return { update: draw };
}

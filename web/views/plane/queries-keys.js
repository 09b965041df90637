// The plane's first picture: the focused sentence's queries and keys as arrows, and each key's
// dot product with the chosen query drawn as its shadow on the query's line; the scores beside it
// as a table. Vectors wider than 2 are drawn in the plane of their two principal components
// (views/plane.js compute, by the core's PCA), and the share of their spread it keeps is said.
import { h, uid, setOptions, fillTable } from '../../ui/dom.js';
import { createPlanePicture } from '../../ui/plane-picture.js';
import { svgEl } from '../../ui/svg.js';
import { fmt } from '../../lib/format.js';
import { planeScale, projection, clipSegment } from '../../lib/plane.js';
import { foldOnPhone } from '../../ui/fold.js';

const TEXT = {
  query: 'Query',
  legendQ: 'query (what a token looks for)',
  legendK: 'key (what a token offers)',
  legendShadow: 'a key’s shadow on the chosen query: its score, up to the query’s length',
  label: (focus) => `queries and keys of “${focus}” as arrows`,
  columnAxes: ['query/key column 0 →', 'query/key column 1 →'],
  pcaAxes: ['1st principal direction →', '2nd principal direction →'],
  pcaNote: (dk, kept) =>
    `dₖ = ${dk}: wider than two numbers, so drawn as a 2-D projection (PCA): the two directions along which these vectors spread the most, which keep ${kept} % of their spread — at 100 % the picture loses nothing. Dot products are computed on the full vectors.`,
  plainNote: (dk) => `dₖ = ${dk}: the arrows are the vectors themselves (column 0 across, column 1 up).`,
  table: (word) => `q·k for the query “${word}”`,
  head: ['key', 'q·k (score)'],
};

/**
 * @param {Element} parent
 * @param {{doc, app, exports(what, svg, table): Element}} ctx  exports: the picture's export bar
 * @returns {{update(focus, plane)}}  focus: lib/focus.js focusView; plane: the head's queries
 *   then keys in 2-D (lib/plane.js toPlane's answer)
 */
export function render(parent, { doc, app, exports }) {
  const queryId = uid('q');
  const querySel = h(doc, 'select', { id: queryId, onchange: () => draw(shown, shownPlane) });
  const note = h(doc, 'p', { class: 'ae-help' });
  const picture = createPlanePicture(doc, 'qk');
  const table = h(doc, 'table', { class: 'ae-plane-table' });
  const swatch = (cls, text) => h(doc, 'span', {}, h(doc, 'span', { class: `ae-swatch ${cls}` }), text);
  const legend = h(
    doc,
    'p',
    { class: 'ae-plane-legend' },
    swatch('ae-plane-q', TEXT.legendQ),
    swatch('ae-plane-k', TEXT.legendK),
    swatch('ae-plane-s', TEXT.legendShadow),
  );
  parent.append(
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: queryId }, `${TEXT.query} `), querySel),
    h(
      doc,
      'div',
      { class: 'ae-row' },
      h(doc, 'figure', { class: 'ae-plane-figure' }, picture.svg, legend, note),
      table,
    ),
    exports('queries-keys', picture.svg, table),
  );
  // On a phone: the picture and its legend; the scores as a table and the exports one tap deeper.
  foldOnPhone(app, 'The scores as numbers, and exports', [table, parent.lastElementChild]);
  let shown = null;
  let shownPlane = null;

  function draw(f, plane) {
    if (!f || !plane) return;
    shown = f;
    shownPlane = plane;
    const { svg } = picture;
    const { trace: t, head, tokens, highlightRows } = f;
    const q = t.q[head],
      k = t.k[head];
    const T = tokens.length;
    const chosen = Number(querySel.value);
    const qi =
      Number.isInteger(chosen) && chosen < T && querySel.dataset.key === tokens.join('\u0000')
        ? chosen
        : (highlightRows[0] ?? 0);
    querySel.dataset.key = tokens.join('\u0000');
    setOptions(
      doc,
      querySel,
      tokens.map((w, n) => ({ value: n, label: `${n}: ${w}` })),
      qi,
    );
    const qs = plane.xy.slice(0, T),
      ks = plane.xy.slice(T);
    const S = planeScale(plane.xy);
    svg.setAttribute('viewBox', `0 0 ${S.size} ${S.size}`);
    svg.setAttribute('aria-label', TEXT.label(f.name));
    picture.axes(S);
    // The chosen query's line across the picture (clipped to it, so nothing sticks out of the
    // page), and each key's shadow on it.
    const qv = qs[qi];
    const len = Math.hypot(qv[0], qv[1]) || 1;
    const far = [(qv[0] / len) * S.bound * 2, (qv[1] / len) * S.bound * 2];
    const guide = picture.item('qk-guide', () => svgEl(doc, 'line', { class: 'ae-plane-guide' }));
    const [[gx1, gy1], [gx2, gy2]] = clipSegment(S.at([-far[0], -far[1]]), S.at(far), S.size) ?? [
      [0, 0],
      [0, 0],
    ];
    Object.entries({ x1: gx1, y1: gy1, x2: gx2, y2: gy2 }).forEach(([a, v]) => guide.setAttribute(a, v));
    ks.forEach((kv, j) => {
      const { foot } = projection(qv, kv);
      const shadow = picture.item(`qk-shadow-${j}`, () => svgEl(doc, 'line', { class: 'ae-plane-shadow' }));
      const [x1, y1] = S.at(kv);
      const [x2, y2] = S.at(foot);
      Object.entries({ x1, y1, x2, y2 }).forEach(([a, v]) => shadow.setAttribute(a, v));
    });
    // Query labels sit above the tip, key labels below it, so a query and a key that nearly
    // coincide (as the seed's do) stay readable.
    const labels = [
      ...qs.map((p, i) =>
        picture.arrow(`qk-q-${i}`, S, p, `ae-plane-query${i === qi ? ' ae-plane-chosen' : ''}`, `q ${tokens[i]}`, {
          kind: 'q',
          index: i,
          x: p[0],
          y: p[1],
        }),
      ),
      ...ks.map((p, j) =>
        picture.arrow(`qk-k-${j}`, S, p, 'ae-plane-key', `k ${tokens[j]}`, { kind: 'k', index: j, x: p[0], y: p[1] }),
      ),
    ];
    picture.axisTitles(S, plane.projected ? TEXT.pcaAxes : TEXT.columnAxes);
    picture.sweep();
    picture.placeAll(S.size, labels);
    note.textContent = plane.projected
      ? TEXT.pcaNote(q[0].length, fmt(100 * (plane.explained[0] + plane.explained[1]), 1))
      : TEXT.plainNote(q[0].length);
    fillTable(doc, table, {
      caption: TEXT.table(tokens[qi]),
      head: TEXT.head,
      rows: tokens.map((w, j) => [w, fmt(t.scores[head][qi][j])]),
    });
  }

  return { update: draw };
}

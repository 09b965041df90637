// The plane: queries and keys of the focused context as arrows, with each key's dot product with
// the chosen query drawn as its projection onto the query's line; and where the shared word
// ("bank") ends up in each sentence, as points that move apart with self-attention and coincide
// under the plain linear layer. Vectors wider than 2 are drawn in the plane of their two principal
// components (lib/plane.js, computed by the core), and the share of their spread it keeps is said.
// Points move smoothly between states (CSS transitions on transform; instant under reduced motion).
import { h, uid, setOptions } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { focusView } from '../lib/focus.js';
import { toPlane, planeScale, projection, distance, clipSegment, placeLabels } from '../lib/plane.js';
import { fileStem } from '../lib/text.js';
import { download } from '../tools/download.js';
import { svgSnapshot, svgToPNG, tableCSV } from '../tools/svg-export.js';

const SVG = 'http://www.w3.org/2000/svg';
const TEXT = {
  title: 'The plane',
  intro:
    'With two numbers per query and key (the seed’s W_Q and W_K make them two-wide) each vector is an arrow. A score is a dot product: the length of a key’s shadow on the query’s line, times the query’s length. Pick a query to see every key’s shadow on it.',
  query: 'Query',
  outputs: 'Where the shared word ends up',
  outputsTable: 'The vectors as numbers',
  outputsIntro:
    'Each point is one token’s new vector in one sentence. With self-attention, the shared word takes in its neighbours and the two copies land apart; through the plain linear layer (a layer that treats each token alone) they land on the same spot.',
  mode: 'Vectors after',
  modes: { attention: 'self-attention', linear: 'the plain linear layer' },
  legendQ: 'query (what a token looks for)',
  legendK: 'key (what a token offers)',
  legendShadow: 'a key’s shadow on the chosen query: its score, up to the query’s length',
  sharedMark: 'the shared word',
  columnAxes: (what) => [`${what} column 0 →`, `${what} column 1 →`],
  pcaAxes: ['1st principal direction →', '2nd principal direction →'],
  pcaNote: (what, kept) =>
    `${what}: wider than two numbers, so drawn as a 2-D projection (PCA): the two directions along which these vectors spread the most, which keep ${kept} % of their spread — at 100 % the picture loses nothing. Dot products are computed on the full vectors.`,
};

export function render(section, app) {
  const { doc } = app;
  const svgEl = (tag, attrs = {}) => {
    const el = doc.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    return el;
  };
  const queryId = uid('q');
  const querySel = h(doc, 'select', { id: queryId, onchange: () => update() });
  const qkNote = h(doc, 'p', { class: 'ae-help' });
  const qkSvg = svgEl('svg', { class: 'ae-plane', role: 'img' });
  const qkTable = h(doc, 'table', { class: 'ae-plane-table' });
  const modeName = uid('mode');
  let mode = 'attention';
  const modeBox = h(
    doc,
    'fieldset',
    { class: 'ae-radio' },
    h(doc, 'legend', {}, TEXT.mode),
    ...Object.entries(TEXT.modes).map(([value, label]) =>
      h(
        doc,
        'span',
        {},
        h(doc, 'input', {
          type: 'radio',
          name: modeName,
          id: `${modeName}-${value}`,
          value,
          checked: value === mode,
          onchange: () => {
            mode = value;
            update();
          },
        }),
        h(doc, 'label', { for: `${modeName}-${value}` }, label),
      ),
    ),
  );
  const outNote = h(doc, 'p', { class: 'ae-help ae-plane-distance', 'aria-live': 'polite' });
  const outSvg = svgEl('svg', { class: 'ae-plane', role: 'img' });
  const outTable = h(doc, 'table', { class: 'ae-plane-table' });
  const qkLegend = h(
    doc,
    'p',
    { class: 'ae-plane-legend' },
    h(doc, 'span', {}, h(doc, 'span', { class: 'ae-swatch ae-plane-q' }), TEXT.legendQ),
    h(doc, 'span', {}, h(doc, 'span', { class: 'ae-swatch ae-plane-k' }), TEXT.legendK),
    h(doc, 'span', {}, h(doc, 'span', { class: 'ae-swatch ae-plane-s' }), TEXT.legendShadow),
  );
  const outLegend = h(doc, 'p', { class: 'ae-plane-legend' });
  // The two pictures side by side where there is room (one column on a phone); the vectors of
  // the second as numbers one click deeper.
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    h(
      doc,
      'div',
      { class: 'ae-plane-pair' },
      h(
        doc,
        'div',
        { class: 'ae-plane-col' },
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: queryId }, `${TEXT.query} `), querySel),
        h(
          doc,
          'div',
          { class: 'ae-row' },
          h(doc, 'figure', { class: 'ae-plane-figure' }, qkSvg, qkLegend, qkNote),
          qkTable,
        ),
        exportBar('queries-keys', qkSvg, qkTable),
      ),
      h(
        doc,
        'div',
        { class: 'ae-plane-col' },
        h(doc, 'h3', { class: 'ae-prose' }, TEXT.outputs),
        h(doc, 'p', { class: 'ae-prose' }, TEXT.outputsIntro),
        modeBox,
        h(doc, 'figure', { class: 'ae-plane-figure' }, outSvg, outLegend, outNote),
        h(doc, 'details', { class: 'ae-details' }, h(doc, 'summary', {}, TEXT.outputsTable), outTable),
        exportBar('outputs', outSvg, outTable),
      ),
    ),
  );

  // PNG (2×, the table's numbers as CSV inside) and SVG of a picture as drawn now.
  function exportBar(what, svg, table) {
    const status = h(doc, 'span', { class: 'ae-export-status', role: 'status', 'aria-live': 'polite' });
    const save = async (kind) => {
      try {
        const stem = fileStem(`plane ${what} ${app.state.focus}`);
        const background = app.win.getComputedStyle(app.container).getPropertyValue('--bg').trim() || '#ffffff';
        if (kind === 'svg')
          download(
            doc,
            `${stem}.svg`,
            svgSnapshot(svg, { background, title: `${TEXT.title}: ${what}` }),
            'image/svg+xml',
          );
        else download(doc, `${stem}.png`, await svgToPNG(svg, { background, text: tableCSV(table) }), 'image/png');
        status.textContent = `${kind.toUpperCase()} saved`;
      } catch (error) {
        status.textContent = `Export failed: ${error.message}`;
      }
    };
    return h(
      doc,
      'div',
      { class: 'ae-export-actions ae-plane-export', role: 'group', 'aria-label': `Export the ${what} picture` },
      h(doc, 'button', { type: 'button', class: 'ae-btn', 'data-export': 'png', onclick: () => save('png') }, 'PNG'),
      h(doc, 'button', { type: 'button', class: 'ae-btn', 'data-export': 'svg', onclick: () => save('svg') }, 'SVG'),
      status,
    );
  }

  // Keyed SVG children reused between updates, so their transforms transition.
  const keyed = new Map();
  function item(svg, key, make) {
    let el = keyed.get(key);
    if (!el) {
      el = make();
      keyed.set(key, el);
      svg.append(el);
    }
    el.dataset.live = '1';
    return el;
  }
  function sweep(svg) {
    for (const [key, el] of keyed) {
      if (el.parentNode !== svg) continue;
      if (el.dataset.live !== '1') {
        el.remove();
        keyed.delete(key);
      } else delete el.dataset.live;
    }
  }
  function axes(svg, S) {
    const [ox, oy] = S.at([0, 0]);
    const x = item(svg, `${svg.dataset.id}-x`, () => svgEl('line', { class: 'ae-plane-axis', x1: 0, x2: S.size }));
    const y = item(svg, `${svg.dataset.id}-y`, () => svgEl('line', { class: 'ae-plane-axis', y1: 0, y2: S.size }));
    x.setAttribute('y1', oy);
    x.setAttribute('y2', oy);
    y.setAttribute('x1', ox);
    y.setAttribute('x2', ox);
  }
  // An arrow from the origin to p, as a line inside a group whose end is moved by transform.
  // Query labels sit above the tip, key labels below it, so a query and a key that nearly
  // coincide (as the seed's do) stay readable.
  function arrow(svg, key, S, p, cls, label, data) {
    const [x, y] = S.at(p);
    const [ox, oy] = S.at([0, 0]);
    const g = item(svg, key, () => {
      const group = svgEl('g', { class: `ae-plane-arrow ${cls}` });
      group.append(svgEl('line', { class: 'ae-plane-shaft' }), svgEl('circle', { r: 3.5 }), svgEl('text'));
      return group;
    });
    g.setAttribute('class', `ae-plane-arrow ${cls}`);
    const [line, dot, text] = g.children;
    line.setAttribute('x1', ox);
    line.setAttribute('y1', oy);
    line.setAttribute('x2', x);
    line.setAttribute('y2', y);
    dot.style.transform = `translate(${x}px, ${y}px)`;
    text.textContent = label;
    for (const [k, v] of Object.entries(data)) g.dataset[k] = String(v);
    return { x, y, text };
  }
  // Every label beside its point, none overlapping another or a point, all inside the picture.
  const LABEL_HEIGHT = 13;
  // A label's width in its own font, measured on a canvas: getComputedTextLength() would lay
  // out the whole page at each call after the labels changed (a fifth of a page load's work).
  let canvas = null;
  function labelWidth(text) {
    if (typeof text.getComputedTextLength !== 'function') return text.textContent.length * 6.5; // no layout engine
    canvas ||= doc.createElement('canvas').getContext('2d');
    const font = app.win.getComputedStyle(text);
    canvas.font = `${font.fontStyle} ${font.fontWeight} ${font.fontSize} ${font.fontFamily}`;
    return canvas.measureText(text.textContent).width;
  }
  function placeAll(size, anchors) {
    const boxes = placeLabels(
      anchors.map(({ x, y, text }) => ({ x, y, w: labelWidth(text) + 2, h: LABEL_HEIGHT })),
      size,
    );
    anchors.forEach(({ text }, n) => {
      const b = boxes[n];
      text.setAttribute('text-anchor', 'start');
      text.style.transform = `translate(${b.x + 1}px, ${b.y + LABEL_HEIGHT - 3}px)`;
      text.dataset.box = `${b.x} ${b.y} ${b.w} ${b.h}`;
    });
  }
  function axisTitles(svg, S, [xTitle, yTitle]) {
    const xt = item(svg, `${svg.dataset.id}-xt`, () => svgEl('text', { class: 'ae-plane-axis-title' }));
    const yt = item(svg, `${svg.dataset.id}-yt`, () => svgEl('text', { class: 'ae-plane-axis-title' }));
    xt.textContent = xTitle;
    xt.setAttribute('x', S.size - 4);
    xt.setAttribute('y', S.size - 4);
    xt.setAttribute('text-anchor', 'end');
    yt.textContent = yTitle;
    yt.setAttribute('transform', `translate(12, 4) rotate(90)`);
    yt.setAttribute('text-anchor', 'start');
  }

  let qkSpan = null;
  function update() {
    const { state, results } = app;
    const f = focusView(state, results);
    if (!f) return;
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

    // --- queries and keys --------------------------------------------------------------------
    const plane = toPlane(app.engine, [...q, ...k]);
    const qs = plane.xy.slice(0, T),
      ks = plane.xy.slice(T);
    const S = planeScale(plane.xy);
    qkSvg.dataset.id = 'qk';
    qkSvg.setAttribute('viewBox', `0 0 ${S.size} ${S.size}`);
    qkSvg.setAttribute('aria-label', `queries and keys of “${state.focus}” as arrows`);
    axes(qkSvg, S);
    // The chosen query's line, and each key's shadow on it.
    const qv = qs[qi];
    const len = Math.hypot(qv[0], qv[1]) || 1;
    const far = [(qv[0] / len) * S.bound * 2, (qv[1] / len) * S.bound * 2];
    const guide = item(qkSvg, 'qk-guide', () => svgEl('line', { class: 'ae-plane-guide' }));
    // The query's line across the picture (clipped to it, so nothing sticks out of the page).
    const [[gx1, gy1], [gx2, gy2]] = clipSegment(S.at([-far[0], -far[1]]), S.at(far), S.size) ?? [
      [0, 0],
      [0, 0],
    ];
    Object.entries({ x1: gx1, y1: gy1, x2: gx2, y2: gy2 }).forEach(([a, v]) => guide.setAttribute(a, v));
    ks.forEach((kv, j) => {
      const { foot } = projection(qv, kv);
      const shadow = item(qkSvg, `qk-shadow-${j}`, () => svgEl('line', { class: 'ae-plane-shadow' }));
      const [x1, y1] = S.at(kv);
      const [x2, y2] = S.at(foot);
      Object.entries({ x1, y1, x2, y2 }).forEach(([a, v]) => shadow.setAttribute(a, v));
    });
    const labels = [
      ...qs.map((qv2, i) =>
        arrow(qkSvg, `qk-q-${i}`, S, qv2, `ae-plane-query${i === qi ? ' ae-plane-chosen' : ''}`, `q ${tokens[i]}`, {
          kind: 'q',
          index: i,
          x: qv2[0],
          y: qv2[1],
        }),
      ),
      ...ks.map((kv, j) =>
        arrow(qkSvg, `qk-k-${j}`, S, kv, 'ae-plane-key', `k ${tokens[j]}`, { kind: 'k', index: j, x: kv[0], y: kv[1] }),
      ),
    ];
    axisTitles(qkSvg, S, plane.projected ? TEXT.pcaAxes : TEXT.columnAxes('query/key'));
    sweep(qkSvg);
    placeAll(S.size, labels);
    qkNote.textContent = plane.projected
      ? TEXT.pcaNote(`dₖ = ${q[0].length}`, fmt(100 * (plane.explained[0] + plane.explained[1]), 1))
      : `dₖ = ${q[0].length}: the arrows are the vectors themselves (column 0 across, column 1 up).`;
    tableOf(
      qkTable,
      `q·k for the query “${tokens[qi]}”`,
      ['key', 'q·k (score)'],
      tokens.map((w, j) => [w, fmt(t.scores[head][qi][j])]),
    );

    // --- where the shared word ends up ---------------------------------------------------------
    const names = Object.keys(results.contexts).filter((n) => results.contexts[n].trace && results.contexts[n].linear);
    const rows = [];
    for (const name of names) {
      const e = results.contexts[name];
      const vectors = mode === 'attention' ? e.trace.output : e.linear;
      e.tokens.forEach((w, i) =>
        rows.push({ name, word: w, i, v: vectors[i], shared: results.cosines.some((c) => c.word === w) }),
      );
    }
    if (!rows.length) return;
    const out = toPlane(
      app.engine,
      rows.map((r) => r.v),
    );
    const S2 = planeScale(out.xy);
    outSvg.dataset.id = 'out';
    outSvg.setAttribute('viewBox', `0 0 ${S2.size} ${S2.size}`);
    outSvg.setAttribute('aria-label', `every token’s vector after ${TEXT.modes[mode]}, both sentences`);
    axes(outSvg, S2);
    const sharedPoints = [];
    const pointLabels = [];
    rows.forEach((r, n) => {
      const [x, y] = S2.at(out.xy[n]);
      const g = item(outSvg, `out-${r.name}-${r.i}`, () => {
        const group = svgEl('g', { class: 'ae-plane-point' });
        group.append(svgEl('circle', { r: 5 }), svgEl('title'));
        return group;
      });
      const text = item(outSvg, `out-label-${r.name}-${r.i}`, () => svgEl('text', { class: 'ae-plane-label' }));
      g.classList.toggle('ae-plane-shared', r.shared);
      g.classList.toggle('ae-plane-ctx-1', r.name === names[1]);
      text.classList.toggle('ae-plane-shared', r.shared);
      g.style.transform = `translate(${x}px, ${y}px)`;
      const [, title] = g.children;
      title.textContent = `${r.word} (${r.name})`;
      // Every point is labelled: its word, and for the shared word its sentence too.
      text.textContent = r.shared ? `${r.word} (${r.name})` : r.word;
      pointLabels.push({ x, y, text });
      Object.assign(g.dataset, { context: r.name, index: r.i, word: r.word, x: out.xy[n][0], y: out.xy[n][1] });
      if (r.shared) sharedPoints.push(r);
    });
    axisTitles(outSvg, S2, out.projected ? TEXT.pcaAxes : TEXT.columnAxes('output'));
    sweep(outSvg);
    placeAll(S2.size, pointLabels);
    outLegend.replaceChildren(
      ...names.map((n, i) =>
        h(doc, 'span', {}, h(doc, 'span', { class: `ae-swatch ae-plane-dot${i === 1 ? ' ae-plane-ctx-1' : ''}` }), n),
      ),
      h(doc, 'span', {}, h(doc, 'span', { class: 'ae-swatch ae-plane-dot ae-plane-ring' }), TEXT.sharedMark),
    );
    const word = results.cosines[0]?.word;
    const pair = sharedPoints.filter((r) => r.word === word);
    if (pair.length === 2) {
      const d = distance(pair[0].v, pair[1].v);
      outNote.textContent = `The two “${word}”s are ${fmt(d)} apart after ${TEXT.modes[mode]} (distance of the full vectors)${out.projected ? `; the picture keeps ${fmt(100 * (out.explained[0] + out.explained[1]), 1)} % of their spread` : ''}.`;
      outNote.dataset.distance = String(d);
    } else outNote.textContent = '';
    tableOf(
      outTable,
      `vectors after ${TEXT.modes[mode]}`,
      ['token (sentence)', 'vector'],
      rows.map((r) => [`${r.word} (${r.name})`, r.v.map((v) => fmt(v)).join(', ')]),
    );
    qkSpan = S;
  }

  function tableOf(table, caption, head, body) {
    table.replaceChildren(
      h(doc, 'caption', {}, caption),
      h(
        doc,
        'thead',
        {},
        h(
          doc,
          'tr',
          {},
          head.map((c) => h(doc, 'th', { scope: 'col' }, c)),
        ),
      ),
      h(
        doc,
        'tbody',
        {},
        body.map(([a, b]) => h(doc, 'tr', {}, h(doc, 'th', { scope: 'row' }, a), h(doc, 'td', {}, b))),
      ),
    );
  }

  return { update, scale: () => qkSpan };
}

// The plane: queries and keys of the focused context as arrows, with each key's dot product with
// the chosen query drawn as its projection onto the query's line; and where the shared word
// ("bank") ends up in each sentence, as points that move apart with self-attention and coincide
// under the plain linear layer. Vectors wider than 2 are drawn in the plane of their two principal
// components (lib/plane.js, computed by the core), and the share of their spread it keeps is said.
// Points move smoothly between states (CSS transitions on transform; instant under reduced motion).
import { h, uid, setOptions } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { focusView } from '../lib/focus.js';
import { toPlane, planeScale, projection, distance, clipSegment } from '../lib/plane.js';
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
  outputsIntro:
    'Each point is one token’s new vector in one sentence. With self-attention, the shared word takes in its neighbours and the two copies land apart; through the plain linear layer (a layer that treats each token alone) they land on the same spot.',
  mode: 'Vectors after',
  modes: { attention: 'self-attention', linear: 'the plain linear layer' },
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
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: queryId }, `${TEXT.query} `), querySel),
    h(doc, 'div', { class: 'ae-row' }, h(doc, 'figure', { class: 'ae-plane-figure' }, qkSvg, qkNote), qkTable),
    exportBar('queries-keys', qkSvg, qkTable),
    h(doc, 'h3', {}, TEXT.outputs),
    h(doc, 'p', {}, TEXT.outputsIntro),
    modeBox,
    h(doc, 'div', { class: 'ae-row' }, h(doc, 'figure', { class: 'ae-plane-figure' }, outSvg, outNote), outTable),
    exportBar('outputs', outSvg, outTable),
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
      const below = data.kind === 'k';
      group.append(
        svgEl('line', { class: 'ae-plane-shaft' }),
        svgEl('circle', { r: 3.5 }),
        svgEl('text', { dx: 6, dy: below ? 14 : -6 }),
      );
      return group;
    });
    g.setAttribute('class', `ae-plane-arrow ${cls}`);
    const [line, dot, text] = g.children;
    line.setAttribute('x1', ox);
    line.setAttribute('y1', oy);
    line.setAttribute('x2', x);
    line.setAttribute('y2', y);
    dot.style.transform = `translate(${x}px, ${y}px)`;
    text.style.transform = `translate(${x}px, ${y}px)`;
    text.textContent = label;
    for (const [k, v] of Object.entries(data)) g.dataset[k] = String(v);
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
    ks.forEach((kv, j) =>
      arrow(qkSvg, `qk-k-${j}`, S, kv, 'ae-plane-key', `k ${tokens[j]}`, { kind: 'k', index: j, x: kv[0], y: kv[1] }),
    );
    qs.forEach((qv2, i) =>
      arrow(qkSvg, `qk-q-${i}`, S, qv2, `ae-plane-query${i === qi ? ' ae-plane-chosen' : ''}`, `q ${tokens[i]}`, {
        kind: 'q',
        index: i,
        x: qv2[0],
        y: qv2[1],
      }),
    );
    sweep(qkSvg);
    qkNote.textContent = plane.projected
      ? `dₖ = ${q[0].length}: drawn in the plane of the two directions that keep the most of their spread (${fmt(100 * (plane.explained[0] + plane.explained[1]), 1)} % of it); dot products are computed on the full vectors.`
      : `dₖ = ${q[0].length}: these are the vectors themselves.`;
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
    rows.forEach((r, n) => {
      const [x, y] = S2.at(out.xy[n]);
      const g = item(outSvg, `out-${r.name}-${r.i}`, () => {
        const group = svgEl('g', { class: 'ae-plane-point' });
        group.append(svgEl('circle', { r: 5 }), svgEl('title'), svgEl('text', { dy: 4 }));
        return group;
      });
      g.classList.toggle('ae-plane-shared', r.shared);
      g.classList.toggle('ae-plane-ctx-1', r.name === names[1]);
      g.style.transform = `translate(${x}px, ${y}px)`;
      const [, title, text] = g.children;
      title.textContent = `${r.word} (${r.name})`;
      // Only the shared word is labelled (the others are named in their tooltip and the table);
      // a label on the right half reads leftwards so it stays inside the picture.
      const right = x > S2.size / 2;
      text.textContent = r.shared ? `${r.word} (${r.name})` : '';
      text.setAttribute('text-anchor', right ? 'end' : 'start');
      text.setAttribute('dx', right ? -10 : 10);
      text.setAttribute('dy', r.name === names[1] ? 18 : -10);
      Object.assign(g.dataset, { context: r.name, index: r.i, word: r.word, x: out.xy[n][0], y: out.xy[n][1] });
      if (r.shared) sharedPoints.push(r);
    });
    sweep(outSvg);
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

// A live line chart of training: the loss on training batches and on held-out examples against
// the step, redrawn in place as points arrive (one <path> per series). The text alternative is
// the latest numbers in a live region, and the whole series can be read from data attributes.
import { h } from './dom.js';
import { fmt } from '../lib/format.js';

const SVG = 'http://www.w3.org/2000/svg';

/** Nice round tick values covering [lo, hi] (about `n` of them). */
export function ticks(lo, hi, n = 4) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * @param {Document} doc
 * @param {{series: {id: string, label: string}[], caption?: string, yLabel?: string, width?: number, height?: number}} options
 * @returns {{el, update(points: {[id]: [step, value][]}), clear()}}
 */
export function createLossChart(doc, { series, caption = '', yLabel = 'loss', width = 420, height = 200 }) {
  const svgEl = (tag, attrs = {}) => {
    const el = doc.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    return el;
  };
  const pad = { left: 44, right: 10, top: 10, bottom: 26 };
  const svg = svgEl('svg', {
    class: 'ae-chart',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': caption || yLabel,
  });
  const grid = svgEl('g', { class: 'ae-chart-grid' });
  const paths = Object.fromEntries(
    series.map((s, n) => [s.id, svgEl('path', { class: `ae-chart-line ae-chart-line-${n}`, 'data-series': s.id })]),
  );
  svg.append(grid, ...Object.values(paths));
  const legend = h(
    doc,
    'p',
    { class: 'ae-chart-legend' },
    series.map((s, n) => h(doc, 'span', { class: `ae-chart-key ae-chart-key-${n}` }, s.label)),
  );
  const latest = h(doc, 'p', { class: 'ae-help ae-chart-latest', 'aria-live': 'off' });
  const el = h(
    doc,
    'figure',
    { class: 'ae-chart-figure' },
    caption ? h(doc, 'figcaption', {}, caption) : null,
    svg,
    legend,
    latest,
  );

  function update(points) {
    const all = Object.values(points).flat();
    grid.replaceChildren();
    if (!all.length) {
      for (const p of Object.values(paths)) p.setAttribute('d', '');
      latest.textContent = '';
      return;
    }
    const xs = all.map((p) => p[0]);
    const ys = all.map((p) => p[1]).filter(Number.isFinite);
    const x0 = Math.min(...xs),
      x1 = Math.max(x0 + 1, ...xs);
    const y0 = Math.min(0, ...ys),
      y1 = Math.max(y0 + 1e-6, ...ys);
    const X = (v) => pad.left + ((v - x0) / (x1 - x0)) * (width - pad.left - pad.right);
    const Y = (v) => height - pad.bottom - ((v - y0) / (y1 - y0)) * (height - pad.top - pad.bottom);
    for (const t of ticks(y0, y1)) {
      grid.append(svgEl('line', { x1: pad.left, x2: width - pad.right, y1: Y(t), y2: Y(t) }));
      const label = svgEl('text', { x: pad.left - 6, y: Y(t) + 4, 'text-anchor': 'end' });
      label.textContent = fmt(t, t < 10 ? 1 : 0);
      grid.append(label);
    }
    for (const t of ticks(x0, x1, 5)) {
      const label = svgEl('text', { x: X(t), y: height - 8, 'text-anchor': 'middle' });
      label.textContent = String(t);
      grid.append(label);
    }
    const axis = svgEl('text', { x: 4, y: pad.top + 8, class: 'ae-chart-axis' });
    axis.textContent = yLabel;
    grid.append(axis);
    const words = [];
    for (const s of series) {
      const pts = (points[s.id] || []).filter((p) => Number.isFinite(p[1]));
      paths[s.id].setAttribute(
        'd',
        pts.map((p, n) => `${n ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(''),
      );
      paths[s.id].dataset.points = JSON.stringify(pts.slice(-1));
      if (pts.length) words.push(`${s.label} ${fmt(pts[pts.length - 1][1])} at step ${pts[pts.length - 1][0]}`);
    }
    latest.textContent = words.join('; ');
  }
  return { el, svg, update, clear: () => update({}) };
}

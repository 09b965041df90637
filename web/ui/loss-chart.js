// A live line chart of training: the loss on training batches and on held-out examples against
// the step, redrawn in place as points arrive (one <path> per series). The text alternative is
// the latest numbers in a live region, and the whole series can be read from data attributes.
import { h } from './dom.js';
import { fmt } from '../lib/format.js';
import { svgEl } from './svg.js';

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
 * @param {{series: {id: string, label: string, markers?: boolean}[], caption?: string, yLabel?: string,
 *          xLabel?: string, width?: number, height?: number}} options
 *   markers: a dot at every point of that series (e.g. the held-out evaluations, a few dozen).
 * @returns {{el, update(points: {[id]: [step, value][]}, domain?: {x?: number, y?: number}), clear()}}
 *   domain: the axes' extent before the points reach it (a run's last step, the loss at step 0),
 *   so an empty chart still has sensible axes.
 */
export function createLossChart(
  doc,
  { series, caption = '', yLabel = 'loss', xLabel = 'step', width = 420, height = 200 },
) {
  const pad = { left: 44, right: 10, top: 20, bottom: 26 };
  const svg = svgEl(doc, 'svg', {
    class: 'ae-chart',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': caption || yLabel,
  });
  const grid = svgEl(doc, 'g', { class: 'ae-chart-grid' });
  const paths = Object.fromEntries(
    series.map((s, n) => [
      s.id,
      svgEl(doc, 'path', { class: `ae-chart-line ae-chart-line-${n}`, 'data-series': s.id }),
    ]),
  );
  const dots = Object.fromEntries(
    series.map((s, n) => [s.id, svgEl(doc, 'g', { class: `ae-chart-dots ae-chart-dots-${n}`, 'data-series': s.id })]),
  );
  svg.append(grid, ...Object.values(paths), ...Object.values(dots));
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

  function update(points, domain = {}) {
    const all = Object.values(points).flat();
    grid.replaceChildren();
    const xs = all.map((p) => p[0]);
    const ys = all.map((p) => p[1]).filter(Number.isFinite);
    if (!all.length && !(domain.x > 0)) {
      for (const p of Object.values(paths)) p.setAttribute('d', '');
      for (const g of Object.values(dots)) g.replaceChildren();
      latest.textContent = '';
      return;
    }
    const x0 = Math.min(0, ...xs),
      x1 = Math.max(x0 + 1, domain.x ?? 0, ...xs);
    // The y axis starts at 0 unless the caller zooms in (domain.y0), never above a point.
    const y0 = Math.min(domain.y0 ?? 0, ...ys),
      y1 = Math.max(y0 + 1e-6, domain.y ?? 0, ...ys);
    const X = (v) => pad.left + ((v - x0) / (x1 - x0)) * (width - pad.left - pad.right);
    const Y = (v) => height - pad.bottom - ((v - y0) / (y1 - y0)) * (height - pad.top - pad.bottom);
    const yTicks = ticks(y0, y1);
    // As many decimals as the tick step needs (0.05 apart: 0.85, 0.90; never two labels alike).
    const step = yTicks.length > 1 ? yTicks[1] - yTicks[0] : 1;
    const digits = Math.min(6, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)));
    for (const t of yTicks) {
      grid.append(svgEl(doc, 'line', { x1: pad.left, x2: width - pad.right, y1: Y(t), y2: Y(t) }));
      const label = svgEl(doc, 'text', { x: pad.left - 6, y: Y(t) + 4, 'text-anchor': 'end' });
      label.textContent = fmt(t, digits);
      grid.append(label);
    }
    for (const t of ticks(x0, x1, 5)) {
      const label = svgEl(doc, 'text', { x: X(t), y: height - 8, 'text-anchor': 'middle' });
      label.textContent = String(t);
      grid.append(label);
    }
    // The y axis's name above the plot, clear of the top tick's label.
    const axis = svgEl(doc, 'text', { x: 4, y: 11, class: 'ae-chart-axis' });
    axis.textContent = yLabel;
    const xAxis = svgEl(doc, 'text', {
      x: width - pad.right,
      y: height - 8 - 11,
      class: 'ae-chart-axis',
      'text-anchor': 'end',
    });
    xAxis.textContent = xLabel;
    grid.append(axis, xAxis);
    const words = [];
    for (const s of series) {
      const pts = (points[s.id] || []).filter((p) => Number.isFinite(p[1]));
      paths[s.id].setAttribute(
        'd',
        pts.map((p, n) => `${n ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(''),
      );
      if (s.markers)
        dots[s.id].replaceChildren(
          ...pts.map((p) => svgEl(doc, 'circle', { cx: X(p[0]).toFixed(1), cy: Y(p[1]).toFixed(1), r: 2.6 })),
        );
      paths[s.id].dataset.points = JSON.stringify(pts.slice(-1));
      if (pts.length) words.push(`${s.label} ${fmt(pts[pts.length - 1][1])} at ${xLabel} ${pts[pts.length - 1][0]}`);
    }
    latest.textContent = words.join('; ');
  }
  return { el, svg, update, clear: () => update({}) };
}

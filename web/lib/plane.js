// The plane view's geometry: vectors as points and arrows in 2-D. Two-wide vectors (the seed's
// queries and keys, dₖ = 2) are drawn as they are; wider ones through their two principal
// components (engine.pca, computed by the core), with the share of the spread the picture keeps.
// Pure apart from the engine call it is handed.

/**
 * 2-D coordinates for `points` (N, D): as they are when D = 2, on a line when D = 1, else the
 * projection onto their two principal components.
 * @returns {{xy: number[][], explained: number[]|null, projected: boolean}}
 */
export function toPlane(engine, points) {
  const D = points[0].length;
  if (D === 2) return { xy: points.map((p) => [p[0], p[1]]), explained: null, projected: false };
  if (D === 1) return { xy: points.map((p) => [p[0], 0]), explained: null, projected: false };
  const pca = engine.pca({ x: points });
  const xy = pca.get('projected');
  return { xy, explained: Array.from(pca.explained.data), projected: true };
}

/**
 * A square viewport holding the origin and every point with one scale on both axes (y up): a
 * function from data to SVG coordinates, the data bound it shows and the pixels per unit.
 */
export function planeScale(xys, size = 280, margin = 28) {
  const xs = [0, ...xys.map((p) => p[0])];
  const ys = [0, ...xys.map((p) => p[1])];
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const span = Math.max(x1 - x0, y1 - y0, 1e-6) * 1.15;
  const cx = (x0 + x1) / 2,
    cy = (y0 + y1) / 2;
  const k = (size - 2 * margin) / span;
  const half = size / 2;
  return { size, bound: span, at: ([x, y]) => [half + (x - cx) * k, half - (y - cy) * k], unit: k };
}

/** The foot of the perpendicular from `k` onto the line through 0 and `q`, and q·k. */
export function projection(q, k) {
  const qq = q[0] * q[0] + q[1] * q[1];
  const dot = q[0] * k[0] + q[1] * k[1];
  if (qq === 0) return { foot: [0, 0], dot };
  return { foot: [(q[0] * dot) / qq, (q[1] * dot) / qq], dot };
}

/** Euclidean distance of two equally long vectors. */
export function distance(a, b) {
  return Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0));
}

/** The part of the segment a–b inside the square [0, size]² (Liang–Barsky), or null. */
export function clipSegment([x1, y1], [x2, y2], size) {
  let t0 = 0,
    t1 = 1;
  const dx = x2 - x1,
    dy = y2 - y1;
  for (const [p, q] of [
    [-dx, x1],
    [dx, size - x1],
    [-dy, y1],
    [dy, size - y1],
  ]) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return null;
  }
  return [
    [x1 + t0 * dx, y1 + t0 * dy],
    [x1 + t1 * dx, y1 + t1 * dy],
  ];
}

/**
 * Places one label beside each point so that no two labels overlap, none covers another point,
 * and each stays inside the picture [0, size]²: for each point in turn it tries eight spots around
 * it (right, left, above, below, then the diagonals) and keeps the first that is free, else the
 * one that overlaps least. Pure; labels are measured by the caller (w × h px).
 * @param {Array<{x: number, y: number, w: number, h: number}>} points  anchors and label sizes, in px
 * @param {number} size  the square picture's side, in px
 * @param {{gap?: number, radius?: number}} options  gap between point and label; the points' radius
 * @returns {Array<{x: number, y: number, w: number, h: number}>}  each label's box (top-left, size)
 */
export function placeLabels(points, size, { gap = 5, radius = 4 } = {}) {
  const inside = (b) => b.x >= 0 && b.y >= 0 && b.x + b.w <= size && b.y + b.h <= size;
  const overlap = (a, b) =>
    Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
    Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const dots = points.map((p) => ({ x: p.x - radius, y: p.y - radius, w: 2 * radius, h: 2 * radius }));
  const placed = [];
  points.forEach((p, n) => {
    const d = gap + radius;
    const spots = [
      [p.x + d, p.y - p.h / 2],
      [p.x - d - p.w, p.y - p.h / 2],
      [p.x - p.w / 2, p.y - d - p.h],
      [p.x - p.w / 2, p.y + d],
      [p.x + d * 0.7, p.y - d * 0.7 - p.h],
      [p.x - d * 0.7 - p.w, p.y - d * 0.7 - p.h],
      [p.x + d * 0.7, p.y + d * 0.7],
      [p.x - d * 0.7 - p.w, p.y + d * 0.7],
    ].map(([x, y]) => ({ x, y, w: p.w, h: p.h }));
    // A spot outside the picture is pushed back in (it may then overlap, and is scored so).
    const clamp = (b) => ({
      ...b,
      x: Math.min(Math.max(b.x, 0), size - b.w),
      y: Math.min(Math.max(b.y, 0), size - b.h),
    });
    const cost = (b) =>
      placed.reduce((s, q) => s + overlap(b, q), 0) +
      dots.reduce((s, q, m) => s + (m === n ? 0 : overlap(b, q)), 0) +
      (inside(b) ? 0 : 1e6);
    let best = null;
    for (const b of spots) {
      const c = cost(b);
      if (c === 0) {
        best = { b, c };
        break;
      }
      const cb = clamp(b);
      const cc = cost(cb) + 0.5; // a moved label is a little worse than one where it belongs
      if (!best || cc < best.c) best = { b: cb, c: cc };
    }
    placed.push(best.b);
  });
  return placed;
}

/**
 * Where every token of every sentence ends up, for the plane's second picture: one row per token
 * of each context the engine computed, its vector after self-attention (mode 'attention') or the
 * plain linear layer ('linear'), and whether it is a word the sentences share.
 * @returns {{names: string[], rows: {name, word, i, v: number[], shared: boolean}[]}}
 */
export function tokenPoints(results, mode) {
  const names = Object.keys(results.contexts).filter((n) => results.contexts[n].trace && results.contexts[n].linear);
  const rows = [];
  for (const name of names) {
    const e = results.contexts[name];
    const vectors = mode === 'attention' ? e.trace.output : e.linear;
    e.tokens.forEach((w, i) =>
      rows.push({ name, word: w, i, v: vectors[i], shared: results.cosines.some((c) => c.word === w) }),
    );
  }
  return { names, rows };
}

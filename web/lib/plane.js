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
  return { xy, explained: Array.from(pca.explained), projected: true };
}

/**
 * A square viewport around the origin and every point: a function from data to SVG coordinates
 * (y up), the data bound it shows, and the pixel size.
 */
export function planeScale(xys, size = 280, margin = 28) {
  const bound = Math.max(1e-6, ...xys.flat().map(Math.abs)) * 1.1;
  const half = size / 2;
  const k = (half - margin) / bound;
  return { size, bound, at: ([x, y]) => [half + x * k, half - y * k], unit: k };
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

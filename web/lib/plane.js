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

/** Whether the segment a–b crosses the box {x, y, w, h} (Liang–Barsky clipping). */
export function segmentHitsBox({ x1, y1, x2, y2 }, b) {
  let t0 = 0,
    t1 = 1;
  const dx = x2 - x1,
    dy = y2 - y1;
  for (const [p, q] of [
    [-dx, x1 - b.x],
    [dx, b.x + b.w - x1],
    [-dy, y1 - b.y],
    [dy, b.y + b.h - y1],
  ]) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

const overlapArea = (a, b) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
const grow = (b, d) => ({ x: b.x - d, y: b.y - d, w: b.w + 2 * d, h: b.h + 2 * d });

// Around a point, the directions a label may sit in: right, left, above, below, the diagonals,
// then the eight between them (y grows downwards).
const DIRECTIONS = [0, 180, 270, 90, 315, 225, 45, 135, 337.5, 202.5, 292.5, 247.5, 22.5, 157.5, 67.5, 112.5].map(
  (deg) => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)],
);

/**
 * Places one label beside each point so that no label overlaps another label, a point, a line of
 * the picture or a box already there (axis titles), and each stays inside the picture [0, size]²:
 * each label in turn takes the nearest free spot around its point, trying sixteen directions at
 * growing distances; a label that had to move away from its point gets a leader line back to it
 * (drawn by the caller, and avoided by the labels placed after it). Crowded points are placed
 * first; if some label finds no free spot, other orders are tried and the one with the least
 * overlap kept. Pure; labels are measured by the caller (w × h px).
 * @param {Array<{x: number, y: number, w: number, h: number}>} points  anchors and label sizes, in px
 * @param {number} size  the square picture's side, in px
 * @param {{gap?: number, radius?: number, segments?: Array<{x1, y1, x2, y2}>, boxes?: Array<{x, y, w, h}>,
 *          clearance?: number}} options  gap between point and label; the points' radius; the
 *   picture's lines and other boxes to keep clear of, by `clearance` px (half a stroke and a margin)
 * @returns {Array<{x: number, y: number, w: number, h: number, leader?: {x1, y1, x2, y2}}>}
 *   each label's box (top-left, size) and, when it sits away from its point, its leader line
 */
export function placeLabels(points, size, { gap = 5, radius = 4, segments = [], boxes = [], clearance = 2 } = {}) {
  const near = gap + radius;
  const far = Math.max(near, size / 2);
  const dots = points.map((p) => ({ x: p.x - radius, y: p.y - radius, w: 2 * radius, h: 2 * radius }));
  // Crowded points first: the number of other points within 40 px.
  const crowd = points.map((p) => points.filter((q) => Math.hypot(q.x - p.x, q.y - p.y) < 40).length);
  const byCrowd = points.map((_, n) => n).sort((a, b) => crowd[b] - crowd[a] || a - b);
  const orders = [byCrowd, byCrowd.slice().reverse(), points.map((_, n) => n)];
  for (let k = 1; orders.length < 12; k++) orders.push(rotate(byCrowd, k % points.length, k));
  let best = null;
  for (const order of orders) {
    const placed = placeInOrder(points, order, { size, near, far, dots, segments, boxes, clearance });
    const score = placed.reduce((s, b) => s + b.cost, 0);
    if (!best || score < best.score) best = { placed, score };
    if (score === 0) break;
  }
  return best.placed.map(({ cost, ...b }) => b);
}

// A deterministic reshuffle of `order` for the k-th retry.
function rotate(order, by, k) {
  const out = [...order.slice(by), ...order.slice(0, by)];
  if (k % 2) out.reverse();
  return out;
}

function placeInOrder(points, order, { size, near, far, dots, segments, boxes, clearance }) {
  const result = new Array(points.length);
  const taken = boxes.slice(); // labels placed so far, and the caller's boxes
  const lines = segments.slice(); // the picture's lines, and the leaders drawn so far
  for (const n of order) {
    const p = points[n];
    let best = null;
    for (let r = near; r <= far && !(best && best.cost === 0); r += r < 3 * near ? 3 : 6) {
      for (const [dx, dy] of DIRECTIONS) {
        // The label's nearest side at distance r from the point, in direction (dx, dy).
        const cx = p.x + dx * (r + p.w / 2),
          cy = p.y + dy * (r + p.h / 2);
        const b = { x: cx - p.w / 2, y: cy - p.h / 2, w: p.w, h: p.h };
        if (b.x < 0 || b.y < 0 || b.x + b.w > size || b.y + b.h > size) continue;
        const leader = r > near + 6 ? leaderLine(p, b, near) : null;
        const cost = costOf(b, n, leader, { taken, lines, dots, clearance });
        if (!best || cost < best.cost) best = { ...b, leader, cost };
        if (cost === 0) break;
      }
    }
    // Nowhere inside the picture at all (a label wider than it): at its point, clamped.
    best ||= {
      x: Math.min(Math.max(p.x + near, 0), Math.max(0, size - p.w)),
      y: Math.min(Math.max(p.y - p.h / 2, 0), Math.max(0, size - p.h)),
      w: p.w,
      h: p.h,
      leader: null,
      cost: 1e6,
    };
    const { leader, ...box } = best;
    result[n] = leader ? { ...box, leader } : box;
    taken.push(best);
    if (best.leader) lines.push(best.leader);
  }
  return result;
}

// What a spot costs: the area it shares with labels, points and boxes, and a flat charge for
// every line through it (and for a leader that crosses a label or a point on its way).
function costOf(b, n, leader, { taken, lines, dots, clearance }) {
  const padded = grow(b, clearance);
  let cost = 0;
  for (const t of taken) cost += overlapArea(padded, t);
  dots.forEach((d, m) => (cost += overlapArea(padded, d) * (m === n ? 1 : 2)));
  for (const s of lines) if (segmentHitsBox(s, padded)) cost += 50;
  if (leader) {
    for (const t of taken) if (segmentHitsBox(leader, grow(t, 1))) cost += 50;
    dots.forEach((d, m) => m !== n && segmentHitsBox(leader, grow(d, 1)) && (cost += 50));
  }
  return cost;
}

// A leader from just outside the point to just outside the label, towards its nearest point.
function leaderLine(p, b, near) {
  const tx = Math.min(Math.max(p.x, b.x), b.x + b.w),
    ty = Math.min(Math.max(p.y, b.y), b.y + b.h);
  const len = Math.hypot(tx - p.x, ty - p.y) || 1;
  const ux = (tx - p.x) / len,
    uy = (ty - p.y) / len;
  const start = near - 2,
    end = len - 3;
  return { x1: p.x + ux * start, y1: p.y + uy * start, x2: p.x + ux * end, y2: p.y + uy * end };
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

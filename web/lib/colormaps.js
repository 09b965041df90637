// Colour maps for the heatmaps: perceptual, colour-blind-safe maps from d3-scale-chromatic
// (viridis for weights in [0, 1], RdBu for signed values around 0), the text colour (black or
// white) with the higher WCAG contrast against each cell, and how far apart two colours look.
// The colours that name a meaning (a head, the shared word…) are lib/palette.js's.
import { interpolateViridis, interpolateRdBu } from '../vendor/d3-scale-chromatic.js';

/** Parses "rgb(r, g, b)" or "#rrggbb" into [r, g, b] in 0..255. */
export function parseColor(color) {
  const m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/i.exec(color);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  const h = /^#([0-9a-f]{6})$/i.exec(color);
  if (h) return [0, 2, 4].map((i) => parseInt(h[1].slice(i, i + 2), 16));
  throw new Error(`parseColor: expected "rgb(r, g, b)" or "#rrggbb", got "${color}"`);
}

/** WCAG relative luminance of an sRGB colour. */
export function luminance([r, g, b]) {
  const lin = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrastRatio(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** An sRGB colour ([r, g, b] in 0..255) in CIELAB (D65). */
export function toLab([r, g, b]) {
  const lin = (c) => {
    c /= 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const X = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const Y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const Z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}

/**
 * How different two colours look: CIEDE2000 of their CIELAB values. About 1 is the smallest
 * difference an eye sees side by side; two categories of a chart want well over 10.
 */
export function deltaE(c1, c2) {
  const rgb = (c) => (typeof c === 'string' ? parseColor(c) : c);
  return deltaE2000(toLab(rgb(c1)), toLab(rgb(c2)));
}

/** CIEDE2000 of two CIELAB colours, as Sharma, Wu & Dalal (2005) formulate it. */
export function deltaE2000([L1, a1, b1], [L2, a2, b2]) {
  const deg = Math.PI / 180;
  const Cbar = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cbar ** 7 / (Cbar ** 7 + 25 ** 7)));
  const [ap1, ap2] = [(1 + G) * a1, (1 + G) * a2];
  const [C1, C2] = [Math.hypot(ap1, b1), Math.hypot(ap2, b2)];
  const hue = (x, y) => (x === 0 && y === 0 ? 0 : (Math.atan2(y, x) / deg + 360) % 360);
  const [h1, h2] = [hue(ap1, b1), hue(ap2, b2)];
  let dh = 0;
  if (C1 * C2 !== 0) dh = h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 < -180 ? h2 - h1 + 360 : h2 - h1;
  const dL = L2 - L1;
  const dC = C2 - C1;
  const dH = 2 * Math.sqrt(C1 * C2) * Math.sin((dh * deg) / 2);
  const Lbar = (L1 + L2) / 2;
  const Cpbar = (C1 + C2) / 2;
  let hbar = h1 + h2;
  if (C1 * C2 !== 0)
    hbar = Math.abs(h1 - h2) > 180 ? (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2) : (h1 + h2) / 2;
  const T =
    1 -
    0.17 * Math.cos((hbar - 30) * deg) +
    0.24 * Math.cos(2 * hbar * deg) +
    0.32 * Math.cos((3 * hbar + 6) * deg) -
    0.2 * Math.cos((4 * hbar - 63) * deg);
  const dTheta = 30 * Math.exp(-(((hbar - 275) / 25) ** 2));
  const RC = 2 * Math.sqrt(Cpbar ** 7 / (Cpbar ** 7 + 25 ** 7));
  const SL = 1 + (0.015 * (Lbar - 50) ** 2) / Math.sqrt(20 + (Lbar - 50) ** 2);
  const SC = 1 + 0.045 * Cpbar;
  const SH = 1 + 0.015 * Cpbar * T;
  const RT = -Math.sin(2 * dTheta * deg) * RC;
  return Math.sqrt((dL / SL) ** 2 + (dC / SC) ** 2 + (dH / SH) ** 2 + RT * (dC / SC) * (dH / SH));
}

/** '#000' or '#fff', whichever contrasts more with the background (always ≥ 4.5:1). */
export function textColorFor(background) {
  const rgb = typeof background === 'string' ? parseColor(background) : background;
  return contrastRatio(rgb, [0, 0, 0]) >= contrastRatio(rgb, [255, 255, 255]) ? '#000' : '#fff';
}

/** Linear mix of two colours in sRGB: t = 0 gives a, t = 1 gives b. */
export function mix(a, b, t) {
  const [p, q] = [a, b].map((c) => (typeof c === 'string' ? parseColor(c) : c));
  return `rgb(${p.map((x, i) => Math.round(x + (q[i] - x) * t)).join(', ')})`;
}

// On a dark page RdBu's white middle glares; there small values fade into the cell colour.
const DARK_CELL = [38, 42, 49];

// The page's two colour maps, used the same way everywhere:
//   'weights'  attention weights, viridis from 0 to 1 — one scale shared by every weights matrix
//              on the page; weights after dropout (kept ones × 1/(1 − p)) may exceed 1, and
//              then that matrix's scale runs from 0 to its own largest value;
//   'signed'   any signed number (embeddings, projections, scores, outputs), RdBu diverging
//              around 0 (blue positive, red negative), symmetric to the matrix's own largest |v|.

/** The top of a weights matrix's scale: 1 (shared), or its largest value when that is above 1. */
const weightsTop = (finite) => Math.max(1, ...finite);

/**
 * Picks a colour scale for a matrix: kind 'weights' or 'signed' (above).
 * @returns {(v: number) => string|null}  null for non-finite values (drawn as masked).
 */
export function colorScale(kind, values, theme = 'light') {
  const finite = values.filter(Number.isFinite);
  if (kind === 'weights') {
    const top = weightsTop(finite);
    return (v) => (Number.isFinite(v) ? interpolateViridis(clamp01(v / top)) : null);
  }
  const maxAbs = finite.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
  // Light ends of RdBu near 0 keep small values quiet; 0.5 ± 0.5·v/max spans the whole map.
  if (theme === 'dark') {
    return (v) =>
      Number.isFinite(v)
        ? mix(DARK_CELL, interpolateRdBu(clamp01(0.5 + (0.5 * v) / maxAbs)), Math.min(1, Math.abs(v) / maxAbs) ** 0.6)
        : null;
  }
  return (v) => (Number.isFinite(v) ? interpolateRdBu(clamp01(0.5 + (0.5 * v) / maxAbs)) : null);
}

/**
 * What a heatmap's legend shows for its matrix: the colour bar's stops (low → high), its two end
 * values, what the colour means, and whether the scale is shared or the matrix's own.
 * @returns {null | {min: number, max: number, stops: string[], meaning: string, scale: string}}
 */
export function legendFor(kind, values, theme = 'light') {
  if (kind === 'none') return null;
  const finite = values.filter(Number.isFinite);
  const color = colorScale(kind, values, theme);
  const at = (lo, hi) => Array.from({ length: 9 }, (_, i) => color(lo + ((hi - lo) * i) / 8));
  if (kind === 'weights') {
    const top = weightsTop(finite);
    return {
      min: 0,
      max: top,
      stops: at(0, top),
      meaning: 'attention weight',
      scale: top > 1 ? 'own scale (kept weights × 1/(1 − p))' : 'one scale for all weights',
    };
  }
  const maxAbs = finite.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
  return {
    min: -maxAbs,
    max: maxAbs,
    stops: at(-maxAbs, maxAbs),
    meaning: 'red −, blue +',
    scale: 'own scale',
  };
}

function clamp01(t) {
  return t < 0 ? 0 : t > 1 ? 1 : t;
}

// Colour maps for the heatmaps: perceptual, colour-blind-safe maps from d3-scale-chromatic
// (viridis for weights in [0, 1], RdBu for signed values around 0), and the text colour
// (black or white) with the higher WCAG contrast against each cell.
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

// One colour per head for the line diagrams (Okabe & Ito's colour-blind-safe set, yellow last
// as it is weak on white), and lighter tints of the same hues on a dark page. Heads cycle.
const HEAD_COLORS = {
  light: ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#4D4D4D', '#B8A500'],
  dark: ['#6CB7EA', '#F08A4B', '#3FC9A0', '#E3A3C8', '#F2B84B', '#9AD3F2', '#CCCCCC', '#F0E442'],
};

/** The line colour of head `h` on a `theme` ('light' | 'dark') page. */
export function headColor(h, theme = 'light') {
  const list = HEAD_COLORS[theme === 'dark' ? 'dark' : 'light'];
  return list[h % list.length];
}

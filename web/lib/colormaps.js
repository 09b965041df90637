// Colour maps for the heatmaps: perceptual, colour-blind-safe maps (viridis for weights in
// [0, 1], RdBu for signed values around 0), the text colour (black or white) with the higher WCAG
// contrast against each cell, and how far apart two colours look. The colours that name a
// meaning (a head, the shared word…) are lib/palette.js's.
//
// The two maps are d3-scale-chromatic's (ISC licence, © Mike Bostock; viridis by van der Walt,
// Smith and Firing, RdBu from ColorBrewer), written here as d3 computes them — viridis a ramp of
// its 256 colours, RdBu a basis spline through its 11 — so the element's file carries these two
// and not d3's every scheme and colour parser. tests/js/lib/colormaps.test.mjs checks them
// against d3-scale-chromatic itself.

const hexes = (s) => Array.from({ length: s.length / 6 }, (_, i) => `#${s.slice(6 * i, 6 * i + 6)}`);
const VIRIDIS = hexes(
  '44015444025645045745055946075a46085c460a5d460b5e470d60470e6147106347116447136548146748166848176948186a481a6c481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a472d7b472e7c472f7d46307e46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f854240864241864142874144874045884046883f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b3b528b3a538b3a548c39558c39568c38588c38598c375a8c375b8d365c8d365d8d355e8d355f8d34608d34618d33628d33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e277e8e277f8e27808e26818e26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d218f8d21908d21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f881fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad8128ae8029af7f2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc743fbc7340bd7242be7144bf7046c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc8635ec96260ca6063cb5f65cb5e67cc5c69cd5b6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d84d44b86d54989d5488bd6468ed64590d74393d74195d84098d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021c8e020cae11fcde11dd0e11cd2e21bd5e21ad8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61ef6e620f8e621fbe723fde725',
);
const RDBU = hexes('67001fb2182bd6604df4a582fddbc7f7f7f7d1e5f092c5de4393c32166ac053061');

/** Viridis at t in [0, 1]: '#rrggbb' (d3's interpolateViridis). */
export function interpolateViridis(t) {
  return VIRIDIS[Math.max(0, Math.min(VIRIDIS.length - 1, Math.floor(t * VIRIDIS.length)))];
}

// d3-interpolate's uniform cubic B-spline through `values` (interpolateBasis).
function basisSpline(values) {
  const n = values.length - 1;
  return (t) => {
    const i = t <= 0 ? (t = 0) : t >= 1 ? ((t = 1), n - 1) : Math.floor(t * n);
    const v1 = values[i];
    const v2 = values[i + 1];
    const v0 = i > 0 ? values[i - 1] : 2 * v1 - v2;
    const v3 = i < n - 1 ? values[i + 2] : 2 * v2 - v1;
    const t1 = (t - i / n) * n;
    const t2 = t1 * t1;
    const t3 = t2 * t1;
    return (
      ((1 - 3 * t1 + 3 * t2 - t3) * v0 + (4 - 6 * t2 + 3 * t3) * v1 + (1 + 3 * t1 + 3 * t2 - 3 * t3) * v2 + t3 * v3) / 6
    );
  };
}
const RDBU_SPLINES = [0, 1, 2].map((c) => basisSpline(RDBU.map((hex) => parseColor(hex)[c])));
const channel = (v) => Math.max(0, Math.min(255, Math.round(v) || 0));

/** RdBu at t in [0, 1] (red at 0, white in the middle, blue at 1): 'rgb(r, g, b)' (d3's interpolateRdBu). */
export function interpolateRdBu(t) {
  return `rgb(${RDBU_SPLINES.map((spline) => channel(spline(t))).join(', ')})`;
}

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

// One colour, one meaning, on the whole page. Every colour that means something is named here
// once, for the light and the dark theme; the CSS reads them as custom properties that the shell
// sets on the explorer's root (cssVariables, through shell/theme.js), and the figures that paint
// in JS (the attention lines, their exports) read them from here. What has no meaning of its
// own is ink: the text colour and its muted grey (a sentence's points in the plane, the loss
// charts' lines, the probability bars). The two colour maps of numbers — viridis for weights in
// [0, 1], RdBu around 0 for signed values — are lib/colormaps.js's, on cells only.
// tests/js/lib/palette.test.mjs checks that no two meanings share a colour in either theme and
// that every one stands out from the page (3:1, WCAG's figure for graphics).
import { mix } from './colormaps.js';

/** What each colour means (a figure's legend says the same). */
export const MEANINGS = Object.freeze({
  head: 'one head of attention: its lines, its query and key arrows, its columns and its box (one colour per head)',
  shared: 'the word every sentence shares (“bank”): its rows, its points',
  accent: 'what can be clicked or is under the keyboard: links, buttons, focus, the current step',
  warn: 'a problem: a refused edit, an engine error, a notebook number that differs',
});

// Okabe & Ito's idea (hues apart for colour-blind readers), pushed to eight heads and to the
// contrast a thin line needs on either theme's cards; the heads avoid the accent's blue, the
// shared word's gold and the warning's red.
const COLORS = Object.freeze({
  light: Object.freeze({
    head: Object.freeze(['#008a7a', '#d55e00', '#9b3fb5', '#3f8f1f', '#c8326e', '#0a8fd0', '#6b5b3e', '#00677d']),
    shared: '#947000',
    accent: '#1f5fbf',
    warn: '#b3261e',
  }),
  dark: Object.freeze({
    head: Object.freeze(['#3cc7b4', '#f08a4b', '#c99be6', '#7fcb5c', '#f27ba8', '#20b5d0', '#c9a77c', '#d1d17a']),
    shared: '#facc15',
    accent: '#8ab4f8',
    warn: '#ff7a70',
  }),
});

// The cards and page behind the colours (explorer.css --card, --bg), for the tints and the tests.
export const SURFACES = Object.freeze({
  light: Object.freeze({ bg: '#fafafa', card: '#ffffff' }),
  dark: Object.freeze({ bg: '#131519', card: '#1c1f25' }),
});

const themeOf = (theme) => (theme === 'dark' ? 'dark' : 'light');

/** The number of heads with a colour of their own; head h takes head h mod HEAD_COLORS. */
export const HEAD_COLORS = COLORS.light.head.length;

/** The colour of head `h` on a `theme` ('light' | 'dark') page. */
export function headColor(h, theme = 'light') {
  const list = COLORS[themeOf(theme)].head;
  return list[((h % list.length) + list.length) % list.length];
}

/** The class that gives an element head `h`'s colour as --head-line and its tint as --head (explorer.css). */
export const headClass = (h) => `ae-head-${((h % HEAD_COLORS) + HEAD_COLORS) % HEAD_COLORS}`;

/**
 * Every meaning's colour, flat: {'head-0': …, …, shared, accent, warn}.
 * @param {'light'|'dark'} theme
 * @returns {Object<string, string>}  '#rrggbb' colours
 */
export function palette(theme = 'light') {
  const c = COLORS[themeOf(theme)];
  const out = {};
  c.head.forEach((color, h) => (out[`head-${h}`] = color));
  out.shared = c.shared;
  out.accent = c.accent;
  out.warn = c.warn;
  return out;
}

/**
 * The custom properties the stylesheet reads, for `theme`: each meaning's colour and the pale
 * tint of it that backgrounds take (a head's column headers, the shared word's row labels, a
 * warning's box). --accent, the focus ring and the shared word's tint stay themable by the host
 * page (--ae-accent, --ae-focus, --ae-highlight; explorer.css derives --from-bg-hl from
 * --ae-bg), and focus is the accent's meaning too.
 * @returns {Object<string, string>}  property name → value
 */
export function cssVariables(theme = 'light') {
  const t = themeOf(theme);
  const c = COLORS[t];
  const tint = (color) => mix(SURFACES[t].card, color, t === 'dark' ? 0.3 : 0.16);
  const out = {};
  c.head.forEach((color, h) => {
    out[`--ae-head-${h}`] = color;
    out[`--ae-head-tint-${h}`] = tint(color);
  });
  out['--ae-shared'] = c.shared;
  const sharedTint = t === 'dark' ? mix(SURFACES.dark.card, c.shared, 0.22) : '#fff2c2';
  out['--ae-shared-tint'] = `var(--ae-highlight, var(--from-bg-hl, ${sharedTint}))`;
  out['--accent'] = `var(--ae-accent, ${c.accent})`;
  out['--focus'] = 'var(--ae-focus, var(--accent))';
  out['--warn'] = c.warn;
  out['--warn-bg'] = mix(SURFACES[t].card, c.warn, t === 'dark' ? 0.18 : 0.08);
  return out;
}

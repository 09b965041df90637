// One colour, one meaning (web/lib/palette.js): in the light and the dark theme no two meanings
// share a colour, none is mistaken for the text's ink, each stands out from the page as a line
// must (3:1), the stylesheet names no meaning's colour by hand, and the custom properties the
// shell sets name every meaning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  palette,
  cssVariables,
  headColor,
  headClass,
  HEAD_COLORS,
  MEANINGS,
  SURFACES,
} from '../../../web/lib/palette.js';
import { contrastRatio, deltaE, deltaE2000, parseColor } from '../../../web/lib/colormaps.js';

const CSS = fs.readFileSync(fileURLToPath(new URL('../../../web/styles/explorer.css', import.meta.url)), 'utf8');
// The stylesheet's ink of each theme (--fg, --muted), read from the stylesheet itself.
function ink(theme) {
  const block = theme === 'dark' ? /\.ae-root\[data-theme='dark'\] \{([^}]*)\}/ : /\.ae-root \{([^}]*)\}/;
  const body = block.exec(CSS)[1];
  const value = (name) => new RegExp(`${name}: (?:var\\(--[a-z-]+, )*(#[0-9a-f]{6})`).exec(body)[1];
  return { fg: value('--fg'), muted: value('--muted'), bg: value('--bg'), card: value('--card') };
}
const MIN_APART = 14; // CIEDE2000: categories of a chart read apart well over 10

test('Palette_DeltaEIsCiede2000AsSharmaWuAndDalalTabulateIt', () => {
  // Pairs 1, 7, 13 and 25 of their test data.
  assert.ok(Math.abs(deltaE2000([50, 2.6772, -79.7751], [50, 0, -82.7485]) - 2.0425) < 1e-4);
  assert.ok(Math.abs(deltaE2000([50, 0, 0], [50, -1, 2]) - 2.3669) < 1e-4);
  assert.ok(Math.abs(deltaE2000([50, 2.5, 0], [56, -27, -3]) - 31.903) < 1e-3);
  assert.ok(Math.abs(deltaE2000([2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514]) - 0.9082) < 1e-4);
  assert.equal(deltaE('#123456', '#123456'), 0);
});

test('Palette_NoTwoMeaningsShareAColourInEitherTheme', () => {
  for (const theme of ['light', 'dark']) {
    const p = palette(theme);
    const { fg, muted } = ink(theme);
    const all = { ...p, 'ink (--fg)': fg, 'ink (--muted)': muted };
    const names = Object.keys(all);
    for (let a = 0; a < names.length; a++)
      for (let b = a + 1; b < names.length; b++) {
        if (names[a].startsWith('ink') && names[b].startsWith('ink')) continue;
        const d = deltaE(all[names[a]], all[names[b]]);
        assert.ok(
          d >= MIN_APART,
          `${theme}: ${names[a]} ${all[names[a]]} and ${names[b]} ${all[names[b]]} are ${d.toFixed(1)} apart`,
        );
      }
    // Every meaning the palette names has its colour, and every head up to HEAD_COLORS its own.
    for (const m of Object.keys(MEANINGS)) assert.ok(m === 'head' || p[m], `${theme}: ${m}`);
    assert.equal(Object.keys(p).filter((k) => k.startsWith('head-')).length, HEAD_COLORS);
  }
});

test('Palette_EveryMeaningStandsOutFromThePageAndItsCards', () => {
  for (const theme of ['light', 'dark']) {
    const { bg, card } = ink(theme);
    assert.deepEqual(
      { bg, card },
      { bg: SURFACES[theme].bg, card: SURFACES[theme].card },
      'palette.js knows the surfaces',
    );
    for (const [name, color] of Object.entries(palette(theme)))
      for (const surface of [bg, card]) {
        const r = contrastRatio(parseColor(color), parseColor(surface));
        assert.ok(r >= 3, `${theme}: ${name} ${color} on ${surface}: ${r.toFixed(2)}:1`);
      }
  }
});

test('Palette_HeadsCycleAndTheirClassNamesFollow', () => {
  assert.equal(headColor(0), palette()['head-0']);
  assert.equal(headColor(HEAD_COLORS), headColor(0));
  assert.equal(headColor(1, 'dark'), palette('dark')['head-1']);
  assert.equal(headClass(HEAD_COLORS + 2), 'ae-head-2');
});

test('Palette_TheStylesheetReadsEveryMeaningFromTheShellAndNamesNoneByHand', () => {
  for (const theme of ['light', 'dark']) {
    const vars = cssVariables(theme);
    for (let h = 0; h < HEAD_COLORS; h++) {
      assert.equal(vars[`--ae-head-${h}`], headColor(h, theme));
      assert.match(vars[`--ae-head-tint-${h}`], /^rgb\(/);
      assert.ok(CSS.includes(`var(--ae-head-${h})`), `the stylesheet reads --ae-head-${h}`);
    }
    assert.equal(vars['--ae-shared'], palette(theme).shared);
    assert.equal(vars['--accent'], `var(--ae-accent, ${palette(theme).accent})`);
    assert.equal(vars['--warn'], palette(theme).warn);
  }
  // No colour literal in the stylesheet is (nearly) a meaning's: those come from the palette.
  const literals = [...new Set(CSS.match(/#[0-9a-fA-F]{6}\b/g))];
  for (const theme of ['light', 'dark'])
    for (const [name, color] of Object.entries(palette(theme)))
      for (const lit of literals) {
        if (/^#b3261e$/i.test(lit) && name === 'warn') continue; // the load error, outside .ae-root
        assert.ok(deltaE(lit, color) >= 8, `explorer.css writes ${lit}, ${theme} ${name}'s colour (${color}), by hand`);
      }
});

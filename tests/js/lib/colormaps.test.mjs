// Unit tests of web/lib/colormaps.js: every cell's text colour keeps WCAG AA contrast, masked
// values get no colour, and the maps are d3-scale-chromatic's perceptual ones, colour for colour.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as d3 from 'd3-scale-chromatic';

let cm;
before(async () => {
  cm = await import('../../../web/lib/colormaps.js');
});

test('Maps_AreD3ScaleChromaticsViridisAndRdBuColourForColour', () => {
  for (let i = -20; i <= 2020; i++) {
    const t = i / 2000;
    assert.equal(cm.interpolateViridis(t), d3.interpolateViridis(t), `viridis(${t})`);
    assert.equal(cm.interpolateRdBu(t), d3.interpolateRdBu(t), `RdBu(${t})`);
  }
});

test('ParseColor_ReadsRgbAndHexAndRefusesAnythingElseByName', () => {
  assert.deepEqual(cm.parseColor('rgb(68, 1, 84)'), [68, 1, 84]);
  assert.deepEqual(cm.parseColor('#fde725'), [253, 231, 37]);
  assert.throws(() => cm.parseColor('red'), /parseColor: expected/);
});

test('TextColorFor_ContrastIsAtLeast4.5To1OnEveryColourOfBothMaps', () => {
  for (const [kind, theme] of [
    ['weights', 'light'],
    ['signed', 'light'],
    ['weights', 'dark'],
    ['signed', 'dark'],
  ]) {
    const values = Array.from({ length: 101 }, (_, i) => (kind === 'signed' ? -1 + i / 50 : i / 100));
    const scale = cm.colorScale(kind, values, theme);
    for (const v of values) {
      const bg = scale(v);
      const fg = cm.textColorFor(bg);
      const ratio = cm.contrastRatio(cm.parseColor(bg), fg === '#000' ? [0, 0, 0] : [255, 255, 255]);
      assert.ok(ratio >= 4.5, `${kind} ${v}: ${fg} on ${bg} has contrast ${ratio.toFixed(2)}`);
    }
  }
});

test('ColorScale_WeightsAreViridisSignedIsSymmetricAroundZeroMaskedHasNoColour', () => {
  const w = cm.colorScale('weights', [0, 1]);
  assert.equal(w(0), '#440154'); // viridis(0)
  assert.equal(w(1), '#fde725'); // viridis(1)
  assert.equal(w(-Infinity), null);
  const s = cm.colorScale('signed', [-2, 0.5, -Infinity]);
  assert.equal(s(0), cm.colorScale('signed', [-7, 7])(0), 'zero is the middle colour');
  assert.notEqual(s(2), s(-2));
  assert.equal(s(-Infinity), null);
  const dark = cm.colorScale('signed', [-1, 1], 'dark');
  assert.equal(dark(0), 'rgb(38, 42, 49)', 'on a dark page 0 is the dark cell colour');
  assert.equal(dark(1), cm.colorScale('signed', [-1, 1])(1), 'and the extremes are RdBu’s');
});

test('Legend_OneSharedWeightsScaleAndEachSignedMatrixsOwn', () => {
  const w = cm.legendFor('weights', [0.2, 0.5, -Infinity]);
  assert.equal(w.min, 0);
  assert.equal(w.max, 1);
  assert.match(w.scale, /one scale for all weights/);
  assert.equal(w.stops[0], '#440154');
  assert.equal(w.stops.at(-1), '#fde725');
  // Weights after dropout (kept ones scaled by 1/(1 − p)) run past 1: their own scale then.
  const dropped = cm.legendFor('weights', [0, 1.25]);
  assert.equal(dropped.max, 1.25);
  assert.match(dropped.scale, /own scale/);
  assert.equal(cm.colorScale('weights', [0, 1.25])(1.25), '#fde725');
  const s = cm.legendFor('signed', [-0.5, 2, -Infinity]);
  assert.deepEqual([s.min, s.max], [-2, 2]);
  assert.match(s.meaning, /red −, blue \+/);
  assert.match(s.scale, /own scale/);
  assert.equal(s.stops[4], cm.colorScale('signed', [-2, 2])(0), 'the middle stop is 0');
  assert.equal(cm.legendFor('none', [1]), null);
});

// web/lib/heatmap-image.js: a heatmap as a standalone SVG holds every value and its labels as text.
import test from 'node:test';
import assert from 'node:assert/strict';
import { hostileLabels, matrix } from '../../helpers/export-data.mjs';
import { toSVG, heatmapLayout } from '../../../web/lib/heatmap-image.js';

test('SVG_HasEveryValueAndEscapedLabels', () => {
  const options = { rowLabels: hostileLabels.slice(0, 2), colLabels: hostileLabels, title: 'weights <river>' };
  const svg = toSVG(matrix, options);
  assert.ok(!svg.includes('<img'), 'a label became markup');
  assert.ok(!svg.includes('</script>'), 'a label became markup');
  // The full label is in the <title>; the visible text is clipped to 16 characters.
  assert.ok(svg.includes('<title>&lt;img src=x onerror=alert(1)&gt;</title>&lt;img src=x oner…'));
  assert.ok(svg.includes('weights &lt;river&gt;'));
  const values = [...svg.matchAll(/data-row="(\d+)" data-col="(\d+)" data-value="([^"]+)"/g)];
  assert.equal(values.length, 8);
  for (const [, r, c, v] of values) assert.equal(v === '-Infinity' ? -Infinity : Math.fround(Number(v)), matrix[r][c]);
  const L = heatmapLayout(matrix, options);
  assert.match(svg, new RegExp(`width="${L.width}" height="${L.height}"`));
});

test('SVG_TheTitlesTransposeIsARaisedTNotTheModifierLetter', () => {
  const svg = toSVG(matrix, { title: 'scores = Q·Kᵀ <river>' });
  assert.ok(!svg.includes('ᵀ'), 'no U+1D40 in the drawing');
  assert.ok(
    svg.includes(
      '<tspan>scores = Q·K</tspan><tspan dy="-5" font-size="9">T</tspan><tspan dy="5"> &lt;river&gt;</tspan>',
    ),
    svg.slice(0, 400),
  );
});

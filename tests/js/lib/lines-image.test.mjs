// The attention-lines pictures (web/lib/lines-image.js): one head's layout, and the model view's
// grid of layers × heads as one picture (the Learn section's "every layer and head" export) —
// lines carry the weights they were drawn from, masked pairs get none, cells do not overlap, and
// token names stay text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linesLayout, toLinesSVG, gridLayout, toGridSVG, gridCSV, MAX_STROKE } from '../../../web/lib/lines-image.js';
import { parseCSV } from '../../helpers/csv.mjs';

// (layers 2, heads 3, T 3): row i of each head sums to 1 over its visible keys j ≤ i.
const T = 3;
const attention = [0, 1].map((l) =>
  [0, 1, 2].map((h) =>
    Array.from({ length: T }, (_, i) => {
      const raw = Array.from({ length: T }, (_, j) => (j <= i ? 1 + l + h * (j + 1) : 0));
      const sum = raw.reduce((a, b) => a + b, 0);
      return raw.map((x) => x / sum);
    }),
  ),
);
const causal = (_, i, j) => j > i;

test('LinesLayout_WidthsAreTheWeightsAndMaskedPairsHaveNoLine', () => {
  const L = linesLayout({ tokens: ['a', 'b', 'c'], weights: attention[0], heads: [1], masked: causal });
  assert.equal(L.lines.length, (T * (T + 1)) / 2);
  for (const line of L.lines) {
    assert.equal(line.head, 1);
    assert.ok(line.j <= line.i);
    assert.equal(line.weight, attention[0][1][line.i][line.j]);
    assert.equal(line.strokeWidth, line.weight * MAX_STROKE);
  }
  assert.match(toLinesSVG(L), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^]*<\/svg>\n$/);
});

test('GridLayout_OneCellPerLayerAndHeadSideBySideWithoutOverlap', () => {
  const G = gridLayout({ tokens: ['a', 'b', 'c'], attention, masked: causal, title: 'reverse, step 60' });
  assert.equal(G.cells.length, 2 * 3);
  assert.deepEqual(
    G.cells.map((c) => [c.layer, c.head]),
    [
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ],
  );
  for (const a of G.cells) {
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + a.L.width <= G.width && a.y + a.L.height <= G.height, 'inside');
    for (const b of G.cells) {
      if (a === b) continue;
      const apart =
        a.x + a.L.width <= b.x || b.x + b.L.width <= a.x || a.y + a.L.height <= b.y || b.y + b.L.height <= a.y;
      assert.ok(apart, `cells ${a.layer},${a.head} and ${b.layer},${b.head} overlap`);
    }
    assert.equal(a.L.title, `layer ${a.layer + 1} · head ${a.head + 1}`);
    assert.ok(a.L.lines.every((line) => line.head === a.head));
  }
});

test('GridExport_SVGAndCSVCarryEveryCellsWeights', () => {
  const G = gridLayout({ tokens: ['a', 'b', 'c'], attention, masked: causal, title: 'all' });
  const svg = toGridSVG(G);
  const cells = [...svg.matchAll(/<g class="attn-cell" data-layer="(\d)" data-head="(\d)"[^>]*>([^]*?)<\/g>/g)];
  assert.equal(cells.length, 6);
  for (const [, layer, head, body] of cells) {
    const lines = [...body.matchAll(/data-i="(\d+)" data-j="(\d+)" data-weight="([^"]+)"/g)];
    assert.equal(lines.length, (T * (T + 1)) / 2, `layer ${layer} head ${head}`);
    for (const [, i, j, w] of lines) assert.equal(Math.fround(Number(w)), Math.fround(attention[layer][head][i][j]));
  }
  const rows = parseCSV(gridCSV(G));
  assert.deepEqual(rows[0], ['layer', 'head', 'query', 'key', 'weight']);
  assert.equal(rows.length - 1, 6 * ((T * (T + 1)) / 2));
  for (const [layer, head, query, key, w] of rows.slice(1)) {
    const i = ['a', 'b', 'c'].indexOf(query),
      j = ['a', 'b', 'c'].indexOf(key);
    assert.equal(Math.fround(Number(w)), Math.fround(attention[Number(layer)][Number(head)][i][j]));
  }
});

test('GridExport_TokenNamesStayText', () => {
  const hostile = ['<script>alert(1)</script>', '"><svg onload=x>', 'a&b'];
  const G = gridLayout({ tokens: hostile, attention, masked: causal, title: '<b>title</b>' });
  const svg = toGridSVG(G);
  assert.doesNotMatch(svg, /<script|<svg onload|<b>/);
  assert.match(svg, /&lt;b&gt;title&lt;\/b&gt;/);
  assert.match(svg, /a&amp;b/);
  const rows = parseCSV(gridCSV(G));
  assert.equal(rows[1][2], hostile[0]);
});

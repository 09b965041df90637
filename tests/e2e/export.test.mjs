// Browser tests of the exports: the export toolbar that attachExportMenus() puts on every
// heatmap, and the whole-state PyTorch script. Every file is parsed back and its numbers
// compared with the engine (an independent instance in Node, same WASM, same kernel, so float32
// numbers must match exactly); the PNG's pixels are checked against the page's cell colours;
// the PyTorch literal and script are run with /usr/bin/python3 + torch when torch is importable.
// Run: node --test tests/e2e/export.test.mjs
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage } from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import { readPNG } from '../../web/lib/png.js';
import { heatmapLayout } from '../../web/lib/heatmap-image.js';
import { parseCSV } from '../helpers/csv.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PYTHON = process.env.ATTN_PYTHON || '/usr/bin/python3';
const torchCheck = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
const torchReason =
  torchCheck.status === 0
    ? ''
    : `torch is not importable by ${PYTHON} (${(torchCheck.stderr || torchCheck.error?.message || '').trim().split('\n').pop()})`;

// Causal (masked −∞ entries), a temperature, and dropout in training mode (so the script needs
// the page's keep masks).
const OPTIONS = { causal: true, temperature: 0.8, dropout: 0.3, training: true, seed: 11 };

let server;
let browser;
let engine;
let page;
let context;
let state;

test.before(async () => {
  server = await serveStatic(ROOT);
  browser = await launchBrowser();
  engine = await loadEngine();
  ({ page, context } = await openPage(browser, null, { acceptDownloads: true }));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  await page.goto(server.url + 'tests/e2e/pages/export.html');
  await page.evaluate(() => window.__page);
  state = await page.evaluate(async (options) => {
    const { store } = await window.__page;
    store.set((s) => ({ ...s, options: { ...s.options, ...options } }));
    return store.get();
  }, OPTIONS);
  await page.waitForFunction(() =>
    document.querySelector('table[data-matrix="masked"][data-context="river"] td.ae-masked'),
  );
  await page.waitForFunction(() => document.querySelectorAll('.ae-export').length >= 8);
});
test.after(async () => {
  await browser?.close();
  await server?.close();
});

function trace(name) {
  const o = state.options;
  return engine.attend({
    x: state.contexts[name].map((w) => state.vocab[w]),
    wq: state.weights.wq,
    wk: state.weights.wk,
    wv: state.weights.wv,
    heads: o.heads,
    causal: o.causal,
    scale: o.scale,
    temperature: o.temperature,
    dropout: o.dropout,
    seed: o.seed,
    training: o.training,
    kernel: o.kernel,
  });
}

/** Opens a heatmap's collapsed export menu (a <details>) unless it is open already. */
async function openMenu(menu) {
  if (!(await menu.evaluate((node) => node.open))) await menu.locator('summary').click();
}

/** Clicks an export button of a table's menu; returns the downloaded bytes and file name. */
async function download(matrix, contextName, kind) {
  const menu = page.locator(
    `figure:has(table[data-matrix="${matrix}"][data-context="${contextName}"]) details.ae-export`,
  );
  await openMenu(menu);
  const button = menu.locator(`button[data-export="${kind}"]`);
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const bytes = fs.readFileSync(await file.path());
  return { bytes, name: file.suggestedFilename() };
}

const exact = (shown, expected, what) => {
  assert.equal(shown.length, expected.length, `${what}: rows`);
  shown.forEach((row, i) =>
    row.forEach((v, j) => {
      const e = expected[i][j];
      assert.ok(
        e === -Infinity ? v === -Infinity : Math.fround(v) === e,
        `${what}[${i}][${j}]: exported ${v}, engine ${e}`,
      );
    }),
  );
};

test('CSV_HasTheEngineNumbersAndTheTokenLabels', async () => {
  const { bytes, name } = await download('weights', 'river', 'csv');
  assert.match(name, /\.csv$/);
  const rows = parseCSV(bytes.toString('utf8'));
  assert.deepEqual(rows[0].slice(1), state.contexts.river);
  assert.deepEqual(
    rows.slice(1).map((r) => r[0]),
    state.contexts.river,
  );
  exact(
    rows.slice(1).map((r) => r.slice(1).map(Number)),
    trace('river').get('weights')[0],
    'weights csv',
  );
});

test('JSON_HasTheEngineNumbersWithNullForMasked', async () => {
  const { bytes } = await download('masked', 'river', 'json');
  const out = JSON.parse(bytes.toString('utf8'));
  const masked = trace('river').get('masked')[0];
  assert.deepEqual(out.shape, [3, 3]);
  assert.deepEqual(out.colLabels, state.contexts.river);
  exact(
    out.data.map((r) => r.map((v) => (v === null ? -Infinity : v))),
    masked,
    'masked json',
  );
  assert.equal(out.data[0][2], null, 'a future key is masked');
});

test('SVG_IsWellFormedWithTheNumbersLabelsAndPageColours', async () => {
  const { bytes } = await download('weights', 'river', 'svg');
  const svg = bytes.toString('utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.querySelector('parsererror')?.textContent || null,
      cells: [...doc.querySelectorAll('g.cell')].map((g) => [
        Number(g.dataset.row),
        Number(g.dataset.col),
        Number(g.dataset.value),
        g.querySelector('rect').getAttribute('fill'),
      ]),
      cols: [...doc.querySelectorAll('.col-label')].map((t) => t.lastChild.textContent),
      shown: [...document.querySelectorAll('table[data-matrix="weights"][data-context="river"] td.ae-cell')].map(
        (td) => td.style.backgroundColor || '#e6e6e6',
      ),
    };
  }, svg);
  assert.equal(parsed.error, null);
  assert.deepEqual(parsed.cols, state.contexts.river);
  const weights = trace('river').get('weights')[0];
  const grid = [[], [], []];
  for (const [r, c, v] of parsed.cells) grid[r][c] = v;
  exact(grid, weights, 'weights svg');
  assert.deepEqual(
    parsed.cells.map((c) => c[3]),
    parsed.shown,
    'the SVG uses the colours the page shows',
  );
});

test('PNG_IsTwiceTheSizeCarriesTheNumbersAndPaintsThePageColours', async () => {
  const { bytes } = await download('weights', 'river', 'png');
  const info = readPNG(bytes);
  const table = await page.evaluate(async () => {
    const { readHeatmapTable } = await import('/web/tools/export-menu.js');
    return readHeatmapTable(document.querySelector('table[data-matrix="weights"][data-context="river"]'));
  });
  const L = heatmapLayout(table.matrix, {
    rowLabels: table.rowLabels,
    colLabels: table.colLabels,
    title: table.name,
    cellColors: table.cellColors,
  });
  assert.equal(info.width, Math.ceil(L.width * 2));
  assert.equal(info.height, Math.ceil(L.height * 2));
  const rows = parseCSV(info.text['attention-explorer:csv']);
  exact(
    rows.slice(1).map((r) => r.slice(1).map(Number)),
    trace('river').get('weights')[0],
    'weights png text',
  );
  // Pixels near each cell's top-left corner (inside the 1px border, away from the number).
  const points = L.cells.map((c) => [Math.round((c.x + 4) * 2), Math.round((c.y + 4) * 2)]);
  const pixels = await page.evaluate(
    async ({ b64, points }) => {
      const data = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([data], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(bitmap, 0, 0);
      return points.map(([x, y]) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3)));
    },
    { b64: bytes.toString('base64'), points },
  );
  L.cells.forEach((cell, i) => {
    // Masked cells have no colour on the page; the export paints them light grey.
    const expected = cell.fill ? /rgb\((\d+), (\d+), (\d+)\)/.exec(cell.fill).slice(1).map(Number) : [230, 230, 230];
    pixels[i].forEach((v, k) =>
      assert.ok(Math.abs(v - expected[k]) <= 2, `cell ${cell.r},${cell.c}: pixel ${pixels[i]} vs ${expected}`),
    );
  });
});

test('TorchLiteral_IsCopiedAndReadsBackInPython', async () => {
  const menu = page.locator('figure:has(table[data-matrix="scores"][data-context="river"]) details.ae-export');
  await openMenu(menu);
  await menu.locator('button[data-export="copy"]').click();
  await page.waitForFunction(() =>
    /Copied/.test(
      document.querySelector('figure:has(table[data-matrix="scores"][data-context="river"]) .ae-export-status')
        .textContent,
    ),
  );
  const literal = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(literal, /^torch\.tensor\(\[/);
  const scores = trace('river').get('scores')[0];
  const numbers = [...literal.matchAll(/-?\d+\.\d+(?:e[+-]?\d+)?/g)].map((m) => Number(m[0]));
  exact([numbers.slice(0, 3), numbers.slice(3, 6), numbers.slice(6, 9)], scores, 'scores literal');
  if (torchReason) {
    console.log(`# skipping the Python read-back of the literal: ${torchReason}`);
    return;
  }
  const run = spawnSync(
    PYTHON,
    ['-c', `import json, torch\nt = ${literal}\nprint(t.dtype)\nprint(json.dumps(t.tolist()))`],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  const [dtype, json] = run.stdout.trim().split('\n');
  assert.equal(dtype, 'torch.float32');
  exact(JSON.parse(json), scores, 'scores read by torch');
});

test('PyTorchScript_RecomputesWhatThePageShows', { skip: torchReason || false }, async () => {
  const button = page.locator('.ae-export-script button[data-export="script"]');
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  assert.equal(file.suggestedFilename(), 'attention.py');
  const script = fs.readFileSync(await file.path(), 'utf8');
  const run = spawnSync(PYTHON, ['-'], { input: script, encoding: 'utf8', timeout: 120000 });
  assert.equal(run.status, 0, `${run.stderr}\n${script}`);
  const printed = {};
  let current = null;
  for (const line of run.stdout.split('\n')) {
    const head = /^(.*) \[([\d, ]+)\]$/.exec(line);
    if (head) {
      current = printed[head[1]] = [];
      continue;
    }
    if (current) for (const m of line.matchAll(/-?\d+\.\d+/g)) current.push(Number(m[0]));
  }
  for (const name of Object.keys(state.contexts)) {
    const t = trace(name);
    // With dropout in training mode the page shows (and the script prints) the dropped weights.
    const dropped = t.get('dropped')[0].flat();
    const output = t.get('output').flat();
    assert.ok(
      dropped.some((v) => v === 0) && dropped.some((v) => v > 1 / 3),
      `${name}: dropout is visible in the weights`,
    );
    for (const [what, expected] of [
      ['weights', dropped],
      ['output', output],
    ]) {
      const got = printed[`${name} ${what}`];
      assert.ok(got, `${name} ${what} printed`);
      assert.equal(got.length, expected.length, `${name} ${what}: count`);
      // Printed with 4 decimals: half a unit in the last place plus float32 noise.
      got.forEach((v, i) =>
        assert.ok(
          Math.abs(v - expected[i]) <= 5e-5 + 2e-6,
          `${name} ${what}[${i}]: python ${v}, engine ${expected[i]}`,
        ),
      );
    }
  }
});

test('ExportMenus_AreOnEveryVisibleHeatmap', async () => {
  const missing = await page.evaluate(() =>
    [...document.querySelectorAll('table[data-matrix]')]
      .filter((t) => t.offsetParent && !t.closest('figure')?.querySelector('.ae-export'))
      .map((t) => `${t.dataset.matrix}/${t.dataset.context}`),
  );
  assert.deepEqual(missing, []);
});

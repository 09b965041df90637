// The explorer in a second browser: Debian's Firefox ESR, headless, over WebDriver BiDi
// (puppeteer-core; tests/e2e/helpers.mjs launchFirefox says which prefs and why). The other
// e2e files drive Chromium; this one checks what most often differs between engines: the page's
// first render and numbers, the element under the strict CSP (unbundled and as shipped in
// dist/), MathML, and the exports as real downloads.
// Run: node --test tests/e2e/firefox.test.mjs   (needs `node scripts/build.mjs` once)
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchFirefox, openFirefoxPage, serveStatic, takeDownload, CSP, ensureDist } from './helpers.mjs';
import { defaultState } from '../../web/lib/state.js';
import { readPNG } from '../../web/lib/png.js';
import { heatmapLayout } from '../../web/lib/heatmap-image.js';
import { parseCSV } from '../helpers/csv.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Seed 003's printed outputs (3 decimals), reproduced by PyTorch 1.13.1 (as in page.test.mjs).
const SEED = {
  river: [
    ['0.992', '0.221', '0.261'],
    ['0.957', '0.314', '0.256'],
    ['0.986', '0.232', '0.263'],
  ],
  finance: [
    ['0.188', '1.158', '0.169'],
    ['0.297', '1.089', '0.180'],
    ['0.204', '1.146', '0.172'],
  ],
};

let web;
let dist;
let browser;
let downloads;
let engine;

test.before(async () => {
  ensureDist();
  downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-firefox-downloads-'));
  web = await serveStatic(path.join(ROOT, 'web'));
  dist = await serveStatic(path.join(ROOT, 'dist'));
  browser = await launchFirefox();
  console.log(`# firefox: ${await browser.version()}`);
  // The engine through package.json's "exports" (dist/engine.js, just built): no source path here.
  const { loadEngine } = await import('attention-explorer/engine');
  engine = await loadEngine();
});
test.after(async () => {
  await browser?.close();
  await web?.close();
  await dist?.close();
  if (downloads) fs.rmSync(downloads, { recursive: true, force: true });
});

/** A heatmap's shown texts and data-values, from a root (document or shadow root). */
const readTable = (page, rootSelector, tableSelector) =>
  page.evaluate(
    (rootSel, sel) => {
      const root = rootSel ? document.querySelector(rootSel).shadowRoot : document;
      const table = root.querySelector(sel);
      if (!table) return null;
      const cells = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td.ae-cell')]);
      return {
        texts: cells.map((row) => row.map((td) => td.textContent.replace('\u2212', '-'))),
        values: cells.map((row) => row.map((td) => Number(td.dataset.value))),
      };
    },
    rootSelector,
    tableSelector,
  );

/**
 * Opens the explorer page at `hash` and waits until it has rendered: the built one (dist/, as
 * `npm start` serves it) unless `from` is web (web/'s modules, for a test that imports one).
 */
async function openExplorer(hash = '', from = dist) {
  const opened = await openFirefoxPage(browser, null, { downloadDir: downloads });
  const response = await opened.page.goto(from.url + hash);
  assert.equal(response.headers()['content-security-policy'], CSP);
  await opened.page.evaluate(() => window.__explorer.ready);
  return opened;
}

test('Page_LoadsWithNoConsoleErrorsAndShowsTheSeedNumbers', async () => {
  // A link written before 0.4.0 to the default state: the notebook's own weights.
  const { page, problems, context } = await openExplorer('#1e30');
  for (const name of ['river', 'finance']) {
    const shown = await readTable(
      page,
      null,
      `section[data-section="contexts"] table[data-matrix="output"][data-context="${name}"]`,
    );
    assert.deepEqual(shown?.texts, SEED[name], `${name} output`);
  }
  const cosine = await page.$$eval('td[data-cos][data-word="bank"]', (tds) =>
    Object.fromEntries(tds.map((td) => [td.dataset.cos, td.textContent])),
  );
  assert.deepEqual(cosine, { embedding: '1.000', linear: '1.000', average: '0.504', attention: '0.565' });
  // Console errors do reach the test over BiDi: a probe shows up, then the page has no other.
  const probe = 'console: probe: console errors are recorded';
  await page.evaluate(() => console.error('probe: console errors are recorded'));
  for (let i = 0; i < 50 && !problems.includes(probe); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(problems, [probe]);
  await context.close();
});

for (const [where, server] of [
  ['FromSource', () => web],
  ['FromDist', () => dist],
]) {
  test(`Element${where}_RendersUnderTheStrictCspWithoutViolations`, async () => {
    const { page, problems, context } = await openFirefoxPage(browser, null);
    const response = await page.goto(server().url + 'examples/csp.html');
    assert.equal(response.headers()['content-security-policy'], CSP);
    await page.waitForFunction(
      () => document.querySelector('#csp')?.shadowRoot?.querySelector('table[data-matrix="out"] td.ae-cell'),
      {
        timeout: 20000,
      },
    );
    await page.evaluate(() => document.querySelector('#csp').ready);
    const out = await page.evaluate(() => {
      const root = document.querySelector('#csp').shadowRoot;
      const math = root.querySelector('math');
      return {
        violations: window.__cspViolations,
        fraction: Boolean(root.querySelector('math mfrac msqrt')),
        mathHeight: math ? math.getBoundingClientRect().height : 0,
        tables: root.querySelectorAll('table[data-matrix]').length,
      };
    });
    assert.deepEqual(out.violations, []);
    assert.equal(out.fraction, true, 'the formula is MathML with a fraction and a square root');
    assert.ok(out.mathHeight > 10, `MathML is laid out (height ${out.mathHeight})`);
    assert.ok(out.tables >= 3);
    // The outputs and weights are the engine's (the same WASM in Node) at the page's defaults,
    // exactly (seed 003's printed numbers are checked through the notebook's weights above).
    const s = defaultState(engine.examples());
    const x = s.contexts.finance.map((w) => s.vocab[w]);
    const trace = engine.attend({ x, wq: s.weights.wq, wk: s.weights.wk, wv: s.weights.wv, kernel: 'simd' });
    const weights = trace.get('weights')[0];
    const shown = await readTable(page, '#csp', 'table[data-matrix="out"][data-context="finance"]');
    assert.deepEqual(
      shown.values.map((r) => r.map(Math.fround)),
      trace.get('headOutputs')[0],
    );
    assert.deepEqual(
      shown.texts,
      trace.get('headOutputs')[0].map((r) => r.map((v) => v.toFixed(3))),
    );
    const shownWeights = await readTable(page, '#csp', 'table[data-matrix="weights"][data-context="finance"]');
    assert.deepEqual(
      shownWeights.values.map((r) => r.map(Math.fround)),
      weights,
    );
    // The example page links no icon, so the browser's own request for /favicon.ico is a 404.
    assert.deepEqual(
      problems.filter((p) => !/\/favicon\.ico$/.test(p)),
      [],
    );
    await context.close();
  });
}

test('Exports_PngSvgCsvDownloadAndParseBackToThePageNumbers', async () => {
  const { page, problems, context } = await openExplorer('', web); // it imports tools/export-menu.js
  const figure = 'figure:has(table[data-matrix="weights"][data-context="river"])';
  await page.waitForSelector(`${figure} details.ae-export summary`);
  await page.click(`${figure} details.ae-export summary`);
  const table = await page.evaluate(async () => {
    const { readHeatmapTable } = await import('/tools/export-menu.js');
    return readHeatmapTable(document.querySelector('table[data-matrix="weights"][data-context="river"]'));
  });
  const take = async (kind, name) => {
    await page.click(`${figure} button[data-export="${kind}"]`);
    return takeDownload(downloads, name);
  };
  // The files write each float32 in its shortest form: equal once read back as float32.
  const numbers = (rows) => rows.slice(1).map((r) => r.slice(1).map((v) => Math.fround(Number(v))));

  const csv = parseCSV((await take('csv', 'weights-river.csv')).toString('utf8'));
  assert.deepEqual(csv[0].slice(1), table.colLabels);
  assert.deepEqual(numbers(csv), table.matrix);

  const svg = await page.evaluate(
    (text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        cells: [...doc.querySelectorAll('g.cell')].map((g) => [
          Number(g.dataset.row),
          Number(g.dataset.col),
          Number(g.dataset.value),
        ]),
      };
    },
    (await take('svg', 'weights-river.svg')).toString('utf8'),
  );
  assert.equal(svg.error, null);
  const grid = table.matrix.map((row) => row.map(() => null));
  for (const [r, c, v] of svg.cells) grid[r][c] = Math.fround(v);
  assert.deepEqual(grid, table.matrix);

  const png = await take('png', 'weights-river.png');
  const info = readPNG(png);
  const L = heatmapLayout(table.matrix, { rowLabels: table.rowLabels, colLabels: table.colLabels, title: table.name });
  assert.deepEqual([info.width, info.height], [Math.ceil(L.width * 2), Math.ceil(L.height * 2)]);
  assert.deepEqual(numbers(parseCSV(info.text['attention-explorer:csv'])), table.matrix);
  // Firefox decodes its own PNG to the same size.
  const decoded = await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    return [bitmap.width, bitmap.height];
  }, png.toString('base64'));
  assert.deepEqual(decoded, [info.width, info.height]);
  assert.deepEqual(problems, []);
  await context.close();
});

// The Learn section trains a task in Firefox too: the seeded run reaches its goal with the same
// held-out numbers as the same run in Node (the same WASM, seed and batches).
test('Learn_TrainsATaskWithTheSameNumbersAsNode', async () => {
  const { encodeState } = await import('../../web/lib/share.js');
  const { defaultLearn, sessionSpec } = await import('../../web/lib/learn/learn-state.js');
  const { createSession, taskFor } = await import('../../web/lib/learn/session.js');
  const defaults = defaultState(engine.examples());
  const steps = taskFor({ id: 'reverse' }).train.steps;
  const hash = encodeState(
    {
      ...defaults,
      view: ['learn'],
      learn: { ...defaultLearn('reverse'), until: steps, autoplay: true, speed: 'fast' },
    },
    defaults,
  );
  const { page, problems, context } = await openFirefoxPage(browser, null);
  await page.goto(`${dist.url}#${hash}`);
  await page.evaluate(() => window.__explorer.ready);
  await page.evaluate(() => document.querySelector('section[data-section="learn"]').scrollIntoView());
  await page.waitForFunction(
    (n) => Number(document.querySelector('section[data-section="learn"] .ae-learn-status')?.dataset.reportStep) === n,
    { timeout: 120000, polling: 100 },
    steps,
  );
  const shown = await page.evaluate(() => {
    const d = document.querySelector('section[data-section="learn"] .ae-learn-status').dataset;
    return { loss: Number(d.loss), accuracy: Number(d.accuracy), mode: d.mode };
  });
  const session = createSession(engine, sessionSpec(defaultLearn('reverse')));
  session.train(steps);
  const node = session.evaluate();
  session.dispose();
  console.log(
    `[ measured ] firefox, reverse (${shown.mode}): accuracy ${shown.accuracy.toFixed(3)}, loss ${shown.loss.toFixed(4)}`,
  );
  assert.ok(shown.accuracy >= taskFor({ id: 'reverse' }).goal);
  assert.equal(shown.loss, node.loss, 'the same held-out loss as Node, bit for bit');
  assert.deepEqual(problems, []);
  await context.close();
});

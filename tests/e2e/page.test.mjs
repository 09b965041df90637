// Browser tests of the explorer page in Debian's Chromium via playwright-core: the built page
// (dist/index.html, as `npm start` serves it), and web/'s modules where a test imports one.
// Run: node --test tests/e2e/page.test.mjs   (needs dist/ and web/engine/attention_engine.*:
// `node scripts/build.mjs`). Screenshots go to tests/e2e/screenshots/ (git-ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic, launchBrowser, keptPages, openEditor, PAGE_DIR, ensureDist, axeViolations } from './helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = path.join(ROOT, 'web');
const SHOTS = path.join(ROOT, 'tests', 'e2e', 'screenshots');
const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');

// Seed 003's printed outputs (3 decimals), reproduced by PyTorch 1.13.1.
const SEED = {
  projected: {
    river: [
      [0.992, 0.221, 0.261],
      [0.957, 0.314, 0.256],
      [0.986, 0.232, 0.263],
    ],
    finance: [
      [0.188, 1.158, 0.169],
      [0.297, 1.089, 0.18],
      [0.204, 1.146, 0.172],
    ],
  },
  raw: {
    river: [
      [1.001, 0.188, 0.047, 0.438],
      [0.949, 0.356, 0.089, 0.313],
      [0.987, 0.15, 0.037, 0.52],
    ],
    finance: [
      [0.161, 1.181, 0.04, 0.243],
      [0.325, 1.078, 0.081, 0.19],
      [0.158, 1.163, 0.04, 0.278],
    ],
  },
};
// A link of format 1 (written before 0.4.0) to the default state: the notebook's own weights.
const NOTEBOOK = '#1e30';
const SEED_WQ = [
  [1, 0],
  [0, 1],
  [0.2, 0.2],
  [0, 0],
];

let server, dev, browser, pages; // dev: web/ as `npm run dev` serves it
before(async () => {
  ensureDist();
  for (const f of ['engine/attention_engine.mjs', 'engine/attention_engine.wasm', 'vendor/d3-scale-chromatic.js']) {
    assert.ok(fs.existsSync(path.join(WEB, f)), `web/${f} is missing: run \`node scripts/build.mjs\` first`);
  }
  fs.mkdirSync(SHOTS, { recursive: true });
  server = await serveStatic(PAGE_DIR);
  dev = await serveStatic(WEB);
  browser = await launchBrowser();
  pages = keptPages(browser);
});
after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
  await dev?.close();
});

/**
 * Opens the page and waits until the explorer has rendered: a new document in a page kept for
 * these context options (keptPages in helpers.mjs; no test here needs a browser context of its own).
 */
async function open(contextOptions = {}, hash = '', { from = server } = {}) {
  const o = await pages.open(from.url + hash, { viewport: { width: 1280, height: 900 }, ...contextOptions });
  await o.page.evaluate(() => window.__explorer.ready);
  return o;
}

/** Waits until the explorer has redrawn (it renders on the next animation frame). */
const settle = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/** Numbers (data-value) of a heatmap as a nested array. */
function matrix(page, selector) {
  return page.$eval(selector, (table) =>
    [...table.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value)),
    ),
  );
}
function texts(page, selector) {
  return page.$eval(selector, (table) =>
    [...table.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td.ae-cell')].map((td) => td.textContent),
    ),
  );
}
const ctxOut = (name) => `section[data-section="contexts"] table[data-matrix="output"][data-context="${name}"]`;
// A matrix of the main path: X is drawn with the naive scores, W_Q … V with queries, keys and
// values, the rest step by step.
const SECTION_OF = { x: 'naive', wq: 'qkv', wk: 'qkv', wv: 'qkv', q: 'qkv', k: 'qkv', v: 'qkv' };
const pipe = (m) => `section[data-section="${SECTION_OF[m] ?? 'pipeline'}"] table[data-matrix="${m}"]`;
const fmt3 = (v) => v.toFixed(3).replace('-', '\u2212');

function assertClose(actual, expected, tol, what) {
  assert.equal(actual.length, expected.length, `${what}: rows`);
  actual.forEach((row, i) => {
    assert.equal(row.length, expected[i].length, `${what}: columns of row ${i}`);
    row.forEach((v, j) =>
      assert.ok(Math.abs(v - expected[i][j]) <= tol, `${what}[${i}][${j}] = ${v}, expected ${expected[i][j]} ± ${tol}`),
    );
  });
}

test('Page_LoadsUnderItsCspWithNoConsoleErrorsAndMarksItsFirstPaint', async () => {
  const { page, problems, context } = await open();
  await page.waitForFunction(() => performance.getEntriesByName('ae-first-frame').length > 0);
  const t = await page.evaluate(() => ({
    heatmap: performance.getEntriesByName('ae-first-heatmap')[0].startTime,
    frame: performance.getEntriesByName('ae-first-frame')[0].startTime,
    domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
  }));
  console.log(
    `# first paint: heatmaps in the DOM ${t.heatmap.toFixed(1)} ms after navigation start, painted by ${t.frame.toFixed(1)} ms (DOMContentLoaded ${t.domContentLoaded.toFixed(1)} ms)`,
  );
  // The opening's picture and numbers are on screen; the outputs the cosines compare, one click deeper.
  assert.ok(
    await page.isVisible('section[data-section="contexts"] .ae-context[data-context="river"] svg'),
    'the river lines are visible',
  );
  assert.ok(
    await page.isVisible('section[data-section="contexts"] td[data-cos="attention"]'),
    'the cosine table is visible',
  );
  assert.equal(await page.locator(ctxOut('river')).count(), 1, 'the river output heatmap is drawn');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Contexts_TheRiverAndFinanceOutputsAreTheSeedsProjectedAndScaled', async () => {
  const { page, context } = await open({}, NOTEBOOK);
  for (const name of ['river', 'finance']) {
    assert.deepEqual(
      await texts(page, ctxOut(name)),
      SEED.projected[name].map((r) => r.map(fmt3)),
      `${name} output text`,
    );
    assertClose(await matrix(page, ctxOut(name)), SEED.projected[name], 5e-4 + 1e-6, `${name} output`);
  }
  await context.close();
});

test('Contexts_RawAttentionGivesTheSeedsRawOutputs', async () => {
  const { page, context } = await open();
  assert.ok(await page.isVisible(pipe('wq')));
  await page.getByLabel('Learned projections W_Q, W_K, W_V').uncheck();
  await page.getByLabel('Divide scores by √dₖ').uncheck();
  await settle(page);
  assert.equal(await page.isVisible(pipe('wq')), false, 'no W_Q to show without projections');
  assert.match(await page.textContent('section[data-section="qkv"]'), /Projections are off/);
  await page.waitForFunction(() =>
    document.querySelector('section[data-section="contexts"] table[data-matrix="output"] tbody tr td:nth-of-type(4)'),
  );
  for (const name of ['river', 'finance']) {
    assert.deepEqual(
      await texts(page, ctxOut(name)),
      SEED.raw[name].map((r) => r.map(fmt3)),
      `${name} raw output text`,
    );
  }
  await context.close();
});

test('Contexts_TheBankCosinesAreOneOneThenTheEnginesValue', async () => {
  const { page, context } = await open();
  const cos = (kind) =>
    page.$eval(`td[data-cos="${kind}"][data-word="bank"]`, (td) => ({
      text: td.textContent,
      value: Number(td.dataset.value),
    }));
  assert.equal((await cos('embedding')).text, '1.000');
  assert.equal((await cos('linear')).text, '1.000');
  const expected = await page.evaluate(() => {
    const { engine, store } = window.__explorer;
    const s = store.get();
    const run = (tokens) =>
      engine
        .attend({ x: tokens.map((w) => s.vocab[w]), wq: s.weights.wq, wk: s.weights.wk, wv: s.weights.wv })
        .get('output')[1];
    return engine.cosine(run(s.contexts.river), run(s.contexts.finance));
  });
  const shown = await cos('attention');
  assert.ok(Math.abs(shown.value - expected) < 1e-9, `attention cosine ${shown.value} vs engine ${expected}`);
  assert.equal(shown.text, expected.toFixed(3));
  assert.ok(expected < 0.99, 'self-attention separates the two banks');
  await context.close();
});

test('Pipeline_TheCausalMaskMasksTheUpperTriangleOfTheWeights', async () => {
  const { page, context } = await open();
  const flags = () =>
    page.$eval(pipe('weights'), (t) =>
      [...t.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.classList.contains('ae-masked')),
      ),
    );
  assert.deepEqual(await flags(), [
    [false, false, false],
    [false, false, false],
    [false, false, false],
  ]);
  await page.getByLabel('Causal mask').check();
  await page.waitForFunction((sel) => document.querySelector(sel + ' td.ae-masked'), pipe('weights'));
  assert.deepEqual(await flags(), [
    [false, true, true],
    [false, false, true],
    [false, false, false],
  ]);
  const w = await matrix(page, pipe('weights'));
  assert.deepEqual([w[0][1], w[0][2], w[1][2]], [0, 0, 0], 'masked weights are exactly 0');
  assert.equal(w[0][0], 1, 'the first token can only attend to itself');
  const masked = await matrix(page, pipe('masked'));
  assert.deepEqual([masked[0][1], masked[0][2], masked[1][2]], [-Infinity, -Infinity, -Infinity]);
  assert.equal(
    await page.$eval(pipe('masked') + ' tbody tr td:nth-of-type(2)', (td) => td.textContent),
    '\u2212\u221e',
  );
  await context.close();
});

test('Heatmap_TypingIntoAWqCellRecomputesScoresAndOutputsAsTheEngineDoes', async () => {
  const { page, context } = await open({}, NOTEBOOK);
  const before = await matrix(page, pipe('scores'));
  await page.click(pipe('wq') + ' tbody tr:nth-child(1) td:nth-of-type(1)');
  const input = page.locator(pipe('wq') + ' input.ae-cell-input');
  await input.fill('2.5');
  await input.press('Enter');
  await page.waitForFunction((sel) => document.querySelector(sel + ' tbody td').dataset.value === '2.5', pipe('wq'));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const expected = await page.evaluate((wq0) => {
    const { engine, store } = window.__explorer;
    const s = store.get();
    const wq = wq0.map((r) => r.slice());
    wq[0][0] = 2.5;
    const out = {};
    for (const name of ['river', 'finance']) {
      const t = engine.attend({
        x: s.contexts[name].map((w) => s.vocab[w]),
        wq,
        wk: s.weights.wk,
        wv: s.weights.wv,
        scale: true,
      });
      out[name] = { scores: t.get('scores')[0], output: t.get('output') };
    }
    return out;
  }, SEED_WQ);
  const scores = await matrix(page, pipe('scores'));
  assert.notDeepEqual(scores, before, 'the scores changed');
  assertClose(scores, expected.river.scores, 1e-6, 'river scores');
  assertClose(await matrix(page, ctxOut('river')), expected.river.output, 1e-6, 'river output');
  assertClose(await matrix(page, ctxOut('finance')), expected.finance.output, 1e-6, 'finance output');
  await context.close();
});

test('Heatmap_DraggingAWkCellScrubsItAndRecomputesWhileDragging', async () => {
  const { page, context } = await open({}, NOTEBOOK);
  const cell = page.locator(pipe('wk') + ' tbody tr:nth-child(1) td:nth-of-type(1)');
  await cell.scrollIntoViewIfNeeded();
  const box = await cell.boundingBox();
  const outBefore = await matrix(page, ctxOut('river'));
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  const seen = new Set();
  for (let k = 1; k <= 30; k++) {
    await page.mouse.move(box.x + box.width / 2 + k * 2, box.y + box.height / 2);
    seen.add(await page.$eval(pipe('k') + ' tbody td', (td) => td.dataset.value));
  }
  await page.mouse.up();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const wk = await page.evaluate(() => window.__explorer.store.get().weights.wk[0][0]);
  assert.ok(Math.abs(wk - 1.6) < 1e-9, `60 px at 0.01/px takes W_K[0][0] from 1 to 1.6, got ${wk}`);
  assert.ok(seen.size > 3, `the keys K = X·W_K changed during the drag (${seen.size} distinct values seen)`);
  // Sections away from the viewport catch up once the drag ends.
  const expected = await page.evaluate(() => {
    const { engine, store } = window.__explorer;
    const s = store.get();
    return engine
      .attend({ x: s.contexts.river.map((w) => s.vocab[w]), wq: s.weights.wq, wk: s.weights.wk, wv: s.weights.wv })
      .get('output');
  });
  assert.notEqual(expected[0][0], outBefore[0][0]);
  await page.waitForFunction(
    ([sel, v]) => Math.abs(Number(document.querySelector(sel + ' tbody td').dataset.value) - v) < 1e-6,
    [ctxOut('river'), expected[0][0]],
  );
  assertClose(await matrix(page, ctxOut('river')), expected, 1e-6, 'river output after the drag');
  await context.close();
});

test('Loops_TheStepperWalksToTheFinalOutputRowByButtonsAndKeys', async () => {
  const { page, context } = await open({}, NOTEBOOK);
  const section = 'section[data-section="loops"]';
  const pendingRows = () =>
    page.$eval(`${section} table[data-matrix="loop-output"]`, (t) =>
      [...t.querySelectorAll('tbody tr')].map((tr) => tr.querySelector('td').classList.contains('ae-pending')),
    );
  assert.deepEqual(await pendingRows(), [true, true, true]);
  const at = (n) =>
    page.waitForFunction(
      ([s, k]) => document.querySelector(s + ' .ae-position').textContent === `Step ${k} of 15`,
      [section, n],
    );
  const loops = page.locator(section);
  const step = loops.getByRole('button', { name: 'Step', exact: true });
  await step.click();
  await at(1);
  await step.click();
  await at(2);
  const now = await page.$$eval(`${section} td.ae-now`, (tds) =>
    tds.map((td) => `${td.closest('table').dataset.matrix}:${td.dataset.row},${td.dataset.col}`),
  );
  assert.deepEqual(now, ['loop-scores:0,1'], 'the cell being computed is outlined');
  for (let k = 3; k <= 5; k++) {
    await step.click();
    await at(k);
  } // 3 scores, softmax, sum: row 0 done
  assert.deepEqual(await pendingRows(), [false, true, true]);
  assert.match(await page.textContent(`${section} .ae-narration`), /Output row “stream”/);
  await page.keyboard.press('ArrowRight'); // focus is on the Step button, inside the section
  await at(6);
  await loops.getByRole('button', { name: 'Back', exact: true }).click();
  await at(5);
  await page.selectOption(`${section} select`, '4');
  await loops.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(
    (s) => /Step 15 of 15/.test(document.querySelector(s + ' .ae-position').textContent),
    section,
    { timeout: 10000 },
  );
  assert.deepEqual(await pendingRows(), [false, false, false]);
  assert.match(await page.textContent(`${section} .ae-narration`), /last row/);
  assertClose(
    await matrix(page, `${section} table[data-matrix="loop-output"]`),
    SEED.projected.river,
    5e-4 + 1e-6,
    'stepper output',
  );
  await context.close();
});

test('ExplainTooltip_HoverAndFocusExplainACellAndMarkItsSources', async () => {
  const { page, context } = await open({}, NOTEBOOK);
  const hovered = page.locator(pipe('scores') + ' tbody tr:nth-child(2) td:nth-of-type(1)');
  await hovered.scrollIntoViewIfNeeded();
  const box = await hovered.boundingBox();
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(at.x, at.y);
  const tip = page.locator('.ae-explain');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.textContent();
  assert.match(text, /score\[1\]\[0\]/);
  assert.match(text, /0\.840 × 1\.230 \+ 0\.840 × 0\.030/, 'the dot-product terms of q(bank)·k(stream)');
  assert.match(text, /= 1\.058/);
  const src = await page.$$eval(`${pipe('q')} td.ae-src`, (tds) =>
    tds.map((td) => `${td.dataset.row},${td.dataset.col}`),
  );
  assert.deepEqual(src, ['1,0', '1,1'], 'the query row of “bank” is highlighted');
  // keyboard: focus the weights table and move with the arrows
  await page.focus(pipe('weights') + ' td[tabindex="0"]');
  await page.keyboard.press('ArrowRight');
  assert.match(await tip.textContent(), /weight\[0\]\[1\]/);
  // Focus scrolled the page under the resting mouse. Chromium then sends a pointerover, at the
  // mouse's unchanged position, to whatever lies there now (on a loaded machine after the arrow
  // key): the same event here, on weight[0][0]. The pointer did not move, so the keyboard's cell
  // keeps the explanation.
  await page.$eval(
    pipe('weights') + ' td[data-row="0"][data-col="0"]',
    (td, { x, y }) =>
      td.dispatchEvent(
        new PointerEvent('pointerover', { bubbles: true, clientX: x, clientY: y, pointerType: 'mouse', view: window }),
      ),
    at,
  );
  const t2 = await tip.textContent();
  assert.match(t2, /weight\[0\]\[1\]/, 'content scrolling under a still pointer does not steal the explanation');
  assert.match(t2, /exp\(/);
  assert.match(t2, /row 0 sums to 1\.000/);
  // a pointer that does move still explains what it moves onto
  await page.hover(pipe('weights') + ' td[data-row="1"][data-col="2"]');
  assert.match(await tip.textContent(), /weight\[1\]\[2\]/);
  await page.focus(pipe('out') + ' td[tabindex="0"]');
  assert.match(await tip.textContent(), /Σ/);
  await page.keyboard.press('Escape');
  await tip.waitFor({ state: 'hidden' });
  assert.equal(await page.$$eval('.ae-src', (els) => els.length), 0, 'Escape clears the highlights too');
  await context.close();
});

test('Notices_RefusedEditsBoundsAndEngineErrorsAreSaidWhereTheyBelong', async () => {
  const { page, problems, context } = await open();
  // An edit that cannot be applied is said in its own section; engine errors in the explorer's notice.
  const editNotice = (section) => page.locator(`section[data-section="${section}"] .ae-section-notice`);
  const notice = page.locator('.ae-root > .ae-notice');
  // a value beyond ±1000
  await page.click(pipe('wq') + ' tbody tr:nth-child(2) td:nth-of-type(2)');
  await page.fill(pipe('wq') + ' input.ae-cell-input', '5000');
  await page.keyboard.press('Enter');
  await editNotice('qkv').waitFor({ state: 'visible' });
  assert.match(await editNotice('qkv').textContent(), /outside the allowed range/);
  // keyboard: PageUp nudges a focused weight by +0.1, typing a digit starts editing
  await page.focus(pipe('wv') + ' td[tabindex="0"]');
  await page.keyboard.press('PageUp');
  await page.waitForFunction(() => Math.abs(window.__explorer.store.get().weights.wv[0][0] - 1.1) < 1e-9);
  await page.keyboard.press('3');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__explorer.store.get().weights.wv[0][0] === 3);
  await openEditor(page);
  // add a word with its vector, put it in the river sentence, reorder and remove a token
  await page.fill('input[placeholder="e.g. river"]', 'water');
  await page.fill('input[placeholder="0.5, 0, 0, 0.5"]', '1, 0, 0, 0.6');
  await page.getByRole('button', { name: 'Add word' }).click();
  await page.getByLabel('Add', { exact: true }).first().selectOption('water');
  await page.getByRole('button', { name: 'Add to river' }).click();
  await page.waitForFunction(() =>
    /river: stream bank mud water/.test(document.querySelector('.ae-context h3').textContent),
  );
  assert.equal((await matrix(page, ctxOut('river'))).length, 4);
  await page.getByRole('button', { name: 'Move “water” (token 4 of river) earlier' }).click();
  await page.waitForFunction(() =>
    /river: stream bank water mud/.test(document.querySelector('.ae-context h3').textContent),
  );
  await page.getByRole('button', { name: 'Remove “stream” (token 1) from river' }).click();
  await page.waitForFunction(() => /river: bank water mud/.test(document.querySelector('.ae-context h3').textContent));
  // too many tokens
  for (let k = 0; k < 13; k++) await page.getByRole('button', { name: 'Add to river' }).click();
  await settle(page);
  assert.equal(await page.evaluate(() => window.__explorer.store.get().contexts.river.length), 16);
  await page.getByRole('button', { name: 'Add to river' }).click();
  assert.match(await editNotice('edit').textContent(), /at most 16 tokens/);
  // an engine error (heads that do not divide dk) keeps the page and shows the message
  const kept = await texts(page, ctxOut('finance'));
  await page.evaluate(() => {
    const s = window.__explorer.store;
    s.set({ ...s.get(), options: { ...s.get().options, heads: 3 } });
  });
  await page.waitForFunction(() =>
    /engine could not compute/.test(document.querySelector('.ae-root > .ae-notice').textContent),
  );
  assert.match(await notice.textContent(), /heads/);
  assert.deepEqual(await texts(page, ctxOut('finance')), kept, 'the last good output stays on the page');
  // reset
  await page.getByRole('button', { name: 'Reset to the start' }).click();
  await page.waitForFunction(() =>
    /river: stream bank mud$/.test(document.querySelector('.ae-context h3').textContent),
  );
  await page.waitForFunction(() => document.querySelector('.ae-root > .ae-notice').hidden);
  await page.waitForFunction(() => [...document.querySelectorAll('.ae-section-notice')].every((n) => n.hidden));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Views_HeadsDropoutKernelFormulaAndAveragingShowTheEnginesNumbers', async () => {
  const { page, context } = await open();
  await page.locator('section[data-section="heads"]').getByLabel('Heads', { exact: true }).selectOption('2');
  await settle(page);
  await page.waitForSelector('section[data-section="heads"] table[data-matrix="head-1-weights"]');
  assert.equal(
    await page.$eval(
      'section[data-section="heads"] table[data-matrix="merged"] thead th:nth-of-type(4)',
      (th) => th.className,
    ),
    'ae-head-1',
  );
  const st = await page.evaluate(() => window.__explorer.store.get().options.heads);
  assert.equal(st, 2);
  await page.getByLabel('Show head').selectOption('1');
  await settle(page);
  assert.match(await page.textContent(pipe('q') + ' caption'), /head 1 of 2/);
  // dropout (one click deeper, under the softmax step)
  await page.getByText('Dropout on the weights (training only)').click();
  await page.getByLabel('training').check();
  await page.$eval('input[type="range"]:not(.ae-temperature)', (el) => {
    el.value = '0.5';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForSelector(pipe('dropped'), { state: 'visible' });
  const d = await matrix(page, pipe('dropped'));
  assert.ok(
    d.flat().every((v) => v === 0 || v > 0),
    'dropout keeps or zeroes',
  );
  assert.ok(
    d.flat().some((v) => v === 0),
    'p = 0.5 drops something in 9 weights with seed 0',
  );
  // kernel and timing
  await page.locator('.ae-engineers > summary').click(); // the kernel is one click deeper
  await page.getByLabel('Kernel').selectOption('reference');
  await page.waitForFunction(() => /reference kernel/.test(document.querySelector('.ae-timing').textContent));
  console.log('# ' + (await page.textContent('.ae-timing')));
  // formula: MathML for the selected row; clicking a weights cell picks its row
  await page.waitForSelector('section[data-section="formula"] .ae-math-steps math');
  assert.equal(
    await page.$eval('section[data-section="formula"] select', (s) => s.value),
    '1',
    'the shared word’s row by default',
  );
  await page.click(pipe('weights') + ' tbody tr:nth-child(3) td');
  await page.waitForFunction(() => document.querySelector('section[data-section="formula"] select').value === '2');
  await page.waitForFunction(() =>
    /output_\{2\}|output2/.test(document.querySelector('section[data-section="formula"] .ae-math-steps').textContent),
  );
  const tex = await page.$$eval('section[data-section="formula"] .ae-math-steps annotation', (a) =>
    a.map((x) => x.textContent).join('\n'),
  );
  const w = await matrix(page, pipe('weights'));
  assert.ok(tex.includes(w[2].map((v) => v.toFixed(3)).join(' & ')), `the formula shows row 2 of the weights (${tex})`);
  // causal averaging: three forms shown equal
  assert.match(await page.textContent('section[data-section="averaging"] .ae-verdict'), /The three forms agree/);
  await context.close();
});

test('HashSync_TheUrlFollowsTheStateAndRestoresIt', async () => {
  const { page, context } = await open();
  await page.getByLabel('Causal mask').check();
  await page.waitForFunction(() => location.hash.length > 2);
  const url = page.url();
  const other = await open({}, url.slice(url.indexOf('#')));
  assert.equal(await other.page.evaluate(() => window.__explorer.store.get().options.causal), true);
  await other.context.close();
  await context.close();
});

test('Page_NothingOverflowsHorizontallyAt360Px', async () => {
  const { page, problems, context } = await open({
    viewport: { width: 360, height: 780 },
    hasTouch: true,
    isMobile: true,
  });
  const { scroll, inner, wide } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    // elements sticking out of the viewport (not inside a horizontal scroller)
    wide: [...document.querySelectorAll('.ae-root *')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.right > window.innerWidth + 0.5 && !el.closest('.ae-hm-scroll, .ae-math, .ae-ov-strip') && r.width > 0;
      })
      .map((el) => el.tagName + '.' + el.className)
      .slice(0, 5),
  }));
  assert.equal(scroll, inner, `page scroll width ${scroll} > ${inner}: ${wide.join(', ')}`);
  assert.deepEqual(wide, []);
  // touch: tapping a cell explains it
  await page.tap(pipe('scores') + ' tbody td');
  await page.locator('.ae-explain').waitFor({ state: 'visible' });
  await page.screenshot({ path: path.join(SHOTS, 'phone.png'), fullPage: true });
  // the largest example: 16 tokens, 2 heads; wide tables scroll inside their own box
  await page.evaluate(() => {
    const s = window.__explorer.store;
    s.set({
      ...s.get(),
      contexts: { ...s.get().contexts, river: Array.from({ length: 16 }, (_, i) => ['stream', 'bank', 'mud'][i % 3]) },
    });
  });
  await page.locator('section[data-section="heads"]').getByLabel('Heads', { exact: true }).selectOption('2');
  await settle(page);
  assert.equal(await page.evaluate(() => window.__explorer.store.get().options.heads), 2);
  const after = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.equal(after[0], after[1], 'no horizontal overflow with 16 tokens and 2 heads');
  assert.deepEqual(problems, []);
  await context.close();
});

for (const [scheme, width] of [
  ['light', 1280],
  ['dark', 1280],
  ['light', 360],
]) {
  test(`Page_AxeFindsNoViolations_${scheme}_${width}`, async () => {
    // axe is injected as a script, which the page's CSP would block: bypass CSP for this check.
    const { page, context } = await open({ colorScheme: scheme, bypassCSP: true, viewport: { width, height: 900 } });
    assert.equal(await page.$eval('.ae-root', (el) => el.dataset.theme), scheme, 'the theme follows the system');
    await page.getByLabel('Causal mask').check(); // include masked cells
    await page.hover(pipe('scores') + ' tbody td'); // and an open explanation
    await page.addScriptTag({ path: AXE });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const summary = axeViolations(result);
    if (width > 360)
      await page.screenshot({ path: path.join(SHOTS, scheme === 'dark' ? 'dark.png' : 'desktop.png'), fullPage: true });
    assert.deepEqual(summary, []);
    await context.close();
  });
}

test('MountExplorer_RendersIntoAShadowRootOnlyTheViewsAskedFor', async () => {
  // web/shell/explorer.js, imported as a module: the page `npm run dev` serves.
  const { page, problems, context } = await open({}, '', { from: dev });
  const r = await page.evaluate(async () => {
    const { mountExplorer } = await import('./shell/explorer.js');
    const { engine, store } = window.__explorer;
    const host = document.createElement('div');
    document.body.append(host);
    const shadow = host.attachShadow({ mode: 'open' });
    const state = {
      ...structuredClone(store.get()),
      view: ['weights', 'contexts'],
      focus: 'finance',
      example: 'finance',
    };
    const ex = mountExplorer(shadow, { state, engine, chrome: false });
    await ex.rendered;
    const visible = (sel) => [...shadow.querySelectorAll(sel)].filter((el) => !el.closest('[hidden]')).length;
    const out = {
      weights: visible('table[data-matrix="weights"][data-context="finance"]'),
      outputs: [...shadow.querySelectorAll('section[data-section="contexts"] table[data-matrix="output"]')]
        .filter((el) => !el.closest('[hidden]'))
        .map((t) => t.dataset.context),
      scores: visible('table[data-matrix="scores"]'),
      header: shadow.querySelectorAll('header').length,
      controls: shadow.querySelectorAll('[data-section="controls"]').length,
      values: [...shadow.querySelectorAll('section[data-section="pipeline"] table[data-matrix="weights"] td')].map(
        (td) => Number(td.dataset.value),
      ),
    };
    ex.destroy();
    out.after = shadow.childElementCount;
    return out;
  });
  assert.deepEqual(
    { ...r, values: undefined },
    { weights: 1, outputs: ['finance'], scores: 0, header: 0, controls: 0, values: undefined, after: 0 },
  );
  const expected = await page.evaluate(() => {
    const { engine, store } = window.__explorer;
    const s = store.get();
    return engine
      .attend({ x: s.contexts.finance.map((w) => s.vocab[w]), wq: s.weights.wq, wk: s.weights.wk, wv: s.weights.wv })
      .get('weights')[0]
      .flat();
  });
  assertClose([r.values], [expected], 1e-7, 'finance weights in the shadow root');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Page_ReducedMotionTurnsOffTransitions', async () => {
  const transition = async (reducedMotion) => {
    const { page, context } = await open({ reducedMotion });
    const d = await page.$eval('td.ae-cell', (td) => getComputedStyle(td).transitionDuration);
    await context.close();
    return d;
  };
  assert.equal(await transition('no-preference'), '0.15s');
  assert.equal(await transition('reduce'), '0s');
});

test('Theme_TheSwitchOverridesTheSystemTheme', async () => {
  const { page, context } = await open({ colorScheme: 'light' });
  await page.getByLabel('Theme').selectOption('dark');
  await page.waitForFunction(() => document.querySelector('.ae-root').dataset.theme === 'dark');
  const bg = await page.$eval('.ae-root', (el) => getComputedStyle(el).backgroundColor);
  assert.equal(bg, 'rgb(19, 21, 25)');
  await context.close();
});

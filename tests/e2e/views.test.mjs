// Browser tests of the pictures beside the numbers: attention as lines (web/ui/attention-lines.js,
// web/views/lines.js). Every width and opacity read back from the SVG equals the engine's weight
// (an independent engine instance in Node, same WASM, so the float32 values match exactly);
// isolating a token hides the other tokens' lines; the exports parse back; reduced motion makes
// updates instant; the element shows the picture alone with view="lines".
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launchBrowser, keptPages, serveStatic, PAGE_DIR, ensureDist } from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import { defaultState, notebookState } from '../../web/lib/state.js';
import { encodeState } from '../../web/lib/share.js';
import { attendArgs } from '../../web/lib/compute.js';
import { readPNG } from '../../web/lib/png.js';
import { MAX_STROKE } from '../../web/lib/lines-image.js';
import { parseCSV } from '../helpers/csv.mjs';

let server, browser, engine, defaults, notebook;
// A test's page is a new document in a page kept for its context options (keptPages in
// helpers.mjs); the routes a test adds go when it hands the page back.
let pages;
test.before(async () => {
  ensureDist();
  server = await serveStatic(PAGE_DIR);
  browser = await launchBrowser();
  pages = keptPages(browser);
  engine = await loadEngine();
  defaults = defaultState(engine.examples());
  notebook = notebookState(engine.examples()); // the notebook's own weights (seed 003)
});
test.after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
});

const withOptions = (options) => ({ ...defaults, options: { ...defaults.options, ...options } });

async function open(state, contextOptions = {}) {
  const o = await pages.open(null, {
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...contextOptions,
  });
  await o.page.goto(`${server.url}#${encodeState(state, defaults)}`);
  await o.page.evaluate(() => window.__explorer.ready);
  await o.page.waitForSelector('section[data-section="lines"] .ae-line', { state: 'attached' });
  return o;
}

// The Lines section draws every sentence of example "both"; the tests read the river one.
const RIVER_LINES = 'section[data-section="lines"] .ae-lines[data-context="river"]';

/** Every line of the river picture: head, i, j, its data-weight, drawn width and opacity, hidden. */
function readLines(page) {
  return page.$$eval(`${RIVER_LINES} .ae-line`, (els) =>
    els.map((el) => ({
      head: Number(el.dataset.head),
      i: Number(el.dataset.i),
      j: Number(el.dataset.j),
      weight: Number(el.dataset.weight),
      width: Number(el.style.strokeWidth),
      opacity: Number(el.style.strokeOpacity),
      hidden: getComputedStyle(el).display === 'none',
    })),
  );
}

test('Lines_WidthsAndOpacitiesAreTheEnginesWeights', async () => {
  for (const options of [{}, { projections: false, scale: false, heads: 2 }, { causal: true, temperature: 0.5 }]) {
    const state = withOptions(options);
    const { page, context } = await open(state);
    const weights = engine.attend(attendArgs(state, state.contexts.river)).get('weights');
    const lines = await readLines(page);
    const H = weights.length,
      T = weights[0].length;
    const expected = [];
    for (let h = 0; h < H; h++)
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (!(options.causal && j > i)) expected.push([h, i, j]);
    assert.equal(lines.length, expected.length, `${JSON.stringify(options)}: one line per unmasked pair and head`);
    for (const line of lines) {
      const w = weights[line.head][line.i][line.j];
      assert.equal(line.weight, w, `weight ${line.head}/${line.i}/${line.j}`);
      assert.ok(Math.abs(line.width - w * MAX_STROKE) <= 1e-5, `width ${line.width} = ${w} × ${MAX_STROKE}`);
      assert.ok(Math.abs(line.opacity - w) <= 1e-5, `opacity ${line.opacity} = ${w}`);
      if (options.causal) assert.ok(line.j <= line.i, 'no line into the future');
    }
    await context.close();
  }
});

test('Lines_IsolatingATokenHidesTheOthersLines', async () => {
  const { page, context } = await open(defaults);
  const svg = `${RIVER_LINES} svg`;
  // Pointer: hovering the query "bank" (row 1) leaves only its three lines.
  await page.hover(`${svg} .ae-lines-token[data-side="query"][data-index="1"]`);
  let lines = await readLines(page);
  assert.deepEqual(
    lines.filter((l) => !l.hidden).map((l) => l.i),
    [1, 1, 1],
  );
  const status = await page.textContent(`${RIVER_LINES} .ae-lines-status`);
  const weights = engine.attend(attendArgs(defaults, defaults.contexts.river)).get('weights');
  assert.match(status, new RegExp(`“bank” attends to: stream ${weights[0][1][0].toFixed(2)}`));
  // Keyboard: focus the picture, move to the keys column and down to "mud", pin it.
  await page.mouse.move(0, 0);
  await page.focus(svg);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  lines = await readLines(page);
  assert.deepEqual(
    lines.filter((l) => !l.hidden).map((l) => l.j),
    [2, 2, 2],
    'only the lines into “mud”',
  );
  await page.keyboard.press('Escape');
  await page.mouse.move(0, 0);
  await page.locator('section[data-section="lines"] h2').click();
  lines = await readLines(page);
  assert.equal(lines.filter((l) => l.hidden).length, 0, 'nothing isolated: every line shows');
  await context.close();
});

test('Lines_HeadTogglesDrawOnlyTheChosenHeads', async () => {
  const { page, context } = await open(withOptions({ projections: false, scale: false, heads: 2 }));
  await page.locator('section[data-section="lines"] .ae-head-toggles').getByLabel('head 0').uncheck();
  const heads = new Set((await readLines(page)).map((l) => l.head));
  assert.deepEqual([...heads], [1]);
  await context.close();
});

test('Lines_ExportsParseBack', async () => {
  const { page, context } = await open(withOptions({ causal: true }));
  const weights = engine.attend(attendArgs(withOptions({ causal: true }), defaults.contexts.river)).get('weights');
  const save = async (kind) => {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.click(`section[data-section="lines"] button[data-export="${kind}"]`),
    ]);
    return fs.readFileSync(await file.path());
  };
  const svg = (await save('svg')).toString('utf8');
  const drawn = [
    ...svg.matchAll(
      /data-head="(\d+)" data-i="(\d+)" data-j="(\d+)" data-weight="([^"]+)"[^>]*stroke-width="([^"]+)" stroke-opacity="([^"]+)"/g,
    ),
  ];
  assert.equal(drawn.length, 6, 'causal, T = 3: six lines');
  for (const [, h, i, j, w, width, opacity] of drawn) {
    assert.equal(Math.fround(Number(w)), weights[h][i][j]);
    assert.ok(Math.abs(Number(width) - weights[h][i][j] * MAX_STROKE) < 1e-5);
    assert.ok(Math.abs(Number(opacity) - weights[h][i][j]) < 1e-6);
  }
  const png = readPNG(await save('png'));
  assert.ok(png.width > 200 && png.height > 80, `a 2× image (${png.width} × ${png.height})`);
  const rows = parseCSV(png.text['attention-explorer:csv']);
  assert.deepEqual(rows[0], ['head', 'query', 'key', 'weight']);
  assert.equal(rows.length - 1, 6);
  for (const [h, q, k, w] of rows.slice(1)) {
    const i = defaults.contexts.river.indexOf(q),
      j = defaults.contexts.river.indexOf(k);
    assert.equal(Math.fround(Number(w)), weights[Number(h)][i][j]);
  }
  await context.close();
});

test('Lines_MoveSmoothlyUnlessReducedMotionIsAsked', async () => {
  const duration = async (reducedMotion) => {
    const { page, context } = await open(defaults, { reducedMotion });
    const d = await page.$eval(`${RIVER_LINES} .ae-line`, (el) => getComputedStyle(el).transitionDuration);
    await context.close();
    return d;
  };
  assert.equal(await duration('no-preference'), '0.3s, 0.3s');
  assert.equal(await duration('reduce'), '0s');
});

test('Lines_TheElementShowsThePictureAloneWithViewLines', async () => {
  const { page, context, problems } = await pages.open(null);
  await page.route('**/lines-element.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><script type="module" src="/attention-explorer.js"></script><attention-explorer view="lines" controls="none" example="finance"></attention-explorer>',
    }),
  );
  await page.goto(server.url + 'lines-element.html');
  await page.waitForFunction(
    () =>
      document.querySelector('attention-explorer')?.shadowRoot?.querySelector('section[data-section="lines"] .ae-line'),
    null,
    { timeout: 20000 },
  );
  const shown = await page.evaluate(() =>
    [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('section.ae-section')]
      .filter((s) => !s.hidden)
      .map((s) => s.dataset.section),
  );
  assert.deepEqual(shown, ['lines']);
  const caption = await page.evaluate(
    () => document.querySelector('attention-explorer').shadowRoot.querySelector('.ae-lines figcaption').textContent,
  );
  assert.match(caption, /finance/);
  assert.deepEqual(
    problems.filter((p) => !/favicon/.test(p)),
    [],
  );
  await context.close();
});

// ---- the plane -------------------------------------------------------------------------------

async function openPlane(state) {
  const o = await pages.open(null, { viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await o.page.goto(`${server.url}#${encodeState(state, defaults)}`);
  await o.page.evaluate(() => window.__explorer.ready);
  await o.page.waitForSelector('section[data-section="plane"] .ae-plane-arrow', { state: 'attached' });
  return o;
}

// The plane's arrows as drawn: each query's and key's coordinates in the picture's data space.
const planeArrows = (page) =>
  page.$$eval('section[data-section="plane"] .ae-plane-arrow', (gs) =>
    gs.map((g) => ({
      kind: g.dataset.kind,
      index: Number(g.dataset.index),
      x: Number(g.dataset.x),
      y: Number(g.dataset.y),
    })),
  );

test('Plane_TheArrowsAreQAndK', async () => {
  const { page, context, problems } = await openPlane(defaults);
  const trace = engine.attend(attendArgs(defaults, defaults.contexts.river));
  const arrows = await planeArrows(page);
  assert.equal(arrows.length, 6, 'three queries and three keys');
  for (const a of arrows) {
    const v = trace[a.kind].data.subarray(a.index * 2, a.index * 2 + 2);
    assert.deepEqual([a.x, a.y], [v[0], v[1]], `${a.kind}[${a.index}]`);
  }
  // The table beside it: q·k of the chosen query (bank) with every key, from the engine.
  const scores = await page.$$eval('section[data-section="plane"] .ae-plane-table:first-of-type td', (tds) =>
    tds.map((td) => td.textContent),
  );
  const row = trace.get('scores')[0][1];
  assert.deepEqual(
    scores.slice(0, 3),
    row.map((v) => v.toFixed(3)),
  );
  assert.deepEqual(problems, []);
  await context.close();
});

// Wider than two (no projections: queries and keys are the embeddings, 4 wide): the arrows are
// the core's PCA of the head's queries and keys, computed by the shell when the numbers change
// (views/plane.js compute), and the note says the share of the spread the engine says it keeps.
test('Plane_VectorsWiderThanTwoAreDrawnThroughTheCoresPrincipalComponents', async () => {
  const wide = { ...defaults, options: { ...defaults.options, projections: false } };
  const { page, context, problems } = await openPlane(wide);
  const trace = engine.attend(attendArgs(wide, wide.contexts.river));
  const [q, k] = [trace.get('q')[0], trace.get('k')[0]];
  assert.equal(q[0].length, 4, 'the state under test has dₖ = 4');
  const pca = engine.pca({ x: [...q, ...k] });
  const xy = pca.get('projected');
  const arrows = await planeArrows(page);
  assert.equal(arrows.length, 6);
  for (const a of arrows) assert.deepEqual([a.x, a.y], xy[(a.kind === 'k' ? 3 : 0) + a.index], `${a.kind}[${a.index}]`);
  const kept = (100 * (pca.explained.data[0] + pca.explained.data[1])).toFixed(1);
  const note = await page.locator('section[data-section="plane"] .ae-plane-figure .ae-help').first().textContent();
  assert.match(note, new RegExp(`dₖ = 4: .* keep ${kept.replace('.', '\\.')} % of their spread`));
  assert.match(
    await page.locator('section[data-section="plane"] .ae-plane-figure').first().textContent(),
    /1st principal direction/,
  );
  // Another head count changes the numbers: the picture follows (computed again, not kept).
  const two = { ...wide, options: { ...wide.options, heads: 2 } };
  await page.evaluate((s) => window.__explorer.store.set(s), two);
  const q2 = engine.attend(attendArgs(two, two.contexts.river)).get('q')[0];
  await page.waitForFunction(
    (x) => Number(document.querySelector('section[data-section="plane"] .ae-plane-arrow').dataset.x) === x,
    q2[0][0],
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('Plane_TheTwoBanksLandApartWithAttentionAndTogetherThroughTheLinearLayer', async () => {
  const { page, context } = await openPlane(defaults);
  const read = () =>
    page.evaluate(() => {
      const note = document.querySelector('section[data-section="plane"] .ae-plane-distance');
      const banks = [...document.querySelectorAll('section[data-section="plane"] .ae-plane-point.ae-plane-shared')].map(
        (g) => [Number(g.dataset.x), Number(g.dataset.y)],
      );
      return { distance: Number(note.dataset.distance), banks };
    });
  const attention = await read();
  const outputs = ['river', 'finance'].map(
    (c) => engine.attend(attendArgs(defaults, defaults.contexts[c])).get('output')[1],
  );
  const want = Math.hypot(...outputs[0].map((v, i) => v - outputs[1][i]));
  assert.ok(Math.abs(attention.distance - want) < 1e-6, `${attention.distance} vs ${want}`);
  assert.ok(attention.distance > 0.5, 'apart with self-attention');
  await page.locator('section[data-section="plane"]').getByLabel('the plain linear layer').check();
  await page.waitForFunction(
    () => Number(document.querySelector('section[data-section="plane"] .ae-plane-distance').dataset.distance) === 0,
  );
  const linear = await read();
  assert.equal(linear.banks.length, 2);
  assert.deepEqual(linear.banks[0], linear.banks[1], 'the same point through the plain linear layer');
  await context.close();
});

test('Plane_TheElementLoadsTheWholeEngineBesideItForThePlane', async () => {
  const dist = await serveStatic(PAGE_DIR);
  const { page, context, problems } = await pages.open(null);
  await page.route('**/plane-element.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><script type="module" src="/attention-explorer.js"></script><attention-explorer view="plane" controls="none"></attention-explorer>',
    }),
  );
  const fetched = [];
  const onRequest = (r) => fetched.push(new URL(r.url()).pathname);
  page.on('request', onRequest);
  await page.goto(dist.url + 'plane-element.html');
  await page.waitForFunction(
    () => document.querySelector('attention-explorer')?.shadowRoot?.querySelector('.ae-plane-point'),
    null,
    { timeout: 20000 },
  );
  assert.ok(fetched.includes('/engine.js'), 'the whole engine came from beside the element');
  const note = await page.evaluate(
    () => document.querySelector('attention-explorer').shadowRoot.querySelector('.ae-plane-distance').textContent,
  );
  // The element's default state is the page's: the distance the engine gives for it.
  const outputs = ['river', 'finance'].map(
    (c) => engine.attend(attendArgs(defaults, defaults.contexts[c])).get('output')[1],
  );
  const want = Math.hypot(...outputs[0].map((v, i) => v - outputs[1][i])).toFixed(3);
  assert.ok(note.includes(`The two “bank”s are ${want} apart after self-attention`), `${note} (want ${want})`);
  assert.deepEqual(
    problems.filter((p) => !/favicon/.test(p)),
    [],
  );
  page.off('request', onRequest);
  await context.close();
  await dist.close();
});

test('Plane_ExportsParseBack', async () => {
  const { page, context } = await openPlane(defaults);
  const save = async (n, kind) => {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page
        .locator('section[data-section="plane"] .ae-plane-export')
        .nth(n)
        .locator(`button[data-export="${kind}"]`)
        .click(),
    ]);
    return fs.readFileSync(await file.path());
  };
  // The outputs picture: an SVG with the two "bank" points where the page draws them, and a PNG
  // at 2× carrying the table's numbers.
  const svg = (await save(1, 'svg')).toString('utf8');
  assert.match(svg, /^<\?xml/);
  assert.match(svg, /<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, />bank \(river\)</);
  assert.match(svg, />bank \(finance\)</);
  const png = readPNG(await save(1, 'png'));
  assert.equal(png.width, 560, 'the 280-unit picture at 2×');
  const rows = parseCSV(png.text['attention-explorer:csv']);
  const table = await page
    .$$eval('section[data-section="plane"] .ae-plane-table >> nth=1', () => null)
    .catch(() => null);
  assert.ok(rows.length >= 3, `the outputs table as CSV (${rows.length} rows)`);
  const shown = await page.evaluate(
    () => [...document.querySelectorAll('section[data-section="plane"] .ae-plane-table')][1].rows.length,
  );
  assert.equal(rows.length, shown, table ?? 'every row of the table');
  await context.close();
});

test('Scaling_TheTableShowsTheSpreadGrowingAndTheScaledSoftmaxStillMixing', async () => {
  const { page, context, problems } = await openPlane(defaults);
  const rows = await page.$$eval('section[data-section="scaling"] tbody tr', (trs) =>
    trs.map((tr) => [...tr.cells].map((c) => Number(c.textContent.replace('\u2212', '-')))),
  );
  assert.deepEqual(
    rows.map((r) => r[0]),
    [1, 4, 16, 64, 256, 1024],
  );
  for (const [dk, spread, scaled] of rows) {
    assert.ok(Math.abs(spread / Math.sqrt(dk) - 1) < 0.15, `dk ${dk}: spread ${spread}`);
    assert.ok(Math.abs(scaled - 1) < 0.15, `dk ${dk}: scaled ${scaled}`);
  }
  assert.ok(rows.at(-1)[3] > 0.95 && rows.at(-1)[4] < 0.5, 'at dₖ = 1024 the unscaled softmax saturates');
  const slider = page.locator('section[data-section="scaling"] input[type="range"]');
  await slider.fill('5');
  assert.equal(await page.locator('section[data-section="scaling"] tr.ae-hl-row th').textContent(), '1024');
  assert.equal(await page.locator('section[data-section="scaling"] svg.ae-bars >> nth=0').locator('rect').count(), 12);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Order_ReversingTheTokensOnlyReordersTheOutputsUntilTheMaskIsOn', async () => {
  // The notebook's weights, whose sums come out equal in either order, to the last bit.
  const { page, context } = await openPlane(notebook);
  const verdict = page.locator('section[data-section="order"] .ae-verdict');
  await verdict.waitFor();
  assert.match(await verdict.textContent(), /the same in both orders: largest difference 0\.0000000/);
  const reversed = engine.attend(attendArgs(notebook, notebook.contexts.river.slice().reverse())).get('output');
  const original = engine.attend(attendArgs(notebook, notebook.contexts.river)).get('output');
  reversed
    .slice()
    .reverse()
    .forEach((row, i) =>
      row.forEach((v, j) => assert.ok(Math.abs(v - original[i][j]) < 1e-6, 'float32 rounding only')),
    );
  await page.evaluate(() => window.__explorer.store.set((s) => ({ ...s, options: { ...s.options, causal: true } })));
  await page.waitForFunction(() =>
    /the causal mask on, reversing changes/.test(
      document.querySelector('section[data-section="order"] .ae-verdict').textContent,
    ),
  );
  await context.close();
});

test('Heads_TheOutputProjectionIsTheEnginesMergedTimesWo', async () => {
  const { page, context } = await openPlane(defaults);
  const read = (id) =>
    page.$$eval(`table[data-matrix="${id}"] tbody tr`, (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value))),
    );
  await page.locator('.ae-heads-details > summary').click(); // W_O is one click deeper
  await page.waitForSelector('table[data-matrix="heads-projected"] td.ae-cell');
  const wo = await read('heads-wo');
  const projected = await read('heads-projected');
  const want = engine.attend({ ...attendArgs(defaults, defaults.contexts.river), wo }).get('output');
  assert.equal(projected.length, want.length);
  projected.forEach((row, i) => row.forEach((v, j) => assert.equal(Math.fround(v), want[i][j])));
  await context.close();
});

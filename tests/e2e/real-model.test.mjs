// The "A real language model" section as a reader and a blogger meet it, through the built dist/
// files under the strict CSP, in Chromium (and the essentials in Firefox ESR): the shipped model
// opens in a worker with no download; the reader's sentence becomes tokens, every layer × head,
// one head enlarged (and the layer's mean, the rollout); the next token with its options and
// "append"; generation with the KV cache and its multiply-add counts; the bank example on real
// weights; what each head does; the state in the link; exports. A GPT-2 checkpoint (random
// weights in Hugging Face's layout and GPT-2's vocabulary) opens from a URL (the element's
// model-url) and GPT-2's tokenizer with it. Hostile files and text get messages naming what is
// wrong, and the model on screen stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  serveStatic,
  launchBrowser,
  keptPages,
  launchFirefox,
  takeDownload,
  ensureDist,
  elementWeightsSaid,
} from './helpers.mjs';
import { decodeState } from '../../web/lib/share.js';
import { HOSTILE_MODELS, HOSTILE_TOKENIZERS, SHIPPED_MODEL } from './hostile-models.mjs';
import { hfGpt2Checkpoint } from '../helpers/gpt2-checkpoint.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.join(ROOT, 'dist');
const SECTION = 'section[data-section="gpt"]';

// A GPT-2-family checkpoint as Hugging Face saves it (GPT2LMHeadModel: "transformer." keys,
// Conv1D weights (in, out)), GPT-2's vocabulary, 2 layers of 2 heads at width 16, random weights
// from a seed: what a blogger's model-url points at, small enough for a test.
function tinyGpt2() {
  return hfGpt2Checkpoint({
    width: 16,
    layers: 2,
    heads: 2,
    seed: 12345,
    scale: 0.04,
    config: { architectures: ['GPT2LMHeadModel'], n_ctx: 64 },
  });
}

let root, server, browser;
// A test's page is a new document in a page kept for its context options (keptPages in
// helpers.mjs), unless the test adds listeners, init scripts or emulation of its own.
let pages;
before(async () => {
  ensureDist();
  // dist/ as a host serves it, plus a folder of a blogger's model files.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-real-'));
  for (const name of fs.readdirSync(DIST)) fs.symlinkSync(path.join(DIST, name), path.join(root, name));
  fs.mkdirSync(path.join(root, 'models'));
  const tiny = tinyGpt2();
  fs.writeFileSync(path.join(root, 'models', 'gpt2-tiny.safetensors'), tiny.model);
  fs.writeFileSync(path.join(root, 'models', 'config.json'), tiny.config);
  fs.writeFileSync(path.join(root, 'models', 'html.safetensors'), '<!doctype html><p>Not found</p>');
  server = await serveStatic(root);
  browser = await launchBrowser();
  pages = keptPages(browser);
});
after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const settle = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/** The page (dist/index.html) scrolled to the real model, its pictures drawn. */
async function openSection(hash = '', contextOptions = {}) {
  const o = await pages.open(null, { viewport: { width: 1280, height: 900 }, ...contextOptions });
  await o.page.goto(`${server.url}index.html${hash}`);
  await o.page.evaluate(() => window.__explorer.ready);
  await o.page.locator(SECTION).scrollIntoViewIfNeeded();
  await o.page.waitForSelector(`${SECTION} .ae-gpt-chip`, { timeout: 30000 });
  await o.page.waitForSelector(`${SECTION} .ae-gpt-tile`);
  return o;
}
const gptState = (page) => page.evaluate(() => window.__explorer.store.get().gpt);
const chips = (page) => page.$$eval(`${SECTION} .ae-gpt-chip`, (cs) => cs.map((c) => c.firstChild.textContent));
const status = (page) => page.textContent(`${SECTION} .ae-gpt-status`);

test('RealModel_TheShippedModelOnTheReadersSentence', async () => {
  const { page, context, problems } = await openSection();
  const section = page.locator(SECTION);
  // Where the model came from and its size, said in one line; it ran in a worker.
  assert.match(
    await section.locator('.ae-gpt-about').textContent(),
    /brown-wordnet: 4 layers × 4 heads, width 128, context 128 tokens, vocabulary 8192, 1\.86 million parameters/,
  );
  assert.match(await status(page), /tokens through 4 layers \(in a worker, weights as float32\)/);
  // Every layer × head: 16 tiles; the first is chosen and enlarged with its numbers.
  assert.equal(await section.locator('.ae-gpt-tile').count(), 16);
  // A sentence of the reader's own: new chips, a new picture.
  await section.locator('textarea.ae-gpt-sentence').fill('The cat sat on the mat.');
  await section.locator('textarea.ae-gpt-sentence').press('Tab');
  await page.waitForFunction(
    (sel) =>
      [...document.querySelectorAll(`${sel} .ae-gpt-chip`)].map((c) => c.firstChild.textContent).join('') ===
      'The␣cat␣sat␣on␣the␣mat.',
    SECTION,
  );
  const T = (await chips(page)).length;
  // Choosing a tile enlarges it: its caption, its rows of weights, the choice in the state.
  await section.locator('.ae-gpt-tile[data-layer="2"][data-head="1"]').click();
  await page.waitForFunction(
    (sel) => document.querySelector(`${sel} .ae-gpt-enlarged caption`)?.textContent === 'Layer 3, head 2',
    SECTION,
  );
  const gpt = await gptState(page);
  assert.deepEqual([gpt.layer, gpt.head, gpt.picture], [2, 1, 'head']);
  const rows = await page.$$eval(`${SECTION} .ae-gpt-enlarged table[data-matrix="gpt-head"] tbody tr`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
  );
  assert.equal(rows.length, T);
  rows.forEach((row, i) => {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, `row ${i} sums to 1`);
    row.forEach((w, j) => j > i && assert.equal(w, 0, `(${i}, ${j}) is in the future`));
  });
  // Hovering a cell explains its softmax with the model's numbers (q·k ÷ √hs), which give the
  // weight the engine computed.
  await page.hover(`${SECTION} .ae-gpt-enlarged td[data-row="4"][data-col="2"]`);
  const explained = await section.locator('.ae-learn-explain').textContent();
  const w = /\) = (\d\.\d{3}) \(the engine: (\d\.\d{3})\); scaled score = q·k \/ √32/.exec(explained);
  assert.ok(w, explained);
  assert.equal(w[1], w[2]);
  // The layer's mean and the rollout, each with the sentence that says what it is (and is not).
  await section.getByLabel('mean of the layer’s heads').check();
  await page.waitForFunction(
    (sel) => document.querySelector(`${sel} table[data-matrix="gpt-summary"] caption`)?.textContent.includes('mean'),
    SECTION,
  );
  await section.getByLabel('rollout across layers').check();
  await page.waitForFunction(
    (sel) => document.querySelector(`${sel} table[data-matrix="gpt-summary"] caption`)?.textContent.includes('Rollout'),
    SECTION,
  );
  assert.match(await section.locator('.ae-gpt-enlarged').textContent(), /not an explanation of the prediction/);
  // The link carries the sentence, the head and the picture (never the weights); it is written
  // once the reader pauses.
  let hash = '';
  for (let tries = 0; tries < 50; tries++) {
    hash = new URL(page.url()).hash;
    if (hash && decodeState(hash).gpt?.picture === 'rollout') break;
    await page.waitForTimeout(100);
  }
  assert.equal(decodeState(hash).gpt.weights, undefined);
  const reopened = await openSection(hash);
  assert.deepEqual(await chips(reopened.page), await chips(page));
  const again = await gptState(reopened.page);
  assert.deepEqual([again.sentence, again.layer, again.head, again.picture], [gpt.sentence, 2, 1, 'rollout']);
  await reopened.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

// How the weights are kept, the reader's choice: the model on screen opens again as F16 (half the
// bytes, said beside the choice and in the status), its sentence and heads drawn again; the link
// carries the choice, and a page opened from it keeps the weights so; BF16 likewise; float32
// again gives the float32 numbers back.
test('RealModel_TheWeightsAreKeptAsTheReaderChooses', async () => {
  const { page, context, problems } = await openSection();
  const section = page.locator(SECTION);
  const keptNow = () => section.locator('.ae-gpt-weights-now').textContent();
  const untilKept = (re) =>
    page.waitForFunction(
      ([sel, source]) => new RegExp(source).test(document.querySelector(`${sel} .ae-gpt-weights-now`).textContent),
      [SECTION, re.source],
      { timeout: 30000 },
    );
  // 1,858,304 parameters: 7.43 MB as float32, 3.7 MB as F16 (LayerNorm and biases stay float32)
  assert.equal(await keptNow(), 'now float32, 7.43 MB');
  assert.equal(await section.locator('select.ae-gpt-weights').inputValue(), 'auto');
  const before = {
    chips: await chips(page),
    top: await section.locator('.ae-gpt-writing .ae-gpt-bar').first().textContent(),
  };
  // chosen as a reader does: kept so (said beside the choice, in the state and in the status),
  // the same sentence drawn again
  const choose = async (value, said, bytes) => {
    await section.locator('select.ae-gpt-weights').selectOption(value);
    await untilKept(new RegExp(`^now ${said}, ${bytes}$`));
    assert.equal((await gptState(page)).precision, value);
    await page.waitForFunction(
      ([sel, shown]) => document.querySelector(`${sel} .ae-gpt-status`).textContent.endsWith(`weights as ${shown}).`),
      [SECTION, said],
    );
    await page.waitForSelector(`${SECTION} .ae-gpt-writing .ae-gpt-bar`);
    assert.deepEqual(await chips(page), before.chips);
  };
  await choose('f16', 'F16', '3\\.7\\d MB');
  assert.equal(await section.locator('.ae-gpt-tile').count(), 16);
  // the link carries it
  let hash = '';
  for (let tries = 0; tries < 50; tries++) {
    hash = new URL(page.url()).hash;
    if (hash && decodeState(hash).gpt?.precision === 'f16') break;
    await page.waitForTimeout(100);
  }
  assert.equal(decodeState(hash).gpt.precision, 'f16');
  const reopened = await openSection(hash);
  await reopened.page.waitForFunction(
    (sel) => /^now F16/.test(document.querySelector(`${sel} .ae-gpt-weights-now`).textContent),
    SECTION,
    { timeout: 30000 },
  );
  assert.equal(await reopened.page.locator(`${SECTION} select.ae-gpt-weights`).inputValue(), 'f16');
  await reopened.context.close();
  // BF16: the same bytes as F16, said so
  await choose('bf16', 'BF16', '3\\.7\\d MB');
  // float32 again: the float32 numbers again
  await choose('f32', 'float32', '7\\.43 MB');
  assert.equal(await section.locator('.ae-gpt-writing .ae-gpt-bar').first().textContent(), before.top);
  assert.deepEqual(problems, []);
  await context.close();
});

// At temperature 0 one token takes all the probability: the list shows it alone and says so,
// not nine tokens of probability 0 in id order (the vocabulary's first bytes, control characters).
test('RealModel_AtTemperatureZeroTheListHoldsTheTokenItTakesAndSaysWhy', async () => {
  const { page, context, problems } = await openSection();
  await page.waitForSelector(`${SECTION} .ae-gpt-writing .ae-gpt-bar`);
  // The temperature slider, moved to 0 as a reader does.
  await page.locator(SECTION).getByRole('slider', { name: 'Temperature' }).fill('0');
  await page.waitForFunction(
    (sel) => document.querySelectorAll(`${sel} .ae-gpt-writing .ae-gpt-bar`).length === 1,
    SECTION,
  );
  const shown = await page.$$eval(`${SECTION} .ae-gpt-writing .ae-gpt-bar`, (lis) =>
    lis.map((li) => ({ p: Number(li.dataset.p), text: li.querySelector('.ae-gpt-bar-token').textContent })),
  );
  assert.equal(shown[0].p, 1);
  assert.doesNotMatch(shown[0].text, /⟨U\+000/, 'no control character');
  assert.match(
    await page.textContent(`${SECTION} .ae-gpt-left-out`),
    /Every other token has probability 0: at temperature 0 the most likely token takes it all/,
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('RealModel_TheNextTokenTheKVCacheAndTheBankExample', async () => {
  const { page, context, problems } = await openSection();
  const section = page.locator(SECTION);
  // The next token: ten bars, most likely first.
  const bars = () =>
    page.$$eval(`${SECTION} .ae-gpt-writing .ae-gpt-bar`, (lis) => lis.map((li) => Number(li.dataset.p)));
  await page.waitForFunction(
    (sel) => document.querySelectorAll(`${sel} .ae-gpt-writing .ae-gpt-bar`).length === 10,
    SECTION,
  );
  const p = await bars();
  for (let k = 1; k < p.length; k++) assert.ok(p[k] <= p[k - 1]);
  // Top-k 1: one token keeps all the probability, and it is the draw.
  await section.getByLabel('Top-k (0: all)').fill('1');
  await section.getByLabel('Top-k (0: all)').press('Tab');
  await page.waitForFunction((sel) => {
    const lis = document.querySelectorAll(`${sel} .ae-gpt-writing .ae-gpt-bar`);
    return lis.length && Number(lis[0].dataset.p) === 1;
  }, SECTION);
  const top = await page.$eval(`${SECTION} .ae-gpt-writing .ae-gpt-bar`, (li) =>
    li.classList.contains('ae-gpt-bar-drawn'),
  );
  assert.ok(top, 'the only token left is the one drawn');
  // Append: the sentence grows by the drawn token.
  const before = (await gptState(page)).sentence;
  await section.getByRole('button', { name: 'Append the drawn token' }).click();
  await page.waitForFunction((b) => window.__explorer.store.get().gpt.sentence.length > b.length, before);
  assert.ok((await gptState(page)).sentence.startsWith(before));
  // Generation with the KV cache: one step, then ten more; each step says what it cost.
  await section.getByRole('button', { name: 'Generate one token' }).click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} .ae-gpt-macs`)?.textContent, SECTION);
  const cost = await section.locator('.ae-gpt-macs').textContent();
  const m =
    /([\d.]+) million multiply-adds with the cache, ([\d.]+) million recomputing all (\d+) tokens \(([\d.]+)×\)/.exec(
      cost,
    );
  assert.ok(m, cost);
  assert.ok(Number(m[1]) < Number(m[2]));
  await page.waitForSelector(`${SECTION} table[data-matrix="gpt-kv-row"]`);
  const weights = await page.$$eval(`${SECTION} table[data-matrix="gpt-kv-row"] tbody td`, (tds) =>
    tds.map((td) => Number(td.dataset.value)),
  );
  assert.equal(weights.length, Number(m[3]), 'one weight per key');
  assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-4);
  assert.match(cost, /the new token’s query against \d+ keys — \d+ from the cache, its own computed now/);
  await section.getByRole('button', { name: 'Ten more' }).click();
  await page.waitForFunction(
    (sel) => document.querySelectorAll(`${sel} .ae-gpt-generated mark`).length === 11,
    SECTION,
    {
      timeout: 30000,
    },
  );
  // The bank example on real weights: a cosine after the embedding and after each layer.
  await page.waitForFunction((sel) => document.querySelector(`${sel} .ae-gpt-bank-claim`)?.textContent, SECTION);
  const claim = await section.locator('.ae-gpt-bank-claim').textContent();
  assert.match(claim, /After the embedding, “bank” has cosine -?[\d.]+/);
  // The sentence says what its numbers support: the first and last cosines as shown, and
  // "apart" only when the last is clearly below the first.
  const cosines = JSON.parse(await section.locator('.ae-gpt-bank-claim').getAttribute('data-cosines'));
  const [first, last] = [cosines[0], cosines.at(-1)];
  const shown = (x) => x.toFixed(3).replace('-', '\u2212'); // as the page writes numbers
  assert.ok(claim.includes(`cosine ${shown(first)}`) && claim.includes(`last layer, ${shown(last)}`), claim);
  if (last < first - 0.02) assert.match(claim, /pulled the two vectors apart/);
  else assert.match(claim, /the context does not separate the two uses/);
  assert.equal((await section.locator('.ae-gpt-bank svg circle, .ae-gpt-bank svg .ae-chart-marker').count()) > 0, true);
  // A word that is not in a sentence: said, by sentence.
  await section.locator('.ae-gpt-bank-word').fill('cheese');
  await section.getByRole('button', { name: 'Compare' }).click();
  await page.waitForFunction(
    (sel) => document.querySelector(`${sel} .ae-gpt-bank .ae-learn-message:not([hidden])`),
    SECTION,
  );
  assert.match(
    await section.locator('.ae-gpt-bank .ae-learn-message').textContent(),
    /sentence A: “cheese” is not a whole word/,
  );
  // What each head does: four tables of layer × head scores and the strongest heads.
  await section.locator('.ae-gpt-roles > summary').click();
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-strongest li`).length > 0, SECTION, {
    timeout: 30000,
  });
  for (const kind of ['previous', 'first', 'self', 'induction'])
    assert.equal(await section.locator(`table[data-matrix="gpt-role-${kind}"] tbody tr`).count(), 4, kind);
  assert.deepEqual(problems, []);
  await context.close();
});

test('RealModel_ExportsTheChosenHeadAndEveryHead', async () => {
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-real-dl-'));
  const { page, context, problems } = await openSection('', { acceptDownloads: true });
  for (const [selector, name] of [
    ['[data-export="head-svg"]', /layer-1-head-1\.svg$/],
    ['[data-export="head-png"]', /layer-1-head-1\.png$/],
    ['[data-export="grid-png"]', /every-head\.png$/],
  ]) {
    const waiting = page.waitForEvent('download');
    await page.click(`${SECTION} ${selector}`);
    const download = await waiting;
    assert.match(download.suggestedFilename(), name);
    const file = path.join(downloads, download.suggestedFilename());
    await download.saveAs(file);
    const bytes = fs.readFileSync(file);
    if (file.endsWith('.png')) assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    else assert.match(bytes.toString('utf8'), /<svg[^>]*>[\s\S]*brown-wordnet: layer 1, head 1/);
  }
  fs.rmSync(downloads, { recursive: true, force: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('RealModel_HostileFilesAndTextAreRefusedByNameAndTheModelStays', async () => {
  const { page, context, problems } = await openSection();
  const section = page.locator(SECTION);
  await section.locator('.ae-gpt-open > summary').click();
  const message = section.locator('.ae-gpt-model-message');
  const stillThere = async (what) => {
    assert.match(await section.locator('.ae-gpt-about').textContent(), /^brown-wordnet: 4 layers/, what);
    assert.ok((await chips(page)).length > 0, what);
  };
  for (const [what, file, pattern] of HOSTILE_MODELS) {
    await section.locator('.ae-gpt-file-model').setInputFiles({
      name: file.name,
      mimeType: 'application/octet-stream',
      buffer: file.bytes,
    });
    await section.locator('.ae-gpt-file-tokenizer').setInputFiles([]);
    await section.getByRole('button', { name: 'Open these files' }).click();
    await message.waitFor({ state: 'visible' });
    await page.waitForFunction(
      (sel) => /Could not open/.test(document.querySelector(sel)?.textContent),
      `${SECTION} .ae-gpt-model-message`,
    );
    const text = await message.textContent();
    assert.match(text, pattern, what);
    assert.match(text, /the model on screen stays/, what);
    await stillThere(what);
  }
  for (const [what, file, pattern] of HOSTILE_TOKENIZERS) {
    await section.locator('.ae-gpt-file-model').setInputFiles({
      name: 'model.safetensors',
      mimeType: 'application/octet-stream',
      buffer: SHIPPED_MODEL,
    });
    await section
      .locator('.ae-gpt-file-tokenizer')
      .setInputFiles({ name: file.name, mimeType: 'application/json', buffer: file.bytes });
    await section.getByRole('button', { name: 'Open these files' }).click();
    await page.waitForFunction(
      (sel) => /Could not open/.test(document.querySelector(sel)?.textContent),
      `${SECTION} .ae-gpt-model-message`,
    );
    assert.match(await message.textContent(), pattern, what);
    await stillThere(what);
  }
  // Text: 100,000 characters put in by script is refused by its length; control characters,
  // right-to-left text and emoji are tokens like any other.
  await section.locator('textarea.ae-gpt-sentence').evaluate((t) => {
    t.value = 'bank '.repeat(20000);
    t.dispatchEvent(new Event('change'));
  });
  await page.waitForFunction(
    (sel) => /100000 characters; type 1 to 2000/.test(document.querySelector(sel).textContent),
    `${SECTION} .ae-gpt-status`,
  );
  await stillThere('100,000 characters');
  for (const text of ['tab\there\u0007bell', 'שלום bank مرحبا', 'the 🏦 bank 👩‍👩‍👧']) {
    await section.locator('textarea.ae-gpt-sentence').fill(text);
    await section.locator('textarea.ae-gpt-sentence').press('Tab');
    await page.waitForFunction((t) => window.__explorer.store.get().gpt.sentence === t, text);
    await page.waitForFunction(
      (sel) => /tokens through 4 layers/.test(document.querySelector(sel).textContent),
      `${SECTION} .ae-gpt-status`,
    );
  }
  // Longer than the model shows: said in tokens.
  await section.locator('textarea.ae-gpt-sentence').fill('bank '.repeat(300));
  await section.locator('textarea.ae-gpt-sentence').press('Tab');
  await page.waitForFunction(
    (sel) => /\d+ tokens; this model shows at most 128/.test(document.querySelector(sel).textContent),
    `${SECTION} .ae-gpt-status`,
  );
  await stillThere('300 words');
  assert.deepEqual(problems, []);
  await context.close();
});

/** An element page under the strict CSP, served beside dist/'s files. */
async function elementPage(page, body) {
  const name = `element-${Math.random().toString(36).slice(2)}.html`;
  fs.writeFileSync(
    path.join(root, name),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="attention-explorer.js"></script></head><body>${body}</body></html>`,
  );
  await page.goto(server.url + name);
  await page.evaluate(() => customElements.whenDefined('attention-explorer'));
  await page.evaluate(() => document.querySelector('attention-explorer').ready);
}

test('RealModel_TheElementOpensAGpt2CheckpointFromItsModelUrl', async () => {
  const { page, context, problems } = await pages.open(null, { viewport: { width: 900, height: 900 } });
  await elementPage(
    page,
    `<attention-explorer sentence="Hello, world! The river bank." model-url="models/gpt2-tiny.safetensors" config-url="models/config.json"></attention-explorer>`,
  );
  const inside = (sel) => `attention-explorer >> ${sel}`;
  await page.waitForSelector(inside('.ae-gpt-chip'), { timeout: 30000 });
  assert.match(
    await page.textContent(inside('.ae-gpt-about')),
    /gpt2-tiny\.safetensors: 2 layers × 2 heads, width 16, context 64 tokens, vocabulary 50257/,
  );
  // GPT-2's own tokenizer (no tokenizer-url): GPT-2's ids for this text.
  const ids = await page.$$eval(inside('.ae-gpt-chip'), (cs) => cs.map((c) => Number(c.dataset.id)));
  assert.deepEqual(ids, [15496, 11, 995, 0, 383, 7850, 3331, 13]);
  assert.equal(await page.locator(inside('.ae-gpt-tile')).count(), 4);
  // view="gpt" is the figure: no other section.
  const sections = await page.$$eval('attention-explorer', (els) =>
    [...els[0].shadowRoot.querySelectorAll('[data-section]')]
      .filter((s) => !s.hidden && s.dataset.section !== 'minimal-bar')
      .map((s) => s.dataset.section),
  );
  assert.deepEqual(sections, ['gpt']);
  assert.deepEqual(problems, []);
  await context.close();
});

// model-precision without a model attribute: the shipped model, kept as asked; its top token is
// the kept model's, computed here in Node on the same file (the file is F16: kept as BF16 each
// weight loses 3 more bits), and it generates on those weights.
for (const [precision, said] of [
  ['f16', 'F16'],
  ['bf16', 'BF16'],
]) {
  test(`RealModel_TheElementKeepsTheShippedModelAsItsModelPrecisionSays_${precision}`, async () => {
    const { page, context, problems } = await pages.open(null, { viewport: { width: 900, height: 900 } });
    await elementPage(page, `<attention-explorer view="gpt" model-precision="${precision}"></attention-explorer>`);
    const inside = (sel) => `attention-explorer >> ${sel}`;
    assert.equal(await elementWeightsSaid(page, said), precision);
    await page.waitForSelector(inside('.ae-gpt-writing .ae-gpt-bar'));
    const { loadEngine } = await import('../../web/engine/engine.js');
    const engine = await loadEngine();
    const kept = engine.loadModel(fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.safetensors')), {
      weights: precision,
    });
    const ids = await page.$$eval(inside('.ae-gpt-chip'), (cs) => cs.map((c) => Number(c.dataset.id)));
    const logits = kept.trace(ids).logits.data;
    const top = engine.nextToken(logits, { top: 1 }).topTokens[0];
    const shownTop = await page.$eval(inside('.ae-gpt-writing .ae-gpt-bar'), (b) => Number(b.dataset.id));
    assert.equal(shownTop, top, `the ${said} model’s most likely next token comes first`);
    kept.dispose();
    // it writes with the KV cache on these weights: one token, then ten more
    const element = page.locator('attention-explorer');
    const generated = (n) =>
      page.waitForFunction(
        (count) =>
          document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.ae-gpt-generated mark').length ===
          count,
        n,
        { timeout: 30000 },
      );
    await element.getByRole('button', { name: 'Generate one token' }).click();
    await generated(1);
    await element.getByRole('button', { name: 'Ten more' }).click();
    await generated(11);
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('RealModel_TheElementSaysWhatIsWrongWithItsModelUrl', async () => {
  const { page, context } = await pages.open(null, { viewport: { width: 900, height: 900 } });
  const inside = (sel) => `attention-explorer >> ${sel}`;
  for (const [attrs, pattern] of [
    ['model-url="models/missing.safetensors"', /HTTP 404|404/],
    ['model-url="models/html.safetensors"', /not a safetensors file: it begins with text/],
    ['model-url="models/gpt2-tiny.safetensors"', /n_head|heads|config/i], // no config: the head count is needed
  ]) {
    await elementPage(page, `<attention-explorer view="gpt" ${attrs}></attention-explorer>`);
    await page.waitForFunction(
      () =>
        /Could not open/.test(
          document.querySelector('attention-explorer').shadowRoot.querySelector('.ae-gpt-model-message')?.textContent,
        ),
      null,
      { timeout: 30000 },
    );
    assert.match(await page.textContent(inside('.ae-gpt-model-message')), pattern, attrs);
  }
  // A URL that is not http(s) or relative is refused before anything is fetched, by its attribute.
  await elementPage(page, `<attention-explorer view="gpt" model-url="javascript:alert(1)"></attention-explorer>`);
  const notice = await page.evaluate(() =>
    [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.ae-notice')]
      .filter((n) => !n.hidden)
      .map((n) => n.textContent)
      .join(' '),
  );
  assert.match(notice, /model-url="javascript:alert\(1\)": expected an http\(s\) or relative URL/);
  await context.close();
});

test('RealModel_Firefox_TheShippedModelAndAGpt2Checkpoint', async () => {
  const firefox = await launchFirefox();
  try {
    const page = await firefox.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}index.html`);
    await page.evaluate(() => window.__explorer.ready);
    await page.evaluate((sel) => document.querySelector(sel).scrollIntoView(), SECTION);
    await page.waitForFunction(
      (sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 16,
      { timeout: 60000 },
      SECTION,
    );
    await page.waitForFunction(
      (sel) => /in a worker/.test(document.querySelector(`${sel} .ae-gpt-status`).textContent),
      {},
      SECTION,
    );
    await page.evaluate(
      (sel) => document.querySelector(`${sel} .ae-gpt-tile[data-layer="3"][data-head="3"]`).click(),
      SECTION,
    );
    await page.waitForFunction(
      (sel) => document.querySelector(`${sel} .ae-gpt-enlarged caption`)?.textContent.startsWith('Layer 4, head 4'),
      {},
      SECTION,
    );
    const name = `ff-${Math.random().toString(36).slice(2)}.html`;
    fs.writeFileSync(
      path.join(root, name),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ff</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="attention-explorer.js"></script></head><body><attention-explorer sentence="Hello, world!" model-url="models/gpt2-tiny.safetensors" config-url="models/config.json"></attention-explorer></body></html>`,
    );
    await page.goto(server.url + name);
    await page.waitForFunction(
      () => document.querySelector('attention-explorer')?.shadowRoot?.querySelectorAll('.ae-gpt-chip').length === 4,
      { timeout: 60000 },
    );
    const ids = await page.evaluate(() =>
      [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.ae-gpt-chip')].map((c) =>
        Number(c.dataset.id),
      ),
    );
    assert.deepEqual(ids, [15496, 11, 995, 0]);
    assert.deepEqual(errors, []);
  } finally {
    await firefox.close();
  }
});

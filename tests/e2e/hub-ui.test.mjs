// Issue 31's one click as a reader meets it: the real-model section of the built page (dist/),
// cross-origin isolated, its endpoint pointed at the Hugging Face stand-in
// (tests/helpers/hf-standin.mjs) with ?hf-endpoint=, in Chromium:
//   - a preset's button downloads the model with a progress bar (bytes, percent, speed, time
//     left) while the model on screen stays drawn, then opens it and shows its heads;
//   - a reload (the link carries which model, never the weights) opens it from the browser's
//     store with 0 bytes fetched (the stand-in's count); in a browser that does not keep it, the
//     link fetches nothing until the reader clicks (as the element's model="gpt2");
//   - Cancel stops, the model on screen stays, the partial download is listed and can be removed;
//   - a dropped connection resumes (Range) and the model opens;
//   - a repository without model.safetensors (its files listed), a non-GPT-2 and a CDN refusing
//     CORS each give their message with the model on screen kept;
//   - the repository field takes an id, and a bad one is said;
//   - in Firefox ESR too: one click downloads and opens the model, a reload opens it with 0 bytes.
// Run: node --test tests/e2e/hub-ui.test.mjs   (needs dist/: node scripts/build-dist.mjs)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CSP,
  launchBrowser,
  launchFirefox,
  openFirefoxPage,
  openPage,
  serveStatic,
  ensureDist,
  elementWeightsSaid,
} from './helpers.mjs';
import { startHfStandin, tinyGpt2, vocabAndMerges } from '../helpers/hf-standin.mjs';
import { decodeState } from '../../web/lib/share.js';
import { fromCompact } from '../../web/lib/tokenizer/index.js';
import { defaultGpt } from '../../web/lib/real/gpt-state.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');
const SECTION = 'section[data-section="gpt"]';
const GPT2 = 'openai-community/gpt2';

let hub, tiny, root, server, strict, browser;

before(async () => {
  ensureDist();
  hub = await startHfStandin();
  tiny = tinyGpt2(); // 2 layers × 2 heads
  hub.addRepo(GPT2, { files: tiny.files });
  const { 'tokenizer.json': json, ...rest } = tiny.files;
  hub.addRepo('distilbert/distilgpt2', {
    files: {
      ...rest,
      ...vocabAndMerges(json),
      'model.safetensors': tinyGpt2({ layers: 3, seed: 7 }).files['model.safetensors'],
    },
  });
  // A GPT-2 with no tokenizer file (tokenizer.json and vocab.json answer 404): read with GPT-2's
  // own encoding, the file beside the page's.
  const { 'tokenizer.json': _, ...bare } = tinyGpt2({ vocabSize: 50257, layers: 1, seed: 5 }).files;
  hub.addRepo('someone/gpt2-bare', { files: bare });
  hub.addRepo('someone/pickled', {
    files: { 'config.json': tiny.files['config.json'], 'pytorch_model.bin': Buffer.alloc(4096) },
  });
  // A GPT-2 far larger than the engine takes: refused from its config.json, before the weights.
  hub.addRepo('someone/huge-gpt2', {
    files: {
      'config.json': JSON.stringify({ ...tiny.config, n_embd: 4096, n_layer: 48, n_head: 32, vocab_size: 50257 }),
      'model.safetensors': Buffer.alloc(64),
    },
  });
  hub.addRepo('someone/bert', {
    files: {
      'config.json': JSON.stringify({ model_type: 'bert', architectures: ['BertForMaskedLM'] }),
      'model.safetensors': Buffer.alloc(64),
    },
  });
  // dist/ as a host serves it, its CSP's connect-src naming the stand-in's two origins (as a host
  // using a mirror names the mirror's) in the header and in index.html's own meta.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-hub-ui-'));
  for (const name of fs.readdirSync(DIST))
    if (name !== 'index.html') fs.symlinkSync(path.join(DIST, name), path.join(root, name));
  const origins = `${hub.endpoint} ${hub.cdnOrigin}`;
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  assert.match(html, /connect-src 'self' https:\/\/huggingface\.co https:\/\/\*\.hf\.co"/);
  fs.writeFileSync(
    path.join(root, 'index.html'),
    html.replace("connect-src 'self' https://huggingface.co https://*.hf.co", `connect-src 'self' ${origins}`),
  );
  server = await serveStatic(root, { csp: `${CSP}; connect-src 'self' ${origins}`, isolate: true });
  // A blog's strict CSP, without the Hub in connect-src.
  strict = await serveStatic(root);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await strict?.close();
  await hub?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const about = (page) => page.textContent(`${SECTION} .ae-gpt-about`);
const tiles = (page) => page.locator(`${SECTION} .ae-gpt-tile`).count();
/**
 * Waits until the section's introduction matches `pattern`; on timeout, fails saying what the
 * section showed instead (its introduction, notices and progress line) and the page's console.
 */
async function untilAbout(page, pattern, timeout) {
  const consoleLines = [];
  const record = (m) => consoleLines.push(`${m.type()}: ${m.text()}`);
  page.on('console', record);
  try {
    await page.waitForFunction(
      ([sel, source]) => new RegExp(source).test(document.querySelector(`${sel} .ae-gpt-about`)?.textContent ?? ''),
      [SECTION, pattern.source],
      { timeout },
    );
  } catch (error) {
    const shown = await page.evaluate((sel) => {
      const text = (q) => [...document.querySelectorAll(`${sel} ${q}`)].map((el) => el.textContent.trim());
      return {
        about: text('.ae-gpt-about'),
        notices: text('.ae-notice:not([hidden])'),
        progress: text('.ae-gpt-progress'),
      };
    }, SECTION);
    throw new Error(
      `${error.message}\nthe section showed ${JSON.stringify(shown)}; console ${JSON.stringify(consoleLines)}`,
    );
  } finally {
    page.off('console', record);
  }
}
/**
 * The page's link once its hash names the model of the Hub `repo`: the hash is written in bursts
 * after the state changes, so an earlier hash (a head picked) can still be there just after the
 * model opened. (Playwright's page or puppeteer's.)
 */
async function linkNaming(page, repo) {
  for (const deadline = Date.now() + 15000; ; await new Promise((r) => setTimeout(r, 100))) {
    const url = page.url();
    if (decodeState(new URL(url).hash).gpt?.model?.repo === repo) return url;
    if (Date.now() > deadline) assert.fail(`the link never named ${repo}: ${url}`);
  }
}
const gptModel = (page) => page.evaluate(() => window.__explorer.store.get().gpt?.model ?? { kind: 'shipped' });

/** The page with the section drawn on the project's own model. */
async function openSection(context = null) {
  const o = context
    ? { page: await context.newPage(), context, problems: [] }
    : await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  await o.page.goto(`${server.url}index.html?hf-endpoint=${encodeURIComponent(hub.endpoint)}`);
  await o.page.evaluate(() => window.__explorer.ready);
  await o.page.locator(SECTION).scrollIntoViewIfNeeded();
  await o.page.waitForSelector(`${SECTION} .ae-gpt-tile`, { timeout: 30000 });
  assert.equal(await o.page.evaluate(() => crossOriginIsolated), true);
  return o;
}

test('one click: progress while the model on screen stays, then its heads; a reload opens it with 0 bytes fetched', async () => {
  hub.reset();
  hub.resetCounts();
  const { page, context, problems } = await openSection();
  const shippedTiles = await tiles(page);
  const shippedAbout = await about(page);
  assert.match(shippedAbout, /brown-wordnet/);
  assert.match(await page.textContent(`${SECTION} .ae-gpt-hub-intro`), new RegExp(hub.endpoint.replace(/\./g, '\\.')));
  assert.match(await page.textContent(`${SECTION} .ae-gpt-kept summary`), /nothing yet/);
  // Slow enough to watch: 1.6 MB at 300 kB/s.
  hub.set({ bytesPerSecond: 300_000 });
  await page.click(`${SECTION} .ae-gpt-preset[data-preset="gpt2"]`);
  await page.waitForFunction(
    (sel) =>
      /B\/s/.test(document.querySelector(`${sel} .ae-gpt-progress-text`)?.textContent ?? '') &&
      /model\.safetensors/.test(document.querySelector(`${sel} .ae-gpt-progress-what`)?.textContent ?? ''),
    SECTION,
    { timeout: 15000 },
  );
  const what = await page.textContent(`${SECTION} .ae-gpt-progress-what`);
  assert.match(
    what,
    /Opening GPT-2 small \(openai-community\/gpt2\) from http:\/\/127\.0\.0\.1:\d+: model\.safetensors, 1\.\d+ MB/,
  );
  const line = await page.textContent(`${SECTION} .ae-gpt-progress-text`);
  assert.match(line, /^[\d.]+ (B|kB|MB) of 1\.\d+ MB \(\d+%\), [\d.]+ kB\/s, [\dmin s]+ left$/);
  const size = tiny.files['model.safetensors'].length;
  assert.ok(what.includes((size / 1e6).toFixed(2).replace(/0$/, '')) || what.includes((size / 1e6).toFixed(2)), what);
  assert.ok(Number(await page.getAttribute(`${SECTION} .ae-gpt-progress-bar`, 'value')) >= 0);
  // Meanwhile the model on screen stays and its figures work: a head can be picked.
  assert.equal(await about(page), shippedAbout);
  assert.equal(await tiles(page), shippedTiles);
  await page.locator(`${SECTION} .ae-gpt-tile[data-layer="1"][data-head="1"]`).click();
  await page.waitForFunction(
    (sel) => document.querySelector(`${sel} .ae-gpt-enlarged caption`)?.textContent === 'Layer 2, head 2',
    SECTION,
  );
  // Then the new model is open: its name, sizes and heads (2 layers × 2 heads).
  await untilAbout(page, /openai-community\/gpt2/, 30000);
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, SECTION);
  assert.match(
    await about(page),
    /^GPT-2 small \(openai-community\/gpt2\): 2 layers × 2 heads, width 64, context 128 tokens/,
  );
  assert.match(await about(page), /downloaded from http:\/\/127\.0\.0\.1:\d+ and kept in this browser\.$/);
  assert.equal(await page.isHidden(`${SECTION} .ae-gpt-progress`), true);
  assert.deepEqual(await gptModel(page), { kind: 'hub', endpoint: hub.endpoint, repo: GPT2, revision: 'main' });
  const total = Object.values(tiny.files).reduce((n, b) => n + Buffer.byteLength(b), 0);
  // Each file once, plus the redirects' few-byte bodies.
  assert.ok(hub.bytesServed >= total && hub.bytesServed < total + 1024, `${hub.bytesServed} bytes for ${total}`);
  // Kept: listed with its size.
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-kept-item`).length === 1, SECTION);
  const item = await page.textContent(`${SECTION} .ae-gpt-kept-item span`);
  assert.match(item, /^GPT-2 small \(openai-community\/gpt2\): 1\.\d+ MB$/);
  assert.match(
    await page.textContent(`${SECTION} .ae-gpt-storage`),
    /This site uses .* of the .* the browser allows it/,
  );
  // Persistent storage was asked for once the model was stored, and the answer is said.
  await page.waitForFunction(
    (sel) => /persistent storage/.test(document.querySelector(`${sel} .ae-gpt-storage`).textContent),
    SECTION,
  );

  // The second visit: the link carries the model; it opens from the store, 0 bytes fetched.
  hub.reset();
  hub.resetCounts();
  const url = await linkNaming(page, GPT2);
  assert.ok(
    new URL(url).hash.length < 2000,
    `${new URL(url).hash.length} characters: the model named, never its weights`,
  );
  await page.close();
  const again = await context.newPage();
  await again.goto(url);
  await again.evaluate(() => window.__explorer.ready);
  await again.locator(SECTION).scrollIntoViewIfNeeded();
  await untilAbout(again, /openai-community\/gpt2/, 60000);
  await again.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, SECTION);
  assert.match(await about(again), /opened from this browser’s store/);
  const keptNow = () => again.textContent(`${SECTION} .ae-gpt-weights-now`);
  assert.match(await keptNow(), /^now float32, [\d.]+ MB$/);
  assert.equal(hub.bytesServed, 0);
  assert.deepEqual(hub.requests, []);
  // Its weights kept as F16 instead: the same model opened again from the store, nothing fetched,
  // half the bytes; the choice in the state (the link), the model unchanged.
  // the bytes the picker gives the weights ("now F16, 748 kB")
  const keptBytes = (line) => {
    const [, n, unit] = line.match(/^now \S+, ([\d.]+) (B|kB|MB|GB)$/);
    return Number(n) * { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }[unit];
  };
  const f32Bytes = keptBytes(await keptNow());
  assert.equal(await again.inputValue(`${SECTION} select.ae-gpt-weights`), 'auto');
  await again.selectOption(`${SECTION} select.ae-gpt-weights`, 'f16');
  await again.waitForFunction(
    (sel) => /^now F16/.test(document.querySelector(`${sel} .ae-gpt-weights-now`).textContent),
    SECTION,
    { timeout: 30000 },
  );
  assert.match(await about(again), /^GPT-2 small \(openai-community\/gpt2\): .* — opened from this browser’s store /);
  await again.waitForFunction(
    (sel) => /\(in a worker, weights as F16\)\.$/.test(document.querySelector(`${sel} .ae-gpt-status`).textContent),
    SECTION,
  );
  const gpt = await again.evaluate(() => window.__explorer.store.get().gpt);
  assert.equal(gpt.precision, 'f16');
  assert.deepEqual(gpt.model, { kind: 'hub', endpoint: hub.endpoint, repo: GPT2, revision: 'main' });
  const f16Bytes = keptBytes(await keptNow());
  assert.ok(f16Bytes < 0.6 * f32Bytes, `${f16Bytes} bytes as F16 against ${f32Bytes} as float32`);
  assert.equal(hub.bytesServed, 0);
  assert.deepEqual(problems, []);
  await context.close();
  // The link in a browser that does not keep the model: nothing is fetched until the reader asks.
  const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const fresh = await other.newPage();
  await fresh.goto(url);
  await fresh.evaluate(() => window.__explorer.ready);
  await fresh.locator(SECTION).scrollIntoViewIfNeeded();
  await fresh.waitForSelector(`${SECTION} .ae-gpt-consent`, { state: 'visible', timeout: 30000 });
  assert.match(await fresh.textContent(`${SECTION} .ae-gpt-consent`), /is not kept in this browser yet/);
  assert.deepEqual(hub.requests, []);
  await fresh.click(`${SECTION} .ae-gpt-consent-go`);
  await fresh.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, SECTION, {
    timeout: 30000,
  });
  assert.match(await about(fresh), /^GPT-2 small \(openai-community\/gpt2\)/);
  await other.close();
});

// The opening says the project's model has no induction head and offers GPT-2 in one click: the
// same download as the picker's preset, its progress in the picker, scrolled into view.
test('the opening\'s "Open GPT-2 small" downloads GPT-2 from the Hub and opens it, one click', async () => {
  hub.reset();
  hub.resetCounts();
  const { page, context, problems } = await openSection();
  const button = page.locator(`${SECTION} .ae-gpt-opening-picker`);
  await button.waitFor({ state: 'visible', timeout: 30000 });
  assert.equal(await button.textContent(), 'Open GPT-2 small');
  assert.match(await button.getAttribute('title'), /^Downloads GPT-2 small \(124M parameters\) from Hugging Face/);
  // After the sentence on the model's induction heads (the shipped model has two; one without any is
  // told so, with the same two links).
  assert.match(await page.textContent(`${SECTION} .ae-gpt-opening-induction`), /induction score (is|of) \d\.\d\d/);
  hub.set({ bytesPerSecond: 600_000 });
  await button.click();
  await page.waitForFunction(
    (sel) => /model\.safetensors/.test(document.querySelector(`${sel} .ae-gpt-progress-what`)?.textContent ?? ''),
    SECTION,
    { timeout: 15000 },
  );
  // The picker, where the progress is, came into view.
  const top = await page.$eval(`${SECTION} .ae-gpt-about`, (el) => el.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < 900, `the picker at ${top} px`);
  await untilAbout(page, /^GPT-2 small \(openai-community\/gpt2\)/, 30000);
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, SECTION);
  assert.deepEqual(await gptModel(page), { kind: 'hub', endpoint: hub.endpoint, repo: GPT2, revision: 'main' });
  assert.deepEqual(problems, []);
  await context.close();
});

test("a repository without a tokenizer file opens with GPT-2's own encoding, the file beside the page", async () => {
  hub.reset();
  const { page, context, problems } = await openSection();
  await page.fill(`${SECTION} .ae-gpt-repo-input`, 'someone/gpt2-bare');
  await page.click(`${SECTION} .ae-gpt-repo-go`);
  await untilAbout(page, /^someone\/gpt2-bare: 1 layers? × 2 heads/, 30000);
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 2, SECTION);
  const gpt2 = fromCompact(new Uint8Array(fs.readFileSync(path.join(DIST, 'attention-explorer.gpt2-tokenizer.bin'))));
  const chips = await page.$$eval(`${SECTION} .ae-gpt-chips .ae-gpt-chip`, (cs) => cs.map((c) => Number(c.dataset.id)));
  assert.deepEqual(chips, gpt2.encode(defaultGpt().sentence));
  // Not a 404 on the tokenizer: the only requests that failed are the Hub's for the missing files.
  assert.deepEqual(
    problems.filter((p) => !/tokenizer\.json|vocab\.json|merges\.txt|status of 404/.test(p)),
    [],
  );
  await context.close();
});

test('Cancel keeps the model on screen, lists the partial download, and Remove removes it', async () => {
  hub.reset();
  const { page, context } = await openSection();
  const shippedAbout = await about(page);
  hub.set({ bytesPerSecond: 200_000 });
  await page.click(`${SECTION} .ae-gpt-preset[data-preset="distilgpt2"]`);
  await page.waitForFunction(
    (sel) =>
      Number(document.querySelector(`${sel} .ae-gpt-progress-bar`)?.getAttribute('value')) > 5 &&
      /model\.safetensors/.test(document.querySelector(`${sel} .ae-gpt-progress-what`)?.textContent ?? ''),
    SECTION,
    { timeout: 15000 },
  );
  await page.click(`${SECTION} .ae-gpt-cancel`);
  await page.waitForSelector(`${SECTION} .ae-gpt-progress`, { state: 'hidden' });
  assert.equal(await about(page), shippedAbout);
  assert.equal(await page.isHidden(`${SECTION} .ae-gpt-hub-error`), true, 'Cancel is not a failure');
  assert.equal((await gptModel(page)).kind, 'shipped');
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-kept-item`).length === 1, SECTION);
  assert.equal(await page.getAttribute(`${SECTION} .ae-gpt-kept-item`, 'data-complete'), 'false');
  assert.match(
    await page.textContent(`${SECTION} .ae-gpt-kept-item span`),
    /^DistilGPT-2 \(distilbert\/distilgpt2\): partly downloaded: [\d.]+ kB of 1\.\d+ MB; its download resumes from there$/,
  );
  await page.click(`${SECTION} .ae-gpt-kept summary`);
  await page.click(`${SECTION} .ae-gpt-kept-remove`);
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-kept-item`).length === 0, SECTION);
  assert.match(await page.textContent(`${SECTION} .ae-gpt-kept summary`), /nothing yet/);
  await context.close();
});

test('a dropped connection resumes from the byte reached and the model opens', async () => {
  hub.reset();
  const { page, context, problems } = await openSection();
  hub.resetCounts();
  // Paced, so that the bytes before the drop reach the page (and are kept) before it.
  hub.set({ dropAfter: 600_000, dropTimes: 1, bytesPerSecond: 500_000 });
  await page.click(`${SECTION} .ae-gpt-preset[data-preset="gpt2"]`);
  // The wait before the retry is said on the progress line.
  await page.waitForFunction(
    (sel) =>
      /^the connection dropped; trying again in 1 s \(attempt 1 of 4\)$/.test(
        document.querySelector(`${sel} .ae-gpt-progress-text`).textContent,
      ),
    SECTION,
    { timeout: 20000, polling: 50 },
  );
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, SECTION, {
    timeout: 30000,
  });
  assert.equal(hub.drops, 1);
  const cdn = hub.requests.filter((r) => r.server === 'cdn');
  assert.deepEqual(
    cdn.map((r) => r.status),
    [200, 206],
  );
  const from = Number(/^bytes=(\d+)-$/.exec(cdn[1].range)?.[1]);
  assert.ok(from > 400_000 && from <= 600_000, `resumed from ${cdn[1].range}`);
  // The dropped request is the browser's failed request; nothing else.
  assert.ok(
    problems.every((p) => /model\.safetensors|ERR_/.test(p)),
    problems.join('\n'),
  );
  await context.close();
});

test('each failure gives its message and the model on screen stays', async () => {
  hub.reset();
  const { page, context } = await openSection();
  const shippedAbout = await about(page);
  const shippedTiles = await tiles(page);
  const attempt = async (repo, { resumable = false } = {}) => {
    await page.fill(`${SECTION} .ae-gpt-repo-input`, repo);
    await page.click(`${SECTION} .ae-gpt-repo-go`);
    await page.waitForSelector(`${SECTION} .ae-gpt-hub-error`, { state: 'visible', timeout: 20000 });
    await page.waitForSelector(`${SECTION} .ae-gpt-progress`, { state: 'hidden' });
    const text = await page.textContent(`${SECTION} .ae-gpt-hub-error`);
    assert.equal(await about(page), shippedAbout);
    assert.equal(await tiles(page), shippedTiles);
    assert.equal((await gptModel(page)).kind, 'shipped');
    // Nothing of a repository that cannot be opened stays kept; what arrived of one that can does.
    if (!resumable) await page.waitForFunction((sel) => !document.querySelector(`${sel} .ae-gpt-kept-item`), SECTION);
    else
      await page.waitForFunction(
        (sel) => document.querySelector(`${sel} .ae-gpt-kept-item`)?.dataset.complete === 'false',
        SECTION,
      );
    return text;
  };
  assert.match(
    await attempt('someone/pickled'),
    /^Could not open someone\/pickled: someone\/pickled has no model\.safetensors.*pytorch_model\.bin \(PyTorch pickle.*The model on screen stays\.$/,
  );
  assert.match(
    await attempt('someone/bert'),
    /someone\/bert is not a GPT-2 model \(its config\.json says model_type "bert"/,
  );
  assert.match(
    await attempt('nobody/nothing'),
    /http:\/\/127\.0\.0\.1:\d+ refused nobody\/nothing \(HTTP 401\): it does not exist, or it is private or gated/,
  );
  hub.set({ cors: { cdn: false } });
  assert.match(
    await attempt(`${hub.endpoint}/${GPT2}`, { resumable: true }),
    /model\.safetensors: .* (may be unreachable|does not let this page read it)/,
  );
  hub.reset();
  // A bad id is said by name before anything is fetched.
  hub.resetCounts();
  await page.fill(`${SECTION} .ae-gpt-repo-input`, 'a/b/c');
  await page.click(`${SECTION} .ae-gpt-repo-go`);
  assert.match(
    await page.textContent(`${SECTION} .ae-gpt-model-message`),
    /^model: "a\/b\/c" is not a repository id: expected "name" or "namespace\/name"$/,
  );
  assert.deepEqual(hub.requests, []);
  await context.close();
});

/** A post with one element, under `on`'s CSP. */
async function elementPage(on, body) {
  const name = `element-${Math.random().toString(36).slice(2)}.html`;
  fs.writeFileSync(
    path.join(root, name),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="attention-explorer.js"></script></head><body>${body}</body></html>`,
  );
  const o = await openPage(browser, null, { viewport: { width: 900, height: 900 } });
  await o.page.goto(on.url + name);
  await o.page.evaluate(() => customElements.whenDefined('attention-explorer'));
  await o.page.evaluate(() => document.querySelector('attention-explorer').ready);
  return o;
}
const inside = (sel) => `attention-explorer >> ${sel}`;
const notices = (page) =>
  page.evaluate(() =>
    [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.ae-notice')]
      .filter((n) => !n.hidden)
      .map((n) => n.textContent)
      .join(' '),
  );

test('memory predicted not to fit, offline, and a bad ?hf-endpoint= each said, the model on screen kept', async () => {
  hub.reset();
  const { page, context } = await openSection();
  const shippedAbout = await about(page);
  hub.resetCounts();
  await page.fill(`${SECTION} .ae-gpt-repo-input`, 'someone/huge-gpt2');
  await page.click(`${SECTION} .ae-gpt-repo-go`);
  await page.waitForSelector(`${SECTION} .ae-gpt-hub-error`, { state: 'visible', timeout: 20000 });
  assert.match(
    await page.textContent(`${SECTION} .ae-gpt-hub-error`),
    /^Could not open someone\/huge-gpt2: this model \(\d+M parameters\) needs [\d.]+ GB of memory as F32: more than the engine's 536,870,912 parameters; no precision this page offers would fit\. The model on screen stays\.$/,
  );
  assert.ok(
    hub.requests.every((r) => !r.path.includes('model.safetensors')),
    'the weights were never asked for',
  );
  assert.equal(await about(page), shippedAbout);
  // Offline: said at once.
  await context.setOffline(true);
  await page.click(`${SECTION} .ae-gpt-preset[data-preset="gpt2"]`);
  await page.waitForFunction(
    (sel) => /offline/.test(document.querySelector(`${sel} .ae-gpt-hub-error`)?.textContent ?? ''),
    SECTION,
    { timeout: 20000 },
  );
  assert.match(
    await page.textContent(`${SECTION} .ae-gpt-hub-error`),
    /^Could not open GPT-2 small \(openai-community\/gpt2\): this browser is offline: connect to the internet, then try again/,
  );
  assert.equal(await about(page), shippedAbout);
  await context.setOffline(false);
  // A bad endpoint in the page's address: a notice naming it; Hugging Face is used.
  await page.goto(`${server.url}index.html?hf-endpoint=ftp%3A%2F%2Fmirror`);
  await page.evaluate(() => window.__explorer.ready);
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${SECTION} .ae-gpt-hub-intro`);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.ae-notice')].some(
      (n) => !n.hidden && /hf-endpoint=ftp:\/\/mirror/.test(n.textContent),
    ),
  );
  const notice = await page.evaluate(() =>
    [...document.querySelectorAll('.ae-notice')].map((n) => n.textContent).join(' '),
  );
  assert.match(
    notice,
    /hf-endpoint=ftp:\/\/mirror: expected an http\(s\) URL, got ftp: .*; using https:\/\/huggingface\.co/,
  );
  assert.match(await page.textContent(`${SECTION} .ae-gpt-hub-intro`), /Download a GPT-2 from Hugging Face/);
  await context.close();
});

test('the element: model="gpt2" with hf-endpoint downloads and opens it, a figure without the pickers', async () => {
  hub.reset();
  hub.resetCounts();
  const { page, context, problems } = await elementPage(
    server,
    `<attention-explorer model="gpt2" hf-endpoint="${hub.endpoint}/" model-precision="f16" sentence="The river bank."></attention-explorer>`,
  );
  // Not kept: nothing is fetched until the reader asks.
  await page.waitForSelector(inside('.ae-gpt-consent'), { state: 'visible', timeout: 30000 });
  assert.match(
    await page.textContent(inside('.ae-gpt-consent')),
    /^GPT-2 small \(openai-community\/gpt2\) from http:\/\/127\.0\.0\.1:\d+ is not kept in this browser yet: opening it downloads its weights/,
  );
  assert.equal(
    await page.textContent(inside('.ae-gpt-status')),
    'The model opens once you ask for its download (above).',
  );
  assert.deepEqual(hub.requests, []);
  await page.click(inside('.ae-gpt-consent-go'));
  await page.waitForSelector(inside('.ae-gpt-consent'), { state: 'hidden' });
  await page.waitForFunction(
    () =>
      /openai-community\/gpt2/.test(
        document.querySelector('attention-explorer').shadowRoot.querySelector('.ae-gpt-about')?.textContent ?? '',
      ),
    null,
    { timeout: 30000 },
  );
  await page.waitForSelector(inside('.ae-gpt-tile'));
  assert.equal(await page.locator(inside('.ae-gpt-tile')).count(), 4);
  assert.match(
    await page.textContent(inside('.ae-gpt-about')),
    /^GPT-2 small \(openai-community\/gpt2\): 2 layers × 2 heads/,
  );
  // model-precision="f16": what ran says so
  assert.equal(await elementWeightsSaid(page, 'F16'), 'f16');
  // A figure: no file picker, no presets, no kept list, no choice of weights (controls="full" shows them).
  for (const sel of ['.ae-gpt-open', '.ae-gpt-preset', '.ae-gpt-repo', '.ae-gpt-kept', '.ae-gpt-weights'])
    assert.equal(await page.locator(inside(sel)).count(), 0, sel);
  const state = await page.evaluate(() => document.querySelector('attention-explorer').state.gpt.model);
  assert.deepEqual(state, { kind: 'hub', endpoint: hub.endpoint, repo: GPT2, revision: 'main' });
  assert.ok(hub.bytesServed > 1e6);
  assert.equal(await notices(page), '');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the element: a model-url model shows its download as a progress bar and is introduced by what is known of it', async () => {
  hub.reset();
  hub.set({ bytesPerSecond: 400_000 });
  const file = (name) => `${hub.endpoint}/${GPT2}/resolve/main/${name}`;
  const { page, context, problems } = await elementPage(
    server,
    `<attention-explorer model-url="${file('model.safetensors')}" config-url="${file('config.json')}" tokenizer-url="${file('tokenizer.json')}"></attention-explorer>`,
  );
  await page.waitForFunction(
    () => {
      const root = document.querySelector('attention-explorer').shadowRoot;
      const box = root.querySelector('.ae-gpt-loading');
      return box && !box.hidden && /of 1\.\d+ MB \(\d+%\)/.test(box.textContent);
    },
    null,
    { timeout: 30000 },
  );
  assert.match(
    await page.textContent(inside('.ae-gpt-loading-what')),
    /^Downloading model\.safetensors \(http:\/\/127\.0\.0\.1:\d+\/openai-community\/gpt2\/resolve\/main\/model\.safetensors\) and opening it$/,
  );
  assert.ok(Number(await page.getAttribute(inside('.ae-gpt-loading progress'), 'value')) >= 0);
  // On screen and opening: the status does not say it will open later.
  assert.equal(await page.textContent(inside('.ae-gpt-status')), 'Opening the model…');
  await page.waitForSelector(inside('.ae-gpt-tile'), { timeout: 30000 });
  assert.equal(await page.isHidden(inside('.ae-gpt-loading')), true);
  // Introduced by what is known of it (its file, its config's sizes, where it came from), never as trained.
  assert.match(
    await page.textContent(inside('.ae-gpt-about')),
    /^model\.safetensors: 2 layers × 2 heads, width 64, context 128 tokens, vocabulary 4096, 0\.37 million parameters — opened from http:/,
  );
  const text = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.textContent);
  assert.doesNotMatch(text, /trained on real English/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the element: a bad model or hf-endpoint is said by name and the default kept', async () => {
  hub.reset();
  hub.resetCounts();
  const { page, context } = await elementPage(
    server,
    `<attention-explorer model="a/b/c" hf-endpoint="ftp://mirror"></attention-explorer>`,
  );
  await page.waitForSelector(inside('.ae-gpt-tile'), { timeout: 30000 });
  const said = await notices(page);
  assert.match(
    said,
    /model="a\/b\/c": "a\/b\/c" is not a repository id: expected "name" or "namespace\/name" \(or one of gpt2, distilgpt2, gpt2-medium\); the model shown stays/,
  );
  assert.match(
    said,
    /hf-endpoint="ftp:\/\/mirror": expected an http\(s\) URL, got ftp: .*; using https:\/\/huggingface\.co/,
  );
  assert.match(await page.textContent(inside('.ae-gpt-about')), /^brown-wordnet/);
  assert.deepEqual(hub.requests, []);
  await context.close();
});

test('the element under a strict CSP without the Hub in connect-src: a notice naming the directive', async () => {
  hub.reset();
  hub.resetCounts();
  const { page, context } = await elementPage(
    strict,
    `<attention-explorer model="gpt2" hf-endpoint="${hub.endpoint}"></attention-explorer>`,
  );
  await page.waitForSelector(inside('.ae-gpt-consent-go'), { state: 'visible', timeout: 30000 });
  await page.click(inside('.ae-gpt-consent-go'));
  await page.waitForSelector(inside('.ae-gpt-hub-error'), { state: 'visible', timeout: 30000 });
  assert.match(
    await page.textContent(inside('.ae-gpt-hub-error')),
    /^Could not open GPT-2 small \(openai-community\/gpt2\): this page's Content-Security-Policy \(connect-src\) does not allow connecting to http:\/\/127\.0\.0\.1:\d+, so the download was blocked\. A page that downloads from http:\/\/127\.0\.0\.1:\d+ must allow .* \(the README says which\)/,
  );
  assert.deepEqual(hub.requests, []);
  await context.close();
});

test('Firefox: one click downloads and opens the model; a reload opens it from the store with 0 bytes fetched', async () => {
  hub.reset();
  const firefox = await launchFirefox();
  try {
    const url = `${server.url}index.html?hf-endpoint=${encodeURIComponent(hub.endpoint)}`;
    const { page, problems } = await openFirefoxPage(firefox, url);
    await page.setViewport({ width: 1200, height: 900 });
    await page.evaluate(() => window.__explorer.ready);
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    await page.evaluate((sel) => document.querySelector(sel).scrollIntoView(), SECTION);
    await page.waitForFunction(
      (sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length > 4,
      { timeout: 60000 },
      SECTION,
    );
    hub.resetCounts();
    hub.set({ bytesPerSecond: 800_000 });
    await page.evaluate((sel) => document.querySelector(`${sel} .ae-gpt-preset[data-preset="gpt2"]`).click(), SECTION);
    await page.waitForFunction(
      (sel) => /B\/s, .* left$/.test(document.querySelector(`${sel} .ae-gpt-progress-text`)?.textContent ?? ''),
      { timeout: 20000 },
      SECTION,
    );
    await page.waitForFunction(
      (sel) =>
        /^GPT-2 small \(openai-community\/gpt2\): 2 layers × 2 heads/.test(
          document.querySelector(`${sel} .ae-gpt-about`).textContent,
        ),
      { timeout: 60000 },
      SECTION,
    );
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, {}, SECTION);
    assert.ok(hub.bytesServed > 1.6e6);
    await page.waitForFunction(
      (sel) => document.querySelectorAll(`${sel} .ae-gpt-kept-item[data-complete="true"]`).length === 1,
      {},
      SECTION,
    );
    const link = await linkNaming(page, GPT2);
    // The second visit: 0 bytes, 0 requests.
    hub.reset();
    hub.resetCounts();
    await page.goto(link);
    await page.reload();
    await page.evaluate(() => window.__explorer.ready);
    await page.evaluate((sel) => document.querySelector(sel).scrollIntoView(), SECTION);
    await page
      .waitForFunction(
        (sel) =>
          /opened from this browser’s store/.test(document.querySelector(`${sel} .ae-gpt-about`)?.textContent ?? ''),
        { timeout: 60000 },
        SECTION,
      )
      .catch(async (error) => {
        // What the section said instead, and the link it opened.
        const said = await page.evaluate(
          (sel) =>
            ['.ae-gpt-about', '.ae-gpt-status', '.ae-gpt-consent', '.ae-gpt-hub-error']
              .map((c) => `${c}: ${document.querySelector(`${sel} ${c}`)?.textContent}`)
              .join('\n') + `\nhash: ${location.hash}`,
          SECTION,
        );
        throw new Error(`${error.message}\n${said}`);
      });
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, {}, SECTION);
    assert.equal(hub.bytesServed, 0);
    assert.deepEqual(hub.requests, []);
    // Kept as F16 instead: opened again from Firefox's store, nothing fetched.
    await page.select(`${SECTION} select.ae-gpt-weights`, 'f16');
    await page.waitForFunction(
      (sel) => /^now F16, /.test(document.querySelector(`${sel} .ae-gpt-weights-now`)?.textContent ?? ''),
      { timeout: 60000 },
      SECTION,
    );
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length === 4, {}, SECTION);
    assert.equal(hub.bytesServed, 0);
    assert.deepEqual(hub.requests, []);
    assert.deepEqual(problems, []);
  } finally {
    await firefox.close();
  }
});

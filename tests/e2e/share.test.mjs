// Browser tests of sharing by link: the main page (dist/index.html, built from web/) restores an edited state
// exactly from its URL; Back/Forward move between states; hostile or malformed hashes show a
// visible notice, render token names as inert text, and never blank the page. The same for the
// iframe view (dist/embed.html). attachHashSync() (web/tools/hash-sync.js) is tested on a fixture.
// Run: node --test tests/e2e/share.test.mjs
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage, keptPages, ensureDist } from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import { defaultState } from '../../web/lib/state.js';
import { encodeState, LIMITS } from '../../web/lib/share.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let server;
let browser;
let defaults;
let pages; // keptPages: the tests here but the history fixture's need no browser context of their own

test.before(async () => {
  ensureDist();
  server = await serveStatic(ROOT);
  browser = await launchBrowser();
  pages = keptPages(browser);
  defaults = defaultState((await loadEngine()).examples());
});
test.after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
});

// The built page and iframe view (dist/, as `npm start` serves them).
const PAGE = () => `${server.url}dist/index.html`;
const EMBED = () => `${server.url}dist/embed.html`;

/**
 * A kept page (keptPages in helpers.mjs) and the dialogs it raises from now on: one listener and
 * one list a page, the list emptied for each test that opens it.
 */
const dialogsOf = new WeakMap(); // page → the list
async function openWithDialogs() {
  const opened = await pages.open(null);
  if (!dialogsOf.has(opened.page)) {
    const list = [];
    dialogsOf.set(opened.page, list);
    opened.page.on('dialog', (d) => {
      list.push(d.message());
      d.dismiss().catch(() => {});
    });
  }
  const dialogs = dialogsOf.get(opened.page);
  dialogs.length = 0;
  return { ...opened, dialogs };
}

/** Opens the main page at a hash (a new document) and waits until it has drawn. */
async function openExplorer(hash = '') {
  const opened = await openWithDialogs();
  await opened.page.goto(PAGE() + hash);
  await opened.page.evaluate(() => window.__explorer.ready);
  await opened.page.waitForFunction(() => document.querySelectorAll('#app table[data-matrix]').length > 0);
  return opened;
}

function edited() {
  const s = structuredClone(defaults);
  s.vocab.bank = [0.8125, -0.1, 1e-7, 3.5];
  s.vocab.delta = [0.25, 0.5, -0.75, 1];
  s.contexts.river = ['stream', 'delta', 'bank', 'mud'];
  s.weights.wq[2][1] = -0.3333;
  s.weights.wv[3][2] = 1.75;
  s.options = { ...s.options, causal: true, temperature: 0.7, kernel: 'reference' };
  s.focus = 'river';
  s.view = ['scores', 'weights', 'output'];
  s.step = 5;
  s.selected = { matrix: 'weights', row: 1, col: 0 };
  s.theme = 'dark';
  return s;
}

/** Visible heatmaps of the main page: {matrix/context: [[data-value]]}. */
function tables(page, root = '#app') {
  return page.evaluate(
    (sel) =>
      Object.fromEntries(
        [...document.querySelectorAll(`${sel} table[data-matrix]`)]
          .filter((t) => t.offsetParent)
          .map((t) => [
            `${t.dataset.matrix}/${t.dataset.context || ''}`,
            [...t.querySelectorAll('tbody tr')].map((tr) =>
              [...tr.querySelectorAll('td.ae-cell')].map((td) => td.dataset.value),
            ),
          ]),
      ),
    root,
  );
}

test('SharedLink_RestoresAnEditedStateExactly', async () => {
  const a = await openExplorer();
  const target = edited();
  await a.page.evaluate((s) => window.__explorer.store.set(s), target);
  // The page writes the hash shortly after a change; wait until it holds the new state.
  await a.page.waitForFunction(() => location.hash.length > 20, null, { timeout: 5000 });
  await a.page.waitForTimeout(400);
  const link = await a.page.evaluate(() => location.href);
  const shownA = await tables(a.page);
  await a.context.close();

  const b = await openExplorer(link.slice(link.indexOf('#')));
  const restored = await b.page.evaluate(() => window.__explorer.store.get());
  assert.deepEqual(restored, target);
  assert.deepEqual(await tables(b.page), shownA, 'the same numbers are on screen');
  const notice = await b.page.evaluate(() => document.querySelector('.ae-notice').hidden);
  assert.equal(notice, true, 'a good link shows no notice');
  await b.context.close();
});

test('BackAndForward_MoveBetweenLinkedStates', async () => {
  const { page, context } = await openExplorer();
  const one = { ...structuredClone(defaults), options: { ...defaults.options, causal: true } };
  const two = {
    ...structuredClone(defaults),
    options: { ...defaults.options, causal: true, temperature: 3 },
    focus: 'finance',
  };
  for (const s of [one, two]) {
    await page.evaluate(
      (h) => {
        location.hash = h;
      },
      encodeState(s, defaults),
    );
    await page.waitForTimeout(150);
  }
  const get = () => page.evaluate(() => window.__explorer.store.get());
  assert.deepEqual(await get(), two);
  await page.goBack();
  await page.waitForTimeout(150);
  assert.deepEqual(await get(), one);
  await page.goForward();
  await page.waitForTimeout(150);
  assert.deepEqual(await get(), two);
  await context.close();
});

test('HashSync_EditsMakeHistoryEntriesAndBackRestoresThem', async () => {
  const { page, context } = await openPage(browser, `${server.url}tests/e2e/pages/hash-sync.html`);
  await page.evaluate(() => window.__sync);
  const set = (patch) =>
    page.evaluate(async (p) => {
      const { store } = await window.__sync;
      store.set((s) => ({ ...s, ...p, options: { ...s.options, ...(p.options || {}) } }));
    }, patch);
  const get = () => page.evaluate(async () => (await window.__sync).store.get());
  const startLength = await page.evaluate(() => history.length);
  await set({ options: { causal: true } });
  await page.waitForTimeout(1300); // longer than the fixture's burstMs (1000)
  const afterOne = await get();
  // A drag: many changes in one burst make one history entry.
  for (let i = 1; i <= 10; i++) {
    await set({ options: { temperature: 1 + i / 10 } });
    await page.waitForTimeout(20);
  }
  await page.waitForTimeout(1300);
  const afterDrag = await get();
  assert.equal(afterDrag.options.temperature, 2);
  assert.equal(
    await page.evaluate(() => history.length),
    startLength + 2,
    'one entry for the toggle, one for the drag',
  );
  await page.goBack();
  await page.waitForTimeout(200);
  assert.deepEqual(await get(), afterOne);
  await page.goBack();
  await page.waitForTimeout(200);
  assert.deepEqual(await get(), defaults);
  assert.equal(await page.evaluate(() => location.hash), '', 'the default state has no hash');
  await page.goForward();
  await page.goForward();
  await page.waitForTimeout(200);
  assert.deepEqual(await get(), afterDrag);
  // A bad hash typed into the address bar: the notice, and the defaults for the bad part.
  await page.evaluate(() => {
    location.hash = '#1!!!';
  });
  await page.waitForTimeout(200);
  const notice = await page.evaluate(() => ({
    hidden: document.getElementById('notice').hidden,
    text: document.getElementById('notice').textContent,
  }));
  assert.equal(notice.hidden, false);
  assert.match(notice.text, /hash: not base64url text/);
  assert.deepEqual(await get(), defaults);
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// Hostile and malformed hashes.

const HOSTILE_TOKENS = ['<img src=x onerror=alert(1)>', '</script>', 'javascript:'];
const b64 = (text) => `1${Buffer.from(text).toString('base64url')}`;

function hostileTokenState() {
  const vocab = { ...defaults.vocab };
  for (const t of HOSTILE_TOKENS) vocab[t] = [0.5, 0.5, 0.5, 0.5];
  // The bad theme makes the link raise a notice; the tokens themselves are valid data.
  return {
    vocab,
    contexts: { river: ['stream', ...HOSTILE_TOKENS], finance: ['money', 'bank', 'loan'] },
    theme: '<b>neon</b>',
    focus: 'river',
  };
}

const MALFORMED = {
  'bad JSON': b64('{"example": "river", '),
  'not base64': '1@@@###',
  'wrong sizes': b64(JSON.stringify({ vocab: { a: [1, 2, 3] }, weights: { wq: [[1]] } })),
  'non-finite': b64('{"vocab": {"stream": [1e999, 0, 0, 0.3]}, "options": {"temperature": -1e999}}'),
  huge: `1${'A'.repeat(LIMITS.hashChars + 100)}`,
  'script in a field': b64(
    JSON.stringify({ example: '<script>window.__pwned=1</script>', view: ['<img src=x onerror=window.__pwned=1>'] }),
  ),
  'proto pollution': b64('{"__proto__": {"polluted": 1}, "options": {"__proto__": {"polluted": 1}}}'),
};

async function assertInert(page, where) {
  const out = await page.evaluate(() => ({
    pwned: window.__pwned,
    polluted: {}.polluted,
    imgs: document.querySelectorAll('img').length,
    scripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    tables: document.querySelectorAll('table[data-matrix]').length,
  }));
  assert.equal(out.pwned, undefined, `${where}: no handler ran`);
  assert.equal(out.polluted, undefined, `${where}: no prototype pollution`);
  assert.equal(out.imgs, 0, `${where}: no element was created from a token name`);
  assert.equal(out.scripts, 0, `${where}: no inline script was created`);
  assert.ok(out.tables > 0, `${where}: the page is not blank`);
}

test('HostileHashes_ShowTheNoticeAndTheDefaultsOnTheMainPage', async () => {
  for (const [name, hash] of Object.entries(MALFORMED)) {
    const { page, context, dialogs } = await openExplorer(`#${hash}`);
    const notice = await page.evaluate(() => {
      const n = document.querySelector('.ae-notice');
      return { hidden: n.hidden, text: n.textContent };
    });
    assert.equal(notice.hidden, false, `${name}: the notice is visible`);
    assert.match(notice.text, /link held values/, name);
    await assertInert(page, name);
    assert.deepEqual(dialogs, [], `${name}: no alert`);
    const state = await page.evaluate(() => window.__explorer.store.get());
    assert.deepEqual(state.vocab, defaults.vocab, `${name}: the default vocabulary`);
    await context.close();
  }
});

test('HostileTokenNames_RenderAsTextOnTheMainPage', async () => {
  const { page, context, dialogs } = await openExplorer(`#${encodeState(hostileTokenState())}`);
  const out = await page.evaluate(
    (tokens) => ({
      notice: document.querySelector('.ae-notice').textContent,
      labels: tokens.map((t) =>
        [...document.querySelectorAll('#app th, #app label, #app span, #app option')].some(
          (n) => n.textContent.trim() === t,
        ),
      ),
      contexts: window.__explorer.store.get().contexts.river,
    }),
    HOSTILE_TOKENS,
  );
  assert.match(out.notice, /theme/);
  assert.deepEqual(out.contexts, ['stream', ...HOSTILE_TOKENS]);
  assert.deepEqual(out.labels, [true, true, true], 'each token name is shown verbatim as text');
  await assertInert(page, 'hostile tokens');
  assert.deepEqual(dialogs, []);
  await context.close();
});

test('HostileHashes_OnTheIframeView', async () => {
  const cases = { ...MALFORMED, 'hostile tokens': encodeState(hostileTokenState()) };
  for (const [name, hash] of Object.entries(cases)) {
    const { page, context, dialogs } = await openWithDialogs();
    await page.goto(`${EMBED()}#${hash}`);
    await page.evaluate(() => window.__embed.ready);
    const notice = await page.evaluate(() => {
      const n = document.querySelector('.ae-notice');
      return { hidden: n.hidden, text: n.textContent };
    });
    assert.equal(notice.hidden, false, `${name}: the notice is visible`);
    await assertInert(page, `embed ${name}`);
    if (name === 'hostile tokens') {
      const shown = await page.evaluate(
        (tokens) => tokens.map((t) => [...document.querySelectorAll('th')].some((n) => n.textContent.trim() === t)),
        HOSTILE_TOKENS,
      );
      assert.deepEqual(shown, [true, true, true]);
    }
    assert.deepEqual(dialogs, []);
    await context.close();
  }
});

test('EmbedView_ShowsTheLinkedStateWithoutPageChrome', async () => {
  const s = edited();
  const { page, context } = await pages.open(`${EMBED()}#${encodeState(s, defaults)}`);
  await page.evaluate(() => window.__embed.ready);
  const out = await page.evaluate(() => ({
    header: document.querySelectorAll('.ae-header').length,
    controls: document.querySelectorAll('.ae-controls').length,
    notice: document.querySelector('.ae-notice').hidden,
  }));
  assert.deepEqual(out, { header: 0, controls: 0, notice: true });
  const shown = await tables(page, 'body');
  assert.deepEqual(Object.keys(shown).sort(), ['out/river', 'scores/river', 'weights/river']);
  const a = await openExplorer(`#${encodeState(s, defaults)}`);
  const onPage = await tables(a.page);
  for (const key of Object.keys(shown)) assert.deepEqual(shown[key], onPage[key], key);
  await a.context.close();
  await context.close();
});

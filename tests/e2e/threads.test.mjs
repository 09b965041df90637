// The engine on every core in the browser (issue 21): where the page is cross-origin isolated
// (COOP + COEP, as npm start serves it), the workers load the threaded engine (web/engine/
// threads.js) and use more than one thread, with results bit for bit those of one thread and of
// the single-thread engine in Node — training losses and the real model's trace, in Chromium and
// Firefox ESR; a thread count outside its range is refused naming `threads`; without the headers
// the single-thread engine loads with no error; the Learn section says how many threads it trains
// on, the engineers' setting changes it; the blog post under the strict CSP (on every file,
// workers included) trains on every core from dist/.
// Run: node --test tests/e2e/threads.test.mjs   (needs `node scripts/build.mjs` once)
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  launchBrowser,
  launchFirefox,
  openPage,
  openFirefoxPage,
  recordProblems,
  serveStatic,
  CSP,
  ensureDist,
} from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import { defaultState } from '../../web/lib/state.js';
import { encodeState } from '../../web/lib/share.js';
import { createSession } from '../../web/lib/learn/session.js';
import { defaultLearn, sessionSpec } from '../../web/lib/learn/learn-state.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HARNESS = 'tests/e2e/pages/threads.html';
const MODEL = 'web/models/brown-wordnet.safetensors';
// The text task's char model (2 layers, width 64, MLP): its linear layers are big enough to be
// split over the threads (the core runs loops below 10⁶ flops on one), so a wrong split shows.
const TASK = 'text';
const STEPS = 12;
// A sentence of the shipped model's ids, long enough that every layer's GEMMs are split.
const TOKENS = Array.from({ length: 48 }, (_, i) => (i * 7919 + 13) % 4000);

let isolated, plain, strictDist, chromium, firefox, engine, reference;

test.before(async () => {
  ensureDist();
  isolated = await serveStatic(ROOT, { isolate: true });
  plain = await serveStatic(ROOT);
  strictDist = await serveStatic(path.join(ROOT, 'dist'), { isolate: true, cspAll: true });
  engine = await loadEngine();
  // The same runs in Node, on the single-thread engine.
  const session = createSession(engine, sessionSpec(defaultLearn(TASK)));
  const losses = session.train(STEPS).map((s) => s.loss);
  const evaluation = session.evaluate();
  session.dispose();
  const model = engine.loadModel(fs.readFileSync(path.join(ROOT, MODEL)));
  const trace = model.trace(TOKENS, { residual: true, logits: 'all' });
  const digest = (t) =>
    createHash('sha256')
      .update(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))
      .digest('hex');
  reference = {
    losses,
    evaluation,
    trace: {
      logits: digest(trace.logits),
      residual: digest(trace.residual),
      weights: trace.attention.map((a) => digest(a.weights)),
    },
  };
  model.dispose();
});
test.after(async () => {
  await chromium?.close();
  await firefox?.close();
  for (const server of [isolated, plain, strictDist]) await server?.close();
});

const browserOf = {
  chromium: async () => (chromium ||= await launchBrowser()),
  firefox: async () => (firefox ||= await launchFirefox()),
};
/** The harness page in `browser` from `server`, once its worker has its engine. */
async function openHarness(browser, server) {
  const open = browser === 'chromium' ? openPage : openFirefoxPage;
  const { page, problems } = await open(await browserOf[browser](), server.url + HARNESS);
  await page.waitForFunction(() => typeof window.inWorker === 'function');
  const info = await page.evaluate(() => window.inWorker('info'));
  return { page, problems, info, ask: (op, ...args) => page.evaluate((a) => window.inWorker(...a), [op, ...args]) };
}

for (const browser of ['chromium', 'firefox']) {
  const name = browser === 'chromium' ? '' : 'Firefox_';

  test(`Threads_${name}TheWorkersEngineUsesTheCoresAndTrainsBitForBitAsOnOneThread`, async () => {
    const { page, problems, info, ask } = await openHarness(browser, isolated);
    try {
      assert.equal(info.singleThreadReason, null, `the threaded engine did not load: ${info.singleThreadReason}`);
      assert.ok(info.maxThreads > 1 && info.threads === info.maxThreads, JSON.stringify(info));
      const many = await ask('train', TASK, STEPS, info.maxThreads);
      const one = await ask('train', TASK, STEPS, 1);
      assert.equal(many.threads, info.maxThreads);
      assert.equal(one.threads, 1);
      // deepStrictEqual compares numbers with Object.is: the same float bits.
      assert.deepStrictEqual(many.losses, reference.losses);
      assert.deepStrictEqual(one.losses, reference.losses);
      assert.deepStrictEqual(many.evaluation, reference.evaluation);
      // The real model's trace: logits of every position, the residual stream, every layer's weights.
      for (const threads of [info.maxThreads, 1]) {
        const trace = await ask('trace', `/${MODEL}`, TOKENS, threads);
        assert.equal(trace.threads, threads);
        assert.deepStrictEqual(
          { logits: trace.logits, residual: trace.residual, weights: trace.weights },
          reference.trace,
          `the trace on ${threads} threads`,
        );
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`Threads_${name}WithoutTheHeadersTheSingleThreadEngineLoadsWithNoError`, async () => {
    const { page, problems, info, ask } = await openHarness(browser, plain);
    try {
      assert.equal(info.threads, 1);
      assert.equal(info.maxThreads, 1);
      assert.match(info.singleThreadReason, /not cross-origin isolated/);
      const run = await ask('train', TASK, STEPS, 1);
      assert.deepStrictEqual(run.losses, reference.losses);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test('Threads_AThreadedEngineThatCannotStartFallsBackToOneThreadAndSaysWhy', async () => {
  const { page, problems } = await openPage(await browserOf.chromium(), isolated.url + HARNESS + '?missing=worker');
  try {
    await page.waitForFunction(() => typeof window.inWorker === 'function');
    const info = await page.evaluate(() => window.inWorker('info'));
    assert.equal(info.threads, 1);
    assert.equal(info.maxThreads, 1);
    // Said at once, from the file's own fetch (not after the 20 s the workers get to start).
    assert.match(
      info.singleThreadReason,
      /^the threaded engine failed to start \(could not load \S+\/missing\.worker\.js \(HTTP 404\)\)$/,
    );
    const run = await page.evaluate(([task, steps]) => window.inWorker('train', task, steps, 1), [TASK, STEPS]);
    assert.deepStrictEqual(run.losses, reference.losses);
    // The missing file's 404 is the only problem: the worker itself did not fail.
    assert.ok(
      problems.every((p) => /missing\.worker\.js|404/.test(p)),
      problems.join('; '),
    );
  } finally {
    await page.close();
  }
});

test('Threads_ACountOutsideOneToTheCoresIsRefusedNamingThreads', async () => {
  const { page, info, ask } = await openHarness('chromium', isolated);
  try {
    for (const bad of [0, info.maxThreads + 1, 1.5, '2']) {
      const { error } = await ask('setThreads', bad);
      assert.equal(error?.name, 'AttentionError', `threads = ${JSON.stringify(bad)}`);
      assert.equal(error.argument, 'threads');
      assert.match(error.message, new RegExp(`^threads: expected an integer in \\[1, ${info.maxThreads}\\]`));
    }
    assert.deepEqual(await ask('setThreads', 1), { threads: 1 });
    // The engine answers normally after a refusal.
    assert.deepStrictEqual((await ask('train', TASK, 2, info.maxThreads)).losses, reference.losses.slice(0, 2));
  } finally {
    await page.close();
  }
});

const SECTION = 'section[data-section="learn"]';
const STATUS = `${SECTION} .ae-learn-status`;
/** The built page (dist/, as `npm start` serves it) on the text task's Learn section and the engineers' panel. */
async function openLearnPage(server) {
  const defaults = defaultState(engine.examples());
  const hash = encodeState({ ...defaults, view: ['all'], learn: defaultLearn(TASK) }, defaults);
  const { page, problems } = await openPage(await browserOf.chromium(), server.url + 'dist/index.html#' + hash, {
    viewport: { width: 1280, height: 900 },
  });
  await page.evaluate(() => window.__explorer.ready);
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${STATUS}[data-threads]`, { timeout: 60000 });
  await page.locator('section[data-section="engineers"] summary').click();
  return { page, problems };
}
const statusOf = (page) => page.$eval(STATUS, (el) => ({ text: el.textContent, threads: Number(el.dataset.threads) }));

test('Threads_LearnSaysHowManyThreadsItTrainsOnAndTheSettingChangesIt', async () => {
  const { page, problems } = await openLearnPage(isolated);
  try {
    const max = await page.evaluate(() => navigator.hardwareConcurrency);
    const expected = Math.min(max, 8);
    let status = await statusOf(page);
    assert.equal(status.threads, expected);
    assert.match(status.text, new RegExp(`training on ${expected} threads`));
    assert.equal(await page.$eval(STATUS, (el) => el.dataset.mode), 'worker');
    const options = await page.$$eval('select.ae-threads option', (os) => os.map((o) => Number(o.value)));
    assert.deepEqual(
      options,
      Array.from({ length: expected }, (_, i) => i + 1),
    );
    await page.selectOption('select.ae-threads', '1');
    await page.waitForFunction((s) => document.querySelector(s).dataset.threads === '1', STATUS);
    status = await statusOf(page);
    assert.match(status.text, /training on 1 thread$/);
    const panel = await page.$eval('.ae-threads-now', (el) => ({ ...el.dataset }));
    assert.equal(panel.learn, '1');
    await page.selectOption('select.ae-threads', String(expected));
    await page.waitForFunction(([s, n]) => document.querySelector(s).dataset.threads === n, [STATUS, String(expected)]);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('Threads_OnAPageWithoutTheHeadersLearnSaysOneThreadAndWhy', async () => {
  const { page, problems } = await openLearnPage(plain);
  try {
    const status = await statusOf(page);
    assert.equal(status.threads, 1);
    assert.match(status.text, /training on 1 thread: this page is not cross-origin isolated/);
    // Where a host learns what it needs: the README's section, named (issue 33: the link went to
    // the registry page of a package not published yet).
    assert.match(status.text, /the README’s “Threads” section says what a host needs/);
    assert.equal(await page.$$eval(`${STATUS} a`, (links) => links.length), 0, 'no link to a page that may not exist');
    assert.equal(await page.$eval('select.ae-threads', (s) => s.disabled), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('Threads_TheBlogPostUnderTheStrictCspOnEveryFileTrainsOnTheCores', async () => {
  const { page, problems } = await openPage(await browserOf.chromium(), null, {
    viewport: { width: 1280, height: 900 },
  });
  recordProblems(page, problems);
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  try {
    const response = await page.goto(strictDist.url + 'examples/blog.html');
    assert.equal(response.headers()['content-security-policy'], CSP);
    assert.equal(response.headers()['cross-origin-embedder-policy'], 'require-corp');
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    await page.locator('#fig-learn').scrollIntoViewIfNeeded();
    const expected = Math.min(await page.evaluate(() => navigator.hardwareConcurrency), 8);
    await page.waitForFunction(
      (n) => {
        const status = document.querySelector('#fig-learn').shadowRoot?.querySelector('.ae-learn-status');
        return status?.dataset.threads === String(n) && Number(status.dataset.reportStep) > 0;
      },
      expected,
      { timeout: 60000 },
    );
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

// Browser benchmark: how the page feels, measured in Debian's Chromium (headless, this machine).
// Recorded, never asserted (a loaded 2-core machine moves these numbers; tests must not flake).
//
//   node bench/browser.mjs            every scenario; writes bench/results/browser-<date>.md
//   node bench/browser.mjs --runs 5   repetitions per scenario (default 3)
//
// Scenarios:
//   drag-temperature  a drag of the temperature slider on the bank example: per input event, the
//                     update (engine + DOM + style and layout, run as the next frame would run it)
//                     and the interval to the next animation frame
//   drag-cell         scrubbing a W_K cell sideways (the same measures)
//   train-<task>-<where>  the Learn section training a task in its worker, or in time slices on
//                     the page (no Worker): the interval between animation frames over 3 s of
//                     training, and the steps per second it trained meanwhile
// Numbers: mean, p95 and max over every event of every run, in ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage } from '../tests/e2e/helpers.mjs';
import { stats, fmt, FRAMES_WHILE_TRAINING } from './browser_frames.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const RUNS = Number(argv[argv.indexOf('--runs') + 1]) || 3;

async function open(browser, server) {
  const o = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  await o.page.goto(server.url);
  await o.page.evaluate(() => window.__explorer.ready);
  return o;
}

// Runs `events` synthetic input events through `apply(k)` in the page and measures each.
const MEASURE = async ({ selector, events, kind }) => {
  const { explorer } = window.__explorer;
  const el = document.querySelector(selector);
  el.scrollIntoView({ block: 'center' });
  const update = [];
  const frame = [];
  el.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, pointerId: 1, clientX: 10, clientY: 10 }));
  for (let k = 0; k < events; k++) {
    const t0 = performance.now();
    if (kind === 'slider') {
      el.value = String(0.5 + (k % 40) * 0.05);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    } else {
      el.dispatchEvent(
        new PointerEvent('pointermove', { bubbles: true, pointerId: 1, clientX: 10 + 2 * (k % 40), clientY: 10 }),
      );
    }
    explorer.flush();
    void document.body.offsetHeight;
    update.push(performance.now() - t0);
    const f0 = performance.now();
    await new Promise((r) => requestAnimationFrame(() => r()));
    frame.push(performance.now() - f0);
  }
  el.dispatchEvent(new PointerEvent('pointerup', { bubbles: true, pointerId: 1 }));
  return { update, frame };
};

const SCENARIOS = {
  'drag-temperature': { selector: 'input.ae-temperature', events: 120, kind: 'slider' },
  'drag-cell': {
    selector: 'section[data-section="pipeline"] table[data-matrix="wk"] td.ae-cell',
    events: 120,
    kind: 'cell',
  },
};

const server = await serveStatic(path.join(ROOT, 'web'));
const browser = await launchBrowser();
const rows = [];
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  const update = [];
  const frame = [];
  for (let run = 0; run < RUNS; run++) {
    const { page, context } = await open(browser, server);
    await page.waitForSelector(scenario.selector, { state: 'attached' });
    const r = await page.evaluate(MEASURE, scenario);
    update.push(...r.update);
    frame.push(...r.frame);
    await context.close();
  }
  rows.push({ name, update: stats(update), frame: stats(frame) });
  console.log(`${name}: update ${fmt(stats(update))} ms; frame interval ${fmt(stats(frame))} ms (mean / p95 / max)`);
}

// Training: frame intervals while the Learn section trains, and steps per second.
const { defaultState } = await import('../web/lib/state.js');
const { encodeState } = await import('../web/lib/share.js');
const { defaultLearn } = await import('../web/lib/learn/learn-state.js');
const { loadEngine } = await import('../web/engine/engine.js');
const defaults = defaultState((await loadEngine()).examples());
const training = [];
for (const task of ['reverse', 'sort', 'text']) {
  for (const where of ['worker', 'page']) {
    const frame = [];
    const rates = [];
    let mode = '';
    for (let run = 0; run < RUNS; run++) {
      const o = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
      if (where === 'page') await o.page.addInitScript(() => delete window.Worker);
      const hash = encodeState(
        { ...defaults, view: ['learn'], learn: { ...defaultLearn(task), until: 20000, autoplay: true } },
        defaults,
      );
      await o.page.goto(`${server.url}#${hash}`);
      await o.page.evaluate(() => window.__explorer.ready);
      await o.page.locator('section[data-section="learn"]').scrollIntoViewIfNeeded();
      await o.page.waitForFunction(
        () => Number(document.querySelector('section[data-section="learn"] .ae-learn-status')?.dataset.step) > 20,
        null,
        { timeout: 60000 },
      );
      const r = await o.page.evaluate(FRAMES_WHILE_TRAINING);
      frame.push(...r.frame);
      rates.push(r.stepsPerSecond);
      mode = r.mode;
      await o.context.close();
    }
    const row = {
      name: `train-${task}-${where}`,
      mode,
      frame: stats(frame),
      stepsPerSecond: rates.reduce((a, b) => a + b, 0) / rates.length,
    };
    training.push(row);
    console.log(
      `${row.name} (${mode}): frame interval ${fmt(row.frame)} ms (mean / p95 / max); ${row.stepsPerSecond.toFixed(0)} steps/s`,
    );
  }
}
await browser.close();
await server.close();

const date = new Date().toISOString().slice(0, 10);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const out = [
  `# Browser benchmark — ${date}`,
  '',
  `Chromium (Debian, headless) on ${os.cpus()[0].model}, ${os.cpus().length} logical cores (load average ${load} at the end). ${RUNS} runs per scenario. \`node bench/browser.mjs\`.`,
  '',
  '| scenario | events | update mean / p95 / max (ms) | frame interval mean / p95 / max (ms) |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.update.n} | ${fmt(r.update)} | ${fmt(r.frame)} |`),
  '',
  "While the Learn section trains (3 s per run, the task's own model; `page` = no Worker, 10 ms slices):",
  '',
  '| scenario | trained in | frame interval mean / p95 / max (ms) | steps/s |',
  '|---|---|---|---|',
  ...training.map((r) => `| ${r.name} | ${r.mode} | ${fmt(r.frame)} | ${r.stepsPerSecond.toFixed(0)} |`),
  '',
];
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, `bench/results/browser-${date}.md`), out.join('\n'));
console.log(`wrote bench/results/browser-${date}.md`);

// Learn's default pace in the browser: for each task, the seconds from pressing Train (the
// default "watch" pace) to the status line's "the pattern formed at step N", in Debian's Chromium
// (headless, the training worker). The task's pace (lib/learn/settings.js) was chosen so the
// pattern forms 10–20 s in; this measures it where a reader sees it. Recorded, never asserted
// (a loaded machine trains slower than the pace, and then the pattern comes later).
//
//   node bench/learn_pace.mjs            every task once; writes bench/results/learn-pace-<date>.md
//   node bench/learn_pace.mjs reverse    one task
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage } from '../tests/e2e/helpers.mjs';
import { loadEngine } from '../web/engine/engine.js';
import { defaultState } from '../web/lib/state.js';
import { encodeState } from '../web/lib/share.js';
import { defaultLearn } from '../web/lib/learn/learn-state.js';
import { TASK_SETTINGS } from '../web/lib/learn/settings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECTION = 'section[data-section="learn"]';
const tasks = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(TASK_SETTINGS);

const defaults = defaultState((await loadEngine()).examples());
const server = await serveStatic(path.join(ROOT, 'web'));
const browser = await launchBrowser();
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const rows = [];
const loadBefore = load();
for (const task of tasks) {
  const { page, context } = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  await page.goto(
    `${server.url}#${encodeState({ ...defaults, view: ['learn'], learn: defaultLearn(task) }, defaults)}`,
  );
  await page.evaluate(() => window.__explorer.ready);
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${SECTION} .ae-learn-status[data-report-step]`, { timeout: 60000 });
  await page.click(`${SECTION} .ae-learn-train`);
  const t0 = Date.now();
  await page.waitForFunction((s) => document.querySelector(`${s} .ae-learn-status`).dataset.formedAt !== '', SECTION, {
    timeout: 300000,
    polling: 50,
  });
  const seconds = (Date.now() - t0) / 1000;
  const step = Number(await page.$eval(`${SECTION} .ae-learn-status`, (el) => el.dataset.formedAt));
  const pace = TASK_SETTINGS[task].watch.stepsPerSecond;
  rows.push({ task, pace, step, planned: step / pace, seconds });
  console.log(
    `${task}: formed at step ${step} after ${seconds.toFixed(1)} s (${pace} steps/s: ${(step / pace).toFixed(1)} s planned)`,
  );
  await context.close();
}
await browser.close();
await server.close();

const date = new Date().toISOString().slice(0, 10);
const cpu = os.cpus();
const md = [
  `# Learn's default pace in the browser — ${date}`,
  '',
  `Chromium (Debian, headless) on ${cpu[0]?.model}, ${cpu.length} logical cores (load average ${loadBefore} at the start, ${load()} at the end). Command: \`node bench/learn_pace.mjs${process.argv
    .slice(2)
    .map((a) => ` ${a}`)
    .join('')}\`. One run per task, the training worker, the page at 1280 × 900.`,
  '',
  '| task | pace (steps/s) | the pattern formed at step | planned (step / pace) | measured, Train → "formed" |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.task} | ${r.pace} | ${r.step} | ${r.planned.toFixed(1)} s | ${r.seconds.toFixed(1)} s |`),
  '',
].join('\n');
fs.writeFileSync(path.join(ROOT, 'bench', 'results', `learn-pace-${date}.md`), md);
console.log(md);

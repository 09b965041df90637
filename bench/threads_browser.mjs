// The thread benchmark of issue 21 in the browser: Debian's Chromium (headless) on a page served
// cross-origin isolated (COOP + COEP, as npm start serves it), the threaded engine in a Worker as
// the Learn and model workers load it. Recorded, never asserted.
//
//   node bench/threads_browser.mjs [--rounds 10] [--threads 2] [--runs 3]
//   node bench/threads_browser.mjs --quick    a short run that checks the script works (small
//                                             shapes, 2 rounds, 1 run); prints, writes nothing
//
// Kernels (bench/threads_browser_worker.js; the workloads of bench/native_threads.cpp): the char
// model's training step, a GPT-2-small-shaped forward of 64 tokens (4 layers: every layer is the
// same work), causal attention at T = 1024 (H 8, hs 64, the tiled kernel): each on the
// single-thread build, the threaded build on 1 thread and on --threads threads, in rounds whose
// order rotates (load from other jobs hits all three alike); wall time median [p10–p90], the
// speed-up (1 thread / n threads) and the threaded build's cost on one thread (its 1 thread /
// the single-thread build), both as the median [p10–p90] of per-round ratios.
// Frames: while the Learn section trains the char model (the text task) in its worker, the
// interval between animation frames over 3 s and the steps per second (as bench/browser.mjs
// records them), with the single-thread build (the page served without the headers), and the
// threaded build on 1 and on n threads (the engineers' setting).
//
// Writes bench/results/threads-browser-<date>.md, with the load average at the start and the
// end: on a loaded machine the numbers say how the script runs, not what threads gain.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage } from '../tests/e2e/helpers.mjs';
import { stats, fmt, FRAMES_WHILE_TRAINING } from './browser_frames.mjs';
import { fmtMs, busyShare } from './report.mjs';
import { loadEngine } from '../web/engine/engine.js';
import { defaultState } from '../web/lib/state.js';
import { encodeState } from '../web/lib/share.js';
import { defaultLearn } from '../web/lib/learn/learn-state.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const QUICK = argv.includes('--quick');
const ROUNDS = QUICK ? 2 : option('--rounds', 10);
const THREADS = option('--threads', 2);
const RUNS = QUICK ? 1 : option('--runs', 3);
// Goals of issue 21 for the 2-thread speed-up (bench/threads.mjs has the native ones).
const GOALS = { 'char-step': 1.7, 'gpt2-forward': 1.7, attention: 1.7 };

if (!fs.existsSync(path.join(ROOT, 'web/engine/attention_engine_threads.wasm'))) {
  console.error('threads_browser: web/engine/attention_engine_threads.wasm is missing: run node scripts/build.mjs');
  process.exit(1);
}
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const loadStart = load();
// Other jobs' share of the CPU before this run adds its own (3 s of /proc/stat).
const busyStart = await busyShare();
const log = (s) => process.stderr.write(s + '\n');

const isolated = await serveStatic(ROOT, { isolate: true });
const plain = await serveStatic(ROOT);
const browser = await launchBrowser();

// --- kernels, in a worker of an isolated page ------------------------------------------------
const kernels = await (async () => {
  const { page, context, problems } = await openPage(browser, isolated.url + 'bench/threads_browser.html');
  try {
    const result = await page.evaluate(
      (options) =>
        new Promise((resolve, reject) => {
          const worker = new Worker('/bench/threads_browser_worker.js', { type: 'module' });
          worker.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data.result));
          worker.onerror = (event) => reject(new Error(`the benchmark worker failed: ${event.message}`));
          worker.postMessage({ id: 1, options });
        }),
      { rounds: ROUNDS, threads: THREADS, quick: QUICK },
    );
    if (problems.length) throw new Error(problems.join('; '));
    return result;
  } finally {
    await context.close();
  }
})();
for (const w of kernels.workloads)
  log(
    `${w.name}: single ${fmtMs(w.single.median)} ms, threaded 1 ${fmtMs(w.one.median)} ms, ${THREADS} ${fmtMs(w.many.median)} ms; speed-up ${w.speedup.median.toFixed(2)}× (load ${load()})`,
  );

// --- frames while Learn trains the char model -------------------------------------------------
const defaults = defaultState((await loadEngine()).examples());
const hash = encodeState(
  { ...defaults, view: ['all'], learn: { ...defaultLearn('text'), until: 20000, autoplay: true } },
  defaults,
);
const STATUS = 'section[data-section="learn"] .ae-learn-status';
async function framesWhileTraining(server, threads) {
  const frame = [];
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    const o = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
    try {
      await o.page.goto(`${server.url}web/#${hash}`);
      await o.page.evaluate(() => window.__explorer.ready);
      if (server === isolated) {
        // The engineers' setting, then back to the Learn section.
        await o.page.locator('section[data-section="engineers"] summary').click();
        await o.page.selectOption('select.ae-threads', String(threads));
      }
      await o.page.locator('section[data-section="learn"]').scrollIntoViewIfNeeded();
      await o.page.waitForFunction(
        ([s, n]) => {
          const d = document.querySelector(s)?.dataset;
          return d && Number(d.step) > 20 && d.threads === String(n);
        },
        [STATUS, threads],
        { timeout: 120000 },
      );
      const r = await o.page.evaluate(FRAMES_WHILE_TRAINING);
      if (r.threads !== threads) throw new Error(`Learn trained on ${r.threads} threads, not ${threads}`);
      frame.push(...r.frame);
      rates.push(r.stepsPerSecond);
    } finally {
      await o.context.close();
    }
  }
  return { frame: stats(frame), stepsPerSecond: rates.reduce((a, b) => a + b, 0) / rates.length };
}
const frames = [
  { name: 'single-thread build (no COOP/COEP)', threads: 1, ...(await framesWhileTraining(plain, 1)) },
  { name: 'threaded build, 1 thread', threads: 1, ...(await framesWhileTraining(isolated, 1)) },
  { name: `threaded build, ${THREADS} threads`, threads: THREADS, ...(await framesWhileTraining(isolated, THREADS)) },
];
for (const f of frames)
  log(`${f.name}: frame interval ${fmt(f.frame)} ms (mean / p95 / max); ${f.stepsPerSecond.toFixed(0)} steps/s`);

await browser.close();
await isolated.close();
await plain.close();

// --- report --------------------------------------------------------------------------------
const date = new Date().toISOString().slice(0, 10);
const loadEnd = load();
const cores = os.cpus().length;
// Loaded: other jobs took more than a quarter of the CPU just before the run (the load average
// lags by minutes and still counts a benchmark that just ended; it judges where /proc is missing).
const loaded = busyStart === null ? Number(loadStart.split(' ')[0]) > 0.5 * cores : busyStart > 0.25;
const busyText = busyStart === null ? '' : `, other jobs ${(busyStart * 100).toFixed(0)}% of the CPU just before`;
const cell = (s) => `${fmtMs(s.median)} [${fmtMs(s.p10)}–${fmtMs(s.p90)}]`;
const ratio = (s) => `${s.median.toFixed(2)}× [${s.p10.toFixed(2)}–${s.p90.toFixed(2)}]`;
const lines = [
  `# Threads in the browser — ${date}`,
  '',
  `Chromium (Debian, headless) on ${os.cpus()[0]?.model ?? 'an unknown CPU'}, ${cores} logical cores (load average ${loadStart} at the start${busyText}, ${loadEnd} at the end). Command: \`node bench/threads_browser.mjs${QUICK ? ' --quick' : ` --rounds ${ROUNDS} --threads ${THREADS} --runs ${RUNS}`}\`.`,
  '',
  ...(loaded || QUICK
    ? [
        `**${QUICK ? 'A quick run' : 'The machine was loaded'}: these numbers show that the script runs, not what threads gain; measure again on a quiet machine.**`,
        '',
      ]
    : []),
  `Kernels in a Worker of a cross-origin isolated page (${ROUNDS} rounds after 2 warm-ups; wall time ms, median [p10–p90]; ratios per round):`,
  '',
  `| workload | single-thread build | threaded, 1 thread | threaded, ${THREADS} threads | speed-up | goal | threaded 1 / single |`,
  '|---|---|---|---|---|---|---|',
  ...kernels.workloads.map(
    (w) =>
      `| ${w.name}: ${w.what} | ${cell(w.single)} | ${cell(w.one)} | ${cell(w.many)} | ${ratio(w.speedup)} | ${GOALS[w.name] ? `≥ ${GOALS[w.name]}×${QUICK || loaded ? '' : w.speedup.median >= GOALS[w.name] ? ' (met)' : ' (not met)'}` : '—'} | ${ratio(w.overhead)} |`,
  ),
  '',
  `While the Learn section trains the char model in its worker (${RUNS} run(s) of 3 s each):`,
  '',
  '| engine | frame interval mean / p95 / max (ms) | steps/s |',
  '|---|---|---|',
  ...frames.map((f) => `| ${f.name} | ${fmt(f.frame)} | ${f.stepsPerSecond.toFixed(0)} |`),
  '',
];
const markdown = lines.join('\n');
process.stdout.write(markdown + '\n');
if (!QUICK) {
  const file = path.join(ROOT, `bench/results/threads-browser-${date}.md`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, markdown + '\n');
  log(`wrote ${path.relative(ROOT, file)}`);
}

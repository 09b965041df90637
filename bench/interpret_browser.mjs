// The interpretability tools in the browser (issue 32): Debian's Chromium (headless), a page served
// cross-origin isolated as npm start serves it, the threaded engine in a Worker as the model
// worker loads it. The sweep (one block; the whole picture block by block, as the page fills it),
// one head knocked out, direct logit attribution and the logit lens, on GPT-2 small's shapes and
// on the shipped model, at T = 16, on 1 and 2 threads. Recorded, never asserted.
//
//   node bench/interpret_browser.mjs [--rounds 3] [--threads 2] [--tokens 16]
//   node bench/interpret_browser.mjs --quick    GPT-2 shapes with 2 layers, 1 round: checks the script
//
// Writes bench/results/interpret-browser-<date>.md with the load average at the start and the end:
// on a loaded machine the numbers say how the script runs, not the tools' speed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage } from '../tests/e2e/helpers.mjs';
import { fmtMs } from './report.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const QUICK = argv.includes('--quick');
const ROUNDS = QUICK ? 1 : option('--rounds', 3);
const THREADS = option('--threads', 2);
const TOKENS = option('--tokens', 16);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const loadStart = load();
const log = (s) => process.stderr.write(s + '\n');

const server = await serveStatic(ROOT, { isolate: true });
const browser = await launchBrowser();
const { page, context, problems } = await openPage(browser, server.url + 'bench/threads_browser.html');
const result = await page.evaluate(
  (options) =>
    new Promise((resolve, reject) => {
      const worker = new Worker('/bench/interpret_browser_worker.js', { type: 'module' });
      worker.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data.result));
      worker.onerror = (event) => reject(new Error(`the benchmark worker failed: ${event.message}`));
      worker.postMessage({ id: 1, options });
    }),
  { rounds: ROUNDS, threads: THREADS, quick: QUICK, T: TOKENS },
);
if (problems.length) throw new Error(problems.join('; '));
const version = browser.version();
await context.close();
await browser.close();
await server.close();

const lines = [];
const cell = (t) => (t ? `${fmtMs(t.median)} ms (${fmtMs(t.min)}–${fmtMs(t.max)})` : '—');
lines.push(
  `| model | case | ${result.counts.map((c) => `${c} thread${c > 1 ? 's' : ''}: median (min–max)`).join(' | ')} |`,
);
lines.push(`|---|---|${result.counts.map(() => '---').join('|')}|`);
for (const r of result.results) {
  lines.push(`| ${r.model} | ${r.case} | ${result.counts.map((c) => cell(r.times[c])).join(' | ')} |`);
  log(`${r.model}: ${r.case}: ${result.counts.map((c) => `${c}t ${cell(r.times[c])}`).join(', ')}`);
}
const models = [...new Map(result.results.map((r) => [r.model, r.what])).entries()].map(([m, w]) => `- ${m}: ${w}`);
const date = new Date().toISOString().slice(0, 10);
const report = `# The interpretability tools in the browser — ${date}

Chromium ${version} (headless, Debian's), a cross-origin isolated page, the threaded engine in a
Worker (threads: 'auto', at most ${result.maxThreads} here${result.singleThreadReason ? `: ${result.singleThreadReason}` : ''}).
Command: \`node bench/interpret_browser.mjs${argv.length ? ' ' + argv.join(' ') : ''}\` (bench/interpret_browser_worker.js).
${TOKENS} random tokens, the prediction at the last position (every row runs), zero ablation,
${ROUNDS} round(s), the thread counts' order alternating. Load average ${loadStart} at the start,
${load()} at the end (2 logical cores shared with other jobs).

${models.join('\n')}

${lines.join('\n')}
`;
if (QUICK) console.log(report);
else {
  const file = path.join(ROOT, 'bench/results', `interpret-browser-${date}.md`);
  fs.writeFileSync(file, report);
  log(`wrote ${path.relative(ROOT, file)}`);
}

// Blog benchmark: how soon a blogger's figures show their numbers (issue 18's goal: 2 s), in
// Debian's Chromium, dist/examples/blog.html under the strict CSP. Recorded, never asserted.
//
//   node bench/blog.mjs            3 runs; writes bench/results/blog-<date>.md
//   node bench/blog.mjs --runs 5
//
// Per run: the first figure's numbers counted from the start of navigation, then each figure
// scrolled to in turn and timed from the scroll to its first number on screen (the selectors of
// tests/e2e/blog.test.mjs). Reported: the median and the worst over the runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, serveStatic, openPage, CSP } from '../tests/e2e/helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const RUNS = Number(argv[argv.indexOf('--runs') + 1]) || 3;
const NUMBERS =
  'td.ae-cell[data-value], td[data-cos][data-value], .ae-learn-status[data-step], .ae-plane-arrow, math mn, .ae-scaling-table td';

const server = await serveStatic(path.join(ROOT, 'dist'), { csp: CSP });
const browser = await launchBrowser();
const first = [];
const figures = new Map();
for (let run = 0; run < RUNS; run++) {
  const { page, context } = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  await page.goto(server.url + 'examples/blog.html');
  first.push(
    await page.evaluate(async (selector) => {
      const el = document.querySelector('main attention-explorer');
      while (![...(el.shadowRoot?.querySelectorAll(selector) ?? [])].some((x) => x.getClientRects().length > 0))
        await new Promise((r) => setTimeout(r, 16));
      return performance.now();
    }, NUMBERS),
  );
  const ids = await page.evaluate(() =>
    [...document.querySelectorAll('main attention-explorer, main iframe')].map(
      (el) => el.id || `fig-${el.getAttribute('example')}`,
    ),
  );
  for (const [n, id] of ids.entries()) {
    const ms = await page.evaluate(
      async ([index, selector]) => {
        const el = [...document.querySelectorAll('main attention-explorer, main iframe')][index];
        const t0 = performance.now();
        el.scrollIntoView({ block: 'start' });
        const root = () => (el.localName === 'iframe' ? el.contentDocument : el.shadowRoot);
        while (![...(root()?.querySelectorAll(selector) ?? [])].some((x) => x.getClientRects().length > 0)) {
          if (performance.now() - t0 > 30000) return Infinity;
          await new Promise((r) => setTimeout(r, 16));
        }
        return performance.now() - t0;
      },
      [n, NUMBERS],
    );
    if (!figures.has(id)) figures.set(id, []);
    figures.get(id).push(ms);
  }
  await context.close();
}
await browser.close();
await server.close();

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worst = (xs) => Math.max(...xs);
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)}` : 'never');
const date = new Date().toISOString().slice(0, 10);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const slow = [...figures].filter(([, xs]) => worst(xs) > 2000).map(([id]) => id);
const out = [
  `# Blog figures: time to their numbers — ${date}`,
  '',
  `Chromium (Debian, headless) on ${os.cpus()[0].model}, ${os.cpus().length} logical cores (load average ${load} at the end). ${RUNS} runs. \`node bench/blog.mjs\`.`,
  '',
  `First figure after navigation: median ${ms(median(first))} ms, worst ${ms(worst(first))} ms (goal 2,000 ms).`,
  '',
  '| figure | median (ms) | worst (ms) |',
  '|---|---|---|',
  ...[...figures].map(([id, xs]) => `| ${id} | ${ms(median(xs))} | ${ms(worst(xs))} |`),
  '',
  slow.length ? `Over 2,000 ms in some run: ${slow.join(', ')}.` : 'Every figure within 2,000 ms in every run.',
  '',
];
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, `bench/results/blog-${date}.md`), out.join('\n'));
console.log(out.join('\n'));

// Storing a GPT-2-small-shaped checkpoint (bench/gpt2_checkpoint.mjs: 548 MB, random weights, in
// gpt2's own layout) from the Hugging Face stand-in (tests/helpers/hf-standin.mjs: the Hub and its
// CDN on two local ports) into the origin private file system with web/lib/hub, in a browser with
// a profile on disk, as a reader's would be; then a second visit (a reload) opening it from the
// store, the engine opening the kept Blob, and the page itself (dist/, as a reader opens it): a
// click on GPT-2 small's button to its heads drawn, the model already kept. Recorded, never asserted. The real Hugging Face is
// not reachable here: this measures our code and the browser's storage over loopback, not a
// download over the internet.
//
//   node bench/hub_download.mjs [chromium] [firefox] [--out NAME]     both by default;
//   writes bench/results/hub-download-<date>.md (or NAME there)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, CSP, launchFirefox, serveStatic } from '../tests/e2e/helpers.mjs';
import { gpt2SmallShapedFiles, startHfStandin } from '../tests/helpers/hf-standin.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO = 'openai-community/gpt2';
const which = process.argv.slice(2).filter((a) => a === 'chromium' || a === 'firefox');
const browsers = which.length ? which : ['chromium', 'firefox'];
const MB = (b) => (b / 1e6).toFixed(1);

const files = gpt2SmallShapedFiles();
const hub = await startHfStandin();
hub.addRepo(REPO, { files });
const size = fs.statSync(files['model.safetensors'].path).size + files['config.json'].length;
const server = await serveStatic(root, {
  csp: `${CSP}; connect-src 'self' ${hub.endpoint} ${hub.cdnOrigin}`,
  isolate: true,
});
const url = server.url + 'tests/e2e/pages/hub.html';
// The built page as a host serves it, on the same origin (so it sees the kept model), its CSP's
// connect-src naming the stand-in (as a host using a mirror names the mirror's): build-bench/page/.
const pageDir = path.join(root, 'build-bench', 'page');
fs.rmSync(pageDir, { recursive: true, force: true });
fs.mkdirSync(pageDir, { recursive: true });
const dist = path.join(root, 'dist');
for (const name of fs.readdirSync(dist))
  if (name !== 'index.html') fs.symlinkSync(path.join(dist, name), path.join(pageDir, name));
fs.writeFileSync(
  path.join(pageDir, 'index.html'),
  fs
    .readFileSync(path.join(dist, 'index.html'), 'utf8')
    .replace(
      "connect-src 'self' https://huggingface.co https://*.hf.co",
      `connect-src 'self' ${hub.endpoint} ${hub.cdnOrigin}`,
    ),
);
const pageUrl = `${server.url}build-bench/page/index.html?hf-endpoint=${encodeURIComponent(hub.endpoint)}`;
const SECTION = 'section[data-section="gpt"]';

// In the page: one download (timed), then (after a reload) the second visit and the engine's open.
const DOWNLOAD = async ({ endpoint, repo }) => {
  const t0 = performance.now();
  const r = await window.hubTest.download({ endpoint, repo, options: { progressEveryMs: 250 }, hash: false });
  const ms = performance.now() - t0;
  const speeds = r.states.filter((s) => s.bytesPerSecond > 0).map((s) => s.bytesPerSecond);
  return {
    ok: r.ok,
    error: r.error,
    ms,
    fetched: r.result?.fetched,
    fromStore: r.result?.fromStore,
    kind: r.store.kind,
    states: r.states.length,
    lastSpeed: speeds.at(-1) ?? null,
  };
};
const OPEN = async ({ endpoint, repo }) => {
  const t0 = performance.now();
  const opened = await window.hubTest.openKept({ endpoint, repo });
  return { ms: performance.now() - t0, opened };
};

async function measure(name) {
  let page, close;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), `ae-hub-${name}-`));
  if (name === 'chromium') {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await context.newPage();
    close = () => context.close();
  } else {
    const browser = await launchFirefox({ userDataDir: profile });
    page = (await browser.pages())[0] ?? (await browser.newPage());
    close = () => browser.close();
  }
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.hubReady === true);
    const args = { endpoint: hub.endpoint, repo: REPO };
    hub.resetCounts();
    const first = await page.evaluate(DOWNLOAD, args);
    if (!first.ok) throw new Error(`${name}: ${first.error.message}`);
    const served = hub.bytesServed;
    await page.reload();
    await page.waitForFunction(() => window.hubReady === true);
    hub.resetCounts();
    const second = await page.evaluate(DOWNLOAD, args);
    const secondServed = hub.bytesServed;
    const secondRequests = hub.requests.length;
    const open = await page.evaluate(OPEN, args);
    // The page: GPT-2 small's button (the model kept) to every head of it drawn (12 × 12 tiles).
    await page.goto(pageUrl);
    await page.evaluate(() => window.__explorer.ready);
    await page.evaluate((sel) => document.querySelector(sel).scrollIntoView(), SECTION);
    // (playwright's waitForFunction takes (fn, arg, options), puppeteer's (fn, options, arg))
    const drawn = (sel) => document.querySelectorAll(`${sel} .ae-gpt-tile`).length > 0;
    if (name === 'firefox') await page.waitForFunction(drawn, { timeout: 60000 }, SECTION);
    else await page.waitForFunction(drawn, SECTION, { timeout: 60000 });
    const clickToPicture = await page.evaluate(
      (sel) =>
        new Promise((resolve) => {
          const t0 = performance.now();
          document.querySelector(`${sel} .ae-gpt-preset[data-preset="gpt2"]`).click();
          const check = () => {
            const about = document.querySelector(`${sel} .ae-gpt-about`)?.textContent ?? '';
            const tiles = document.querySelectorAll(`${sel} .ae-gpt-tile`).length;
            if (/openai-community\/gpt2/.test(about) && tiles === 144) resolve({ ms: performance.now() - t0, about });
            else if (performance.now() - t0 > 180000) {
              const shown = (q) =>
                [...document.querySelectorAll(`${sel} ${q}`)].map((e) => e.textContent.trim()).join(' | ');
              resolve({
                error: `no picture after 180 s: ${tiles} tiles; ${about}; ${shown('.ae-notice, .ae-gpt-hub-error, .ae-gpt-consent, .ae-gpt-progress')}`,
              });
            } else setTimeout(check, 20);
          };
          check();
        }),
      SECTION,
    );
    if (clickToPicture.error) throw new Error(`${name}: ${clickToPicture.error}`);
    const estimate = await page.evaluate(() => navigator.storage.estimate());
    await page.goto(url);
    await page.waitForFunction(() => window.hubReady === true);
    await page.evaluate(() => window.hubTest.remove(null));
    return { name, first, served, second, secondServed, secondRequests, open, clickToPicture, usage: estimate.usage };
  } finally {
    await close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

const rows = [];
for (const name of browsers) {
  const r = await measure(name);
  console.log(JSON.stringify(r));
  rows.push(r);
}
await server.close();
await hub.close();

const date = new Date().toISOString().slice(0, 10);
const load = os.loadavg()[0].toFixed(1);
const lines = [
  `# Storing a GPT-2-small-shaped checkpoint from the Hugging Face stand-in — ${date}`,
  '',
  `Files: config.json and model.safetensors (bench/gpt2_checkpoint.mjs, F32, random weights), ${MB(size)} MB, served by tests/helpers/hf-standin.mjs over loopback (the resolve URL's 302 to a second port, as the Hub's CDN). No tokenizer file in the repository (tokenizer.json and vocab.json answer 404). The page: tests/e2e/pages/hub.html under the strict CSP, cross-origin isolated. The browser has a profile on disk (a fresh temporary one), so the origin private file system is on disk as a reader's is. Machine: ${os.cpus()[0].model}, ${os.cpus().length} cores, shared with other jobs (load average ${load} when this ended). The real Hugging Face was not reached: these are our code's and the browser's storage's numbers over loopback, not a download's over the internet.`,
  '',
  '| browser | store | first visit: stored in (s) | bytes fetched (page) | bytes served (stand-in) | MB/s | second visit: ready in (ms) | bytes served | requests | engine opens the kept file (s) | the page: click → every head drawn (s) |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.first.kind} | ${(r.first.ms / 1000).toFixed(1)} | ${r.first.fetched.toLocaleString('en-US')} | ${r.served.toLocaleString('en-US')} | ${(r.first.fetched / 1e6 / (r.first.ms / 1000)).toFixed(0)} | ${r.second.ms.toFixed(0)} | ${r.secondServed} | ${r.secondRequests} | ${(r.open.ms / 1000).toFixed(1)} | ${(r.clickToPicture.ms / 1000).toFixed(1)} |`,
  ),
  '',
  'Bytes served include the redirects\' short bodies and the 404 answers. "Stored in" and "ready in" are the controller\'s start() to its stored state (the second time reading the kept manifest and files, no request). The engine opens the kept Blob slice by slice (engine.openModel, its default 8 MiB slices) and runs a 3-token trace. "Click → every head drawn": dist/index.html (the page as a host serves it, on the same origin), GPT-2 small\'s button clicked with the model kept, until the section names the model and draws its 144 heads on the default sentence (opened from the store in the model worker, traced, drawn).',
  '',
];
const named = process.argv.indexOf('--out');
const out = path.join(root, 'bench', 'results', named > 0 ? process.argv[named + 1] : `hub-download-${date}.md`);
fs.writeFileSync(out, lines.join('\n'));
console.log(`wrote ${path.relative(root, out)}`);

// Peak memory of opening a GPT-2-shaped checkpoint (bench/gpt2_checkpoint.mjs: small, 548 MB as
// F32, 50 MB of it attn.bias buffers that are skipped; medium, 1.52 GB) with engine.openModel,
// its weights kept as F32, F16 or BF16 (openModel's `weights`), and running one trace over 64 tokens
// with every attention captured — in Node, in Debian's Chromium and in Firefox ESR; then the
// forward of a 16-token sentence (the logits of its last row, nothing captured; median of 5, one
// thread). Recorded, never asserted.
//
//   node bench/gpt2_memory.mjs              Node, Chromium, Firefox; writes bench/results/gpt2-memory-<weights>-<date>.md
//   node bench/gpt2_memory.mjs --no-browsers
//   options: --sizes small,medium  --weights f32,f16,bf16  --files f32,f16  --sources url,file
//            --browsers chromium,firefox  --no-node
//
// Measured: the engine's WebAssembly memory after the trace (engine.heapBytes(): it only grows,
// so it is its peak), and the peak resident set size (RSS) of the process doing it, sampled every
// 20 ms: in Node the process itself (a fresh child per case; resourceUsage().maxRSS too), in a
// browser the tab's process (Chromium's renderer, Firefox's content process; the largest one of
// the browser's processes), before opening (engine loaded) and at its peak.
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, mkdirSync, openAsBlob, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ensureCheckpoint } from './gpt2_checkpoint.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const argv = process.argv.slice(2);
const MB = (bytes) => (bytes / 1e6).toFixed(0);
const TOKENS = Array.from({ length: 64 }, (_, i) => (i * 7919 + 13) % 50257);
const SENTENCE = TOKENS.slice(0, 16);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1].split(',') : fallback;
};
const SIZES = option('--sizes', ['small', 'medium']);
const WEIGHTS = option('--weights', ['f32', 'f16']);
const FILES = option('--files', ['f32']);
const SOURCES = option('--sources', ['file']);
const BROWSERS = option('--browsers', ['chromium', 'firefox']);
const HEADS = { small: 12, medium: 16 };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---------------------------------------------------------------------------------------------
// A child: one case in a fresh Node process.

if (argv[0] === '--child') {
  const [, dtype, kind, url, size, weights] = argv;
  const { loadEngine } = await import('../web/engine/engine.js');
  const engine = await loadEngine();
  let peak = process.memoryUsage();
  const sample = () => {
    const m = process.memoryUsage();
    for (const k of Object.keys(m)) peak[k] = Math.max(peak[k], m[k]);
  };
  const before = process.memoryUsage().rss;
  peak = process.memoryUsage();
  const timer = setInterval(sample, 20);
  const file = path.join(root, 'build-bench', `gpt2-${size}-${dtype}.safetensors`);
  const source = kind === 'url' ? url : await openAsBlob(file);
  const t0 = performance.now();
  const model = await engine.openModel(source, { heads: HEADS[size], weights, onProgress: sample });
  const openMs = performance.now() - t0;
  sample();
  const t1 = performance.now();
  model.trace(TOKENS);
  const traceMs = performance.now() - t1;
  sample();
  const quiet = { qkv: false, scores: false, weights: false, residual: false };
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    model.trace(SENTENCE, quiet);
    times.push(performance.now() - t);
  }
  const forwardMs = median(times);
  const precision = model.weights.precision;
  clearInterval(timer);
  const usage = process.resourceUsage();
  console.log(
    JSON.stringify({
      before,
      rss: peak.rss,
      maxRss: usage.maxRSS * 1024,
      jsHeap: peak.heapUsed,
      arrayBuffers: peak.arrayBuffers,
      wasm: engine.heapBytes(),
      openMs,
      traceMs,
      forwardMs,
      precision,
    }),
  );
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------

// Serves the repository (the engine) and the checkpoints, with Content-Length, streamed from disk.
async function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><meta charset="utf-8"><title>gpt2 memory</title><input type="file" id="file">');
      return;
    }
    const file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type =
      file.endsWith('.js') || file.endsWith('.mjs')
        ? 'text/javascript'
        : file.endsWith('.wasm')
          ? 'application/wasm'
          : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-length': statSync(file).size, 'cache-control': 'no-store' });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

function runChild(dtype, kind, url, size, weights) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', dtype, kind, url, size, weights],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

// RSS (bytes) of every process below this one, by pid, with its command line.
function processes() {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' }).trim().split('\n');
  const all = rows.map((r) => {
    const [pid, ppid, rss, ...args] = r.trim().split(/\s+/);
    return { pid: +pid, ppid: +ppid, rss: +rss * 1024, args: args.join(' ') };
  });
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (!mine.has(p.pid) && mine.has(p.ppid)) (mine.add(p.pid), (grew = true));
  }
  return all.filter((p) => p.pid !== process.pid && mine.has(p.pid));
}
// The tabs' processes (Chromium's renderers, Firefox's content processes), found once with ps;
// their RSS is then read from /proc (ps on every sample would stall this process, which also
// serves the file being read).
const tabPids = () =>
  processes()
    .filter((p) => /--type=renderer|-contentproc/.test(p.args))
    .map((p) => p.pid);
const rssOf = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return 0; // the process is gone
  }
};
const tabRss = (pids) => Math.max(0, ...pids.map(rssOf));

async function measureInPage(evaluate, open) {
  await evaluate(async () => {
    const { loadEngine } = await import('/web/engine/engine.js');
    window.engine = await loadEngine();
  });
  const pids = tabPids();
  const before = tabRss(pids);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, tabRss(pids))), 20);
  const result = await open();
  peak = Math.max(peak, tabRss(pids));
  clearInterval(timer);
  return { before, rss: peak, ...result };
}

const cases = [];
const problems = [];
const server = await serve();
for (const size of SIZES) for (const dtype of FILES) ensureCheckpoint(dtype, size);
const fileOf = (size, dtype) => `build-bench/gpt2-${size}-${dtype}.safetensors`;
const plan = [];
for (const size of SIZES)
  for (const dtype of FILES)
    for (const weights of WEIGHTS) for (const kind of SOURCES) plan.push({ size, dtype, weights, kind });
const sourceName = (kind, where) =>
  kind === 'url' ? 'URL (streamed)' : where === 'node' ? 'File (fs.openAsBlob)' : 'File (<input type=file>)';

// Node
if (!argv.includes('--no-node')) {
  for (const { size, dtype, weights, kind } of plan) {
    const what = `node ${size} ${dtype} file, ${weights} weights, ${kind}`;
    try {
      const r = await runChild(dtype, kind, `${server.base}/${fileOf(size, dtype)}`, size, weights);
      cases.push({
        where: 'Node ' + process.versions.node,
        size,
        dtype,
        weights,
        source: sourceName(kind, 'node'),
        ...r,
      });
      process.stderr.write(
        `${what}: RSS ${MB(r.rss)} MB, wasm ${MB(r.wasm)} MB, forward ${r.forwardMs.toFixed(0)} ms\n`,
      );
    } catch (error) {
      problems.push(`${what}: ${error.message}`);
    }
  }
}

// Browsers
if (!argv.includes('--no-browsers')) {
  const { launchBrowser, launchFirefox } = await import('../tests/e2e/helpers.mjs');
  const openIn = async (page, { size, dtype, weights, kind }) =>
    page.evaluate(
      async ({ url, kind, tokens, sentence, heads, weights }) => {
        const source = kind === 'url' ? url : document.getElementById('file').files[0];
        const t0 = performance.now();
        const model = await window.engine.openModel(source, { heads, weights });
        const openMs = performance.now() - t0;
        const t1 = performance.now();
        model.trace(tokens);
        const traceMs = performance.now() - t1;
        const quiet = { qkv: false, scores: false, weights: false, residual: false };
        const times = [];
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          model.trace(sentence, quiet);
          times.push(performance.now() - t);
        }
        const forwardMs = times.sort((a, b) => a - b)[2];
        const wasm = window.engine.heapBytes();
        const jsHeap = performance.memory?.usedJSHeapSize ?? null;
        const precision = model.weights.precision;
        model.dispose();
        return { openMs, traceMs, forwardMs, wasm, jsHeap, precision };
      },
      {
        url: `${server.base}/${fileOf(size, dtype)}`,
        kind,
        tokens: TOKENS,
        sentence: SENTENCE,
        heads: HEADS[size],
        weights,
      },
    );
  const launchers = { chromium: ['Chromium', launchBrowser], firefox: ['Firefox ESR', launchFirefox] };
  for (const [name, launch] of BROWSERS.map((b) => launchers[b])) {
    for (const c of plan) {
      // a fresh browser per case: a tab's memory is not given back between cases
      let browser;
      const what = `${name} ${c.size} ${c.dtype} file, ${c.weights} weights, ${c.kind}`;
      try {
        browser = await launch();
        const page = await browser.newPage();
        await page.goto(server.base + '/');
        if (c.kind === 'file') {
          const input = await page.$('#file');
          const file = path.join(root, fileOf(c.size, c.dtype));
          if (input.setInputFiles) await input.setInputFiles(file);
          else await input.uploadFile(file);
        }
        const r = await measureInPage(
          (fn) => page.evaluate(fn),
          () => openIn(page, c),
        );
        cases.push({ where: name, ...c, source: sourceName(c.kind, 'browser'), ...r });
        process.stderr.write(
          `${what}: tab RSS ${MB(r.before)} → ${MB(r.rss)} MB, wasm ${MB(r.wasm)} MB, forward ${r.forwardMs.toFixed(0)} ms\n`,
        );
      } catch (error) {
        problems.push(`${what}: ${String(error?.message ?? error).split('\n')[0]}`);
        process.stderr.write(problems.at(-1) + '\n');
      } finally {
        await browser?.close();
      }
    }
  }
}
server.close();

const date = new Date().toISOString().slice(0, 10);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(', ');
const lines = [
  `# GPT-2: peak memory of openModel + one trace (T = 64, all attention), ${WEIGHTS.map((w) => w.toUpperCase()).join(', ')} weights — ${date}`,
  '',
  `Checkpoints: bench/gpt2_checkpoint.mjs, random weights in Hugging Face's exact layout (small: 124.4M ` +
    `parameters, 498 MB as float32, 249 MB as F16; medium: 354.8M, 1419 MB / 710 MB), read from a file of ` +
    `the dtype in the "file" column. "weights": openModel's option, "kept": what the engine kept. Forward: the ` +
    `16-token sentence's logits (last row, nothing captured), median of 5, one thread. Machine: ` +
    `${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, ${MB(os.totalmem())} MB; load average at the end ` +
    `${load} (the machine is shared: timings are noisy, memory is not).`,
  '',
  '| where | model | file | weights → kept | source | open (ms) | trace, T = 64 (ms) | forward, T = 16 (ms) | WebAssembly memory (MB) | process RSS before → peak (MB) | JS heap peak (MB) |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const c of cases) {
  lines.push(
    `| ${c.where} | GPT-2 ${c.size} | ${c.dtype.toUpperCase()} | ${c.weights} → ${c.precision} | ${c.source} | ${c.openMs.toFixed(0)} | ${c.traceMs.toFixed(0)} | ${c.forwardMs.toFixed(0)} | ${MB(c.wasm)} | ${MB(c.before)} → ${MB(c.rss)} | ${c.jsHeap === null || c.jsHeap === undefined ? '—' : MB(c.jsHeap)} |`,
  );
}
if (problems.length) lines.push('', 'Problems:', ...problems.map((p) => `- ${p}`));
const report = lines.join('\n') + '\n';
process.stdout.write(report);
mkdirSync(path.join(here, 'results'), { recursive: true });
const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : `gpt2-memory-${WEIGHTS.join('-')}-${date}.md`;
writeFileSync(path.join(here, 'results', out), report);

// Peak memory of opening a GPT-2-small-shaped checkpoint (bench/gpt2_checkpoint.mjs: 548 MB as
// F32, 299 MB as F16, 50 MB of each being attn.bias buffers that are skipped) with
// engine.openModel and running one trace over 64 tokens with every attention captured — in Node,
// in Debian's Chromium and in Firefox ESR. Recorded, never asserted.
//
//   node bench/gpt2_memory.mjs              Node, Chromium, Firefox; writes bench/results/gpt2-memory-<date>.md
//   node bench/gpt2_memory.mjs --no-browsers
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

// ---------------------------------------------------------------------------------------------
// A child: one case in a fresh Node process.

if (argv[0] === '--child') {
  const [, dtype, kind, url] = argv;
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
  const file = path.join(root, 'build-bench', `gpt2-small-${dtype}.safetensors`);
  const source = kind === 'url' ? url : await openAsBlob(file);
  const t0 = performance.now();
  const model = await engine.openModel(source, { heads: 12, onProgress: sample });
  const openMs = performance.now() - t0;
  sample();
  const t1 = performance.now();
  model.trace(TOKENS);
  const traceMs = performance.now() - t1;
  sample();
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

function runChild(dtype, kind, url) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', dtype, kind, url ?? ''], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
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
for (const dtype of ['f32', 'f16']) ensureCheckpoint(dtype);

// Node
for (const dtype of ['f32', 'f16']) {
  for (const kind of ['file', 'url']) {
    try {
      const url = `${server.base}/build-bench/gpt2-small-${dtype}.safetensors`;
      const r = await runChild(dtype, kind, url);
      cases.push({
        where: 'Node ' + process.versions.node,
        dtype,
        source: kind === 'file' ? 'File (fs.openAsBlob)' : 'URL (streamed)',
        ...r,
      });
      process.stderr.write(`node ${dtype} ${kind}: RSS ${MB(r.rss)} MB, wasm ${MB(r.wasm)} MB\n`);
    } catch (error) {
      problems.push(`Node ${dtype} ${kind}: ${error.message}`);
    }
  }
}

// Browsers
if (!argv.includes('--no-browsers')) {
  const { launchBrowser, launchFirefox } = await import('../tests/e2e/helpers.mjs');
  const openIn = async (page, dtype, kind) => {
    const url = `${server.base}/build-bench/gpt2-small-${dtype}.safetensors`;
    return page.evaluate(
      async ({ url, kind, tokens }) => {
        const source = kind === 'url' ? url : document.getElementById('file').files[0];
        const t0 = performance.now();
        const model = await window.engine.openModel(source, { heads: 12 });
        const openMs = performance.now() - t0;
        const t1 = performance.now();
        model.trace(tokens);
        const traceMs = performance.now() - t1;
        const wasm = window.engine.heapBytes();
        const jsHeap = performance.memory?.usedJSHeapSize ?? null;
        model.dispose();
        return { openMs, traceMs, wasm, jsHeap };
      },
      { url, kind, tokens: TOKENS },
    );
  };
  for (const [name, launch] of [
    ['Chromium', launchBrowser],
    ['Firefox ESR', launchFirefox],
  ]) {
    let browser;
    try {
      browser = await launch();
      for (const dtype of ['f32', 'f16']) {
        for (const kind of ['url', 'file']) {
          const page = await browser.newPage();
          try {
            await page.goto(server.base + '/');
            if (kind === 'file') {
              const input = await page.$('#file');
              const file = path.join(root, 'build-bench', `gpt2-small-${dtype}.safetensors`);
              if (input.setInputFiles) await input.setInputFiles(file);
              else await input.uploadFile(file);
            }
            const r = await measureInPage(
              (fn) => page.evaluate(fn),
              () => openIn(page, dtype, kind),
            );
            cases.push({
              where: name,
              dtype,
              source: kind === 'url' ? 'URL (streamed)' : 'File (<input type=file>)',
              ...r,
            });
            process.stderr.write(
              `${name} ${dtype} ${kind}: tab RSS ${MB(r.before)} → ${MB(r.rss)} MB, wasm ${MB(r.wasm)} MB\n`,
            );
          } catch (error) {
            problems.push(`${name} ${dtype} ${kind}: ${String(error.message).split('\n')[0]}`);
            process.stderr.write(problems.at(-1) + '\n');
          } finally {
            await page.close();
          }
        }
      }
    } catch (error) {
      problems.push(`${name}: ${String(error.message).split('\n')[0]}`);
    } finally {
      await browser?.close();
    }
  }
}
server.close();

const date = new Date().toISOString().slice(0, 10);
const lines = [
  `# GPT-2 small: peak memory of openModel + one trace (T = 64, all attention) — ${date}`,
  '',
  `Checkpoints: bench/gpt2_checkpoint.mjs (F32 ${MB(statSync(ensureCheckpoint('f32')).size)} MB, ` +
    `F16 ${MB(statSync(ensureCheckpoint('f16')).size)} MB, of which 50 MB of attn.bias buffers are skipped); ` +
    `124.4M parameters = 498 MB as float32 in the engine. Machine: ${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, ` +
    `${MB(os.totalmem())} MB.`,
  '',
  '| where | file | source | open (ms) | trace, T = 64 (ms) | WebAssembly memory (MB) | process RSS before → peak (MB) | JS heap peak (MB) |',
  '|---|---|---|---|---|---|---|---|',
];
for (const c of cases) {
  lines.push(
    `| ${c.where} | ${c.dtype.toUpperCase()} | ${c.source} | ${c.openMs.toFixed(0)} | ${c.traceMs.toFixed(0)} | ${MB(c.wasm)} | ${MB(c.before)} → ${MB(c.rss)} | ${c.jsHeap === null || c.jsHeap === undefined ? '—' : MB(c.jsHeap)} |`,
  );
}
if (problems.length) lines.push('', 'Problems:', ...problems.map((p) => `- ${p}`));
const report = lines.join('\n') + '\n';
process.stdout.write(report);
mkdirSync(path.join(here, 'results'), { recursive: true });
writeFileSync(path.join(here, 'results', `gpt2-memory-${date}.md`), report);

// Speed a reader feels (a benchmark, not a test): GPT-2 small's shapes (random weights from a
// seed, Hugging Face's layout: bench/gpt2_checkpoint.mjs), with 1 and 2 threads and the weights
// kept as F32 (trainable, and with inferenceOnly: in panels, as the page opens its models), as
// F16 and as BF16 (openModel's `weights`):
//   open → first picture  the checkpoint already kept (a Blob on disk, as the browser's OPFS
//                         copy is) opened with engine.openModel, then the trace the page draws
//                         its first attention picture from (16 tokens, every layer's attention)
//   forward, T = 16       one trace of a 16-token sentence, nothing captured but the last logits
//   generation            tokens per second, one token at a time with the KV cache
//                         (model.session, temperature 0: each step also computes the top 10 and
//                         the new token's attention row, as the page shows them)
// against onnxruntime-web (WASM, the same thread count) on the same weights and the same graph
// with past key values (bench/onnx_gpt2.mjs gpt2DecoderWithPast: the decoder-with-past graph
// transformers.js runs for GPT-2), one token per run, greedy (argmax in JavaScript), its presents
// fed back as the next run's past. The first 8 greedy tokens of both are compared.
//
//   node bench/gpt2_generate.mjs             writes bench/results/gpt2-generate-<date>.md
//   node bench/gpt2_generate.mjs --tokens 32 --weights f32,f32-inference,f16,bf16 --no-ort
//   node bench/gpt2_generate.mjs --browser   the same in Debian's Chromium, 1 and 2 threads
//                                            (--threads 1,2; --out to name the file)
//   node bench/gpt2_generate.mjs --browser firefox   the same in Debian's Firefox ESR
//
// Node runs the same WASM engines the browsers run (Node 20's V8), one thread (its main thread
// may not wait for others). Both engines get the same warm-up and the fastest of 3 rounds
// (gpt2_generate_measure.mjs says why); the machine's load average is recorded with the results.
import { existsSync, mkdirSync, openAsBlob, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { GPT2_SMALL, ensureCheckpoint, readF32Tensors } from './gpt2_checkpoint.mjs';
import { gpt2DecoderWithPast } from './onnx_gpt2.mjs';
import { measure } from './gpt2_generate_measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const STEPS = Number(option('--tokens', '32'));
const THREADS = option('--threads', argv.includes('--browser') ? '1,2' : '1')
  .split(',')
  .map(Number);
// f32: float32 in the training layout; f32-inference: float32 opened with inferenceOnly (in
// panels, as the page opens its models); f16: halves, bf16: bfloat16s (both always in panels)
const WEIGHTS = option('--weights', 'f32,f32-inference,f16,bf16').split(',');
const log = (s) => process.stderr.write(s + '\n');
const { vocabSize: V, layers: L, heads: H, width: C } = GPT2_SMALL;
const PROMPT = Array.from({ length: 16 }, (_, i) => (i * 7919 + 13) % V);
const loadStart = os.loadavg()[0];

const file = ensureCheckpoint('f32');

// --browser [chromium|firefox]: the same measurements in Debian's Chromium (playwright-core) or
// Firefox ESR (puppeteer-core over WebDriver BiDi), on a cross-origin isolated page (the
// threaded engine; onnxruntime-web's threads), the checkpoint fetched into a Blob first (a model
// already kept), the ONNX graph written to build-bench/ and fetched by the page.
if (argv.includes('--browser')) {
  const { launchBrowser, launchFirefox, serveStatic } = await import('../tests/e2e/helpers.mjs');
  const firefox = option('--browser', '') === 'firefox';
  const root = path.resolve(here, '..');
  const graphFile = path.join(root, 'build-bench', 'gpt2-small-with-past.onnx');
  if (!existsSync(graphFile))
    writeFileSync(graphFile, gpt2DecoderWithPast(readF32Tensors(file), { V, C, H, L, eps: 1e-5 }).bytes);
  const server = await serveStatic(root, { isolate: true });
  const browser = firefox ? await launchFirefox() : await launchBrowser();
  try {
    const page = await browser.newPage();
    page.on('console', (m) => log(`page: ${m.text()}`));
    await page.goto(server.url + 'tests/e2e/pages/gpt2.html');
    // one worker per thread count (gpt2_generate_measure.mjs says why), ours then onnxruntime-web
    const result = { rows: [], greedy: {}, notes: [] };
    for (const threads of THREADS) {
      const reply = await page.evaluate(
        (params) =>
          new Promise((resolve) => {
            const worker = new Worker(params.worker, { type: 'module' });
            worker.onmessage = (event) => (worker.terminate(), resolve(event.data));
            worker.onerror = (event) => resolve({ error: event.message || 'the worker failed to start' });
            worker.postMessage(params);
          }),
        {
          worker: server.url + 'bench/gpt2_generate_worker.mjs',
          checkpoint: server.url + 'build-bench/gpt2-small-f32.safetensors',
          graph: server.url + 'build-bench/gpt2-small-with-past.onnx',
          ort: server.url + 'node_modules/onnxruntime-web/dist/ort.wasm.min.mjs',
          engineUrl: server.url + 'web/engine/engine.js',
          prompt: PROMPT,
          steps: STEPS,
          threadsList: [threads],
          weightsList: WEIGHTS,
          shape: { V, L, H, C },
          ortOff: argv.includes('--no-ort'),
        },
      );
      if (reply.error) throw new Error(reply.error);
      result.rows.push(...reply.result.rows);
      Object.assign(result.greedy, reply.result.greedy);
      result.notes.push(...reply.result.notes);
    }
    const order = (r) => (r.who === 'ours' ? WEIGHTS.indexOf(r.weights) : WEIGHTS.length);
    result.rows.sort((a, b) => order(a) - order(b) || a.threads - b.threads);
    report(
      result.rows,
      result.greedy,
      result.notes,
      `${firefox ? 'Firefox' : 'Chromium'} ${browser.version ? await browser.version() : ''}`.trim(),
    );
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(0);
}

// Node: the same measurements (gpt2_generate_measure.mjs), on Node's main thread, so one thread.
if (THREADS.some((t) => t !== 1)) {
  log('--threads above 1 needs --browser: Node runs the engine on its main thread, which may not wait for others');
  process.exit(2);
}
const { rows, greedy, notes } = await measure({
  checkpoint: await openAsBlob(file),
  graph: argv.includes('--no-ort') ? null : gpt2DecoderWithPast(readF32Tensors(file), { V, C, H, L, eps: 1e-5 }).bytes,
  ort: import.meta.resolve('onnxruntime-web'),
  engineUrl: import.meta.resolve('../web/engine/engine.js'),
  prompt: PROMPT,
  steps: STEPS,
  threadsList: [1],
  weightsList: WEIGHTS,
  shape: { V, L, H, C },
  ortOff: argv.includes('--no-ort'),
});
report(rows, greedy, notes, `Node ${process.versions.node} (the same WASM engines as the browsers)`);

function report(rows, greedy, notes, where) {
  const agree = (a, b) => (a && b ? a.slice(0, 8).every((t, i) => t === b[i]) : null);
  const date = new Date().toISOString().slice(0, 10);
  const load = `${loadStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`;
  const ortRow = (threads) => rows.find((r) => r.who.startsWith('onnxruntime') && r.threads === threads);
  const lines = [
    `# GPT-2 small: open → first picture, forward, generation with the KV cache — ${where}, ${date}`,
    '',
    `Random weights in GPT-2 small's exact layout (bench/gpt2_checkpoint.mjs, F32 file), ${where}, ` +
      `${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores; load average ${load} (the machine is shared with ` +
      `other jobs: numbers are noisy). Generation: ${STEPS} tokens after a 16-token prompt, one at a time, greedy; ours ` +
      `through model.session (each step also computes the top 10 and the new token's attention row), ` +
      `onnxruntime-web through the decoder-with-past graph of bench/onnx_gpt2.mjs, the same thread count ` +
      `(in the browser each thread count in a new worker, so onnxruntime-web starts with it); for each engine ` +
      `one untimed generation, then the fastest of 3.`,
    '',
    '| who | weights | threads | open → first picture (ms) | forward, T = 16 (ms) | ms per token | tokens/s | onnxruntime-web ms per token ÷ ours |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const o = ortRow(r.threads);
    lines.push(
      `| ${r.who} | ${r.weights.toUpperCase()} | ${r.threads} | ${r.firstPicture ? r.firstPicture.toFixed(0) : '—'} | ` +
        `${r.forward ? r.forward.toFixed(1) : '—'} | ${r.perToken.toFixed(1)} | ${(1000 / r.perToken).toFixed(1)} | ` +
        `${r.who === 'ours' && o ? (o.perToken / r.perToken).toFixed(2) + '×' : '—'} |`,
    );
  }
  lines.push(
    '',
    `Greedy tokens, the first 8: ours F32 ${JSON.stringify(greedy.f32?.slice(0, 8))}, ours F16 ` +
      `${JSON.stringify(greedy.f16?.slice(0, 8))}, ours BF16 ${JSON.stringify(greedy.bf16?.slice(0, 8))}, ` +
      `onnxruntime-web ${JSON.stringify(greedy.ort?.slice(0, 8))} ` +
      `(ours F32 and onnxruntime-web agree: ${agree(greedy.f32, greedy.ort)}; ours F32 inference-only and F32: ` +
      `${agree(greedy['f32-inference'], greedy.f32)}).`,
  );
  if (notes.length) lines.push('', 'Problems:', ...notes.map((n) => `- ${n}`));
  const text = lines.join('\n') + '\n';
  process.stdout.write(text);
  mkdirSync(path.join(here, 'results'), { recursive: true });
  writeFileSync(path.join(here, 'results', option('--out', `gpt2-generate-${date}.md`)), text);
}

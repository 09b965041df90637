// GPT-2 benchmark (not a test): one forward of a GPT-2-small-shaped model (random weights from a
// seed: bench/gpt2_checkpoint.mjs; the compute is the real model's) over T = 16, 64, 256 tokens
// with all attention captured — every layer's and head's q, k, v, scores and weights, the
// residual stream, and the last position's logits: what the page's "Real model" section asks of
// model.trace. Peers on the same weights and the same graph, one thread each: onnxruntime-web
// (WASM, numThreads 1; the graph of bench/onnx_gpt2.mjs, every capture a graph output) and
// PyTorch (bench/gpt2_torch.py, torch.set_num_threads(1)). Their last logits are checked
// against ours (max |Δ| printed; the peers sum in other orders, so float rounding differs).
//
//   node bench/gpt2.mjs            writes bench/results/gpt2-<date>.md and prints it
//   node bench/gpt2.mjs --T 16     only these lengths;  --no-ort, --no-torch: skip a peer
//   node bench/gpt2.mjs --tiny     the 2-layer fixture model of tests/fixtures/gpt2/ (a quick check)
//
// Counting: multiply-adds of the linear layers L·12·C²·T + C·V (lm_head of the last row) and of
// attention L·C·T·(T + 1) (q·k and weights·v over the causal pairs); GFLOP/s = 2·MACs / time.
// "% peak" divides by the SIMD128 peak of bench/wasm_kernels.cpp (independent f32x4 mul+add
// chains, the best of many samples), measured in this process. The linear layers' share of the
// time comes from model.trace({timings}) (steady_clock around each linear call).
// Timing: warm-up, then repeats within a budget; median and p10–p90.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, openAsBlob, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadEngine } from '../web/engine/engine.js';
import { GPT2_SMALL, ensureCheckpoint, readF32Tensors } from './gpt2_checkpoint.mjs';
import { gpt2Model } from './onnx_gpt2.mjs';
import { quantile, fmtMs } from './report.mjs';
import { loadBenchModule } from './build_wasm.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const TINY = flag('--tiny');
const T_LIST = option('--T', TINY ? '12' : '16,64,256')
  .split(',')
  .map(Number);
const BUDGET_MS = TINY ? 200 : 20000;
const MIN_REPS = TINY ? 2 : 3,
  MAX_REPS = TINY ? 3 : 10;
const log = (s) => process.stderr.write(s + '\n');

// The checkpoint and its config.
const file = TINY ? path.join(root, 'tests/fixtures/gpt2/gpt2_tiny.safetensors') : ensureCheckpoint('f32');
const config = TINY
  ? { vocabSize: 211, contextLength: 64, layers: 2, heads: 4, width: 32, eps: 1e-5 }
  : { ...GPT2_SMALL, eps: 1e-5 };
const { vocabSize: V, layers: L, heads: H, width: C } = config;

const tokensOf = (T) => Array.from({ length: T }, (_, i) => (i * 7919 + 13) % V);
const macs = (T) => ({ linear: L * 12 * C * C * T + C * V, attention: L * C * T * (T + 1) });

async function time(run) {
  await run();
  const times = [];
  const start = performance.now();
  while (times.length < MIN_REPS || (times.length < MAX_REPS && performance.now() - start < BUDGET_MS)) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: quantile(times, 0.5), p10: quantile(times, 0.1), p90: quantile(times, 0.9), n: times.length };
}

function measurePeak(M, samples = 20) {
  let best = 0;
  for (const [form, chains] of [
    [0, 8],
    [0, 12],
    [0, 16],
    [1, 4],
    [1, 6],
    [1, 7],
  ]) {
    const iters = 2e6;
    M._bk_peak(form, chains, iters);
    for (let r = 0; r < samples; r++) {
      const t0 = performance.now();
      M._bk_peak(form, chains, iters);
      best = Math.max(best, (chains * iters * 8) / (performance.now() - t0) / 1e6);
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------

const engine = await loadEngine();
log(`model: ${path.relative(root, file)}`);
const t0 = performance.now();
const model = await engine.openModel(await openAsBlob(file), { heads: H });
const openMs = performance.now() - t0;
log(`opened in ${openMs.toFixed(0)} ms; engine heap ${(engine.heapBytes() / 1e6).toFixed(0)} MB`);

const M = await loadBenchModule();
const peak = measurePeak(M);
log(`SIMD128 peak: ${peak.toFixed(2)} GFLOP/s`);

const rows = [];
const ours = {};
for (const T of T_LIST) {
  const tokens = tokensOf(T);
  const trace = () => model.trace(tokens, { timings: true });
  const first = trace();
  ours[T] = first.logits.data;
  const linearMs = [];
  const t = await time(() => linearMs.push(trace().timings.linear));
  const m = macs(T);
  const gflops = (2 * (m.linear + m.attention)) / t.median / 1e6;
  const linear = quantile(
    linearMs.sort((a, b) => a - b),
    0.5,
  );
  const linearGflops = (2 * m.linear) / linear / 1e6;
  rows.push({ T, who: 'ours', ...t, gflops, linear, linearGflops });
  log(
    `ours T=${T}: ${fmtMs(t.median)} ms (${gflops.toFixed(2)} GFLOP/s; linear ${fmtMs(linear)} ms, ${linearGflops.toFixed(2)} GFLOP/s = ${((100 * linearGflops) / peak).toFixed(0)}% of peak)`,
  );
}

// onnxruntime-web, 1 thread, the same graph.
const notes = [];
if (!flag('--no-ort')) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  const weights = readF32Tensors(file);
  for (const T of T_LIST) {
    try {
      const { bytes } = gpt2Model(weights, { T, V, C, H, L, eps: config.eps });
      const session = await ort.InferenceSession.create(bytes, {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const ids = new ort.Tensor('int64', BigInt64Array.from(tokensOf(T).map(BigInt)), [T]);
      let logits;
      const t = await time(async () => {
        logits = (await session.run({ ids })).logits.data;
      });
      const diff = logits.reduce((m, v, i) => Math.max(m, Math.abs(v - ours[T][i])), 0);
      const m = macs(T);
      rows.push({ T, who: 'onnxruntime-web', ...t, gflops: (2 * (m.linear + m.attention)) / t.median / 1e6, diff });
      log(`onnxruntime-web T=${T}: ${fmtMs(t.median)} ms (max |Δ logits| ${diff.toExponential(1)})`);
      await session.release();
    } catch (error) {
      notes.push(`onnxruntime-web T=${T}: ${error.message}`);
      log(notes.at(-1));
    }
  }
}

// PyTorch, 1 thread.
if (!flag('--no-torch')) {
  try {
    const out = execFileSync(
      '/usr/bin/python3',
      [
        path.join(here, 'gpt2_torch.py'),
        file,
        JSON.stringify({ ...config, T: T_LIST, budget: BUDGET_MS, min: MIN_REPS, max: MAX_REPS }),
      ],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    for (const r of JSON.parse(out)) {
      const diff = r.logits.reduce((m, v, i) => Math.max(m, Math.abs(v - ours[r.T][i])), 0);
      const m = macs(r.T);
      rows.push({
        T: r.T,
        who: `PyTorch ${r.version}`,
        median: r.median,
        p10: r.p10,
        p90: r.p90,
        n: r.n,
        gflops: (2 * (m.linear + m.attention)) / r.median / 1e6,
        diff,
      });
      log(`PyTorch T=${r.T}: ${fmtMs(r.median)} ms (max |Δ logits| ${diff.toExponential(1)})`);
    }
  } catch (error) {
    notes.push(`PyTorch: ${String(error.message).split('\n')[0]}`);
    log(notes.at(-1));
  }
}

// ---------------------------------------------------------------------------------------------
// The report

const date = new Date().toISOString().slice(0, 10);
const lines = [
  `# GPT-2 forward with every attention captured — ${date}`,
  '',
  `Model: ${TINY ? 'the 2-layer fixture' : 'GPT-2 small shape'} (V ${V}, L ${L}, H ${H}, C ${C}), random weights ` +
    `(${path.relative(root, file)}), opened in ${openMs.toFixed(0)} ms. Machine: ${os.cpus()[0]?.model ?? '?'}, ` +
    `${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; Node ${process.versions.node}. ` +
    `SIMD128 peak ${peak.toFixed(2)} GFLOP/s.`,
  '',
  '| T | implementation | ms (median) | p10–p90 | runs | GFLOP/s | linear layers: ms, GFLOP/s, % peak | ours vs peer (peer ms ÷ ours ms; > 1: ours faster) | max abs logits diff vs ours |',
  '|---|---|---|---|---|---|---|---|---|',
];
for (const r of rows) {
  const mine = rows.find((x) => x.T === r.T && x.who === 'ours');
  const ratio = r.who === 'ours' ? '' : `${(r.median / mine.median).toFixed(2)}×`;
  const linear = r.linear
    ? `${fmtMs(r.linear)}, ${r.linearGflops.toFixed(2)}, ${((100 * r.linearGflops) / peak).toFixed(0)}%`
    : '';
  lines.push(
    `| ${r.T} | ${r.who} | ${fmtMs(r.median)} | ${fmtMs(r.p10)}–${fmtMs(r.p90)} | ${r.n} | ${r.gflops.toFixed(2)} | ${linear} | ${ratio} | ${r.diff === undefined ? '' : r.diff.toExponential(1)} |`,
  );
}
if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
const report = lines.join('\n') + '\n';
process.stdout.write(report);
if (!TINY) {
  mkdirSync(path.join(here, 'results'), { recursive: true });
  writeFileSync(path.join(here, 'results', `gpt2-${date}.md`), report);
}
model.dispose();
void existsSync;

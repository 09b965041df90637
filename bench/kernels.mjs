// The kernel benchmark of issue 21: GFLOP/s and % of the measured SIMD128 peak of our GEMM
// (src/kernels/gemm.h: the linear layers' three products on GPT-2-small shapes) and of the
// tiled attention forward and backward, WASM SIMD128, one thread, beside onnxruntime-web
// (1 thread, its Gemm on the forward, weights as initializers as an exported nn.Linear has
// them) and PyTorch natively (1 thread; bench/torch_anchor.py --linear).
//
//   node bench/kernels.mjs           full run; writes bench/results/kernels-<date>.md
//   node bench/kernels.mjs --quick   small shapes: checks that our products equal gemm_ref bit
//                                    for bit and that onnxruntime-web agrees (bench/run.mjs
//                                    --quick calls runKernelsBench)
//
// Timing: CPU time of this process (process.cpuUsage; PyTorch: time.process_time), the fastest
// of interleaved rounds (every implementation once per round, the peak re-measured each round),
// so time the scheduler gave other jobs on this shared machine is left out and a slow round is
// someone else's load. "% peak" divides by the fastest peak sample of the run (bench/wasm_kernels.cpp
// bk_peak: independent f32x4 multiply-add chains, the kernels' instruction mix).
//
// Flops: 2·R·I·O per product; attention forward 4·hs per computed (query, key) pair (causal: the
// T(T+1)/2 on and below the diagonal), backward 10·hs per pair (five products: S, dP, dV, dK, dQ).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadBenchModule } from './build_wasm.mjs';
import { linearModel } from './onnx_model.mjs';
import { pushList } from './report.mjs';
import { mulberry32 } from '../web/lib/learn/random.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// CPU milliseconds of one call of fn, averaged over calls filling at least minMs.
function cpuTime(fn, minMs) {
  let n = 0;
  const t0 = cpuMs();
  let t1;
  do {
    fn();
    n++;
    t1 = cpuMs();
  } while (t1 - t0 < minMs);
  return (t1 - t0) / n;
}

/** SIMD128 peak of the bench module: independent f32x4 mul+add chains in two forms (bench/wasm_kernels.cpp);
 * the best form and chain count, and the fastest of `samples` short samples. */
export function measurePeak(M, { quick = false, samples = quick ? 2 : 40 } = {}) {
  const iters = quick ? 2e5 : 2e6;
  let best = { gflops: 0 };
  const forms = [];
  for (const form of [0, 1]) {
    let formBest = 0;
    for (const chains of form === 0 ? [8, 12, 16] : [4, 6, 7]) {
      M._bk_peak(form, chains, iters);
      let ms = Infinity;
      for (let r = 0; r < samples; r++) {
        const t0 = performance.now();
        M._bk_peak(form, chains, iters);
        ms = Math.min(ms, performance.now() - t0);
      }
      const gflops = (chains * iters * 8) / ms / 1e6;
      formBest = Math.max(formBest, gflops);
      if (gflops > best.gflops) best = { gflops, chains, form };
    }
    forms.push(formBest);
  }
  best.forms = forms;
  return best;
}

// GPT-2 small's linear layers (C = 768): c_attn, attn c_proj, c_fc, mlp c_proj; lm_head (C → V)
// on its own, forward only (the weight is wte, tied).
const C = 768;
const LAYERS = [
  { name: 'c_attn', I: C, O: 3 * C },
  { name: 'attn.c_proj', I: C, O: C },
  { name: 'c_fc', I: C, O: 4 * C },
  { name: 'mlp.c_proj', I: 4 * C, O: C },
];
const FORMS = [
  { id: 0, name: 'forward', math: 'y = x·wᵀ + b' },
  { id: 1, name: 'dx', math: 'dx += dy·w' },
  { id: 2, name: 'dw', math: 'dw += dyᵀ·x' },
];

async function ortLinear() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  return {
    version: ort.env.versions?.web ?? '?',
    async prepare({ R, I, O, x, w, b }) {
      const session = await ort.InferenceSession.create(linearModel({ R, I, O, w, b }), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const X = new ort.Tensor('float32', x, [R, I]);
      // onnxruntime-web's run() is asynchronous in form but runs on this thread with numThreads = 1.
      const run = async () => (await session.run({ X })).Y.data;
      run.dispose = () => session.release();
      return run;
    },
  };
}

/**
 * Runs the kernel benchmark. Returns {markdown, problems, notes, checked, summary}.
 * @param {{quick?: boolean, log?: (s: string) => void}} options
 */
export async function runKernelsBench({ quick = false, log = (s) => process.stderr.write(s + '\n') } = {}) {
  const problems = [],
    notes = [];
  let checked = 0;
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  const loadStart = load();
  const M = await loadBenchModule();
  const rows = quick ? [5, 16] : [16, 64, 256];
  const layers = quick ? [{ name: 'small', I: 67, O: 45 }] : LAYERS;
  const minMs = quick ? 1 : 40;
  const rounds = quick ? 1 : 4;

  // Buffers big enough for every product (lm_head's weight is the largest).
  const lmhead = { name: 'lm_head', I: C, O: 50257, R: 64 };
  const nmax = quick ? 4096 : Math.max(lmhead.I * lmhead.O, 256 * 4 * C) + 64;
  const rand = mulberry32(21);
  const buffers = [0, 1, 2, 3, 4].map(() => {
    const p = M._bk_malloc(nmax * 4);
    if (!p) throw new Error('kernels bench: out of WASM memory');
    const view = M.HEAPF32.subarray(p >> 2, (p >> 2) + nmax);
    for (let i = 0; i < nmax; i++) view[i] = rand() - 0.5;
    return p;
  });
  const [pc, pa, pb, pbias, pcRef] = buffers;
  const f32 = (p, n) => M.HEAPF32.subarray(p >> 2, (p >> 2) + n);

  // Correctness first: ours (gemm_simd) equals gemm_ref bit for bit on every product timed here
  // at the small size, and onnxruntime-web's forward agrees within float32 rounding.
  let ort = null;
  try {
    ort = await ortLinear();
  } catch (e) {
    problems.push(`onnxruntime-web failed to load: ${e.message.split('\n')[0]}`);
  }
  for (const { I, O } of quick ? layers : [{ I: 67, O: 45 }]) {
    for (const R of [1, 5, 16]) {
      for (const form of FORMS) {
        const outN = form.id === 2 ? O * I : R * (form.id === 0 ? O : I);
        const start = f32(pa, outN).slice(); // the accumulating forms add into what c holds
        f32(pc, outN).set(start);
        f32(pcRef, outN).set(start);
        M._bk_linear(form.id, 0, pc, pa, pb, pbias, R, I, O);
        M._bk_linear(form.id, 1, pcRef, pa, pb, pbias, R, I, O);
        const got = f32(pc, outN),
          want = f32(pcRef, outN);
        const same = got.every((v, i) => Object.is(v, want[i]));
        checked++;
        if (!same) problems.push(`gemm_simd ≠ gemm_ref bit for bit: R=${R} I=${I} O=${O} ${form.name}`);
      }
      if (ort) {
        const x = f32(pa, R * I).slice(),
          w = f32(pb, O * I).slice(),
          b = f32(pbias, O).slice();
        const run = await ort.prepare({ R, I, O, x, w, b });
        const y = await run();
        run.dispose();
        M._bk_linear(0, 0, pc, pa, pb, pbias, R, I, O);
        const ours = f32(pc, R * O);
        let worst = 0;
        for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i] - y[i]));
        checked++;
        // |x|, |w| ≤ ½: a sum of I terms ≤ ¼ each; float32 order differences are ≤ ~I·2⁻²⁴·¼.
        const tol = 4 * I * 2 ** -24;
        if (!(worst <= tol)) problems.push(`onnxruntime-web Gemm R=${R} I=${I} O=${O}: max |diff| ${worst} > ${tol}`);
      }
    }
  }

  // Timing.
  const peak = measurePeak(M, { quick });
  const cases = [];
  for (const layer of layers)
    for (const R of rows) for (const form of FORMS) cases.push({ ...layer, R, form, ours: Infinity, ort: Infinity });
  if (!quick) cases.push({ ...lmhead, form: FORMS[0], ours: Infinity, ort: Infinity });
  const ortRuns = new Map();
  if (ort) {
    for (const c of cases.filter((c) => c.form.id === 0)) {
      try {
        const run = await ort.prepare({
          R: c.R,
          I: c.I,
          O: c.O,
          x: f32(pa, c.R * c.I).slice(),
          w: f32(pb, c.O * c.I).slice(),
          b: f32(pbias, c.O).slice(),
        });
        await run();
        ortRuns.set(c, run);
      } catch (e) {
        notes.push(`onnxruntime-web ${c.name} R=${c.R}: ${e.message.split('\n')[0].slice(0, 160)}`);
      }
    }
  }
  for (let round = 0; round < rounds; round++) {
    const p = measurePeak(M, { quick, samples: quick ? 1 : 8 });
    if (p.gflops > peak.gflops) Object.assign(peak, p);
    for (const c of cases) {
      c.ours = Math.min(
        c.ours,
        cpuTime(() => M._bk_linear(c.form.id, 0, pc, pa, pb, pbias, c.R, c.I, c.O), minMs),
      );
      const run = ortRuns.get(c);
      if (run) {
        let n = 0;
        const t0 = cpuMs();
        let t1;
        do {
          await run();
          n++;
          t1 = cpuMs();
        } while (t1 - t0 < minMs);
        c.ort = Math.min(c.ort, (t1 - t0) / n);
      }
    }
  }
  for (const run of ortRuns.values()) run.dispose();

  // PyTorch, natively, one thread.
  let torch = null;
  if (!quick) {
    try {
      const shapes = [...new Set(cases.map((c) => `${c.I}x${c.O}`))].join(',');
      torch = JSON.parse(
        execFileSync(
          '/usr/bin/python3',
          [path.join(here, 'torch_anchor.py'), '--linear', [...new Set(cases.map((c) => c.R))].join(','), shapes],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 900e3 },
        ),
      );
    } catch (e) {
      notes.push(`PyTorch anchor not run: ${e.message.split('\n')[0]}`);
    }
  }
  const torchMs = (c) =>
    torch?.rows.find((r) => r.R === c.R && r.I === c.I && r.O === c.O && r.form === c.form.name)?.ms;

  // Attention, tiled forward and backward (H = 8, hs = 64).
  const attention = [];
  {
    const H = 8,
      hs = 64;
    for (const T of quick ? [67] : [256, 1024, 2048]) {
      for (const causal of [1, 0]) {
        const n = H * T * hs;
        const p = Array.from({ length: 9 }, () => M._bk_malloc(n * 4));
        if (p.some((x) => !x)) throw new Error('kernels bench: out of WASM memory');
        const arand = mulberry32(T + causal);
        for (const x of p) {
          const v = f32(x, n);
          for (let i = 0; i < n; i++) v[i] = arand() * 2 - 1;
        }
        // p: q k v out lse dout dq dk dv
        const fwd = () => M._bk_attention_tiled_lse(p[3], p[4], p[0], p[1], p[2], H, T, hs, causal);
        const bwd = () =>
          M._bk_attention_tiled_backward(p[6], p[7], p[8], p[5], p[0], p[1], p[2], p[3], p[4], H, T, hs, causal);
        fwd();
        bwd();
        checked++;
        if (![p[3], p[6], p[7], p[8]].every((x) => f32(x, n).every(Number.isFinite)))
          problems.push(`attention T=${T}: a non-finite output or gradient`);
        let f = Infinity,
          b = Infinity;
        for (let round = 0; round < rounds; round++) {
          f = Math.min(f, cpuTime(fwd, minMs));
          b = Math.min(b, cpuTime(bwd, minMs));
        }
        const pairs = H * (causal ? (T * (T + 1)) / 2 : T * T);
        attention.push({
          T,
          H,
          causal: causal === 1,
          fwd: f,
          bwd: b,
          fwdFlops: pairs * 4 * hs,
          bwdFlops: pairs * 10 * hs,
        });
        p.forEach((x) => M._bk_free(x));
      }
    }
  }
  buffers.forEach((p) => M._bk_free(p));

  // Report.
  const g = (flops, ms) => flops / ms / 1e6;
  const pct = (gf) => `${((100 * gf) / peak.gflops).toFixed(0)}%`;
  const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
  const lines = [];
  const date = new Date().toISOString();
  lines.push(`# GEMM and attention kernels — ${date.slice(0, 10)}`);
  lines.push('');
  lines.push(
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} logical cores shared with other jobs ` +
      `(load average ${loadStart} at the start, ${load()} at the end), Node ${process.version}, V8 ${process.versions.v8}` +
      `${ort ? `; onnxruntime-web ${ort.version}` : ''}${torch ? `; PyTorch ${torch.torch} (BLAS ${torch.blas})` : ''}.`,
  );
  lines.push(
    `Command: \`node bench/kernels.mjs\` (or bench/run.mjs). Ours: WASM SIMD128 (src/kernels/gemm.h, kernels_simd.cpp), ` +
      'one thread. Times: CPU time of the process, the fastest of ' +
      `${rounds} interleaved rounds (each ≥ ${minMs} ms of calls), ms. Measured SIMD128 peak: **${peak.gflops.toFixed(2)} GFLOP/s** ` +
      `(fastest sample over the run; acc·m + c chains ${peak.forms[0].toFixed(2)}, acc + x·y chains ${peak.forms[1].toFixed(2)}).`,
  );
  lines.push('');
  lines.push('## Linear layers (GPT-2 small, C = 768): y = x·wᵀ + b, dx += dy·w, dw += dyᵀ·x (R rows = tokens)');
  lines.push('');
  lines.push(
    'onnxruntime-web: its Gemm (transB = 1) with w and b as initializers, 1 thread, WASM SIMD (forward only: it does ' +
      'not train). PyTorch: natively (x86-64 with AVX-512 and FMA, not WASM), 1 thread: F.linear, dy @ w, dyᵀ @ x.',
  );
  lines.push('');
  lines.push(
    '| layer | I → O | R | product | ours ms | GFLOP/s | % peak | onnxruntime-web ms | ort / ours | PyTorch native ms |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    const flops = 2 * c.R * c.I * c.O;
    const gf = g(flops, c.ours);
    const o = Number.isFinite(c.ort) ? c.ort : NaN;
    const t = torchMs(c);
    lines.push(
      `| ${c.name} | ${c.I} → ${c.O} | ${c.R} | ${c.form.math} | ${fmt(c.ours)} | ${gf.toFixed(2)} | ${pct(gf)} | ` +
        `${Number.isFinite(o) ? fmt(o) : '—'} | ${Number.isFinite(o) ? (o / c.ours).toFixed(2) + '×' : '—'} | ` +
        `${t ? fmt(t) : '—'} |`,
    );
  }
  lines.push('');
  const gemmShares = cases.filter((c) => c.R >= 64 || quick).map((c) => g(2 * c.R * c.I * c.O, c.ours) / peak.gflops);
  const sorted = [...gemmShares].sort((a, b) => a - b);
  if (sorted.length && !quick) {
    lines.push(
      `At R ≥ 64 rows the products run at ${(100 * sorted[0]).toFixed(0)}–${(100 * sorted[sorted.length - 1]).toFixed(0)}% ` +
        `of the peak (median ${(100 * sorted[Math.floor(sorted.length / 2)]).toFixed(0)}%); goal ≥ 75%.`,
    );
    lines.push('');
  }
  lines.push("## Attention, tiled kernel, H = 8, hs = 64 (forward; backward from the forward's out and lse)");
  lines.push('');
  lines.push('| T | mask | forward ms | GFLOP/s | % peak | backward ms | GFLOP/s | % peak |');
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const a of attention) {
    const gf = g(a.fwdFlops, a.fwd),
      gb = g(a.bwdFlops, a.bwd);
    lines.push(
      `| ${a.T} | ${a.causal ? 'causal' : 'none'} | ${fmt(a.fwd)} | ${gf.toFixed(2)} | ${pct(gf)} | ${fmt(a.bwd)} | ` +
        `${gb.toFixed(2)} | ${pct(gb)} |`,
    );
  }
  lines.push('');
  pushList(lines, 'Notes:', notes);
  pushList(lines, 'Problems:', problems);
  const markdown = lines.join('\n');
  const summary =
    `kernels${quick ? ' --quick' : ''}: ${checked} checks (gemm_simd = gemm_ref bit for bit, onnxruntime-web agrees), ` +
    `${cases.length} products and ${attention.length} attention shapes timed; ` +
    `${problems.length ? `${problems.length} problem(s): ${problems[0]}` : 'no problems'}`;
  return { markdown, problems, notes, checked, summary, peak };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await runKernelsBench({ quick });
  if (!quick) {
    const dir = path.join(here, 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `kernels-${new Date().toISOString().slice(0, 10)}.md`);
    writeFileSync(file, result.markdown + '\n');
    process.stderr.write(`kernels: wrote ${path.relative(root, file)}\n`);
  }
  process.stdout.write(result.markdown + '\n');
  console.log(result.summary);
  process.exitCode = result.problems.length ? 1 : 0;
}

// The benchmark: our WASM SIMD attention kernels against the peers, same process, same inputs.
//
//   node bench/run.mjs            full run; writes bench/results/<date>.md and latest.md
//   node bench/run.mjs --quick    small T, few reps: checks everything runs and outputs match
//                                 (used by npm test; exit code 1 on a mismatch or a failure)
//   options: --T 256,1024   --H 8   --no-js   --no-memory   --no-native   --no-train   --no-kernels
//            --no-threads   --out <file.md>
// Then the GEMM and attention kernels against the peak (bench/kernels.mjs: full runs write
// bench/results/kernels-<date>.md; --quick checks gemm_simd = gemm_ref bit for bit and the
// peers' outputs), the native thread speed-ups (bench/threads.mjs, full runs only:
// bench/results/threads-<date>.md) and the training benchmark (bench/train.mjs; alone: node
// bench/train.mjs): full runs write bench/results/train-<date>.md, --quick checks that every
// trainer's losses agree.
// Full runs also add two native anchors when available: PyTorch with one thread
// (/usr/bin/python3 bench/torch_anchor.py) and our kernels compiled natively with SSE4.1
// (Google Benchmark, build-bench-native/bench/attn_native_bench; see bench/native_bench.cpp).
//
// Workload: float32, B = 1, H heads of hs = 64, O = softmax(Q Kᵀ / √hs [causal]) V, one
// thread everywhere. Timing: warm-up, then repeated runs; the table gives the median and the
// p10–p90 spread. GFLOP/s counts the useful multiply-adds of Q Kᵀ and P V (4·hs flops per
// computed (query, key) pair; causal: only the T(T+1)/2 pairs on and below the diagonal),
// not the softmax; "% peak" divides that by the measured SIMD128 peak (bk_peak).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quantile, fmtMs, pushList } from './report.mjs';

import { loadBenchModule } from './build_wasm.mjs';
import { oursPeer, ortMhaPeer, ortPeer, plainJsPeer, tfjsPeer } from './peers.mjs';
import { measurePeak, runKernelsBench } from './kernels.mjs';
import { runThreadsBench } from './threads.mjs';
import { runTrainBench } from './train.mjs';
import { mulberry32 } from '../web/lib/learn/random.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

// ---------------------------------------------------------------------------------------
// Arguments.

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const QUICK = flag('--quick');
const HS = 64;
const T_LIST = option('--T', QUICK ? '16,67' : '16,64,256,1024,2048,4096')
  .split(',')
  .map(Number);
const H_LIST = option('--H', QUICK ? '2' : '8,1')
  .split(',')
  .map(Number);
const JS_MAX_T = QUICK ? Infinity : 1024; // plain JS beyond this takes minutes per call
const TFJS_MAX_T = QUICK ? Infinity : 2048; // tfjs-wasm: ~17 s per call at T = 2048, H = 8 here
const TIME_BUDGET_MS = QUICK ? 0 : 1500; // per (shape, implementation) after warm-up
const MIN_REPS = QUICK ? 2 : 5,
  MAX_REPS = QUICK ? 2 : 25;
// Outputs must match ours within this (inputs uniform in [−1, 1], |O| ≤ 1; float32
// summation-order differences are ~1e-6; a wrong mask or scale is ≥ 1e-2).
const MATCH_TOL = 1e-4;

// ---------------------------------------------------------------------------------------
// Helpers.

function randomInputs(H, T, hs, seed) {
  const rand = mulberry32(seed);
  const make = () => Float32Array.from({ length: H * T * hs }, () => rand() * 2 - 1);
  return { q: make(), k: make(), v: make() };
}
function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = d; // NaN propagates as a mismatch
  }
  return m;
}
const usefulFlops = (H, T, hs, causal) => H * (causal ? (T * (T + 1)) / 2 : T * T) * 4 * hs;

// ---------------------------------------------------------------------------------------
// Main.

const problems = [];
const notes = []; // peer failures in full runs (e.g. a peer running out of memory): reported, not fatal
const loadStart = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const log = (s) => process.stderr.write(s + '\n');

const M = await loadBenchModule();
if (!M._bk_simd_enabled()) problems.push('bench module was built without SIMD128');
// The peak is re-measured between shapes and at the end; the highest value counts, since
// load from other jobs can only make a sample slower.
const peak = measurePeak(M, { quick: QUICK });
const remeasurePeak = (samples = 8) => {
  const p = measurePeak(M, { quick: QUICK, samples: QUICK ? 2 : samples });
  if (p.gflops > peak.gflops) Object.assign(peak, p);
  peak.forms = peak.forms.map((g, i) => Math.max(g, p.forms[i]));
};
log(
  `SIMD128 peak: ${peak.gflops.toFixed(2)} GFLOP/s (form ${peak.form}, ${peak.chains} chains; ` +
    `acc·m+c ${peak.forms[0].toFixed(2)}, acc+x·y ${peak.forms[1].toFixed(2)})`,
);

const peers = [];
for (const [name, make] of [
  ['onnxruntime-web', ortPeer],
  ['ort-web MHA op', ortMhaPeer],
  ['tfjs-wasm', tfjsPeer],
]) {
  try {
    peers.push(await make());
  } catch (e) {
    problems.push(`${name} failed to load: ${e.message}`);
  }
}
if (!flag('--no-js')) peers.push(plainJsPeer());
const ours = oursPeer(M, 'tiled');
const ours3 = oursPeer(M, '3pass');
const oursRef = oursPeer(M, 'ref');

// Per shape, all implementations are prepared and warmed up, then timed round-robin (one run
// of each per round), so load from other jobs on the shared machine hits all of them alike;
// "ratio" is the median over rounds of the paired ratio peer time / our time.
const rows = [];
for (const H of H_LIST) {
  for (const causal of [true, false]) {
    for (const T of T_LIST) {
      if (!QUICK) remeasurePeak();
      const inputs = { H, T, hs: HS, causal, ...randomInputs(H, T, HS, 1000 * H + T + (causal ? 7 : 0)) };
      const flops = usefulFlops(H, T, HS, causal);
      const row = { H, T, causal, flops, results: {} };
      rows.push(row);
      const impls = [ours, ours3, ...peers, ...(T <= 256 ? [oursRef] : [])].filter(
        (impl) => !(impl.name === 'plain JS' && T > JS_MAX_T) && !(impl.name === 'tfjs-wasm' && T > TFJS_MAX_T),
      );
      const live = [];
      let reference = null;
      for (const impl of impls) {
        try {
          const run = await impl.prepare(inputs);
          live.push({ impl, run, times: [] });
          let out;
          for (let w = 0; w < (QUICK || T >= 2048 ? 1 : 2); w++) out = await run();
          if (!reference) reference = out;
          const diff = maxAbsDiff(out, reference);
          row.results[impl.name] = { diff };
          if (!(diff <= MATCH_TOL))
            problems.push(`${impl.name} H=${H} T=${T} causal=${causal}: max |diff| ${diff} > ${MATCH_TOL}`);
        } catch (e) {
          row.results[impl.name] = { error: e.message.split('\n')[0].slice(0, 160) };
          const isOurs = [ours, ours3, oursRef].includes(impl);
          (QUICK || isOurs ? problems : notes).push(
            `${impl.name} H=${H} T=${T} causal=${causal}: ${row.results[impl.name].error}`,
          );
          log(`H=${H} T=${T} ${impl.name}: FAILED ${e.message.split('\n')[0]}`);
          const failed = live.findIndex((l) => l.impl === impl);
          if (failed >= 0) live.splice(failed, 1);
        }
      }
      const minReps = T >= 2048 ? Math.min(3, MIN_REPS) : MIN_REPS;
      const start = performance.now();
      for (
        let round = 0;
        round < minReps || (round < MAX_REPS && performance.now() - start < TIME_BUDGET_MS * live.length);
        round++
      ) {
        for (const l of live) {
          try {
            const t0 = performance.now();
            await l.run();
            l.times.push(performance.now() - t0);
          } catch (e) {
            l.times.push(NaN);
            problems.push(`${l.impl.name} H=${H} T=${T} causal=${causal}: ${e.message.split('\n')[0]}`);
          }
        }
      }
      const base = live.find((l) => l.impl === ours);
      for (const l of live) {
        const r = row.results[l.impl.name];
        const sorted = [...l.times].sort((x, y) => x - y);
        Object.assign(r, {
          best: sorted[0],
          median: quantile(sorted, 0.5),
          p10: quantile(sorted, 0.1),
          p90: quantile(sorted, 0.9),
          reps: sorted.length,
        });
        if (base && l !== base) {
          r.ratio = quantile(
            l.times.map((t, i) => t / base.times[i]).sort((x, y) => x - y),
            0.5,
          );
        }
        const bad = !(r.diff <= MATCH_TOL);
        log(
          `H=${H} T=${String(T).padStart(4)} ${causal ? 'causal' : 'full  '} ${l.impl.name.padEnd(16)} ` +
            `${fmtMs(r.median).padStart(8)} ms  [${fmtMs(r.p10)}–${fmtMs(r.p90)}] ×${r.reps}  ` +
            `${(flops / r.median / 1e6).toFixed(2)} GFLOP/s  diff ${r.diff.toExponential(1)}` +
            `${r.ratio ? `  ratio ${r.ratio.toFixed(2)}×` : ''}${bad ? '  MISMATCH' : ''}`,
        );
        if (l.run.dispose) await l.run.dispose();
      }
    }
  }
}

if (!QUICK) remeasurePeak(40);
log(`SIMD128 peak (highest over the run): ${peak.gflops.toFixed(2)} GFLOP/s`);

// Profile of where the time goes (our kernels, H = 8): each pass of the 3-pass path alone,
// next to the fused tiled kernel; fastest of interleaved runs, GFLOP/s against the peak.
const profile = [];
{
  const H = 8,
    T = QUICK ? 64 : 1024,
    n = H * T * HS;
  const p = [0, 1, 2, 3].map(() => M._bk_malloc(n * 4));
  const ps = M._bk_malloc(T * T * 4);
  const { q, k, v } = randomInputs(H, T, HS, 77);
  M.HEAPF32.set(q, p[0] >> 2);
  M.HEAPF32.set(k, p[1] >> 2);
  M.HEAPF32.set(v, p[2] >> 2);
  for (const causal of [1, 0]) {
    const stages = [
      ['scores Q·Kᵀ', () => M._bk_attention_stage(0, p[3], ps, p[0], p[1], p[2], H, T, HS, causal), 0.5],
      ['row softmax', () => M._bk_attention_stage(1, p[3], ps, p[0], p[1], p[2], H, T, HS, causal), 0],
      ['weights·V', () => M._bk_attention_stage(2, p[3], ps, p[0], p[1], p[2], H, T, HS, causal), 0.5],
      ['3-pass total', () => M._bk_attention_3pass(p[3], ps, p[0], p[1], p[2], H, T, HS, causal), 1],
      ['fused tiled', () => M._bk_attention_tiled(p[3], p[0], p[1], p[2], H, T, HS, causal), 1],
    ];
    const best = stages.map(() => Infinity);
    for (let round = 0; round < (QUICK ? 2 : 9); round++) {
      stages.forEach(([, fn], i) => {
        const t0 = performance.now();
        fn();
        best[i] = Math.min(best[i], performance.now() - t0);
      });
    }
    const flops = usefulFlops(H, T, HS, causal === 1);
    stages.forEach(([name, , share], i) => {
      const g = share ? (flops * share) / best[i] / 1e6 : NaN;
      profile.push({ T, causal: causal === 1, name, ms: best[i], gflops: g });
      log(
        `profile T=${T} ${causal ? 'causal' : 'full'} ${name.padEnd(14)} ${fmtMs(best[i])} ms` +
          (share ? `  ${g.toFixed(2)} GFLOP/s (${((100 * g) / peak.gflops).toFixed(0)}% of peak)` : ''),
      );
    });
  }
  [...p, ps].forEach((x) => M._bk_free(x));
}

// The seed example through the real engine (src/core/ via web/engine/engine.js).
let seedResult = null;
try {
  const { loadEngine } = await import('../web/engine/engine.js');
  const engine = await loadEngine();
  const ex = engine.examples();
  const x = ex.contexts.river.map((w) => ex.vocabulary[w]);
  const args = { x, wq: ex.W_query, wk: ex.W_key, wv: ex.W_value };
  const perCall = [];
  // Enough calls for V8 to optimise engine.js's argument checks before the clock starts (a few
  // milliseconds in all, so the quick mode keeps it too).
  const batch = QUICK ? 1000 : 2000;
  for (let i = 0; i < 3000; i++) engine.attend(args); // warm-up
  for (let r = 0; r < (QUICK ? 3 : 15); r++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) engine.attend(args);
    perCall.push(((performance.now() - t0) / batch) * 1000);
  }
  perCall.sort((a, b) => a - b);
  const trace = engine.attend(args);
  seedResult = {
    us: quantile(perCall, 0.5),
    p10: quantile(perCall, 0.1),
    p90: quantile(perCall, 0.9),
    kernel: trace.kernel,
    outShape: trace.output.shape,
  };
  log(
    `seed 003 bank example (T=3, D=4) via engine.attend: ${seedResult.us.toFixed(2)} µs/call (kernel ${trace.kernel})`,
  );
} catch (e) {
  problems.push(`engine.attend seed example: ${e.message.split('\n')[0]}`);
}

// Peak heap with the tiled kernel: a fresh module (2 MB initial heap, grows on demand) per
// case; memory.buffer.byteLength after the run is the high-water mark of the whole WASM heap.
// Two layouts: heads run one after the other with one head's Q, K, V, O resident (heads are
// independent, so a caller can stream them), and all H heads resident at once.
const memory = [];
if (!flag('--no-memory')) {
  for (const T of QUICK ? [1024] : [4096, 16384]) {
    for (const resident of ['one head', 'all heads']) {
      try {
        const Mm = await loadBenchModule();
        const H = 8,
          heads = resident === 'one head' ? 1 : H,
          n = heads * T * HS,
          bytes = n * 4;
        const p = [0, 1, 2, 3].map(() => Mm._bk_malloc(bytes));
        if (p.some((x) => !x)) throw new Error('out of memory');
        const rand = mulberry32(T);
        const t0 = performance.now();
        for (let pass = 0; pass < H / heads; pass++) {
          for (let b = 0; b < 3; b++) {
            const view = Mm.HEAPF32.subarray(p[b] >> 2, (p[b] >> 2) + n);
            for (let i = 0; i < n; i++) view[i] = rand() * 2 - 1;
          }
          Mm._bk_attention_tiled(p[3], p[0], p[1], p[2], heads, T, HS, 1);
        }
        const ms = performance.now() - t0;
        const out = Mm.HEAPF32.subarray(p[3] >> 2, (p[3] >> 2) + n);
        const finite = out.every(Number.isFinite);
        const heap = Mm.HEAPF32.buffer.byteLength;
        memory.push({ T, H, resident, heapMB: heap / 2 ** 20, ioMB: (4 * bytes) / 2 ** 20, ms, finite });
        log(
          `memory: T=${T} H=${H} causal tiled, ${resident} resident: heap ${(heap / 2 ** 20).toFixed(1)} MB ` +
            `(Q,K,V,O ${((4 * bytes) / 2 ** 20).toFixed(0)} MB), ${ms.toFixed(0)} ms, finite=${finite}`,
        );
        if (!finite) problems.push(`memory run T=${T}: non-finite output`);
      } catch (e) {
        problems.push(`memory run T=${T} (${resident}): ${e.message}`);
      }
    }
  }
}

// Native anchors (full runs only): same shapes, one thread.
const native = { torch: null, sse: null };
if (!QUICK && !flag('--no-native')) {
  try {
    const info = JSON.parse(
      execFileSync('/usr/bin/python3', [path.join(here, 'torch_anchor.py'), '--json', '--T', T_LIST.join(',')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 900e3,
      }),
    );
    native.torch = { version: info.torch, blas: info.blas, rows: info.rows };
    log(`PyTorch ${info.torch} anchor: ${info.rows.length} shapes`);
  } catch (e) {
    problems.push(`PyTorch anchor not run: ${e.message.split('\n')[0]}`);
  }
  const bin = path.join(root, 'build-bench-native', 'bench', 'attn_native_bench');
  if (existsSync(bin)) {
    try {
      const json = JSON.parse(
        execFileSync(
          bin,
          [
            '--benchmark_filter=BM_Tiled|BM_Peak|BM_PeakBroadcast',
            '--benchmark_format=json',
            '--benchmark_min_time=0.3',
          ],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 900e3 },
        ),
      );
      native.sse = { rows: [], peak: null };
      for (const b of json.benchmarks) {
        if (b.name.startsWith('BM_Peak')) native.sse.peak = Math.max(native.sse.peak ?? 0, b['GFLOP/s']);
        const m = /^BM_Tiled\/H:(\d+)\/T:(\d+)\/causal:(\d)/.exec(b.name);
        if (m) native.sse.rows.push({ H: +m[1], T: +m[2], causal: m[3] === '1', median: b.real_time });
      }
      log(`native SSE kernels: ${native.sse.rows.length} shapes, peak ${native.sse.peak?.toFixed(2)} GFLOP/s`);
    } catch (e) {
      problems.push(`native bench failed: ${e.message.split('\n')[0]}`);
    }
  } else {
    log(`native SSE kernels skipped: build ${path.relative(root, bin)} first (see bench/native_bench.cpp)`);
  }
}
const nativeTime = (list, row) => list?.find((r) => r.H === row.H && r.T === row.T && r.causal === row.causal)?.median;

// ---------------------------------------------------------------------------------------
// Report.

const peerNames = peers.map((p) => p.name);
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const date = new Date().toISOString();
const lines = [];
lines.push(`# Attention benchmark — ${date.slice(0, 10)}`);
lines.push('');
lines.push(
  `Machine: ${cpu}, ${os.cpus().length} logical cores shared with other jobs (load average ${loadStart} at ` +
    `the start, ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end), Node ${process.version}, ` +
    `V8 ${process.versions.v8}; ${peers
      .filter((p) => p.version)
      .map((p) => `${p.name} ${p.version}`)
      .join(', ')}.`,
);
lines.push(
  `Command: \`node bench/run.mjs${argv.length ? ' ' + argv.join(' ') : ''}\`. Float32, B = 1, hs = ${HS}, one ` +
    'thread, same Q, K, V (uniform [−1, 1]) for everyone; time includes copying inputs in and the output out.',
);
lines.push(
  `Measured SIMD128 peak (independent f32x4 mul+add chains, bench/wasm_kernels.cpp, fastest sample): ` +
    `**${peak.gflops.toFixed(2)} GFLOP/s** (chains acc·m + c: ${peak.forms[0].toFixed(2)}; chains acc + x·y with x ` +
    `broadcast from memory, the kernels' instruction mix: ${peak.forms[1].toFixed(2)}; the higher is used).`,
);
lines.push(
  'GFLOP/s = useful flops (4·hs per computed query–key pair; causal counts T(T+1)/2 pairs for everyone, ' +
    'although the peers compute all T² and mask) / median time; "—" = not run (plain JS above T = ' +
    `${JS_MAX_T}, ` +
    `tfjs-wasm above T = ${TFJS_MAX_T}: minutes per call); "best-run" uses the fastest run, comparable with the ` +
    'peak, which is also a fastest run. Median after warm-up, [p10–p90], ms. ' +
    '"ratio" = peer time / ours (tiled), the median over rounds of paired runs (each round runs every ' +
    'implementation once, so load from other jobs hits all alike); > 1 means ours is faster. Max |diff| is against ours (tiled).',
);
lines.push('');
const header = [
  'H',
  'T',
  'mask',
  'ours tiled ms',
  'GFLOP/s',
  'best-run GFLOP/s',
  '% peak (best run)',
  'ours 3-pass ms',
];
for (const n of peerNames) header.push(`${n} ms`, 'ratio');
if (native.torch) header.push('PyTorch native ms');
if (native.sse) header.push('ours native SSE ms');
header.push('max |diff|');
lines.push(`| ${header.join(' | ')} |`);
lines.push(`|${header.map(() => '---').join('|')}|`);
for (const row of rows) {
  const o = row.results[ours.name];
  const cell = (r) => (!r ? '—' : r.error ? 'failed' : `${fmtMs(r.median)} [${fmtMs(r.p10)}–${fmtMs(r.p90)}]`);
  const g = o && !o.error ? row.flops / o.median / 1e6 : NaN;
  const gb = o && !o.error ? row.flops / o.best / 1e6 : NaN;
  const c = [
    row.H,
    row.T,
    row.causal ? 'causal' : 'none',
    cell(o),
    g.toFixed(2),
    gb.toFixed(2),
    `${((100 * gb) / peak.gflops).toFixed(0)}%`,
    cell(row.results[ours3.name]),
  ];
  let worst = 0;
  for (const r of Object.values(row.results)) if (r && !r.error) worst = Math.max(worst, r.diff);
  for (const n of peerNames) {
    const r = row.results[n];
    c.push(cell(r), r?.ratio ? `${r.ratio.toFixed(2)}×` : '—');
  }
  if (native.torch) c.push(fmtMs(nativeTime(native.torch.rows, row) ?? NaN));
  if (native.sse) c.push(fmtMs(nativeTime(native.sse.rows, row) ?? NaN));
  c.push(worst.toExponential(1));
  lines.push(`| ${c.join(' | ')} |`);
}
lines.push('');
if (native.torch || native.sse) {
  lines.push(
    'Native anchors (x86-64, one thread, not in the browser): ' +
      (native.torch
        ? `PyTorch ${native.torch.version} (matmul–masked_fill–softmax–matmul, BLAS ${native.torch.blas}); `
        : '') +
      (native.sse
        ? `our tiled kernel built natively with SSE4.1 (Google Benchmark wall time; f32x4 peak ` +
          `${native.sse.peak?.toFixed(2)} GFLOP/s).`
        : ''),
  );
}
lines.push('');
if (profile.length) {
  lines.push(
    `Profile (H = 8, T = ${profile[0].T}, fastest of interleaved runs): each pass of the 3-pass kernel alone, ` +
      'and the fused kernel. GFLOP/s of a matmul pass counts its half of the useful flops.',
  );
  lines.push('');
  lines.push('| mask | pass | ms | GFLOP/s | % peak |');
  lines.push('|---|---|---|---|---|');
  for (const r of profile) {
    lines.push(
      `| ${r.causal ? 'causal' : 'none'} | ${r.name} | ${fmtMs(r.ms)} | ` +
        `${Number.isNaN(r.gflops) ? '—' : r.gflops.toFixed(2)} | ` +
        `${Number.isNaN(r.gflops) ? '—' : ((100 * r.gflops) / peak.gflops).toFixed(0) + '%'} |`,
    );
  }
  lines.push('');
}
if (seedResult) {
  lines.push(
    `Seed 003 bank example (T = 3, D = 4, W_query/W_key/W_value, river context) through ` +
      `\`engine.attend\` (web/engine/engine.js, full trace, kernel ${seedResult.kernel}): ` +
      `**${seedResult.us.toFixed(2)} µs per call** [${seedResult.p10.toFixed(2)}–${seedResult.p90.toFixed(2)}].`,
  );
  lines.push('');
}
if (memory.length) {
  lines.push(
    'Peak WASM heap, tiled kernel, causal, H = 8, hs = 64 (module starts at 2 MB and grows on demand; the ' +
      'figure is memory.buffer.byteLength after the run, which includes the Q, K, V, O buffers):',
  );
  lines.push('');
  lines.push(
    '| T | resident | peak heap | of which Q,K,V,O | beyond Q,K,V,O | time (all 8 heads, incl. filling inputs) |',
  );
  lines.push('|---|---|---|---|---|---|');
  for (const m of memory) {
    lines.push(
      `| ${m.T} | ${m.resident} | ${m.heapMB.toFixed(1)} MB | ${m.ioMB.toFixed(0)} MB | ` +
        `${(m.heapMB - m.ioMB).toFixed(1)} MB | ${fmtMs(m.ms)} ms |`,
    );
  }
  lines.push('');
}
pushList(lines, 'Peer failures (not ours; the cell says "failed"):', notes);
pushList(lines, 'Problems:', problems);
const markdown = lines.join('\n');

if (!QUICK) {
  const dir = path.join(here, 'results');
  mkdirSync(dir, { recursive: true });
  const outFile = option('--out', path.join(dir, `${date.slice(0, 10)}.md`));
  writeFileSync(outFile, markdown + '\n');
  writeFileSync(path.join(dir, 'latest.md'), markdown + '\n');
  process.stdout.write(markdown + '\n');
  log(`bench: wrote ${path.relative(root, outFile)} and bench/results/latest.md`);
}

// The GEMM and attention kernels against the peak, then the native thread speed-ups.
let kernels = null,
  threads = null;
if (!flag('--no-kernels')) {
  try {
    kernels = await runKernelsBench({ quick: QUICK, log });
    if (!QUICK) {
      const file = path.join(here, 'results', `kernels-${date.slice(0, 10)}.md`);
      writeFileSync(file, kernels.markdown + '\n');
      process.stdout.write('\n' + kernels.markdown + '\n');
      log(`bench: wrote ${path.relative(root, file)}`);
    }
  } catch (e) {
    problems.push(`kernel benchmark: ${e.message.split('\n')[0]}`);
  }
}
if (!QUICK && !flag('--no-threads')) {
  try {
    threads = await runThreadsBench({ log });
    const file = path.join(here, 'results', `threads-${date.slice(0, 10)}.md`);
    writeFileSync(file, threads.markdown + '\n');
    process.stdout.write('\n' + threads.markdown + '\n');
    log(`bench: wrote ${path.relative(root, file)}`);
  } catch (e) {
    problems.push(`thread benchmark: ${e.message.split('\n')[0]}`);
  }
}

// The training benchmark, after the kernels (it loads tfjs's backends into this process too).
let train = null;
if (!flag('--no-train')) {
  try {
    train = await runTrainBench({ quick: QUICK, log });
    if (!QUICK) {
      const trainFile = path.join(here, 'results', `train-${date.slice(0, 10)}.md`);
      writeFileSync(trainFile, train.markdown + '\n');
      process.stdout.write('\n' + train.markdown + '\n');
      log(`bench: wrote ${path.relative(root, trainFile)}`);
    }
  } catch (e) {
    problems.push(`training benchmark: ${e.message.split('\n')[0]}`);
  }
}

const checked = rows.reduce((n, r) => n + Object.values(r.results).filter((x) => !x.error).length, 0);
const summary =
  `bench${QUICK ? ' --quick' : ''}: ${checked} runs over ${rows.length} shapes, ` +
  `peers ${peerNames.join(', ')}${notes.length ? ` (${notes.length} peer failure(s), see report)` : ''}; ${problems.length ? `${problems.length} problem(s): ${problems[0]}` : 'all outputs match'}` +
  (seedResult ? `; seed example ${seedResult.us.toFixed(1)} µs/call` : '');
console.log(summary);
if (kernels) console.log(kernels.summary);
if (threads) console.log(threads.summary);
if (train) console.log(train.summary);
// Each implementation's output on each shape is one check against ours; each trainer's loss
// curve on each model one check against the reference trainer's.
const failed =
  problems.length + (train?.problems.length ?? 0) + (kernels?.problems.length ?? 0) + (threads?.problems.length ?? 0);
console.log(`bench: ${checked + (train?.checked ?? 0) + (kernels?.checked ?? 0)} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;

// The thread benchmark of issue 21: native speed-up with 2 threads over 1 (src/core/threads.h)
// on a char-model training step, a pretraining-sized step, a GPT-2-small-shaped forward and the
// tiled attention, beside PyTorch's own 1 → 2 thread speed-up on the same work, and ours against
// PyTorch at 2 threads. Both sides time 1 and 2 threads in interleaved pairs (so load from other
// jobs on this shared machine hits both alike) and report medians and p10–p90 of wall time.
//
//   node bench/threads.mjs [--rounds 15]   writes bench/results/threads-<date>.md
// Needs build-bench-native/bench/attn_threads_bench (bench/native_threads.cpp):
//   cmake -S . -B build-bench-native -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_BENCH=ON
//   cmake --build build-bench-native -j2 --target attn_threads_bench
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { fmtMs, pushList } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
export const THREADS_BIN = path.join(root, 'build-bench-native', 'bench', 'attn_threads_bench');

// Goals of issue 21 for the 2-thread speed-up, by workload.
const GOALS = { 'char-step': 1.7, 'gpt2-forward': 1.7, attention: 1.7, 'pretrain-step': 1.8 };

/**
 * Runs both sides. Returns {markdown, problems, notes, summary}.
 * @param {{rounds?: number, log?: (s: string) => void}} options
 */
export async function runThreadsBench({ rounds = 15, log = (s) => process.stderr.write(s + '\n') } = {}) {
  const problems = [],
    notes = [];
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  const loadStart = load();
  let ours = null,
    torch = null;
  if (existsSync(THREADS_BIN)) {
    try {
      ours = JSON.parse(execFileSync(THREADS_BIN, ['--rounds', String(rounds)], { encoding: 'utf8', timeout: 1800e3 }));
      log(`threads: ours done (load ${load()})`);
    } catch (e) {
      problems.push(`native thread bench failed: ${e.message.split('\n')[0]}`);
    }
  } else {
    notes.push(`native thread bench not run: build ${path.relative(root, THREADS_BIN)} first (see bench/threads.mjs)`);
  }
  try {
    torch = JSON.parse(
      execFileSync('/usr/bin/python3', [path.join(here, 'torch_threads.py'), '--rounds', String(rounds)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 1800e3,
      }),
    );
    log(`threads: PyTorch done (load ${load()})`);
  } catch (e) {
    notes.push(`PyTorch not run: ${e.message.split('\n')[0]}`);
  }

  const lines = [];
  const date = new Date().toISOString();
  lines.push(`# Threads — ${date.slice(0, 10)}`);
  lines.push('');
  lines.push(
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} logical cores shared with other jobs ` +
      `(load average ${loadStart} at the start, ${load()} at the end). Ours: native (g++ -O3, SSE4.1 f32x4), the ` +
      `thread pool of src/core/threads.h${torch ? `; PyTorch ${torch.torch} (torch.set_num_threads, BLAS ${torch.blas})` : ''}.`,
  );
  lines.push(
    `Command: \`node bench/threads.mjs --rounds ${rounds}\`. Each side times 1 and ${ours?.threads ?? 2} threads in ` +
      `${rounds} interleaved pairs after a warm-up (wall time, ms: median [p10–p90]); "speed-up" is the median ` +
      '[p10–p90] of the paired ratios. A load average near or above the core count means other jobs held cores: ' +
      'a second thread then mostly waits for one.',
  );
  lines.push('');
  lines.push(
    '| workload | ours 1 thread | ours 2 threads | speed-up | goal | PyTorch 1 thread | PyTorch 2 threads | PyTorch speed-up | PyTorch 2 / ours 2 |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|');
  const cell = (s) => `${fmtMs(s.median)} [${fmtMs(s.p10)}–${fmtMs(s.p90)}]`;
  const ratio = (s) => `${s.median.toFixed(2)}× [${s.p10.toFixed(2)}–${s.p90.toFixed(2)}]`;
  for (const w of ours?.workloads ?? []) {
    const t = torch?.workloads.find((x) => x.name === w.name);
    const goal = GOALS[w.name];
    lines.push(
      `| ${w.name}: ${w.what} | ${cell(w.one)} | ${cell(w.many)} | ${ratio(w.speedup)} | ` +
        `${goal ? `≥ ${goal}×${w.speedup.median >= goal ? ' (met)' : ' (not met)'}` : '—'} | ` +
        `${t ? cell(t.one) : '—'} | ${t ? cell(t.many) : '—'} | ${t ? ratio(t.speedup) : '—'} | ` +
        `${t ? `${(t.many.median / w.many.median).toFixed(2)}×` : '—'} |`,
    );
  }
  lines.push('');
  lines.push(
    '"PyTorch 2 / ours 2" > 1: ours is faster with 2 threads. PyTorch runs the same shapes with random weights ' +
      '(bench/torch_threads.py; its attention is matmul–masked_fill–softmax–matmul, its fwd-bwd through autograd).',
  );
  lines.push('');
  pushList(lines, 'Notes:', notes);
  pushList(lines, 'Problems:', problems);
  const markdown = lines.join('\n');
  const summary =
    `threads: ${ours ? ours.workloads.map((w) => `${w.name} ${w.speedup.median.toFixed(2)}×`).join(', ') : 'native bench not run'}` +
    `${problems.length ? `; ${problems.length} problem(s): ${problems[0]}` : ''}`;
  return { markdown, problems, notes, summary };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--rounds');
  const result = await runThreadsBench({ rounds: i > 0 ? Number(process.argv[i + 1]) : 15 });
  const dir = path.join(here, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `threads-${new Date().toISOString().slice(0, 10)}.md`);
  writeFileSync(file, result.markdown + '\n');
  process.stdout.write(result.markdown + '\n');
  console.log(result.summary);
  process.stderr.write(`threads: wrote ${path.relative(root, file)}\n`);
  process.exitCode = result.problems.length ? 1 : 0;
}

// Builds and runs bench/one_row.cpp (one token's linear layers of GPT-2 small in WASM, every
// layout, beside a plain read of the same bytes) and appends a table to
// bench/results/one-row-<date>.md. A benchmark, not a test.
//
//   node bench/one_row.mjs
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'build-bench', 'one_row.cjs');
mkdirSync(path.dirname(out), { recursive: true });
execFileSync(
  'em++',
  [
    '-O3',
    '-msimd128',
    '-std=c++17',
    '-Isrc',
    'bench/one_row.cpp',
    'src/kernels/gemm_simd.cpp',
    'src/kernels/gemm_ref.cpp',
    'src/kernels/half.cpp',
    '-o',
    out,
    '-sENVIRONMENT=node',
    '-sSINGLE_FILE=1',
    '-sALLOW_MEMORY_GROWTH=1',
    '-sMAXIMUM_MEMORY=4GB',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } },
);
const loadStart = os.loadavg()[0];
const result = JSON.parse(execFileSync('node', [out], { encoding: 'utf8' }));
const loadEnd = os.loadavg()[0];
const date = new Date().toISOString().slice(0, 10);
const lines = [
  `## One token's linear layers, WASM under Node ${process.versions.node} — ${date}`,
  '',
  `bench/one_row.cpp: GPT-2 small's 48 block products and the LM head (${result.weights} weights, each product its own buffer), one row, the fastest of 8 interleaved rounds; load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end; results equal to gemm_ref bit for bit: ${result.mismatches === 0}.`,
  '',
  '| form | ms per token | GB/s of weights |',
  '|---|---|---|',
  ...result.forms.map((f) => `| ${f.name} | ${f.ms.toFixed(2)} | ${f.GBps.toFixed(1)} |`),
  '',
];
const file = path.join(root, 'bench', 'results', `one-row-${date}.md`);
appendFileSync(file, lines.join('\n') + '\n');
process.stdout.write(lines.join('\n') + '\n');

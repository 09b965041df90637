// Builds the bench-only WASM module (bench/wasm_kernels.cpp + src/kernels/) when it is missing
// or older than its sources, and loads it. Output: build-bench/bench_kernels.cjs (SINGLE_FILE,
// CommonJS, Node only; build-*/ is git-ignored).
//
//   node bench/build_wasm.mjs      # build only
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'build-bench');
const out = path.join(outDir, 'bench_kernels.cjs');
const sources = [
  'src/kernels/kernels_simd.cpp',
  'src/kernels/kernels_ref.cpp',
  'src/kernels/gemm_simd.cpp',
  'src/kernels/gemm_ref.cpp',
  'bench/wasm_kernels.cpp',
];
const headers = [
  'src/kernels/kernels.h',
  'src/kernels/gemm.h',
  'src/kernels/detail/micro_kernel.h',
  'src/kernels/f32x4.h',
];
const EXPORTS = [
  '_bk_attention_tiled',
  '_bk_attention_tiled_lse',
  '_bk_attention_tiled_backward',
  '_bk_attention_3pass',
  '_bk_attention_stage',
  '_bk_attention_ref',
  '_bk_linear',
  '_bk_peak',
  '_bk_simd_enabled',
  '_bk_malloc',
  '_bk_free',
];

const stamp = path.join(outDir, 'bench_kernels.args.json');

function emccArgs() {
  return [
    '-O3',
    '-msimd128',
    '-std=c++17',
    '-Wall',
    '-Wextra',
    '-Isrc',
    ...sources,
    '-o',
    out,
    '-sMODULARIZE=1',
    '-sEXPORT_NAME=createBenchKernels',
    '-sENVIRONMENT=node',
    '-sSINGLE_FILE=1',
    // Small initial heap that grows on demand, so memory.buffer.byteLength is the peak heap.
    '-sALLOW_MEMORY_GROWTH=1',
    '-sTOTAL_STACK=1MB',
    '-sINITIAL_MEMORY=2MB',
    '-sMAXIMUM_MEMORY=4GB',
    '-sFILESYSTEM=0',
    `-sEXPORTED_FUNCTIONS=[${EXPORTS.join(',')}]`,
  ];
}

function stale() {
  if (!existsSync(out) || !existsSync(stamp)) return true;
  if (readFileSync(stamp, 'utf8') !== JSON.stringify(emccArgs())) return true; // flags or exports changed
  const built = statSync(out).mtimeMs;
  return [...sources, ...headers, 'bench/build_wasm.mjs'].some((f) => statSync(path.join(root, f)).mtimeMs > built);
}

export function buildBenchModule({ force = false } = {}) {
  if (!force && !stale()) return out;
  mkdirSync(outDir, { recursive: true });
  // The bench module must be CommonJS even though the repo's package.json says "module".
  writeFileSync(path.join(outDir, 'package.json'), '{"type":"commonjs"}\n');
  const args = emccArgs();
  process.stderr.write(`bench: emcc ${args.join(' ')}\n`);
  execFileSync('emcc', args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  writeFileSync(stamp, JSON.stringify(args));
  return out;
}

// A fresh instance every call (each has its own heap, for the memory measurement).
export async function loadBenchModule() {
  const require = createRequire(import.meta.url);
  const create = require(buildBenchModule());
  return create();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildBenchModule({ force: process.argv.includes('--force') });
}

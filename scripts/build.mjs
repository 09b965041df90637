// Builds what is missing or stale: the WASM engine (web/lib/attention_engine.mjs), the vendored
// libraries (web/vendor/) and, when its script exists, dist/. `--force` rebuilds everything.
// Prints the gzipped size of what ships.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, copyFileSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...opts });

// Newest modification time under paths (files or folders).
function newest(paths) {
  let latest = 0;
  const visit = (p) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
    else latest = Math.max(latest, s.mtimeMs);
  };
  paths.forEach((p) => visit(join(root, p)));
  return latest;
}
const stale = (target, sources) => force || !existsSync(join(root, target)) || statSync(join(root, target)).mtimeMs < newest(sources);
const gzipKB = (file) => (gzipSync(readFileSync(join(root, file)), { level: 9 }).length / 1024).toFixed(1);

const engine = 'web/lib/attention_engine.mjs';
const wasm = 'web/lib/attention_engine.wasm';
if (stale(engine, ['src', 'CMakeLists.txt']) || stale(wasm, ['src', 'CMakeLists.txt'])) {
  console.log('build: compiling the WASM engine (emcmake cmake, -O3 -msimd128)');
  if (!existsSync(join(root, 'build-wasm/CMakeCache.txt'))) {
    run('emcmake', ['cmake', '-S', '.', '-B', 'build-wasm', '-DCMAKE_BUILD_TYPE=Release', '-DATTN_BUILD_DEMO=OFF']);
  }
  run('cmake', ['--build', 'build-wasm', '--target', 'attention_engine', '-j2']);
  copyFileSync(join(root, 'build-wasm/attention_engine.mjs'), join(root, engine));
  copyFileSync(join(root, 'build-wasm/attention_engine.wasm'), join(root, wasm));
  for (const file of [engine, wasm]) {
    console.log(`build: ${file} ${(statSync(join(root, file)).size / 1024).toFixed(1)} KB, ${gzipKB(file)} KB gzipped`);
  }
}

if (existsSync(join(root, 'scripts/vendor.mjs')) && stale('web/vendor', ['scripts/vendor.mjs', 'package.json'])) {
  run('node', ['scripts/vendor.mjs']);
}

if (existsSync(join(root, 'scripts/build-dist.mjs')) && stale('dist/attention-explorer.js', ['web', 'scripts/build-dist.mjs'])) {
  run('node', ['scripts/build-dist.mjs']);
}

// Builds what `npm start` and `npm test` need, incrementally:
//   web/engine/attention_engine{,_embed}.{mjs,wasm}  the WASM engine, whole and the element's small
//                                        build (cmake --build is incremental; CMake writes the
//                                        files straight into web/engine/)
//   web/engine/attention_engine_threads.{mjs,wasm,worker.js}  the whole engine with threads, for
//                                        workers of cross-origin isolated pages
//   web/vendor/d3-scale-chromatic.js     the page's one third-party library, bundled by esbuild
//                                        so the page works offline with no CDN
//   web/models/gpt2-tokenizer.bin        GPT-2's encoding for the page (scripts/build-tokenizers.mjs)
//   dist/                                the bundles (scripts/build-dist.mjs; esbuild, < 1 s), and
//                                        web/models/'s shipped files beside them
// Prints the size of what ships when the engine changed.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync, readFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { buildTokenizers } from './build-tokenizers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' }; // Debian's emcc needs acorn from there
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env });
const mtime = (file) => (existsSync(join(root, file)) ? statSync(join(root, file)).mtimeMs : 0);

const wasm = 'web/engine/attention_engine.wasm';
const before = mtime(wasm);
// A build folder configured before a target was added knows no rule for it (make stops before
// CMake would regenerate): configure again then.
const knowsTargets = () =>
  existsSync(join(root, 'build-wasm/Makefile')) &&
  readFileSync(join(root, 'build-wasm/Makefile'), 'utf8').includes('attention_engine_threads');
if (!existsSync(join(root, 'build-wasm/CMakeCache.txt')) || !knowsTargets()) {
  run('emcmake', ['cmake', '-S', '.', '-B', 'build-wasm', '-DCMAKE_BUILD_TYPE=Release', '-DATTN_BUILD_DEMO=OFF']);
}
const threadsWasm = 'web/engine/attention_engine_threads.wasm';
const threadsBefore = mtime(threadsWasm);
run('cmake', [
  '--build',
  'build-wasm',
  '--target',
  'attention_engine',
  'attention_engine_embed',
  'attention_engine_threads',
  '-j2',
]);
if (mtime(wasm) !== before || mtime(threadsWasm) !== threadsBefore) {
  for (const file of [
    'web/engine/attention_engine.mjs',
    wasm,
    'web/engine/attention_engine_embed.wasm',
    'web/engine/attention_engine_threads.mjs',
    threadsWasm,
  ]) {
    const bytes = readFileSync(join(root, file));
    const gz = gzipSync(bytes, { level: 9 }).length;
    console.log(`build: ${file} ${(bytes.length / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzipped`);
  }
}

mkdirSync(join(root, 'web/vendor'), { recursive: true });
await esbuild.build({
  stdin: { contents: "export * from 'd3-scale-chromatic';", resolveDir: root, loader: 'js' },
  bundle: true,
  format: 'esm',
  minify: true,
  outfile: join(root, 'web/vendor/d3-scale-chromatic.js'),
  logLevel: 'error',
  legalComments: 'inline',
  target: 'es2020',
});

await buildTokenizers();
run('node', ['scripts/build-dist.mjs']);

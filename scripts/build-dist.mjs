#!/usr/bin/env node
// Writes dist/, a folder ready for any static host (GitHub Pages style) that also works when its
// pages are opened from file://:
//   dist/attention-explorer.js       the <attention-explorer> element: ONE self-contained ES module
//                                    (engine + WASM + CSS inlined; ≤ 150 KB gzipped, checked here)
//   dist/attention-explorer.iife.js  the same as a classic script, for pages opened from file://
//                                    (Chromium does not load module scripts from file://)
//   dist/engine.js                   the engine alone for npm users (package.json "exports"):
//                                    one ES module with the same inlined WASM, for browsers,
//                                    bundlers and Node ≥ 18
//   dist/*.d.ts                      their types: the element's and a copy of the engine's
//   dist/index.html + app.js         the explorer page (classic script, WASM inlined) + styles/
//   dist/embed.html + embed.js       the iframe view (classic script, WASM inlined), and
//   dist/embed-host.js               the host page's script that sizes the frame
//   dist/examples/                   the host-page examples, pointing at ../attention-explorer.js
//   dist/attention-explorer.files.json
//                                    which files beside attention-explorer.js each figure needs
//                                    (the README's table is checked against it; the element
//                                    carries the same table, to name every missing file at once)
//   dist/attention-explorer.engine-threads.{mjs,worker.js,wasm}
//                                    the threaded engine (glue, pthread worker, WASM) as built,
//                                    which the workers load by URL where the page is cross-origin
//                                    isolated (engine.js, loadEngine({threads: 'auto'}))
// Usage: node scripts/build-dist.mjs   (run by scripts/build.mjs, after the WASM engine is built)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { MODEL_FILES as DIST_MODEL_FILES, copyModelsToDist } from './build-tokenizers.mjs';
import { SECTIONS } from '../web/views/sections.js';
import { SECTION_LOADERS } from '../web/views/full-engine-sections.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
const DIST = path.join(ROOT, 'dist');
const BUDGET_BYTES = 150 * 1024; // issue 5: the element file ≤ 150 KB gzipped, WASM included

// Two builds of the engine (CMakeLists.txt): the element inlines the small one (attention only);
// the page and the iframe inline the whole one.
const ENGINES = {
  embed: {
    glue: path.join(WEB, 'engine/attention_engine_embed.mjs'),
    wasm: path.join(WEB, 'engine/attention_engine_embed.wasm'),
  },
  full: { glue: path.join(WEB, 'engine/attention_engine.mjs'), wasm: path.join(WEB, 'engine/attention_engine.wasm') },
};
// The WASM travels gzip-compressed in base64 (≈ 54 KB instead of ≈ 75 KB for raw base64 once the
// bundle is gzipped) and is unpacked with DecompressionStream, which needs no eval and no fetch.
// The whole engine, for the element's views that need more than its small one (the plane, the
// notebooks, Learn): dist/engine.js, the npm engine module, beside the element's file.
const FULL_ENGINE_FILE = 'engine.js';
// The threaded engine's files: separate files beside the bundles, never inlined, as its pool's
// workers load the same glue by URL (and a blob: URL would break the strict CSP).
const THREADS_FILES = {
  glue: { from: 'engine/attention_engine_threads.mjs', to: 'attention-explorer.engine-threads.mjs' },
  worker: { from: 'engine/attention_engine_threads.worker.js', to: 'attention-explorer.engine-threads.worker.js' },
  wasm: { from: 'engine/attention_engine_threads.wasm', to: 'attention-explorer.engine-threads.wasm' },
};
const LEARN_WORKER_FILE = 'attention-explorer.learn-worker.js';
const wasmGzBase64 = (engine) => gzipSync(fs.readFileSync(ENGINES[engine].wasm), { level: 9 }).toString('base64');

const read = (p) => fs.readFileSync(path.join(WEB, p), 'utf8');
// The element's CSS: the explorer's styles and the element's own, minified (its comments are for
// the sources' readers, not the element's download).
const elementCss = esbuild.transformSync([read('styles/explorer.css'), read('element/element.css')].join('\n'), {
  loader: 'css',
  minify: true,
}).code;

const assetsSource = (engine, format) => `
const CSS = ${JSON.stringify(elementCss)};
const WASM_GZ = ${JSON.stringify(wasmGzBase64(engine))};
export async function elementCSS() { return CSS; }
let wasmPromise = null;
async function unpack() {
  if (typeof DecompressionStream === 'undefined') {
    throw new Error('this browser has no DecompressionStream, needed to unpack the inlined WebAssembly engine; please use a current browser');
  }
  const packed = Uint8Array.from(atob(WASM_GZ), (c) => c.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
export async function engineOptions() {
  wasmPromise ||= unpack();
  return { wasmBinary: await wasmPromise${engine === 'full' ? ', threadsFiles: threadsFiles()' : ''} };
}
${
  engine === 'full'
    ? `// The threaded engine's files beside this bundle (a classic script's import.meta.url is its
// location: the workers' own, beside them). Literal new URL('./…', import.meta.url): bundlers copy them.
const threadsFiles = () => ({
${Object.entries(THREADS_FILES)
  .map(([key, { to }]) => `  ${key}: new URL('./${to}', import.meta.url).href,`)
  .join('\n')}
});`
    : ''
}
// The whole engine, for views that need more than the inlined one: engine.js beside this script.
// The ES module names it with the literal new URL('./…', import.meta.url) that webpack and Vite
// recognise and copy; a classic script has no import.meta and asks document.currentScript.
${
  format === 'iife'
    ? `const SCRIPT_URL = typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : location.href;
const fullEngineUrl = () => new URL(${JSON.stringify(FULL_ENGINE_FILE)}, SCRIPT_URL);`
    : `const fullEngineUrl = () => new URL('./${FULL_ENGINE_FILE}', import.meta.url);`
}
export async function loadFullEngine() {
  const url = fullEngineUrl().href;
  let engineModule;
  try {
    engineModule = await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
  } catch (error) {
    throw new Error(\`could not load \${url} (\${error.message}); the plane, the notebooks and Learn need ${FULL_ENGINE_FILE} beside attention-explorer.js\`);
  }
  return engineModule.loadEngine();
}
`;

// The sections that need the whole engine, in a bundle (web/views/full-engine-sections.js
// swapped): the Learn worker is the classic script beside the bundle; the element's file also
// imports those sections from files beside it (they come with the whole engine anyway). The URLs
// are literal new URL('./…', import.meta.url) in ES modules (bundlers copy those); classic
// scripts ask document.currentScript while they run.
// Also the sections only controls="full" shows (overview, map, editor, engineers): out of the
// element's own file, which stays within its budget.
const FULL_ENGINE_SECTIONS = ['plane', 'notebook', 'learn', 'gpt', 'next', 'overview', 'map', 'editor', 'engineers'];
// The real-model section's worker and files beside the bundle: the project's own model, its
// tokenizer, and GPT-2's encoding (web/models/, copied by copyModelsToDist).
const MODEL_WORKER_FILE = 'attention-explorer.model-worker.js';
const MODEL_FILES = {
  model: DIST_MODEL_FILES['brown-wordnet.safetensors'],
  tokenizer: DIST_MODEL_FILES['brown-wordnet.tokenizer.json'],
  gpt2Tokenizer: DIST_MODEL_FILES['gpt2-tokenizer.bin'],
};
const sectionFile = (id) => `attention-explorer.${id}.js`;
// The export menus of controls="full": beside the element too (the page's bundle inlines them).
const EXPORT_MENU_FILE = 'attention-explorer.export-menu.js';

// Which files beside attention-explorer.js each section of the registry (web/views/sections.js)
// needs: its own file, the whole engine where it needs a feature the element's small one lacks,
// and the workers and model files it starts. One table for the manifest
// (dist/attention-explorer.files.json, which the README's table is checked against) and for the
// element, which checks them all at once when one is missing.
const SECTION_EXTRAS = {
  learn: [LEARN_WORKER_FILE],
  gpt: [MODEL_WORKER_FILE, MODEL_FILES.model, MODEL_FILES.tokenizer],
  next: [MODEL_WORKER_FILE, MODEL_FILES.model, MODEL_FILES.tokenizer],
};
function filesManifest() {
  const sections = {};
  for (const entry of SECTIONS) {
    // The registry's entry loads a file beside the element's when its loader is one of these.
    const file = Object.keys(SECTION_LOADERS).find((name) => SECTION_LOADERS[name] === entry.load);
    if (!file) continue;
    if (!FULL_ENGINE_SECTIONS.includes(file)) throw new Error(`build-dist: ${file} is not in FULL_ENGINE_SECTIONS`);
    sections[entry.id] = {
      ...(entry.views.length ? { views: [...entry.views] } : {}),
      ...(entry.controls ? { controls: entry.controls } : {}),
      files: [...(entry.needs ? [FULL_ENGINE_FILE] : []), sectionFile(file), ...(SECTION_EXTRAS[entry.id] ?? [])],
    };
  }
  return {
    element: 'attention-explorer.js',
    sections,
    // What a controls mode adds beyond its sections.
    controls: { full: [EXPORT_MENU_FILE] },
    // Only in some cases: a model-url GPT-2 checkpoint without its tokenizer; a cross-origin
    // isolated page, whose workers run the threaded engine.
    when: {
      'gpt2-without-tokenizer': [MODEL_FILES.gpt2Tokenizer],
      'cross-origin-isolated': Object.values(THREADS_FILES).map((f) => f.to),
    },
  };
}

// The manifest's part the element carries: section → files, and controls mode → files.
const filesTable = () => {
  const { sections, controls } = filesManifest();
  return { sections: Object.fromEntries(Object.entries(sections).map(([id, s]) => [id, s.files])), controls };
};

// Every file the table names, once each.
const tableFiles = () => {
  const { sections, controls } = filesTable();
  return [...new Set([...Object.values(sections), ...Object.values(controls)].flat())].sort();
};

const sectionsSource = ({ format, engine }) => {
  const url = (file) =>
    format === 'iife' ? `new URL(${JSON.stringify(file)}, BASE).href` : `new URL('./${file}', import.meta.url).href`;
  const base =
    format === 'iife'
      ? `const BASE = typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : location.href;\n`
      : '';
  // A file missing beside the element's says which file and where it goes, in the figure.
  const beside = `const beside = (url, file) => import(/* webpackIgnore: true */ /* @vite-ignore */ url).catch((error) => {
  throw new Error(\`could not load \${url} (\${error.message}); it goes beside attention-explorer.js\`);
});
`;
  const loaders = FULL_ENGINE_SECTIONS.map((id) =>
    engine === 'embed'
      ? `  ${id}: () => beside(${url(sectionFile(id))}),`
      : `  ${id}: () => import(${JSON.stringify(path.join(WEB, `views/${id}.js`))}),`,
  );
  return `${base}${engine === 'embed' ? beside : ''}export const SECTION_LOADERS = Object.freeze({
${loaders.join('\n')}
});
export const loadExportMenus = () => ${
    engine === 'embed'
      ? `beside(${url(EXPORT_MENU_FILE)})`
      : `import(${JSON.stringify(path.join(WEB, 'tools/export-menu.js'))})`
  };
// The files each figure needs beside the element's (null where the sections are bundled).
export const FILES_BESIDE = ${
    engine === 'embed'
      ? `Object.freeze({ table: ${JSON.stringify(filesTable())}, url: (file) => FILE_URLS[file]?.() })`
      : 'null'
  };
${
  // Each file by a literal new URL('./file', import.meta.url): a bundler copies what it names,
  // and a computed name ('./' + file) would make it take the whole folder or refuse.
  engine === 'embed'
    ? `const FILE_URLS = Object.freeze({\n${tableFiles()
        .map((file) => `  ${JSON.stringify(file)}: () => ${url(file)},`)
        .join('\n')}\n});\n`
    : ''
}export function makeLearnWorker() { return new Worker(${url(LEARN_WORKER_FILE)}); }
export function makeModelWorker() { return new Worker(${url(MODEL_WORKER_FILE)}); }
export const MODEL_FILES = Object.freeze({
${Object.entries(MODEL_FILES)
  .map(([key, file]) => `  ${key}: () => ${url(file)},`)
  .join('\n')}
});
`;
};

const engineJs = path.join(WEB, 'engine/engine.js');
// Every bundle gets the engine with its WASM inlined: imports of engine/engine.js resolve to a
// wrapper whose loadEngine() passes the inlined bytes (engine.js fetches them otherwise).
const ENGINE_WRAPPER = `
export * from ${JSON.stringify(engineJs)};
import { loadEngine as loadWithOptions } from ${JSON.stringify(engineJs)};
import { engineOptions } from 'ae-virtual:assets';
export async function loadEngine(options = {}) {
  return loadWithOptions({ ...(await engineOptions()), ...options });
}
`;

function distPlugin({ engine, format }) {
  return {
    name: 'attention-explorer-dist',
    setup(build) {
      build.onResolve({ filter: /(^|\/)assets\.js$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === path.join(WEB, 'element/assets.js')
          ? { path: 'assets', namespace: 'ae-virtual' }
          : undefined,
      );
      build.onResolve({ filter: /^ae-virtual:assets$/ }, () => ({ path: 'assets', namespace: 'ae-virtual' }));
      build.onResolve({ filter: /(^|\/)engine\.js$/ }, (args) => {
        if (args.namespace === 'ae-virtual') return undefined;
        return path.resolve(args.resolveDir, args.path) === engineJs
          ? { path: 'engine', namespace: 'ae-virtual' }
          : undefined;
      });
      build.onLoad({ filter: /^assets$/, namespace: 'ae-virtual' }, () => ({
        contents: assetsSource(engine, format),
        loader: 'js',
      }));
      build.onResolve({ filter: /(^|\/)full-engine-sections\.js$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === path.join(WEB, 'views/full-engine-sections.js')
          ? { path: 'full-engine-sections', namespace: 'ae-virtual' }
          : undefined,
      );
      build.onLoad({ filter: /^full-engine-sections$/, namespace: 'ae-virtual' }, () => ({
        contents: sectionsSource({ format, engine }),
        loader: 'js',
        resolveDir: path.join(WEB, 'views'),
      }));
      // engine.js's import of its module glue: the glue of the engine this bundle inlines.
      build.onResolve({ filter: /(^|\/)attention_engine\.mjs$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === ENGINES.full.glue ? { path: ENGINES[engine].glue } : undefined,
      );
      build.onLoad({ filter: /^engine$/, namespace: 'ae-virtual' }, () => ({
        contents: ENGINE_WRAPPER,
        loader: 'js',
        resolveDir: path.join(WEB, 'lib'),
      }));
      // engine.js reads the .wasm with node:fs under Node when it is not given the bytes; the
      // bundles always give them, so a stub replaces it and bundlers that consume dist/ for the
      // browser meet no node: import (esbuild and webpack refuse one).
      const NODE_FS_STUB = `export async function readFile() { throw new Error('unreachable: the WASM is inlined in this bundle'); }`;
      build.onResolve({ filter: /^node:fs\/promises$/ }, () => ({ path: 'node-fs', namespace: 'ae-virtual' }));
      build.onLoad({ filter: /^node-fs$/, namespace: 'ae-virtual' }, () => ({ contents: NODE_FS_STUB, loader: 'js' }));
      // engine.js and Emscripten's glue name attention_engine.wasm with new URL('…', import.meta.url),
      // never fetched in a bundle (the bytes are given); webpack resolves that pattern at build
      // time and fails on a file the package does not ship, so these two get a constant base.
      build.onLoad({ filter: /(^|\/)(engine\.js|threads\.js|attention_engine[\w-]*\.mjs)$/ }, async (args) => {
        const engineDir = path.dirname(engineJs);
        if (args.namespace !== 'file' || path.dirname(args.path) !== engineDir) return undefined;
        const text = await fs.promises.readFile(args.path, 'utf8');
        return {
          contents: text.replaceAll('import.meta.url', '"file:///attention-explorer/dist/"'),
          loader: 'js',
          resolveDir: engineDir,
        };
      });
      // The models (web/engine/model.js) only where the engine has them: the element's small
      // engine has none, so its bundle gets a stub and engine.js answers createModel with an error.
      build.onResolve({ filter: /(^|\/)model\.js$/ }, (args) =>
        engine === 'embed' && path.resolve(args.resolveDir, args.path) === path.join(WEB, 'engine/model.js')
          ? { path: 'no-models', namespace: 'ae-virtual' }
          : undefined,
      );
      build.onLoad({ filter: /^no-models$/, namespace: 'ae-virtual' }, () => ({
        contents: 'export const modelMethods = null;',
        loader: 'js',
      }));
      // Nor threads: the small engine never runs threaded, so its bundle leaves the loader out.
      build.onResolve({ filter: /(^|\/)threads\.js$/ }, (args) =>
        engine === 'embed' && path.resolve(args.resolveDir, args.path) === path.join(WEB, 'engine/threads.js')
          ? { path: 'no-threads', namespace: 'ae-virtual' }
          : undefined,
      );
      build.onLoad({ filter: /^no-threads$/, namespace: 'ae-virtual' }, () => ({
        contents: `export const MAX_DEFAULT_THREADS = 8;
export const threadsUnavailableReason = () => "the embeddable element's small engine has no threads";
export const defaultThreadsFiles = () => null;
export const startThreadedModule = null;`,
        loader: 'js',
      }));
    },
  };
}

async function bundle(entry, outfile, { format, globalName, engine = 'full' } = {}) {
  const result = await esbuild.build({
    entryPoints: [path.join(WEB, entry)],
    outfile,
    bundle: true,
    format,
    globalName,
    minify: true,
    legalComments: 'none',
    target: ['es2021', 'chrome100', 'firefox100', 'safari15'],
    platform: 'browser',
    // engine.js reads the .wasm with node:fs under Node only; never reached in a browser bundle.
    external: ['node:*'],
    // Emscripten's module names its own URL with import.meta.url; with wasmBinary given it is
    // only a base for locateFile, never fetched. Classic scripts have no import.meta.
    define: format === 'iife' ? { 'import.meta.url': 'location.href' } : {},
    plugins: [distPlugin({ engine, format })],
    logLevel: 'warning',
    metafile: true,
  });
  return result;
}

function copyDir(from, to, filter = () => true) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) copyDir(src, dst, filter);
    else if (filter(src)) fs.copyFileSync(src, dst);
  }
}

const gz = (file) => gzipSync(fs.readFileSync(file), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

fs.rmSync(DIST, { recursive: true, force: true });
fs.mkdirSync(DIST, { recursive: true });

// 1. The element: ESM + classic-script copy.
const elementFile = path.join(DIST, 'attention-explorer.js');
await bundle('element/attention-explorer.js', elementFile, { format: 'esm', engine: 'embed' });
await bundle('element/attention-explorer.js', path.join(DIST, 'attention-explorer.iife.js'), {
  format: 'iife',
  engine: 'embed',
});

// The Learn section's worker (the whole engine inlined) and, for the element, the sections that
// need the whole engine.
await bundle('learn-worker.js', path.join(DIST, LEARN_WORKER_FILE), { format: 'iife' });
await bundle('model-worker.js', path.join(DIST, MODEL_WORKER_FILE), { format: 'iife' });
for (const file of Object.keys(DIST_MODEL_FILES))
  if (!fs.existsSync(path.join(WEB, 'models', file)))
    throw new Error(
      `build-dist: web/models/${file} is missing (node scripts/build-tokenizers.mjs writes GPT-2's encoding)`,
    );
copyModelsToDist(DIST);
for (const id of FULL_ENGINE_SECTIONS)
  await bundle(`views/${id}.js`, path.join(DIST, sectionFile(id)), { format: 'esm' });
await bundle('tools/export-menu.js', path.join(DIST, EXPORT_MENU_FILE), { format: 'esm' });
fs.writeFileSync(path.join(DIST, 'attention-explorer.files.json'), JSON.stringify(filesManifest(), null, 2) + '\n');

for (const { from, to } of Object.values(THREADS_FILES)) fs.copyFileSync(path.join(WEB, from), path.join(DIST, to));

// 2. The page and the iframe view, as classic scripts (they must open from file://).
await bundle('app.js', path.join(DIST, 'app.js'), { format: 'iife' });
await bundle('embed.js', path.join(DIST, 'embed.js'), { format: 'iife' });
// The host page's sizing script for the iframe route: plain, as written (no imports).
fs.copyFileSync(path.join(WEB, 'embed-host.js'), path.join(DIST, 'embed-host.js'));
copyDir(path.join(WEB, 'styles'), path.join(DIST, 'styles'), (f) => f.endsWith('.css'));
for (const name of fs.readdirSync(WEB)) {
  if (/\.(svg|ico|png|txt|webmanifest)$/.test(name)) fs.copyFileSync(path.join(WEB, name), path.join(DIST, name));
}

// Module script tags become classic deferred ones; preloads of files that are now inlined go.
function classicPage(html) {
  return html
    .replace(/[ \t]*<link rel="modulepreload"[^>]*>\n?/g, '')
    .replace(/[ \t]*<link rel="preload"[^>]*attention_engine[^>]*>\n?/g, '')
    .replace(/[ \t]*<!-- the rest of the first paint's module graph[\s\S]*?-->\n?/, '')
    .replace(/<script type="module" src="([^"]+)"><\/script>/g, '<script defer src="$1"></script>');
}
for (const page of ['index.html', 'embed.html']) {
  const html = classicPage(read(page));
  if (/type="module"/.test(html)) throw new Error(`build-dist: ${page} still has a module script after rewriting`);
  fs.writeFileSync(path.join(DIST, page), html);
}

// 3. The examples, pointing at the bundled element.
const examplesDir = path.join(WEB, 'examples');
if (fs.existsSync(examplesDir)) {
  copyDir(examplesDir, path.join(DIST, 'examples'));
  for (const name of fs.readdirSync(path.join(DIST, 'examples'))) {
    if (!name.endsWith('.html')) continue;
    const file = path.join(DIST, 'examples', name);
    const html = fs
      .readFileSync(file, 'utf8')
      .replaceAll('../element/attention-explorer.js', '../attention-explorer.js');
    fs.writeFileSync(file, html);
  }
}

// 3b. For npm (package.json "exports"): the engine alone (it resolves to ENGINE_WRAPPER, like
// every import of it), and the types of both entry points.
await bundle(path.relative(WEB, engineJs), path.join(DIST, 'engine.js'), { format: 'esm' });
fs.copyFileSync(engineJs.replace(/\.js$/, '.d.ts'), path.join(DIST, 'engine.d.ts'));
fs.copyFileSync(path.join(WEB, 'element/attention-explorer.d.ts'), path.join(DIST, 'attention-explorer.d.ts'));

// 4. Sizes, and the budget.
const size = gz(elementFile);
for (const file of ['attention-explorer.js', 'attention-explorer.iife.js', 'engine.js', 'app.js', 'embed.js']) {
  const p = path.join(DIST, file);
  console.log(`build-dist: dist/${file} ${kb(fs.statSync(p).size)}, ${kb(gz(p))} gzipped`);
}
console.log(
  `build-dist: the element file is ${kb(size)} gzipped (budget ${kb(BUDGET_BYTES)}, its engine ${kb(fs.statSync(ENGINES.embed.wasm).size)} of WASM inlined)`,
);
if (size > BUDGET_BYTES) {
  console.error(`build-dist: dist/attention-explorer.js is ${kb(size)} gzipped, over the ${kb(BUDGET_BYTES)} budget`);
  process.exit(1);
}

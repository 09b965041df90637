// The npm package as a new user meets it: `npm run pack`'s tarball is installed offline into
// a fresh project in the system's temp folder (nothing from the repo on any path), then the
// README's Install section is run line for line:
//   - Node imports the engine from 'attention-explorer/engine' and reproduces the seed's river row;
//   - a page served with the strict CSP loads the element from node_modules, and another loads it
//     from a stand-in npm CDN on a second origin by version; both show the same numbers;
//   - a bundler (esbuild) resolves the import lines through "exports" and honours "sideEffects";
//     TypeScript compiles a host script against the shipped .d.ts files.
// Run: node --test tests/e2e/package.test.mjs   (packs once, ~6 s)
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import http from 'node:http';
import { launchBrowser, serveStatic, openPage, mimeType, CSP } from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import { defaultState } from '../../web/lib/state.js';
import { attendArgs } from '../../web/lib/compute.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
// Seed 003's river output, row 0 (projected and scaled), as printed to 3 decimals.
const RIVER_ROW_0 = ['0.992', '0.221', '0.261'];
// The element's river output, row 0, at the page's default weights (since 0.4.0, W_Q and W_K
// that look for the context word): what example="river" shows (checked against the engine below).
const ELEMENT_RIVER_ROW_0 = ['0.967', '0.267', '0.267'];
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

// What the README's Install section shows; the tests below run exactly these lines.
const INSTALL = 'npm install attention-explorer';
const IMPORT_ELEMENT = "import 'attention-explorer';";
const IMPORT_ENGINE = "import { loadEngine } from 'attention-explorer/engine';";
const NODE_MODULES_TAG =
  '<script type="module" src="/node_modules/attention-explorer/dist/attention-explorer.js"></script>';
const CDN_TAG = `<script type="module" src="https://<an npm CDN>/attention-explorer@${VERSION}/dist/attention-explorer.js"></script>`;
const ELEMENT_TAG =
  '<attention-explorer example="river" view="scores,weights,output" controls="minimal"></attention-explorer>';
const NODE_LINES = [
  IMPORT_ENGINE,
  'const engine = await loadEngine();',
  'const bank = engine.examples();',
  'const x = bank.contexts.river.map((w) => bank.vocabulary[w]);',
  'const trace = engine.attend({ x, wq: bank.W_query, wk: bank.W_key, wv: bank.W_value });',
];

// The environment a user's shell would have: none of npm's per-run variables from `npm test`,
// no NODE_PATH (scripts/test.mjs sets one for emcc).
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_PATH'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, env: userEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let tmp;
let project;
let packed;
const servers = [];
let browser;

test.before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-package-'));
  const started = Date.now();
  const out = run(
    process.execPath,
    // --no-build under npm test, which built everything first (a rebuild would rewrite dist/
    // under the browser tests running beside this file)
    [
      path.join(ROOT, 'scripts/pack.mjs'),
      '--out',
      path.join(tmp, 'tarball'),
      '--json',
      ...(process.env.ATTN_BUILT ? ['--no-build'] : []),
    ],
    ROOT,
  );
  packed = JSON.parse(out.trim().split('\n').pop());
  project = path.join(tmp, 'my-blog');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'my-blog', private: true, type: 'module' }, null, 2),
  );
  // The package has no dependencies, so nothing but the tarball is needed: --offline proves it.
  run(
    'npm',
    ['install', packed.file, '--offline', '--no-audit', '--no-fund', '--cache', path.join(tmp, 'npm-cache')],
    project,
  );
  console.log(
    `# packed and installed in ${Date.now() - started} ms: ${(packed.size / 1024).toFixed(1)} KB, ${packed.files.length} files`,
  );
});
test.after(async () => {
  await browser?.close();
  for (const server of servers) await server.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('Readme_InstallSectionShowsWhatTheseTestsRun', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('\n## ', readme.indexOf('## Install') + 1));
  for (const line of [INSTALL, IMPORT_ELEMENT, NODE_MODULES_TAG, CDN_TAG, ELEMENT_TAG, ...NODE_LINES]) {
    assert.ok(install.includes(line), `README's Install section shows: ${line}`);
  }
});

test('Tarball_HoldsTheFilesListedInPackageJsonAndNothingElse', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const expected = new Set([...manifest.files, 'package.json', 'README.md']);
  assert.deepEqual(packed.files.map((f) => f.path).sort(), [...expected].sort());
  const installed = JSON.parse(
    fs.readFileSync(path.join(project, 'node_modules/attention-explorer/package.json'), 'utf8'),
  );
  assert.equal(installed.version, manifest.version);
  assert.equal(installed.private, undefined, 'publishable');
  assert.deepEqual(installed.dependencies ?? {}, {}, 'dist/ bundles everything it runs');
  // The element the package installs is the one within build-dist's budget (150 KB gzipped).
  const element = fs.readFileSync(path.join(project, 'node_modules/attention-explorer/dist/attention-explorer.js'));
  assert.ok(gzipSync(element, { level: 9 }).length <= 150 * 1024, `element ${element.length} bytes`);
});

test('Engine_ImportedFromTheInstalledPackageInNode_ReproducesTheSeedRiverRow', () => {
  fs.writeFileSync(
    path.join(project, 'engine-check.mjs'),
    `${NODE_LINES.join('\n')}
import { AttentionError } from 'attention-explorer/engine';
let error = null;
try { engine.attend({ x, heads: 3 }); } catch (e) { error = e instanceof AttentionError ? e.message : String(e); }
console.log(JSON.stringify({ row: trace.get('output')[0], error, from: import.meta.resolve('attention-explorer/engine') }));
`,
  );
  const result = JSON.parse(run(process.execPath, ['engine-check.mjs'], project).trim());
  assert.deepEqual(
    result.row.map((v) => v.toFixed(3)),
    RIVER_ROW_0,
  );
  assert.match(result.error, /heads: 3 must divide/);
  assert.equal(fileURLToPath(result.from), path.join(project, 'node_modules/attention-explorer/dist/engine.js'));
});

/** Serves `html` from the project under `csp`; returns the element's river row 0, CSP violations and problems. */
async function showElement(html, csp = CSP) {
  fs.writeFileSync(path.join(project, 'index.html'), html);
  const site = await serveStatic(project, { csp });
  servers.push(site);
  browser ||= await launchBrowser();
  const { page, problems, context } = await openPage(browser, null);
  try {
    const response = await page.goto(site.url);
    assert.equal(response.headers()['content-security-policy'], csp);
    await page.waitForFunction(
      () =>
        document.querySelector('attention-explorer')?.shadowRoot?.querySelector('table[data-matrix="out"] td.ae-cell'),
      null,
      { timeout: 20000 },
    );
    const shown = await page.evaluate(async () => {
      const el = document.querySelector('attention-explorer');
      await el.ready;
      const row = el.shadowRoot.querySelector('table[data-matrix="out"][data-context="river"] tbody tr');
      return {
        row: [...row.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value).toFixed(3)),
        violations: window.__cspViolations,
      };
    });
    return { ...shown, problems };
  } finally {
    await context.close();
  }
}

const page = (scriptTag) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>my blog</title>
<script src="/csp-watch.js"></script>
${scriptTag}
${ELEMENT_TAG}
</html>`;

function writeSiteFiles() {
  fs.writeFileSync(
    path.join(project, 'csp-watch.js'),
    `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
  );
  fs.writeFileSync(path.join(project, 'favicon.ico'), ''); // a site has one; Chromium asks for it
}

test('Element_TheDefaultRiverRowIsTheEnginesAtTheDefaults', async () => {
  const engine = await loadEngine();
  const s = defaultState(engine.examples());
  const row = engine.attend(attendArgs(s, s.contexts.river)).get('output')[0];
  assert.deepEqual(
    row.map((v) => v.toFixed(3)),
    ELEMENT_RIVER_ROW_0,
  );
});

test('Element_LoadedFromNodeModulesUnderTheStrictCsp_ShowsTheDefaultRiverRow', async () => {
  writeSiteFiles();
  const shown = await showElement(page(NODE_MODULES_TAG));
  assert.deepEqual(shown, { row: ELEMENT_RIVER_ROW_0, violations: [], problems: [] });
});

test('Element_LoadedFromAnNpmCdnByVersion_ShowsTheDefaultRiverRow', async () => {
  // A stand-in for an npm CDN on another origin: /<name>@<version>/<file> from the installed
  // package (the tarball's contents), with the CORS header such CDNs send for module scripts.
  const pkg = path.join(project, 'node_modules/attention-explorer');
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  const cdn = http.createServer((req, res) => {
    const m = /^\/attention-explorer@([^/]+)\/(.+)$/.exec(new URL(req.url, 'http://x').pathname);
    const file = m && m[1] === version ? path.join(pkg, m[2]) : null;
    if (!file || !file.startsWith(pkg + path.sep) || !fs.existsSync(file)) return res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': mimeType(file), 'access-control-allow-origin': '*' })
      .end(fs.readFileSync(file));
  });
  await new Promise((resolve) => cdn.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise((resolve) => cdn.close(resolve)) });
  const origin = `http://127.0.0.1:${cdn.address().port}`;
  writeSiteFiles();
  // The site's CSP lets scripts come from the CDN; nothing else is needed (no connect-src).
  const csp = CSP.replace("script-src 'self'", `script-src 'self' ${origin}`);
  const shown = await showElement(page(CDN_TAG.replace('https://<an npm CDN>', origin)), csp);
  assert.deepEqual(shown, { row: ELEMENT_RIVER_ROW_0, violations: [], problems: [] });
});

test('Bundler_ResolvesTheReadmeImportsThroughExportsAndHonoursSideEffects', async () => {
  const bundle = async (contents) => {
    const result = await esbuild.build({
      stdin: { contents, resolveDir: project, loader: 'js' },
      absWorkingDir: project,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      minify: true,
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    return { text: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) };
  };
  // `import 'attention-explorer'` only registers the element: the bundler must keep it.
  const element = await bundle(`import 'attention-explorer';`);
  assert.match(element.text, /customElements\.define\("attention-explorer"/);
  assert.ok(
    element.inputs.every((p) => p === '<stdin>' || p.startsWith('node_modules/attention-explorer/')),
    element.inputs.join(', '),
  );
  // The engine has no side effects: an unused import leaves nothing behind.
  const unused = await bundle(`import { loadEngine } from 'attention-explorer/engine';`);
  assert.ok(unused.text.length < 100, `unused engine import bundled ${unused.text.length} bytes`);
  // What webpack refuses (checked by hand with webpack 5 and Vite 7): a node: import, or a
  // new URL('…', import.meta.url) naming a file the package does not ship.
  for (const file of ['attention-explorer.js', 'engine.js']) {
    const text = fs.readFileSync(path.join(project, 'node_modules/attention-explorer/dist', file), 'utf8');
    assert.doesNotMatch(text, /["']node:/, `${file} imports nothing from node:`);
    // Files named relative to the module (bundlers copy them) must be files the package ships.
    for (const m of text.matchAll(/new URL\(\s*["'`]([^"'`]*)["'`]\s*,\s*import\.meta\.url\s*\)/g)) {
      const named = path.join(project, 'node_modules/attention-explorer/dist', m[1]);
      assert.ok(fs.existsSync(named), `${file} names ${m[1]} relative to import.meta.url, and the package ships it`);
    }
    assert.doesNotMatch(
      text.replace(
        /new URL\(\s*["'`]\.\/(attention-explorer\.[\w.-]+|engine\.js)["'`]\s*,\s*import\.meta\.url\s*\)/g,
        '',
      ),
      /new URL\([^()]*import\.meta\.url\)/,
      `${file} names no other file relative to import.meta.url`,
    );
  }
  const used = await bundle(
    `import { loadEngine } from 'attention-explorer/engine'; loadEngine().then((e) => console.log(e.version));`,
  );
  assert.ok(used.text.length > 50000, 'the engine with its WASM');
});

test('Types_AHostScriptCompilesAgainstTheShippedDeclarations', () => {
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'],
        types: [],
      },
      files: ['host.ts'],
    }),
  );
  fs.writeFileSync(
    path.join(project, 'host.ts'),
    `import 'attention-explorer';
import type { AttentionExplorerElement, ExplorerState } from 'attention-explorer';
import { loadEngine, AttentionError, type Engine, type Trace } from 'attention-explorer/engine';

const el: AttentionExplorerElement | null = document.querySelector('attention-explorer');
if (el) {
  const problems: string[] | null = el.setState({ options: { causal: true, temperature: 0.5 } });
  const next: number | null = el.step(2);
  el.addEventListener('change', (event) => {
    const state: ExplorerState = event.detail.state;
    console.log(state.options.causal, problems, next);
  });
  el.addEventListener('step', (event) => console.log(event.detail.step.toFixed(0)));
  el.ready.then((ready) => ready.state?.contexts);
  // @ts-expect-error options.causal is a boolean
  el.setState({ options: { causal: 'yes' } });
}
const engine: Engine = await (el ? el.engine : loadEngine());
const bank = engine.examples();
const trace: Trace = engine.attend({ x: bank.contexts.river.map((w) => bank.vocabulary[w]), wq: bank.W_query, heads: 1 });
console.log(trace.get('output'), AttentionError.name);
`,
  );
  const out = (() => {
    try {
      return run(process.execPath, [TSC, '-p', project], project);
    } catch (error) {
      return `${error.stdout}${error.stderr}`;
    }
  })();
  assert.equal(out.trim(), '', 'tsc reports nothing');
});

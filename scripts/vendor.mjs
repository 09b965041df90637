#!/usr/bin/env node
// Copies and bundles the page's third-party libraries into web/vendor/ (git-ignored), so the page
// works offline with no CDN:
//   web/vendor/d3-scale-chromatic.js   one ESM bundle (esbuild) of everything d3-scale-chromatic exports
//   web/vendor/katex/katex.mjs         KaTeX's ESM build
//   web/vendor/katex/katex.min.css     its CSS, rewritten to reference only the woff2 fonts
//   web/vendor/katex/fonts/*.woff2     the fonts (woff2 only: every browser that runs WASM reads it)
// Usage: node scripts/vendor.mjs [--force]   (skips work when the outputs are newer than the inputs)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NM = path.join(ROOT, 'node_modules');
const OUT = path.join(ROOT, 'web', 'vendor');
const force = process.argv.includes('--force');

function need(file) {
  if (!fs.existsSync(file)) {
    console.error(`vendor: missing ${path.relative(ROOT, file)}; run \`bash scripts/setup.sh\` to install npm packages`);
    process.exit(1);
  }
  return file;
}

function upToDate(out, inputs) {
  if (force || !fs.existsSync(out)) return false;
  const t = fs.statSync(out).mtimeMs;
  return inputs.every((f) => fs.statSync(f).mtimeMs <= t);
}

async function bundleD3() {
  const entry = need(path.join(NM, 'd3-scale-chromatic', 'package.json'));
  const out = path.join(OUT, 'd3-scale-chromatic.js');
  if (upToDate(out, [entry])) return false;
  const esbuild = await import('esbuild');
  await esbuild.build({
    stdin: { contents: "export * from 'd3-scale-chromatic';", resolveDir: ROOT, loader: 'js' },
    bundle: true, format: 'esm', minify: true, outfile: out, logLevel: 'error',
    legalComments: 'inline', target: 'es2020',
  });
  return true;
}

function copyKatex() {
  const dist = path.join(NM, 'katex', 'dist');
  const mjs = need(path.join(dist, 'katex.mjs'));
  const css = need(path.join(dist, 'katex.min.css'));
  const outDir = path.join(OUT, 'katex');
  const outCss = path.join(outDir, 'katex.min.css');
  if (upToDate(outCss, [mjs, css]) && fs.existsSync(path.join(outDir, 'katex.mjs'))) return false;
  fs.mkdirSync(path.join(outDir, 'fonts'), { recursive: true });
  fs.copyFileSync(mjs, path.join(outDir, 'katex.mjs'));
  // Each @font-face src lists woff2, woff, ttf; keep only the woff2 entry.
  const text = fs.readFileSync(css, 'utf8').replace(
    /src:url\((fonts\/[^)]+\.woff2)\) format\("woff2"\)(,url\([^)]+\) format\("[a-z]+"\))*/g,
    'src:url($1) format("woff2")');
  if (/\.woff\)|\.ttf\)/.test(text)) throw new Error('vendor: katex.min.css still references woff/ttf fonts; its format changed');
  fs.writeFileSync(outCss, text);
  for (const f of fs.readdirSync(path.join(dist, 'fonts'))) {
    if (f.endsWith('.woff2')) fs.copyFileSync(path.join(dist, 'fonts', f), path.join(outDir, 'fonts', f));
  }
  fs.copyFileSync(path.join(NM, 'katex', 'LICENSE'), path.join(outDir, 'LICENSE'));
  return true;
}

fs.mkdirSync(OUT, { recursive: true });
const did = [];
if (await bundleD3()) did.push('d3-scale-chromatic.js');
if (copyKatex()) did.push('katex/');
if (did.length) console.log(`vendor: wrote web/vendor/${did.join(', web/vendor/')}`);

// `npm run pack`: builds what is stale (scripts/build.mjs), packs the npm tarball with
// `npm pack`, checks that every target of package.json's "exports" is inside it, and prints the
// tarball's size and file list.
//   --out DIR    where the tarball goes (default build-pack/, git-ignored)
//   --no-build   pack what dist/ holds now
//   --json       end with one line of JSON: {file, size, unpackedSize, files: [{path, size}]}
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const outIndex = args.indexOf('--out');
const out = path.resolve(outIndex >= 0 ? args[outIndex + 1] : path.join(ROOT, 'build-pack'));

/** Every file package.json's "exports" points at (conditions flattened). */
export function exportTargets(manifest) {
  const targets = [];
  const walk = (value) => {
    if (typeof value === 'string') targets.push(value.replace(/^\.\//, ''));
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  return [...new Set(targets)];
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

if (!flag('--no-build'))
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
fs.mkdirSync(out, { recursive: true });
// --ignore-scripts: the build just ran (package.json's prepack would run it a second time).
const json = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
  cwd: ROOT,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [info] = JSON.parse(json);
const file = path.join(out, info.filename);

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const packed = new Set(info.files.map((f) => f.path));
const missing = exportTargets(manifest).filter((target) => !packed.has(target));
if (missing.length) {
  console.error(`pack: package.json "exports" points at files the tarball lacks: ${missing.join(', ')}`);
  process.exit(1);
}

console.log(`pack: ${path.relative(process.cwd(), file) || file}`);
console.log(`pack: ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked, ${info.files.length} files:`);
for (const f of info.files) console.log(`pack:   ${kb(f.size).padStart(9)}  ${f.path}`);
if (flag('--json')) {
  const files = info.files.map(({ path: p, size }) => ({ path: p, size }));
  console.log(JSON.stringify({ file, size: info.size, unpackedSize: info.unpackedSize, files }));
}

// The lint suite of `npm test`: every C++ file agrees with clang-format (.clang-format) and every
// JS/MJS/JSON/CSS/HTML file with Prettier (.prettierrc.json, .prettierignore). Prints one line
// per file that needs formatting and ends with "N passed, N failed" (files). `--fix` rewrites them.
// It also checks the layers (scripts/check-layers.mjs): a file that includes or imports across
// them fails, one line per include.
import { execFileSync, spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layerViolations } from './check-layers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fix = process.argv.includes('--fix');
const tracked = (patterns) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...patterns], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

const cpp = tracked(['*.cpp', '*.h']);
const prettierFiles = tracked(['*.js', '*.mjs', '*.json', '*.css', '*.html']);

let failed = 0;
const bad = [];
// clang-format: --dry-run --Werror prints a diagnostic per file that would change.
if (fix) execFileSync('clang-format', ['-i', ...cpp], { cwd: root });
else {
  for (const file of cpp) {
    const r = spawnSync('clang-format', ['--dry-run', '--Werror', file], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) bad.push(`${file}: not clang-format clean (run node scripts/lint.mjs --fix)`);
  }
}
// Prettier: --list-different prints each file that would change.
const prettier = join(root, 'node_modules/.bin/prettier');
const r = spawnSync(prettier, [...(fix ? ['--write', '--log-level=warn'] : ['--list-different']), ...prettierFiles], {
  cwd: root,
  encoding: 'utf8',
});
if (!fix) {
  for (const file of r.stdout.split('\n').filter(Boolean))
    bad.push(`${file}: not Prettier clean (run node scripts/lint.mjs --fix)`);
  if (r.status !== 0 && r.status !== 1) bad.push(`prettier failed: ${r.stderr.trim()}`);
}
const layers = layerViolations();
bad.push(...layers);
failed = bad.length;
for (const line of bad) console.log(line);
const total = cpp.length + prettierFiles.length;
console.log(
  `lint: ${total - failed} passed, ${failed} failed (${cpp.length} C++ files, ${prettierFiles.length} web/script files` +
    `${layers.length ? `, ${layers.length} includes or imports across the layers` : ''})`,
);
process.exit(failed ? 1 : 0);

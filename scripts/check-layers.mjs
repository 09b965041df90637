// The layers of docs/architecture.md, checked: what each part of src/ may include and what
// web/engine/ may import. Run by scripts/lint.mjs (the lint suite of `npm test`); alone:
// `node scripts/check-layers.mjs` prints every violation and exits non-zero when there is one.
//   C++  every file includes from the one root src/ ("core/attention.h"); a library includes only
//        the libraries below it, and a library's detail/ folder (its private headers) only from
//        its own files and the tests (tests/cpp, tests/fuzz test the internals they name).
//   JS   web/engine/ is the bottom of the web side: it imports only its own files.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// What each folder of src/ may include (itself included).
const MAY_INCLUDE = {
  kernels: ['kernels'],
  core: ['core', 'kernels'],
  model: ['model', 'core', 'kernels'],
  bindings: ['bindings', 'model', 'core', 'kernels'],
  cli: ['cli', 'model', 'core', 'kernels'],
  demo: ['core'],
};
const LIBRARIES = Object.keys(MAY_INCLUDE);

const files = (patterns) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...patterns], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

/** Every violation, as "file:line: what". */
export function layerViolations() {
  const out = [];
  for (const file of files(['src/*.cpp', 'src/*.h', 'tests/*.cpp', 'tests/*.h', 'bench/*.cpp', 'bench/*.h'])) {
    const [top, folder] = file.split('/');
    const own = top === 'src' ? folder : null;
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const m = /^#include "([^"]+)"/.exec(text);
        if (!m) return;
        const where = `${file}:${i + 1}`;
        const path = m[1];
        const [library, second] = path.split('/');
        if (!LIBRARIES.includes(library)) {
          // tests and benches include their own helpers by bare name ("test_util.h")
          if (own) out.push(`${where}: includes "${path}"; include from the root src/ ("core/attention.h")`);
          return;
        }
        if (own && !MAY_INCLUDE[own].includes(library)) {
          out.push(`${where}: src/${own}/ may not include ${library}/ (layers: ${MAY_INCLUDE[own].join(', ')})`);
        }
        if (second === 'detail' && own !== library && top !== 'tests') {
          out.push(`${where}: "${path}" is private to src/${library}/`);
        }
      });
  }
  for (const file of files(['web/engine/*.js', 'web/engine/*.mjs'])) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(
      /\bfrom\s+'([^']+)'|\bimport\s*\((?:\s*\/\*.*?\*\/)*\s*'([^']+)'|^import\s+'([^']+)'/gm,
    )) {
      const path = m[1] ?? m[2] ?? m[3];
      if (path.startsWith('./') || path.startsWith('node:')) continue;
      const line = text.slice(0, m.index).split('\n').length;
      out.push(`${file}:${line}: web/engine/ imports only its own files, not '${path}'`);
    }
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const violations = layerViolations();
  for (const line of violations) console.log(line);
  console.log(`layers: ${violations.length} violation${violations.length === 1 ? '' : 's'}`);
  process.exit(violations.length ? 1 : 0);
}

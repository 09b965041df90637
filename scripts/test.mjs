// `npm test`: builds what is stale, then runs every suite and prints a one-line summary of each,
// then a closing "N passed, N failed" line (on two cores, suites run in two lanes: see LANES).
// Exits non-zero when anything fails.
//   native   GoogleTest (tests/cpp) built with g++, run by ctest
//   wasm     the same GoogleTest cases built with Emscripten (-msimd128), run under node by ctest
//   fixtures every tests/fixtures/make_*.py --check where torch is installed (fixtures regenerate byte for byte)
//   sanitize the native tests and every fuzz corpus replay under ASan/UBSan (scripts/sanitize.sh asan)
//   tsan     the threaded tests under ThreadSanitizer, in build-tsan/ (scripts/sanitize.sh tsan)
//   js       node:test suites in tests/js against the built WASM engine
//   e2e      browser tests in tests/e2e (Debian Chromium via playwright-core, Firefox ESR via
//            puppeteer-core over WebDriver BiDi), counted per browser
//   bench    the benchmark in quick mode: it runs, its outputs match the peers, and the training
//            benchmark's trainers agree on the loss of every step (no timing)
//   lint     clang-format and Prettier report no file that needs formatting
// `node scripts/test.mjs native js` runs only the named suites.
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gtestCounts } from './gtest-report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// ATTN_BUILT: scripts/build.mjs has run (below), so the browser tests use dist/ as it is.
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs', ATTN_BUILT: '1' };
const werror = process.env.CI ? ['-DATTN_WERROR=ON'] : [];

// While two lanes of suites run side by side (see LANES), each one's output is held and printed whole
// when it ends, so the log reads suite by suite.
let holdOutput = false;

function run(cmd, args, { capture = true } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const forward = (stream, sink) =>
      stream.on('data', (chunk) => {
        output += chunk;
        if (!holdOutput) sink.write(chunk);
      });
    forward(child.stdout, process.stdout);
    forward(child.stderr, process.stderr);
    child.on('close', (code) => resolve({ code: code ?? 1, output: capture ? output : '' }));
  });
}

// Runs the commands one after the other: all of them, or (stopAtFailure) until one fails. The
// worst exit code wins; the output is every command's.
async function sequence(list, { stopAtFailure = false } = {}) {
  let output = '';
  let code = 0;
  for (const [cmd, args] of list) {
    const result = await run(cmd, args);
    output += result.output;
    code = code || result.code;
    if (code !== 0 && stopAtFailure) break;
  }
  return { code, output };
}

// A GoogleTest suite's counts come from the JSON reports its binaries write (CMakeLists.txt's
// add_test and scripts/sanitize.sh pass --gtest_output=json:<file>), removed before each run so
// that a run that never finished counts nothing.
const gtestReports = (...files) => ({
  reports: files,
  counts: () =>
    files
      .map((file) => gtestCounts(join(root, file)))
      .reduce((a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped })),
});
const nodeCounts = (output) => {
  const pick = (label) =>
    [...output.matchAll(new RegExp(`^ℹ ${label} (\\d+)`, 'gm'))].reduce((a, m) => a + Number(m[1]), 0) +
    [...output.matchAll(new RegExp(`^# ${label} (\\d+)`, 'gm'))].reduce((a, m) => a + Number(m[1]), 0);
  return { passed: pick('pass'), failed: pick('fail'), skipped: pick('skipped') };
};
// Every *.test.mjs under dir, in subfolders too (tests/js/lib/ mirrors web/lib/), sorted by path.
const testFiles = (dir) =>
  readdirSync(join(root, dir), { recursive: true })
    .filter((f) => f.endsWith('.test.mjs'))
    .sort()
    .map((f) => join(dir, f));
// "N passed, N failed" as the last such line a script prints.
const passedFailedLine = (output) => {
  const m = [...output.matchAll(/(\d+) passed, (\d+) failed/g)].pop();
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : { passed: 0, failed: 0 };
};
const fixtureScripts = () =>
  readdirSync(join(root, 'tests/fixtures'))
    .filter((f) => /^make_.*\.py$/.test(f))
    .sort()
    .map((f) => join('tests/fixtures', f));

const suites = {
  native: {
    ...gtestReports('build/attn_tests.json'),
    run: () =>
      sequence(
        [
          ['cmake', ['-S', '.', '-B', 'build', '-DCMAKE_BUILD_TYPE=Release', ...werror]],
          ['cmake', ['--build', 'build', '-j2']],
          ['ctest', ['--test-dir', 'build', '--output-on-failure', '-V']],
          ['./build/attention-demo', ['--projected']],
        ],
        { stopAtFailure: true },
      ),
  },
  wasm: {
    ...gtestReports('build-wasm/attn_tests.json'),
    run: () =>
      sequence(
        [
          ['cmake', ['--build', 'build-wasm', '-j2', '--target', 'attn_tests']],
          ['ctest', ['--test-dir', 'build-wasm', '--output-on-failure', '-V']],
        ],
        { stopAtFailure: true },
      ),
  },
  fixtures: {
    // Where Debian's python3-torch is installed: the committed fixtures are exactly what each
    // tests/fixtures/make_*.py regenerates (the tests themselves never need torch).
    counts: (output) => {
      const same = (output.match(/ same$/gm) || []).length;
      const changed = (output.match(/ DIFFERS$/gm) || []).length;
      return { passed: same, failed: changed };
    },
    available: () => {
      try {
        execFileSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    },
    run: () => sequence(fixtureScripts().map((script) => ['/usr/bin/python3', [script, '--check']])),
  },
  sanitize: {
    ...gtestReports('build/attn_tests_sanitized.json'),
    run: () => run('bash', ['scripts/sanitize.sh', 'asan']),
  },
  tsan: {
    ...gtestReports('build-tsan/attn_tests_tsan.json'),
    run: () => run('bash', ['scripts/sanitize.sh', 'tsan']),
  },
  js: {
    counts: nodeCounts,
    run: () => run('node', ['--test', '--test-concurrency=1', ...testFiles('tests/js')]),
  },
  e2e: {
    counts: nodeCounts,
    // Tests per browser, summed over the closing lines of scripts/e2e-reporter.mjs (one per run
    // below; each file names its browser).
    detail: (output) => {
      const perBrowser = new Map();
      for (const [, list] of output.matchAll(/^# e2e browsers: (.+)$/gm)) {
        for (const part of list.split(', ')) {
          const m = /^(.+) (\d+)$/.exec(part);
          if (m) perBrowser.set(m[1], (perBrowser.get(m[1]) ?? 0) + Number(m[2]));
        }
      }
      const parts = [...perBrowser].sort(([a], [b]) => a.localeCompare(b)).map(([name, n]) => `${name} ${n}`);
      return parts.length ? parts.join(', ') : undefined;
    },
    // Two files at a time (598 s one at a time here, 356 s two at a time), except the threads
    // file, which runs alone afterwards: it measures what a second core gives, and beside another
    // browser Firefox's threaded engine was starved once (a 186 s protocol timeout).
    run: () => {
      const alone = ['tests/e2e/threads.test.mjs'];
      const nodeTest = (concurrency, files) => [
        'node',
        [
          '--test',
          `--test-concurrency=${concurrency}`,
          '--test-reporter=tap',
          '--test-reporter-destination=stdout',
          '--test-reporter=./scripts/e2e-reporter.mjs',
          '--test-reporter-destination=stdout',
          ...files,
        ],
      ];
      // The longest files start first, so the two lanes end together rather than one long file
      // running alone at the end (longest first as they ran here, 37 to 122 s each beside another
      // file; the rest, each under 37 s, follow by name).
      const LONGEST = ['blog', 'hostile', 'teach', 'hub-ui', 'page', 'learn', 'real-model', 'hub', 'story'];
      const rank = (f) => {
        const i = LONGEST.indexOf(f.replace(/^.*\/|\.test\.mjs$/g, ''));
        return i === -1 ? LONGEST.length : i;
      };
      const files = testFiles('tests/e2e').sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
      for (const name of LONGEST)
        if (!files.includes(`tests/e2e/${name}.test.mjs`)) throw new Error(`test: LONGEST names no file ${name}`);
      return sequence([
        nodeTest(
          availableParallelism() >= 2 ? 2 : 1,
          files.filter((f) => !alone.includes(f)),
        ),
        nodeTest(
          1,
          files.filter((f) => alone.includes(f)),
        ),
      ]);
    },
  },
  bench: {
    counts: passedFailedLine,
    run: () => run('node', ['bench/run.mjs', '--quick']),
  },
  lint: {
    // clang-format and Prettier agree with every file they format (configs: .clang-format,
    // .prettierrc.json); scripts/lint.mjs --fix rewrites them.
    counts: passedFailedLine,
    run: () => run('node', ['scripts/lint.mjs']),
  },
};

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(suites);
execFileSync('node', [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit', env });

// Suites that each keep one core busy with one process (GoogleTest binaries, node:test with
// --test-concurrency=1) run in two lanes at once on a machine with two or more cores: a batch
// is two lanes, each a list of suites run one after the other. The browser suite, whose tests
// watch frames and timings, always runs alone. Summary lines keep the order of `wanted`.
const LANES = [
  [['native'], ['wasm']],
  // The ASan build and its runs (~205 s here) beside the rest, of about the same length.
  [
    ['sanitize', 'bench', 'lint'],
    ['tsan', 'fixtures', 'js'],
  ],
];
const batches = []; // each: a list of lanes, each lane a list of suite names
for (const name of wanted) {
  if (!suites[name]) throw new Error(`test: unknown suite '${name}'; known: ${Object.keys(suites).join(', ')}`);
}
const placed = new Set();
for (const name of wanted) {
  if (placed.has(name)) continue;
  const group = availableParallelism() >= 2 ? LANES.find((lanes) => lanes.flat().includes(name)) : undefined;
  const lanes = group
    ? group.map((lane) => lane.filter((n) => wanted.includes(n))).filter((lane) => lane.length)
    : [[name]];
  lanes.flat().forEach((n) => placed.add(n));
  batches.push(lanes);
}

const results = new Map(); // suite name → its summary line and counts
async function runSuite(name) {
  const suite = suites[name];
  if (suite.available && !suite.available()) {
    return {
      line: `${name.padEnd(9)} not run (no python3-torch: ATTN_WITH_TORCH=1 npm test installs it)`,
      passed: 0,
      failed: 0,
    };
  }
  const started = Date.now();
  for (const file of suite.reports ?? []) rmSync(join(root, file), { force: true });
  const { code, output } = await suite.run();
  const counts = suite.counts(output);
  // A suite that exits non-zero fails even if its counts say otherwise (a crash, a build error).
  const failed = counts.failed + (code !== 0 && counts.failed === 0 ? 1 : 0);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const detail = suite.detail?.(output);
  const line =
    `${name.padEnd(9)} ${code === 0 ? 'ok  ' : 'FAIL'} ${counts.passed} passed, ${failed} failed` +
    `${counts.skipped ? `, ${counts.skipped} skipped` : ''}${detail ? ` (${detail})` : ''} (${seconds} s)`;
  return { line, passed: counts.passed, failed, output };
}
for (const lanes of batches) {
  holdOutput = lanes.length > 1;
  if (!holdOutput) console.log(`\n===== ${lanes[0].join(', ')} =====`);
  const runLane = async (lane) => {
    const out = [];
    for (const name of lane) out.push(await runSuite(name));
    return out;
  };
  const done = await Promise.all(lanes.map(runLane));
  lanes.forEach((lane, i) => {
    lane.forEach((name, j) => {
      const result = done[i][j];
      if (holdOutput) {
        const others = lanes.filter((_, k) => k !== i).flat();
        console.log(`\n===== ${name} (beside ${others.join(', ')}) =====`);
        process.stdout.write(result.output ?? '');
      }
      results.set(name, result);
    });
  });
}
holdOutput = false;
const summary = wanted.map((name) => results.get(name).line);
const totalPassed = wanted.reduce((a, name) => a + results.get(name).passed, 0);
const totalFailed = wanted.reduce((a, name) => a + results.get(name).failed, 0);

console.log('\n===== summary =====');
for (const line of summary) console.log(line);
console.log(`total: ${totalPassed} passed, ${totalFailed} failed`);
process.exit(totalFailed > 0 ? 1 : 0);

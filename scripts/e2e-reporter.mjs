// A node:test reporter for the e2e suite of `npm test` (it runs beside the TAP reporter):
// counts each test file's tests under the browser the file names on its stdout
// ("# e2e-browser: firefox", printed by the launchers in tests/e2e/helpers.mjs) and ends with
//   # e2e browsers: chromium 54, firefox 4
// which scripts/test.mjs puts on the e2e summary line. Skipped and todo tests are not counted
// (as in node's own pass/fail totals); a file that names no browser counts as "no browser", one
// that names several counts under their names joined by '+'.
const MARKER = /^# e2e-browser: ([\w.-]+)\s*$/gm;

export default async function* browsersReporter(source) {
  const named = new Map(); // file → Set of browser names
  const tests = new Map(); // file → tests that passed or failed
  for await (const { type, data } of source) {
    if (type === 'test:stdout' && data.file) {
      for (const [, name] of data.message.matchAll(MARKER)) {
        if (!named.has(data.file)) named.set(data.file, new Set());
        named.get(data.file).add(name);
      }
    } else if (
      (type === 'test:pass' || type === 'test:fail') &&
      data.details?.type !== 'suite' &&
      !data.skip &&
      !data.todo
    ) {
      tests.set(data.file, (tests.get(data.file) ?? 0) + 1);
    }
  }
  const perBrowser = new Map();
  for (const [file, count] of tests) {
    const key = [...(named.get(file) ?? ['no browser'])].sort().join('+');
    perBrowser.set(key, (perBrowser.get(key) ?? 0) + count);
  }
  const parts = [...perBrowser].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${name} ${count}`);
  yield `# e2e browsers: ${parts.join(', ') || 'none'}\n`;
}

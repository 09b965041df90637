// The counts of a GoogleTest run from the JSON report it writes (--gtest_output=json:<file>):
// what scripts/test.mjs's native, wasm, sanitize and tsan suites count, and scripts/sanitize.sh
// prints. Alone: `node scripts/gtest-report.mjs <file>` prints "N passed, N failed, N skipped".
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** {passed, failed, skipped} of the report at `file`; all 0 when there is none (the run never finished). */
export function gtestCounts(file) {
  if (!existsSync(file)) return { passed: 0, failed: 0, skipped: 0 };
  const report = JSON.parse(readFileSync(file, 'utf8'));
  let skipped = 0;
  for (const suite of report.testsuites ?? [])
    for (const t of suite.testsuite ?? []) if (t.result === 'SKIPPED') skipped++;
  return { passed: report.tests - report.failures - skipped, failed: report.failures, skipped };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { passed, failed, skipped } = gtestCounts(process.argv[2]);
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
}

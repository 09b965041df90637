// What the benchmarks' reports share: quantiles of sorted timings, millisecond text, and the
// "Notes:" / "Problems:" lists at the end of a Markdown report, how busy the machine is, and
// the scripts' command-line options.
import fs from 'node:fs';

/** The p-quantile (0 … 1) of an ascending array, by the nearest rank. */
export const quantile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))];

/** Milliseconds with 3 significant-ish digits ('—' for a missing or failed figure). */
export const fmtMs = (x) =>
  !Number.isFinite(x) ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3);

/** Appends `title` and one "- item" line per item (nothing when there are none). */
export function pushList(lines, title, items) {
  if (!items.length) return;
  lines.push(title);
  for (const item of items) lines.push(`- ${item}`);
  lines.push('');
}

/**
 * The share of the machine's CPU time other jobs take: /proc/stat's non-idle time over `ms`
 * milliseconds while this process sleeps, 0 … 1 (null where /proc/stat is missing). A load
 * average lags by minutes (it still counts a benchmark that just ended); this is the present.
 */
export async function busyShare(ms = 3000) {
  const read = () => {
    try {
      const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      return { idle: cpu[3] + (cpu[4] ?? 0), total: cpu.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const a = read();
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  if (!a || !b || b.total === a.total) return null;
  return 1 - (b.idle - a.idle) / (b.total - a.total);
}

// The value after `--name` on the command line, else `fallback` (the bench and fuzz scripts'
// options: `node bench/soak.mjs --steps 100`).
export const cliOption = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

// What the benchmarks' reports share: quantiles of sorted timings, millisecond text, and the
// "Notes:" / "Problems:" lists at the end of a Markdown report.

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

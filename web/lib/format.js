// Number formatting and parsing for the page. Pure; unit-tested in tests/js/lib/format.test.mjs.

export const MINUS = '\u2212';

/** Formats a number with `digits` decimals, a real minus sign, and ∞ for infinities. */
export function fmt(value, digits = 3) {
  if (value === -Infinity) return MINUS + '\u221e';
  if (value === Infinity) return '\u221e';
  if (Number.isNaN(value)) return 'NaN';
  let text = Number(value).toFixed(digits);
  if (/^-0\.?0*$/.test(text)) text = text.slice(1); // no "−0.000"
  return text.replace('-', MINUS);
}

/** Shortest decimal text that reads back to the same float32 (engine numbers are float32). */
export function float32Text(value) {
  if (value === -Infinity) return '-Infinity';
  if (value === Infinity) return 'Infinity';
  if (Number.isNaN(value)) return 'NaN';
  const f = Math.fround(value);
  if (f === 0) return '0';
  for (let p = 1; p <= 9; p++) {
    const text = f.toPrecision(p);
    if (Math.fround(Number(text)) === f) return String(Number(text));
  }
  return String(f);
}

/** Formats a vector as "[a, b, c]". */
export function fmtVector(values, digits = 3) {
  return '[' + Array.from(values, (v) => fmt(v, digits)).join(', ') + ']';
}

/**
 * Parses what a person typed into a number cell. Accepts "−1.5", "-1,5", "+2", "1e-3".
 * @returns {{value: number} | {error: string}}
 */
export function parseNumber(text, { min = -1000, max = 1000 } = {}) {
  const clean = String(text)
    .trim()
    .replace(/[\u2212\u2013]/g, '-')
    .replace(',', '.');
  if (clean === '') return { error: 'enter a number' };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(clean)) return { error: `"${text}" is not a number` };
  const value = Number(clean);
  if (!Number.isFinite(value)) return { error: `"${text}" is not a finite number` };
  if (value < min || value > max)
    return { error: `${fmt(value)} is outside the allowed range [${fmt(min, 0)}, ${fmt(max, 0)}]` };
  return { value };
}

/** Rounds to a fixed number of decimals without float noise, e.g. 0.1 + 0.2 → 0.3. */
export function roundTo(value, digits = 3) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A duration in microseconds for display: "11.3 µs", "2.45 ms". */
export function fmtMicros(us) {
  if (!Number.isFinite(us)) return '—';
  if (us < 1000) return `${us.toPrecision(3)} µs`;
  return `${(us / 1000).toPrecision(3)} ms`;
}

/** Milliseconds for display: 3 significant figures, at least 3 decimals below 1 ms. */
export function fmtMs(ms) {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1) return ms.toFixed(3) + ' ms';
  return ms.toPrecision(3) + ' ms';
}

/** Labels of n rows or columns: "d0", "d1", … (prefix "d"), starting at `from`. */
export function indexLabels(n, prefix, from = 0) {
  return Array.from({ length: n }, (_, i) => `${prefix}${i + from}`);
}

/** A matrix's size for a caption: "4 × 3" (rows × columns). */
export function sizeText(matrix) {
  return `${matrix.length} × ${matrix[0]?.length ?? 0}`;
}

/** A tensor's shape as PyTorch prints it: "(2, 3)", "(5,)". */
export function shapeText(shape) {
  return `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
}

/**
 * Bytes as text: "812 B", "4.1 kB", "548 MB", "1.52 GB" (three significant digits from kB on). Decimal,
 * as the Hub and the README write them (GPT-2 small's 548,105,171 bytes are "548 MB").
 */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000,
    unit = 0;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/** Seconds as text: "8 s", "2 min 5 s", "1 h 3 min". */
export function formatSeconds(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

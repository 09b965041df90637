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

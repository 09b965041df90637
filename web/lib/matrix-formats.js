// A matrix as text files: CSV, JSON and a torch.tensor literal, every number exact to float32.
// A matrix is (R, C) nested arrays of numbers (−Infinity marks a masked entry) or a
// {shape: [R, C], data} tensor. Labels are untrusted text: each writer escapes them for its
// format (CSV quoting and formula guard, JSON, Python string literals). Pure.
import { float32Text } from './format.js';

/** (R, C) nested arrays from nested arrays or a {shape: [R, C], data} tensor; checks the shape. */
export function toMatrix(matrix, argument = 'matrix') {
  if (matrix && !Array.isArray(matrix) && Array.isArray(matrix.shape) && matrix.data) {
    const [rows, cols] = matrix.shape;
    if (matrix.shape.length !== 2 || matrix.data.length !== rows * cols) {
      throw new TypeError(
        `${argument}: expected a 2-d tensor {shape: [R, C], data of R·C numbers}, got shape [${matrix.shape}] with ${matrix.data.length} numbers`,
      );
    }
    return Array.from({ length: rows }, (_, r) => Array.from(matrix.data.slice(r * cols, (r + 1) * cols)));
  }
  if (!Array.isArray(matrix) || matrix.length === 0 || !Array.isArray(matrix[0])) {
    throw new TypeError(`${argument}: expected (R, C) nested arrays of numbers`);
  }
  const cols = matrix[0].length;
  matrix.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== cols) {
      throw new TypeError(`${argument}: row ${r} has ${row?.length} entries, expected ${cols} like row 0`);
    }
    row.forEach((v, c) => {
      if (typeof v !== 'number' || Number.isNaN(v))
        throw new TypeError(`${argument}[${r}][${c}]: expected a number, got ${v}`);
    });
  });
  return matrix;
}

export function labelsFor(labels, n, fallback) {
  return Array.from({ length: n }, (_, i) =>
    labels && labels[i] !== undefined ? String(labels[i]) : `${fallback}${i}`,
  );
}

/** One CSV field: quoted when needed, and a leading = + - @ guarded so no spreadsheet runs it. */
export function csvField(text) {
  let s = String(text);
  // A label starting with = + - @ would run as a formula in a spreadsheet.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV: a header row of column labels, then one row per matrix row led by its label. */
export function toCSV(matrix, { rowLabels, colLabels, corner = '' } = {}) {
  const m = toMatrix(matrix);
  const rows = labelsFor(rowLabels, m.length, 'row ');
  const cols = labelsFor(colLabels, m[0].length, 'col ');
  const lines = [[corner, ...cols].map(csvField).join(',')];
  m.forEach((row, r) => lines.push([csvField(rows[r]), ...row.map(float32Text)].join(',')));
  return lines.join('\r\n') + '\r\n';
}

/** JSON: {name, shape, rowLabels, colLabels, data}; masked (−∞) entries are written as null. */
export function toJSON(matrix, { name = 'matrix', rowLabels, colLabels } = {}) {
  const m = toMatrix(matrix);
  const data = m.map((row) => row.map((v) => (Number.isFinite(v) ? Number(float32Text(v)) : null)));
  const out = {
    name: String(name),
    shape: [m.length, m[0].length],
    rowLabels: labelsFor(rowLabels, m.length, 'row '),
    colLabels: labelsFor(colLabels, m[0].length, 'col '),
    data,
  };
  if (m.some((row) => row.some((v) => !Number.isFinite(v))))
    out.note = 'null marks a masked entry (−∞ before the softmax)';
  return JSON.stringify(out, null, 2) + '\n';
}

/** Python literal of a number, always a float (an all-integer list would make an int tensor). */
export function pyFloat(value) {
  if (value === -Infinity) return 'float("-inf")';
  if (value === Infinity) return 'float("inf")';
  const text = typeof value === 'number' && Math.fround(value) === value ? float32Text(value) : String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Python string literal for untrusted text: JSON escapes are all valid Python escapes. */
export function pyString(text) {
  return JSON.stringify(String(text)).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** A Python list literal of the rows of (R, C) nested arrays. */
export function pyList(m, indent = '') {
  const rows = m.map((row) => `${indent}    [${row.map(pyFloat).join(', ')}],`);
  return `[\n${rows.join('\n')}\n${indent}]`;
}

/** `torch.tensor([[…], …])` literal of the matrix, every number exact to float32. */
export function toTorchLiteral(matrix, { indent = '' } = {}) {
  return `torch.tensor(${pyList(toMatrix(matrix), indent)})`;
}

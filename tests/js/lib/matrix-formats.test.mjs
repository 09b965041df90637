// web/lib/matrix-formats.js: CSV, JSON and torch.tensor literals parse back to the numbers they
// were given, and labels are escaped for each format.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseCSV } from '../../helpers/csv.mjs';
import { hostileLabels, matrix } from '../../helpers/export-data.mjs';
import { toCSV, toJSON, toTorchLiteral, pyString } from '../../../web/lib/matrix-formats.js';

test('CSV_ParsesBackToTheNumbersAndLabels', () => {
  const csv = toCSV(matrix, { rowLabels: hostileLabels.slice(0, 2), colLabels: hostileLabels });
  const rows = parseCSV(csv);
  assert.equal(rows.length, 3);
  assert.deepEqual(rows[0].slice(1), ['<img src=x onerror=alert(1)>', "'=SUM(A1)", 'a,"b"\nc', '</script>']);
  assert.equal(rows[1][0], '<img src=x onerror=alert(1)>');
  rows
    .slice(1)
    .forEach((row, r) => row.slice(1).forEach((cell, c) => assert.equal(Math.fround(Number(cell)), matrix[r][c])));
});

test('JSON_ParsesBackWithNullForMaskedEntries', () => {
  const out = JSON.parse(toJSON(matrix, { name: 'weights', rowLabels: ['a', 'b'], colLabels: hostileLabels }));
  assert.deepEqual(out.shape, [2, 4]);
  assert.deepEqual(out.colLabels, hostileLabels);
  assert.equal(out.data[0][3], null);
  assert.match(out.note, /masked/);
  out.data.forEach((row, r) =>
    row.forEach((v, c) => {
      if (v !== null) assert.equal(Math.fround(v), matrix[r][c]);
    }),
  );
});

test('JSON_AcceptsAFlatTensor', () => {
  const out = JSON.parse(toJSON({ shape: [2, 2], data: new Float32Array([1, 2, 3, 4]) }));
  assert.deepEqual(out.data, [
    [1, 2],
    [3, 4],
  ]);
  assert.throws(() => toJSON({ shape: [2, 3], data: new Float32Array(5) }), /expected a 2-d tensor/);
  assert.throws(() => toCSV([[1, 2], [3]]), /row 1 has 1 entries, expected 2/);
});

test('TorchLiteral_IsFloatAndParsesBack', () => {
  const lit = toTorchLiteral([
    [1, 0],
    [Math.fround(0.2), -Infinity],
  ]);
  assert.match(lit, /^torch\.tensor\(\[/);
  assert.match(lit, /\[1\.0, 0\.0\]/);
  assert.match(lit, /float\("-inf"\)/);
});

test('PyString_EscapesQuotesNewlinesAndLineSeparators', () => {
  assert.equal(pyString('a"b\n\u2028'), '"a\\"b\\n\\u2028"');
});

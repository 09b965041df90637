// Unit tests of web/lib/format.js (number display and parsing of typed cell values).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fmt, fmtVector, parseNumber, roundTo, fmtMs, MINUS } from '../../web/lib/format.js';

test('fmt: fixed decimals, a real minus sign, no negative zero, infinities', () => {
  assert.equal(fmt(0.99186), '0.992');
  assert.equal(fmt(-1.5, 2), `${MINUS}1.50`);
  assert.equal(fmt(-0.0001), '0.000');
  assert.equal(fmt(-Infinity), `${MINUS}\u221e`);
  assert.equal(fmt(Infinity), '\u221e');
  assert.equal(fmt(NaN), 'NaN');
  assert.equal(fmtVector([1, -2]), `[1.000, ${MINUS}2.000]`);
});

test('parseNumber: accepts the ways people type numbers and names what is wrong', () => {
  assert.deepEqual(parseNumber(' 2.5 '), { value: 2.5 });
  assert.deepEqual(parseNumber(`${MINUS}1,5`), { value: -1.5 });
  assert.deepEqual(parseNumber('+.5'), { value: 0.5 });
  assert.deepEqual(parseNumber('1e-3'), { value: 0.001 });
  assert.match(parseNumber('').error, /enter a number/);
  assert.match(parseNumber('abc').error, /"abc" is not a number/);
  assert.match(parseNumber('1.2.3').error, /not a number/);
  assert.match(parseNumber('5000').error, /outside the allowed range \[−1000, 1000\]/);
  assert.match(parseNumber('1e999').error, /not a finite number/);
  assert.deepEqual(parseNumber('1000'), { value: 1000 });
});

test('roundTo removes float noise; fmtMs keeps sub-millisecond precision', () => {
  assert.equal(roundTo(0.1 + 0.2, 3), 0.3);
  assert.equal(roundTo(1.23456, 2), 1.23);
  assert.equal(fmtMs(0.1234), '0.123 ms');
  assert.equal(fmtMs(12.345), '12.3 ms');
  assert.equal(fmtMs(NaN), '—');
});

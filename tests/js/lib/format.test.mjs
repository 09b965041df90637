// Unit tests of web/lib/format.js (number display and parsing of typed cell values).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fmt,
  fmtVector,
  parseNumber,
  roundTo,
  fmtMs,
  MINUS,
  float32Text,
  indexLabels,
  sizeText,
  shapeText,
} from '../../../web/lib/format.js';

test('Fmt_FixedDecimalsARealMinusSignNoNegativeZeroAndInfinities', () => {
  assert.equal(fmt(0.99186), '0.992');
  assert.equal(fmt(-1.5, 2), `${MINUS}1.50`);
  assert.equal(fmt(-0.0001), '0.000');
  assert.equal(fmt(-Infinity), `${MINUS}\u221e`);
  assert.equal(fmt(Infinity), '\u221e');
  assert.equal(fmt(NaN), 'NaN');
  assert.equal(fmtVector([1, -2]), `[1.000, ${MINUS}2.000]`);
});

test('ParseNumber_AcceptsTheWaysPeopleTypeNumbersAndNamesWhatIsWrong', () => {
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

test('RoundTo_RemovesFloatNoiseAndFmtMsKeepsSubMillisecondPrecision', () => {
  assert.equal(roundTo(0.1 + 0.2, 3), 0.3);
  assert.equal(roundTo(1.23456, 2), 1.23);
  assert.equal(fmtMs(0.1234), '0.123 ms');
  assert.equal(fmtMs(12.345), '12.3 ms');
  assert.equal(fmtMs(NaN), '—');
});

test('Float32Text_ShortestTextReadsBackToTheSameFloat32', () => {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < 2000; i++) {
    const v = Math.fround((rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 6));
    const t = float32Text(v);
    assert.equal(Math.fround(Number(t)), v, `${v} → ${t}`);
    const digits = t.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '');
    assert.ok(digits.length <= 9, `${t} has ${digits.length} significant digits`);
  }
  assert.equal(float32Text(Math.fround(0.1)), '0.1');
  assert.equal(float32Text(-Infinity), '-Infinity');
});

test('IndexLabels_NumberRowsOrColumnsFromAnOffset', () => {
  assert.deepEqual(indexLabels(3, 'd'), ['d0', 'd1', 'd2']);
  assert.deepEqual(indexLabels(2, 'v', 4), ['v4', 'v5']);
  assert.deepEqual(indexLabels(0, 'o'), []);
});

test('SizeAndShapeText_ACaptionsRowsByColumnsAndPyTorchsTuples', () => {
  assert.equal(
    sizeText([
      [1, 2, 3],
      [4, 5, 6],
    ]),
    '2 × 3',
  );
  assert.equal(shapeText([2, 3]), '(2, 3)');
  assert.equal(shapeText([5]), '(5,)', 'a one-element tuple, as PyTorch prints it');
});

// Text helpers (web/lib/text.js): message descriptions of any value, clipping, escaping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clip, describe, escapeXml, fileStem, transposeParts } from '../../../web/lib/text.js';

test('Describe_NamesEveryKindOfValue', () => {
  assert.equal(describe(null), 'null');
  assert.equal(describe(undefined), 'undefined');
  assert.equal(describe([1, 2]), 'an array of length 2');
  assert.equal(describe(new Float32Array(3)), 'a Float32Array of length 3');
  assert.equal(describe('nope'), 'the string "nope"');
  assert.equal(describe('a"b'), 'the string "a\\"b"');
  assert.equal(describe(NaN), 'NaN');
  assert.equal(describe(true), 'true');
  assert.equal(describe({ a: 1 }), 'an object');
  assert.equal(
    describe(() => 1),
    'function',
  );
  assert.equal(describe(Symbol('s')), 'symbol');
  assert.equal(describe('x'.repeat(100)).length, 'the string ""'.length + 41);
});

test('Clip_CutsLongTextWithAnEllipsis', () => {
  assert.equal(clip('short'), 'short');
  assert.equal(clip('abcdef', 3), 'abc…');
  assert.equal(clip(12345, 2), '12…');
});

test('Clip_NeverSplitsACharacter', () => {
  // Surrogate pairs, a ZWJ family and a flag count as one character each (Node has Intl.Segmenter).
  assert.equal(clip('😀😀😀', 2), '😀😀…');
  assert.equal(clip('👩‍👩‍👧👍🇫🇷x', 3), '👩‍👩‍👧👍🇫🇷…');
  assert.equal(clip('é'.normalize('NFD').repeat(3), 2), 'é'.normalize('NFD').repeat(2) + '…');
  assert.equal(clip('😀😀', 2), '😀😀', 'four UTF-16 units, two characters: not cut');
});

test('EscapeXml_LeavesNoMarkupAndNoForbiddenCharacters', () => {
  assert.equal(escapeXml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.equal(escapeXml('a\u0000b\u001fc\uffff'), 'a\ufffdb\ufffdc\ufffd');
  assert.equal(escapeXml('tab\tnew\nline'), 'tab\tnew\nline');
});

test('FileStem_IsSafeAndNeverEmpty', () => {
  assert.equal(fileStem('../<b>river weights</b>'), 'b-river-weights-b');
  assert.equal(fileStem('...'), 'matrix');
  assert.equal(fileStem('x'.repeat(100)).length, 60);
});

test('FileStem_TurnsMarkupAndPathsIntoSafeWords', () => {
  assert.equal(fileStem('../<b>river weights</b>'), 'b-river-weights-b');
});

test('TransposeParts_TheTransposeSignBecomesASuperscriptT', () => {
  // U+1D40, which DejaVu Serif Bold draws as "ˢ": shown as a superscript T instead.
  assert.deepEqual(transposeParts('scores = Q·Kᵀ (river)'), [
    { text: 'scores = Q·K', sup: false },
    { text: 'T', sup: true },
    { text: ' (river)', sup: false },
  ]);
  assert.deepEqual(transposeParts('X·Xᵀ'), [
    { text: 'X·X', sup: false },
    { text: 'T', sup: true },
  ]);
  assert.deepEqual(transposeParts('no sign'), [{ text: 'no sign', sup: false }]);
});

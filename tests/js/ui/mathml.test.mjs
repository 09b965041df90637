// The formula builder (web/ui/mathml.js): every node carries its TeX, which the <math>
// element's annotation holds; numbers and names go in as text, never parsed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mi, mn, mo, mtext, opname, row, frac, sqrt, sup, sub, fenced, vector, tex } from '../../../web/ui/mathml.js';

test('MathML_TheAttentionFormulaReadsAsTeX', () => {
  const f = row(
    opname('softmax'),
    fenced('(', ')', frac(row(mi('Q'), sup(mi('K'), mo('⊤', '\\top'))), sqrt(sub(mi('d'), mi('k'))))),
    mi('V'),
  );
  assert.equal(tex(f), '\\operatorname{softmax} \\left( \\frac{Q {K}^{\\top}}{\\sqrt{{d}_{k}}} \\right) V');
});

test('MathML_VectorsAreBracketedRowsOfNumbers', () => {
  const v = vector(['0.320', '-0.392', '0.288']);
  assert.equal(tex(v), '\\begin{bmatrix}0.320 & -0.392 & 0.288\\end{bmatrix}');
  const table = v.children[1];
  assert.equal(table.tag, 'mtable');
  assert.deepEqual(
    table.children[0].children.map((td) => td.children[0].text),
    ['0.320', '-0.392', '0.288'],
  );
});

test('MathML_TextCannotBreakOutOfItsTeXGroup', () => {
  assert.equal(tex(mtext('masked: }\\evil{')), '\\text{masked: evil}');
  assert.equal(mtext('a<b>').text, 'a<b>', 'the MathML text node keeps the text as text');
  assert.equal(tex(mn(3)), '3');
});

// web/lib/svg-markup.js: the exports' standalone SVG documents — one namespace, a white background,
// the picture's elements one per line, its font escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SVG_NS, svgDocument } from '../../../web/lib/svg-markup.js';

test('SvgDocument_WrapsTheElementsOnAWhiteBackground', () => {
  const text = svgDocument(20, 10, ['<line x1="0"/>', '<text>a</text>'], { fontFamily: '"A" & B', fontSize: 12 });
  assert.equal(
    text,
    [
      `<svg xmlns="${SVG_NS}" width="20" height="10" viewBox="0 0 20 10" font-family="&quot;A&quot; &amp; B" font-size="12">`,
      '<rect width="20" height="10" fill="#fff"/>',
      '<line x1="0"/>',
      '<text>a</text>',
      '</svg>',
      '',
    ].join('\n'),
  );
  assert.equal(SVG_NS, 'http://www.w3.org/2000/svg');
});

// SVG as text (the exports' standalone files): the namespace's one home, and the document around a
// picture's elements. Pure.
import { escapeXml } from './text.js';

export const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * A standalone SVG document of width × height on a white background, `body` its elements
 * (one string each), one per line.
 */
export function svgDocument(width, height, body, { fontFamily = 'system-ui, sans-serif', fontSize = 13 } = {}) {
  return (
    [
      `<svg xmlns="${SVG_NS}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(fontFamily)}" font-size="${fontSize}">`,
      `<rect width="${width}" height="${height}" fill="#fff"/>`,
      ...body,
      '</svg>',
    ].join('\n') + '\n'
  );
}

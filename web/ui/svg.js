// SVG elements, made through any Document (a shadow root's page too).
import { SVG_NS } from '../lib/svg-markup.js';

/** svgEl(doc, 'line', {x1: 0, class: 'a'}): an SVG element with its attributes set as strings. */
export function svgEl(doc, tag, attrs = {}) {
  const el = doc.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

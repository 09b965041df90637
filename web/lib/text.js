// Text helpers for messages and files. Pure; unit-tested in tests/js/lib/text.test.mjs.
// Untrusted text (token names, hash and attribute values) only ever reaches the page as text
// nodes; these helpers shorten it for messages and escape it for the file formats that need it.

export { clip, describe } from '../engine/args.js';

/** Text escaped for XML/HTML text and attribute values; characters XML 1.0 forbids become U+FFFD. */
export function escapeXml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');
}

/** A safe file name stem from untrusted text. */
export function fileStem(text) {
  return (
    String(text)
      .normalize('NFKD')
      .replace(/[^\w.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 60) || 'matrix'
  );
}

/**
 * The transpose sign, as the project writes it in text (“Q·Kᵀ”: U+1D40). Some fonts draw that
 * modifier letter wrongly (DejaVu Serif Bold, a common serif fallback, as “Kˢ”), so what is shown
 * splits text around it and draws a superscript T instead: [{text, sup}], sup for the T.
 */
export const TRANSPOSE = '\u1d40';
export function transposeParts(text) {
  const parts = [];
  String(text)
    .split(TRANSPOSE)
    .forEach((piece, n) => {
      if (n > 0) parts.push({ text: 'T', sup: true });
      if (piece) parts.push({ text: piece, sup: false });
    });
  return parts;
}

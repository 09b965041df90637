// Text helpers for messages and files. Pure; unit-tested in tests/js/lib/text.test.mjs.
// Untrusted text (token names, hash and attribute values) only ever reaches the page as text
// nodes; these helpers shorten it for messages and escape it for the file formats that need it.

// User-perceived characters where the runtime can tell them (Intl.Segmenter), else code points:
// either way a cut never splits a surrogate pair, and with the segmenter not an emoji sequence.
const graphemes =
  typeof Intl !== 'undefined' && typeof Intl.Segmenter === 'function'
    ? (
        (segmenter) => (s) =>
          Array.from(segmenter.segment(s), (g) => g.segment)
      )(new Intl.Segmenter(undefined, { granularity: 'grapheme' }))
    : (s) => Array.from(s);

/** `text` cut to `n` characters (graphemes) with an ellipsis. */
export function clip(text, n = 40) {
  const s = String(text);
  if (s.length <= n) return s; // n UTF-16 units hold at most n characters
  const chars = graphemes(s);
  return chars.length > n ? `${chars.slice(0, n).join('')}…` : s;
}

/** A short description of any value for an error message: "an array of length 3", "the string "x"". */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(clip(value, 40))}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

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

// What web/engine/engine.js and model.js share to read a caller's arguments: the error every bad
// argument throws, and the words its message uses. The engine is the bottom of the web side
// (docs/architecture.md): it imports nothing from web/lib/, which imports these from here.

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

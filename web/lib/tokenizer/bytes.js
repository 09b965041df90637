// Bytes for a byte-level BPE: GPT-2's byte ↔ printable-character mapping (the alphabet its
// vocab.json and merges.txt are written in), UTF-8 encoding, and a UTF-8 decoder that says which
// bytes every character came from (so a token holding half a character can be shown as such).
// Pure; unit-tested in tests/js/lib/tokenizer/tokenizer.test.mjs.

/**
 * GPT-2's bytes_to_unicode() (openai/gpt-2 src/encoder.py): the 188 printable Latin-1 bytes
 * ('!'…'~', '¡'…'¬', '®'…'ÿ') stand for themselves; the other 68 bytes (controls, space, DEL,
 * NBSP, soft hyphen) take the characters from U+0100 on, in byte order. Space (0x20) is 'Ġ',
 * newline (0x0A) is 'Ċ'.
 */
export const BYTE_TO_CHAR = (() => {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const table = new Array(256);
  let next = 256;
  for (let b = 0; b < 256; b++) table[b] = String.fromCharCode(printable(b) ? b : next++);
  return Object.freeze(table);
})();

/** The inverse of BYTE_TO_CHAR: character → byte. */
export const CHAR_TO_BYTE = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));

/** A token written in GPT-2's alphabet (vocab.json) as its bytes, or null if a character is outside it. */
export function symbolBytes(symbol) {
  const out = new Uint8Array(symbol.length); // every alphabet character is one UTF-16 unit
  for (let i = 0; i < symbol.length; i++) {
    const b = CHAR_TO_BYTE.get(symbol[i]);
    if (b === undefined) return null;
    out[i] = b;
  }
  return out;
}

/** Bytes written in GPT-2's alphabet. */
export function bytesSymbol(bytes) {
  let s = '';
  for (const b of bytes) s += BYTE_TO_CHAR[b];
  return s;
}

const encoder = new TextEncoder();
// ignoreBOM: a leading U+FEFF is text like any other (the default decoder drops it).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** UTF-8 of a string; a lone surrogate becomes U+FFFD (EF BF BD), as TextEncoder (WHATWG) does. */
export const utf8 = (text) => encoder.encode(text);

/** Text of UTF-8 bytes; each maximal invalid subsequence becomes one U+FFFD (WHATWG, TextDecoder). */
export const utf8Text = (bytes) => decoder.decode(bytes);

/**
 * The characters of UTF-8 bytes with the byte range each came from: [{char, start, end, valid}],
 * start/end byte offsets (end exclusive). Invalid bytes become U+FFFD with valid = false, grouped
 * exactly as the WHATWG decoder groups them (its "maximal subpart" rule), so the chars joined
 * equal utf8Text(bytes).
 */
export function utf8Characters(bytes) {
  const out = [];
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      out.push({ char: String.fromCharCode(b0), start: i, end: i + 1, valid: true });
      i++;
      continue;
    }
    // The sequence's length and the allowed range of its second byte (excludes overlongs,
    // surrogates and values above U+10FFFF), from the WHATWG UTF-8 decoder.
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    let cp = 0;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1;
      cp = b0 & 0x1f;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2;
      cp = b0 & 0x0f;
      if (b0 === 0xe0) lo = 0xa0;
      if (b0 === 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3;
      cp = b0 & 0x07;
      if (b0 === 0xf0) lo = 0x90;
      if (b0 === 0xf4) hi = 0x8f;
    } else {
      out.push({ char: '\ufffd', start: i, end: i + 1, valid: false });
      i++;
      continue;
    }
    let j = i + 1;
    let ok = true;
    for (let k = 0; k < need; k++, j++) {
      const b = bytes[j];
      if (j >= n || b < lo || b > hi) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (b & 0x3f);
      lo = 0x80;
      hi = 0xbf;
    }
    if (ok) {
      out.push({ char: String.fromCodePoint(cp), start: i, end: j, valid: true });
    } else {
      // The lead byte and the continuation bytes that were valid so far are one U+FFFD; the byte
      // that broke the sequence starts the next character.
      out.push({ char: '\ufffd', start: i, end: j, valid: false });
    }
    i = j;
  }
  return out;
}

/** Two-digit upper-case hex of each byte, space-separated: "F0 9F". */
export const hexBytes = (bytes) => Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');

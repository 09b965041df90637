// PNG chunks: a tEXt chunk written into a PNG the canvas made (so the numbers travel inside the
// image), and a reader that checks every chunk's CRC. Pure bytes in, bytes out.
//
// Hand-written rather than a dependency: the chunk format is a length, a type, the data and a
// CRC-32 (~60 lines here); the npm chunk libraries are CommonJS and would need a bundling step
// for the unbundled page.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Inserts a tEXt chunk (Latin-1 keyword and text; other characters become '?') before IEND. */
export function pngWithText(png, keyword, text) {
  const bytes = png instanceof Uint8Array ? png : new Uint8Array(png);
  const latin1 = (s) => Uint8Array.from([...s], (ch) => (ch.codePointAt(0) < 256 ? ch.codePointAt(0) : 63));
  const key = latin1(keyword.slice(0, 79));
  const body = latin1(text);
  const data = new Uint8Array(key.length + 1 + body.length);
  data.set(key, 0);
  data.set(body, key.length + 1);
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set([0x74, 0x45, 0x58, 0x74], 4); // "tEXt"
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  const iend = bytes.length - 12; // IEND is always the last 12 bytes
  if (String.fromCharCode(...bytes.subarray(iend + 4, iend + 8)) !== 'IEND')
    throw new Error('png: no IEND chunk at the end');
  const out = new Uint8Array(bytes.length + chunk.length);
  out.set(bytes.subarray(0, iend), 0);
  out.set(chunk, iend);
  out.set(bytes.subarray(iend), iend + chunk.length);
  return out;
}

/** Reads the chunks of a PNG: {width, height, text: {keyword: text}}; throws on a bad file. */
export function readPNG(png) {
  const bytes = png instanceof Uint8Array ? png : new Uint8Array(png);
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!sig.every((b, i) => bytes[i] === b)) throw new Error('png: bad signature');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = { width: 0, height: 0, text: {} };
  for (let p = 8; p < bytes.length;) {
    const len = view.getUint32(p);
    const type = String.fromCharCode(...bytes.subarray(p + 4, p + 8));
    const data = bytes.subarray(p + 8, p + 8 + len);
    if (crc32(bytes.subarray(p + 4, p + 8 + len)) !== view.getUint32(p + 8 + len))
      throw new Error(`png: bad CRC in ${type}`);
    if (type === 'IHDR') {
      out.width = view.getUint32(p + 8);
      out.height = view.getUint32(p + 12);
    }
    if (type === 'tEXt') {
      const zero = data.indexOf(0);
      out.text[String.fromCharCode(...data.subarray(0, zero))] = Array.from(data.subarray(zero + 1), (b) =>
        String.fromCharCode(b),
      ).join('');
    }
    p += 12 + len;
  }
  return out;
}

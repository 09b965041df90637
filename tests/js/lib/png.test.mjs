// web/lib/png.js: the numbers travel inside a PNG as a tEXt chunk with a valid CRC.
import test from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { matrix } from '../../helpers/export-data.mjs';
import { toCSV } from '../../../web/lib/matrix-formats.js';
import { pngWithText, readPNG, crc32 } from '../../../web/lib/png.js';

test('PNG_TextChunkRoundTripsWithValidCRC', () => {
  // A 1×1 RGBA PNG made with zlib.
  const chunk = (type, data) => {
    const b = Buffer.alloc(12 + data.length);
    b.writeUInt32BE(data.length, 0);
    b.write(type, 4, 'latin1');
    data.copy(b, 8);
    b.writeUInt32BE(crc32(b.subarray(4, 8 + data.length)), 8 + data.length);
    return b;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const png = Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.from([0, 255, 0, 0, 255]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  assert.equal(crc32(Buffer.from('IEND')), 0xae426082); // the well-known IEND CRC
  const csv = toCSV(matrix);
  const out = readPNG(pngWithText(png, 'attention-explorer:csv', csv));
  assert.equal(out.width, 1);
  assert.equal(out.text['attention-explorer:csv'], csv);
});

// Saving an attention-lines picture (lib/lines-image.js's layout) as a file: SVG, or PNG at 2×
// painted on a canvas with the weights as CSV in a tEXt chunk. Used by the Lines section and by
// the Learn section's heads. Browser only.
import { toLinesSVG, drawLines, linesCSV } from '../lib/lines-image.js';
import { pngWithText } from '../lib/png.js';
import { download } from './download.js';

/** Downloads layout `L` as `${stem}.svg` or `${stem}.png`. */
export async function saveLines(doc, kind, L, stem) {
  if (kind === 'svg') {
    download(doc, `${stem}.svg`, toLinesSVG(L), 'image/svg+xml');
    return;
  }
  const canvas = doc.createElement('canvas');
  canvas.width = Math.ceil(L.width * 2);
  canvas.height = Math.ceil(L.height * 2);
  drawLines(canvas.getContext('2d'), L, 2);
  const blob = await new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas produced no image'))), 'image/png'),
  );
  download(
    doc,
    `${stem}.png`,
    pngWithText(new Uint8Array(await blob.arrayBuffer()), 'attention-explorer:csv', linesCSV(L)),
    'image/png',
  );
}

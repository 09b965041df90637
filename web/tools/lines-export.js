// Saving an attention-lines picture as a file: SVG, or PNG at 2× painted on a canvas with the
// weights as CSV in a tEXt chunk. One head's lines (lib/lines-image.js's linesLayout: the Lines
// section, the Learn section's chosen head) or the Learn section's whole grid of layers × heads
// (gridLayout). Browser only.
import { toLinesSVG, drawLines, linesCSV, toGridSVG, drawGrid, gridCSV } from '../lib/lines-image.js';
import { pngWithText } from '../lib/png.js';
import { download, canvasPNG } from './download.js';

/** Downloads layout `L` (linesLayout) as `${stem}.svg` or `${stem}.png`. */
export function saveLines(doc, kind, L, stem) {
  return savePicture(doc, kind, stem, L, { svg: toLinesSVG, paint: drawLines, csv: linesCSV });
}

/** Downloads grid `G` (gridLayout) as `${stem}.svg` or `${stem}.png`. */
export function saveGrid(doc, kind, G, stem) {
  return savePicture(doc, kind, stem, G, { svg: toGridSVG, paint: drawGrid, csv: gridCSV });
}

async function savePicture(doc, kind, stem, picture, { svg, paint, csv }) {
  if (kind === 'svg') {
    download(doc, `${stem}.svg`, svg(picture), 'image/svg+xml');
    return;
  }
  const canvas = doc.createElement('canvas');
  canvas.width = Math.ceil(picture.width * 2);
  canvas.height = Math.ceil(picture.height * 2);
  paint(canvas.getContext('2d'), picture, 2);
  download(
    doc,
    `${stem}.png`,
    pngWithText(await canvasPNG(canvas), 'attention-explorer:csv', csv(picture)),
    'image/png',
  );
}

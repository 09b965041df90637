// Files out of the browser: a download of text or bytes, and a PNG of a heatmap drawn on a
// canvas (the numbers travel inside it as CSV in a tEXt chunk). The PNG is drawn with the canvas
// 2D API, not by loading the SVG as an image, so it works under a strict CSP (no data: or blob:
// images needed). Browser only.
import { heatmapLayout, drawHeatmap } from '../lib/heatmap-image.js';
import { toCSV } from '../lib/matrix-formats.js';
import { pngWithText } from '../lib/png.js';

/** Triggers a download of `data` (string, bytes or Blob) as `filename`. */
export function download(doc, filename, data, type = 'application/octet-stream') {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  doc.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The PNG bytes of what a canvas holds. */
export async function canvasPNG(canvas) {
  const blob = await new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('png: the canvas produced no image'))), 'image/png'),
  );
  return new Uint8Array(await blob.arrayBuffer());
}

/** PNG bytes of the heatmap at `scale`× (2 by default), with the CSV in a tEXt chunk. */
export async function toPNG(doc, matrix, options = {}) {
  const scale = options.scale ?? 2;
  const L = heatmapLayout(matrix, options);
  const canvas = doc.createElement('canvas');
  canvas.width = Math.ceil(L.width * scale);
  canvas.height = Math.ceil(L.height * scale);
  drawHeatmap(canvas.getContext('2d'), L, scale);
  return pngWithText(await canvasPNG(canvas), 'attention-explorer:csv', toCSV(matrix, options));
}

/** Copies text to the clipboard; falls back to a selected textarea + execCommand. */
export async function copyText(doc, text) {
  const nav = doc.defaultView?.navigator;
  try {
    if (nav?.clipboard?.writeText) {
      await nav.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* permission denied or insecure context: fall back */
  }
  const area = doc.createElement('textarea');
  area.readOnly = true;
  area.setAttribute('aria-hidden', 'true');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  doc.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = doc.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

// Saving what the real-model section shows: the chosen head as attention lines (PNG 2× with its
// weights as CSV inside, or SVG — the Lines section's format), and every layer and head as one
// PNG of the small multiples with their labels (the pictures only: a CSV of every weight of a
// GPT-2 would be tens of megabytes).
import { h } from '../../ui/dom.js';
import { linesLayout } from '../../lib/lines-image.js';
import { fileStem } from '../../lib/text.js';
import { saveLines } from '../../tools/lines-export.js';
import { download, canvasPNG } from '../../tools/download.js';
import { exportButton, exportStatus, reportExport } from '../../tools/export-buttons.js';

const TEXT = {
  lines: 'Save the chosen head’s lines',
  grid: 'Every layer and head as one picture',
};

/**
 * @param {Element} parent
 * @param {{doc, stem(): string}} ctx  stem: the file names' stem (the model's name)
 * @returns {{update({labels, weights, L, H, T, chosen, tiles})}}
 *   weights (L, H, T, T) flat; tiles: the grid's canvases in layer-major order
 */
export function render(parent, { doc, stem }) {
  const status = exportStatus(doc);
  let shown = null;
  const button = (kind, what, label) =>
    exportButton(doc, kind, () => save(what, kind), { data: `${what}-${kind}`, label });
  parent.append(
    h(
      doc,
      'div',
      { class: 'ae-export-actions ae-gpt-export', role: 'group', 'aria-label': TEXT.lines },
      h(doc, 'span', {}, `${TEXT.lines}: `),
      button('png', 'head', TEXT.lines),
      button('svg', 'head', TEXT.lines),
      h(doc, 'span', { role: 'group', 'aria-label': TEXT.grid }, ` ${TEXT.grid}: `, button('png', 'grid', TEXT.grid)),
      status,
    ),
  );

  function saveHead(kind) {
    const { labels, weights, H, T, chosen } = shown;
    const base = (chosen.layer * H + chosen.head) * T * T;
    const rows = Array.from({ length: T }, (_, i) => Array.from(weights.subarray(base + i * T, base + (i + 1) * T)));
    const title = `${stem()}: layer ${chosen.layer + 1}, head ${chosen.head + 1}`;
    const L = linesLayout({ tokens: labels, weights: [rows], masked: (i, j) => j > i, title });
    return saveLines(doc, kind, L, fileStem(`${stem()} layer ${chosen.layer + 1} head ${chosen.head + 1}`));
  }
  function save(what, kind) {
    if (!shown) return;
    if (what === 'head') reportExport(status, () => saveHead(kind), `${kind.toUpperCase()} saved`);
    else
      reportExport(
        status,
        () => saveTiles(doc, shown.tiles, shown, fileStem(`${stem()} every head`), `${stem()}: every layer and head`),
        'PNG of every head saved',
      );
  }

  return {
    update(next) {
      shown = next;
    },
  };
}

// The small multiples on one canvas: a title, head numbers above, layer numbers at the left,
// each tile scaled up without smoothing (one weight per pixel block).
async function saveTiles(doc, tiles, { L, H, T }, stem, title) {
  const tile = Math.max(48, Math.min(128, T * 4));
  const gap = 6,
    left = 64,
    top = 52;
  const canvas = doc.createElement('canvas');
  canvas.width = left + H * (tile + gap);
  canvas.height = top + L * (tile + gap);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#1f2328';
  ctx.font = '600 14px system-ui, sans-serif';
  ctx.fillText(title, 8, 20);
  ctx.font = '12px system-ui, sans-serif';
  ctx.imageSmoothingEnabled = false;
  for (let hh = 0; hh < H; hh++) ctx.fillText(`h${hh + 1}`, left + hh * (tile + gap) + tile / 2 - 8, top - 8);
  tiles.forEach((source, n) => {
    const l = Math.floor(n / H),
      hh = n % H;
    if (hh === 0) ctx.fillText(`layer ${l + 1}`, 6, top + l * (tile + gap) + tile / 2 + 4);
    ctx.fillStyle = '#e6e8eb';
    ctx.fillRect(left + hh * (tile + gap), top + l * (tile + gap), tile, tile);
    ctx.drawImage(source, left + hh * (tile + gap), top + l * (tile + gap), tile, tile);
    ctx.fillStyle = '#1f2328';
  });
  download(doc, `${stem}.png`, await canvasPNG(canvas), 'image/png');
}

// A labelled heatmap as an image: one layout, two painters (an SVG document and a canvas 2D
// context). The layout and the SVG are pure; drawHeatmap() only draws on the context it is given
// (tools/download.js makes the canvas and the PNG). Labels are untrusted text: the SVG escapes
// them; the canvas draws them as text.
import { fmt, float32Text } from './format.js';
import { colorScale, textColorFor } from './colormaps.js';
import { escapeXml, transposeParts } from './text.js';
import { toMatrix, labelsFor } from './matrix-formats.js';
import { svgDocument } from './svg-markup.js';

const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
const FONT = `12px ${FONT_FAMILY}`;
const TITLE_FONT = `600 13px ${FONT_FAMILY}`;
const TITLE_SUP_FONT = `600 9px ${FONT_FAMILY}`;
const LABEL_CHARS = 16; // visible label length; the full label is in the SVG <title>

// Rough text width for layout (the canvas painter measures exactly; the SVG is laid out the same).
const textWidth = (text) => [...String(text)].length * 7.2;
const clipLabel = (s) => ([...s].length > LABEL_CHARS ? `${[...s].slice(0, LABEL_CHARS - 1).join('')}…` : s);
// A colour the page painted (cellColors) may be any CSS colour; unknown ones get dark ink.
function inkFor(fill) {
  try {
    return textColorFor(fill);
  } catch {
    return '#000';
  }
}

/**
 * Geometry of a labelled heatmap. Cells are `cell` px squares; row labels on the left, column
 * labels on top, an optional title above. All coordinates are in CSS px (scale applies later).
 * Colours: cellColors[r][c] (e.g. read from the page's cells) wins over `color` (v → CSS colour),
 * which defaults to the page's colour scale for `kind`.
 */
export function heatmapLayout(
  matrix,
  { rowLabels, colLabels, title = '', cell = 44, digits = 3, kind = 'signed', color, cellColors } = {},
) {
  const m = toMatrix(matrix);
  const rows = labelsFor(rowLabels, m.length, '');
  const cols = labelsFor(colLabels, m[0].length, '');
  const pad = 8;
  const rowText = rows.map(clipLabel);
  const colText = cols.map(clipLabel);
  const left = pad + Math.ceil(Math.max(0, ...rowText.map(textWidth))) + 8;
  const titleH = title ? 22 : 0;
  const top = pad + titleH + 20;
  const cellW = Math.max(cell, Math.ceil(Math.max(...colText.map(textWidth), textWidth(fmt(-0.5, digits))) + 8));
  const width = left + cellW * m[0].length + pad;
  const height = top + cell * m.length + pad;
  const paint = color || colorScale(kind, m.flat());
  const cells = [];
  m.forEach((row, r) =>
    row.forEach((v, c) => {
      const given = cellColors?.[r]?.[c];
      const fill = given !== undefined ? given : paint(v);
      cells.push({
        r,
        c,
        value: v,
        x: left + c * cellW,
        y: top + r * cell,
        w: cellW,
        h: cell,
        fill: fill || null,
        ink: fill ? inkFor(fill) : '#555',
        text: fmt(v, digits),
      });
    }),
  );
  return {
    width,
    height,
    title: String(title),
    pad,
    titleH,
    left,
    top,
    cellW,
    cellH: cell,
    rows: rowText,
    cols: colText,
    fullRows: rows,
    fullCols: cols,
    cells,
    matrix: m,
  };
}

/** A standalone SVG document of the heatmap: cells, numbers, labels, title. */
export function toSVG(matrix, options = {}) {
  const L = heatmapLayout(matrix, options);
  const out = [];
  if (L.title) {
    // A transpose sign is a raised T (lib/text.js transposeParts); the text after it comes down again.
    let raised = false;
    const title = transposeParts(L.title)
      .map((p) => {
        const text = p.sup
          ? '<tspan dy="-5" font-size="9">T</tspan>'
          : `<tspan${raised ? ' dy="5"' : ''}>${escapeXml(p.text)}</tspan>`;
        raised = p.sup;
        return text;
      })
      .join('');
    out.push(`<text x="${L.pad}" y="${L.pad + 14}" font-size="13" font-weight="600" fill="#111">${title}</text>`);
  }
  L.cols.forEach((label, c) => {
    out.push(
      `<text x="${L.left + (c + 0.5) * L.cellW}" y="${L.top - 6}" text-anchor="middle" fill="#111" class="col-label"><title>${escapeXml(L.fullCols[c])}</title>${escapeXml(label)}</text>`,
    );
  });
  L.rows.forEach((label, r) => {
    out.push(
      `<text x="${L.left - 8}" y="${L.top + (r + 0.5) * L.cellH + 4}" text-anchor="end" fill="#111" class="row-label"><title>${escapeXml(L.fullRows[r])}</title>${escapeXml(label)}</text>`,
    );
  });
  for (const cell of L.cells) {
    const fill = cell.fill || '#e6e6e6';
    out.push(
      `<g class="cell" data-row="${cell.r}" data-col="${cell.c}" data-value="${float32Text(cell.value)}">` +
        `<rect x="${cell.x}" y="${cell.y}" width="${cell.w}" height="${cell.h}" fill="${escapeXml(fill)}" stroke="#fff"/>` +
        `<text x="${cell.x + cell.w / 2}" y="${cell.y + cell.h / 2 + 4}" text-anchor="middle" fill="${cell.ink}">${escapeXml(cell.text)}</text></g>`,
    );
  }
  return svgDocument(L.width, L.height, out, { fontFamily: FONT_FAMILY, fontSize: 12 });
}

/** Paints the layout onto a 2D context at `scale` device px per CSS px. */
export function drawHeatmap(ctx, L, scale = 2) {
  ctx.save();
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, L.width, L.height);
  ctx.textBaseline = 'alphabetic';
  if (L.title) {
    ctx.fillStyle = '#111';
    ctx.textAlign = 'left';
    let x = L.pad;
    for (const p of transposeParts(L.title)) {
      ctx.font = p.sup ? TITLE_SUP_FONT : TITLE_FONT;
      ctx.fillText(p.text, x, L.pad + (p.sup ? 9 : 14));
      x += ctx.measureText(p.text).width;
    }
  }
  ctx.font = FONT;
  ctx.fillStyle = '#111';
  ctx.textAlign = 'center';
  L.cols.forEach((label, c) => ctx.fillText(label, L.left + (c + 0.5) * L.cellW, L.top - 6));
  ctx.textAlign = 'right';
  L.rows.forEach((label, r) => ctx.fillText(label, L.left - 8, L.top + (r + 0.5) * L.cellH + 4));
  ctx.textAlign = 'center';
  for (const cell of L.cells) {
    ctx.fillStyle = cell.fill || '#e6e6e6';
    ctx.fillRect(cell.x, cell.y, cell.w, cell.h);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 1;
    ctx.strokeRect(cell.x + 0.5, cell.y + 0.5, cell.w - 1, cell.h - 1);
    ctx.fillStyle = cell.ink;
    ctx.fillText(cell.text, cell.x + cell.w / 2, cell.y + cell.h / 2 + 4);
  }
  ctx.restore();
}

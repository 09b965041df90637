// Attention as lines (the picture BertViz's head view made familiar): the tokens in two columns,
// queries on the left and keys on the right, and from each query a line to each key whose width
// and opacity are its weight — one colour per head. One layout, two painters (an SVG document and
// a canvas 2D context) for the exports; ui/attention-lines.js draws the live view from the same
// layout. Pure.
import { clip, escapeXml } from './text.js';
import { headColor } from './palette.js';

// The exports' ink: the light theme's text colour (lib/palette.js says why a line without a
// head's colour is ink).
const INK = '#1b1d21';
/** The colour of a line of `head` in layout L: its head's, or ink where the heads have none. */
export const lineColor = (L, head, theme = 'light') => (L.colors === 'heads' ? headColor(head, theme) : INK);
import { float32Text } from './format.js';
import { csvField } from './matrix-formats.js';
import { svgDocument } from './svg-markup.js';

export const MAX_STROKE = 8; // px: the width of a line of weight 1

/**
 * @param {{tokens: string[], weights: number[][][], heads?: number[], masked?: (h, i, j) => boolean,
 *          rowHeight?: number, charWidth?: number, gap?: number, title?: string,
 *          colors?: 'heads'|'ink'}} options
 *   charWidth: the width of a label character in px (labels get the room their longest needs).
 *   weights (H, T, T): row i of head h holds where query i looks. heads: which heads to draw
 *   (default all). masked pairs (e.g. the causal mask's future) get no line at all. colors:
 *   'heads' for the toy example's heads (each its colour), 'ink' (the default) for a picture of
 *   another model's head, whose number means nothing on this page's palette.
 * @returns {{width, height, title, colors, rows: {token, y}[], leftX, rightX, lines: {head, i, j,
 *   weight, x1, y1, x2, y2, strokeWidth, opacity}[]}}  coordinates in CSS px.
 */
export function linesLayout({
  tokens,
  weights,
  heads,
  masked = () => false,
  rowHeight = 28,
  charWidth = 7.5,
  gap = 150,
  title = '',
  colors = 'ink',
}) {
  const T = tokens.length;
  const shown = heads ?? weights.map((_, h) => h);
  const label = Math.min(20 * charWidth, Math.max(40, Math.max(...tokens.map((t) => [...t].length)) * charWidth + 12));
  const top = title ? 30 : 8;
  const leftX = label; // lines start at the right edge of the query labels
  const rightX = label + gap; // and end at the left edge of the key labels
  const rows = tokens.map((token, i) => ({ token, y: top + (i + 0.5) * rowHeight }));
  const lines = [];
  for (const h of shown) {
    for (let i = 0; i < T; i++) {
      for (let j = 0; j < T; j++) {
        if (masked(h, i, j)) continue;
        const weight = weights[h][i][j];
        lines.push({
          head: h,
          i,
          j,
          weight,
          x1: leftX,
          y1: rows[i].y,
          x2: rightX,
          y2: rows[j].y,
          strokeWidth: weight * MAX_STROKE,
          opacity: weight,
        });
      }
    }
  }
  return { width: rightX + label, height: top + T * rowHeight + 8, title, colors, rows, leftX, rightX, lines, label };
}

const clipLabel = (s) => clip(s, 17);

/** A standalone SVG document of the layout (white background, light-theme head colours). */
export function toLinesSVG(L) {
  return svgDocument(L.width, L.height, linesSVGBody(L));
}

/** The layout's title, lines and labels as SVG elements (no <svg> around them). */
function linesSVGBody(L) {
  const out = [];
  if (L.title) out.push(`<text x="8" y="20" font-weight="600" fill="#111">${escapeXml(L.title)}</text>`);
  for (const line of L.lines) {
    out.push(
      `<line class="attn-line" data-head="${line.head}" data-i="${line.i}" data-j="${line.j}" data-weight="${float32Text(line.weight)}" ` +
        `x1="${line.x1}" y1="${line.y1}" x2="${line.x2}" y2="${line.y2}" stroke="${lineColor(L, line.head)}" ` +
        `stroke-width="${line.strokeWidth}" stroke-opacity="${line.opacity}" stroke-linecap="round"/>`,
    );
  }
  for (const r of L.rows) {
    out.push(
      `<text x="${L.leftX - 6}" y="${r.y + 4}" text-anchor="end" fill="#111">${escapeXml(clipLabel(r.token))}</text>`,
    );
    out.push(`<text x="${L.rightX + 6}" y="${r.y + 4}" fill="#111">${escapeXml(clipLabel(r.token))}</text>`);
  }
  return out;
}

/** Paints the layout onto a 2D context at `scale` device px per CSS px. */
export function drawLines(ctx, L, scale = 2) {
  ctx.save();
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, L.width, L.height);
  ctx.font = '600 13px system-ui, sans-serif';
  ctx.fillStyle = '#111';
  if (L.title) ctx.fillText(L.title, 8, 20);
  ctx.lineCap = 'round';
  for (const line of L.lines) {
    if (line.strokeWidth <= 0) continue;
    ctx.globalAlpha = line.opacity;
    ctx.strokeStyle = lineColor(L, line.head);
    ctx.lineWidth = line.strokeWidth;
    ctx.beginPath();
    ctx.moveTo(line.x1, line.y1);
    ctx.lineTo(line.x2, line.y2);
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  ctx.font = '13px system-ui, sans-serif';
  for (const r of L.rows) {
    ctx.textAlign = 'right';
    ctx.fillText(clipLabel(r.token), L.leftX - 6, r.y + 4);
    ctx.textAlign = 'left';
    ctx.fillText(clipLabel(r.token), L.rightX + 6, r.y + 4);
  }
  ctx.restore();
}

/** The weights drawn, as CSV rows "head,query,key,weight" (travels inside the PNG). */
export function linesCSV(L) {
  const rows = ['head,query,key,weight'];
  for (const line of L.lines) {
    rows.push(
      [line.head, csvField(L.rows[line.i].token), csvField(L.rows[line.j].token), float32Text(line.weight)].join(','),
    );
  }
  return rows.join('\r\n') + '\r\n';
}

// --- the model view as one picture: every layer × head, small --------------------------------

/**
 * A grid of line layouts, one per layer (rows) × head (columns), each captioned, in one picture.
 * @param {{tokens: string[], attention: number[][][][], masked?: (h, i, j) => boolean, title?: string}} options
 *   attention (layers, H, T, T): attention[l][h][i] is where query i of head h in layer l looks.
 * @returns {{width, height, title, cells: {layer, head, x, y, L}[]}}  L: linesLayout of the cell.
 */
export function gridLayout({ tokens, attention, masked = () => false, title = '' }) {
  const pad = 12;
  const top = title ? 32 : pad;
  const cells = [];
  let width = 0,
    height = top;
  attention.forEach((heads, layer) => {
    let x = pad,
      rowHeight = 0;
    heads.forEach((_, head) => {
      const L = linesLayout({
        tokens,
        weights: heads,
        heads: [head],
        masked,
        rowHeight: 18,
        charWidth: 6.5,
        gap: 80,
        title: `layer ${layer + 1} · head ${head + 1}`,
      });
      cells.push({ layer, head, x, y: height, L });
      x += L.width + pad;
      rowHeight = Math.max(rowHeight, L.height);
    });
    width = Math.max(width, x);
    height += rowHeight + pad;
  });
  // Room for the title too (13 px semibold: about 7.5 px a character).
  width = Math.max(width, title ? [...title].length * 7.5 + 24 : 0);
  return { width, height, title, cells };
}

/** A standalone SVG document of the grid: one <g> per cell, its lines as in toLinesSVG. */
export function toGridSVG(G) {
  const body = [];
  if (G.title) body.push(`<text x="12" y="22" font-weight="600" fill="#111">${escapeXml(G.title)}</text>`);
  for (const c of G.cells) {
    body.push(
      `<g class="attn-cell" data-layer="${c.layer}" data-head="${c.head}" transform="translate(${c.x} ${c.y})">`,
    );
    body.push(...linesSVGBody(c.L), '</g>');
  }
  return svgDocument(G.width, G.height, body);
}

/** Paints the grid onto a 2D context at `scale` device px per CSS px. */
export function drawGrid(ctx, G, scale = 2) {
  ctx.save();
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, G.width * scale, G.height * scale);
  if (G.title) {
    ctx.scale(scale, scale);
    ctx.font = '600 13px system-ui, sans-serif';
    ctx.fillStyle = '#111';
    ctx.fillText(G.title, 12, 22);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }
  for (const c of G.cells) {
    ctx.save();
    ctx.translate(c.x * scale, c.y * scale);
    drawLines(ctx, c.L, scale);
    ctx.restore();
  }
  ctx.restore();
}

/** The weights drawn, as CSV rows "layer,head,query,key,weight" (travels inside the PNG). */
export function gridCSV(G) {
  const rows = ['layer,head,query,key,weight'];
  for (const c of G.cells) {
    for (const line of c.L.lines) {
      rows.push(
        [
          c.layer,
          line.head,
          csvField(c.L.rows[line.i].token),
          csvField(c.L.rows[line.j].token),
          float32Text(line.weight),
        ].join(','),
      );
    }
  }
  return rows.join('\r\n') + '\r\n';
}

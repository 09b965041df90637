// Exports of a live SVG picture (the plane, the Learn section's lines): a standalone SVG file with
// the page's computed colours written into it, and a PNG painted on a canvas element by element.
// The PNG never loads the SVG as an image, so it works under a strict CSP (no data: or blob:
// images). Handles what the views draw: line, circle, rect, path, polygon, polyline and text,
// with their transforms (getCTM). Browser only.
import { pngWithText } from '../lib/png.js';
import { csvField } from '../lib/matrix-formats.js';
import { SVG_NS } from '../lib/svg-markup.js';
import { download, canvasPNG } from './download.js';

const PAINTED = 'line, circle, rect, path, polygon, polyline, text';
const STYLE_PROPS = [
  'fill',
  'stroke',
  'stroke-width',
  'opacity',
  'fill-opacity',
  'stroke-opacity',
  'font-size',
  'font-family',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'stroke-dasharray',
  'paint-order',
  'stroke-linejoin',
];

/** The box the picture occupies, from its viewBox or its rendered size. */
function box(svg) {
  const vb = svg.viewBox?.baseVal;
  if (vb && vb.width > 0 && vb.height > 0) return { x: vb.x, y: vb.y, width: vb.width, height: vb.height };
  const r = svg.getBoundingClientRect();
  return { x: 0, y: 0, width: r.width || 300, height: r.height || 150 };
}

/** A standalone SVG file of `svg` as drawn now, with `background` behind it. */
export function svgSnapshot(svg, { background = null, title = '' } = {}) {
  const win = svg.ownerDocument.defaultView;
  const clone = svg.cloneNode(true);
  const live = [svg, ...svg.querySelectorAll('*')];
  const copies = [clone, ...clone.querySelectorAll('*')];
  live.forEach((el, n) => {
    const copy = copies[n];
    copy.removeAttribute('class');
    if (!(el instanceof win.SVGElement) || el === svg) return;
    const cs = win.getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') {
      copy.setAttribute('display', 'none');
      return;
    }
    const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';');
    copy.setAttribute('style', style);
    if (cs.transform && cs.transform !== 'none' && !el.hasAttribute('transform'))
      copy.setAttribute('transform', cs.transform.replace(/px/g, ''));
  });
  const b = box(svg);
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('viewBox', `${b.x} ${b.y} ${b.width} ${b.height}`);
  clone.setAttribute('width', String(b.width));
  clone.setAttribute('height', String(b.height));
  clone.removeAttribute('tabindex');
  if (background) {
    const bg = svg.ownerDocument.createElementNS(SVG_NS, 'rect');
    for (const [k, v] of Object.entries({ x: b.x, y: b.y, width: b.width, height: b.height, fill: background }))
      bg.setAttribute(k, String(v));
    clone.insertBefore(bg, clone.firstChild);
  }
  if (title) {
    const t = svg.ownerDocument.createElementNS(SVG_NS, 'title');
    t.textContent = title;
    clone.insertBefore(t, clone.firstChild);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new win.XMLSerializer().serializeToString(clone)}\n`;
}

const number = (v, fallback = 0) => {
  const n = parseFloat(v);
  return Number.isFinite(n) ? n : fallback;
};

/** Paints `svg` as drawn now onto a 2D context at `scale`× (the picture's own units → pixels). */
export function paintSVG(ctx, svg, scale = 2, background = null) {
  const win = svg.ownerDocument.defaultView;
  const b = box(svg);
  const rect = svg.getBoundingClientRect();
  // getCTM maps an element's units to the SVG viewport's CSS pixels; undo that to picture units.
  const toUnits = rect.width > 0 ? b.width / rect.width : 1;
  if (background) {
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, b.width * scale, b.height * scale);
  }
  for (const el of svg.querySelectorAll(PAINTED)) {
    const cs = win.getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.closest('[display="none"]')) continue;
    const m = el.getCTM();
    if (!m) continue;
    const k = scale * toUnits;
    ctx.setTransform(k * m.a, k * m.b, k * m.c, k * m.d, k * m.e - scale * b.x, k * m.f - scale * b.y);
    ctx.globalAlpha = number(cs.opacity, 1);
    const fill = cs.fill && cs.fill !== 'none' ? cs.fill : null;
    const stroke = cs.stroke && cs.stroke !== 'none' ? cs.stroke : null;
    ctx.lineWidth = number(cs.strokeWidth, 1);
    ctx.lineCap = cs.strokeLinecap || 'butt';
    const dash =
      cs.strokeDasharray && cs.strokeDasharray !== 'none'
        ? cs.strokeDasharray.split(/[ ,]+/).map((d) => number(d))
        : [];
    ctx.setLineDash(dash);
    const a = (name) => number(el.getAttribute(name));
    const tag = el.tagName.toLowerCase();
    if (tag === 'text') {
      ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      ctx.textAlign = { middle: 'center', end: 'right' }[cs.textAnchor] || 'left';
      ctx.textBaseline =
        cs.dominantBaseline === 'middle' || cs.dominantBaseline === 'central' ? 'middle' : 'alphabetic';
      ctx.fillStyle = fill || '#000';
      ctx.fillText(el.textContent, a('x'), a('y'));
      continue;
    }
    let path;
    if (tag === 'line') {
      path = new Path2D();
      path.moveTo(a('x1'), a('y1'));
      path.lineTo(a('x2'), a('y2'));
    } else if (tag === 'circle') {
      path = new Path2D();
      path.arc(a('cx'), a('cy'), a('r'), 0, 2 * Math.PI);
    } else if (tag === 'rect') {
      path = new Path2D();
      path.rect(a('x'), a('y'), a('width'), a('height'));
    } else if (tag === 'path') {
      path = new Path2D(el.getAttribute('d') || '');
    } else {
      const pts = (el.getAttribute('points') || '')
        .trim()
        .split(/[\s,]+/)
        .map(Number);
      path = new Path2D();
      for (let i = 0; i + 1 < pts.length; i += 2) (i ? path.lineTo : path.moveTo).call(path, pts[i], pts[i + 1]);
      if (tag === 'polygon') path.closePath();
    }
    if (fill && tag !== 'line') {
      ctx.fillStyle = fill;
      ctx.globalAlpha = number(cs.opacity, 1) * number(cs.fillOpacity, 1);
      ctx.fill(path);
    }
    if (stroke) {
      ctx.strokeStyle = stroke;
      ctx.globalAlpha = number(cs.opacity, 1) * number(cs.strokeOpacity, 1);
      ctx.stroke(path);
    }
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalAlpha = 1;
}

/** PNG bytes of `svg` at `scale`× with `text` (e.g. the numbers as CSV) in a tEXt chunk. */
export async function svgToPNG(svg, { scale = 2, background = null, key = 'attention-explorer:csv', text = '' } = {}) {
  const doc = svg.ownerDocument;
  const b = box(svg);
  const canvas = doc.createElement('canvas');
  canvas.width = Math.ceil(b.width * scale);
  canvas.height = Math.ceil(b.height * scale);
  paintSVG(canvas.getContext('2d'), svg, scale, background);
  const bytes = await canvasPNG(canvas);
  return text ? pngWithText(bytes, key, text) : bytes;
}

/** A table element's cells as CSV (header rows included), for the PNG's numbers. */
export function tableCSV(table) {
  return (
    [...table.rows].map((row) => [...row.cells].map((c) => csvField(c.textContent.trim())).join(',')).join('\n') + '\n'
  );
}

/**
 * Downloads a live picture as drawn now: `${stem}.svg`, or `${stem}.png` at 2× with `table`'s
 * numbers as CSV inside; `background` behind it (the page's, so dark pictures stay readable).
 */
export async function savePicture(doc, kind, svg, { stem, title, background, table }) {
  if (kind === 'svg') download(doc, `${stem}.svg`, svgSnapshot(svg, { background, title }), 'image/svg+xml');
  else download(doc, `${stem}.png`, await svgToPNG(svg, { background, text: tableCSV(table) }), 'image/png');
}

// The lines picture, live: an SVG drawn from lib/lines-image.js's layout, updated in place (each
// line keeps its element, so CSS transitions move widths and opacities smoothly from one state to
// the next; prefers-reduced-motion makes that instant). Hovering, focusing or clicking a token
// isolates its lines — a query's outgoing lines, or a key's incoming ones — and writes their
// weights beside the tokens at the other end. Keyboard: one tab stop; ↑/↓ move between tokens,
// ←/→ between the query and key columns, Enter or Space keeps a token isolated, Escape clears it.
// Under the picture, its legend: what a line's width says, and which colour is which head (the
// toy example's heads have colours, lib/palette.js; another model's lines are ink).
import { linesLayout, lineColor, MAX_STROKE } from '../lib/lines-image.js';
import { headColor } from '../lib/palette.js';
import { fmt } from '../lib/format.js';
import { activeIn } from './dom.js';
import { followPointer, pointerMoved } from './pointer.js';
import { svgEl } from './svg.js';

const TEXT = {
  width: 'width and darkness: the weight, 0 to 1',
  heads: 'colour:',
};

/**
 * @param {Document} doc
 * @param {{caption?: string, compact?: boolean, label?: string, colors?: 'heads'|'ink', gap?: number}} options
 *   compact: smaller rows and gap, for small multiples (the model view) and the bank section;
 *   colors: 'heads' gives each head of the toy example its colour; 'ink' (another model's head);
 *   gap: the room for the lines between the two columns of words, in px.
 * @returns {{el: HTMLElement, svg: SVGSVGElement, update(view), isolated(): null|{side, index}}}
 *   view: {tokens, weights (H, T, T), heads?: number[], masked?: (h, i, j) => boolean,
 *          theme?: 'light'|'dark', caption?: string, focus?: {side, index}}
 *   focus: the token isolated while the reader isolates none (its weights written out).
 */
export function createAttentionLines(
  doc,
  { caption = '', compact = false, label = 'attention lines', colors = 'ink', gap } = {},
) {
  const figure = doc.createElement('figure');
  figure.className = `ae-lines${compact ? ' ae-lines-compact' : ''}`;
  const figcaption = doc.createElement('figcaption');
  figcaption.textContent = caption;
  const svg = svgEl(doc, 'svg', { role: 'group', 'aria-label': label, tabindex: 0 });
  const linesGroup = svgEl(doc, 'g', { class: 'ae-lines-paths', 'aria-hidden': 'true' });
  const labelsGroup = svgEl(doc, 'g', { class: 'ae-lines-labels' });
  svg.append(linesGroup, labelsGroup);
  const status = doc.createElement('p');
  status.className = 'ae-help ae-lines-status';
  status.setAttribute('aria-live', 'polite');
  const legend = doc.createElement('p');
  legend.className = 'ae-lines-legend';
  figure.append(figcaption, svg, legend, status);
  // The picture's state, shared by the functions below: the view drawn and its layout, each line's
  // and label's element, the token hovered, the one pinned (clicked, Enter) and the keyboard's.
  const s = {
    doc,
    compact,
    colors,
    gap,
    legend,
    legendKey: '',
    svg,
    linesGroup,
    labelsGroup,
    status,
    view: null,
    layout: null,
    lineEls: new Map(), // "h:i:j" → <line>
    labelEls: { left: [], right: [], leftWeight: [], rightWeight: [] },
    shapeKey: '',
    hover: null, // {side: 'query'|'key', index}
    pinned: null,
    cursor: { side: 'query', index: 0 },
  };
  listen(s);
  return {
    el: figure,
    svg,
    update(next) {
      s.view = { ...s.view, ...next };
      if (next.caption !== undefined) figcaption.textContent = next.caption;
      if (s.cursor.index >= s.view.tokens.length) s.cursor = { side: s.cursor.side, index: 0 };
      if (s.pinned && s.pinned.index >= s.view.tokens.length) s.pinned = null;
      draw(s);
    },
    /** The isolated token ({side: 'query'|'key', index}) or null. */
    isolated: () => s.pinned ?? s.hover ?? s.view?.focus ?? null,
    /** The layout last drawn (for the exports). */
    layout: () => s.layout,
    maxStroke: MAX_STROKE,
  };
}

function buildLabels(s) {
  const { doc, layout } = s;
  s.labelsGroup.replaceChildren();
  s.labelEls = { left: [], right: [], leftWeight: [], rightWeight: [] };
  layout.rows.forEach((r, i) => {
    for (const side of ['query', 'key']) {
      const left = side === 'query';
      const text = svgEl(doc, 'text', {
        x: left ? layout.leftX - 6 : layout.rightX + 6,
        y: r.y + 4,
        'text-anchor': left ? 'end' : 'start',
        class: 'ae-lines-token',
        'data-side': side,
        'data-index': i,
      });
      const weight = svgEl(doc, 'text', {
        x: left ? layout.leftX + 4 : layout.rightX - 4,
        y: r.y - 5,
        'text-anchor': left ? 'start' : 'end',
        class: 'ae-lines-weight',
      });
      s.labelsGroup.append(text, weight);
      (left ? s.labelEls.left : s.labelEls.right).push(text);
      (left ? s.labelEls.leftWeight : s.labelEls.rightWeight).push(weight);
    }
  });
}

function draw(s) {
  const { view, svg } = s;
  const theme = view.theme === 'dark' ? 'dark' : 'light';
  const scale = s.compact ? { rowHeight: 24, gap: 130, charWidth: 8.2 } : { rowHeight: 34, gap: 230, charWidth: 9.4 };
  const layout = (s.layout = linesLayout({
    tokens: view.tokens,
    weights: view.weights,
    heads: view.heads,
    masked: view.masked,
    colors: s.colors,
    ...scale,
    ...(s.gap ? { gap: s.gap } : {}),
  }));
  svg.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  svg.setAttribute('width', layout.width);
  svg.setAttribute('height', layout.height);
  const key = `${view.tokens.length}|${layout.width}|${(view.heads ?? []).join(',')}`;
  if (key !== s.shapeKey) {
    s.shapeKey = key;
    buildLabels(s);
  }
  drawLines(s, theme);
  layout.rows.forEach((r, i) => {
    s.labelEls.left[i].textContent = r.token;
    s.labelEls.right[i].textContent = r.token;
  });
  drawLegend(s, theme);
  isolate(s);
}

// The legend: a line's width, and each head drawn in its colour.
function drawLegend(s, theme) {
  const heads = s.colors === 'heads' ? (s.view.heads ?? s.view.weights.map((_, h) => h)) : [];
  const key = `${theme}|${heads.join(',')}`;
  if (key === s.legendKey) return;
  s.legendKey = key;
  const { doc } = s;
  const width = doc.createElement('span');
  width.className = 'ae-lines-legend-width';
  width.textContent = TEXT.width;
  const parts = [width];
  if (heads.length) {
    const colours = doc.createElement('span');
    colours.append(TEXT.heads);
    for (const h of heads) {
      const item = doc.createElement('span');
      item.className = 'ae-lines-legend-head';
      item.dataset.head = String(h);
      const swatch = doc.createElement('span');
      swatch.className = 'ae-swatch';
      swatch.style.background = headColor(h, theme);
      item.append(swatch, `head ${h}`);
      colours.append(' ', item);
    }
    parts.push(colours);
  }
  s.legend.replaceChildren(...parts);
}

// Reuses each line's element so its width and opacity transition to the new values.
function drawLines(s, theme) {
  const seen = new Set();
  for (const line of s.layout.lines) {
    const id = `${line.head}:${line.i}:${line.j}`;
    seen.add(id);
    let el = s.lineEls.get(id);
    if (!el) {
      el = svgEl(s.doc, 'line', {
        class: 'ae-line',
        'data-head': line.head,
        'data-i': line.i,
        'data-j': line.j,
        'stroke-linecap': 'round',
      });
      s.lineEls.set(id, el);
      s.linesGroup.append(el);
    }
    // Only what changed is written: an unchanged line costs no style or layout work.
    const key = `${line.x1},${line.y1},${line.x2},${line.y2},${line.weight},${theme}`;
    if (el._aeKey === key) continue;
    el._aeKey = key;
    el.setAttribute('x1', line.x1);
    el.setAttribute('y1', line.y1);
    el.setAttribute('x2', line.x2);
    el.setAttribute('y2', line.y2);
    el.setAttribute('data-weight', String(line.weight));
    el.style.stroke = lineColor(s.layout, line.head, theme);
    el.style.strokeWidth = String(line.strokeWidth);
    el.style.strokeOpacity = String(line.opacity);
  }
  for (const [id, el] of s.lineEls) {
    if (!seen.has(id)) {
      el.remove();
      s.lineEls.delete(id);
    }
  }
}

// Shows only the isolated token's lines and writes their weights at the other end.
function isolate(s) {
  const { view, layout, cursor, labelEls } = s;
  const focus = view.focus && view.focus.index < view.tokens.length ? view.focus : null;
  const on = s.pinned ?? s.hover ?? focus;
  for (const el of s.lineEls.values()) {
    const i = Number(el.dataset.i),
      j = Number(el.dataset.j);
    el.classList.toggle('ae-line-hidden', Boolean(on) && (on.side === 'query' ? i !== on.index : j !== on.index));
  }
  for (const side of ['left', 'right']) {
    labelEls[side].forEach((t, n) => {
      const mine = on && (side === 'left') === (on.side === 'query') && on.index === n;
      t.classList.toggle('ae-lines-on', Boolean(mine));
      t.classList.toggle(
        'ae-lines-cursor',
        cursor.side === (side === 'left' ? 'query' : 'key') && cursor.index === n && activeIn(s.svg) === s.svg,
      );
    });
  }
  const weightText = (other) => {
    if (!on || !layout) return '';
    const ws = layout.lines.filter((l) =>
      on.side === 'query' ? l.i === on.index && l.j === other : l.j === on.index && l.i === other,
    );
    return ws.map((l) => fmt(l.weight, 2)).join(' / ');
  };
  labelEls.rightWeight.forEach((t, n) => (t.textContent = on?.side === 'query' ? weightText(n) : ''));
  labelEls.leftWeight.forEach((t, n) => (t.textContent = on?.side === 'key' ? weightText(n) : ''));
  const all = () => view.tokens.map((t, n) => `${t} ${weightText(n) || '—'}`).join(', ');
  s.status.textContent = on
    ? on.side === 'query'
      ? `“${view.tokens[on.index]}” attends to: ${all()}`
      : `attending to “${view.tokens[on.index]}”: ${all()}`
    : '';
}

// Hovering, clicking (pins) or the keyboard (↑/↓ tokens, ←/→ sides, Enter or Space pins, Escape clears).
const KEY_MOVES = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: ['query', 0], ArrowRight: ['key', 0] };
function listen(s) {
  const { svg } = s;
  const tokenAt = (target) => {
    const t = target.closest?.('.ae-lines-token');
    return t ? { side: t.dataset.side, index: Number(t.dataset.index) } : null;
  };
  followPointer(s.doc.defaultView);
  svg.addEventListener('pointerover', (e) => {
    if (!pointerMoved(e)) return;
    const t = tokenAt(e.target);
    if (t) {
      s.hover = t;
      isolate(s);
    }
  });
  svg.addEventListener('pointerleave', () => {
    s.hover = null;
    isolate(s);
  });
  svg.addEventListener('click', (e) => {
    const t = tokenAt(e.target);
    if (!t) return;
    s.pinned = s.pinned && s.pinned.side === t.side && s.pinned.index === t.index ? null : t;
    s.cursor = t;
    isolate(s);
  });
  svg.addEventListener('focus', () => {
    if (!s.pinned) s.hover = { ...s.cursor };
    isolate(s);
  });
  svg.addEventListener('blur', () => {
    s.hover = null;
    isolate(s);
  });
  svg.addEventListener('keydown', (e) => {
    if (!s.view) return;
    const T = s.view.tokens.length;
    if (e.key in KEY_MOVES) {
      e.preventDefault();
      const [side, step] = KEY_MOVES[e.key];
      s.cursor =
        typeof side === 'string'
          ? { ...s.cursor, side }
          : { ...s.cursor, index: Math.max(0, Math.min(T - 1, s.cursor.index + step)) };
      s.hover = { ...s.cursor };
      if (s.pinned) s.pinned = { ...s.cursor };
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      s.pinned = s.pinned ? null : { ...s.cursor };
    } else if (e.key === 'Escape') {
      s.pinned = null;
      s.hover = null;
    } else return;
    isolate(s);
  });
}

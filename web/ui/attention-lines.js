// The lines picture, live: an SVG drawn from lib/lines-image.js's layout, updated in place (each
// line keeps its element, so CSS transitions move widths and opacities smoothly from one state to
// the next; prefers-reduced-motion makes that instant). Hovering, focusing or clicking a token
// isolates its lines — a query's outgoing lines, or a key's incoming ones — and writes their
// weights beside the tokens at the other end. Keyboard: one tab stop; ↑/↓ move between tokens,
// ←/→ between the query and key columns, Enter or Space keeps a token isolated, Escape clears it.
import { linesLayout, MAX_STROKE } from '../lib/lines-image.js';
import { headColor } from '../lib/colormaps.js';
import { fmt } from '../lib/format.js';
import { activeIn } from './dom.js';
import { followPointer, pointerMoved } from './pointer.js';
import { svgEl } from './svg.js';

/**
 * @param {Document} doc
 * @param {{caption?: string, compact?: boolean, label?: string}} options
 *   compact: smaller rows and gap, for small multiples (the model view) and the bank section.
 * @returns {{el: HTMLElement, svg: SVGSVGElement, update(view), isolated(): null|{side, index}}}
 *   view: {tokens, weights (H, T, T), heads?: number[], masked?: (h, i, j) => boolean,
 *          theme?: 'light'|'dark', caption?: string}
 */
export function createAttentionLines(doc, { caption = '', compact = false, label = 'attention lines' } = {}) {
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
  figure.append(figcaption, svg, status);

  let view = null;
  let layout = null;
  let lineEls = new Map(); // "h:i:j" → <line>
  let labelEls = { left: [], right: [], leftWeight: [], rightWeight: [] };
  let shapeKey = '';
  let hover = null; // {side: 'query'|'key', index}
  let pinned = null;
  let cursor = { side: 'query', index: 0 };

  const current = () => pinned ?? hover;

  function buildLabels() {
    labelsGroup.replaceChildren();
    labelEls = { left: [], right: [], leftWeight: [], rightWeight: [] };
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
        labelsGroup.append(text, weight);
        (left ? labelEls.left : labelEls.right).push(text);
        (left ? labelEls.leftWeight : labelEls.rightWeight).push(weight);
      }
    });
  }

  function draw() {
    const theme = view.theme === 'dark' ? 'dark' : 'light';
    const scale = compact ? { rowHeight: 24, gap: 130, charWidth: 8.2 } : { rowHeight: 34, gap: 230, charWidth: 9.4 };
    layout = linesLayout({
      tokens: view.tokens,
      weights: view.weights,
      heads: view.heads,
      masked: view.masked,
      ...scale,
    });
    svg.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
    svg.setAttribute('width', layout.width);
    svg.setAttribute('height', layout.height);
    const key = `${view.tokens.length}|${layout.width}|${(view.heads ?? []).join(',')}`;
    if (key !== shapeKey) {
      shapeKey = key;
      buildLabels();
    }
    // Lines: reuse each line's element so its width and opacity transition to the new values.
    const seen = new Set();
    for (const line of layout.lines) {
      const id = `${line.head}:${line.i}:${line.j}`;
      seen.add(id);
      let el = lineEls.get(id);
      if (!el) {
        el = svgEl(doc, 'line', {
          class: 'ae-line',
          'data-head': line.head,
          'data-i': line.i,
          'data-j': line.j,
          'stroke-linecap': 'round',
        });
        lineEls.set(id, el);
        linesGroup.append(el);
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
      el.style.stroke = headColor(line.head, theme);
      el.style.strokeWidth = String(line.strokeWidth);
      el.style.strokeOpacity = String(line.opacity);
    }
    for (const [id, el] of lineEls) {
      if (!seen.has(id)) {
        el.remove();
        lineEls.delete(id);
      }
    }
    layout.rows.forEach((r, i) => {
      labelEls.left[i].textContent = r.token;
      labelEls.right[i].textContent = r.token;
    });
    isolate();
  }

  // Shows only the isolated token's lines and writes their weights at the other end.
  function isolate() {
    const on = current();
    for (const el of lineEls.values()) {
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
          cursor.side === (side === 'left' ? 'query' : 'key') && cursor.index === n && activeIn(svg) === svg,
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
    status.textContent = on
      ? on.side === 'query'
        ? `“${view.tokens[on.index]}” attends to: ${view.tokens.map((t, n) => `${t} ${weightText(n) || '—'}`).join(', ')}`
        : `attending to “${view.tokens[on.index]}”: ${view.tokens.map((t, n) => `${t} ${weightText(n) || '—'}`).join(', ')}`
      : '';
  }

  const tokenAt = (target) => {
    const t = target.closest?.('.ae-lines-token');
    return t ? { side: t.dataset.side, index: Number(t.dataset.index) } : null;
  };
  followPointer(doc.defaultView);
  svg.addEventListener('pointerover', (e) => {
    if (!pointerMoved(e)) return;
    const t = tokenAt(e.target);
    if (t) {
      hover = t;
      isolate();
    }
  });
  svg.addEventListener('pointerleave', () => {
    hover = null;
    isolate();
  });
  svg.addEventListener('click', (e) => {
    const t = tokenAt(e.target);
    if (!t) return;
    pinned = pinned && pinned.side === t.side && pinned.index === t.index ? null : t;
    cursor = t;
    isolate();
  });
  svg.addEventListener('focus', () => {
    if (!pinned) hover = { ...cursor };
    isolate();
  });
  svg.addEventListener('blur', () => {
    hover = null;
    isolate();
  });
  svg.addEventListener('keydown', (e) => {
    if (!view) return;
    const T = view.tokens.length;
    const moves = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: ['query', 0], ArrowRight: ['key', 0] };
    if (e.key in moves) {
      e.preventDefault();
      const [side, step] = moves[e.key];
      cursor =
        typeof side === 'string'
          ? { ...cursor, side }
          : { ...cursor, index: Math.max(0, Math.min(T - 1, cursor.index + step)) };
      hover = { ...cursor };
      if (pinned) pinned = { ...cursor };
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      pinned = pinned ? null : { ...cursor };
    } else if (e.key === 'Escape') {
      pinned = null;
      hover = null;
    } else return;
    isolate();
  });

  return {
    el: figure,
    svg,
    update(next) {
      view = { ...view, ...next };
      if (next.caption !== undefined) figcaption.textContent = next.caption;
      if (cursor.index >= view.tokens.length) cursor = { side: cursor.side, index: 0 };
      if (pinned && pinned.index >= view.tokens.length) pinned = null;
      draw();
    },
    /** The isolated token ({side: 'query'|'key', index}) or null. */
    isolated: current,
    /** The layout last drawn (for the exports). */
    layout: () => layout,
    maxStroke: MAX_STROKE,
  };
}

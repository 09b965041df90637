// The heatmap primitive: a labelled matrix drawn as an HTML <table> whose cells carry their
// number and a colour. Being a real table (caption, row and column headers) it is also the
// data-table alternative screen readers read. Masked (−∞) cells are hatched, not coloured.
// Keyboard: one tab stop per table; arrow keys move between cells; focusing or hovering a
// cell asks for its explanation. Editable tables: Enter (or typing a number) edits a cell,
// PageUp/PageDown nudge it by ±0.1, dragging horizontally scrubs it.
import { fmt, parseNumber, roundTo } from '../lib/format.js';
import { colorScale, legendFor, textColorFor } from '../lib/colormaps.js';
import { h, textNodes } from './dom.js';
import { followPointer, pointerMoved } from './pointer.js';
import { announceWhenScrolling } from './scroll-region.js';

const DRAG_THRESHOLD_PX = 4;

// Writes only what differs: an unchanged label, number or colour costs no style or layout work
// (while a value is dragged, most of a matrix's text stays the same from frame to frame).
function setText(node, text) {
  const t = String(text ?? '');
  if (node.textContent !== t) node.textContent = t;
}
function setColors(td, background, color) {
  if (td._aeBg !== background) {
    td._aeBg = background;
    td.style.background = background;
  }
  if (td._aeInk !== color) {
    td._aeInk = color;
    td.style.color = color;
  }
}

/**
 * @param {Document} doc  the document that owns the root (works inside a shadow root)
 * @param {object} opts   see update(); besides the drawing options (values, labels, kind …):
 *   id: the figure's name in the DOM (table[data-matrix]); context: the sentence it shows
 *   (data-context); shows: what its cells are, for whoever explains them (the explorer's
 *   tooltip, row picking) — {matrix, head?, columnsPerHead?, tokenRows?}:
 *     matrix: a name lib/explain.js knows ('q', 'weights', 'out' …); without `shows`, the id
 *     head: the head whose numbers it draws (unset: the page's chosen head)
 *     columnsPerHead: n when every head's columns are drawn side by side (column j is column
 *       j mod n of head ⌊j / n⌋)
 *     tokenRows: its rows are the sentence's tokens, so picking a cell picks that token's row
 */
export function createHeatmap(doc, opts) {
  const caption = h(doc, 'caption');
  const thead = h(doc, 'thead');
  const tbody = h(doc, 'tbody');
  const table = h(doc, 'table', { class: 'ae-hm-table' }, caption, thead, tbody);
  const legend = createLegend(doc);
  const scroll = h(doc, 'div', { class: 'ae-hm-scroll' }, table);
  const figure = h(doc, 'figure', { class: 'ae-hm', part: 'heatmap' }, scroll, legend.el);
  // Wider than the screen (many tokens on a phone): an announced region the keyboard can scroll.
  announceWhenScrolling(scroll, () => caption.textContent);
  // The heatmap's state, shared by the functions below: its options (o), its cells[i][j] = td,
  // the roving tab stop, the cell being typed into and the cell being scrubbed.
  const s = {
    doc,
    table,
    thead,
    tbody,
    legend,
    o: {},
    cells: [],
    shapeKey: '',
    active: [0, 0],
    editing: null,
    drag: null,
  };

  function update(next) {
    const o = (s.o = { ...s.o, ...next });
    caption.replaceChildren(...textNodes(doc, o.caption || ''));
    if (o.editable) caption.append(h(doc, 'span', { class: 'ae-hint' }, ' · editable'));
    table.dataset.matrix = o.id;
    if (o.context) table.dataset.context = o.context;
    table.classList.toggle('ae-editable', Boolean(o.editable));
    const key = `${o.values.length}x${o.values[0]?.length ?? 0}`;
    if (key !== s.shapeKey) {
      s.shapeKey = key;
      build(s);
    }
    paint(s);
  }

  listenForExplanations(s);
  listenForKeys(s);
  listenForScrubbing(s);
  update(opts);
  return {
    el: figure,
    table,
    update,
    cell: (i, j) => s.cells[i]?.[j] ?? null,
    /** What cell (i, j) shows: {matrix, context, head, row, col, tokenRows} in its matrix's own terms. */
    locate(i, j) {
      const shows = s.o.shows ?? { matrix: s.o.id };
      const n = shows.columnsPerHead;
      return {
        matrix: shows.matrix,
        context: s.o.context,
        head: n ? Math.floor(j / n) : shows.head,
        row: i,
        col: n ? j % n : j,
        tokenRows: Boolean(shows.tokenRows),
      };
    },
  };
}

// The legend: the colour bar with its two ends, what the colour means and whose scale it is; a
// hatched swatch when some cells are masked. aria-hidden: the table itself holds the numbers.
function createLegend(doc) {
  const min = h(doc, 'span', { class: 'ae-legend-end' });
  const bar = h(doc, 'span', { class: 'ae-legend-bar' });
  const max = h(doc, 'span', { class: 'ae-legend-end' });
  const text = h(doc, 'span', { class: 'ae-legend-text' });
  const masked = h(
    doc,
    'span',
    { class: 'ae-legend-masked', hidden: true },
    h(doc, 'span', { class: 'ae-legend-swatch ae-masked' }),
    'masked',
  );
  const el = h(
    doc,
    'div',
    { class: 'ae-legend', part: 'legend', 'aria-hidden': 'true' },
    h(doc, 'span', { class: 'ae-legend-scale' }, min, bar, max),
    text,
    masked,
  );
  let drawn = '';
  return {
    el,
    paint(o, flat, theme, scaleKey) {
      const anyMasked = o.values.some((row, i) =>
        row.some((v, j) => !o.pending?.(i, j) && (v === -Infinity || Boolean(o.masked?.(i, j)))),
      );
      const key = `${scaleKey}|${anyMasked}`;
      if (key === drawn) return;
      drawn = key;
      const l = o.kind === 'none' ? null : legendFor(o.kind || 'signed', flat, theme);
      el.hidden = !l;
      if (!l) return;
      const digits = Number.isInteger(l.min) && Number.isInteger(l.max) ? 0 : l.max >= 100 ? 0 : 2;
      setText(min, fmt(l.min, digits));
      setText(max, fmt(l.max, digits));
      bar.style.background = `linear-gradient(to right, ${l.stops.join(', ')})`;
      setText(text, `${l.meaning} · ${l.scale}`);
      masked.hidden = !anyMasked;
    },
  };
}

function build(s) {
  const { doc, o } = s;
  const corner = h(
    doc,
    'th',
    { scope: 'col', class: 'ae-corner' },
    h(doc, 'span', { class: 'ae-sr' }, o.cornerLabel || 'row'),
  );
  s.thead.replaceChildren(
    h(
      doc,
      'tr',
      {},
      corner,
      o.colLabels.map((label) => h(doc, 'th', { scope: 'col' }, label)),
    ),
  );
  s.tbody.replaceChildren();
  s.cells = o.values.map((row, i) => {
    const tds = row.map((_, j) => h(doc, 'td', { class: 'ae-cell', tabindex: -1, dataset: { row: i, col: j } }));
    s.tbody.append(h(doc, 'tr', {}, h(doc, 'th', { scope: 'row' }, o.rowLabels[i]), tds));
    return tds;
  });
  if (s.active[0] >= s.cells.length || s.active[1] >= (s.cells[0]?.length ?? 0)) s.active = [0, 0];
  if (s.cells[0]?.[0]) s.cells[s.active[0]][s.active[1]].tabIndex = 0;
}

function paint(s) {
  const { o, cells } = s;
  const flat = o.values.flat();
  const theme = s.table.closest('.ae-root')?.dataset.theme === 'dark' ? 'dark' : 'light';
  const color = o.kind === 'none' ? () => null : colorScale(o.kind || 'signed', flat, theme);
  // The colour of a value depends on the matrix's range (signed, sequential maps) and the digits.
  const finite = flat.filter(Number.isFinite);
  const scaleKey = `${theme}|${o.kind}|${o.digits}|${Math.max(0, ...finite.map(Math.abs))}|${Math.min(0, ...finite)}`;
  s.legend.paint(o, flat, theme, scaleKey);
  o.values.forEach((row, i) => {
    const tr = cells[i][0]?.parentElement;
    if (tr) {
      tr.classList.toggle('ae-hl', Boolean(o.highlightRows?.includes(i)));
      setText(tr.firstChild, o.rowLabels[i]);
    }
    row.forEach((v, j) => {
      const td = cells[i][j];
      if (td === s.editing?.td) return;
      // Skip cells whose drawing would not change (keeps style work small while dragging).
      const now = Boolean(o.current?.(i, j));
      const mark = Boolean(o.mark?.(i, j));
      const key = `${v}|${o.pending?.(i, j) ? 1 : 0}|${o.masked?.(i, j) ? 1 : 0}|${now ? 1 : 0}|${mark ? 1 : 0}|${scaleKey}`;
      if (td._aeKey === key) return;
      td._aeKey = key;
      td.classList.toggle('ae-now', now);
      td.classList.toggle('ae-mark', mark);
      td.dataset.value = String(v);
      // −∞ scores, and the weights the mask forced to 0 (opts.masked), are drawn as masked.
      const pending = Boolean(o.pending?.(i, j));
      const masked = !pending && (v === -Infinity || Boolean(o.masked?.(i, j)));
      td.classList.toggle('ae-masked', masked);
      td.classList.toggle('ae-pending', pending);
      if (masked) {
        setText(td, v === -Infinity ? '\u2212\u221e' : fmt(v, o.digits ?? 3));
        td.setAttribute('aria-label', `${td.textContent}, masked`);
        setColors(td, '', '');
      } else if (pending) {
        setText(td, '·');
        td.setAttribute('aria-label', 'not computed yet');
        setColors(td, '', '');
      } else {
        setText(td, fmt(v, o.digits ?? 3));
        td.removeAttribute('aria-label');
        const bg = color(v);
        setColors(td, bg || '', bg ? textColorFor(bg) : '');
      }
    });
  });
  const headRow = s.thead.firstChild;
  if (headRow) {
    o.colLabels.forEach((label, j) => {
      const th = headRow.children[j + 1];
      setText(th, label);
      const cls = o.colClass?.(j) || '';
      if (th.className !== cls) th.className = cls;
    });
  }
}

// --- focus, hover, explanation ---------------------------------------------------------------
const cellOf = (s, target) => {
  const td = target.closest?.('td.ae-cell');
  return td && s.table.contains(td) ? [Number(td.dataset.row), Number(td.dataset.col), td] : null;
};

function moveTo(s, i, j) {
  const row = s.cells[i];
  if (!row || !row[j]) return;
  const current = s.cells[s.active[0]]?.[s.active[1]];
  if (current) current.tabIndex = -1;
  s.active = [i, j];
  row[j].tabIndex = 0;
  row[j].focus();
}

function listenForExplanations(s) {
  const { table } = s;
  table.addEventListener('focusin', (e) => {
    const c = cellOf(s, e.target);
    if (!c) return;
    const current = s.cells[s.active[0]]?.[s.active[1]];
    if (current) current.tabIndex = -1;
    s.active = [c[0], c[1]];
    c[2].tabIndex = 0;
    s.o.onExplain?.(c[0], c[1], c[2]);
  });
  table.addEventListener('focusout', (e) => {
    if (!table.contains(e.relatedTarget)) s.o.onExplain?.(null);
  });
  followPointer(s.doc.defaultView);
  table.addEventListener('pointerover', (e) => {
    if (e.pointerType === 'touch' || !pointerMoved(e)) return;
    const c = cellOf(s, e.target);
    if (c && !s.drag) s.o.onExplain?.(c[0], c[1], c[2]);
  });
  table.addEventListener('pointerleave', (e) => {
    if (e.pointerType !== 'touch' && !s.drag && !table.contains(table.getRootNode().activeElement))
      s.o.onExplain?.(null);
  });
}

// Keyboard: arrows, Home and End move; on an editable table Enter (or F2, or typing a number)
// edits a cell and PageUp/PageDown nudge it by ±0.1 (±0.01 with Shift).
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
function listenForKeys(s) {
  s.table.addEventListener('keydown', (e) => {
    if (s.editing) return;
    const c = cellOf(s, e.target);
    if (!c) return;
    const [i, j, td] = c;
    const { editable } = s.o;
    if (MOVES[e.key]) {
      e.preventDefault();
      moveTo(s, i + MOVES[e.key][0], j + MOVES[e.key][1]);
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      moveTo(s, i, e.key === 'Home' ? 0 : s.cells[i].length - 1);
    } else if (editable && (e.key === 'Enter' || e.key === 'F2')) {
      e.preventDefault();
      startEdit(s, td, null);
    } else if (editable && /^[-0-9.\u2212]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      startEdit(s, td, e.key);
    } else if (editable && (e.key === 'PageUp' || e.key === 'PageDown')) {
      e.preventDefault();
      const step = e.shiftKey ? 0.01 : 0.1;
      editable.commit(i, j, clampValue(roundTo(s.o.values[i][j] + (e.key === 'PageUp' ? step : -step), 4)));
    }
  });
}

// --- typing a value ------------------------------------------------------------------------
function startEdit(s, td, initial) {
  const { doc, o } = s;
  const i = Number(td.dataset.row),
    j = Number(td.dataset.col);
  const input = h(doc, 'input', {
    type: 'text',
    inputmode: 'decimal',
    class: 'ae-cell-input',
    value: initial ?? String(roundTo(o.values[i][j], 4)),
    'aria-label': `${o.caption}: row ${o.rowLabels[i]}, column ${o.colLabels[j]}`,
  });
  s.editing = { td, i, j };
  td.replaceChildren(input);
  input.focus();
  if (initial == null) input.select();
  let done = false;
  const finish = (commit) => {
    if (done) return;
    done = true;
    s.editing = null;
    td._aeKey = null; // its content is the input now: redraw it
    if (commit) {
      const parsed = parseNumber(input.value, { min: -1000, max: 1000 });
      const { editable, caption, rowLabels, colLabels } = s.o;
      if (parsed.error) editable.error?.(`${caption} [${rowLabels[i]}, ${colLabels[j]}]: ${parsed.error}`);
      else editable.commit(i, j, parsed.value);
    }
    paint(s);
    td.focus();
  };
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      finish(true);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      finish(false);
    }
    e.stopPropagation();
  });
  input.addEventListener('blur', () => finish(true));
}

// --- drag to scrub: 0.01 per pixel (0.001 with Shift); a click without a drag types instead ---
function listenForScrubbing(s) {
  const { table } = s;
  table.addEventListener('pointerdown', (e) => {
    if (!s.o.editable || s.editing || e.button !== 0) return;
    const c = cellOf(s, e.target);
    if (!c) return;
    s.drag = { i: c[0], j: c[1], td: c[2], x0: e.clientX, v0: s.o.values[c[0]][c[1]], moved: false, id: e.pointerId };
  });
  table.addEventListener('pointermove', (e) => {
    const drag = s.drag;
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x0;
    if (!drag.moved && Math.abs(dx) < DRAG_THRESHOLD_PX) return;
    if (!drag.moved) {
      drag.moved = true;
      drag.td.setPointerCapture?.(e.pointerId);
      drag.td.classList.add('ae-scrubbing');
    }
    e.preventDefault();
    const v = clampValue(roundTo(drag.v0 + dx * (e.shiftKey ? 0.001 : 0.01), 3));
    drag.last = v;
    const { editable } = s.o;
    if (editable.scrub) editable.scrub(drag.i, drag.j, v);
    else editable.commit(drag.i, drag.j, v);
  });
  const endDrag = (e) => {
    const d = s.drag;
    if (!d || e.pointerId !== d.id) return;
    s.drag = null;
    d.td.classList.remove('ae-scrubbing');
    if (d.moved) s.o.editable.commit(d.i, d.j, d.last ?? d.v0);
    else if (e.type === 'pointerup') startEdit(s, d.td, null);
  };
  table.addEventListener('pointerup', endDrag);
  table.addEventListener('pointercancel', endDrag);
}

function clampValue(v) {
  return Math.max(-1000, Math.min(1000, v));
}

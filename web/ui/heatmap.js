// The heatmap primitive: a labelled matrix drawn as an HTML <table> whose cells carry their
// number and a colour. Being a real table (caption, row and column headers) it is also the
// data-table alternative screen readers read. Masked (−∞) cells are hatched, not coloured.
// Keyboard: one tab stop per table; arrow keys move between cells; focusing or hovering a
// cell asks for its explanation. Editable tables: Enter (or typing a number) edits a cell,
// PageUp/PageDown nudge it by ±0.1, dragging horizontally scrubs it.
import { fmt, parseNumber, roundTo } from '../lib/format.js';
import { colorScale, legendFor, textColorFor } from '../lib/colormaps.js';
import { h } from './dom.js';
import { followPointer, pointerMoved } from './pointer.js';

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
  // The legend: the colour bar with its two ends, what the colour means and whose scale it is;
  // a hatched swatch when some cells are masked. aria-hidden: the table itself holds the numbers.
  const legendMin = h(doc, 'span', { class: 'ae-legend-end' });
  const legendBar = h(doc, 'span', { class: 'ae-legend-bar' });
  const legendMax = h(doc, 'span', { class: 'ae-legend-end' });
  const legendText = h(doc, 'span', { class: 'ae-legend-text' });
  const legendMasked = h(
    doc,
    'span',
    { class: 'ae-legend-masked', hidden: true },
    h(doc, 'span', { class: 'ae-legend-swatch ae-masked' }),
    'masked',
  );
  const legend = h(
    doc,
    'div',
    { class: 'ae-legend', part: 'legend', 'aria-hidden': 'true' },
    h(doc, 'span', { class: 'ae-legend-scale' }, legendMin, legendBar, legendMax),
    legendText,
    legendMasked,
  );
  const figure = h(
    doc,
    'figure',
    { class: 'ae-hm', part: 'heatmap' },
    h(doc, 'div', { class: 'ae-hm-scroll' }, table),
    legend,
  );

  let o = {};
  let cells = []; // cells[i][j] = td
  let shapeKey = '';
  let active = [0, 0]; // roving tab stop
  let editing = null;

  function build() {
    const corner = h(
      doc,
      'th',
      { scope: 'col', class: 'ae-corner' },
      h(doc, 'span', { class: 'ae-sr' }, o.cornerLabel || 'row'),
    );
    thead.replaceChildren(
      h(
        doc,
        'tr',
        {},
        corner,
        o.colLabels.map((label) => h(doc, 'th', { scope: 'col' }, label)),
      ),
    );
    tbody.replaceChildren();
    cells = o.values.map((row, i) => {
      const tds = row.map((_, j) => h(doc, 'td', { class: 'ae-cell', tabindex: -1, dataset: { row: i, col: j } }));
      tbody.append(h(doc, 'tr', {}, h(doc, 'th', { scope: 'row' }, o.rowLabels[i]), tds));
      return tds;
    });
    if (active[0] >= cells.length || active[1] >= (cells[0]?.length ?? 0)) active = [0, 0];
    if (cells[0]?.[0]) cells[active[0]][active[1]].tabIndex = 0;
  }

  function paint() {
    const flat = o.values.flat();
    const theme = table.closest('.ae-root')?.dataset.theme === 'dark' ? 'dark' : 'light';
    const color = o.kind === 'none' ? () => null : colorScale(o.kind || 'signed', flat, theme);
    // The colour of a value depends on the matrix's range (signed, sequential maps) and the digits.
    const finite = flat.filter(Number.isFinite);
    const scaleKey = `${theme}|${o.kind}|${o.digits}|${Math.max(0, ...finite.map(Math.abs))}|${Math.min(0, ...finite)}`;
    paintLegend(scaleKey, flat, theme);
    o.values.forEach((row, i) => {
      const tr = cells[i][0]?.parentElement;
      if (tr) {
        tr.classList.toggle('ae-hl', Boolean(o.highlightRows?.includes(i)));
        setText(tr.firstChild, o.rowLabels[i]);
      }
      row.forEach((v, j) => {
        const td = cells[i][j];
        if (td === editing?.td) return;
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
    const headRow = thead.firstChild;
    if (headRow) {
      o.colLabels.forEach((label, j) => {
        const th = headRow.children[j + 1];
        setText(th, label);
        const cls = o.colClass?.(j) || '';
        if (th.className !== cls) th.className = cls;
      });
    }
  }

  let legendKey = '';
  function paintLegend(scaleKey, flat, theme) {
    const anyMasked = o.values.some((row, i) =>
      row.some((v, j) => !o.pending?.(i, j) && (v === -Infinity || Boolean(o.masked?.(i, j)))),
    );
    const key = `${scaleKey}|${anyMasked}`;
    if (key === legendKey) return;
    legendKey = key;
    const l = o.kind === 'none' ? null : legendFor(o.kind || 'signed', flat, theme);
    legend.hidden = !l;
    if (!l) return;
    const digits = Number.isInteger(l.min) && Number.isInteger(l.max) ? 0 : l.max >= 100 ? 0 : 2;
    setText(legendMin, fmt(l.min, digits));
    setText(legendMax, fmt(l.max, digits));
    legendBar.style.background = `linear-gradient(to right, ${l.stops.join(', ')})`;
    setText(legendText, `${l.meaning} · ${l.scale}`);
    legendMasked.hidden = !anyMasked;
  }

  function update(next) {
    o = { ...o, ...next };
    caption.textContent = o.caption || '';
    if (o.editable) caption.append(h(doc, 'span', { class: 'ae-hint' }, ' · editable'));
    table.dataset.matrix = o.id;
    if (o.context) table.dataset.context = o.context;
    table.classList.toggle('ae-editable', Boolean(o.editable));
    const key = `${o.values.length}x${o.values[0]?.length ?? 0}`;
    if (key !== shapeKey) {
      shapeKey = key;
      build();
    }
    paint();
  }

  // --- focus, hover, explanation -------------------------------------------------------
  const cellOf = (target) => {
    const td = target.closest?.('td.ae-cell');
    return td && table.contains(td) ? [Number(td.dataset.row), Number(td.dataset.col), td] : null;
  };
  function moveTo(i, j) {
    const row = cells[i];
    if (!row || !row[j]) return;
    cells[active[0]]?.[active[1]] && (cells[active[0]][active[1]].tabIndex = -1);
    active = [i, j];
    row[j].tabIndex = 0;
    row[j].focus();
  }
  table.addEventListener('focusin', (e) => {
    const c = cellOf(e.target);
    if (!c) return;
    if (cells[active[0]]?.[active[1]]) cells[active[0]][active[1]].tabIndex = -1;
    active = [c[0], c[1]];
    c[2].tabIndex = 0;
    o.onExplain?.(c[0], c[1], c[2]);
  });
  table.addEventListener('focusout', (e) => {
    if (!table.contains(e.relatedTarget)) o.onExplain?.(null);
  });
  followPointer(doc.defaultView);
  table.addEventListener('pointerover', (e) => {
    if (e.pointerType === 'touch' || !pointerMoved(e)) return;
    const c = cellOf(e.target);
    if (c && !drag) o.onExplain?.(c[0], c[1], c[2]);
  });
  table.addEventListener('pointerleave', (e) => {
    if (e.pointerType !== 'touch' && !drag && !table.contains(table.getRootNode().activeElement)) o.onExplain?.(null);
  });
  table.addEventListener('keydown', (e) => {
    if (editing) return;
    const c = cellOf(e.target);
    if (!c) return;
    const [i, j] = c;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      moveTo(i + moves[e.key][0], j + moves[e.key][1]);
    } else if (e.key === 'Home') {
      e.preventDefault();
      moveTo(i, 0);
    } else if (e.key === 'End') {
      e.preventDefault();
      moveTo(i, cells[i].length - 1);
    } else if (o.editable && (e.key === 'Enter' || e.key === 'F2')) {
      e.preventDefault();
      startEdit(c[2], null);
    } else if (o.editable && /^[-0-9.\u2212]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      startEdit(c[2], e.key);
    } else if (o.editable && (e.key === 'PageUp' || e.key === 'PageDown')) {
      e.preventDefault();
      const step = e.shiftKey ? 0.01 : 0.1;
      o.editable.commit(i, j, clampValue(roundTo(o.values[i][j] + (e.key === 'PageUp' ? step : -step), 4)));
    }
  });

  // --- typing a value --------------------------------------------------------------------
  function startEdit(td, initial) {
    const i = Number(td.dataset.row),
      j = Number(td.dataset.col);
    const input = h(doc, 'input', {
      type: 'text',
      inputmode: 'decimal',
      class: 'ae-cell-input',
      value: initial ?? String(roundTo(o.values[i][j], 4)),
      'aria-label': `${o.caption}: row ${o.rowLabels[i]}, column ${o.colLabels[j]}`,
    });
    editing = { td, i, j };
    td.replaceChildren(input);
    input.focus();
    if (initial == null) input.select();
    let done = false;
    const finish = (commit) => {
      if (done) return;
      done = true;
      editing = null;
      td._aeKey = null; // its content is the input now: redraw it
      if (commit) {
        const parsed = parseNumber(input.value, { min: -1000, max: 1000 });
        if (parsed.error) o.editable.error?.(`${o.caption} [${o.rowLabels[i]}, ${o.colLabels[j]}]: ${parsed.error}`);
        else o.editable.commit(i, j, parsed.value);
      }
      paint();
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

  // --- drag to scrub -----------------------------------------------------------------------
  let drag = null;
  table.addEventListener('pointerdown', (e) => {
    if (!o.editable || editing || e.button !== 0) return;
    const c = cellOf(e.target);
    if (!c) return;
    drag = { i: c[0], j: c[1], td: c[2], x0: e.clientX, v0: o.values[c[0]][c[1]], moved: false, id: e.pointerId };
  });
  table.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x0;
    if (!drag.moved && Math.abs(dx) < DRAG_THRESHOLD_PX) return;
    if (!drag.moved) {
      drag.moved = true;
      drag.td.setPointerCapture?.(e.pointerId);
      drag.td.classList.add('ae-scrubbing');
    }
    e.preventDefault();
    // 0.01 per pixel; Shift for fine steps.
    const v = clampValue(roundTo(drag.v0 + dx * (e.shiftKey ? 0.001 : 0.01), 3));
    drag.last = v;
    o.editable.scrub ? o.editable.scrub(drag.i, drag.j, v) : o.editable.commit(drag.i, drag.j, v);
  });
  const endDrag = (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    d.td.classList.remove('ae-scrubbing');
    if (d.moved) o.editable.commit(d.i, d.j, d.last ?? d.v0);
    else if (e.type === 'pointerup') startEdit(d.td, null);
  };
  table.addEventListener('pointerup', endDrag);
  table.addEventListener('pointercancel', endDrag);

  update(opts);
  return {
    el: figure,
    table,
    update,
    cell: (i, j) => cells[i]?.[j] ?? null,
    /** What cell (i, j) shows: {matrix, context, head, row, col, tokenRows} in its matrix's own terms. */
    locate(i, j) {
      const s = o.shows ?? { matrix: o.id };
      const n = s.columnsPerHead;
      return {
        matrix: s.matrix,
        context: o.context,
        head: n ? Math.floor(j / n) : s.head,
        row: i,
        col: n ? j % n : j,
        tokenRows: Boolean(s.tokenRows),
      };
    },
  };
}

function clampValue(v) {
  return Math.max(-1000, Math.min(1000, v));
}

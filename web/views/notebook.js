// From the notebooks: pick a seed notebook and walk its cells in order — the PyTorch each cell
// runs, the tensors it makes (computed live by the engine, PyTorch's random numbers included), the
// numbers the notebook printed beside ours with whether they agree, and each erratum explained.
// The whole notebook downloads as a PyTorch script that prints the same numbers.
import { h, uid } from '../ui/dom.js';
import { NOTEBOOKS, runNotebook, notebookScript } from '../lib/notebooks.js';
import { download } from '../tools/download.js';
import { shapeText } from '../lib/format.js';
import { exportStatus } from '../tools/export-buttons.js';

const TEXT = {
  title: 'From the notebooks',
  intro:
    'Each notebook, cell by cell: its PyTorch (our rewording, runnable top to bottom), the tensors it makes — computed here by the engine, with PyTorch’s own random numbers — and, where the notebook printed numbers, those numbers beside ours.',
  pick: 'Notebook',
  script: 'Download as a PyTorch script',
  printed: 'the notebook printed',
  agrees: 'matches the printed numbers',
  differs: 'differs from the printed numbers',
  walk: 'Walk a notebook cell by cell',
  more: (n) => `All ${n + 1} tensors of this cell`,
  checking: 'Checking the numbers the notebooks printed…',
  summary: (ok, total) =>
    ok === total
      ? `✓ All ${total} tensors the notebooks printed are reproduced here, to the digits they printed (where a notebook printed a mistake, its cell says so).`
      : `${ok} of the ${total} tensors the notebooks printed are reproduced here; the cells say which differ.`,
  big: (shape) => `shape ${shapeText(shape)}; the first rows and columns are shown`,
};
const MAX_SIDE = 8; // larger matrices are shown by their top-left corner

// A tensor as the 2-D slices a heatmap can draw: [{title, rows}].
function slices(value, name) {
  const { shape, data } = value;
  const dims = shape.filter((d, i) => d !== 1 || i >= shape.length - 2);
  const nested = (offset, R, C) =>
    Array.from({ length: R }, (_, r) => Array.from(data.subarray(offset + r * C, offset + r * C + C)));
  if (dims.length <= 1) return [{ title: name, rows: [Array.from(data)] }];
  const [R, C] = dims.slice(-2);
  const count = data.length / (R * C);
  const lead = dims.slice(0, -2);
  return Array.from({ length: Math.min(count, 4) }, (_, n) => {
    const index = lead.map((d, i) => Math.floor(n / lead.slice(i + 1).reduce((a, b) => a * b, 1)) % d);
    return { title: lead.length ? `${name}[${index.join(', ')}]` : name, rows: nested(n * R * C, R, C) };
  });
}

// Printed numbers as PyTorch would show them (one row per line).
function printedText(values, decimals = 4) {
  const one = (v) => (v === -Infinity ? '-inf' : typeof decimals === 'number' ? v.toFixed(decimals) : String(v));
  const rows = (x) => (Array.isArray(x[0]) ? x.map(rows).join('\n') : `[${x.map(one).join(', ')}]`);
  return Array.isArray(values[0]) ? rows(values) : `[${values.map(one).join(', ')}]`;
}

export function render(section, app) {
  const { doc, store } = app;
  const pickId = uid('nb');
  const picker = h(
    doc,
    'select',
    { id: pickId, onchange: (e) => store.set({ notebook: e.target.value }) },
    NOTEBOOKS.map((nb) => h(doc, 'option', { value: nb.id }, `${nb.source}: ${nb.title}`)),
  );
  const intro = h(doc, 'p', {});
  const status = exportStatus(doc);
  const scriptButton = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', 'data-export': 'notebook-script' },
    TEXT.script,
  );
  const cellsBox = h(doc, 'ol', { class: 'ae-nb-cells' });
  const summary = h(doc, 'p', { class: 'ae-nb-summary' });
  // The walk is a companion, collapsed on the page; a figure of the notebook alone opens it.
  const walk = h(
    doc,
    'details',
    { class: 'ae-details ae-nb-walk', ontoggle: () => walk.open && app.win.requestAnimationFrame?.(() => draw()) },
    h(doc, 'summary', {}, TEXT.walk),
    h(
      doc,
      'div',
      { class: 'ae-ctl' },
      h(doc, 'label', { for: pickId }, `${TEXT.pick} `),
      picker,
      ' ',
      scriptButton,
      status,
    ),
    intro,
    cellsBox,
  );
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    summary,
    walk,
  );
  let shown = null;
  const current = () => NOTEBOOKS.find((nb) => nb.id === app.state.notebook) ?? NOTEBOOKS[1];
  scriptButton.addEventListener('click', () => {
    const nb = current();
    download(doc, `notebook-${nb.id}.py`, notebookScript(nb, app.engine.examples()), 'text/x-python');
    status.textContent = `notebook-${nb.id}.py saved`;
  });

  function draw() {
    const nb = current();
    picker.value = nb.id;
    if (!walk.open || shown === nb.id) return;
    shown = nb.id;
    intro.textContent = nb.intro;
    let results;
    try {
      results = runNotebook(app.engine, nb);
    } catch (error) {
      cellsBox.replaceChildren(
        h(doc, 'li', { class: 'ae-notice' }, `This notebook could not be run: ${error.message}`),
      );
      return;
    }
    cellsBox.replaceChildren(...results.map((r, n) => drawCell(app, r, n)));
    const checks = results.flatMap((r) => r.checks);
    const ok = checks.filter((c) => c.ok).length;
    if (checks.length)
      intro.append(
        ` ${ok} of ${checks.length} printed ${checks.length === 1 ? 'tensor agrees' : 'tensors agree'} with the page’s to the digits printed.`,
      );
  }

  let opened = false;
  let counted = false;
  return {
    update() {
      const view = app.state.view;
      // A figure of the notebooks alone opens the walk; on the whole page it starts collapsed.
      if (!opened) {
        opened = true;
        walk.open = view.includes('notebook') && !view.includes('all');
      }
      if (!counted) {
        counted = true;
        countPrinted(app, summary);
      }
      draw();
    },
  };
}

// One cell: its words, its code, its key figure (the tensor it printed, else its last), the rest
// of its tensors one click deeper, and a badge per printed tensor whose numbers open on demand.
function drawCell(app, { cell, outputs, checks }, n) {
  const { doc } = app;
  const li = h(doc, 'li', { class: 'ae-nb-cell', dataset: { cell: cell.label } });
  li.append(h(doc, 'p', { class: 'ae-nb-label' }, `${cell.label}`));
  if (cell.text) li.append(h(doc, 'p', {}, cell.text));
  li.append(h(doc, 'pre', { class: 'ae-nb-code', tabindex: 0 }, h(doc, 'code', {}, cell.code)));
  const withValue = outputs.filter((o) => o.value);
  const key = withValue.find((o) => checks.some((c) => c.name === o.name)) ?? withValue[withValue.length - 1] ?? null;
  const row = h(doc, 'div', { class: 'ae-row' });
  const more = h(doc, 'div', { class: 'ae-row' });
  for (const o of outputs) {
    const target = o === key || !o.value ? row : more;
    if (o.value) target.append(...tensorFigures(app, o, n));
    else target.append(h(doc, 'p', { class: 'ae-help ae-nb-note' }, o.note));
  }
  li.append(row);
  for (const c of checks) {
    const p = cell.printed.find((x) => x.name === c.name);
    li.append(
      h(
        doc,
        'details',
        {
          class: `ae-nb-printed ${c.ok ? 'ae-nb-ok' : 'ae-nb-differs'}`,
          dataset: { printed: c.name, ok: String(c.ok) },
        },
        h(doc, 'summary', {}, c.ok ? `✓ ${c.name} ${TEXT.agrees}` : `✗ ${c.name} ${TEXT.differs}`),
        h(doc, 'p', { class: 'ae-help' }, `${TEXT.printed}:`),
        h(
          doc,
          'pre',
          { class: 'ae-nb-code', tabindex: 0 },
          printedText(p.values, p.significant ? undefined : p.decimals),
        ),
      ),
    );
  }
  if (more.childElementCount)
    li.append(
      h(
        doc,
        'details',
        { class: 'ae-details ae-nb-more' },
        h(doc, 'summary', {}, TEXT.more(withValue.length - 1)),
        more,
      ),
    );
  if (cell.erratum) li.append(h(doc, 'p', { class: 'ae-nb-erratum' }, h(doc, 'strong', {}, 'Erratum: '), cell.erratum));
  return li;
}

// A tensor's heatmaps (its 2-D slices, their top-left corner when large) and a note of its shape.
function tensorFigures(app, o, n) {
  const { doc } = app;
  const out = [];
  for (const [k, s] of slices(o.value, o.name).entries()) {
    const rows = s.rows.slice(0, MAX_SIDE).map((r) => r.slice(0, MAX_SIDE));
    const hm = app.heatmap({
      id: `nb-${n}-${o.name}-${k}`,
      caption: `${s.title}${o.note ? ` — ${o.note}` : ''}`,
      values: rows,
      rowLabels: rows.map((_, i) => String(i)),
      colLabels: rows[0].map((_, j) => String(j)),
      kind: o.kind ?? 'signed',
      digits: 4,
    });
    hm.table.dataset.output = o.name;
    out.push(hm.el);
  }
  if (o.value.shape.slice(-2).some((d) => d > MAX_SIDE))
    out.push(h(doc, 'p', { class: 'ae-help' }, `${o.name}: ${TEXT.big(o.value.shape)}`));
  return out;
}

// The summary line: every notebook's printed tensors checked once, one notebook per task (all
// five take ~250 ms), after the section is first drawn.
function countPrinted(app, summary) {
  let ok = 0,
    total = 0;
  const next = (n) => {
    if (n === NOTEBOOKS.length) {
      summary.textContent = TEXT.summary(ok, total);
      return;
    }
    try {
      for (const r of runNotebook(app.engine, NOTEBOOKS[n]))
        for (const c of r.checks) {
          total += 1;
          ok += c.ok ? 1 : 0;
        }
    } catch {
      // a notebook that cannot run says so when it is opened
    }
    app.win.setTimeout(() => next(n + 1), 0);
  };
  summary.textContent = TEXT.checking;
  app.win.setTimeout(() => next(0), 0);
}

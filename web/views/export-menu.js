// Export buttons for one matrix view, and a "PyTorch script" button for the whole state.
//
//   attachExportMenu(figure, { name: 'weights (river)', kind: 'weights',
//                              get: () => ({ matrix, rowLabels, colLabels }) });
//   attachScriptExport(container, { getState: () => store.get(), getResults: () => results });
//
// `get` is called at click time, so the export is always what is on screen. The heatmap colours
// come from the same colour scale as the page's heatmap (colormaps.colorScale).
import {
  toCSV, toJSON, toTorchLiteral, toSVG, toPNG, toPyTorchScript, download, fileStem,
} from '../lib/export.js';
import { colorScale } from '../lib/colormaps.js';

function el(doc, tag, attrs = {}, text = '') {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/** Copies text to the clipboard; falls back to a selected textarea + execCommand. */
export async function copyText(doc, text) {
  const nav = doc.defaultView?.navigator;
  try {
    if (nav?.clipboard?.writeText) { await nav.clipboard.writeText(text); return true; }
  } catch { /* permission denied or insecure context: fall back */ }
  const area = el(doc, 'textarea', { readonly: '', 'aria-hidden': 'true' });
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  doc.body.append(area);
  area.select();
  let ok = false;
  try { ok = doc.execCommand('copy'); } catch { ok = false; }
  area.remove();
  return ok;
}

/** What each export writes, given the matrix at click time. Exposed for tests. */
export function exportsFor({ name, kind = 'signed', matrix, rowLabels, colLabels, cellColors, digits = 3 }) {
  const values = matrix.flat();
  const color = colorScale(kind, values);
  const opts = { rowLabels, colLabels, title: name, digits, color: (v) => color(v), cellColors };
  return {
    csv: () => toCSV(matrix, opts),
    json: () => toJSON(matrix, { name, rowLabels, colLabels }),
    torch: () => toTorchLiteral(matrix),
    svg: () => toSVG(matrix, opts),
    png: () => toPNG(matrix, { ...opts, scale: 2 }),
  };
}

/**
 * Adds a collapsed "Export" menu (PNG, SVG, CSV, JSON, copy as PyTorch) to `container`: a
 * <details> element, so the five buttons under every heatmap stay out of sight and out of the
 * tab order until the reader opens the one they want.
 * @returns {{element: HTMLElement, destroy(): void}}
 */
export function attachExportMenu(container, { name, kind = 'signed', get, digits = 3 }) {
  if (typeof get !== 'function') throw new TypeError('attachExportMenu: options.get must return {matrix, rowLabels, colLabels}');
  const doc = container.ownerDocument;
  const menu = el(doc, 'details', { class: 'ae-export' });
  menu.append(el(doc, 'summary', { class: 'ae-export-summary', 'aria-label': `Export ${name}` }, 'Export'));
  const bar = el(doc, 'div', { class: 'ae-export-actions', role: 'group', 'aria-label': `Export ${name}` });
  const status = el(doc, 'span', { class: 'ae-export-status', role: 'status', 'aria-live': 'polite' });
  const current = () => {
    const { matrix, rowLabels, colLabels, cellColors, name: liveName } = get();
    return exportsFor({ name: liveName || name, kind, matrix, rowLabels, colLabels, cellColors, digits });
  };
  const stem = () => fileStem(get().name || name);
  const say = (text) => { status.textContent = text; };
  const actions = [
    ['PNG', 'Download the heatmap as a PNG image (2× resolution)', async () => { download(`${stem()}.png`, await current().png(), 'image/png'); say('PNG saved'); }],
    ['SVG', 'Download the heatmap as an SVG image', () => { download(`${stem()}.svg`, current().svg(), 'image/svg+xml'); say('SVG saved'); }],
    ['CSV', 'Download the numbers as CSV', () => { download(`${stem()}.csv`, current().csv(), 'text/csv'); say('CSV saved'); }],
    ['JSON', 'Download the numbers as JSON', () => { download(`${stem()}.json`, current().json(), 'application/json'); say('JSON saved'); }],
    ['Copy as PyTorch', 'Copy a torch.tensor([...]) literal of this matrix', async () => {
      say((await copyText(doc, current().torch())) ? 'Copied torch.tensor literal' : 'Could not copy: the browser refused clipboard access');
    }],
  ];
  for (const [label, title, run] of actions) {
    const button = el(doc, 'button', { type: 'button', class: 'ae-btn ae-export-btn', title, 'data-export': label.split(' ')[0].toLowerCase() }, label);
    button.addEventListener('click', async () => {
      try { await run(); } catch (error) { say(`Export failed: ${error.message}`); }
    });
    bar.append(button);
  }
  bar.append(status);
  menu.append(bar);
  container.append(menu);
  return { element: menu, destroy: () => menu.remove() };
}

/** The (H, T, T) dropout keep masks of every context, from the traces (dropped ≠ 0 ⇔ kept). */
export function keepMasks(results) {
  const out = {};
  for (const [name, entry] of Object.entries(results?.contexts || {})) {
    const dropped = entry.trace?.dropped;
    if (dropped) out[name] = dropped.map((m) => m.map((row) => row.map((v) => (v !== 0 ? 1 : 0))));
  }
  return out;
}

/**
 * A "PyTorch script" button: downloads (and copies) a script that recomputes the whole state.
 * @returns {{element: HTMLElement, destroy(): void}}
 */
export function attachScriptExport(container, { getState, getResults = () => null }) {
  const doc = container.ownerDocument;
  const bar = el(doc, 'div', { class: 'ae-export ae-export-script', role: 'group', 'aria-label': 'Export the whole state' });
  const status = el(doc, 'span', { class: 'ae-export-status', role: 'status', 'aria-live': 'polite' });
  const script = () => toPyTorchScript(getState(), { dropoutKeep: keepMasks(getResults()) });
  const save = el(doc, 'button', { type: 'button', class: 'ae-btn', 'data-export': 'script', title: 'Download a short PyTorch script that recomputes this attention and prints it' }, 'PyTorch script');
  save.addEventListener('click', () => {
    try { download('attention.py', script(), 'text/x-python'); status.textContent = 'attention.py saved'; } catch (error) { status.textContent = `Export failed: ${error.message}`; }
  });
  const copy = el(doc, 'button', { type: 'button', class: 'ae-btn', 'data-export': 'copy-script', title: 'Copy the PyTorch script' }, 'Copy script');
  copy.addEventListener('click', async () => {
    try {
      status.textContent = (await copyText(doc, script())) ? 'Copied the script' : 'Could not copy: the browser refused clipboard access';
    } catch (error) { status.textContent = `Export failed: ${error.message}`; }
  });
  bar.append(save, copy, status);
  container.append(bar);
  return { element: bar, destroy: () => bar.remove() };
}

/**
 * Reads a page heatmap (web/lib/heatmap.js table) back: the exact numbers (each cell's
 * data-value), the labels, the caption and the colour each cell is painted with.
 */
export function readHeatmapTable(table) {
  const rows = [...table.querySelectorAll('tbody tr')];
  const matrix = rows.map((tr) => [...tr.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value)));
  const cellColors = rows.map((tr) => [...tr.querySelectorAll('td.ae-cell')].map((td) => td.style.backgroundColor || null));
  const rowLabels = rows.map((tr) => tr.querySelector('th')?.textContent ?? '');
  const colLabels = [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent);
  const caption = table.querySelector('caption')?.firstChild?.textContent?.trim() || table.dataset.matrix || 'matrix';
  const name = table.dataset.context ? `${caption} (${table.dataset.context})` : caption;
  return { matrix, rowLabels, colLabels, cellColors, name };
}

/**
 * Gives every heatmap inside `container` (now and later: views add them as they render) an
 * export toolbar that exports what that table shows. One call per page/element.
 * @returns {{disconnect(): void}}
 */
export function attachExportMenus(container, { digits = 3 } = {}) {
  const done = new WeakSet();
  const scan = () => {
    for (const table of container.querySelectorAll('table[data-matrix]')) {
      const figure = table.closest('figure') || table.parentElement;
      if (!figure || done.has(figure)) continue;
      done.add(figure);
      attachExportMenu(figure, { name: table.dataset.matrix, get: () => readHeatmapTable(table), digits });
    }
  };
  scan();
  const win = container.ownerDocument.defaultView;
  const observer = new win.MutationObserver(scan);
  observer.observe(container, { childList: true, subtree: true });
  return { disconnect: () => observer.disconnect() };
}

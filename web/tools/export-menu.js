// Export buttons for one matrix view, and a "PyTorch script" button for the whole state.
//
//   attachExportMenu(figure, { name: 'weights (river)', kind: 'weights',
//                              get: () => ({ matrix, rowLabels, colLabels }) });
//   attachScriptExport(container, { getState: () => store.get(), getResults: () => results });
//
// `get` is called at click time, so the export is always what is on screen. The heatmap colours
// come from the same colour scale as the page's heatmap (colormaps.colorScale).
import { toCSV, toJSON, toTorchLiteral } from '../lib/matrix-formats.js';
import { toSVG } from '../lib/heatmap-image.js';
import { toPyTorchScript, keepMasks } from '../lib/pytorch-script.js';
import { colorScale } from '../lib/colormaps.js';
import { fileStem } from '../lib/text.js';
import { h, plainText } from '../ui/dom.js';
import { download, toPNG, copyText } from './download.js';
import { exportStatus } from './export-buttons.js';

export { copyText };

/** What each export writes, given the matrix at click time. Exposed for tests. */
export function exportsFor({ doc, name, kind = 'signed', matrix, rowLabels, colLabels, cellColors, digits = 3 }) {
  const values = matrix.flat();
  const color = colorScale(kind, values);
  const opts = { rowLabels, colLabels, title: name, digits, color: (v) => color(v), cellColors };
  return {
    csv: () => toCSV(matrix, opts),
    json: () => toJSON(matrix, { name, rowLabels, colLabels }),
    torch: () => toTorchLiteral(matrix),
    svg: () => toSVG(matrix, opts),
    png: () => toPNG(doc, matrix, { ...opts, scale: 2 }),
  };
}

/**
 * Adds a collapsed "Export" menu (PNG, SVG, CSV, JSON, copy as PyTorch) to `container`: a
 * <details> element, so the five buttons under every heatmap stay out of sight and out of the
 * tab order until the reader opens the one they want.
 * @returns {{element: HTMLElement, destroy(): void}}
 */
export function attachExportMenu(container, { name, kind = 'signed', get, digits = 3 }) {
  if (typeof get !== 'function')
    throw new TypeError('attachExportMenu: options.get must return {matrix, rowLabels, colLabels}');
  const doc = container.ownerDocument;
  const menu = h(doc, 'details', { class: 'ae-export' });
  menu.append(h(doc, 'summary', { class: 'ae-export-summary', 'aria-label': `Export ${name}` }, 'Export'));
  const bar = h(doc, 'div', { class: 'ae-export-actions', role: 'group', 'aria-label': `Export ${name}` });
  const status = exportStatus(doc);
  const current = () => {
    const { matrix, rowLabels, colLabels, cellColors, name: liveName } = get();
    return exportsFor({ doc, name: liveName || name, kind, matrix, rowLabels, colLabels, cellColors, digits });
  };
  const stem = () => fileStem(get().name || name);
  const say = (text) => {
    status.textContent = text;
  };
  const actions = [
    [
      'PNG',
      'Download the heatmap as a PNG image (2× resolution)',
      async () => {
        download(doc, `${stem()}.png`, await current().png(), 'image/png');
        say('PNG saved');
      },
    ],
    [
      'SVG',
      'Download the heatmap as an SVG image',
      () => {
        download(doc, `${stem()}.svg`, current().svg(), 'image/svg+xml');
        say('SVG saved');
      },
    ],
    [
      'CSV',
      'Download the numbers as CSV',
      () => {
        download(doc, `${stem()}.csv`, current().csv(), 'text/csv');
        say('CSV saved');
      },
    ],
    [
      'JSON',
      'Download the numbers as JSON',
      () => {
        download(doc, `${stem()}.json`, current().json(), 'application/json');
        say('JSON saved');
      },
    ],
    [
      'Copy as PyTorch',
      'Copy a torch.tensor([...]) literal of this matrix',
      async () => {
        say(
          (await copyText(doc, current().torch()))
            ? 'Copied torch.tensor literal'
            : 'Could not copy: the browser refused clipboard access',
        );
      },
    ],
  ];
  for (const [label, title, run] of actions) {
    const button = h(
      doc,
      'button',
      { type: 'button', class: 'ae-btn ae-export-btn', title, 'data-export': label.split(' ')[0].toLowerCase() },
      label,
    );
    button.addEventListener('click', async () => {
      try {
        await run();
      } catch (error) {
        say(`Export failed: ${error.message}`);
      }
    });
    bar.append(button);
  }
  bar.append(status);
  menu.append(bar);
  container.append(menu);
  return { element: menu, destroy: () => menu.remove() };
}

/**
 * A "PyTorch script" button: downloads (and copies) a script that recomputes the whole state.
 * @returns {{element: HTMLElement, destroy(): void}}
 */
export function attachScriptExport(container, { getState, getResults = () => null }) {
  const doc = container.ownerDocument;
  const bar = h(doc, 'div', {
    class: 'ae-export ae-export-script',
    role: 'group',
    'aria-label': 'Export the whole state',
  });
  const status = exportStatus(doc);
  const script = () => toPyTorchScript(getState(), { dropoutKeep: keepMasks(getResults()) });
  const save = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-btn',
      'data-export': 'script',
      title: 'Download a short PyTorch script that recomputes this attention and prints it',
    },
    'PyTorch script',
  );
  save.addEventListener('click', () => {
    try {
      download(doc, 'attention.py', script(), 'text/x-python');
      status.textContent = 'attention.py saved';
    } catch (error) {
      status.textContent = `Export failed: ${error.message}`;
    }
  });
  const copy = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', 'data-export': 'copy-script', title: 'Copy the PyTorch script' },
    'Copy script',
  );
  copy.addEventListener('click', async () => {
    try {
      status.textContent = (await copyText(doc, script()))
        ? 'Copied the script'
        : 'Could not copy: the browser refused clipboard access';
    } catch (error) {
      status.textContent = `Export failed: ${error.message}`;
    }
  });
  bar.append(save, copy, status);
  container.append(bar);
  return { element: bar, destroy: () => bar.remove() };
}

/**
 * Reads a page heatmap (web/ui/heatmap.js table) back: the exact numbers (each cell's
 * data-value), the labels, the caption and the colour each cell is painted with.
 */
export function readHeatmapTable(table) {
  const rows = [...table.querySelectorAll('tbody tr')];
  const matrix = rows.map((tr) => [...tr.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value)));
  const cellColors = rows.map((tr) =>
    [...tr.querySelectorAll('td.ae-cell')].map((td) => td.style.backgroundColor || null),
  );
  const rowLabels = rows.map((tr) => tr.querySelector('th')?.textContent ?? '');
  const colLabels = [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent);
  // The caption as written (a superscript T is the transpose sign again), without its hints.
  const captionEl = table.querySelector('caption');
  const written = captionEl
    ? [...captionEl.childNodes]
        .filter((n) => !n.classList?.contains('ae-hint'))
        .map(plainText)
        .join('')
    : '';
  const caption = written.trim() || table.dataset.matrix || 'matrix';
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

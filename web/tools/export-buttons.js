// Export buttons under a picture (PNG and SVG): in a labelled group, with a status line that says
// what was saved or why it could not be.
import { h } from '../ui/dom.js';

/** The status line of a group of exports (a polite live region). */
export function exportStatus(doc) {
  return h(doc, 'span', { class: 'ae-export-status', role: 'status', 'aria-live': 'polite' });
}

/** Runs `save` (it may return a promise), then says `done`, or why it failed, in `status`. */
export async function reportExport(status, save, done) {
  try {
    await save();
    status.textContent = done;
  } catch (error) {
    status.textContent = `Export failed: ${error.message}`;
  }
}

/**
 * The button of one format: its text the format ('PNG'); data-export `data`; an accessible name
 * "label: PNG" where a group holds the buttons of several pictures.
 */
export function exportButton(doc, kind, onclick, { data = kind, label } = {}) {
  const name = label ? `${label}: ${kind.toUpperCase()}` : undefined;
  return h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', 'data-export': data, 'aria-label': name, onclick },
    kind.toUpperCase(),
  );
}

/**
 * One picture's PNG and SVG buttons in a group named `label`, with their status line.
 * @param {{className: string, label: string, save(kind: 'png'|'svg'): Promise|void}} options
 */
export function exportBar(doc, { className, label, save }) {
  const status = exportStatus(doc);
  const run = (kind) => reportExport(status, () => save(kind), `${kind.toUpperCase()} saved`);
  return h(
    doc,
    'div',
    { class: `ae-export-actions ${className}`, role: 'group', 'aria-label': label },
    exportButton(doc, 'png', () => run('png')),
    exportButton(doc, 'svg', () => run('svg')),
    status,
  );
}

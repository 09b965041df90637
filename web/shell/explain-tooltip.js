// "Explain this number": hovering or focusing a cell of a figure shows how it was computed
// (lib/explain.js) in a tooltip below it, and marks the cells it came from in every figure that
// shows them. The tooltip asks the figure what a cell is (ui/heatmap.js locate(): matrix,
// sentence, head, row, column), so a new figure needs no change here. Escape dismisses it without
// moving the focus (WCAG 1.4.13); it follows the numbers when they change under it.
import { h } from '../ui/dom.js';
import { explainCell, isSource, modelAt } from '../lib/explain.js';

/**
 * @param {{doc, container: HTMLElement, tooltip: HTMLElement, figureOf(table): object|undefined,
 *          state(): object, results(): object|null}} ctx
 *   figureOf: the heatmap drawn in a table (the explorer's figures register there)
 * @returns {{explain(figure, i, j, td), refresh(), destroy()}}
 */
export function createExplainTooltip({ doc, container, tooltip, figureOf, state, results }) {
  let explained = null; // {id, context, i, j}: the cell explained, found again after a redraw

  function clearSources() {
    for (const el of container.querySelectorAll('.ae-src, .ae-sel')) el.classList.remove('ae-src', 'ae-sel');
  }
  function hide() {
    tooltip.hidden = true;
    explained = null;
  }

  function markSources(sources, explainedCell) {
    for (const table of container.querySelectorAll('table[data-matrix]')) {
      const figure = figureOf(table);
      if (!figure) continue;
      for (const cell of table.querySelectorAll('td.ae-cell')) {
        const at = figure.locate(Number(cell.dataset.row), Number(cell.dataset.col));
        if (sources.some((s) => isSource(s, at, explainedCell))) cell.classList.add('ae-src');
      }
    }
  }

  // Below the cell, inside the container.
  function place(td) {
    const box = container.getBoundingClientRect();
    const r = td.getBoundingClientRect();
    tooltip.style.maxWidth = `${Math.min(360, box.width - 8)}px`;
    const left = Math.max(4, Math.min(r.left - box.left, box.width - tooltip.offsetWidth - 4));
    tooltip.style.left = `${left}px`;
    tooltip.style.top = `${r.bottom - box.top + 6}px`;
  }

  /** Explains cell (i, j) of `figure` (i null: nothing is explained any more). */
  function explain(figure, i, j, td) {
    clearSources();
    if (i === null || i === undefined || !results()) {
      hide();
      td?.removeAttribute('aria-describedby');
      return;
    }
    const at = figure.locate(i, j);
    const model = modelAt(state(), results(), at);
    if (!model) return; // a figure of no sentence, or one the engine has no numbers for
    const info = explainCell(model, at.matrix, at.row, at.col) || {
      title: `${at.matrix}[${i}][${j}]`,
      lines: [],
      result: td.textContent,
      sources: [],
    };
    explained = { id: figure.table.dataset.matrix, context: figure.table.dataset.context, i, j };
    td.classList.add('ae-sel');
    markSources(info.sources, { context: at.context, head: model.h });
    tooltip.replaceChildren(
      h(doc, 'p', { class: 'ae-explain-title' }, info.title),
      ...info.lines.map((l) => h(doc, 'p', {}, l)),
      h(doc, 'p', { class: 'ae-explain-result' }, `= ${info.result}`),
    );
    tooltip.id ||= `ae-explain-${Math.random().toString(36).slice(2, 8)}`;
    td.setAttribute('aria-describedby', tooltip.id);
    tooltip.hidden = false;
    place(td);
  }

  const onKey = (e) => {
    if (e.key === 'Escape' && !tooltip.hidden) {
      hide();
      clearSources();
    }
  };
  container.addEventListener('keydown', onKey);

  return {
    explain,
    /** After a redraw: the same cell explained again with the new numbers. */
    refresh() {
      if (!explained) return;
      const { id, context, i, j } = explained;
      const td = container.querySelector(
        `table[data-matrix="${id}"]${context ? `[data-context="${context}"]` : ''} td[data-row="${i}"][data-col="${j}"]`,
      );
      const figure = td && figureOf(td.closest('table'));
      if (figure) explain(figure, i, j, td);
    },
    destroy() {
      container.removeEventListener('keydown', onKey);
    },
  };
}

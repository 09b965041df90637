// Clicking (or Enter on) a cell of a figure whose rows are the focused sentence's tokens picks
// that token's row (state.selected), which the formula section shows with its numbers. The figure
// says whether its rows are tokens (ui/heatmap.js shows.tokenRows); editable figures keep
// click-to-edit.

/**
 * @param {HTMLElement} container
 * @param {{get(): object, set(patch)}} store
 * @param {(table) => object|undefined} figureOf  the heatmap drawn in a table
 * @returns {{destroy()}}
 */
export function attachRowPicker(container, store, figureOf) {
  function pick(e) {
    if (e.type === 'keydown' && e.key !== 'Enter') return;
    const td = e.target.closest?.('td.ae-cell');
    const table = td?.closest('table[data-matrix]');
    const figure = table && figureOf(table);
    if (!figure || table.classList.contains('ae-editable')) return;
    const row = Number(td.dataset.row),
      col = Number(td.dataset.col);
    const at = figure.locate(row, col);
    const state = store.get();
    if (!at.tokenRows || (at.context && at.context !== state.focus)) return;
    const s = state.selected;
    if (s?.row === row && s?.matrix === at.matrix && s?.col === col) return;
    store.set({ selected: { matrix: at.matrix, row, col } });
  }
  container.addEventListener('click', pick);
  container.addEventListener('keydown', pick);
  return {
    destroy() {
      container.removeEventListener('click', pick);
      container.removeEventListener('keydown', pick);
    },
  };
}

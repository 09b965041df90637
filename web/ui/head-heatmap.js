// One head of a model enlarged: its causal attention weights over the sequence as a heatmap whose
// cells, hovered or focused, explain their softmax with the numbers (lib/explain.js
// explainLearnedWeight: the learned scores of the row, the largest subtracted, the sum of the
// visible keys). Drawn by the Learn section and the real model's.
import { h } from './dom.js';
import { createHeatmap } from './heatmap.js';
import { explainLearnedWeight } from '../lib/explain.js';

/**
 * @param {Element} parent
 * @param {{doc, id?: string}} ctx
 * @returns {{el, update({layer: {weights, scores, q?}, chosen: {layer, head}, labels, caption, hs?}), clear()}}
 *   hs: the head size (else read from q)
 */
export function render(parent, { doc, id = 'learn-weights' }) {
  const explainLine = h(doc, 'p', { class: 'ae-help ae-learn-explain', 'aria-live': 'polite' });
  let shown = null;
  const heatmap = createHeatmap(doc, {
    id,
    caption: '',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    kind: 'weights',
    onExplain: (i, j) => explain(i, j),
  });
  heatmap.el.hidden = true; // until there is a model
  const figure = h(doc, 'figure', { class: 'ae-learn-head' }, heatmap.el, explainLine);
  parent.append(figure);

  function explain(i, j) {
    if (i === null || i === undefined || !shown) {
      explainLine.textContent = '';
      return;
    }
    const { layer, chosen } = shown;
    explainLine.textContent = explainLearnedWeight(
      {
        scores: layer.scores[chosen.head][i],
        weight: layer.weights[chosen.head][i][j],
        hs: shown.hs ?? layer.q[chosen.head][0].length,
      },
      i,
      j,
    );
  }

  return {
    el: figure,
    update({ layer, chosen, labels, caption, hs }) {
      shown = { layer, chosen, hs };
      heatmap.el.hidden = false;
      heatmap.update({
        caption,
        rowLabels: labels,
        colLabels: labels,
        values: layer.weights[chosen.head],
        kind: 'weights',
        masked: (i, j) => j > i,
        digits: 2,
        cornerLabel: 'query \\ key',
      });
    },
    clear() {
      shown = null;
      heatmap.el.hidden = true;
      explainLine.textContent = '';
    },
  };
}

// One head enlarged: its causal attention weights over the sequence as a heatmap whose cells,
// hovered or focused, explain their softmax with the numbers (the learned scores of the row, the
// largest subtracted, the sum of the visible keys).
import { h } from '../../ui/dom.js';
import { createHeatmap } from '../../ui/heatmap.js';
import { fmt } from '../../lib/format.js';

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
    const s = layer.scores[chosen.head][i];
    const w = layer.weights[chosen.head][i][j];
    if (j > i) {
      explainLine.textContent = `Position ${i} cannot look ahead at ${j}: the causal mask sets its score to −∞, its weight to 0.`;
      return;
    }
    // The engine's scores are q·k unscaled; the softmax sees them divided by √(head size).
    const hs = shown.hs ?? layer.q[chosen.head][0].length;
    const scaled = s.slice(0, i + 1).map((x) => x / Math.sqrt(hs));
    const max = Math.max(...scaled);
    const sum = scaled.reduce((a, x) => a + Math.exp(x - max), 0);
    explainLine.textContent = `weight[${i}][${j}] = exp(scaled score ${fmt(scaled[j])} − row max ${fmt(max)}) / Σ over the ${i + 1} visible keys (${fmt(sum)}) = ${fmt(Math.exp(scaled[j] - max) / sum)} (the engine: ${fmt(w)}); scaled score = q·k / √${hs} = ${fmt(s[j])} / ${fmt(Math.sqrt(hs))} of the learned query and key.`;
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

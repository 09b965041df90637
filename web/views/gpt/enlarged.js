// One picture of the model enlarged, as the reader picks: one head (its weights, each cell's
// softmax explained: ui/head-heatmap.js), the mean of a layer's heads, or the rollout across
// layers, with what each is and is not.
import { h } from '../../ui/dom.js';
import { radios } from '../../ui/controls.js';
import { createHeatmap } from '../../ui/heatmap.js';
import * as headHeatmap from '../../ui/head-heatmap.js';

const TEXT = {
  pictures: { head: 'one head', mean: 'mean of the layer’s heads', rollout: 'rollout across layers' },
  picture: 'Enlarged:',
  reading:
    'Rows are queries, columns are keys: row i is where token i looks (its weights sum to 1); each label is position:token.',
  rollout:
    'Attention rollout multiplies each layer’s mean attention (mixed half and half with the identity, for the residual connection) from the first layer up: a rough map of which input tokens each position’s final vector draws on. It leaves out the MLPs, the values’ sizes and the output projections, so it is not an explanation of the prediction.',
  mean: 'The mean over the heads of the layer: where the layer as a whole looks.',
};

/**
 * @param {Element} parent
 * @param {{doc, onPicture(kind)}} ctx
 * @returns {{update({picture, trace, labels, chosen})}}
 *   picture: 'head' | 'mean' | 'rollout'; trace: the model's (weights, mean, rollout flat; chosen)
 */
export function render(parent, { doc, onPicture }) {
  const modes = radios(doc, {
    legend: TEXT.picture,
    choices: Object.entries(TEXT.pictures),
    onChange: onPicture,
    className: 'ae-radio ae-gpt-modes',
  });
  const box = h(doc, 'div', { class: 'ae-gpt-enlarged' });
  parent.append(modes.el, h(doc, 'p', { class: 'ae-help' }, TEXT.reading), box);
  const head = headHeatmap.render(box, { doc, id: 'gpt-head' });
  const summary = createHeatmap(doc, {
    id: 'gpt-summary',
    caption: '',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    kind: 'weights',
    digits: 2,
  });
  const note = h(doc, 'p', { class: 'ae-help' });
  summary.el.hidden = note.hidden = true; // until the reader picks the mean or the rollout
  box.append(summary.el, note);

  return {
    /** The choice before the model has run. */
    sync: (picture) => modes.sync(picture),
    update({ picture, trace: t, labels, chosen }) {
      const T = t.T;
      const rows = (flat, offset = 0) =>
        Array.from({ length: T }, (_, i) => Array.from(flat.subarray(offset + i * T, offset + (i + 1) * T)));
      head.el.hidden = picture !== 'head';
      summary.el.hidden = picture === 'head';
      note.hidden = picture === 'head';
      if (picture === 'head') {
        const base = (chosen.layer * t.H + chosen.head) * T * T;
        head.update({
          layer: { weights: [rows(t.weights, base)], scores: [rows(t.chosen.scores)] },
          chosen: { layer: chosen.layer, head: 0 },
          hs: t.chosen.hs,
          labels,
          caption: `Layer ${chosen.layer + 1}, head ${chosen.head + 1}`,
        });
        return;
      }
      const mean = picture === 'mean';
      summary.update({
        values: mean ? rows(t.mean, chosen.layer * T * T) : rows(t.rollout),
        rowLabels: labels,
        colLabels: labels,
        masked: (i, j) => j > i,
        cornerLabel: 'query \\ key',
        caption: mean ? `Layer ${chosen.layer + 1}, mean of ${t.H} heads` : `Rollout over ${t.L} layers`,
      });
      note.textContent = mean ? TEXT.mean : TEXT.rollout;
    },
  };
}

// Concatenate, then mix: the heads' outputs side by side (merged), and the output projection W_O
// (drawn at random with a fixed seed by lib/compute.js, applied by the engine) that lets every
// output column draw on every head.
import { h } from '../../ui/dom.js';
import { indexLabels, sizeText } from '../../lib/format.js';
import { headClass } from '../../lib/palette.js';
import { createHeadsKey } from '../../ui/heads-key.js';

const TEXT = {
  concatenate: 'Concatenate: the heads’ outputs side by side',
  mix: 'Mix the heads: the output projection W_O',
  mixIntro:
    'Side by side, each head still owns its own columns. One more matrix, W_O (called attn.c_proj in nanoGPT’s code: the attention block’s output projection), multiplies the merged rows so every output column can draw on every head: output = merged · W_O. A model learns W_O with the rest; here it is drawn at random (seeded) to show the step, and the engine applies it.',
  reach: (n, H) => `Each output number mixes all ${n} merged columns, so all ${H} head${H === 1 ? '' : 's'} reach it.`,
  failed: (why) => `The output projection could not be computed: ${why}`,
};

/**
 * @param {Element} parent
 * @param {object} app
 * @returns {{update(focus, projection)}}  projection: results.projection (lib/compute.js outputProjection)
 */
export function render(parent, app) {
  const { doc } = app;
  const blank = { rowLabels: [], colLabels: [], values: [[0]] };
  const merged = app.heatmap({
    ...blank,
    id: 'merged',
    caption: 'merged',
    shows: { matrix: 'merged', tokenRows: true },
  });
  const wo = app.heatmap({ ...blank, id: 'heads-wo', caption: 'W_O' });
  const projected = app.heatmap({ ...blank, id: 'heads-projected', caption: '' });
  const note = h(doc, 'p', { class: 'ae-help' });
  const key = createHeadsKey(doc);
  parent.append(
    h(doc, 'h3', {}, TEXT.concatenate),
    h(doc, 'div', { class: 'ae-row' }, merged.el),
    key.el,
    h(doc, 'h3', {}, TEXT.mix),
    h(doc, 'p', {}, TEXT.mixIntro),
    h(doc, 'div', { class: 'ae-row' }, wo.el, projected.el),
    note,
  );
  return {
    update({ name, trace: t, heads: H, tokens, highlightRows, hv }, projection) {
      const width = t.merged[0].length;
      key.update(H);
      merged.update({
        context: name,
        values: t.merged,
        rowLabels: tokens,
        highlightRows,
        colLabels: indexLabels(width, 'v'),
        colClass: (j) => headClass(Math.floor(j / hv)),
        caption: `merged: ${H} × ${hv} = ${width} columns`,
      });
      if (!projection?.output) {
        note.textContent = TEXT.failed(projection?.error ?? '?');
        return;
      }
      const n = projection.wo.length;
      wo.update({
        values: projection.wo,
        rowLabels: indexLabels(n, 'v'),
        colLabels: indexLabels(n, 'o'),
        caption: `W_O (${sizeText(projection.wo)})`,
      });
      projected.update({
        context: name,
        values: projection.output,
        rowLabels: tokens,
        highlightRows,
        colLabels: indexLabels(n, 'o'),
        caption: 'output = merged · W_O',
      });
      note.textContent = TEXT.reach(n, H);
    },
  };
}

// Each head on its own: its weights over the sentence and its output (weights · its V columns),
// one box per head in the head's colour.
import { h } from '../../ui/dom.js';
import { indexLabels } from '../../lib/format.js';
import { headClass } from '../../lib/palette.js';

/**
 * @param {Element} parent
 * @param {object} app
 * @returns {{update(focus)}}  focus: lib/focus.js focusView
 */
export function render(parent, app) {
  const { doc } = app;
  const row = h(doc, 'div', { class: 'ae-row ae-heads' });
  parent.append(row);
  let boxes = [];
  const heatmap = (id, shows, kind) =>
    app.heatmap({ id, caption: '', rowLabels: [], colLabels: [], values: [[0]], kind, shows });

  function build(H) {
    row.replaceChildren();
    boxes = Array.from({ length: H }, (_, hh) => {
      const box = h(doc, 'div', { class: `ae-headbox ${headClass(hh)}` });
      const w = heatmap(`head-${hh}-weights`, { matrix: 'weights', head: hh }, 'weights');
      const o = heatmap(`head-${hh}-out`, { matrix: 'out', head: hh });
      box.append(w.el, o.el);
      row.append(box);
      return { w, o };
    });
  }

  return {
    update({ name, trace: t, heads: H, tokens, highlightRows, hv }) {
      if (boxes.length !== H) build(H);
      boxes.forEach(({ w, o }, hh) => {
        w.update({
          context: name,
          masked: (i, j) => t.masked[hh][i][j] === -Infinity,
          values: t.weights[hh],
          rowLabels: tokens,
          highlightRows,
          colLabels: tokens,
          caption: `head ${hh}: weights`,
        });
        o.update({
          context: name,
          values: t.headOutputs[hh],
          rowLabels: tokens,
          highlightRows,
          colLabels: indexLabels(hv, 'v', hh * hv),
          colClass: () => headClass(hh),
          caption: `head ${hh}: weights · V`,
        });
      });
    },
  };
}

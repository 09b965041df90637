// Split: each head takes its own columns of Q, K and V. The three matrices with every head's
// columns side by side, the column headers tinted per head so the split lines up with the merge.
import { indexLabels } from '../../lib/format.js';
import { sideBySide } from '../../lib/compute.js';
import { headClass } from '../../lib/palette.js';
import { createHeadsKey } from '../../ui/heads-key.js';

/**
 * @param {Element} parent
 * @param {object} app
 * @returns {{update(focus)}}  focus: lib/focus.js focusView
 */
export function render(parent, app) {
  const maps = {};
  for (const m of ['q', 'k', 'v']) {
    maps[m] = app.heatmap({ id: `heads-${m}`, caption: '', rowLabels: [], colLabels: [], values: [[0]] });
    parent.append(maps[m].el);
  }
  const key = createHeadsKey(app.doc);
  parent.after(key.el);
  return {
    update({ name, trace: t, heads: H, tokens, highlightRows, hk, hv }) {
      key.update(H);
      for (const m of ['q', 'k', 'v']) {
        const n = m === 'v' ? hv : hk;
        maps[m].update({
          context: name,
          shows: { matrix: m, columnsPerHead: n },
          values: sideBySide(t[m]),
          rowLabels: tokens,
          highlightRows,
          colLabels: indexLabels(n * H, m),
          colClass: (j) => headClass(Math.floor(j / n)),
          caption: `${m.toUpperCase()}: ${H} head${H > 1 ? 's' : ''} × ${n} column${n > 1 ? 's' : ''}`,
        });
      }
    },
  };
}

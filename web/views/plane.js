// The plane: queries and keys of the focused context as arrows, each key's dot product with the
// chosen query drawn as its shadow (views/plane/queries-keys.js); and where the shared word ends up
// in each sentence, apart with self-attention and together under the plain linear layer
// (views/plane/outputs.js). Side by side where there is room, one column on a phone; each picture
// exports as PNG (2×, its table's numbers as CSV inside) and SVG as drawn now.
import { h } from '../ui/dom.js';
import { focusView } from '../lib/focus.js';
import { headClass } from '../lib/palette.js';
import { fileStem } from '../lib/text.js';
import { exportBar } from '../tools/export-buttons.js';
import { savePicture } from '../tools/svg-export.js';
import * as queriesKeys from './plane/queries-keys.js';
import * as outputs from './plane/outputs.js';

const TEXT = {
  title: 'The plane',
  intro:
    'With two numbers per query and key (W_Q and W_K here make them two-wide) each vector is an arrow. A score is a dot product: the length of a key’s shadow on the query’s line, times the query’s length. Pick a query to see every key’s shadow on it.',
};

export function render(section, app) {
  const { doc } = app;
  const exports = (what, svg, table) =>
    exportBar(doc, {
      className: 'ae-plane-export',
      label: `Export the ${what} picture`,
      save: (kind) =>
        savePicture(doc, kind, svg, {
          stem: fileStem(`plane ${what} ${app.state.focus}`),
          title: `${TEXT.title}: ${what}`,
          background: app.win.getComputedStyle(app.container).getPropertyValue('--bg').trim() || '#ffffff',
          table,
        }),
    });
  const column = () => h(doc, 'div', { class: 'ae-plane-col' });
  const [left, right] = [column(), column()];
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    h(doc, 'div', { class: 'ae-plane-pair' }, left, right),
  );
  const qk = queriesKeys.render(left, { doc, app, exports });
  const points = outputs.render(right, { doc, app, exports });
  return {
    update() {
      const f = focusView(app.state, app.results);
      if (!f) return;
      left.className = `ae-plane-col ${headClass(f.head)}`; // the arrows take the shown head's colour
      qk.update(f);
      points.update(app.results);
    },
  };
}

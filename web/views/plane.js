// The plane: queries and keys of the focused context as arrows, each key's dot product with the
// chosen query drawn as its shadow (views/plane/queries-keys.js); and where the shared word ends up
// in each sentence, apart with self-attention and together under the plain linear layer
// (views/plane/outputs.js). Side by side where there is room, one column on a phone; each picture
// exports as PNG (2×, its table's numbers as CSV inside) and SVG as drawn now.
import { h } from '../ui/dom.js';
import { focusView } from '../lib/focus.js';
import { toPlane, tokenPoints } from '../lib/plane.js';
import { headClass } from '../lib/palette.js';
import { fileStem } from '../lib/text.js';
import { exportBar } from '../tools/export-buttons.js';
import { savePicture } from '../tools/svg-export.js';
import * as queriesKeys from './plane/queries-keys.js';
import * as outputs from './plane/outputs.js';

const TEXT = {
  title: 'The plane',
  intro:
    'With two numbers per query and key (the bank example’s W_Q and W_K make them two-wide) each vector is an arrow. A score is a dot product: the length of a key’s shadow on the query’s line, times the query’s length. Pick a query to see every key’s shadow on it.',
};

/**
 * The plane's own numbers, computed by the shell (web/shell/render.js) when the results change:
 * the shown head's queries and keys in 2-D, and every token's vector after attention and after the
 * plain linear layer in 2-D (through the core's PCA where they are wider than two).
 * @returns {null | {queriesKeys: {xy, explained, projected}, outputs: {attention, linear}}}
 *   outputs[mode]: null when no context has vectors; null while the focused context has no trace
 */
export function compute(engine, state, results) {
  const f = focusView(state, results);
  if (!f) return null;
  const { q, k } = f.trace;
  const plane = (mode) => {
    const vectors = tokenPoints(results, mode).rows.map((r) => r.v);
    return vectors.length ? toPlane(engine, vectors) : null;
  };
  return {
    queriesKeys: toPlane(engine, [...q[f.head], ...k[f.head]]),
    outputs: { attention: plane('attention'), linear: plane('linear') },
  };
}

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
    /** @param {ReturnType<typeof compute>} planes */
    update(app, planes) {
      const f = focusView(app.state, app.results);
      if (!f || !planes) return;
      left.className = `ae-plane-col ${headClass(f.head)}`; // the arrows take the shown head's colour
      qk.update(f, planes.queriesKeys);
      points.update(app.results, planes.outputs);
    },
  };
}

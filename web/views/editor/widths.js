// The editor's widths: the embedding width D and the query/key and value widths dₖ and d_v.
// Growing one adds zeros; shrinking drops the last columns.
import { h, uid, activeIn } from '../../ui/dom.js';
import { LIMITS, resize, dims } from '../../lib/state.js';

const WIDTHS = [
  ['D', 'Embedding width D'],
  ['dk', 'Query/key width dₖ'],
  ['dv', 'Value width d_v'],
];

/**
 * @param {Element} parent
 * @param {object} app
 * @returns {{update(state)}}
 */
export function render(parent, app) {
  const { doc } = app;
  const inputs = {};
  const box = h(doc, 'div', { class: 'ae-form' });
  for (const [key, label] of WIDTHS) {
    const id = uid('w');
    const input = h(doc, 'input', {
      id,
      type: 'number',
      min: 1,
      max: LIMITS.width,
      step: 1,
      inputmode: 'numeric',
      onchange: (e) => {
        const n = Number(e.target.value);
        if (!app.edit((s) => resize(s, key, n))) e.target.value = String(dims(app.state)[key]);
      },
    });
    inputs[key] = input;
    box.append(h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, `${label} `), input));
  }
  parent.append(
    h(doc, 'h3', {}, 'Widths'),
    h(doc, 'p', { class: 'ae-help' }, 'Growing a width adds zeros; shrinking drops the last columns.'),
    box,
  );
  return {
    update(state) {
      const d = dims(state);
      for (const [k] of WIDTHS) if (activeIn(inputs[k]) !== inputs[k]) inputs[k].value = String(d[k]);
    },
  };
}

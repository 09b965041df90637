// The editor's vocabulary: every word's vector as an editable heatmap (every sentence using the
// word follows), a form to add a word with its vector, and a word to remove with its tokens.
import { h, uid, setOptions } from '../../ui/dom.js';
import { LIMITS, setValue, addWord, removeWord, dims, parseWordVector } from '../../lib/state.js';

/**
 * @param {Element} parent
 * @param {object} app
 * @returns {{update(state)}}
 */
export function render(parent, app) {
  const { doc } = app;
  const map = app.heatmap({
    id: 'vocab',
    caption: 'vocabulary',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    editable: {
      commit: (i, j, v) => app.edit((s) => setValue(s, { word: Object.keys(s.vocab)[i] }, i, j, v)),
      error: app.notify,
    },
  });
  const nameId = uid('word'),
    vecId = uid('vec'),
    remId = uid('rem');
  const nameIn = h(doc, 'input', {
    id: nameId,
    type: 'text',
    maxlength: LIMITS.wordChars,
    autocomplete: 'off',
    placeholder: 'e.g. river',
  });
  const vecIn = h(doc, 'input', {
    id: vecId,
    type: 'text',
    inputmode: 'decimal',
    autocomplete: 'off',
    placeholder: '0.5, 0, 0, 0.5',
  });
  const add = (e) => {
    e.preventDefault();
    const name = nameIn.value.trim();
    const vector = parseWordVector(app.state, name, vecIn.value);
    if (vector.error) {
      app.notify(vector.error);
      return;
    }
    if (app.edit((s) => addWord(s, name, vector.values))) {
      nameIn.value = '';
      vecIn.value = '';
    }
  };
  const remSel = h(doc, 'select', { id: remId });
  parent.append(
    h(doc, 'h3', {}, 'Vocabulary'),
    h(
      doc,
      'div',
      { class: 'ae-card' },
      map.el,
      h(
        doc,
        'form',
        { class: 'ae-form', onsubmit: add },
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: nameId }, 'New word '), nameIn),
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: vecId }, 'Its vector '), vecIn),
        h(doc, 'button', { type: 'submit', class: 'ae-btn' }, 'Add word'),
      ),
      h(
        doc,
        'div',
        { class: 'ae-form' },
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: remId }, 'Word '), remSel),
        h(
          doc,
          'button',
          { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => removeWord(s, remSel.value)) },
          'Remove word (and its tokens)',
        ),
      ),
    ),
  );

  return {
    update(state) {
      const words = Object.keys(state.vocab);
      const D = dims(state).D;
      map.update({
        values: words.map((w) => state.vocab[w]),
        rowLabels: words,
        colLabels: Array.from({ length: D }, (_, j) => `d${j}`),
        caption: `vocabulary (${words.length} words × ${D})`,
      });
      setOptions(
        doc,
        remSel,
        words.map((w) => ({ value: w, label: w })),
        words.includes(remSel.value) ? remSel.value : words[0],
      );
    },
  };
}

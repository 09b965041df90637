// Item 6: edit everything. The vocabulary (every word's vector, editable cell by cell), the
// tokens of each context (reorder, add, remove), new words, the widths D, dₖ, d_v, and a reset
// to the seed's values. W_Q, W_K, W_V are edited where they are drawn (step 2); W under item 1.
import { h, uid, setOptions, activeIn } from '../ui/dom.js';
import { parseNumber } from '../lib/format.js';
import {
  LIMITS,
  addToken,
  removeToken,
  moveToken,
  addWord,
  removeWord,
  resize,
  setValue,
  dims,
  validateWord,
} from '../lib/state.js';

export function render(page, app) {
  const { doc } = app;
  // The editor is one click deeper: its body opens from its summary, or when the contents or the
  // overview jump here (data-opens-on-jump, see app.goTo).
  const section = h(doc, 'details', { class: 'ae-details ae-editor', dataset: { opensOnJump: '' } });
  page.append(
    h(doc, 'h2', {}, 'Edit the example'),
    h(
      doc,
      'p',
      { class: 'ae-prose' },
      `Change the sentences and the vectors, then watch every view above follow. Limits: ${LIMITS.tokens} tokens per sentence, ${LIMITS.words} words, widths up to ${LIMITS.width}, values within ±${LIMITS.absValue}.`,
    ),
    section,
  );
  section.append(
    h(doc, 'summary', {}, 'Sentences, words, vectors and widths'),
    h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-btn',
        onclick: () => app.edit((s) => ({ state: { ...structuredClone(app.defaults), theme: s.theme } })),
      },
      'Reset everything to the seed’s values',
    ),
  );
  const ctxBox = h(doc, 'div', { class: 'ae-two' });
  section.append(h(doc, 'h3', {}, 'Sentences'), ctxBox);
  const ctxUi = {};

  const vocabMap = app.heatmap({
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
  // Add / remove words
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
  const addForm = h(
    doc,
    'form',
    {
      class: 'ae-form',
      onsubmit: (e) => {
        e.preventDefault();
        const { D } = dims(app.state);
        const name = nameIn.value.trim();
        const err = validateWord(name, app.state.vocab);
        if (err) {
          app.notify(`new word: ${err}`);
          return;
        }
        const parts = vecIn.value.trim() === '' ? new Array(D).fill('0') : vecIn.value.split(/[,\s;]+/).filter(Boolean);
        if (parts.length !== D) {
          app.notify(
            `new word “${name}”: its vector needs ${D} numbers, one per embedding dimension; got ${parts.length}`,
          );
          return;
        }
        const values = [];
        for (const [n, p] of parts.entries()) {
          const r = parseNumber(p);
          if (r.error) {
            app.notify(`new word “${name}”, number ${n + 1}: ${r.error}`);
            return;
          }
          values.push(r.value);
        }
        if (app.edit((s) => addWord(s, name, values))) {
          nameIn.value = '';
          vecIn.value = '';
        }
      },
    },
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: nameId }, 'New word '), nameIn),
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: vecId }, 'Its vector '), vecIn),
    h(doc, 'button', { type: 'submit', class: 'ae-btn' }, 'Add word'),
  );
  const remSel = h(doc, 'select', { id: remId });
  const remove = h(
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
  );
  section.append(h(doc, 'h3', {}, 'Vocabulary'), h(doc, 'div', { class: 'ae-card' }, vocabMap.el, addForm, remove));

  // Widths
  const widths = {};
  const widthBox = h(doc, 'div', { class: 'ae-form' });
  for (const [key, label] of [
    ['D', 'Embedding width D'],
    ['dk', 'Query/key width dₖ'],
    ['dv', 'Value width d_v'],
  ]) {
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
    widths[key] = input;
    widthBox.append(h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, `${label} `), input));
  }
  section.append(
    h(doc, 'h3', {}, 'Widths'),
    h(doc, 'p', { class: 'ae-help' }, 'Growing a width adds zeros; shrinking drops the last columns.'),
    widthBox,
  );

  function contextUi(name) {
    const list = h(doc, 'ol', { class: 'ae-tokens' });
    const selId = uid('add');
    const sel = h(doc, 'select', { id: selId });
    const card = h(
      doc,
      'div',
      { class: 'ae-card' },
      h(doc, 'h4', {}, name),
      list,
      h(
        doc,
        'div',
        { class: 'ae-form' },
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: selId }, 'Add '), sel),
        h(
          doc,
          'button',
          { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => addToken(s, name, sel.value)) },
          `Add to ${name}`,
        ),
      ),
    );
    ctxBox.append(card);
    return { list, sel, key: '' };
  }

  return {
    update() {
      const { state } = app;
      const words = Object.keys(state.vocab);
      for (const [name, tokens] of Object.entries(state.contexts)) {
        const ui = (ctxUi[name] ||= contextUi(name));
        setOptions(
          doc,
          ui.sel,
          words.map((w) => ({ value: w, label: w })),
          words.includes(ui.sel.value) ? ui.sel.value : words[0],
        );
        const key = tokens.join('\u0000');
        if (ui.key === key) continue;
        ui.key = key;
        const active = activeIn(ui.list);
        const focused = active && ui.list.contains(active) ? active.dataset.act : null;
        ui.list.replaceChildren(
          ...tokens.map((t, i) =>
            h(
              doc,
              'li',
              { class: 'ae-token' },
              h(doc, 'span', { class: 'ae-token-name' }, t),
              h(
                doc,
                'button',
                {
                  type: 'button',
                  class: 'ae-btn ae-small',
                  'aria-label': `Move “${t}” (token ${i + 1} of ${name}) earlier`,
                  disabled: i === 0,
                  dataset: { act: `l${i}` },
                  onclick: () => app.edit((s) => moveToken(s, name, i, -1)),
                },
                '←',
              ),
              h(
                doc,
                'button',
                {
                  type: 'button',
                  class: 'ae-btn ae-small',
                  'aria-label': `Move “${t}” (token ${i + 1} of ${name}) later`,
                  disabled: i === tokens.length - 1,
                  dataset: { act: `r${i}` },
                  onclick: () => app.edit((s) => moveToken(s, name, i, 1)),
                },
                '→',
              ),
              h(
                doc,
                'button',
                {
                  type: 'button',
                  class: 'ae-btn ae-small',
                  'aria-label': `Remove “${t}” (token ${i + 1}) from ${name}`,
                  disabled: tokens.length === 1,
                  dataset: { act: `x${i}` },
                  onclick: () => app.edit((s) => removeToken(s, name, i)),
                },
                '×',
              ),
            ),
          ),
        );
        // Keep keyboard focus near the button that was pressed.
        if (focused)
          (
            ui.list.querySelector(`[data-act="${focused}"]:not([disabled])`) ||
            ui.list.querySelector('button:not([disabled])')
          )?.focus();
      }
      const D = dims(state).D;
      vocabMap.update({
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
      const d = dims(state);
      for (const k of ['D', 'dk', 'dv']) if (activeIn(widths[k]) !== widths[k]) widths[k].value = String(d[k]);
    },
  };
}

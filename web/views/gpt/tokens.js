// The reader's sentence and its tokens as chips (each token's id on hover and for screen readers;
// a token that holds part of a character shows it as bytes, honestly).
import { h, uid } from '../../ui/dom.js';

const TEXT = {
  sentence: 'Your sentence',
  help: 'Each chip is one token: the pieces of text the model reads (hover for its id).',
};

/**
 * @param {Element} parent
 * @param {{doc, onSentence(text)}} ctx
 * @returns {{update({sentence, pieces})}}
 */
export function render(parent, { doc, onSentence }) {
  const id = uid('gpt');
  const input = h(doc, 'textarea', { id, rows: 2, class: 'ae-gpt-sentence', spellcheck: 'false', maxlength: 2000 });
  input.addEventListener('change', () => onSentence(input.value));
  const chips = h(doc, 'p', { class: 'ae-gpt-chips', role: 'group', 'aria-label': 'tokens' });
  parent.append(
    h(doc, 'div', { class: 'ae-ctl ae-gpt-sentence-field' }, h(doc, 'label', { for: id }, TEXT.sentence), input),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    chips,
  );
  return {
    update({ sentence, pieces }) {
      if (input.getRootNode?.().activeElement !== input && input.value !== sentence) input.value = sentence;
      if (!pieces) return;
      chips.replaceChildren(
        ...pieces.map((p, i) =>
          h(
            doc,
            'span',
            {
              class: `ae-gpt-chip${p.special ? ' ae-gpt-special' : ''}`,
              title: `token ${i}: id ${p.id}`,
              dataset: { id: p.id },
            },
            p.display.replace(/ /g, '␣'),
            h(doc, 'span', { class: 'ae-sr' }, ` (id ${p.id})`),
          ),
        ),
      );
    },
  };
}

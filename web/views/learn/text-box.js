// The text task's own figure: the text to learn from (editable, with a sample included), a
// sample the model writes every few seconds while it trains, and a prompt whose attention the
// head grid then shows.
import { h } from '../../ui/dom.js';
import { SAMPLE_TEXT } from '../../lib/learn/corpus.js';

const TEXT = {
  textLabel: 'Text to learn from',
  useText: 'Use this text',
  useSample: 'Use the sample text',
  sample: 'A sample from the model',
  prompt: 'Prompt (see every head’s attention over it)',
};

/**
 * @param {Element} parent
 * @param {{doc, field, button, onText: (text) => void, onPrompt: (text) => void}} ctx
 * @returns {{el, update({learn}), showSample(text), clear()}}
 */
export function render(parent, { doc, field, button, onText, onPrompt }) {
  const textArea = h(doc, 'textarea', { rows: 6, cols: 48, class: 'ae-learn-text', spellcheck: 'false' });
  const sampleOut = h(doc, 'pre', { class: 'ae-learn-sample', 'aria-live': 'off' });
  const promptInput = h(doc, 'input', { type: 'text', class: 'ae-learn-prompt', maxlength: 64 });
  promptInput.addEventListener('change', () => onPrompt(promptInput.value));
  const box = h(
    doc,
    'div',
    { class: 'ae-learn-textbox', hidden: true },
    field(TEXT.textLabel, textArea),
    h(
      doc,
      'div',
      { class: 'ae-row' },
      button(TEXT.useText, () => onText(textArea.value)),
      button(TEXT.useSample, () => {
        textArea.value = SAMPLE_TEXT;
        onText(SAMPLE_TEXT);
      }),
    ),
    h(doc, 'h3', {}, TEXT.sample),
    sampleOut,
    field(TEXT.prompt, promptInput),
  );
  parent.append(box);
  return {
    el: box,
    update({ learn }) {
      box.hidden = learn.task !== 'text';
      if (!box.hidden && textArea.getRootNode?.().activeElement !== textArea && !textArea.value)
        textArea.value = learn.text || SAMPLE_TEXT;
    },
    showSample(text) {
      sampleOut.textContent = text;
    },
    clear() {
      sampleOut.textContent = '';
      promptInput.value = '';
    },
  };
}

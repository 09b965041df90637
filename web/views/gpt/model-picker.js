// Which model: the project's own (shipped, opens with the section), or a GPT-2-family checkpoint
// from this computer (model.safetensors, with config.json and the tokenizer's files when there
// are). What is open is said in a line: its name, size and where it came from.
import { h, uid } from '../../ui/dom.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  open: 'Open a GPT-2 checkpoint from this computer',
  files:
    'model.safetensors of a GPT2LMHeadModel (gpt2, distilgpt2, gpt2-medium…; Hugging Face’s layout, F32, F16 or BF16), and if you have them config.json and tokenizer.json (or vocab.json and merges.txt). Without a tokenizer file GPT-2’s own is used; without config.json give the head count.',
  heads: 'Heads, when neither config.json nor the file says (GPT-2 small: 12)',
  load: 'Open these files',
  shipped: 'Back to the project’s own model',
  opening: 'Opening the model…',
};

/**
 * @param {Element} parent
 * @param {{doc, onFiles(files, heads), onShipped()}} ctx
 * @returns {{update({info, error, opening})}}
 */
export function render(parent, { doc, onFiles, onShipped }) {
  const about = h(doc, 'p', { class: 'ae-gpt-about', 'aria-live': 'polite' });
  const message = h(doc, 'p', { class: 'ae-learn-message ae-gpt-model-message', role: 'alert', hidden: true });
  const input = (label, accept, key) => {
    const id = uid('gpt');
    const el = h(doc, 'input', { type: 'file', id, accept, class: `ae-gpt-file-${key}` });
    return { el, field: h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', el) };
  };
  const model = input('model.safetensors', '.safetensors,application/octet-stream', 'model');
  const config = input('config.json (optional)', '.json,application/json', 'config');
  const tokenizer = input('tokenizer.json or vocab.json + merges.txt (optional)', '.json,.txt', 'tokenizer');
  tokenizer.el.multiple = true;
  const headsId = uid('gpt');
  const heads = h(doc, 'input', {
    type: 'number',
    id: headsId,
    min: 1,
    max: 256,
    step: 1,
    placeholder: 'e.g. 12',
    class: 'ae-gpt-heads',
  });
  const load = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-btn ae-gpt-load',
      onclick: () => {
        const f = model.el.files?.[0];
        if (!f) {
          say('Choose a model.safetensors file first.');
          return;
        }
        const files = { model: f, config: config.el.files?.[0] };
        for (const t of tokenizer.el.files ?? []) {
          if (/merges/i.test(t.name)) files.merges = t;
          else if (/vocab/i.test(t.name)) files.vocab = t;
          else files.tokenizerJson = t;
        }
        say(null);
        onFiles(files, Number(heads.value) || undefined);
      },
    },
    TEXT.load,
  );
  const back = h(doc, 'button', { type: 'button', class: 'ae-btn', onclick: () => onShipped() }, TEXT.shipped);
  parent.append(
    about,
    message,
    h(
      doc,
      'details',
      { class: 'ae-details ae-gpt-open' },
      h(doc, 'summary', {}, TEXT.open),
      h(doc, 'p', { class: 'ae-help' }, TEXT.files),
      model.field,
      config.field,
      tokenizer.field,
      h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headsId }, TEXT.heads), ' ', heads),
      h(doc, 'div', { class: 'ae-row' }, load, back),
    ),
  );
  function say(text) {
    message.hidden = !text;
    message.textContent = text || '';
  }
  return {
    say,
    update({ info, error, opening }) {
      if (opening) about.textContent = TEXT.opening;
      else if (info) {
        const c = info.config;
        about.textContent = `${info.name}: ${c.layers} layers × ${c.heads} heads, width ${c.width}, context ${c.contextLength} tokens, vocabulary ${c.vocabSize}, ${fmt(info.parameters / 1e6, 2)} million parameters — ${info.about}.`;
      }
      say(error ? `Could not open the model: ${error.message}${info ? ' (the model on screen stays).' : ''}` : null);
    },
  };
}

// The seeds' bank example on real weights: two sentences that share a word, and the cosine of
// that word's vector between them after the embedding and after every layer.
import { h, uid } from '../../ui/dom.js';
import { createLossChart } from '../../ui/loss-chart.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  title: 'The same word in two sentences, layer by layer',
  help: 'The word’s vector in the residual stream (at its last token) in each sentence, compared by cosine similarity after the embedding (layer 0: the same word, so 1) and after every layer: how far the sentence has moved it.',
  a: 'Sentence A',
  b: 'Sentence B',
  word: 'Shared word',
  compare: 'Compare',
};

export function render(parent, { doc, onBank }) {
  const field = (label, attrs) => {
    const id = uid('gpt');
    const input = h(doc, 'input', { type: 'text', id, ...attrs });
    return { input, el: h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', input) };
  };
  const a = field(TEXT.a, { class: 'ae-gpt-bank-a', maxlength: 2000, size: 40 });
  const b = field(TEXT.b, { class: 'ae-gpt-bank-b', maxlength: 2000, size: 40 });
  const word = field(TEXT.word, { class: 'ae-gpt-bank-word', maxlength: 32, size: 10 });
  const chart = createLossChart(doc, {
    series: [{ id: 'cosine', label: 'cosine of the word’s two vectors', markers: true }],
    caption: '',
    yLabel: 'cosine',
    xLabel: 'layer',
  });
  const claim = h(doc, 'p', { class: 'ae-claim ae-gpt-bank-claim', 'aria-live': 'polite' });
  const message = h(doc, 'p', { class: 'ae-learn-message', role: 'alert', hidden: true });
  const compare = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-btn ae-gpt-bank-go',
      onclick: () => onBank({ a: a.input.value, b: b.input.value, word: word.input.value }),
    },
    TEXT.compare,
  );
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    h(
      doc,
      'div',
      { class: 'ae-gpt-pair ae-gpt-bank' },
      h(
        doc,
        'div',
        { class: 'ae-gpt-col' },
        a.el,
        b.el,
        h(doc, 'div', { class: 'ae-row' }, word.el, compare),
        message,
        claim,
      ),
      h(doc, 'div', { class: 'ae-gpt-col' }, chart.el),
    ),
  );
  const quiet = (input) => input.getRootNode?.().activeElement !== input;
  return {
    update({ bank, result, error }) {
      if (quiet(a.input)) a.input.value = bank.a;
      if (quiet(b.input)) b.input.value = bank.b;
      if (quiet(word.input)) word.input.value = bank.word;
      message.hidden = !error;
      message.textContent = error ? `Could not compare: ${error}` : '';
      if (!result) return;
      chart.update({ cosine: result.cosines.map((c, l) => [l, c]) }, { x: result.cosines.length - 1, y: 1 });
      const last = result.cosines.at(-1);
      const low = result.cosines.reduce((m, c, l) => (c < result.cosines[m] ? l : m), 0);
      claim.textContent = `After the embedding, “${bank.word}” has cosine ${fmt(result.cosines[0])} between the two sentences (the same token; only its position differs); after the last layer, ${fmt(last)}${low !== result.cosines.length - 1 && low !== 0 ? `; they are furthest apart after layer ${low} (${fmt(result.cosines[low])})` : ''}.`;
    },
  };
}

// The seeds' bank example on real weights: two sentences that share a word, and the cosine of
// that word's vector between them after the embedding and after every layer.
import { h, uid } from '../../ui/dom.js';
import { createLossChart } from '../../ui/loss-chart.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  title: 'The same word in two sentences: the raw cosine',
  help: 'What the measure above corrects. The word’s vector in the residual stream (at its last token) in each sentence, compared by cosine similarity after the embedding (layer 0: the same token at two positions) and after every layer: whether the sentences move the word apart.',
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
      const c = result.cosines;
      // Zoomed to the cosines' range (in tenths), so a change of a few hundredths shows.
      const y0 = Math.max(-1, Math.floor((Math.min(...c) - 0.05) * 10) / 10);
      chart.update({ cosine: c.map((v, l) => [l, v]) }, { x: c.length - 1, y: 1, y0 });
      const first = c[0],
        last = c.at(-1);
      const low = c.reduce((m, v, l) => (v < c[m] ? l : m), 0);
      const start = `After the embedding, “${bank.word}” has cosine ${fmt(first)} between the two sentences (the same token; only its position differs); after the last layer, ${fmt(last)}`;
      const furthest =
        low !== 0 && low !== c.length - 1 ? `; they are furthest apart after layer ${low} (${fmt(c[low])})` : '';
      // What the numbers support, said as they are: apart, or not.
      const verdict =
        last < first - 0.02
          ? ' — the sentences pulled the two vectors apart: the context changes the word’s vector.'
          : last > first + 0.02
            ? ' — the sentences did not pull them apart: the two vectors end more alike than they began, so in this model the context does not separate the two uses.'
            : ' — the two vectors end about as alike as they began (within 0.02), so in this model the context does not separate the two uses.';
      claim.textContent = start + furthest + verdict;
      claim.dataset.cosines = JSON.stringify(c); // what the sentence says, for checking it
    },
  };
}

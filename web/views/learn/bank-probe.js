// The bank task's probe: two sentences that differ only in the word that decides which bank
// (lib/learn/corpus.js BANK_CONTEXTS), read up to "bank", through the learned model — how much
// "bank" attends to that word (per head, step 0 → now) against chance, the same over the training
// sentences, a sentence that says what the numbers show (lib/learn/view.js bankClaim), how alike
// the two "bank" outputs are (cosine, and its curve over steps), the start from notebook 3's own
// weights with the table of where those numbers went, and the corpus, editable.
import { h, withSection } from '../../ui/dom.js';
import { fmt } from '../../lib/format.js';
import { createLossChart } from '../../ui/loss-chart.js';
import { BANK_SENTENCES } from '../../lib/learn/corpus.js';
import { bankClaim } from '../../lib/learn/view.js';
import { foldOnPhone } from '../../ui/fold.js';

const TEXT = {
  title: 'Where does “bank” look?',
  intro:
    'The model reads left to right: at “bank” it sees only the words before it. In each sentence one of them decides the sense (mud or loan below), and the next word depends on it (the bank crumbled, the bank charged interest), so predicting it pays to look back at that word. Two sentences that differ only there, read up to “bank”: the share of attention “bank” gives the deciding word per head, against chance (an even spread over what it can see), and how alike the two “bank” outputs are (cosine similarity',
  introFirst: ', as in the first section',
  introEnd: ').',
  fromSeed: 'Start from notebook 3’s weights',
  seedTitle: 'Where notebook 3’s hand-set weights go',
  seedIntro:
    'This model started from notebook 3’s numbers where the shapes allow: the embeddings of its five words (stream, mud, money, loan, bank) begin with the notebook’s four numbers, and head 1’s first query and key columns and first three value columns read them through the notebook’s W_query, W_key and W_value (the rest starts at random, as usual). Each cell: the notebook’s number → the learned one now. Training keeps what helps predict the next word and moves the rest.',
  sentences: 'Sentences (one per line)',
  more: 'Start from notebook 3’s weights, or edit the sentences',
  apply: 'Use these sentences',
};

/**
 * @param {Element} parent
 * @param {{doc, field: (label, input) => Element, button: (label, onclick) => Element,
 *          onFromSeed: (on) => void, onSentences: (text) => void}} ctx
 * @returns {{el, update({learn, bank, first, step, vocab, history}), clear()}}
 */
export function render(parent, { doc, app, field, button, onFromSeed, onSentences }) {
  const table = h(doc, 'table', { class: 'ae-learn-bank' });
  const claim = h(doc, 'p', { class: 'ae-prose ae-learn-bank-claim', 'aria-live': 'polite' });
  const chart = createLossChart(doc, {
    series: [{ id: 'cosine', label: 'cosine similarity of the two “bank” outputs', markers: true }],
    caption: 'How alike the two “bank”s are, by step',
    yLabel: 'cosine',
  });
  const fromSeedInput = h(doc, 'input', {
    type: 'checkbox',
    class: 'ae-learn-fromseed',
    onchange: (e) => onFromSeed(e.target.checked),
  });
  const seedTable = h(doc, 'table', { class: 'ae-learn-bank ae-learn-seed' });
  const seedBox = h(
    doc,
    'div',
    { class: 'ae-learn-seedbox', hidden: true },
    h(doc, 'h3', {}, TEXT.seedTitle),
    h(doc, 'p', {}, TEXT.seedIntro),
    h(doc, 'div', { class: 'ae-hm-scroll', tabindex: 0, role: 'region', 'aria-label': TEXT.seedTitle }, seedTable),
  );
  const sentencesArea = h(doc, 'textarea', { rows: 6, cols: 48, class: 'ae-learn-sentences', spellcheck: 'false' });
  const fromSeedField = field(TEXT.fromSeed, fromSeedInput);
  const sentencesField = field(TEXT.sentences, sentencesArea);
  const apply = button(TEXT.apply, () => onSentences(sentencesArea.value));
  const box = h(
    doc,
    'div',
    { class: 'ae-learn-bankbox', hidden: true },
    h(doc, 'h3', {}, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro, withSection(doc, 'contexts', TEXT.introFirst), TEXT.introEnd),
    claim,
    h(doc, 'div', { class: 'ae-hm-scroll', tabindex: 0, role: 'region', 'aria-label': TEXT.title }, table),
    chart.el,
    fromSeedField,
    seedBox,
    sentencesField,
    apply,
  );
  parent.append(box);
  if (app) foldOnPhone(app, TEXT.more, [fromSeedField, seedBox, sentencesField, apply]);
  const active = (el) => el.getRootNode?.().activeElement === el;

  return {
    el: box,
    /** learn: the Learn state (task, sentences, fromSeed); bank: the report's probe or null. */
    update({ learn, bank, first, step, vocab, history, until }) {
      box.hidden = learn.task !== 'bank';
      if (box.hidden) return;
      if (!active(fromSeedInput)) fromSeedInput.checked = Boolean(learn.fromSeed);
      if (!active(sentencesArea) && !sentencesArea.value)
        sentencesArea.value = (learn.sentences || BANK_SENTENCES).join('\n');
      if (!bank) return;
      claim.textContent = bankClaim(bank, vocab);
      drawTable(doc, table, bank, first, step, vocab);
      chart.update({ cosine: history }, { x: until, y: 1 });
      drawSeedWeights(doc, seedTable, seedBox, bank.seedWeights, step);
    },
    clear() {
      claim.textContent = '';
      table.replaceChildren();
      seedTable.replaceChildren();
      seedBox.hidden = true;
      chart.clear();
    },
  };
}

function drawTable(doc, table, bank, first, step, vocab) {
  const H = bank.contexts.river.onContext.length;
  const cells = (now, was, data) =>
    Array.from({ length: H }, (_, hh) =>
      h(
        doc,
        'td',
        { dataset: { ...data, head: hh, first: was?.[hh] ?? '', now: now[hh] } },
        `${fmt(was?.[hh] ?? NaN, 2)} → ${fmt(now[hh], 2)}`,
      ),
    );
  const row = (key) => {
    const c = bank.contexts[key];
    const words = c.tokens.map((t) => vocab[t]);
    return h(
      doc,
      'tr',
      {},
      h(doc, 'th', { scope: 'row' }, `${words.join(' ')}: “bank” on “${words[c.decider]}”`),
      ...cells(c.onContext, first?.contexts[key].onContext, { context: key }),
      h(
        doc,
        'td',
        { class: 'ae-learn-chance', dataset: { chance: c.chance } },
        `1/${c.bank + 1} = ${fmt(c.chance, 2)}`,
      ),
    );
  };
  const corpus = bank.corpus
    ? h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'row' }, `all ${bank.corpus.sentences} training sentences with a deciding word (mean)`),
        ...cells(bank.corpus.onContext, first?.corpus?.onContext, { context: 'corpus' }),
        h(doc, 'td', { class: 'ae-learn-chance', dataset: { chance: bank.corpus.chance } }, fmt(bank.corpus.chance, 2)),
      )
    : null;
  table.replaceChildren(
    h(doc, 'caption', {}, `Attention from “bank” to the deciding word, layer 1, step 0 → step ${step}`),
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'col' }, 'sentence'),
        ...Array.from({ length: H }, (_, hh) => h(doc, 'th', { scope: 'col' }, `head ${hh + 1}`)),
        h(doc, 'th', { scope: 'col' }, 'chance'),
      ),
    ),
    h(
      doc,
      'tbody',
      {},
      row('river'),
      row('finance'),
      ...(corpus ? [corpus] : []),
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'row' }, 'cosine similarity of the two “bank” outputs'),
        h(
          doc,
          'td',
          { class: 'ae-learn-cosine', colspan: H + 1, dataset: { first: first?.cosine ?? '', now: bank.cosine } },
          `${fmt(first?.cosine ?? NaN)} → ${fmt(bank.cosine)}`,
        ),
      ),
    ),
  );
}

/** Notebook 3's W_query, W_key, W_value block of head 1: the notebook's number → the learned one. */
function drawSeedWeights(doc, seedTable, seedBox, seedWeights, step) {
  seedBox.hidden = !seedWeights;
  if (!seedWeights) return;
  const { start, now } = seedWeights;
  const parts = [
    ['W_query', 'wq'],
    ['W_key', 'wk'],
    ['W_value', 'wv'],
  ];
  seedTable.replaceChildren(
    h(doc, 'caption', {}, `Head 1, layer 1: notebook 3 → step ${step}`),
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        h(doc, 'td'),
        ...parts.map(([name, key]) => h(doc, 'th', { scope: 'colgroup', colspan: start[key][0].length }, name)),
      ),
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'col' }, 'embedding number'),
        ...parts.flatMap(([, key]) => start[key][0].map((_, o) => h(doc, 'th', { scope: 'col' }, `column ${o + 1}`))),
      ),
    ),
    h(
      doc,
      'tbody',
      {},
      ...start.wq.map((_, i) =>
        h(
          doc,
          'tr',
          {},
          h(doc, 'th', { scope: 'row' }, String(i + 1)),
          ...parts.flatMap(([, key]) =>
            start[key][i].map((v, o) =>
              h(
                doc,
                'td',
                { dataset: { matrix: key, row: i, col: o, first: v, now: now[key][i][o] } },
                `${fmt(v, 2)} → ${fmt(now[key][i][o], 2)}`,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

// The bank task's probe: seed 003's two sentences through the learned model — how much "bank"
// attends to the word that says which bank (per head, step 0 → now), how alike the two "bank"
// outputs are (cosine, and its curve over steps), the start from the seed's own weights with the
// table of where those numbers went, and the corpus, editable.
import { h, withSection } from '../../ui/dom.js';
import { fmt } from '../../lib/format.js';
import { createLossChart } from '../../ui/loss-chart.js';
import { BANK_SENTENCES } from '../../lib/learn/corpus.js';

const TEXT = {
  title: 'Where does “bank” look?',
  intro:
    'The seed’s two contexts, stream bank mud and money bank loan, through the learned model: the share of attention “bank” gives the word before it (the one that says which bank), and how alike the two “bank” outputs are (cosine similarity',
  introFirst: ', as in the first section',
  introRest:
    '). At step 0 the model knows nothing (unless it starts from the seed’s weights, below); watch both move as it learns.',
  fromSeed: 'Start from the seed’s weights',
  seedTitle: 'Where the seed’s hand-set weights go',
  seedIntro:
    'This model started from seed 003’s numbers where the shapes allow: the five seed words’ embeddings begin with the seed’s four numbers, and head 1’s first query and key columns and first three value columns read them through the seed’s W_query, W_key and W_value (the rest starts at random, as usual). Each cell: the seed’s number → the learned one now. Training keeps what helps predict the next word and moves the rest.',
  sentences: 'Sentences (one per line)',
  apply: 'Use these sentences',
};

/**
 * @param {Element} parent
 * @param {{doc, field: (label, input) => Element, button: (label, onclick) => Element,
 *          onFromSeed: (on) => void, onSentences: (text) => void}} ctx
 * @returns {{el, update({learn, bank, first, step, vocab, history}), clear()}}
 */
export function render(parent, { doc, field, button, onFromSeed, onSentences }) {
  const table = h(doc, 'table', { class: 'ae-learn-bank' });
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
  const box = h(
    doc,
    'div',
    { class: 'ae-learn-bankbox', hidden: true },
    h(doc, 'h3', {}, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro, withSection(doc, 'contexts', TEXT.introFirst), TEXT.introRest),
    h(doc, 'div', { class: 'ae-hm-scroll', tabindex: 0, role: 'region', 'aria-label': TEXT.title }, table),
    chart.el,
    field(TEXT.fromSeed, fromSeedInput),
    seedBox,
    field(TEXT.sentences, sentencesArea),
    button(TEXT.apply, () => onSentences(sentencesArea.value)),
  );
  parent.append(box);
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
      drawTable(doc, table, bank, first, step, vocab);
      chart.update({ cosine: history }, { x: until, y: 1 });
      drawSeedWeights(doc, seedTable, seedBox, bank.seedWeights, step);
    },
    clear() {
      table.replaceChildren();
      seedTable.replaceChildren();
      seedBox.hidden = true;
      chart.clear();
    },
  };
}

function drawTable(doc, table, bank, first, step, vocab) {
  const H = bank.contexts.river.onContext.length;
  const row = (key, word) =>
    h(
      doc,
      'tr',
      {},
      h(
        doc,
        'th',
        { scope: 'row' },
        `${bank.contexts[key].tokens.map((t) => vocab[t]).join(' ')} → “bank” on “${word}”`,
      ),
      ...Array.from({ length: H }, (_, hh) =>
        h(
          doc,
          'td',
          {
            dataset: {
              context: key,
              head: hh,
              first: first?.contexts[key].onContext[hh] ?? '',
              now: bank.contexts[key].onContext[hh],
            },
          },
          `${fmt(first?.contexts[key].onContext[hh] ?? NaN, 2)} → ${fmt(bank.contexts[key].onContext[hh], 2)}`,
        ),
      ),
    );
  table.replaceChildren(
    h(doc, 'caption', {}, `Layer 1, step 0 → step ${step}`),
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'col' }, 'context'),
        ...Array.from({ length: H }, (_, hh) => h(doc, 'th', { scope: 'col' }, `head ${hh + 1}`)),
      ),
    ),
    h(
      doc,
      'tbody',
      {},
      row('river', 'stream'),
      row('finance', 'money'),
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'row' }, 'cosine similarity of the two “bank” outputs'),
        h(
          doc,
          'td',
          { class: 'ae-learn-cosine', colspan: H, dataset: { first: first?.cosine ?? '', now: bank.cosine } },
          `${fmt(first?.cosine ?? NaN)} → ${fmt(bank.cosine)}`,
        ),
      ),
    ),
  );
}

/** The seed's W_query, W_key, W_value block of head 1: the seed's number → the learned one. */
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
    h(doc, 'caption', {}, `Head 1, layer 1: the seed → step ${step}`),
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

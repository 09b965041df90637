// The bank example, measured right: a word used in several sentences of each sense (editable,
// one sentence per line), and per layer how much closer uses of the same sense are than uses of
// different senses, each against the baseline of unrelated tokens at that layer (raw cosines
// grow with depth in any real model: the baseline takes that out); the nearest-neighbour check;
// and the verdict sentence lib/real/sense-separation.js makes from the numbers.
import { h, uid } from '../../ui/dom.js';
import { createLossChart } from '../../ui/loss-chart.js';
import { fmt } from '../../lib/format.js';
import { senseChartSeries } from '../../lib/real/sense-separation.js';

const TEXT = {
  title: 'The same word in different senses, measured against the baseline',
  help: 'Deep in a model any two tokens’ vectors point in similar directions, so a raw cosine between two uses of a word says little. Here each use’s vector (the stream at the word’s last token) is compared with every other use, and both are measured against the cosine of unrelated tokens of the same sentences at that layer (the baseline).',
  word: 'Word',
  sense: (name) => `Sentences using it as “${name}”, one per line`,
  compare: 'Measure',
  same: 'same sense − baseline',
  different: 'different senses − baseline',
  y: 'cosine above the baseline',
  x: 'layer (0: embedding)',
  nearest: 'Nearest other use of the same sense',
  layer: (l) => (l === 0 ? 'embedding' : `after block ${l}`),
};

/**
 * @param {Element} parent
 * @param {{doc, onMeasure(spec)}} ctx  spec: {word, senses: [{name, sentences}]}
 * @returns {{update({spec, senses})}}
 */
export function render(parent, { doc, onMeasure }) {
  const wordId = uid('sense');
  const word = h(doc, 'input', { type: 'text', id: wordId, class: 'ae-sense-word', maxlength: 32, size: 10 });
  const boxes = h(doc, 'div', { class: 'ae-sense-boxes' });
  const fields = [];
  const chart = createLossChart(doc, {
    series: [
      { id: 'same', label: TEXT.same, markers: true },
      { id: 'different', label: TEXT.different, markers: true },
    ],
    caption: '',
    yLabel: TEXT.y,
    xLabel: TEXT.x,
  });
  const verdict = h(doc, 'p', { class: 'ae-claim ae-sense-verdict', 'aria-live': 'polite' });
  const table = h(doc, 'table', { class: 'ae-sense-table' });
  const message = h(doc, 'p', { class: 'ae-learn-message', role: 'alert', hidden: true });
  const read = () => ({
    word: word.value.trim(),
    senses: fields.map(({ name, area }) => ({
      name,
      sentences: area.value
        .split('\n')
        .map((t) => t.trim())
        .filter(Boolean),
    })),
  });
  const go = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn ae-sense-go', onclick: () => onMeasure(read()) },
    TEXT.compare,
  );
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    h(doc, 'div', { class: 'ae-row' }, h(doc, 'label', { for: wordId }, TEXT.word), ' ', word, go),
    boxes,
    message,
    verdict,
    h(
      doc,
      'div',
      { class: 'ae-gpt-pair ae-sense-pair' },
      h(doc, 'div', { class: 'ae-gpt-col' }, chart.el),
      h(doc, 'div', { class: 'ae-gpt-col' }, table),
    ),
  );
  const quiet = (el) => el.getRootNode?.().activeElement !== el;
  return {
    update({ spec, senses }) {
      if (fields.length !== spec.senses.length) buildFields(doc, boxes, fields, spec);
      if (quiet(word)) word.value = spec.word;
      spec.senses.forEach((s, i) => quiet(fields[i].area) && (fields[i].area.value = s.sentences.join('\n')));
      message.hidden = !senses?.error;
      message.textContent = senses?.error ? `Could not measure: ${senses.error}` : '';
      const r = senses?.result;
      if (!r) return;
      const { same, different, y0, y1 } = senseChartSeries(r);
      chart.update({ same, different }, { x: r.layers.length - 1, y: y1, y0 });
      verdict.textContent = r.verdict.sentence;
      verdict.dataset.outcome = r.verdict.outcome;
      verdict.dataset.layers = JSON.stringify(
        r.layers.map((m) => [m.same, m.different, m.baseline.mean, m.z, m.nearest.correct]),
      );
      drawTable(doc, table, r);
    },
  };
}

// A box of sentences per sense (fields: [{name, area}], rebuilt in place).
function buildFields(doc, boxes, fields, spec) {
  boxes.replaceChildren();
  fields.length = 0;
  for (const s of spec.senses) {
    const id = uid('sense');
    const area = h(doc, 'textarea', {
      id,
      rows: s.sentences.length,
      class: 'ae-sense-sentences',
      spellcheck: 'false',
    });
    boxes.append(h(doc, 'div', { class: 'ae-sense-field' }, h(doc, 'label', { for: id }, TEXT.sense(s.name)), area));
    fields.push({ name: s.name, area });
  }
}

// The nearest-neighbour table: per layer the separation, its size against the baseline's spread,
// and how often the nearest other use has the same sense (the verdict's layer marked).
function drawTable(doc, table, r) {
  table.replaceChildren(
    h(doc, 'caption', {}, TEXT.nearest),
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        h(doc, 'th', { scope: 'col' }, 'layer'),
        h(doc, 'th', { scope: 'col' }, 'same − different'),
        h(doc, 'th', { scope: 'col' }, '× baseline spread'),
        h(doc, 'th', { scope: 'col' }, 'nearest right'),
      ),
    ),
    h(
      doc,
      'tbody',
      {},
      ...r.layers.map((m) =>
        h(
          doc,
          'tr',
          { class: m.layer === r.verdict.layer ? 'ae-sense-best' : null },
          h(doc, 'th', { scope: 'row' }, TEXT.layer(m.layer)),
          h(doc, 'td', {}, fmt(m.separation, 3)),
          h(doc, 'td', {}, fmt(m.z, 2)),
          h(doc, 'td', {}, `${m.nearest.correct} / ${m.nearest.total} (chance ${fmt(100 * m.nearest.chance, 0)}%)`),
        ),
      ),
    ),
  );
}

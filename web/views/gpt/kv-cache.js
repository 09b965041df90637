// Generation one token at a time with the KV cache drawn: each new token's query row is compared
// with the keys of every token before it — kept from earlier steps, not computed again — and its
// own; the multiply-adds of the step with the cache and without it (recomputing the whole text).
import { h } from '../../ui/dom.js';
import { createHeatmap } from '../../ui/heatmap.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  title: 'Generating, one token at a time, with a KV cache',
  help: 'A model writes by predicting one token, appending it and predicting again. Every earlier token’s keys and values do not change, so they are kept (the cache); each step computes only the new token’s query, key and value and compares its query with every key.',
  one: 'Generate one token',
  ten: 'Ten more',
  reset: 'Start again from the sentence',
};

/**
 * @param {Element} parent
 * @param {{doc, onStep(count), onReset()}} ctx
 * @returns {{update({generated, step, chosen, theme}), clear()}}
 */
export function render(parent, { doc, onStep, onReset }) {
  const text = h(doc, 'p', { class: 'ae-gpt-generated', 'aria-live': 'polite' });
  const cost = h(doc, 'p', { class: 'ae-claim ae-gpt-macs' });
  const row = createHeatmap(doc, {
    id: 'gpt-kv-row',
    caption: '',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    kind: 'weights',
  });
  row.el.hidden = true;
  const button = (label, onclick, cls) => h(doc, 'button', { type: 'button', class: `ae-btn ${cls}`, onclick }, label);
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    h(
      doc,
      'div',
      { class: 'ae-row' },
      button(TEXT.one, () => onStep(1), 'ae-gpt-step'),
      button(TEXT.ten, () => onStep(10), 'ae-gpt-step10'),
      button(TEXT.reset, () => onReset(), 'ae-gpt-reset'),
    ),
    text,
    cost,
    row.el,
  );
  return {
    update({ sentence, generated, step, chosen, totals }) {
      text.replaceChildren(
        sentence,
        ...generated.map((g) => h(doc, 'mark', { class: 'ae-gpt-new', title: `id ${g.token}` }, g.text)),
      );
      if (!step) {
        cost.textContent = '';
        row.el.hidden = true;
        return;
      }
      const ratio = step.macs.full / step.macs.cached;
      cost.textContent =
        `Step at position ${step.position}: the new token’s query against ${step.keys} keys — ${step.keys - 1} from the cache, its own computed now. ` +
        `${fmt(step.macs.cached / 1e6, 2)} million multiply-adds with the cache, ${fmt(step.macs.full / 1e6, 2)} million recomputing all ${step.keys} tokens (${fmt(ratio, 1)}×)` +
        (step.recomputed ? '; the context was full, so this step cropped the text and recomputed it.' : '.') +
        ` So far: ${fmt(totals.cached / 1e6, 1)} against ${fmt(totals.full / 1e6, 1)} million.`;
      const [L, H, K] = step.attention.shape;
      const l = Math.min(chosen.layer, L - 1),
        hh = Math.min(chosen.head, H - 1);
      const w = Array.from(step.attention.data.subarray((l * H + hh) * K, (l * H + hh + 1) * K));
      row.el.hidden = false;
      row.update({
        caption: `Layer ${l + 1}, head ${hh + 1}: the new token’s weights`,
        rowLabels: [`q ${step.text.replace(/ /g, '␣')}`],
        colLabels: step.keyLabels.map((t, j) => (j === K - 1 ? `${t} (new)` : t)),
        values: [w],
        digits: 2,
        mark: (_, j) => j === K - 1,
      });
    },
    clear() {
      text.textContent = '';
      cost.textContent = '';
      row.el.hidden = true;
    },
  };
}

// Order does not matter to attention (seed 001's closing remark, made visible): shuffle the
// tokens of the focused sentence and every output row moves with its token, unchanged. Attention
// compares vectors, not places, so a model has to be told where each token stands (positional
// embeddings: nanoGPT's wpe, the Learn section's models). With the causal mask on it is no longer
// true, because the mask is the one thing that knows about positions. Both results by the engine
// (the reversed run: lib/compute.js reversedRun).
import { h, withSection } from '../ui/dom.js';
import { indexLabels } from '../lib/format.js';
import { orderClaim } from '../lib/claims/order.js';

const TEXT = {
  title: 'Order does not matter (until you add positions)',
  intro:
    'Reverse the sentence and run attention again. Each token gets the same output as before, only in its new place: the dot products, the softmax and the weighted sum never look at where a token stands. That is why a transformer adds a position vector to every token before its first layer (nanoGPT’s wpe: the position embeddings',
  introLearn: '; the models in the Learn section below have them',
  introEnd: ').',
};

export function render(section, app) {
  const { doc } = app;
  const mk = (id, caption) => app.heatmap({ id, caption, rowLabels: [], colLabels: [], values: [[0]] });
  const original = mk('order-original', '');
  const reversed = mk('order-reversed', '');
  const verdict = h(doc, 'p', { class: 'ae-verdict', 'aria-live': 'polite' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro, withSection(doc, 'learn', TEXT.introLearn), TEXT.introEnd),
    h(doc, 'div', { class: 'ae-row' }, original.el, reversed.el),
    verdict,
  );
  return {
    update() {
      const { state, results } = app;
      const entry = results.contexts[state.focus];
      if (!entry?.trace) return;
      const tokens = entry.tokens;
      const { tokens: back, output: out, error } = results.reversed;
      const mine = entry.trace.output;
      verdict.textContent = orderClaim(mine, results.reversed, state.options.causal);
      if (error) return;
      const cols = indexLabels(mine[0].length, 'd');
      original.update({
        context: state.focus,
        values: mine,
        rowLabels: tokens,
        colLabels: cols,
        caption: `output, “${state.focus}” as written`,
      });
      reversed.update({ values: out, rowLabels: back, colLabels: cols, caption: 'output, tokens reversed' });
    },
  };
}

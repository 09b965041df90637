// What happens after "output = weights · V", in a whole transformer, with a real model's numbers:
// the heads' outputs are mixed by the output projection and added to the token's vector (the
// residual stream); an MLP transforms each token on its own and is added too; the next layer does
// it all again; after the last, a LayerNorm and the unembedding give logits, and a softmax with a
// temperature gives the next token's probabilities. The numbers are the project's own small
// model's (views/gpt.js opens it) on the last token of the sentence of "A real model".
import { h, withSection, withoutSection } from '../ui/dom.js';
import { slider } from '../ui/controls.js';
import { fmt, indexLabels } from '../lib/format.js';
import { defaultGpt } from '../lib/real/gpt-state.js';
import { createNextRun } from '../lib/real/next-run.js';
import { realModelOf } from '../tools/real-model.js';
import { whenNear } from '../ui/on-screen.js';
import { isNarrow } from '../ui/fold.js';

const TEXT = {
  title: 'What happens next',
  intro: (sentence) =>
    `Self-attention’s output is not the end. In a transformer a LayerNorm comes before attention, and attention’s output goes through four more steps; then the block repeats, and the last layer’s vectors become a prediction of the next token. Below, a real model’s numbers — this project’s small one, trained on English text; it writes text, so each token attends only to the ones before it — on the last token of “${sentence}” (the first 8 of each vector’s numbers).`,
  steps: [
    [
      'Output projection',
      'the heads’ outputs, side by side, times W_O (“Many heads”): what attention adds to the token (its “branch”)',
    ],
    [
      'Add to the residual stream',
      'the token’s vector plus that branch: attention changes the vector, it does not replace it',
    ],
    ['MLP', 'LayerNorm, then two linear layers with a GELU between, on this token alone: another branch'],
    ['Add again', 'the vector after block 1; each further block repeats attention and MLP on it'],
  ],
  final:
    'After the last layer: LayerNorm, then a dot product with every token’s embedding (the logits), divided by a temperature, then a softmax — the next token’s probabilities. This is the sampling temperature: it acts on the model’s prediction, not inside attention.',
  temperature: 'Temperature',
  waiting: 'The model opens as this comes on screen.',
  failed: (message) => `The model could not run: ${message}`,
  // The rows of the vectors' heatmap: lib/real/view.js lastTokenThroughBlocks's vectors.
  rows: (L) => [
    ['x: the token’s vector (embedding + position)', 'x0'],
    ['the attention branch (after W_O)', 'attention'],
    ['x + attention', 'mid'],
    ['the MLP branch', 'mlp'],
    ['after block 1', 'x1'],
    [`after block ${L}, the last`, 'xL'],
  ],
  caption: (token, show, C) => `“${token}” through the model: the first ${show} of ${C} numbers of each vector`,
};

export function render(section, app) {
  const { doc, store } = app;
  const real = realModelOf(app);
  const gptOf = () => store.get().gpt || defaultGpt();
  const figure = layout(section, app, gptOf);
  const runs = createNextRun({ real, gpt: gptOf, state: () => store.get() });
  async function run() {
    try {
      const picture = await runs.run({ show: () => (isNarrow(app) ? 4 : 8) }); // a phone shows as many as fit
      if (picture) draw(doc, figure, picture);
    } catch (error) {
      figure.status.textContent = TEXT.failed(error.message);
    }
  }
  // The model opens once the section comes near the screen.
  const near = whenNear(app.win, section, () => run(), { margin: '300px 0px' });
  return {
    update() {
      const sentence = gptOf().sentence;
      const { intro } = figure;
      if (intro.dataset.sentence !== sentence) {
        intro.dataset.sentence = sentence;
        intro.textContent = TEXT.intro(sentence);
      }
      if (near.started) run();
    },
    destroy: () => near.stop(),
  };
}

/** The section's elements, appended to it: {status, intro, claim, vectors, temperature, bars}. */
function layout(section, app, gptOf) {
  const { doc, store } = app;
  const status = h(doc, 'p', { class: 'ae-help' }, TEXT.waiting);
  const intro = h(doc, 'p', { class: 'ae-prose' });
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  const steps = h(
    doc,
    'ol',
    { class: 'ae-next-steps ae-prose' },
    TEXT.steps.map(([name, what]) => h(doc, 'li', {}, h(doc, 'strong', {}, name), ': ', what)),
  );
  const vectors = app.heatmap({ id: 'next-vectors', caption: '', rowLabels: [], colLabels: [], values: [[0]] });
  vectors.el.hidden = true; // until the model has run
  const temperature = slider(doc, {
    label: TEXT.temperature,
    min: 0.1,
    max: 2,
    step: 0.05,
    digits: 2,
    onInput: (v) => store.set({ gpt: { ...gptOf(), temperature: v } }),
  });
  const bars = h(doc, 'ol', { class: 'ae-gpt-bars' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    intro,
    steps,
    status,
    // The block's vectors beside what the last layer's vector becomes (one column on a phone).
    h(
      doc,
      'div',
      { class: 'ae-gpt-pair' },
      h(doc, 'div', { class: 'ae-gpt-col' }, vectors.el, claim),
      h(
        doc,
        'div',
        { class: 'ae-gpt-col' },
        h(doc, 'p', { class: 'ae-prose' }, TEXT.final),
        h(doc, 'div', { class: 'ae-knobs' }, temperature.el),
        bars,
      ),
    ),
  );
  return { status, intro, claim, vectors, temperature, bars };
}

/** One run's picture (lib/real/next-run.js nextPicture) into the figure. */
function draw(doc, figure, p) {
  const { status, claim, vectors, temperature, bars } = figure;
  status.textContent = p.said.status;
  const rows = TEXT.rows(p.layers);
  vectors.el.hidden = false;
  vectors.update({
    values: rows.map(([, name]) => p.vectors[name]),
    rowLabels: rows.map(([label]) => label),
    colLabels: indexLabels(p.show, 'd'),
    caption: TEXT.caption(p.token, p.show, p.width),
  });
  claim.textContent = p.said.claim;
  temperature.sync(p.temperature);
  bars.replaceChildren(
    ...p.bars.map(({ id, p: prob, text, title, percent }) =>
      h(
        doc,
        'li',
        { class: 'ae-gpt-bar', dataset: { id, p: prob } },
        h(doc, 'span', { class: 'ae-gpt-bar-token', ...(title ? { title } : {}) }, text),
        h(doc, 'span', { class: 'ae-gpt-bar-fill', style: `width: ${percent}%` }),
        h(doc, 'span', { class: 'ae-gpt-bar-p' }, fmt(prob, 3)),
      ),
    ),
    ...(p.leftOut ? [h(doc, 'li', { class: 'ae-help ae-gpt-left-out' }, p.leftOut)] : []),
  );
}

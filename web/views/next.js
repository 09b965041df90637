// What happens after "output = weights · V", in a whole transformer, with a real model's numbers:
// the heads' outputs are mixed by the output projection and added to the token's vector (the
// residual stream); an MLP transforms each token on its own and is added too; the next layer does
// it all again; after the last, a LayerNorm and the unembedding give logits, and a softmax with a
// temperature gives the next token's probabilities. The numbers are the project's own small
// model's (views/gpt.js opens it) on the last token of the sentence of "A real model".
import { h, withSection, withoutSection } from '../ui/dom.js';
import { slider } from '../ui/controls.js';
import { fmt } from '../lib/format.js';
import { defaultGpt } from '../lib/real/gpt-state.js';
import { lastTokenThroughBlocks, listedCandidates } from '../lib/real/view.js';
import { nextTexts } from '../lib/claims/next.js';
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
};

export function render(section, app) {
  const { doc, store } = app;
  const real = realModelOf(app);
  const gptOf = () => store.get().gpt || defaultGpt();
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

  let seen = null;
  async function run() {
    const g = gptOf();
    const key = JSON.stringify([g.model, g.sentence, g.temperature, real.info?.name]);
    if (key === seen) return;
    seen = key;
    try {
      await real.ensure(store.get());
      const encoded = await real.call('encode', g.sentence);
      const t = await real.call('trace', encoded.ids, { layer: 0, head: 0 });
      const next = await real.call('next', t.logits, { temperature: g.temperature, top: 5 });
      if (key !== seen) return;
      draw(g, encoded, t, next);
    } catch (error) {
      seen = null;
      status.textContent = `The model could not run: ${error.message}`;
    }
  }

  function draw(g, encoded, t, next) {
    const C = t.width,
      L = t.L;
    const show = Math.min(isNarrow(app) ? 4 : 8, C); // a phone shows as many as fit
    const { x0, attention: attnBranch, mid, mlp: mlpBranch, x1, xL, lengths } = lastTokenThroughBlocks(t);
    const token = encoded.pieces[t.T - 1].display.replace(/ /g, '␣');
    const said = nextTexts(token, t, lengths);
    status.textContent = said.status;
    const rows = [
      ['x: the token’s vector (embedding + position)', x0],
      ['the attention branch (after W_O)', attnBranch],
      ['x + attention', mid],
      ['the MLP branch', mlpBranch],
      ['after block 1', x1],
      [`after block ${L}, the last`, xL],
    ];
    vectors.el.hidden = false;
    vectors.update({
      values: rows.map(([, v]) => v.slice(0, show)),
      rowLabels: rows.map(([label]) => label),
      colLabels: Array.from({ length: show }, (_, c) => `d${c}`),
      caption: `“${token}” through the model: the first ${show} of ${C} numbers of each vector`,
    });
    claim.textContent = said.claim;
    temperature.sync(g.temperature);
    const max = next.topProbs[0] || 1;
    const listed = listedCandidates(next, { temperature: g.temperature });
    bars.replaceChildren(
      ...listed.shown.map(({ id, p, text, title }) =>
        h(
          doc,
          'li',
          { class: 'ae-gpt-bar', dataset: { id, p } },
          h(doc, 'span', { class: 'ae-gpt-bar-token', ...(title ? { title } : {}) }, text),
          h(doc, 'span', { class: 'ae-gpt-bar-fill', style: `width: ${(100 * p) / max}%` }),
          h(doc, 'span', { class: 'ae-gpt-bar-p' }, fmt(p, 3)),
        ),
      ),
      ...(listed.leftOut ? [h(doc, 'li', { class: 'ae-help ae-gpt-left-out' }, listed.leftOut)] : []),
    );
  }

  // The model opens once the section comes near the screen.
  const near = whenNear(app.win, section, () => run(), { margin: '300px 0px' });
  return {
    update() {
      const sentence = gptOf().sentence;
      if (intro.dataset.sentence !== sentence) {
        intro.dataset.sentence = sentence;
        intro.textContent = TEXT.intro(sentence);
      }
      if (near.started) run();
    },
    destroy: () => near.stop(),
  };
}

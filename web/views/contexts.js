// Two sentences, one word (seed 003): "bank" has the same embedding in both sentences and the
// same vector after a plain linear layer; self-attention mixes each token with its sentence, so
// the two "bank"s come out different. The cosine table says by how much, beside a plain average
// of each sentence — which shows honestly what these hand-set weights do and do not do: they
// spread "bank"'s attention almost evenly, so the two differ because their neighbours differ.
// The matrices behind it (X, X·W, W) are one click deeper.
import { h } from '../ui/dom.js';
import { indexLabels, sizeText } from '../lib/format.js';
import { setValue } from '../lib/state.js';
import { contrastClaims } from '../lib/contrast.js';
import * as cosineTable from './contexts/cosines.js';
import * as sentence from './contexts/sentence.js';

const TEXT = {
  title: 'Two sentences, one word',
  intro:
    '“bank” means one thing next to “stream” and “mud”, another next to “money” and “loan”, yet an embedding table gives it one vector in both, and a layer that treats each token on its own (a plain linear layer, X·W) keeps the two equal. Self-attention replaces each token’s vector with a weighted mix of its sentence — the lines show the weights — so the same word can come out different.',
  details: 'The numbers behind it: X, X·W and W',
  why: 'Why the two “bank”s differ',
  learnPointer:
    'These weights were set by hand. A model that learns them does more: in Learn (“Bank, learned”), one head comes to put about 0.96 of “bank”’s attention on the word that says which bank it is.',
  goLearn: 'Go to Learn',
};

export function render(section, app) {
  const { doc } = app;
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  const honest = h(doc, 'p', { class: 'ae-prose ae-contrast-honest' });
  // The learned bank model is on this page's Learn section; where there is none, nothing to point at.
  const pointer = app.sections.some((s) => s.id === 'learn')
    ? h(
        doc,
        'p',
        { class: 'ae-prose ae-help' },
        TEXT.learnPointer,
        ' ',
        h(doc, 'button', { type: 'button', class: 'ae-link', onclick: () => app.goTo('learn') }, TEXT.goLearn),
      )
    : null;
  const grid = h(doc, 'div', { class: 'ae-two' });
  const intro = h(doc, 'p', { class: 'ae-prose' }, TEXT.intro);
  const title = h(doc, 'h2', { class: 'ae-prose' }, TEXT.title);
  section.append(...(app.embedded ? [title, claim, grid] : [title, intro, claim, grid]));
  const cosines = cosineTable.render(section, { doc });
  // A figure in a post keeps its claim, picture and numbers in view, and the page's two paragraphs
  // one click deeper (issue 33: the bare example="river" figure was 1,643 px tall on a phone).
  const why = h(doc, 'details', { class: 'ae-details ae-prose ae-contrast-why' }, h(doc, 'summary', {}, TEXT.why));
  if (app.embedded) why.append(intro, honest);
  section.append(...(app.embedded ? [why] : [honest]), ...(pointer ? [pointer] : []));

  // One click deeper: the embeddings, the plain linear layer and its editable W.
  const details = h(doc, 'div', { class: 'ae-row' });
  const wMap = app.heatmap({
    id: 'w',
    caption: 'W, the plain linear layer (D × 3)',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    editable: {
      commit: (i, j, v) => app.edit((s) => setValue(s, { matrix: 'w' }, i, j, v)),
      error: app.notify,
    },
  });
  section.append(
    h(doc, 'details', { class: 'ae-details ae-contrast-details' }, h(doc, 'summary', {}, TEXT.details), details),
  );
  const sentences = {};

  return {
    update() {
      const { state, results } = app;
      for (const [name, entry] of Object.entries(results.contexts))
        (sentences[name] ||= sentence.render(grid, details, app, name)).update(state, entry);
      details.append(wMap.el); // after every context's matrices
      const w = state.weights.w;
      wMap.update({
        values: w,
        rowLabels: indexLabels(w.length, 'd'),
        colLabels: indexLabels(w[0].length, 'c'),
        caption: `W, the plain linear layer (${sizeText(w)})`,
      });
      if (pointer) pointer.hidden = !(state.view.includes('all') || state.view.includes('learn'));
      const said = contrastClaims(state, results);
      claim.textContent = said.claim;
      honest.textContent = said.honest;
      honest.hidden = !said.honest;
      cosines.update(results);
    },
  };
}

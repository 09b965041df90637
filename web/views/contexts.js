// Two sentences, one word (seed 003), the page's opening: "bank" has one embedding in both
// sentences and one vector after a plain linear layer; self-attention mixes each token with its
// sentence, and with the page's default weights "bank" looks for the word that says which bank it
// is, so the two "bank"s come out apart. First the picture (where "bank" looks, as lines with
// their weights), then the sentence its numbers support (lib/claims/contexts.js), then the
// numbers (the outputs and the cosine table); what the weights are, said plainly, with the
// notebook's own weights a click away. The matrices behind it (X, X·W, W) are one click deeper.
import { h } from '../ui/dom.js';
import { indexLabels, sizeText } from '../lib/format.js';
import { setValue, resetTo } from '../lib/state.js';
import { CONTEXT_SEEKING, presetApplies, withNotebookWeights, withPreset } from '../lib/presets.js';
import { contextClaims } from '../lib/claims/contexts.js';
import * as cosineTable from './contexts/cosines.js';
import * as sentence from './contexts/sentence.js';

const TEXT = {
  title: 'Two sentences, one word',
  intro:
    '“bank” means one thing next to “stream” and “mud”, another next to “money” and “loan”, yet it enters a model as one vector. Self-attention lets each word take in the words around it, in shares called attention weights:',
  details: 'The numbers behind it: the outputs, X, X·W and W',
  notebook: 'The notebook’s weights',
  contextSeeking: 'Weights that look for the context word',
  reset: 'Reset to the start',
  why: 'Why the two “bank”s differ',
  goLearn: 'Go to Learn',
};

export function render(section, app) {
  const { doc } = app;
  const looks = h(doc, 'p', { class: 'ae-claim ae-contrast-looks', 'aria-live': 'polite' });
  const cosineClaim = h(doc, 'p', { class: 'ae-claim ae-contrast-cosine' });
  const honest = h(doc, 'p', { class: 'ae-prose ae-contrast-honest' });
  const grid = h(doc, 'div', { class: 'ae-contrast-grid' });
  // The outputs the cosines compare, one click deeper with the matrices behind them.
  const outputs = h(doc, 'div', { class: 'ae-row ae-contrast-outputs' });
  // The hand-set weights a click away: the notebook's own, or back to the context-seeking ones.
  const examples = app.engine.examples();
  const button = (text, transition) =>
    h(doc, 'button', { type: 'button', class: 'ae-btn', onclick: () => app.edit(transition) }, text);
  const notebookBtn = button(TEXT.notebook, (s) => withNotebookWeights(s, examples));
  const seekingBtn = button(TEXT.contextSeeking, (s) => withPreset(s, CONTEXT_SEEKING));
  const resetBtn = button(TEXT.reset, resetTo(app.defaults));
  const learnBtn = app.sections.some((s) => s.id === 'learn')
    ? h(doc, 'button', { type: 'button', class: 'ae-link', onclick: () => app.goTo('learn') }, TEXT.goLearn)
    : null;
  const choices = h(
    doc,
    'div',
    { class: 'ae-row ae-presets ae-contrast-choices' },
    notebookBtn,
    seekingBtn,
    resetBtn,
    learnBtn,
  );
  const title = h(doc, 'h2', { class: 'ae-prose' }, TEXT.title);
  const intro = h(doc, 'p', { class: 'ae-prose ae-contrast-intro' }, TEXT.intro);
  if (app.embedded) {
    // A figure in a post keeps its claim, picture and numbers in view, and the page's two
    // paragraphs one click deeper (issue 33: the bare example="river" figure was 1,643 px tall
    // on a phone).
    const why = h(doc, 'details', { class: 'ae-details ae-prose ae-contrast-why' }, h(doc, 'summary', {}, TEXT.why));
    why.append(intro, honest);
    section.append(title, looks, grid, cosineClaim, choices, why);
  } else section.append(title, intro, looks, grid, cosineClaim, honest, choices);
  const cosines = cosineTable.render(grid, { doc });

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
    h(
      doc,
      'details',
      { class: 'ae-details ae-contrast-details' },
      h(doc, 'summary', {}, TEXT.details),
      outputs,
      details,
    ),
  );
  const sentences = {};

  return {
    update() {
      const { state, results } = app;
      const said = contextClaims(state, results, examples);
      for (const [name, entry] of Object.entries(results.contexts))
        (sentences[name] ||= sentence.render({ grid, outputs, details }, app, name)).update(
          state,
          entry,
          said.outputCaption,
        );
      grid.append(cosines.el); // after every sentence's picture
      details.append(wMap.el); // after every context's matrices
      const w = state.weights.w;
      wMap.update({
        values: w,
        rowLabels: indexLabels(w.length, 'd'),
        colLabels: indexLabels(w[0].length, 'c'),
        caption: `W, the plain linear layer (${sizeText(w)})`,
      });
      looks.textContent = said.looks.join(' ') || said.claim;
      cosineClaim.textContent = said.cosine;
      cosineClaim.hidden = !said.cosine;
      honest.textContent = said.honest;
      section.dataset.weights = said.kind;
      if (learnBtn) learnBtn.hidden = !(state.view.includes('all') || state.view.includes('learn'));
      const applies = presetApplies(state, CONTEXT_SEEKING);
      notebookBtn.hidden = said.kind === 'notebook' || !applies;
      seekingBtn.hidden = said.kind === 'context-seeking' || !applies;
      resetBtn.hidden = applies;
      choices.hidden = app.controls === 'none';
      cosines.update(results);
    },
  };
}

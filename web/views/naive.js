// Naive scores (seed 003's first attempt): compare the embeddings themselves, X·Xᵀ, turn each row
// into weights with a softmax, and mix the embeddings with them. It works, and it shows what goes
// wrong: a vector is most similar to itself, so every token gives itself the largest score —
// which is why attention learns separate queries and keys (next section).
import { h } from '../ui/dom.js';
import { setValue } from '../lib/state.js';
import { highlightRows } from '../lib/focus.js';
import { naiveClaim } from '../lib/claims/naive.js';
import { foldOnPhone } from '../ui/fold.js';

const TEXT = {
  title: 'Naive scores: compare the embeddings themselves',
  intro:
    'The smallest useful idea: compare each token with every token of its sentence, turn the comparisons into weights, and take a weighted mix. A dot product is a quick comparison — large when two vectors point the same way — so the scores can simply be X·Xᵀ: row i, column j is token i’s embedding dotted with token j’s.',
  problem:
    'Comparing a vector with itself gives a large dot product, so a token tends to find itself the most similar. To let a word look for something other than itself — “bank” looking for the word that says which bank — attention compares two different views of each token: what it looks for (a query) and what it offers (a key).',
  x: 'Embeddings X: one row per token; the same word always gets the same row.',
};

export function render(section, app) {
  const { doc } = app;
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    claim,
  );
  const figures = {};
  const add = (key, opts) => {
    figures[key] = app.heatmap({ rowLabels: [], colLabels: [], values: [[0]], ...opts, id: opts.id || key });
    return figures[key].el;
  };
  const xCard = h(
    doc,
    'div',
    { class: 'ae-fig', 'data-view': 'x' },
    add('x', {
      caption: 'X: embeddings',
      shows: { matrix: 'x', tokenRows: true },
      editable: {
        commit: (i, j, v) => app.edit((s) => setValue(s, { word: s.contexts[s.focus][i] }, i, j, v)),
        error: app.notify,
      },
    }),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.x),
  );
  const naiveCard = h(
    doc,
    'div',
    { class: 'ae-fig ae-row', 'data-view': 'naive' },
    add('naive-scores', { caption: 'scores X·Xᵀ' }),
    add('naive-weights', { caption: 'weights: softmax of each row', kind: 'weights' }),
  );
  section.append(
    h(doc, 'div', { class: 'ae-row' }, xCard, naiveCard),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.problem),
  );
  // On a phone: the scores, where each token finds itself; the embeddings and the weights one tap deeper.
  foldOnPhone(app, 'The embeddings X and the weights they give', [xCard, figures['naive-weights'].el]);

  return {
    update() {
      const { state, results } = app;
      const view = state.view;
      const all = view.includes('all');
      xCard.hidden = !(all || view.includes('x'));
      naiveCard.hidden = !(all || view.includes('naive'));
      const entry = results.contexts[state.focus];
      if (!entry) return;
      const tokens = entry.tokens;
      const ctx = state.focus;
      const hl = highlightRows(state, tokens);
      figures.x.update({
        context: ctx,
        values: entry.x,
        rowLabels: tokens,
        colLabels: entry.x[0].map((_, j) => `d${j}`),
        highlightRows: hl,
        caption: `X of “${ctx}”: embeddings`,
      });
      if (!entry.naive) {
        claim.textContent = naiveClaim(null, tokens, 0);
        return;
      }
      const { scores, weights } = entry.naive;
      const tt = {
        context: ctx,
        rowLabels: tokens,
        colLabels: tokens,
        highlightRows: hl,
        cornerLabel: 'token \\ token',
      };
      const diagonal = (i, j) => i === j;
      figures['naive-scores'].update({ ...tt, values: scores, mark: diagonal });
      figures['naive-weights'].update({ ...tt, values: weights, mark: diagonal });
      // The claim, from the numbers: in how many rows is the token itself the best match?
      claim.textContent = naiveClaim(entry.naive, tokens, hl.length ? hl[0] : Math.min(1, tokens.length - 1));
    },
  };
}

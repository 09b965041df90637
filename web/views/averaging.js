// Item 7: causal averaging (seed 002), the simplest attention there is: every token becomes the
// plain average of itself and the tokens before it. engine.averaging() computes it three ways —
// a loop, a product with a normalised lower-triangular matrix, and the softmax of masked zeros —
// and the page shows all three and how far apart they are.
import { h } from '../ui/dom.js';
import { averagingNested } from '../lib/compute.js';
import { highlightRows } from '../lib/focus.js';
import { averagingClaim } from '../lib/claims/averaging.js';
import { foldOnPhone } from '../ui/fold.js';

export function render(section, app) {
  const { doc } = app;
  const verdict = h(doc, 'p', { class: 'ae-verdict ae-claim' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, 'Averaging the past'),
    h(
      doc,
      'p',
      { class: 'ae-prose' },
      'Before learning what to attend to, try the dullest rule: each token takes the average of itself and every token before it. ',
      'As a loop it is a running mean; as a matrix, a lower-triangular one whose row i holds 1/(i+1) in its first i+1 places; ',
      'as attention, a softmax over scores that are all 0, with the future masked to −∞: equal weights over the past. ',
      'Self-attention keeps that last form and lets the scores be learned.',
    ),
  );
  const why = h(
    doc,
    'p',
    { class: 'ae-prose ae-help' },
    'Averaging looks only back, as a model that writes text must: it predicts the next word, so it may not see it. The bank example reads a whole sentence, so from the next section on a token may look both ways, until the causal mask comes back in “Step by step”.',
  );
  // Each figure is the averaging matrix lib/explain.js calls by the same name.
  const mk = (id, caption, kind = 'signed') =>
    app.heatmap({ id, caption, rowLabels: [], colLabels: [], values: [[0]], kind, shows: { matrix: id } });
  const maps = {
    x: mk('avg-x', 'X'),
    tril: mk('avg-tril', 'averaging matrix', 'weights'),
    zeros: mk('avg-zeros', 'zeros, future masked', 'signed'),
    soft: mk('avg-softmax', 'softmax of that', 'weights'),
    loop: mk('avg-loop', '① loop: running mean'),
    matmul: mk('avg-matmul', '② averaging matrix · X'),
    out: mk('avg-out', '③ softmax(masked zeros) · X'),
  };
  section.append(
    h(doc, 'div', { class: 'ae-row' }, maps.x.el, maps.tril.el, maps.zeros.el, maps.soft.el),
    verdict,
    // The three results themselves one click deeper: the verdict above reads them.
    h(
      doc,
      'details',
      { class: 'ae-details ae-averaging-results' },
      h(doc, 'summary', {}, 'The three results, side by side'),
      h(doc, 'div', { class: 'ae-row' }, maps.loop.el, maps.matmul.el, maps.out.el),
    ),
    why,
  );
  // On a phone: the averaging matrix and the verdict; X, the zeros and their softmax one tap deeper
  // (the three results already are).
  foldOnPhone(app, 'X, the masked zeros and their softmax', [maps.x.el, maps.zeros.el, maps.soft.el], {
    at: verdict,
  });
  return {
    update() {
      const { state, results } = app;
      const entry = results.contexts[state.focus];
      if (!results.averaging || !entry) {
        verdict.textContent = averagingClaim(null, []);
        return;
      }
      const a = averagingNested(results.averaging);
      const tok = entry.tokens;
      const ctx = state.focus;
      const hl = highlightRows(state, tok);
      const cols = entry.x[0].map((_, j) => `d${j}`);
      maps.x.update({
        context: ctx,
        values: entry.x,
        rowLabels: tok,
        highlightRows: hl,
        colLabels: cols,
        caption: `X of “${ctx}”`,
      });
      maps.tril.update({
        context: ctx,
        masked: (i, j) => j > i,
        values: a.trilWeights,
        rowLabels: tok,
        highlightRows: hl,
        colLabels: tok,
      });
      maps.zeros.update({ context: ctx, values: a.maskedZeros, rowLabels: tok, highlightRows: hl, colLabels: tok });
      maps.soft.update({
        context: ctx,
        masked: (i, j) => j > i,
        values: a.softmaxWeights,
        rowLabels: tok,
        highlightRows: hl,
        colLabels: tok,
      });
      for (const k of ['loop', 'matmul'])
        maps[k].update({ context: ctx, values: a[k], rowLabels: tok, highlightRows: hl, colLabels: cols });
      maps.out.update({ context: ctx, values: a.softmax, rowLabels: tok, highlightRows: hl, colLabels: cols });
      verdict.textContent = averagingClaim(a, tok);
    },
  };
}

// Many heads (seed 001): the query/key/value columns are split into H groups, each group runs
// attention on its own, and the H outputs are concatenated back, head h owning columns
// [h·hv, (h+1)·hv); then W_O mixes them. This file composes the section's figures
// (views/heads/*.js): the knobs, each head's weights and output, and one click deeper the split,
// the merge and the mix.
import { h } from '../ui/dom.js';
import { focusView } from '../lib/focus.js';
import { headsTexts } from '../lib/claims/heads.js';
import * as knobs from './heads/knobs.js';
import * as perHead from './heads/per-head.js';
import * as split from './heads/split.js';
import * as merge from './heads/merge.js';

const TEXT = {
  title: 'Many heads',
  why: 'One head gives each token one way to share out its attention. Several heads split the query, key and value columns into groups that run attention side by side — one head can look for the word that says which bank while another compares words of the same kind — and the model combines what they found. The columns are split, not multiplied: it costs no more.',
  perHead: 'Each head: its own weights and output',
  details: 'How the columns are split, put side by side and mixed (W_O)',
  split: 'Split: each head takes its own columns of Q, K and V',
};

export function render(section, app) {
  const { doc } = app;
  const intro = h(doc, 'p', { class: 'ae-prose' });
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), h(doc, 'p', { class: 'ae-prose' }, TEXT.why));
  const knobsFigure = app.controls === 'full' ? knobs.render(section, app) : null;
  const perHeadTitle = h(doc, 'h3', { class: 'ae-prose' }, TEXT.perHead);
  const perHeadBox = h(doc, 'div', {});
  section.append(intro, claim, perHeadTitle, perHeadBox);
  const heads = perHead.render(perHeadBox, app);
  const splitRow = h(doc, 'div', { class: 'ae-row' });
  const details = h(
    doc,
    'details',
    { class: 'ae-details ae-heads-details' },
    h(doc, 'summary', {}, TEXT.details),
    h(doc, 'h3', {}, TEXT.split),
    splitRow,
  );
  section.append(details);
  const columns = split.render(splitRow, app);
  const mixing = merge.render(details, app);

  return {
    update() {
      const { state, results } = app;
      const f = focusView(state, results);
      if (!f) return;
      // On the whole page one head's weights and output are step by step's: each head's own from
      // two heads on. A figure of this section alone shows them for one head too.
      const whole = state.view.includes('all');
      const said = headsTexts(f, results.cosines, state.focus, whole);
      intro.textContent = said.intro;
      knobsFigure?.update(state, f.heads);
      // Where the shared word looks, per head: do the heads attend differently?
      claim.textContent = said.claim;
      claim.hidden = !said.claim;
      columns.update(f);
      perHeadTitle.hidden = perHeadBox.hidden = f.heads === 1 && whole;
      heads.update(f);
      mixing.update(f, results.projection);
    },
  };
}

// Many heads (seed 001): the query/key/value columns are split into H groups, each group runs
// attention on its own, and the H outputs are concatenated back, head h owning columns
// [h·hv, (h+1)·hv); then W_O mixes them. This file composes the section's figures
// (views/heads/*.js): the knobs, each head's weights and output, and one click deeper the split,
// the merge and the mix.
import { h } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { focusView, strongestKeys } from '../lib/focus.js';
import * as knobs from './heads/knobs.js';
import * as perHead from './heads/per-head.js';
import * as split from './heads/split.js';
import * as merge from './heads/merge.js';

const range = (from, n) => (n === 1 ? `column ${from}` : `columns ${from}–${from + n - 1}`);

const TEXT = {
  title: 'Many heads',
  why: 'One head gives each token one softmax row: one way to share out its attention. Several heads split the query, key and value columns into groups that run attention side by side, each with its own small queries and keys — so one head can look for the word that says which bank while another compares words of the same kind — and the model combines what they found. It costs no more: the columns are split, not multiplied.',
  // `first`: the first section (the bank contrast) is shown too, so the text may point at it.
  oneHead: (hk, hv, cosine, first) =>
    `One head now: it sees all ${hk} query/key columns and all ${hv} value columns at once. With H heads the columns are split into H groups of equal size, so H must divide the widths of Q, K and V; the Heads menu adds zero columns where needed. That changes the model: each head sees only its share of the columns, so every output changes${first ? ', the first section’s included' : ''}.${cosine}`,
  manyHeads: (H, hk, hv, focus, cosine, first) =>
    `${H} heads over “${focus}”. ${Array.from({ length: H }, (_, hh) => `Head ${hh} uses query/key ${range(hh * hk, hk)} and value ${range(hh * hv, hv)}`).join('. ')}. ` +
    `Each head scales its scores by 1/√${hk}, one over the square root of its own head size dₖ, runs softmax on its own, and the outputs are put side by side. This is a different model from the one-head one: every output differs${first ? ', the first section’s included' : ''}.${cosine}`,
  cosine: (shared) =>
    ` The cosine of the two “${shared.word}” outputs in the first section is now ${fmt(shared.attention)}.`,
  claim: (focus, word, tops, tokens) =>
    `In “${focus}”, “${word}” ${tops.map((x, hh) => `puts ${fmt(x.w, 2)} on “${tokens[x.j]}” in head ${hh}`).join(', ')}${new Set(tops.map((x) => x.j)).size > 1 ? ': the heads look at different words.' : ': here the heads agree on where to look.'}`,
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
  section.append(intro, claim, h(doc, 'h3', { class: 'ae-prose' }, TEXT.perHead));
  const heads = perHead.render(section, app);
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
      const { trace: t, heads: H, tokens, highlightRows: hl, hk, hv } = f;
      const shared = results.cosines.find((c) => c.attention !== null);
      const first = app.shows('contexts');
      const cosine = shared && first ? TEXT.cosine(shared) : '';
      intro.textContent =
        H === 1 ? TEXT.oneHead(hk, hv, cosine, first) : TEXT.manyHeads(H, hk, hv, state.focus, cosine, first);
      knobsFigure?.update(state, H);
      // Where the shared word looks, per head: do the heads attend differently?
      const row = hl.length ? hl[0] : Math.min(1, tokens.length - 1);
      claim.textContent = H === 1 ? '' : TEXT.claim(state.focus, tokens[row], strongestKeys(t, row), tokens);
      claim.hidden = H === 1;
      columns.update(f);
      heads.update(f);
      mixing.update(f, results.projection);
    },
  };
}

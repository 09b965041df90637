// Queries, keys and values (seeds 001 and 003): three learned matrices give each token three
// views of itself — what it looks for (its query, x·W_Q), what it offers to others (its key,
// x·W_K) and what it passes on when attended to (its value, x·W_V). A score is a query dotted
// with a key, so a token can now look for something other than itself. The page's hand-set
// weights (whose "bank" query finds the key of the word that says which bank it is), editable;
// and the notebook's own weights a click away.
import { h } from '../ui/dom.js';
import { checkbox } from '../ui/controls.js';
import { indexLabels, sizeText } from '../lib/format.js';
import { setValue } from '../lib/state.js';
import { focusView } from '../lib/focus.js';
import { CONTEXT_SEEKING, presetApplies, withNotebookWeights, withPreset } from '../lib/presets.js';
import { qkvClaim } from '../lib/claims/qkv.js';
import * as probe from './qkv/probe.js';
import { foldOnPhone } from '../ui/fold.js';

const TEXT = {
  title: 'Queries, keys and values',
  intro:
    'Attention gives every token three vectors, each its embedding times a matrix the model learns: a query (what the token is looking for), a key (what it offers to the tokens looking) and a value (what it passes on to a token that attends to it). A score is now one token’s query dotted with another’s key — a token’s query need not match its own key.',
  projections: 'Learned projections W_Q, W_K, W_V (set by hand here)',
  preset: 'Weights that look for the context word',
  presetHelp:
    'The page starts with the first: W_Q turns d2, the feature only “bank” has, into a query; W_K turns d3 (large for stream, mud and loan, 0 for bank) into a key. Without projections, Q = K = V = X, unscaled, as notebook 3 first computes attention.',
  seed: 'The notebook’s weights',
  off: 'Projections are off: queries, keys and values are the embeddings themselves.',
};
const W_NAMES = { wq: 'W_Q', wk: 'W_K', wv: 'W_V' };

export function render(section, app) {
  const { doc } = app;
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), h(doc, 'p', { class: 'ae-prose' }, TEXT.intro));
  const knobs = renderKnobs(app);
  section.append(knobs.el, claim);
  const maps = {};
  const editable = (m) => ({
    commit: (i, j, v) => app.edit((s) => setValue(s, { matrix: m }, i, j, v)),
    error: app.notify,
  });
  const add = (box, key, opts) => {
    maps[key] = app.heatmap({ rowLabels: [], colLabels: [], values: [[0]], ...opts, id: key });
    box.append(maps[key].el);
  };
  const wBox = h(doc, 'div', { class: 'ae-row' });
  const qBox = h(doc, 'div', { class: 'ae-row' });
  for (const m of ['wq', 'wk', 'wv']) add(wBox, m, { caption: W_NAMES[m], editable: editable(m) });
  for (const m of ['q', 'k', 'v']) add(qBox, m, { caption: m.toUpperCase() });
  const offNote = h(doc, 'p', { class: 'ae-help', hidden: true }, TEXT.off);
  // The probe sits beside Q, K and V: the row of numbers the claim above reads.
  const probeTable = probe.render(qBox, { doc });
  section.append(wBox, offNote, qBox);
  // On a phone: Q, K and the scores the claim reads; the weight matrices and V one tap deeper.
  foldOnPhone(app, 'The matrices W_Q, W_K, W_V (editable) and the values V', [wBox, maps.v.el], { at: qBox });

  return {
    update() {
      const { state, results } = app;
      const o = state.options;
      knobs.update(state);
      const f = focusView(state, results);
      if (!f) return;
      const { trace: t, head: hd, heads: H, tokens, highlightRows: hl, hk, hv } = f;
      wBox.hidden = !o.projections;
      offNote.hidden = o.projections;
      if (o.projections) {
        for (const m of ['wq', 'wk', 'wv']) {
          const W = state.weights[m];
          maps[m].update({
            values: W,
            rowLabels: indexLabels(W.length, 'd'),
            colLabels: indexLabels(W[0].length, m.slice(1)),
            caption: `${W_NAMES[m]} (${sizeText(W)})`,
          });
        }
      }
      const headNote = H > 1 ? ` (head ${hd} of ${H})` : '';
      for (const [m, width, W] of [
        ['q', hk, 'W_Q'],
        ['k', hk, 'W_K'],
        ['v', hv, 'W_V'],
      ]) {
        maps[m].update({
          context: state.focus,
          shows: { matrix: m, head: hd, tokenRows: true },
          values: t[m][hd],
          rowLabels: tokens,
          colLabels: indexLabels(width, m, hd * width),
          caption: `${m.toUpperCase()} = X·${W}${headNote}`,
          highlightRows: hl,
        });
      }
      // The shared word's query against every key: the row of unscaled scores.
      const i = hl.length ? hl[0] : Math.min(1, tokens.length - 1);
      const row = t.scores[hd][i];
      const said = qkvClaim(row, tokens, i, (j) => hl.includes(j));
      probeTable.update({ tokens, row, best: said.best, headNote, word: tokens[i] });
      claim.textContent = said.claim;
    },
  };
}

// The knobs (the page's full controls only): projections on or off, the weights whose "bank"
// query looks for the context word (the page's), and the notebook's own weights.
function renderKnobs(app) {
  const { doc } = app;
  const el = h(doc, 'div', { class: 'ae-knobs ae-prose' });
  const projections = checkbox(doc, {
    label: TEXT.projections,
    onChange: (on) => app.setOptions({ projections: on, scale: on }),
  });
  const presetBtn = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => withPreset(s, CONTEXT_SEEKING)) },
    TEXT.preset,
  );
  const examples = app.engine.examples();
  const seedBtn = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => withNotebookWeights(s, examples)) },
    TEXT.seed,
  );
  const presets = h(doc, 'div', { class: 'ae-row ae-presets ae-qkv-knobs' }, projections.el, presetBtn, seedBtn);
  if (app.controls === 'full') el.append(presets, h(doc, 'p', { class: 'ae-help' }, TEXT.presetHelp));
  return {
    el,
    update(state) {
      projections.sync(state.options.projections);
      presetBtn.disabled = !presetApplies(state, CONTEXT_SEEKING);
      seedBtn.disabled = presetBtn.disabled;
    },
  };
}

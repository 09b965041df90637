// Queries, keys and values (seeds 001 and 003): three learned matrices give each token three
// views of itself — what it looks for (its query, x·W_Q), what it offers to others (its key,
// x·W_K) and what it passes on when attended to (its value, x·W_V). A score is a query dotted
// with a key, so a token can now look for something other than itself. The seed's hand-set
// weights, editable; and a preset whose "bank" query finds the key of the word that says which
// bank it is.
import { h } from '../ui/dom.js';
import { checkbox } from '../ui/controls.js';
import { fmt, indexLabels, sizeText } from '../lib/format.js';
import { setValue } from '../lib/state.js';
import { focusView } from '../lib/focus.js';
import { CONTEXT_SEEKING, presetApplies, withPreset } from '../lib/presets.js';
import * as probe from './qkv/probe.js';
import { foldOnPhone } from '../ui/fold.js';

const TEXT = {
  title: 'Queries, keys and values',
  intro:
    'Attention gives every token three vectors, each its embedding times a matrix the model learns: a query (what the token is looking for), a key (what it offers to the tokens looking) and a value (what it passes on to a token that attends to it). A score is now one token’s query dotted with another’s key — a token’s query need not match its own key.',
  projections: 'Learned projections W_Q, W_K, W_V (set by hand here)',
  projectionsHelp:
    'Off: raw attention as notebook 3 first computes it — Q = K = V = X, scores X·Xᵀ, no scaling (turning it on again also scales).',
  preset: 'Try weights whose “bank” query looks for the context word',
  presetHelp:
    'W_Q turns the feature only “bank” has (d2) into a query; W_K turns each word’s d3 — large for stream, mud and loan, 0 for bank — into a key. W_V is unchanged.',
  seed: 'Back to notebook 3’s weights',
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
      const best = row.reduce((b, v, j) => (v > row[b] ? j : b), 0);
      probeTable.update({ tokens, row, best, headNote, word: tokens[i] });
      const order = row
        .map((v, j) => [v, j])
        .sort((a, b) => b[0] - a[0])
        .map(([v, j]) => `${tokens[j]} ${fmt(v, 2)}`)
        .join(', ');
      claim.textContent =
        best === i
          ? `The query of “${tokens[i]}” matches its own key best (${order}): with these weights it still mostly finds itself.`
          : `The query of “${tokens[i]}” matches the key of “${tokens[best]}” best (${order}): it looks past itself${hl.includes(best) ? '' : ', at a word the other sentences do not have'}.`;
    },
  };
}

// The knobs (the page's full controls only): projections on or off, a preset whose "bank" query
// looks for the context word, and back to the seed's weights.
function renderKnobs(app) {
  const { doc } = app;
  const el = h(doc, 'div', { class: 'ae-knobs ae-prose' });
  const projections = checkbox(doc, {
    label: TEXT.projections,
    help: TEXT.projectionsHelp,
    onChange: (on) => app.setOptions({ projections: on, scale: on }),
  });
  const presetBtn = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => withPreset(s, CONTEXT_SEEKING)) },
    TEXT.preset,
  );
  const seedWeights = (s) => {
    const { wq, wk, wv } = app.defaults.weights;
    return { state: { ...s, weights: { ...s.weights, wq, wk, wv } } };
  };
  const seedBtn = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', onclick: () => app.edit(seedWeights) },
    TEXT.seed,
  );
  const presets = h(
    doc,
    'div',
    { class: 'ae-row ae-presets' },
    presetBtn,
    seedBtn,
    h(doc, 'p', { class: 'ae-help' }, TEXT.presetHelp),
  );
  if (app.controls === 'full') el.append(projections.el, presets);
  return {
    el,
    update(state) {
      projections.sync(state.options.projections);
      presetBtn.disabled = !presetApplies(state, CONTEXT_SEEKING);
    },
  };
}

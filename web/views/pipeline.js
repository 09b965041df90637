// Item 2: the pipeline for one context, one card per step:
// X → Q, K, V → scores Q·Kᵀ → scaled → masked → softmax weights (→ dropout) → weights·V.
import { h, uid } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { setValue } from '../lib/state.js';
import { focusView } from '../lib/focus.js';

const labels = (n, p, offset = 0) => Array.from({ length: n }, (_, i) => `${p}${i + offset}`);

const TEXT = {
  qkvOn:
    'Three matrices turn each token’s vector into a query (what it looks for), a key (what it offers) and a value (what it passes on). A model learns them while it trains (see “Learn”); here they are set by hand, as in seed 003, and you can edit them.',
  qkvOff:
    'Projections are off: queries, keys and values are the embeddings themselves, so the scores are plain X·Xᵀ similarities.',
  weights:
    'Each row becomes positive weights that sum to 1: e raised to each score, divided by the sum of those numbers over the row. The row’s largest score is subtracted first, which keeps e^x from overflowing and cancels in the division.',
  output:
    'Row i adds up the value vectors of every token — its own included — each weighted by row i of the weights: the new vector of token i.',
};

export function render(section, app) {
  const { doc, store } = app;
  const focusName = uid('focus');
  const focusBox = h(doc, 'fieldset', { class: 'ae-radio ae-focus ae-prose' }, h(doc, 'legend', {}, 'Context'));
  const title = h(doc, 'h2', { class: 'ae-prose' }, 'Step by step');
  section.append(
    title,
    h(
      doc,
      'p',
      {},
      'Follow one sentence through self-attention. Each matrix is computed from the one before it; hover or focus a number to see how.',
    ),
    focusBox,
  );
  const steps = h(doc, 'div', { class: 'ae-steps' });
  section.append(steps);
  const cards = {};
  const maps = {};
  const texts = {};

  const card = (step, heading, text) => {
    const p = h(doc, 'p', { class: 'ae-help ae-prose' }, text);
    const el = h(
      doc,
      'div',
      { class: 'ae-card ae-step', 'data-step': step },
      h(doc, 'h3', { class: 'ae-prose' }, heading),
      p,
    );
    steps.append(el);
    cards[step] = el;
    texts[step] = p;
    return el;
  };
  const editable = (target) => ({
    commit: (i, j, v) => app.edit((s) => setValue(s, target(s, i), i, j, v)),
    error: app.notify,
  });
  const add = (el, key, opts) => {
    maps[key] = app.heatmap({ rowLabels: [], colLabels: [], values: [[0]], ...opts, id: key });
    el.append(maps[key].el);
  };

  let c = card('x', '1 · Embeddings X', 'One row per token. The same word always gets the same row.');
  add(c, 'x', {
    caption: 'X',
    editable: editable((s, i) => ({ word: s.contexts[s.focus][i] })),
  });
  c = card('qkv', '2 · Queries, keys, values', TEXT.qkvOn);
  const wBox = h(doc, 'div', { class: 'ae-row' });
  const qBox = h(doc, 'div', { class: 'ae-row' });
  c.append(wBox, qBox);
  for (const m of ['wq', 'wk', 'wv'])
    add(wBox, m, { caption: { wq: 'W_Q', wk: 'W_K', wv: 'W_V' }[m], editable: editable(() => ({ matrix: m })) });
  for (const m of ['q', 'k', 'v']) add(qBox, m, { caption: m.toUpperCase(), kind: 'signed' });
  c = card(
    'scores',
    '3 · Scores Q·Kᵀ',
    'Row i, column j: the dot product of token i’s query with token j’s key. Larger means “i finds j relevant”.',
  );
  add(c, 'scores', { caption: 'scores = Q·Kᵀ' });
  c = card('scaled', '4 · Scaled', '');
  add(c, 'scaled', { caption: 'scaled' });
  c = card('masked', '5 · Mask', '');
  add(c, 'masked', { caption: 'masked' });
  c = card('weights', '6 · Softmax weights', TEXT.weights);
  add(c, 'weights', { caption: 'weights = softmax(row)', kind: 'weights' });
  const sums = h(doc, 'p', { class: 'ae-help ae-rowsums' });
  c.append(sums);
  const dropBox = h(doc, 'div', {});
  c.append(dropBox);
  add(dropBox, 'dropped', { caption: 'after dropout', kind: 'sequential' });
  c = card('output', '7 · Output = weights · V', TEXT.output);
  add(c, 'out', { caption: 'weights · V' });
  const mergedBox = h(doc, 'div', {});
  c.append(mergedBox);
  add(mergedBox, 'merged', { caption: 'all heads concatenated' });
  add(c, 'output', { caption: 'output' });

  return {
    update() {
      const { state, results } = app;
      const o = state.options;
      // context picker
      const names = Object.keys(state.contexts);
      if (focusBox.dataset.key !== names.join('|')) {
        focusBox.dataset.key = names.join('|');
        focusBox.replaceChildren(
          h(doc, 'legend', {}, 'Context'),
          ...names.map((n) => {
            const id = `${focusName}-${n}`;
            return h(
              doc,
              'span',
              {},
              h(doc, 'input', {
                type: 'radio',
                name: focusName,
                id,
                value: n,
                onchange: () => store.set({ focus: n, step: 0, selected: null }),
              }),
              h(doc, 'label', { for: id }, n),
            );
          }),
        );
      }
      for (const input of focusBox.querySelectorAll('input')) input.checked = input.value === state.focus;
      const view = state.view;
      for (const [step, el] of Object.entries(cards)) el.hidden = !(view.includes('all') || view.includes(step));

      const f = focusView(state, results);
      if (!f) return;
      const { entry, trace: t, head: hd, heads: H, tokens, highlightRows: hl, hk, hv, isMasked } = f;
      title.textContent = `Step by step: ${state.focus}`;
      const ctx = state.focus;
      const headNote = H > 1 ? ` (head ${hd} of ${H})` : '';

      maps.x.update({
        context: ctx,
        values: entry.x,
        rowLabels: tokens,
        colLabels: labels(entry.x[0].length, 'd'),
        highlightRows: hl,
      });
      wBox.hidden = !o.projections;
      if (o.projections) {
        for (const m of ['wq', 'wk', 'wv']) {
          const W = state.weights[m];
          maps[m].update({
            values: W,
            rowLabels: labels(W.length, 'd'),
            colLabels: labels(W[0].length, m === 'wv' ? 'v' : m === 'wq' ? 'q' : 'k'),
            caption: `${{ wq: 'W_Q', wk: 'W_K', wv: 'W_V' }[m]} (${W.length} × ${W[0].length})`,
          });
        }
      }
      texts.qkv.textContent = o.projections ? TEXT.qkvOn : TEXT.qkvOff;
      for (const [m, width, W] of [
        ['q', hk, 'W_Q'],
        ['k', hk, 'W_K'],
        ['v', hv, 'W_V'],
      ]) {
        maps[m].update({
          context: ctx,
          values: t[m][hd],
          rowLabels: tokens,
          colLabels: labels(width, m, hd * width),
          caption: `${m.toUpperCase()} = X·${W}${headNote}`,
          highlightRows: hl,
        });
      }
      const tt = { context: ctx, rowLabels: tokens, colLabels: tokens, highlightRows: hl, cornerLabel: 'query \\ key' };
      maps.scores.update({ ...tt, values: t.scores[hd], caption: `scores = Q·Kᵀ${headNote}` });
      texts.scaled.textContent =
        (o.scale ? `Multiplied by 1/√dₖ = 1/√${hk} = ${fmt(t.scale, 4)}` : 'Scaling is off (factor 1)') +
        (o.temperature !== 1 ? ` and divided by the temperature ${fmt(o.temperature, 2)}` : '') +
        '. Without it, larger head sizes give larger scores and a softmax that puts almost all weight on one token.';
      maps.scaled.update({ ...tt, values: t.scaled[hd], caption: `scaled${headNote}` });
      texts.masked.textContent = o.causal
        ? 'Causal mask on: a token may not look at tokens after it. Those scores become −∞, so their weights become exactly 0.'
        : 'No mask: every token may look at every token. Turn on the causal mask in the knobs to hide the future.';
      maps.masked.update({ ...tt, values: t.masked[hd], caption: `masked${headNote}` });
      maps.weights.update({ ...tt, values: t.weights[hd], caption: `weights${headNote}`, masked: isMasked });
      const rowSums = t.weights[hd].map((r) => r.reduce((a, b) => a + b, 0));
      sums.textContent = rowSums.every((x) => fmt(x) === fmt(1))
        ? `Every row sums to ${fmt(1)} (${rowSums.length} rows).`
        : 'Row sums: ' + rowSums.map((x, i) => `${tokens[i]} ${fmt(x)}`).join(', ');
      dropBox.hidden = !f.dropping;
      if (f.dropping)
        maps.dropped.update({
          ...tt,
          masked: isMasked,
          values: t.dropped[hd],
          caption: `after dropout p = ${fmt(o.dropout, 2)}, seed ${o.seed} (kept weights × 1/(1 − p))${headNote}`,
        });
      maps.out.update({
        context: ctx,
        values: t.headOutputs[hd],
        rowLabels: tokens,
        colLabels: labels(hv, 'v', hd * hv),
        caption: `weights · V${headNote}`,
        highlightRows: hl,
      });
      mergedBox.hidden = H === 1;
      if (H > 1)
        maps.merged.update({
          context: ctx,
          values: t.merged,
          rowLabels: tokens,
          colLabels: labels(t.merged[0].length, 'v'),
          highlightRows: hl,
          colClass: (j) => `ae-head-${Math.floor(j / hv) % 4}`,
        });
      maps.output.el.hidden = H === 1;
      maps.out.update({ caption: H === 1 ? 'output = weights · V' : `weights · V${headNote}` });
      maps.output.update({
        context: ctx,
        values: t.output,
        rowLabels: tokens,
        colLabels: labels(t.output[0].length, 'o'),
        caption: `output (${tokens.length} × ${t.output[0].length})`,
        highlightRows: hl,
      });
    },
  };
}

// Attention step by step for one sentence (seeds 001 and 004), one card per step, each knob at
// the step it changes: scores Q·Kᵀ → scaled (÷√dₖ, the scale switch) → masked (the causal mask)
// → softmax weights (the temperature; dropout on the weights) → output = weights·V. The knobs
// are drawn where the explorer has full controls (the page); elsewhere the figures alone.
import { h, uid, activeIn } from '../ui/dom.js';
import { checkbox, slider } from '../ui/controls.js';
import { fmt } from '../lib/format.js';
import { focusView } from '../lib/focus.js';

const TEXT = {
  title: 'Step by step',
  intro:
    'Follow one sentence through self-attention: each matrix is computed from the one before it. Hover or focus a number to see how; each step’s knob sits beside it.',
  scores: 'Row i, column j: the dot product of token i’s query with token j’s key. Larger means “i finds j relevant”.',
  scaleOn: (hk, factor) =>
    `Every score is multiplied by 1/√dₖ = 1/√${hk} = ${factor}, where dₖ is the head size. Dot products of wider vectors are larger; without the scaling the softmax below would put almost all weight on one token (see “Why ÷√dₖ”).`,
  scaleOff: 'Scaling is off: the scores go to the softmax as they are.',
  temperatureNote: (t) => ` Then divided by the temperature, ${t}.`,
  scale: 'Divide scores by √dₖ',
  causal: 'Causal mask',
  maskOn:
    'Causal mask on: a token may not look at tokens after it (as when generating text). Those scores become −∞, so their weights become exactly 0.',
  maskOff: 'No mask: every token may look at every token. Switch on the causal mask to hide the future.',
  weights:
    'Each row becomes positive weights that sum to 1: e raised to each score, divided by the row’s sum of those numbers (the largest score is subtracted first, which keeps e^x from overflowing and cancels in the division).',
  temperature: 'Temperature',
  temperatureHelp:
    'Every score is divided by it before the softmax: above 1 spreads the weight over more tokens, below 1 sharpens it toward the largest score.',
  dropout: 'Dropout p',
  dropoutSummary: 'Dropout on the weights (training only)',
  dropoutTraining:
    'Training mode: each weight is kept with probability 1 − p (and scaled by 1/(1 − p)) or set to 0, drawn from the seed.',
  dropoutEval: 'Evaluation mode (as model.eval()): dropout does nothing. Switch to training to see it drop weights.',
  output:
    'Row i adds up the value vectors of every token — its own included — each weighted by row i of the weights: the new vector of token i. What a transformer does with it next is two sections down.',
};

export function render(section, app) {
  const { doc, store } = app;
  const full = app.controls === 'full';
  const title = h(doc, 'h2', { class: 'ae-prose' }, TEXT.title);
  section.append(title, h(doc, 'p', { class: 'ae-prose' }, TEXT.intro));
  const steps = h(doc, 'div', { class: 'ae-steps' });
  section.append(steps);
  const cards = {};
  const maps = {};
  const texts = {};
  const headings = {};
  const card = (step, heading, text) => {
    const p = h(doc, 'p', { class: 'ae-help ae-prose' }, text);
    headings[step] = { el: h(doc, 'h3', { class: 'ae-prose' }, heading), text: heading };
    const el = h(doc, 'div', { class: 'ae-card ae-step', 'data-step': step }, headings[step].el, p);
    steps.append(el);
    cards[step] = el;
    texts[step] = p;
    return el;
  };
  // Each step's matrix, named as lib/explain.js explains it; its rows are the sentence's tokens.
  const add = (el, key, opts) => {
    const shows = { matrix: key, tokenRows: true };
    maps[key] = app.heatmap({ rowLabels: [], colLabels: [], values: [[0]], ...opts, id: key, shows });
    el.append(maps[key].el);
  };
  const knob = (el, control) => {
    if (full) el.append(h(doc, 'div', { class: 'ae-knobs' }, control.el ?? control));
    return control;
  };

  let c = card('scores', 'Scores Q·Kᵀ', TEXT.scores);
  add(c, 'scores', { caption: 'scores = Q·Kᵀ' });

  c = card('scaled', 'Scaled', '');
  const scale = knob(c, checkbox(doc, { label: TEXT.scale, onChange: (on) => app.setOptions({ scale: on }) }));
  add(c, 'scaled', { caption: 'scaled' });

  c = card('masked', 'Mask', '');
  const causal = knob(c, checkbox(doc, { label: TEXT.causal, onChange: (on) => app.setOptions({ causal: on }) }));
  add(c, 'masked', { caption: 'masked' });

  c = card('weights', 'Softmax weights', TEXT.weights);
  const temperature = knob(
    c,
    slider(doc, {
      label: TEXT.temperature,
      min: 0.1,
      max: 5,
      step: 0.05,
      digits: 2,
      onInput: (v) => app.setOptions({ temperature: v }),
    }),
  );
  temperature.input.classList.add('ae-temperature');
  if (full) c.lastChild.append(h(doc, 'p', { class: 'ae-help' }, TEXT.temperatureHelp));
  add(c, 'weights', { caption: 'weights = softmax(row)', kind: 'weights' });
  const sums = h(doc, 'p', { class: 'ae-help ae-rowsums' });
  c.append(sums);
  // Dropout on the weights (training only), with its seed and mode.
  const dropout = slider(doc, {
    label: TEXT.dropout,
    min: 0,
    max: 0.9,
    step: 0.05,
    digits: 2,
    onInput: (v) => app.setOptions({ dropout: v }),
  });
  const dropoutHelp = h(doc, 'p', { class: 'ae-help ae-dropout-help' });
  const seedId = uid('opt');
  const seed = h(doc, 'input', {
    type: 'number',
    id: seedId,
    min: 0,
    max: 2147483647,
    step: 1,
    inputmode: 'numeric',
    onchange: (e) => {
      const v = Number(e.target.value);
      if (!Number.isInteger(v) || v < 0 || v > 2147483647) {
        app.notify(`dropout seed: expected a whole number in 0..2147483647, got "${e.target.value}"`);
        return;
      }
      app.setOptions({ seed: v });
    },
  });
  const modeName = uid('mode');
  const radio = (value, label, training) => {
    const input = h(doc, 'input', {
      type: 'radio',
      name: modeName,
      id: `${modeName}-${value}`,
      value,
      onchange: () => app.setOptions({ training }),
    });
    return { input, el: h(doc, 'span', {}, input, h(doc, 'label', { for: input.id }, label)) };
  };
  const train = radio('train', 'training', true);
  const evalMode = radio('eval', 'evaluation', false);
  // Dropout is a training-time detail: one click deeper, open by itself when it acts.
  const dropDetails = h(
    doc,
    'details',
    { class: 'ae-details ae-dropout-details' },
    h(doc, 'summary', {}, TEXT.dropoutSummary),
  );
  if (full)
    dropDetails.append(
      h(
        doc,
        'fieldset',
        { class: 'ae-group ae-dropout' },
        h(doc, 'legend', {}, 'Dropout on the weights'),
        dropout.el,
        dropoutHelp,
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: seedId }, 'Seed '), seed),
        h(doc, 'fieldset', { class: 'ae-ctl ae-radio' }, h(doc, 'legend', {}, 'Dropout mode'), train.el, evalMode.el),
      ),
    );
  const dropBox = h(doc, 'div', {});
  if (full) {
    dropDetails.append(dropBox);
    c.append(dropDetails);
  } else c.append(dropBox);
  let dropoutShown = false;
  add(dropBox, 'dropped', { caption: 'after dropout', kind: 'weights' });

  c = card('output', 'Output = weights · V', TEXT.output);
  add(c, 'out', { caption: 'weights · V' });
  const mergedBox = h(doc, 'div', {});
  c.append(mergedBox);
  add(mergedBox, 'merged', { caption: 'all heads concatenated' });
  add(c, 'output', { caption: 'output' });

  return {
    update() {
      const { state, results } = app;
      const o = state.options;
      scale.sync(o.scale);
      causal.sync(o.causal);
      temperature.sync(o.temperature);
      dropout.sync(o.dropout);
      if (activeIn(seed) !== seed) seed.value = String(o.seed);
      train.input.checked = o.training;
      evalMode.input.checked = !o.training;
      dropoutHelp.textContent = o.training ? TEXT.dropoutTraining : TEXT.dropoutEval;
      const view = state.view;
      // The steps shown are numbered 1, 2, … in order (a figure of some steps has no gaps).
      let number = 0;
      for (const [step, el] of Object.entries(cards)) {
        el.hidden = !(view.includes('all') || view.includes(step));
        if (!el.hidden) headings[step].el.textContent = `${++number} · ${headings[step].text}`;
      }

      const f = focusView(state, results);
      if (!f) return;
      const { trace: t, head: hd, heads: H, tokens, highlightRows: hl, hk, hv, isMasked } = f;
      title.textContent = `${TEXT.title}: ${state.focus}`;
      const ctx = state.focus;
      const headNote = H > 1 ? ` (head ${hd} of ${H})` : '';
      // The per-head steps show head hd's numbers.
      const of = (matrix) => ({ shows: { matrix, head: hd, tokenRows: true } });
      const tt = { context: ctx, rowLabels: tokens, colLabels: tokens, highlightRows: hl, cornerLabel: 'query \\ key' };
      maps.scores.update({ ...tt, ...of('scores'), values: t.scores[hd], caption: `scores = Q·Kᵀ${headNote}` });
      texts.scaled.textContent =
        (o.scale ? TEXT.scaleOn(hk, fmt(t.scale, 4)) : TEXT.scaleOff) +
        (o.temperature !== 1 ? TEXT.temperatureNote(fmt(o.temperature, 2)) : '');
      maps.scaled.update({ ...tt, ...of('scaled'), values: t.scaled[hd], caption: `scaled${headNote}` });
      texts.masked.textContent = o.causal ? TEXT.maskOn : TEXT.maskOff;
      maps.masked.update({ ...tt, ...of('masked'), values: t.masked[hd], caption: `masked${headNote}` });
      maps.weights.update({
        ...tt,
        ...of('weights'),
        values: t.weights[hd],
        caption: `weights${headNote}`,
        masked: isMasked,
      });
      const rowSums = t.weights[hd].map((r) => r.reduce((a, b) => a + b, 0));
      sums.textContent = rowSums.every((x) => fmt(x) === fmt(1))
        ? `Every row sums to ${fmt(1)} (${rowSums.length} rows).`
        : 'Row sums: ' + rowSums.map((x, i) => `${tokens[i]} ${fmt(x)}`).join(', ');
      dropBox.hidden = !f.dropping;
      // Dropout that acts (a shared link, an embed's attributes) opens its details once.
      if (f.dropping && !dropoutShown) dropDetails.open = dropoutShown = true;
      if (f.dropping)
        maps.dropped.update({
          ...tt,
          ...of('dropped'),
          masked: isMasked,
          values: t.dropped[hd],
          caption: `after dropout p = ${fmt(o.dropout, 2)}, seed ${o.seed} (kept weights × 1/(1 − p))${headNote}`,
        });
      maps.out.update({
        ...of('out'),
        context: ctx,
        values: t.headOutputs[hd],
        rowLabels: tokens,
        colLabels: Array.from({ length: hv }, (_, j) => `v${hd * hv + j}`),
        caption: H === 1 ? 'output = weights · V' : `weights · V${headNote}`,
        highlightRows: hl,
      });
      mergedBox.hidden = H === 1;
      if (H > 1)
        maps.merged.update({
          context: ctx,
          values: t.merged,
          rowLabels: tokens,
          colLabels: t.merged[0].map((_, j) => `v${j}`),
          highlightRows: hl,
          colClass: (j) => `ae-head-${Math.floor(j / hv) % 4}`,
        });
      maps.output.el.hidden = H === 1;
      maps.output.update({
        context: ctx,
        values: t.output,
        rowLabels: tokens,
        colLabels: t.output[0].map((_, j) => `o${j}`),
        caption: `output (${tokens.length} × ${t.output[0].length})`,
        highlightRows: hl,
      });
    },
  };
}

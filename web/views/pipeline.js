// Attention step by step for one sentence (seeds 001 and 004), one card per step, each knob at
// the step it changes: scores Q·Kᵀ → scaled (÷√dₖ, the scale switch) → masked (the causal mask)
// → softmax weights (the temperature; dropout on the weights) → output = weights·V. The knobs
// are drawn where the explorer has full controls (the page); elsewhere the figures alone.
import { h, textNodes, withSection } from '../ui/dom.js';
import { checkbox, slider } from '../ui/controls.js';
import { fmt, indexLabels, sizeText } from '../lib/format.js';
import { focusView } from '../lib/focus.js';
import * as dropout from './pipeline/dropout.js';

const TEXT = {
  title: 'Step by step',
  intro:
    'Follow one sentence through self-attention: each matrix is computed from the one before it. Hover or focus a number to see how; each step’s knob sits beside it.',
  scores: 'Row i, column j: the dot product of token i’s query with token j’s key. Larger means “i finds j relevant”.',
  scaleOn: (hk, factor, why) =>
    `Every score is multiplied by 1/√dₖ = 1/√${hk} = ${factor}, where dₖ is the head size. Dot products of wider vectors are larger; without the scaling the softmax would put almost all weight on one token${why ? ' (see “Why ÷√dₖ”)' : ''}.`,
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
  output:
    'Row i adds up the value vectors of every token — its own included — each weighted by row i of the weights: the new vector of token i.',
  outputNext: ' What a transformer does with it next is in “What happens next”, below.',
};

export function render(section, app) {
  const { doc } = app;
  const full = app.controls === 'full';
  const title = h(doc, 'h2', { class: 'ae-prose' }, TEXT.title);
  const steps = h(doc, 'div', { class: 'ae-steps' });
  section.append(title, h(doc, 'p', { class: 'ae-prose' }, TEXT.intro), steps);
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
    cards[step] = { el, heading: el.firstChild, text: heading };
    texts[step] = p;
    return el;
  };
  // Each step's matrix, named as lib/explain.js explains it; its rows are the sentence's tokens.
  const add = (el, key, opts) => {
    const shows = { matrix: key, tokenRows: true };
    maps[key] = app.heatmap({ rowLabels: [], colLabels: [], values: [[0]], ...opts, id: key, shows });
    el.append(maps[key].el);
    return maps[key];
  };
  const knob = (el, control) => {
    if (full) el.append(h(doc, 'div', { class: 'ae-knobs' }, control.el ?? control));
    return control;
  };

  add(card('scores', 'Scores Q·Kᵀ', TEXT.scores), 'scores', { caption: 'scores = Q·Kᵀ' });
  let c = card('scaled', 'Scaled', '');
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
  const drop = dropout.render(c, app, add);
  c = card('output', 'Output = weights · V', [TEXT.output, withSection(doc, 'next', TEXT.outputNext)]);
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
      // The steps shown are numbered 1, 2, … in order (a figure of some steps has no gaps).
      let number = 0;
      for (const [step, { el, heading, text }] of Object.entries(cards)) {
        el.hidden = !(state.view.includes('all') || state.view.includes(step));
        if (!el.hidden) heading.replaceChildren(...textNodes(doc, `${++number} · ${text}`));
      }
      const f = focusView(state, results);
      const headNote = f && f.heads > 1 ? ` (head ${f.head} of ${f.heads})` : '';
      const common = f && {
        context: state.focus,
        rowLabels: f.tokens,
        colLabels: f.tokens,
        highlightRows: f.highlightRows,
        cornerLabel: 'query \\ key',
        shows: { matrix: 'dropped', head: f.head, tokenRows: true },
      };
      drop.update(state, f, common, headNote);
      if (!f) return;
      title.textContent = `${TEXT.title}: ${state.focus}`;
      texts.scaled.textContent =
        (o.scale ? TEXT.scaleOn(f.hk, fmt(f.trace.scale, 4), app.shows('scaling')) : TEXT.scaleOff) +
        (o.temperature !== 1 ? TEXT.temperatureNote(fmt(o.temperature, 2)) : '');
      texts.masked.textContent = o.causal ? TEXT.maskOn : TEXT.maskOff;
      drawMatrices(maps, f, { ...common, shows: undefined }, headNote);
      const rowSums = f.trace.weights[f.head].map((r) => r.reduce((a, b) => a + b, 0));
      sums.textContent = rowSums.every((x) => fmt(x) === fmt(1))
        ? `Every row sums to ${fmt(1)} (${rowSums.length} rows).`
        : 'Row sums: ' + rowSums.map((x, i) => `${f.tokens[i]} ${fmt(x)}`).join(', ');
    },
  };
}

// The step matrices of focus f: head f.head's scores … outputs, then all heads' merged and output.
function drawMatrices(maps, f, common, headNote) {
  const { trace: t, head: hd, heads: H, tokens, highlightRows: hl, hv, isMasked, name: ctx } = f;
  const of = (matrix) => ({ shows: { matrix, head: hd, tokenRows: true } });
  maps.scores.update({ ...common, ...of('scores'), values: t.scores[hd], caption: `scores = Q·Kᵀ${headNote}` });
  maps.scaled.update({ ...common, ...of('scaled'), values: t.scaled[hd], caption: `scaled${headNote}` });
  maps.masked.update({ ...common, ...of('masked'), values: t.masked[hd], caption: `masked${headNote}` });
  maps.weights.update({
    ...common,
    ...of('weights'),
    values: t.weights[hd],
    caption: `weights${headNote}`,
    masked: isMasked,
  });
  maps.out.update({
    ...of('out'),
    context: ctx,
    values: t.headOutputs[hd],
    rowLabels: tokens,
    colLabels: indexLabels(hv, 'v', hd * hv),
    caption: H === 1 ? 'output = weights · V' : `weights · V${headNote}`,
    highlightRows: hl,
  });
  maps.merged.el.parentNode.hidden = H === 1;
  if (H > 1)
    maps.merged.update({
      context: ctx,
      values: t.merged,
      rowLabels: tokens,
      colLabels: indexLabels(t.merged[0].length, 'v'),
      highlightRows: hl,
      colClass: (j) => `ae-head-${Math.floor(j / hv) % 4}`,
    });
  maps.output.el.hidden = H === 1;
  maps.output.update({
    context: ctx,
    values: t.output,
    rowLabels: tokens,
    colLabels: indexLabels(t.output[0].length, 'o'),
    caption: `output (${sizeText(t.output)})`,
    highlightRows: hl,
  });
}

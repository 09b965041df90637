// Attention step by step for one sentence (seeds 001 and 004), one card per step, each knob at
// the step it changes: scores Q·Kᵀ → scaled (÷√dₖ, the scale switch) → masked (the causal mask,
// and why a model has one) → softmax weights (dropout on the weights, and a temperature real
// attention does not have, both one click deeper) → output = weights·V. The knobs are drawn where
// the explorer has full controls (the page); elsewhere the figures alone. The sentences beside
// the matrices are lib/claims/pipeline.js's.
//
// The temperature stays, behind a disclosure that says what it is: real attention scales its
// scores only by 1/√dₖ, and a slider on the main path beside the softmax reads as part of the
// formula and blurs into the sampling temperature of "What happens next". It is still worth a
// click: it shows what sharper or flatter scores do to a softmax, which is √dₖ's whole story;
// and links and the element's `temperature` attribute set it, so the page must show it is on.
import { h, textNodes } from '../ui/dom.js';
import { checkbox, slider } from '../ui/controls.js';
import { indexLabels } from '../lib/format.js';
import { focusView } from '../lib/focus.js';
import { pipelineTexts } from '../lib/claims/pipeline.js';
import * as dropout from './pipeline/dropout.js';
import { headClass } from '../lib/palette.js';
import { createHeadsKey } from '../ui/heads-key.js';
import { foldOnPhone } from '../ui/fold.js';

const TEXT = {
  title: 'Step by step',
  intro:
    'Follow one sentence through self-attention: each matrix is computed from the one before it. Hover or focus a number to see how; each step’s knob sits beside it.',
  scores: 'Row i, column j: token i’s query · token j’s key. Larger: “i finds j relevant”.',
  scale: 'Divide scores by √dₖ',
  causal: 'Causal mask',
  weights:
    'Each row becomes positive weights that sum to 1: e to each score, over the row’s sum of them (the row’s largest score is subtracted first: it keeps e^x finite and cancels).',
  temperatureSummary: 'A temperature (not in real attention)',
  temperature: 'Temperature',
  temperatureHelp:
    'Real attention scales its scores only by 1/√dₖ (the step before). Dividing them by a temperature as well shows what sharper or flatter scores do to the softmax: above 1 spreads the weight over more tokens, below 1 sharpens it toward the largest score. It is not the sampling temperature of “What happens next”, which acts on a model’s predictions of the next token.',
};

export function render(section, app) {
  const { doc } = app;
  const full = app.controls === 'full';
  // The heading's text in a span of its own: the map's link follows it (shell/map-links.js).
  const title = h(doc, 'span', {}, TEXT.title);
  const steps = h(doc, 'div', { class: 'ae-steps' });
  section.append(h(doc, 'h2', { class: 'ae-prose' }, title), h(doc, 'p', { class: 'ae-prose' }, TEXT.intro), steps);
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
  add(c, 'weights', { caption: 'weights = softmax(row)', kind: 'weights' });
  const sums = h(doc, 'p', { class: 'ae-help ae-rowsums' });
  c.append(sums);
  const temperature = slider(doc, {
    label: TEXT.temperature,
    min: 0.1,
    max: 5,
    step: 0.05,
    digits: 2,
    onInput: (v) => app.setOptions({ temperature: v }),
  });
  temperature.input.classList.add('ae-temperature');
  const temperatureBox = h(
    doc,
    'details',
    { class: 'ae-details ae-temperature-details' },
    h(doc, 'summary', {}, TEXT.temperatureSummary),
    h(doc, 'p', { class: 'ae-help' }, TEXT.temperatureHelp),
    h(doc, 'div', { class: 'ae-knobs' }, temperature.el),
  );
  if (full) c.append(temperatureBox);
  const drop = dropout.render(c, app, add);
  c = card('output', 'Output = weights · V', '');
  add(c, 'out', { caption: 'weights · V' });
  const mergedBox = h(doc, 'div', {});
  c.append(mergedBox);
  add(mergedBox, 'merged', { caption: 'output' });
  const headsKey = createHeadsKey(doc);
  mergedBox.append(headsKey.el);
  // On a phone the scaling and the mask are read from their text and switches; their matrices fold.
  foldOnPhone(app, 'The scaled scores as numbers', [maps.scaled.el]);
  foldOnPhone(app, 'The masked scores as numbers', [maps.masked.el]);

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
      const said = pipelineTexts(o, f, (id) => app.shows(id));
      texts.scaled.textContent = said.scaled;
      texts.masked.textContent = said.masked;
      texts.output.textContent = said.output;
      sums.textContent = said.sums;
      // A temperature the reader (or a link) set is on: its knob is in view.
      if (o.temperature !== 1) temperatureBox.open = true;
      drawMatrices(maps, f, { ...common, shows: undefined }, headNote, said.mergedCaption);
      headsKey.update(f.heads);
    },
  };
}

// The step matrices of focus f: head f.head's scores … outputs, then all heads side by side (the
// output, when there is more than one head).
function drawMatrices(maps, f, common, headNote, mergedCaption) {
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
      colClass: (j) => headClass(Math.floor(j / hv)),
      caption: mergedCaption,
    });
}

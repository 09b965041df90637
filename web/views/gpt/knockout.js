// Knock out a head: for the sentence on screen and a chosen prediction (the token after one
// position, and a candidate for it), the next-token probabilities clean and with one head's
// output zeroed (or replaced by its mean over a reference text, said as such), the sentence's
// loss both ways, and every head knocked out in turn as a layer × head picture on a diverging
// scale centred on 0, filled block by block. Draws what lib/real/interpret-run.js holds; the
// sentences come from lib/real/interpret.js.
import { h, setOptions, uid } from '../../ui/dom.js';
import { colorScale, legendFor } from '../../lib/colormaps.js';
import { fmt } from '../../lib/format.js';
import { ablationClaim, comparisonScale, headName, sweepClaim } from '../../lib/real/interpret.js';

// A token's text as the chips show it (spaces as ␣).
const shown = (text) => text.replace(/ /g, '␣');

const TEXT = {
  title: 'Knock out a head',
  help: 'Attention pictures show where a head looks, not what it changes. Here the chosen head’s output is removed before the output projection and the model runs again on your sentence: choose the token whose next token is predicted, then a candidate among the bars.',
  position: 'Predict the token after',
  layer: 'Layer',
  head: 'Head',
  mode: 'Knock out by',
  zero: 'zeroing its output',
  mean: 'its mean output over a reference text',
  barsLabel: (t) => `Next-token probabilities after “${t}”, clean and with the head knocked out (choose a candidate)`,
  barsKey: ['clean', 'with the head knocked out'],
  clean: 'clean',
  ablated: 'knocked out',
  loss: (a) =>
    a.loss === null
      ? 'A one-token sentence has no loss to compare.'
      : `The sentence’s loss (mean −log p of each next token): ${fmt(a.loss, 3)} clean, ${fmt(a.ablatedLoss, 3)} with ${headName(a.layer, a.head)} knocked out.`,
  sweepTitle: 'Every head knocked out in turn',
  sweepHelp:
    'Each cell is the change of log p(candidate) when that one head is knocked out: red, the head was helping this prediction; blue, it was working against it. Filled one layer at a time.',
  sweep: 'Knock out every head',
  cancel: 'Stop',
  legend: 'change of log p(candidate) when knocked out; own scale, centred on 0',
  waiting: 'Run the model first.',
  refMean: 'The reference text for the mean: ',
};

/**
 * @param {Element} parent
 * @param {{doc, onChoose(patch), onSweep(), onCancel()}} ctx
 *   onChoose({position?, token?, layer?, head?, mode?}): the reader changed the choice
 * @returns {{update({pieces, choice, answers, sweep, sweepKey, config, reference, theme})}}
 */
export function render(parent, { doc, onChoose, onSweep, onCancel }) {
  const controls = renderControls(doc, { onChoose });
  const bars = renderBars(doc, { onChoose });
  const message = h(doc, 'p', { class: 'ae-learn-message', role: 'alert', hidden: true });
  const sweep = renderSweep(doc, { onChoose, onSweep, onCancel });
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    h(doc, 'p', { class: 'ae-help' }, TEXT.position),
    ...controls.els,
    message,
    ...bars.els,
    h(doc, 'h4', { class: 'ae-prose' }, TEXT.sweepTitle),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.sweepHelp),
    ...sweep.els,
  );
  return {
    update({ pieces, choice, answers, sweep: run, sweepKey, config, reference, theme }) {
      if (!pieces || !choice || !config) {
        bars.waiting();
        return;
      }
      controls.update({ pieces, choice, config, reference });
      message.hidden = !answers.error;
      message.textContent = answers.error ?? '';
      const a = answers.ablation;
      if (a) bars.update({ pieces, choice, a });
      sweep.update({ choice, config, a, sweep: run, sweepKey, theme });
    },
  };
}

// The choice: the position predicted from (a chip per token), the layer and head, and how the
// head is knocked out (the reference text shown for the mean).
function renderControls(doc, { onChoose }) {
  const select = (label, cls, onchange) => {
    const id = uid('ko');
    const el = h(doc, 'select', { id, class: cls, onchange: (e) => onchange(Number(e.target.value)) });
    return { el, wrap: h(doc, 'span', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', el) };
  };
  const layer = select(TEXT.layer, 'ae-ko-layer', (v) => onChoose({ layer: v }));
  const head = select(TEXT.head, 'ae-ko-head', (v) => onChoose({ head: v }));
  const modeName = uid('ko-mode');
  const radio = (value, label) =>
    h(
      doc,
      'label',
      { class: 'ae-ctl' },
      h(doc, 'input', { type: 'radio', name: modeName, value, onchange: () => onChoose({ mode: value }) }),
      ' ',
      label,
    );
  const modes = h(
    doc,
    'fieldset',
    { class: 'ae-ko-modes' },
    h(doc, 'legend', {}, TEXT.mode),
    radio('zero', TEXT.zero),
    radio('mean', TEXT.mean),
  );
  const positions = h(doc, 'p', { class: 'ae-ko-positions', role: 'group', 'aria-label': TEXT.position });
  const reference = h(doc, 'p', { class: 'ae-help ae-ko-reference', hidden: true });
  const numbered = (n) => Array.from({ length: n }, (_, i) => ({ value: i, label: `${i + 1}` }));
  const update = ({ pieces, choice, config, reference: refText }) => {
    setOptions(doc, layer.el, numbered(config.layers), choice.layer);
    setOptions(doc, head.el, numbered(config.heads), choice.head);
    for (const input of modes.querySelectorAll('input')) input.checked = input.value === choice.mode;
    reference.hidden = choice.mode !== 'mean';
    reference.textContent = TEXT.refMean + `“${refText}”`;
    positions.replaceChildren(
      ...pieces.map((p, i) =>
        h(
          doc,
          'button',
          {
            type: 'button',
            class: `ae-ko-position${i === choice.position ? ' ae-gpt-chosen' : ''}`,
            'aria-pressed': String(i === choice.position),
            dataset: { position: i },
            onclick: () => onChoose({ position: i, token: -1 }),
          },
          p.display.replace(/ /g, '␣'),
        ),
      ),
    );
  };
  return {
    els: [positions, h(doc, 'div', { class: 'ae-knobs ae-row' }, layer.wrap, head.wrap, modes), reference],
    update,
  };
}

// The prediction clean and knocked out: the claim, the bars (each a candidate to choose), the loss.
function renderBars(doc, { onChoose }) {
  const bars = h(doc, 'ol', { class: 'ae-gpt-bars ae-ko-bars' });
  const barsCaption = h(doc, 'p', { class: 'ae-help ae-ko-bars-caption' });
  const claim = h(doc, 'p', { class: 'ae-claim ae-ko-claim', 'aria-live': 'polite' });
  const loss = h(doc, 'p', { class: 'ae-help ae-ko-loss' });
  const key = h(
    doc,
    'p',
    { class: 'ae-legend ae-ko-bars-key' },
    h(doc, 'span', { class: 'ae-legend-swatch ae-ko-clean' }),
    TEXT.barsKey[0],
    h(doc, 'span', { class: 'ae-legend-swatch ae-ko-ablated' }),
    TEXT.barsKey[1],
  );
  const update = ({ pieces, choice, a }) => {
    const textOf = (id) => shown(a.rows.find((r) => r.id === id)?.text ?? `token ${id}`);
    claim.textContent = ablationClaim(a, choice.token, textOf);
    claim.dataset.before = String(a.probs[choice.token]);
    claim.dataset.after = String(a.ablatedProbs[choice.token]);
    barsCaption.textContent = TEXT.barsLabel(pieces[choice.position].display.replace(/ /g, '␣'));
    const max = comparisonScale(a.rows);
    bars.replaceChildren(...a.rows.map((r) => bar(doc, r, { max, chosen: r.id === choice.token, onChoose })));
    loss.textContent = TEXT.loss(a);
  };
  return {
    els: [claim, barsCaption, key, bars, loss],
    update,
    waiting: () => (claim.textContent = TEXT.waiting),
  };
}

// One candidate: its token (a button choosing it), its two bars (scaled to `max`), its two numbers.
function bar(doc, r, { max, chosen, onChoose }) {
  return h(
    doc,
    'li',
    {
      class: `ae-gpt-bar ae-ko-bar${chosen ? ' ae-gpt-bar-drawn' : ''}`,
      dataset: { id: r.id, clean: r.clean, ablated: r.ablated },
    },
    h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-gpt-bar-token ae-ko-candidate',
        'aria-pressed': String(chosen),
        onclick: () => onChoose({ token: r.id }),
      },
      shown(r.text),
    ),
    h(
      doc,
      'span',
      { class: 'ae-ko-pair' },
      h(doc, 'span', {
        class: 'ae-gpt-bar-fill ae-ko-clean',
        style: `width: ${(100 * r.clean) / max}%`,
        title: TEXT.clean,
      }),
      h(doc, 'span', {
        class: 'ae-gpt-bar-fill ae-ko-ablated',
        style: `width: ${(100 * r.ablated) / max}%`,
        title: TEXT.ablated,
      }),
    ),
    h(doc, 'span', { class: 'ae-gpt-bar-p' }, `${fmt(r.clean, 3)} → ${fmt(r.ablated, 3)}`),
  );
}

// Every head knocked out in turn: Run and Stop with the blocks measured, the layer × head picture
// (a cell chooses its head), its legend and the sentence. Shown only for the prediction on screen.
function renderSweep(doc, { onChoose, onSweep, onCancel }) {
  const go = h(doc, 'button', { type: 'button', class: 'ae-btn ae-ko-sweep', onclick: () => onSweep() }, TEXT.sweep);
  const stop = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn ae-ko-cancel', onclick: () => onCancel(), disabled: true },
    TEXT.cancel,
  );
  const progress = h(doc, 'progress', { class: 'ae-ko-progress', max: 1, value: 0, 'aria-label': 'blocks measured' });
  const grid = h(doc, 'div', { class: 'ae-ko-grid', role: 'group', 'aria-label': TEXT.sweepTitle });
  const legend = h(doc, 'p', { class: 'ae-legend ae-ko-legend' });
  const sweepClaimEl = h(doc, 'p', { class: 'ae-claim ae-ko-sweep-claim', 'aria-live': 'polite' });
  let shape = '';
  let cells = [];
  const update = ({ choice, config, a, sweep, sweepKey, theme }) => {
    const { layers: L, heads: H } = config;
    const key = `${L}x${H}`;
    if (key !== shape) {
      shape = key;
      cells = buildGrid(doc, grid, L, H, onChoose);
    }
    const mine = sweep.key === sweepKey && sweep.phase !== 'idle';
    const effect = mine ? sweep.effect : new Float32Array(L * H).fill(NaN);
    drawCells(cells, effect, { H, choice, color: colorScale('signed', Array.from(effect), theme) });
    const running = mine && sweep.phase === 'running';
    go.disabled = running;
    stop.disabled = !running;
    progress.max = L;
    progress.value = mine ? sweep.done : 0;
    drawLegend(doc, legend, legendFor('signed', Array.from(effect), theme));
    const text = shown(a?.text ?? '');
    sweepClaimEl.textContent = mine
      ? sweep.phase === 'failed'
        ? `The sweep stopped: ${sweep.message}`
        : sweepClaim(
            { effect, L, H, logProb: sweep.logProb, done: sweep.done, cancelled: sweep.phase === 'cancelled' },
            text,
          )
      : '';
  };
  return { els: [h(doc, 'div', { class: 'ae-row' }, go, stop, progress), grid, legend, sweepClaimEl], update };
}

// The sweep's grid for L layers × H heads: column and row labels, a button per head; returns the
// buttons, layer by layer.
function buildGrid(doc, grid, L, H, onChoose) {
  grid.replaceChildren();
  grid.style.setProperty('--ae-ko-heads', String(H));
  const cells = [];
  grid.append(h(doc, 'span', { class: 'ae-ko-corner' }));
  for (let hh = 0; hh < H; hh++) grid.append(h(doc, 'span', { class: 'ae-ko-collabel' }, `H${hh + 1}`));
  for (let l = 0; l < L; l++) {
    grid.append(h(doc, 'span', { class: 'ae-ko-rowlabel' }, `L${l + 1}`));
    for (let hh = 0; hh < H; hh++) {
      const cell = h(doc, 'button', {
        type: 'button',
        class: 'ae-ko-cell',
        dataset: { layer: l, head: hh },
        onclick: () => onChoose({ layer: l, head: hh }),
      });
      grid.append(cell);
      cells.push(cell);
    }
  }
  return cells;
}

// Colours each head's cell by its effect (NaN: not measured) and marks the chosen head.
function drawCells(cells, effect, { H, choice, color }) {
  cells.forEach((cell, i) => {
    const v = effect[i];
    const l = Math.floor(i / H),
      hh = i % H;
    cell.style.background = Number.isFinite(v) ? color(v) : '';
    cell.dataset.effect = Number.isFinite(v) ? String(v) : '';
    cell.classList.toggle('ae-gpt-chosen', l === choice.layer && hh === choice.head);
    cell.setAttribute(
      'aria-label',
      `${headName(l, hh)}${Number.isFinite(v) ? `: log p changes by ${fmt(v, 3)}` : ': not measured'}`,
    );
    cell.title = cell.getAttribute('aria-label');
  });
}

// The sweep's colour legend (lg: legendFor's {min, max, stops}).
function drawLegend(doc, legend, lg) {
  legend.replaceChildren(
    h(doc, 'span', { class: 'ae-legend-end' }, fmt(lg.min, 2)),
    h(doc, 'span', {
      class: 'ae-legend-bar',
      style: `background: linear-gradient(to right, ${lg.stops.join(', ')})`,
    }),
    h(doc, 'span', { class: 'ae-legend-end' }, fmt(lg.max, 2)),
    h(doc, 'span', { class: 'ae-legend-text' }, TEXT.legend),
  );
}

// Item 5: the knobs. Each control writes state.options; the page recomputes everything.
import { h, uid, setOptions, activeIn } from '../ui/dom.js';
import { checkbox, slider } from '../ui/controls.js';
import { fmtMicros } from '../lib/format.js';
import { attendArgs, timeAttention } from '../lib/compute.js';
import { validHeads, dims, KERNELS } from '../lib/state.js';

// The page's words for the knobs (teaching prose is data: kept out of the logic below).
const TEXT = {
  title: 'Knobs',
  intro: 'Every change recomputes the whole page.',
  projections: 'Learned projections W_Q, W_K, W_V (set by hand here)',
  projectionsHelp:
    'Off: raw attention as seed 003 first computes it — Q = K = V = X, scores X·Xᵀ, no scaling. Turning it off also turns the scaling off (and on again with it); the scaling box below still works on its own.',
  scale: 'Divide scores by √dₖ',
  scaleHelp: 'dₖ is the head size (the width of one head’s keys). Keeps dot products from growing with it.',
  causal: 'Causal mask',
  causalHelp: 'Each token may only look at itself and earlier tokens, as when generating text.',
  temperature: 'Temperature',
  temperatureHelp:
    'Every score is divided by it before the softmax: above 1 spreads the weight over more tokens, below 1 sharpens it toward the largest score, 1 changes nothing.',
  dropout: 'Dropout p',
  dropoutTraining:
    'Training mode: each weight is kept with probability 1 − p (and scaled by 1/(1 − p)) or set to 0, drawn from the seed.',
  dropoutEval: 'Evaluation mode (as model.eval()): dropout does nothing. Switch to training to see it drop weights.',
  kernelHelp:
    'Three ways to compute the same numbers: the reference kernel runs the seed’s loops one number at a time; vectorized multiplies whole matrices (with the Eigen library); SIMD uses hand-written kernels that do four multiplications per instruction. They agree to float32 rounding.',
  kernels: {
    reference: 'reference (the loops)',
    vectorized: 'vectorized (whole matrices)',
    simd: 'SIMD (4 numbers at a time)',
  },
};

export function render(section, app) {
  const { doc } = app;
  const set = (patch) => app.setOptions(patch);

  const check = (label, key, help) => checkbox(doc, { label, help, onChange: (on) => set({ [key]: on }) });
  const range = (label, key, min, max, step, digits) =>
    slider(doc, { label, min, max, step, digits, onInput: (v) => set({ [key]: v }) });

  // One switch gives seed 003's raw numbers: projections and scaling go off (and on) together.
  const projections = checkbox(doc, {
    label: TEXT.projections,
    help: TEXT.projectionsHelp,
    onChange: (on) => set({ projections: on, scale: on }),
  });
  const scale = check(TEXT.scale, 'scale', TEXT.scaleHelp);
  const causal = check(TEXT.causal, 'causal', TEXT.causalHelp);
  const temperature = range(TEXT.temperature, 'temperature', 0.1, 5, 0.05, 2);
  temperature.input.classList.add('ae-temperature');
  const temperatureHelp = h(doc, 'p', { class: 'ae-help' }, TEXT.temperatureHelp);
  const dropout = range(TEXT.dropout, 'dropout', 0, 0.9, 0.05, 2);
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
      set({ seed: v });
    },
  });
  const modeName = uid('mode');
  const train = h(doc, 'input', {
    type: 'radio',
    name: modeName,
    id: `${modeName}-t`,
    value: 'train',
    onchange: () => set({ training: true }),
  });
  const evalr = h(doc, 'input', {
    type: 'radio',
    name: modeName,
    id: `${modeName}-e`,
    value: 'eval',
    onchange: () => set({ training: false }),
  });
  const dropoutMode = h(
    doc,
    'fieldset',
    { class: 'ae-ctl ae-radio' },
    h(doc, 'legend', {}, 'Dropout mode'),
    h(doc, 'span', {}, train, h(doc, 'label', { for: `${modeName}-t` }, 'training')),
    h(doc, 'span', {}, evalr, h(doc, 'label', { for: `${modeName}-e` }, 'evaluation')),
  );

  const headsId = uid('opt');
  const headsSel = h(doc, 'select', { id: headsId, onchange: (e) => set({ heads: Number(e.target.value), head: 0 }) });
  const headSize = h(doc, 'p', { class: 'ae-help' });
  const headId = uid('opt');
  const headSel = h(doc, 'select', { id: headId, onchange: (e) => set({ head: Number(e.target.value) }) });
  const kernelId = uid('opt');
  const kernelSel = h(doc, 'select', { id: kernelId, onchange: (e) => set({ kernel: e.target.value }) });
  setOptions(
    doc,
    kernelSel,
    KERNELS.map((k) => ({ value: k, label: TEXT.kernels[k] })),
    'simd',
  );
  const timing = h(doc, 'p', { class: 'ae-help ae-timing', 'aria-live': 'off' });

  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    h(
      doc,
      'div',
      { class: 'ae-controls' },
      h(
        doc,
        'fieldset',
        { class: 'ae-group' },
        h(doc, 'legend', {}, 'Scores'),
        projections.el,
        scale.el,
        temperature.el,
        temperatureHelp,
        causal.el,
      ),
      h(
        doc,
        'fieldset',
        { class: 'ae-group' },
        h(doc, 'legend', {}, 'Dropout on the weights'),
        dropout.el,
        dropoutHelp,
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: seedId }, 'Seed '), seed),
        dropoutMode,
      ),
      h(
        doc,
        'fieldset',
        { class: 'ae-group' },
        h(doc, 'legend', {}, 'Heads and kernel'),
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headsId }, 'Heads '), headsSel, headSize),
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headId }, 'Show head '), headSel),
        h(
          doc,
          'div',
          { class: 'ae-ctl' },
          h(doc, 'label', { for: kernelId }, 'Kernel '),
          kernelSel,
          h(doc, 'p', { class: 'ae-help' }, TEXT.kernelHelp),
          timing,
        ),
      ),
    ),
  );

  // The kernel's time per call, measured over repeated calls once the page is idle (one call of
  // the bank example takes ~10 µs, below the browser clock's resolution), never during a drag.
  let timer = 0;
  let measuredKey = '';
  function scheduleTiming(state) {
    const key = JSON.stringify([state.vocab, state.contexts[state.focus], state.weights, state.options]);
    if (key === measuredKey) return;
    app.win.clearTimeout(timer);
    timing.textContent = `Measuring the ${state.options.kernel} kernel…`;
    timer = app.win.setTimeout(() => {
      if (app.dragging) return scheduleTiming(app.state);
      measuredKey = key;
      const s = app.state;
      const m = timeAttention(app.engine, attendArgs(s, s.contexts[s.focus]), () => app.win.performance.now());
      timing.textContent = m
        ? `One call for “${s.focus}” with the ${m.kernel} kernel: ${fmtMicros(m.microseconds)} (the average of ${m.calls} calls; every intermediate kept).`
        : 'No successful computation yet.';
    }, 250);
  }

  return {
    destroy: () => app.win.clearTimeout(timer),
    update() {
      const { state, results } = app;
      const o = state.options;
      for (const [c, key] of [
        [projections, 'projections'],
        [scale, 'scale'],
        [causal, 'causal'],
        [temperature, 'temperature'],
        [dropout, 'dropout'],
      ])
        c.sync(o[key]);
      if (activeIn(seed) !== seed) seed.value = String(o.seed);
      train.checked = o.training;
      evalr.checked = !o.training;
      dropoutHelp.textContent = o.training ? TEXT.dropoutTraining : TEXT.dropoutEval;
      const valid = validHeads(state);
      setOptions(
        doc,
        headsSel,
        valid.map((n) => ({ value: n, label: String(n) })),
        o.heads,
      );
      const { D, dk, dv } = dims(state);
      const [k, v] = o.projections ? [dk, dv] : [D, D];
      headSize.textContent =
        `head size: dₖ = ${k}/${o.heads} = ${k / o.heads} columns of Q and K per head (of ${k}), ${v}/${o.heads} = ${v / o.heads} of V` +
        (valid.length === 1
          ? `. More heads need widths they divide (now ${k} for Q and K, ${v} for V; see “Many heads”).`
          : '');
      setOptions(
        doc,
        headSel,
        Array.from({ length: o.heads }, (_, i) => ({ value: i, label: `head ${i}` })),
        o.head,
      );
      headSel.disabled = o.heads === 1;
      kernelSel.value = o.kernel;
      scheduleTiming(state);
    },
  };
}

// Item 5: the knobs. Each control writes state.options; the page recomputes everything.
import { h, uid, setOptions, activeIn } from '../ui/dom.js';
import { checkbox, slider } from '../ui/controls.js';
import { fmt, fmtMs } from '../lib/format.js';
import { validHeads, dims, KERNELS } from '../lib/state.js';

export function render(section, app) {
  const { doc } = app;
  const set = (patch) => app.setOptions(patch);

  const check = (label, key, help) => checkbox(doc, { label, help, onChange: (on) => set({ [key]: on }) });
  const range = (label, key, min, max, step, digits) =>
    slider(doc, { label, min, max, step, digits, onInput: (v) => set({ [key]: v }) });

  const projections = check('Learned projections W_Q, W_K, W_V', 'projections', 'Off: raw attention, Q = K = V = X, scores X·Xᵀ.');
  const scale = check('Divide scores by √dₖ', 'scale', 'Keeps dot products from growing with the head size.');
  const causal = check('Causal mask', 'causal', 'Each token may only look at itself and earlier tokens.');
  const temperature = range('Temperature', 'temperature', 0.1, 5, 0.05, 2);
  temperature.input.classList.add('ae-temperature');
  const dropout = range('Dropout p', 'dropout', 0, 0.9, 0.05, 2);

  const seedId = uid('opt');
  const seed = h(doc, 'input', {
    type: 'number', id: seedId, min: 0, max: 2147483647, step: 1, inputmode: 'numeric',
    onchange: (e) => {
      const v = Number(e.target.value);
      if (!Number.isInteger(v) || v < 0 || v > 2147483647) { app.notify(`dropout seed: expected a whole number in 0..2147483647, got "${e.target.value}"`); return; }
      set({ seed: v });
    },
  });
  const modeName = uid('mode');
  const train = h(doc, 'input', { type: 'radio', name: modeName, id: `${modeName}-t`, value: 'train', onchange: () => set({ training: true }) });
  const evalr = h(doc, 'input', { type: 'radio', name: modeName, id: `${modeName}-e`, value: 'eval', onchange: () => set({ training: false }) });
  const dropoutMode = h(doc, 'fieldset', { class: 'ae-ctl ae-radio' },
    h(doc, 'legend', {}, 'Dropout mode'),
    h(doc, 'span', {}, train, h(doc, 'label', { for: `${modeName}-t` }, 'training')),
    h(doc, 'span', {}, evalr, h(doc, 'label', { for: `${modeName}-e` }, 'evaluation')));

  const headsId = uid('opt');
  const headsSel = h(doc, 'select', { id: headsId, onchange: (e) => set({ heads: Number(e.target.value), head: 0 }) });
  const headSize = h(doc, 'p', { class: 'ae-help' });
  const headId = uid('opt');
  const headSel = h(doc, 'select', { id: headId, onchange: (e) => set({ head: Number(e.target.value) }) });
  const kernelId = uid('opt');
  const kernelSel = h(doc, 'select', { id: kernelId, onchange: (e) => set({ kernel: e.target.value }) });
  setOptions(doc, kernelSel, KERNELS.map((k) => ({ value: k, label: { reference: 'reference (the loops)', vectorized: 'vectorized (Eigen)', simd: 'SIMD (f32x4)' }[k] })), 'simd');
  const timing = h(doc, 'p', { class: 'ae-help ae-timing', 'aria-live': 'off' });

  section.append(
    h(doc, 'h2', {}, 'Knobs'),
    h(doc, 'p', {}, 'Every change recomputes the whole page.'),
    h(doc, 'div', { class: 'ae-controls' },
      h(doc, 'fieldset', { class: 'ae-group' }, h(doc, 'legend', {}, 'Scores'), projections.el, scale.el, temperature.el, causal.el),
      h(doc, 'fieldset', { class: 'ae-group' }, h(doc, 'legend', {}, 'Dropout on the weights'), dropout.el,
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: seedId }, 'Seed '), seed), dropoutMode),
      h(doc, 'fieldset', { class: 'ae-group' }, h(doc, 'legend', {}, 'Heads and kernel'),
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headsId }, 'Heads '), headsSel, headSize),
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headId }, 'Show head '), headSel),
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: kernelId }, 'Kernel '), kernelSel, timing))),
  );

  return {
    update() {
      const { state, results } = app;
      const o = state.options;
      for (const [c, key] of [[projections, 'projections'], [scale, 'scale'], [causal, 'causal'], [temperature, 'temperature'], [dropout, 'dropout']]) c.sync(o[key]);
      if (activeIn(seed) !== seed) seed.value = String(o.seed);
      train.checked = o.training; evalr.checked = !o.training;
      const valid = validHeads(state);
      setOptions(doc, headsSel, valid.map((n) => ({ value: n, label: String(n) })), o.heads);
      const { D, dk, dv } = dims(state);
      const [k, v] = o.projections ? [dk, dv] : [D, D];
      headSize.textContent = `head size: dₖ/H = ${k}/${o.heads} = ${k / o.heads} for queries and keys, ${v}/${o.heads} = ${v / o.heads} for values` +
        (valid.length === 1 ? `. More heads need a dₖ and d_v they divide (now ${k} and ${v}; see “Many heads”).` : '');
      setOptions(doc, headSel, Array.from({ length: o.heads }, (_, i) => ({ value: i, label: `head ${i}` })), o.head);
      headSel.disabled = o.heads === 1;
      kernelSel.value = o.kernel;
      const first = Object.values(results.contexts).find((e) => e.trace && !e.stale);
      timing.textContent = first
        ? `Last computation: ${fmtMs(first.trace.ms)} per context with the ${first.trace.kernel} kernel (all engine calls for this update: ${fmtMs(results.ms)}).`
        : 'No successful computation yet.';
    },
  };
}

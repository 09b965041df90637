// Dropout on the softmax weights (training only), in the weights' step: each weight kept with
// probability 1 − p (and scaled by 1/(1 − p)) or set to 0, drawn from a seed. With full controls
// the rate, the seed and the mode sit one click deeper, and the details open by themselves the
// first time dropout acts (a shared link, an embed's attributes).
import { h, uid, activeIn } from '../../ui/dom.js';
import { radios, slider } from '../../ui/controls.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  dropout: 'Dropout p',
  summary: 'Dropout on the weights (training only)',
  legend: 'Dropout on the weights',
  training:
    'Training mode: each weight is kept with probability 1 − p (and scaled by 1/(1 − p)) or set to 0, drawn from the seed.',
  eval: 'Evaluation mode (as model.eval()): dropout does nothing. Switch to training to see it drop weights.',
  badSeed: (text) => `dropout seed: expected a whole number in 0..2147483647, got "${text}"`,
  caption: (o, headNote) =>
    `after dropout p = ${fmt(o.dropout, 2)}, seed ${o.seed} (kept weights × 1/(1 − p))${headNote}`,
};
const MAX_SEED = 2147483647;

/**
 * @param {Element} card  the weights step's card
 * @param {object} app
 * @param {(box, key, opts) => void} add  the pipeline's heatmap maker
 * @returns {{update(state, focus, common, headNote)}}  common: the step matrices' shared options
 */
export function render(card, app, add) {
  const { doc } = app;
  const full = app.controls === 'full';
  const rate = slider(doc, {
    label: TEXT.dropout,
    min: 0,
    max: 0.9,
    step: 0.05,
    digits: 2,
    onInput: (v) => app.setOptions({ dropout: v }),
  });
  const help = h(doc, 'p', { class: 'ae-help ae-dropout-help' });
  const seedId = uid('opt');
  const seed = h(doc, 'input', {
    type: 'number',
    id: seedId,
    min: 0,
    max: MAX_SEED,
    step: 1,
    inputmode: 'numeric',
    onchange: (e) => {
      const v = Number(e.target.value);
      if (!Number.isInteger(v) || v < 0 || v > MAX_SEED) app.notify(TEXT.badSeed(e.target.value));
      else app.setOptions({ seed: v });
    },
  });
  const mode = radios(doc, {
    legend: 'Dropout mode',
    choices: [
      ['train', 'training'],
      ['eval', 'evaluation'],
    ],
    onChange: (v) => app.setOptions({ training: v === 'train' }),
    className: 'ae-ctl ae-radio',
  });
  const details = h(doc, 'details', { class: 'ae-details ae-dropout-details' }, h(doc, 'summary', {}, TEXT.summary));
  const box = h(doc, 'div', {});
  if (full) {
    details.append(
      h(
        doc,
        'fieldset',
        { class: 'ae-group ae-dropout' },
        h(doc, 'legend', {}, TEXT.legend),
        rate.el,
        help,
        h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: seedId }, 'Seed '), seed),
        mode.el,
      ),
      box,
    );
    card.append(details);
  } else card.append(box);
  const dropped = add(box, 'dropped', { caption: 'after dropout', kind: 'weights' });
  let shown = false;

  return {
    update(state, f, common, headNote) {
      const o = state.options;
      rate.sync(o.dropout);
      if (activeIn(seed) !== seed) seed.value = String(o.seed);
      mode.sync(o.training ? 'train' : 'eval');
      help.textContent = o.training ? TEXT.training : TEXT.eval;
      if (!f) return;
      box.hidden = !f.dropping;
      // Dropout that acts opens its details once.
      if (f.dropping && !shown) details.open = shown = true;
      if (f.dropping)
        dropped.update({
          ...common,
          masked: f.isMasked,
          values: f.trace.dropped[f.head],
          caption: TEXT.caption(o, headNote),
        });
    },
  };
}

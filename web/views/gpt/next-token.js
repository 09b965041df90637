// The next token: the ten most likely tokens after the sentence as bars, with the temperature,
// top-k and top-p that reshape the distribution, and a draw with a seed (torch.multinomial's
// draw after torch.manual_seed, as generate makes it) that the reader may append.
import { h } from '../../ui/dom.js';
import { slider } from '../../ui/controls.js';
import { fmt } from '../../lib/format.js';
import { GPT_LIMITS } from '../../lib/real/gpt-state.js';
import { listedCandidates } from '../../lib/real/view.js';
import { foldOnPhone } from '../../ui/fold.js';

const TEXT = {
  title: 'The next token',
  help: 'The last position’s logits, divided by the temperature, cut to the top k and the top p, then a softmax: the probability of each token coming next.',
  temperature: 'Temperature',
  topK: 'Top-k (0: all)',
  topP: 'Top-p',
  seed: 'Seed',
  append: 'Append the drawn token',
};

/**
 * @param {Element} parent
 * @param {{doc, onOptions(patch), onAppend(token)}} ctx
 * @returns {{update({options, next})}}
 */
export function render(parent, { doc, app, onOptions, onAppend }) {
  const temperature = slider(doc, {
    label: TEXT.temperature,
    min: 0,
    max: 2,
    step: 0.05,
    digits: 2,
    onInput: (v) => onOptions({ temperature: v }),
  });
  const topP = slider(doc, {
    label: TEXT.topP,
    min: 0.05,
    max: 1,
    step: 0.05,
    digits: 2,
    onInput: (v) => onOptions({ topP: v }),
  });
  const number = (label, key, max) => {
    const input = h(doc, 'input', {
      type: 'number',
      min: 0,
      max,
      step: 1,
      onchange: (e) => {
        const v = Number(e.target.value);
        if (Number.isInteger(v) && v >= 0 && v <= max) onOptions({ [key]: v });
      },
    });
    return { input, el: h(doc, 'label', { class: 'ae-ctl' }, `${label} `, input) };
  };
  const topK = number(TEXT.topK, 'topK', GPT_LIMITS.topK);
  const seed = number(TEXT.seed, 'seed', 2 ** 31 - 1);
  const bars = h(doc, 'ol', { class: 'ae-gpt-bars' });
  const leftOut = h(doc, 'p', { class: 'ae-help ae-gpt-left-out' });
  const drawn = h(doc, 'p', { class: 'ae-claim ae-gpt-drawn', 'aria-live': 'polite' });
  let last = null;
  const append = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn ae-gpt-append', onclick: () => last?.token !== null && onAppend(last.token) },
    TEXT.append,
  );
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    h(doc, 'div', { class: 'ae-knobs ae-row' }, temperature.el, topK.el, topP.el, seed.el),
    bars,
    leftOut,
    h(doc, 'div', { class: 'ae-row' }, drawn, append),
  );
  // On a phone: the temperature and the bars; the rest of the sampling one tap deeper.
  if (app) foldOnPhone(app, 'Top-k, top-p and the seed of the draw', [topK.el, topP.el, seed.el]);
  return {
    update({ options, next }) {
      temperature.sync(options.temperature);
      topP.sync(options.topP);
      if (topK.input.getRootNode?.().activeElement !== topK.input) topK.input.value = String(options.topK);
      if (seed.input.getRootNode?.().activeElement !== seed.input) seed.input.value = String(options.seed);
      last = next;
      if (!next) return;
      const max = next.topProbs[0] || 1;
      const listed = listedCandidates(next, options);
      bars.replaceChildren(
        ...listed.shown.map(({ id, p, text, title }) =>
          h(
            doc,
            'li',
            { class: `ae-gpt-bar${id === next.token ? ' ae-gpt-bar-drawn' : ''}`, dataset: { id, p } },
            h(doc, 'span', { class: 'ae-gpt-bar-token', ...(title ? { title } : {}) }, text),
            h(doc, 'span', { class: 'ae-gpt-bar-fill', style: `width: ${(100 * p) / max}%` }),
            h(doc, 'span', { class: 'ae-gpt-bar-p' }, fmt(p, 3)),
          ),
        ),
      );
      leftOut.textContent = listed.leftOut ?? '';
      leftOut.hidden = !listed.leftOut;
      const n = Array.from(next.topTokens).indexOf(next.token);
      drawn.textContent =
        next.token === null
          ? ''
          : `With seed ${options.seed} the draw is “${n >= 0 ? next.topText[n] : `token ${next.token}`}”${n >= 0 ? ` (probability ${fmt(next.topProbs[n], 3)})` : ''}.`;
      append.disabled = next.token === null;
    },
  };
}

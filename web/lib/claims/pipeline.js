// What "Step by step" says beside each step's matrix, from the state and the trace: the scaling
// with its factor (and the temperature, when the reader set one), the mask and why a model has
// one, whether every row of weights sums to 1, and what the output is with several heads. Pure.
import { fmt } from '../format.js';
import { joinAnd, q } from './words.js';

const TEXT = {
  scaleOn: (hk, factor, why) =>
    `Every score × 1/√dₖ = 1/√${hk} = ${factor} (dₖ: the head size). Wider vectors give larger dot products, and a softmax of large scores gives one token nearly all the weight${why ? ' (“Why ÷√dₖ”, below)' : ''}.`,
  scaleOff: 'Scaling is off: the scores go to the softmax as they are.',
  temperature: (t) => ` Then divided by the temperature you set, ${t} (an exploration knob; real attention has none).`,
  maskOn:
    'Causal mask on: no token sees the ones after it (their scores become −∞, their weights 0). A model that writes text predicts each next token, so it must not see it.',
  maskOff: (word, after) =>
    `No mask: each token sees every token, before and after it, as reading a whole sentence allows${word ? ` (${joinAnd(after.map(q))} ${after.length === 1 ? 'comes' : 'come'} after ${q(word)})` : ''}. A model that writes text must not see ahead: switch the mask on.`,
  sums: (n) => `Every row sums to ${fmt(1)} (${n} rows).`,
  sumsEach: (list) => `Row sums: ${list}`,
  output:
    'Row i adds up every token’s value vector, its own included, each weighted by row i of the weights: the new vector of token i.',
  outputHeads: (H) =>
    ` With ${H} heads, each head does this with its own weights and its own value columns, and the heads’ outputs are put side by side: the output.`,
  mergedCaption: (H, size) => `output: the ${H} heads side by side (${size})`,
};

// Without the mask, the words after the shared word are what it may now see.
function maskOff(f) {
  const i = f.highlightRows[0];
  const after = i === undefined ? [] : f.tokens.slice(i + 1);
  return TEXT.maskOff(after.length ? f.tokens[i] : '', after);
}

/**
 * @param {object} options  state.options
 * @param {object} f  lib/focus.js focusView of the focused sentence
 * @param {(id: string) => boolean} [shows]  whether section `id` is shown too (app.shows): a
 *   sentence points at another section only where it is there
 * @returns {{scaled: string, masked: string, sums: string, output: string, mergedCaption: string}}
 */
export function pipelineTexts(options, f, shows = () => true) {
  const rowSums = f.trace.weights[f.head].map((r) => r.reduce((a, b) => a + b, 0));
  const merged = f.trace.merged;
  return {
    scaled:
      (options.scale ? TEXT.scaleOn(f.hk, fmt(f.trace.scale, 4), shows('scaling')) : TEXT.scaleOff) +
      (options.temperature !== 1 ? TEXT.temperature(fmt(options.temperature, 2)) : ''),
    masked: options.causal ? TEXT.maskOn : maskOff(f),
    sums: rowSums.every((x) => fmt(x) === fmt(1))
      ? TEXT.sums(rowSums.length)
      : TEXT.sumsEach(rowSums.map((x, i) => `${f.tokens[i]} ${fmt(x)}`).join(', ')),
    output: TEXT.output + (f.heads > 1 ? TEXT.outputHeads(f.heads) : ''),
    mergedCaption: TEXT.mergedCaption(f.heads, `${merged.length} × ${merged[0].length}`),
  };
}

// The map of the whole transformer (views/map.js draws it, views/overview.js names where the
// reader is): its blocks in the order a token goes through them, the section that explains each,
// which blocks a section is about ("you are here"), and the shapes written in each block — the
// toy example's, live from the state (T tokens, D numbers each, H heads of dₖ), or the real
// model's where the reader is in its part of the page. Pure; tests/js/lib/map.test.mjs.
import { focusView } from './focus.js';

// "3 × 4" that never breaks inside a box.
const by = (...n) => n.join('\u202f×\u202f');

// Each block: its label (and a longer accessible name where the label is a sign), the section
// that explains it, and whether it is inside the repeated block of layers.
export const BLOCKS = Object.freeze([
  { id: 'tokens', label: 'Tokens', target: 'contexts' },
  { id: 'embed', label: 'Embedding + position', target: 'order' },
  { id: 'ln1', label: 'LayerNorm', target: 'next', layer: true },
  { id: 'attention', label: 'Self-attention', target: 'pipeline', layer: true },
  { id: 'add1', label: '+', name: 'add to the residual stream', target: 'next', layer: true },
  { id: 'ln2', label: 'LayerNorm', target: 'next', layer: true },
  { id: 'mlp', label: 'MLP', target: 'next', layer: true },
  { id: 'add2', label: '+', name: 'add to the residual stream', target: 'next', layer: true },
  { id: 'lnf', label: 'LayerNorm', target: 'next' },
  { id: 'unembed', label: 'Unembedding', target: 'next' },
  { id: 'probs', label: 'Probabilities', target: 'next' },
]);

const ALL = BLOCKS.map((b) => b.id);
const ATTENTION = ['attention'];
// The blocks each section is about; a section not named is about none of them.
const SECTION_BLOCKS = Object.freeze({
  contexts: ATTENTION,
  averaging: ATTENTION,
  naive: ['embed', 'attention'],
  qkv: ATTENTION,
  plane: ATTENTION,
  pipeline: ATTENTION,
  lines: ATTENTION,
  scaling: ATTENTION,
  loops: ATTENTION,
  heads: ATTENTION,
  order: ['embed'],
  formula: ATTENTION,
  next: ['ln1', 'add1', 'ln2', 'mlp', 'add2', 'lnf', 'unembed', 'probs'],
  learn: ALL,
  gpt: ALL,
  notebook: ATTENTION,
});

/** The blocks lit while section `id` is where the reader is. */
export const blocksFor = (id) => SECTION_BLOCKS[id] ?? [];

/** The shapes a section is about: the real model's in its part of the page, else the toy example's. */
export const modeFor = (id) => (['next', 'gpt'].includes(id) ? 'real' : 'toy');

const TEXT = {
  noPositions: 'no positions here',
  toyLayers: '(the toy example: one, attention only)',
  layers: (L) => `× ${L}`,
  toyCaption: ({ T, D, H, hk, name }) =>
    `Shapes of the toy example, live: T = ${T} tokens (“${name}”), D = ${D} numbers each, H = ${H} head${H === 1 ? '' : 's'} of dₖ = ${hk}. It is one attention layer: the greyed boxes are not in it.`,
  realCaption: ({ name, L, C, H, V }) =>
    `Shapes of the real model of “What happens next” and “A real model”, ${name}: ${L} layers, D = ${C}, H = ${H} heads, a vocabulary of V = ${V} tokens; T is the number of tokens of your sentence.`,
  realWaiting: 'The real model’s shapes appear here once it has opened (in “What happens next” or “A real model”).',
};

/** The toy example's sizes: the focused sentence through the state's attention. */
export function toySizes(state, results) {
  const f = focusView(state, results);
  if (!f) return null;
  const T = f.tokens.length;
  return {
    T,
    D: f.entry.x[0].length,
    H: f.heads,
    hk: f.hk,
    hv: f.hv,
    out: f.trace.output[0].length,
    name: f.name,
  };
}

/**
 * What each block says: its shape lines (none: the block is not in the model shown), the
 * repeated block's count and the caption.
 * @param {'toy'|'real'} mode
 * @param {object|null} toy  toySizes()
 * @param {{name: string, config: object}|null} real  the real model's info (its config), if open
 * @returns {{shapes: Object<string, string[]>, absent: string[], layers: string, caption: string, mode}}
 */
export function mapShapes(mode, toy, real) {
  if (mode === 'real' && real?.config) return realShapes(real);
  if (mode === 'real') return { mode, shapes: {}, absent: [], layers: '', caption: TEXT.realWaiting };
  if (!toy) return { mode, shapes: {}, absent: [], layers: '', caption: '' };
  const { T, D, H, hk, out } = toy;
  return {
    mode,
    shapes: {
      tokens: [`T = ${T}`],
      embed: [by(T, D), TEXT.noPositions],
      attention: [`${H} head${H === 1 ? '' : 's'} · dₖ ${hk}`, `weights ${by(H, T, T)}`, `out ${by(T, out)}`],
    },
    absent: ['ln1', 'add1', 'ln2', 'mlp', 'add2', 'lnf', 'unembed', 'probs'],
    layers: TEXT.toyLayers,
    caption: TEXT.toyCaption(toy),
  };
}

function realShapes({ name, config: c }) {
  const C = c.width;
  const H = c.heads;
  const V = c.vocabSize;
  const x = by('T', C);
  const ln = c.layerNorm === false ? [] : [x];
  return {
    mode: 'real',
    absent: [...(c.layerNorm === false ? ['ln1', 'ln2', 'lnf'] : []), ...(c.mlp === false ? ['mlp', 'add2'] : [])],
    shapes: {
      tokens: [`T ≤ ${c.contextLength}`],
      embed: [x, '+ position'],
      ln1: ln,
      attention: [`${H} heads · dₖ ${C / H}`, `weights ${by(H, 'T', 'T')}`, `out ${x}`],
      add1: [x],
      ln2: ln,
      mlp: c.mlp === false ? [] : [`${x} → ${4 * C} → ${C}`],
      add2: [x],
      lnf: ln,
      unembed: [by('T', V)],
      probs: [`${V} for the next`],
    },
    layers: TEXT.layers(c.layers),
    caption: TEXT.realCaption({ name, L: c.layers, C, H, V }),
  };
}

// The page's state for the tests of links, snippets and scripts (tests/js/lib/share.test.mjs,
// tools/embed-dialog.test.mjs, lib/pytorch-script.test.mjs …): the notebook's example, written
// out from seed 003's numbers as notebookState() builds it from engine.examples(), the page's
// default (the same with W_Q and W_K that look for the context word, as defaultState() builds
// it) — independent copies, so a change of either side fails the tests — an edited one, and a
// tiny one.
import { defaultState } from '../../web/lib/state.js';

// The default state of the page (what defaultState() produces).
export function defaults() {
  const s = notebook();
  s.weights.wq = [
    [0, 0],
    [0, 0],
    [5, 0],
    [0, 0],
  ];
  s.weights.wk = [
    [0, 0],
    [0, 0],
    [0, 0],
    [5, 0],
  ];
  return s;
}

// Seed 003's example with its own hand-set weights (what notebookState() produces; the defaults
// of links of format 1).
export function notebook() {
  return {
    v: 2,
    example: 'both',
    vocab: {
      stream: [1.2, 0.0, 0.0, 0.3],
      mud: [0.9, 0.0, 0.0, 0.9],
      money: [0.0, 1.4, 0.0, 0.1],
      loan: [0.0, 1.1, 0.0, 0.6],
      bank: [0.8, 0.8, 0.2, 0.0],
    },
    contexts: { river: ['stream', 'bank', 'mud'], finance: ['money', 'bank', 'loan'] },
    weights: {
      wq: [
        [1, 0],
        [0, 1],
        [0.2, 0.2],
        [0, 0],
      ],
      wk: [
        [1, 0],
        [0, 1],
        [0, 0],
        [0.1, 0.1],
      ],
      wv: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
        [0, 0, 0.5],
      ],
      w: [
        [1, 0.2, 0],
        [0.1, 1.1, 0],
        [0.5, 0.5, 1],
        [0, 0.3, 0.8],
      ],
    },
    options: {
      projections: true,
      scale: true,
      causal: false,
      temperature: 1,
      dropout: 0,
      seed: 0,
      training: false,
      heads: 1,
      head: 0,
      kernel: 'simd',
    },
    focus: 'river',
    view: ['all'],
    step: 0,
    selected: null,
    theme: 'auto',
  };
}

/** The defaults edited everywhere a link can carry: words, vectors, weights, options, view, step. */
export function edited() {
  const s = defaults();
  s.example = 'river';
  s.vocab.bank = [0.8125, -0.1, 1e-7, 123.456789012345];
  s.vocab['naïve “word”'] = [0.1, 0.2, 0.3, 0.4];
  s.contexts.river = ['stream', 'naïve “word”', 'bank', 'mud'];
  s.weights.wq[2][1] = -0.333333333333;
  // Two heads need an even dv as well as an even dk.
  s.weights.wv = [
    [1, 0, 0, 0.5],
    [0, 1, 0, 0],
    [0, 0, 1, 0],
    [0, 0, 0.5, -2],
  ];
  s.options = { ...s.options, causal: true, temperature: 0.7, heads: 2, head: 1, scale: 0.25, kernel: 'reference' };
  s.view = ['scores', 'weights', 'output'];
  s.step = 3;
  s.selected = { matrix: 'weights', row: 1, col: 0 };
  s.theme = 'dark';
  return s;
}

/** lib/state.js's default state over a one-word example (for tests of the parts beside the numbers). */
export function tinyState() {
  return defaultState({
    vocabulary: { a: [1, 2] },
    contexts: { river: ['a'], finance: ['a'] },
    W_query: [[1], [1]],
    W_key: [[1], [1]],
    W_value: [[1], [1]],
    W: [[1], [1]],
  });
}

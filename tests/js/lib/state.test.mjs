// Unit tests of web/lib/state.js: the seed state and the editing transitions with their bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultState,
  notebookState,
  CONTEXT_SEEKING_QK,
  setValue,
  addToken,
  removeToken,
  moveToken,
  addWord,
  removeWord,
  resize,
  validHeads,
  sharedWords,
  dims,
  LIMITS,
  parseWordVector,
  resetTo,
} from '../../../web/lib/state.js';

// Shaped like engine.examples(): float32 values widened to doubles.
const f = Math.fround;
const EXAMPLES = {
  vocabulary: {
    stream: [f(1.2), 0, 0, f(0.3)],
    mud: [f(0.9), 0, 0, f(0.9)],
    money: [0, f(1.4), 0, f(0.1)],
    loan: [0, f(1.1), 0, f(0.6)],
    bank: [f(0.8), f(0.8), f(0.2), 0],
  },
  W: [
    [1, f(0.2), 0],
    [f(0.1), f(1.1), 0],
    [0.5, 0.5, 1],
    [0, f(0.3), f(0.8)],
  ],
  W_query: [
    [1, 0],
    [0, 1],
    [f(0.2), f(0.2)],
    [0, 0],
  ],
  W_key: [
    [1, 0],
    [0, 1],
    [0, 0],
    [f(0.1), f(0.1)],
  ],
  W_value: [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [0, 0, 0.5],
  ],
  contexts: { river: ['stream', 'bank', 'mud'], finance: ['money', 'bank', 'loan'] },
};
const seed = () => defaultState(EXAMPLES);

test('NotebookState_HoldsSeed003WithItsShortDecimals', () => {
  const s = notebookState(EXAMPLES);
  assert.deepEqual(s.vocab.stream, [1.2, 0, 0, 0.3]);
  assert.deepEqual(s.weights.wq[2], [0.2, 0.2]);
  assert.deepEqual(s.contexts.finance, ['money', 'bank', 'loan']);
  assert.deepEqual(dims(s), { D: 4, dk: 2, dv: 3 });
  assert.equal(s.options.kernel, 'simd');
  assert.deepEqual(sharedWords(s), ['bank']);
});

test('DefaultState_IsTheNotebooksExampleWithContextSeekingQueriesAndKeys', () => {
  const s = seed();
  const n = notebookState(EXAMPLES);
  assert.deepEqual(s.weights.wq, CONTEXT_SEEKING_QK.wq);
  assert.deepEqual(s.weights.wk, CONTEXT_SEEKING_QK.wk);
  assert.deepEqual(s.weights.wv, n.weights.wv, 'W_V is the notebook’s');
  assert.deepEqual(s.weights.w, n.weights.w, 'W is the notebook’s');
  assert.deepEqual({ ...s, weights: null }, { ...n, weights: null }, 'everything else is the notebook’s');
  assert.deepEqual(dims(s), { D: 4, dk: 2, dv: 3 });
  // Another width has no context-seeking weights: the example as it is.
  const narrow = { ...EXAMPLES, vocabulary: { a: [1, 2] }, contexts: { river: ['a'], finance: ['a'] } };
  assert.deepEqual(defaultState({ ...narrow, W_query: [[1], [1]], W_key: [[1], [1]] }).weights.wq, [[1], [1]]);
});

test('SetValue_EditsOneNumberWithoutMutatingAndRefusesOutOfRangeValues', () => {
  const s = seed();
  const a = setValue(s, { matrix: 'wq' }, 0, 1, 2.5);
  assert.equal(a.state.weights.wq[0][1], 2.5);
  assert.equal(s.weights.wq[0][1], 0, 'the input state is unchanged');
  const b = setValue(s, { word: 'bank' }, 0, 3, -1);
  assert.deepEqual(b.state.vocab.bank, [0.8, 0.8, 0.2, -1]);
  assert.match(setValue(s, { matrix: 'wq' }, 0, 0, 1001).error, /within ±1000/);
  assert.match(setValue(s, { matrix: 'wq' }, 0, 0, NaN).error, /finite/);
  assert.match(setValue(s, { matrix: 'wq' }, 9, 0, 1).error, /no cell wq\[9\]\[0\]/);
  assert.match(setValue(s, { word: 'nope' }, 0, 0, 1).error, /no embedding cell/);
});

test('Tokens_AddUpTo16RemoveDownTo1MoveWithinTheSentence', () => {
  let s = seed();
  for (let k = 3; k < LIMITS.tokens; k++) s = addToken(s, 'river', 'mud').state;
  assert.equal(s.contexts.river.length, 16);
  assert.match(addToken(s, 'river', 'mud').error, /at most 16 tokens/);
  assert.match(addToken(seed(), 'river', 'ghost').error, /not in the vocabulary/);
  assert.match(addToken(seed(), 'lake', 'mud').error, /unknown context/);
  const m = moveToken(seed(), 'river', 2, -1).state;
  assert.deepEqual(m.contexts.river, ['stream', 'mud', 'bank']);
  assert.match(moveToken(seed(), 'river', 0, -1).error, /already at that end/);
  let r = removeToken(seed(), 'finance', 0).state;
  assert.deepEqual(r.contexts.finance, ['bank', 'loan']);
  r = removeToken(removeToken(r, 'finance', 0).state, 'finance', 0);
  assert.match(r.error, /at least one token/);
});

test('Words_ANewWordNeedsAValidNameAndOneNumberPerDimension', () => {
  const s = seed();
  const a = addWord(s, ' water ', [1, 0, 0, 0.6]);
  assert.deepEqual(a.state.vocab.water, [1, 0, 0, 0.6]);
  assert.match(addWord(s, 'bank', [0, 0, 0, 0]).error, /already in the vocabulary/);
  assert.match(addWord(s, '', [0, 0, 0, 0]).error, /empty/);
  assert.match(addWord(s, 'x'.repeat(33), [0, 0, 0, 0]).error, /at most 32 characters/);
  assert.match(addWord(s, 'w', [1, 2]).error, /needs 4 numbers.*got 2/);
  assert.match(addWord(s, 'w', [1, 2, 3, 4000]).error, /±1000/);
  const r = removeWord(s, 'bank').state;
  assert.ok(!('bank' in r.vocab));
  assert.deepEqual(r.contexts.river, ['stream', 'mud'], 'its tokens go too');
  const lone = { ...s, contexts: { river: ['mud'], finance: ['loan'] } };
  assert.match(removeWord(lone, 'mud').error, /all of the river context/);
});

test('Resize_WidthsGrowWithZerosShrinkFromTheEndAndHeadsFallBackTo1', () => {
  const s = seed();
  const d = resize(s, 'D', 5).state;
  assert.deepEqual(d.vocab.bank, [0.8, 0.8, 0.2, 0, 0]);
  assert.deepEqual(d.weights.wq[4], [0, 0]);
  assert.equal(d.weights.w.length, 5);
  const v = resize(s, 'dv', 4).state;
  assert.deepEqual(v.weights.wv[3], [0, 0, 0.5, 0]);
  assert.deepEqual(validHeads(v), [1, 2]);
  const two = { ...v, options: { ...v.options, heads: 2 } };
  assert.equal(resize(two, 'dv', 3).state.options.heads, 1);
  assert.match(resize(s, 'dk', 17).error, /dk must be an integer in 1..16/);
  assert.match(resize(s, 'D', 0).error, /D must be/);
  assert.deepEqual(validHeads(seed()), [1], 'dk = 2 and dv = 3 share no divisor but 1');
  assert.deepEqual(
    validHeads({ ...seed(), options: { ...seed().options, projections: false } }),
    [1, 2, 4],
    'without projections the head size divides D',
  );
});

test('ParseWordVector_AsTypedOneNumberPerDimensionOrZeros', () => {
  const s = defaultState(EXAMPLES);
  assert.deepEqual(parseWordVector(s, 'river', '0.5, 0 0;-1').values, [0.5, 0, 0, -1], 'commas, spaces, semicolons');
  assert.deepEqual(parseWordVector(s, 'river', '  ').values, [0, 0, 0, 0], 'nothing typed: zeros');
  assert.equal(
    parseWordVector(s, 'river', '1, 2').error,
    'new word “river”: its vector needs 4 numbers, one per embedding dimension; got 2',
  );
  assert.match(parseWordVector(s, 'river', '1, 2, x, 4').error, /^new word “river”, number 3: "x" is not a number/);
  assert.equal(parseWordVector(s, 'bank', '').error, 'new word: "bank" is already in the vocabulary');
});

test('ResetTo_TheDefaultsKeepingTheReadersTheme', () => {
  const defaults = defaultState(EXAMPLES);
  const edited = { ...defaults, theme: 'dark', focus: 'finance', options: { ...defaults.options, causal: true } };
  const { state } = resetTo(defaults)(edited);
  assert.deepEqual(state, { ...defaults, theme: 'dark' });
  assert.notEqual(state.vocab, defaults.vocab, 'a copy: editing it leaves the defaults alone');
});

// Hand-set weights that each show one idea (web/lib/presets.js) and the Heads menu's choices:
// checked through the engine, so the sentences the page builds on them hold.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../web/engine/engine.js';
import { defaultState, LIMITS } from '../../../web/lib/state.js';
import { computeAll } from '../../../web/lib/compute.js';
import {
  CONTEXT_SEEKING,
  TWO_HEADS,
  headChoices,
  presetApplies,
  withHeads,
  withPreset,
} from '../../../web/lib/presets.js';

let engine, seed;
before(async () => {
  engine = await loadEngine();
  seed = defaultState(engine.examples());
});

test('ContextSeeking_BanksQueryFindsTheContextWordsKey', () => {
  const state = withPreset(seed, CONTEXT_SEEKING).state;
  const t = computeAll(engine, state).contexts.river.trace;
  const row = t.scores[0][1]; // bank's query against every key
  assert.deepEqual(row, [1.5, 0, 4.5], 'q(bank)·k: stream 1.5, bank 0, mud 4.5');
  assert.ok(t.weights[0][1][2] > 0.85, `bank → mud ${t.weights[0][1][2]}`);
});

test('TwoHeads_TheHeadsOfBankLookAtDifferentWords', () => {
  const state = withPreset(seed, TWO_HEADS).state;
  assert.equal(state.options.heads, 2);
  for (const name of ['river', 'finance']) {
    const w = computeAll(engine, state).contexts[name].trace.weights;
    const top = (r) => r.indexOf(Math.max(...r));
    assert.notEqual(top(w[0][1]), top(w[1][1]), `${name}: head 0 and head 1 of bank agree`);
    assert.equal(top(w[1][1]), 1, `${name}: head 1 of bank looks at itself`);
  }
});

test('Presets_RefuseAnotherVocabularyWidthByName', () => {
  const narrow = { ...seed, vocab: { a: [1, 0], b: [0, 1] }, contexts: { mine: ['a', 'b'] } };
  assert.equal(presetApplies(narrow, CONTEXT_SEEKING), false);
  assert.match(withPreset(narrow, TWO_HEADS).error, /width 4/);
});

test('HeadChoices_OfferEveryCountThatFitsPaddingWithZeroColumns', () => {
  const choices = headChoices(seed, LIMITS.width, 8);
  assert.deepEqual(
    choices.map((c) => [c.heads, c.dk, c.dv, c.padded]),
    [
      [1, 2, 3, false],
      [2, 2, 4, true],
      [3, 3, 3, true],
      [4, 4, 4, true],
      [5, 5, 5, true],
      [6, 6, 6, true],
      [7, 7, 7, true],
      [8, 8, 8, true],
    ],
  );
  const two = withHeads(seed, 2).state;
  assert.equal(two.options.heads, 2);
  assert.equal(two.weights.wv[0].length, 4);
  assert.deepEqual(
    two.weights.wv.map((r) => r[3]),
    [0, 0, 0, 0],
    'the added column is zeros',
  );
  // Without projections the head size divides D, and nothing is padded.
  const raw = { ...seed, options: { ...seed.options, projections: false } };
  assert.deepEqual(
    headChoices(raw, LIMITS.width, 8).map((c) => c.heads),
    [1, 2, 4],
  );
  assert.match(withHeads(raw, 3).error, /heads: 3 heads do not fit/);
});

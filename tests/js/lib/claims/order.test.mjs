// web/lib/claims/order.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { computeAll, maxAbsDiff } from '../../../../web/lib/compute.js';
import { focusView } from '../../../../web/lib/focus.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, numbersIn } from '../../../helpers/story-states.mjs';
import { orderClaim } from '../../../../web/lib/claims/order.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => {
  for (const [name, state] of Object.entries(states)) {
    const results = computeAll(engine, state);
    f(name, state, results, focusView(state, results));
  }
};
const allShown = (matrix, digits = 3) => new Set(matrix.flat().map((v) => fmt(v, digits)));
const assertOnScreen = (text, shown, what) => {
  for (const n of numbersIn(text)) assert.ok(shown.has(n), `${what}: ${n} is not on screen: ${text}`);
};

test('Order_ReversingChangesNothingWithoutTheMaskAndSaysWhatItChangesWithIt', () => {
  each((name, state, results, f) => {
    const said = orderClaim(f.trace.output, results.reversed, state.options.causal);
    const diff = maxAbsDiff(f.trace.output, results.reversed.output.slice().reverse());
    if (!state.options.causal) {
      assert.ok(diff < 1e-5, `${name}: ${diff}`);
      assert.match(said, /the same in both orders/, name);
    } else if (diff > 1e-5) assert.ok(said.includes(fmt(diff)) && /changes the outputs/.test(said), name);
    else assert.match(said, /leaves every output as it was/, name);
  });
  assert.match(orderClaim([[1]], { output: null, error: 'nope' }, false), /could not be computed: nope/);
});

// web/lib/claims/order.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { maxAbsDiff } from '../../../../web/lib/compute.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, eachStoryState } from '../../../helpers/story-states.mjs';
import { orderClaim } from '../../../../web/lib/claims/order.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

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

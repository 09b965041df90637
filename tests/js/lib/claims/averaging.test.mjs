// web/lib/claims/averaging.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { averagingNested, maxAbsDiff } from '../../../../web/lib/compute.js';
import { storyStates, eachStoryState, allShown, assertOnScreen } from '../../../helpers/story-states.mjs';
import { averagingClaim } from '../../../../web/lib/claims/averaging.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Averaging_TheThreeFormsAgreeAndTheLastRowIsTheAverageShown', () => {
  each((name, state, results) => {
    const a = averagingNested(results.averaging);
    const tokens = results.contexts[state.focus].tokens;
    const said = averagingClaim(a, tokens);
    assert.match(said, /The three forms agree/, name);
    const x = results.contexts[state.focus].x;
    const mean = x[0].map((_, c) => x.reduce((s, r) => s + r[c], 0) / x.length);
    assert.ok(maxAbsDiff(a.loop.at(-1), mean) < 1e-6, `${name}: the last row is the mean of all`);
    assertOnScreen(said, allShown(a.loop), name);
  });
  assert.match(averagingClaim(null, []), /could not be computed/);
});

// web/lib/claims/naive.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { storyStates, eachStoryState, allShown, assertOnScreen } from '../../../helpers/story-states.mjs';
import { naiveClaim } from '../../../../web/lib/claims/naive.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Naive_TheSelfMatchCountAndTheRowAreTheScoresShown', () => {
  each((name, state, results, f) => {
    const { naive, tokens } = results.contexts[state.focus];
    const row = f.highlightRows[0] ?? 1;
    const said = naiveClaim(naive, tokens, row);
    const selfBest = naive.scores.filter((r, i) => r.every((v) => v <= r[i])).length;
    if (selfBest === tokens.length) assert.match(said, /In every row/, name);
    else assert.match(said, new RegExp(`In ${selfBest} of ${tokens.length} rows`), name);
    assertOnScreen(said, allShown(naive.weights, 2), name);
  });
});

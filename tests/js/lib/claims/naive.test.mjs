// web/lib/claims/naive.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { computeAll } from '../../../../web/lib/compute.js';
import { focusView } from '../../../../web/lib/focus.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, numbersIn } from '../../../helpers/story-states.mjs';
import { naiveClaim } from '../../../../web/lib/claims/naive.js';

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

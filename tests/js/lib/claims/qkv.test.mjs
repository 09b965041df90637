// web/lib/claims/qkv.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, eachStoryState, assertOnScreen } from '../../../helpers/story-states.mjs';
import { qkvClaim } from '../../../../web/lib/claims/qkv.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Qkv_TheQueryMatchesTheKeyWithTheLargestScoreShownInTheProbe', () => {
  each((name, state, results, f) => {
    const i = f.highlightRows[0];
    const row = f.trace.scores[f.head][i];
    const { best, claim } = qkvClaim(row, f.tokens, i, (j) => f.highlightRows.includes(j));
    assert.equal(row[best], Math.max(...row), name);
    if (best === i) assert.match(claim, /matches its own key best/, name);
    else assert.match(claim, new RegExp(`matches the key of “${f.tokens[best]}” best`), name);
    assertOnScreen(claim, new Set(row.map((v) => fmt(v))), name);
  });
});

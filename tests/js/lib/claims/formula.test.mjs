// web/lib/claims/formula.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { storyStates, eachStoryState } from '../../../helpers/story-states.mjs';
import { formulaLegend } from '../../../../web/lib/claims/formula.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Formula_TheLegendNamesTheRowItsSentenceAndItsHead', () => {
  each((name, state, results, f) => {
    const said = formulaLegend(f, 1, state.focus);
    assert.match(said, new RegExp(`^Row 1 is “${f.tokens[1]}” in “${state.focus}”`), name);
    assert.equal(said.includes(`head ${f.head} of ${f.heads}`), f.heads > 1, name);
  });
});

// web/lib/claims/next.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { storyStates, eachStoryState } from '../../../helpers/story-states.mjs';
import { nextTexts } from '../../../../web/lib/claims/next.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Next_TheLengthsAreTheTracesAndTheTokenIsNamed', () => {
  const said = nextTexts('.', { L: 4, width: 128 }, { x0: 0.94, attention: 0.49, mlp: 12.63, xL: 22.42 });
  assert.equal(said.status, 'The last token, “.”, in a model of 4 layers and width 128.');
  assert.match(
    said.claim,
    /attention branch has length 0\.49 and the MLP branch 12\.63, both added to a vector of length 0\.94; after 4 blocks the vector has length 22\.42/,
  );
});

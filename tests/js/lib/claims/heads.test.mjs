// web/lib/claims/heads.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, eachStoryState } from '../../../helpers/story-states.mjs';
import { headsTexts } from '../../../../web/lib/claims/heads.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Heads_TheIntroSaysTheSplitAndTheClaimEachHeadsLargestWeight', () => {
  each((name, state, results, f) => {
    const said = headsTexts(f, results.cosines, state.focus);
    assert.ok(said.intro.includes(fmt(results.cosines[0].attention)), `${name}: the first section's cosine`);
    if (f.heads === 1) {
      assert.equal(said.claim, '');
      assert.match(said.intro, /One head now/);
      return;
    }
    const i = f.highlightRows[0];
    for (let h = 0; h < f.heads; h++) {
      const w = f.trace.weights[h][i];
      const j = w.indexOf(Math.max(...w));
      assert.ok(said.claim.includes(`puts ${fmt(w[j], 2)} on “${f.tokens[j]}” in head ${h}`), `${name}: head ${h}`);
    }
    const tops = f.trace.weights.map((w) => w[i].indexOf(Math.max(...w[i])));
    assert.equal(/look at different words/.test(said.claim), new Set(tops).size > 1, name);
  });
});

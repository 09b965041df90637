// web/lib/claims/loops.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, eachStoryState } from '../../../helpers/story-states.mjs';
import { narrate } from '../../../../web/lib/claims/loops.js';
import { loopSteps } from '../../../../web/lib/steps.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Loops_EachStepSaysItsNumbers', () => {
  each((name, state, results, f) => {
    const steps = loopSteps(f.tokens.length, state.options.causal);
    assert.match(narrate(null, f, state.options), /Press “Step”/);
    for (const s of steps) {
      const said = narrate(s, f, state.options);
      if (s.kind === 'score')
        assert.ok(
          said.endsWith(
            `${fmt(f.trace.scores[f.head][s.i][s.j])}${f.trace.scale !== 1 || state.options.temperature !== 1 ? `, scaled to ${fmt(f.trace.scaled[f.head][s.i][s.j])}` : ''}.`,
          ),
          `${name}: ${said}`,
        );
      if (s.kind === 'mask') assert.equal(f.trace.masked[f.head][s.i][s.j], -Infinity, name);
      if (s.kind === 'softmax') assert.match(said, /summing to 1\.000/, name);
    }
  });
});

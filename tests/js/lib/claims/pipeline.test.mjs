// web/lib/claims/pipeline.js against the engine's numbers in every state of
// tests/helpers/story-states.mjs: each number it says is one its section shows, and what it says
// of them is so.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { fmt } from '../../../../web/lib/format.js';
import { storyStates, eachStoryState } from '../../../helpers/story-states.mjs';
import { pipelineTexts } from '../../../../web/lib/claims/pipeline.js';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const each = (f) => eachStoryState(engine, states, f);

test('Pipeline_TheFactorMaskAndSumsAreTheTracesAndTheOutputIsNamedByItsHeads', () => {
  each((name, state, results, f) => {
    const said = pipelineTexts(state.options, f);
    if (state.options.scale) {
      assert.ok(said.scaled.includes(fmt(f.trace.scale, 4)), `${name}: the factor`);
      assert.equal(f.trace.scale, Math.fround(1 / Math.sqrt(f.hk)), `${name}: 1/√dₖ in float32`);
    } else assert.match(said.scaled, /Scaling is off/);
    if (state.options.temperature !== 1) assert.match(said.scaled, /temperature you set/, name);
    else assert.doesNotMatch(said.scaled, /temperature/, name);
    const masked = f.trace.masked[f.head].flat().some((v) => v === -Infinity);
    assert.equal(/Causal mask on/.test(said.masked), masked, `${name}: the mask said is the mask`);
    if (!state.options.causal) {
      const i = f.highlightRows[0];
      for (const t of f.tokens.slice(i + 1)) assert.ok(said.masked.includes(`“${t}”`), `${name}: ${t} after`);
    }
    assert.match(said.sums, /Every row sums to 1\.000/, name);
    assert.equal(/With \d+ heads/.test(said.output), f.heads > 1, name);
    assert.ok(said.mergedCaption.includes(`${f.heads} heads`), name);
  });
});

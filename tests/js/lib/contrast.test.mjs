// The first section's words come from its numbers (web/lib/contrast.js): at the seed's weights,
// at the extremes of the temperature, with weights that look for the context word, and with no
// shared word, the sentences say what the numbers on screen show.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../web/engine/engine.js';
import { notebookState } from '../../../web/lib/state.js';
import { computeAll } from '../../../web/lib/compute.js';
import { contrastClaims } from '../../../web/lib/contrast.js';
import { CONTEXT_SEEKING, withPreset } from '../../../web/lib/presets.js';

let engine, seed;
before(async () => {
  engine = await loadEngine();
  seed = notebookState(engine.examples());
});
const at = (patch) => {
  const state = { ...seed, ...patch, options: { ...seed.options, ...(patch.options || {}) } };
  return { state, results: computeAll(engine, state) };
};

test('Contrast_TheSeedsWeightsSpreadBanksAttentionAndSayingSoIsTrue', () => {
  const { state, results } = at({});
  const row = results.cosines[0];
  assert.equal(row.word, 'bank');
  assert.ok(Math.abs(row.attention - 0.565) < 5e-4, `attention cosine ${row.attention}`);
  // The plain average of each sentence: the mean of its value rows (equal weights).
  assert.ok(Math.abs(row.average - 0.504) < 5e-4, `equal weights ${row.average}`);
  const { claim, honest } = contrastClaims(state, results);
  assert.match(claim, /cosine 1\.000.*\(1\.000\).*cosine 0\.565/);
  assert.match(honest, /river: stream 0\.32, bank 0\.39, mud 0\.29; finance: money 0\.33, bank 0\.37, loan 0\.30/);
  assert.match(honest, /spreads its attention almost evenly/);
  assert.match(
    honest,
    /more alike than plain averages of the two sentences \(cosine 0\.565, against 0\.504 with equal weights\)/,
  );
});

test('Contrast_SharperAttentionMakesTheBanksMoreAlikeAndTheSentenceSaysSelf', () => {
  const sharp = at({ options: { temperature: 0.1 } });
  assert.ok(Math.abs(sharp.results.cosines[0].attention - 0.932) < 5e-4);
  const said = contrastClaims(sharp.state, sharp.results);
  assert.match(said.honest, /attends mostly to itself, “bank” \(0\.85\) in “river” and “bank” \(0\.69\) in “finance”/);
  const flat = at({ options: { temperature: 5 } });
  assert.match(contrastClaims(flat.state, flat.results).honest, /about as alike as plain averages/);
});

test('Contrast_WeightsThatLookForContextPullTheBanksApart', () => {
  const state = withPreset(seed, CONTEXT_SEEKING).state;
  const results = computeAll(engine, state);
  const row = results.cosines[0];
  assert.ok(row.attention < row.average - 0.2, `${row.attention} vs ${row.average}`);
  const { honest } = contrastClaims(state, results);
  assert.match(honest, /goes mostly to “mud” \(0\.86\) in “river” and “loan” \(0\.77\) in “finance”/);
  assert.match(honest, /further apart than plain averages/);
});

test('Contrast_NoSharedWordAsksForOne', () => {
  const { state, results } = at({ contexts: { river: ['stream', 'mud'], finance: ['money', 'loan'] } });
  const said = contrastClaims(state, results);
  assert.match(said.claim, /Add the same word to two sentences/);
  assert.equal(said.honest, '');
});

// web/lib/real/gpt-state.js: the real-model section's part of the state travels in a link
// (lib/share.js) — the sentence and the options, never the weights — and every untrusted value is
// refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultGpt, sanitizeGpt, patchGpt, GPT_LIMITS } from '../../../../web/lib/real/gpt-state.js';
import { encodeState, decodeState, sanitizeState } from '../../../../web/lib/share.js';
import { tinyState } from '../../../helpers/seed-state.mjs';

test('RealState_ALinkCarriesTheSentenceAndOptionsNeverTheWeights', () => {
  const defaults = tinyState();
  const gpt = {
    ...defaultGpt(),
    sentence: 'A river bank 🏦 and שלום.',
    layer: 3,
    head: 1,
    picture: 'rollout',
    temperature: 0.7,
    topK: 40,
    topP: 0.9,
    seed: 12,
    model: { kind: 'url', url: 'https://example.org/gpt2/model.safetensors', heads: 12 },
    prediction: { position: 4, token: 262, layer: 1, head: 2, mode: 'mean' },
  };
  const state = { ...defaults, gpt };
  const round = sanitizeState(decodeState(encodeState(state, defaults)), defaults);
  assert.deepEqual(round.problems, []);
  assert.deepEqual(round.state.gpt, gpt);
  // A file the reader opened cannot travel in a link: it says so by its kind only.
  const file = sanitizeGpt({ model: { kind: 'file', name: 'x', bytes: [1, 2] } });
  assert.deepEqual(file.gpt.model, { kind: 'file' });
});

test('RealState_UntrustedValuesAreRefusedByName', () => {
  const check = (value, pattern) => {
    const { problems } = sanitizeGpt(value);
    assert.match(problems.join(' | '), pattern, JSON.stringify(value).slice(0, 80));
  };
  check('x', /gpt: expected an object/);
  check({ sentence: '' }, /gpt.sentence: expected text of 1 to 2000 characters/);
  check({ sentence: 'x'.repeat(GPT_LIMITS.sentenceChars + 1) }, /gpt.sentence/);
  check({ layer: -1 }, /gpt.layer: expected a whole number in \[0, 255\]/);
  check({ head: 1.5 }, /gpt.head/);
  check({ temperature: Infinity }, /gpt.temperature: expected a number in \[0, 5\]/);
  check({ topP: 0 }, /gpt.topP: expected a number in \(0, 1\]/);
  check({ picture: 'x' }, /gpt.picture: expected one of head, mean, rollout/);
  check({ model: { kind: 'url', url: 'javascript:alert(1)' } }, /gpt.model.url: expected an http\(s\) or relative URL/);
  check({ model: { kind: 'url', url: 'data:application/octet-stream,xx' } }, /gpt.model.url/);
  check({ model: { kind: 'url', url: 'm.safetensors', heads: 0 } }, /gpt.model.heads/);
  check({ model: { kind: 'weights' } }, /gpt.model: expected/);
  check({ bank: { word: 'x'.repeat(33) } }, /gpt.bank.word: expected text of 1 to 32 characters/);
  check({ bank: [] }, /gpt.bank: expected \{a, b, word\}/);
  check({ constructor: 1 }, /gpt.constructor: unknown field/);
  check({ prediction: 3 }, /gpt.prediction: expected \{position\?, token\?, layer\?, head\?, mode\?\}/);
  check({ prediction: { position: -1 } }, /gpt.prediction.position: expected a whole number in \[0, 4096\]/);
  check({ prediction: { token: -2 } }, /gpt.prediction.token: expected a whole number in \[-1, 1048576\]/);
  check({ prediction: { head: 0.5 } }, /gpt.prediction.head/);
  check({ prediction: { layer: 256 } }, /gpt.prediction.layer/);
  check({ prediction: { mode: 'resample' } }, /gpt.prediction.mode: expected one of zero, mean/);
  check({ prediction: { why: 1 } }, /gpt.prediction.why: unknown field/);
  // One bad field of the prediction is left to be chosen from the numbers; the others are kept.
  assert.deepEqual(sanitizeGpt({ prediction: { position: 3, token: 'x', head: 1 } }).gpt.prediction, {
    mode: 'zero',
    position: 3,
    head: 1,
  });
  // What is refused falls back to the default; the rest is kept.
  const { gpt } = sanitizeGpt({ layer: 2, head: 99999, sentence: 'ok' });
  assert.equal(gpt.layer, 2);
  assert.equal(gpt.head, defaultGpt().head);
  assert.equal(gpt.sentence, 'ok');
});

test('RealState_AModelOfTheHubTravelsInItsOneFormAndABadOneIsRefusedByName', () => {
  const one = { kind: 'hub', endpoint: 'https://huggingface.co', repo: 'openai-community/gpt2', revision: 'main' };
  assert.deepEqual(sanitizeGpt({ model: { kind: 'hub', repo: 'openai-community/gpt2' } }).gpt.model, one);
  assert.deepEqual(sanitizeGpt({ model: one }).gpt.model, one);
  assert.deepEqual(
    sanitizeGpt({ model: { kind: 'hub', repo: 'x', endpoint: 'http://127.0.0.1:9/', revision: 'v2' } }).gpt.model,
    { kind: 'hub', endpoint: 'http://127.0.0.1:9', repo: 'x', revision: 'v2' },
  );
  for (const [model, problem] of [
    [{ kind: 'hub' }, /^gpt\.model\.repo: expected a repository id/],
    [{ kind: 'hub', repo: '../etc' }, /^gpt\.model\.repo: "\.\.\/etc" is not a repository id/],
    [{ kind: 'hub', repo: 'x', endpoint: 'javascript:alert(1)' }, /^gpt\.model\.endpoint: expected an http\(s\) URL/],
    [{ kind: 'hub', repo: 'x', revision: 'a b' }, /^gpt\.model\.revision: expected a branch, tag or commit/],
  ]) {
    const out = sanitizeGpt({ model });
    assert.deepEqual(out.gpt.model, { kind: 'shipped' }, JSON.stringify(model));
    assert.match(out.problems[0], problem);
  }
  // A link carries it.
  const defaults = tinyState();
  const state = { ...defaults, gpt: { ...defaultGpt(), model: one } };
  assert.deepEqual(sanitizeState(decodeState(encodeState(state, defaults)), defaults).state.gpt.model, one);
});

test('RealState_AnotherSentenceOrModelOpensOnItsOwnPredictionKeepingTheHeadAndMode', () => {
  const g = { ...defaultGpt(), prediction: { position: 4, token: 262, layer: 1, head: 2, mode: 'mean' } };
  const kept = { layer: 1, head: 2, mode: 'mean' };
  assert.deepEqual(patchGpt(g, { sentence: 'Another one.' }).prediction, kept);
  assert.deepEqual(patchGpt(g, { model: { kind: 'url', url: 'm.safetensors' } }).prediction, kept);
  // The same sentence or model again, or anything else: the prediction stays.
  assert.deepEqual(patchGpt(g, { sentence: g.sentence }).prediction, g.prediction);
  assert.deepEqual(patchGpt(g, { model: { kind: 'shipped' } }).prediction, g.prediction);
  assert.deepEqual(patchGpt(g, { layer: 3, head: 0, temperature: 0.5 }).prediction, g.prediction);
  // A patch naming its own prediction wins.
  assert.deepEqual(patchGpt(g, { sentence: 'x', prediction: { mode: 'zero' } }).prediction, { mode: 'zero' });
  assert.equal(patchGpt(g, { sentence: 'x' }).sentence, 'x');
});

test('RealState_HowTheWeightsAreKeptTravelsInTheLinkAndABadChoiceIsRefusedByName', () => {
  assert.equal(defaultGpt().precision, 'auto');
  const defaults = tinyState();
  for (const precision of ['auto', 'f32', 'f16', 'bf16']) {
    const state = { ...defaults, gpt: { ...defaultGpt(), precision } };
    const round = sanitizeState(decodeState(encodeState(state, defaults)), defaults);
    assert.deepEqual(round.problems, []);
    assert.equal(round.state.gpt.precision, precision);
  }
  for (const bad of ['F16', 'bfloat16', 16, null]) {
    const { gpt, problems } = sanitizeGpt({ precision: bad });
    assert.equal(gpt.precision, 'auto', String(bad));
    assert.match(problems.join(' | '), /gpt\.precision: expected 'auto', 'f32', 'f16' or 'bf16', got /);
  }
});

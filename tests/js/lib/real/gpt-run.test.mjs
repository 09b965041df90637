// web/lib/real/gpt-run.js: the real-model section's run, driven with a fake model host (its
// requests recorded, its answers made up): the sentence runs once per change, an answer a newer
// request overtook is dropped, generation appends one step at a time with its cost, a new
// sentence starts the generation again, the bank comparison and the head roles are asked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultGpt } from '../../../../web/lib/real/gpt-state.js';
import { createGptRun } from '../../../../web/lib/real/gpt-run.js';

function fakeReal({ delays = {} } = {}) {
  const calls = [];
  const info = { name: 'tiny', config: { layers: 2, heads: 2 }, weights: { precision: 'f16', bytes: 64 } };
  const real = {
    calls,
    info,
    host: { mode: 'worker' },
    ensure: async () => info,
    async call(op, ...args) {
      calls.push([op, ...args]);
      if (delays[op]) await delays[op]();
      switch (op) {
        case 'encode':
          return { ids: [1, 2], pieces: [{ display: args[0] }, { display: '!' }] };
        case 'trace':
          return { logits: [0], T: 2, L: 2, H: 2 };
        case 'next':
          return { topTokens: [3] };
        case 'step':
          return { token: 7, text: ' x', keys: 3, macs: { cached: 10, full: 30 } };
        case 'bank':
          return { cosines: [1, 0.5] };
        case 'roles':
          return { scores: 'measured' };
        default:
          return null;
      }
    },
  };
  return real;
}

function setup(real, gpt = { ...defaultGpt(), layer: 5, head: 1 }, wants = undefined) {
  const statuses = [];
  let changes = 0;
  const state = { gpt };
  const run = createGptRun({
    real,
    state: () => state,
    gpt: () => state.gpt,
    onChange: () => (changes += 1),
    onStatus: (s) => statuses.push(s),
    ...(wants && { wants }),
  });
  return { run, state, statuses, changes: () => changes };
}

test('GptRun_TheSentenceRunsOncePerChangeWithTheLayerClampedToTheModel', async () => {
  const real = fakeReal();
  const { run, state, statuses } = setup(real);
  await run.run();
  await run.run();
  assert.equal(real.calls.filter(([op]) => op === 'encode').length, 1, 'the same inputs: drawn again, not run');
  assert.deepEqual(
    real.calls.find(([op]) => op === 'trace'),
    ['trace', [1, 2], { layer: 1, head: 1 }],
  );
  assert.deepEqual(
    statuses.map((s) => s.kind),
    ['running', 'ran'],
  );
  assert.deepEqual(statuses[1], { kind: 'ran', tokens: 2, layers: 2, mode: 'worker', precision: 'f16' });
  assert.equal(run.picture.layer, 1);
  state.gpt = { ...state.gpt, sentence: 'Another one.' };
  await run.run();
  assert.equal(real.calls.filter(([op]) => op === 'encode').length, 2);
  assert.deepEqual(run.bank, { result: { cosines: [1, 0.5] }, error: null }, 'the bank example, once');
  assert.equal(real.calls.filter(([op]) => op === 'bank').length, 1);
});

test('GptRun_AnAnswerANewerRequestOvertookIsDropped', async () => {
  let release;
  const slow = new Promise((r) => (release = r));
  const real = fakeReal({ delays: { next: () => (real.calls.length < 4 ? slow : null) } });
  const { run, state } = setup(real);
  const first = run.run();
  await new Promise((r) => setImmediate(r));
  state.gpt = { ...state.gpt, sentence: 'Newer.' };
  await run.run();
  release();
  await first;
  assert.equal(run.picture.pieces[0].display, 'Newer.', 'the older sentence does not come back');
});

test('GptRun_GenerationAppendsStepByStepAndANewSentenceStartsOver', async () => {
  const real = fakeReal();
  const { run, state } = setup(real);
  await run.generate(1);
  assert.equal(real.calls.length, 0, 'nothing to generate from before the model has run');
  await run.run();
  await run.generate(2);
  const g = run.generation;
  assert.deepEqual(
    g.tokens.map((t) => t.text),
    [' x', ' x'],
  );
  assert.deepEqual(g.totals, { cached: 20, full: 60 });
  assert.deepEqual(g.step.keyLabels, ['!', '␣x', '␣x'], 'the last keys, spaces shown');
  assert.equal(real.calls.filter(([op]) => op === 'generate').length, 1, 'the cache is opened once');
  state.gpt = { ...state.gpt, sentence: 'Fresh.' };
  await run.run();
  assert.deepEqual(run.generation.tokens, []);
  assert.ok(real.calls.some(([op]) => op === 'stopGenerating'));
});

test('GptRun_RolesAreMeasuredOncePerModelAndAFailureIsSaid', async () => {
  const real = fakeReal();
  const { run, statuses } = setup(real);
  assert.deepEqual(await run.measureRoles(), { scores: 'measured' });
  assert.equal(await run.measureRoles(), null, 'measured already');
  const broken = fakeReal();
  broken.call = async () => {
    throw new Error('too long');
  };
  const other = setup(broken);
  assert.equal(await other.run.measureRoles(), null);
  assert.deepEqual(other.statuses.at(-1), { kind: 'roles-failed', message: 'too long' });
  assert.deepEqual(statuses, []);
});

// A figure of some parts (lib/real/gpt-parts.js) asks the model only for what they draw.
test('GptRun_AFigureOfSomePartsAsksOnlyForWhatTheyDraw', async () => {
  const ops = (real) => real.calls.map(([op]) => op).filter((op) => op !== 'stopGenerating');
  // The bank chart alone: no sentence run, the two sentences compared once.
  let real = fakeReal();
  let s = setup(real, undefined, () => ({ run: false, bank: true }));
  await s.run.run();
  await s.run.run();
  assert.deepEqual(ops(real), ['bank']);
  assert.deepEqual(s.run.bank, { result: { cosines: [1, 0.5] }, error: null });
  assert.equal(s.run.picture, null);
  assert.deepEqual(
    s.statuses.map((x) => x.kind),
    ['running', 'compared', 'running', 'compared'],
  );
  assert.equal(s.statuses[1].layers, 2);
  // The heads alone: the sentence runs, no bank comparison, even when asked.
  real = fakeReal();
  s = setup(real, undefined, () => ({ run: true, bank: false }));
  await s.run.run();
  await s.run.compareBank();
  assert.deepEqual(ops(real), ['encode', 'trace', 'next']);
  assert.ok(s.run.picture);
  // Neither (the file picker alone): nothing asked.
  real = fakeReal();
  s = setup(real, undefined, () => ({ run: false, bank: false }));
  await s.run.run();
  assert.deepEqual(ops(real), []);
});

// The same state giving other tokens (a file opened again with another tokenizer): the deps hear
// it before the figures draw, once; the first picture and the same tokens again are not news.
test('GptRun_OtherTokensUnderTheSameStateAreHeardBeforeTheFiguresDraw', async () => {
  const real = fakeReal();
  let ids = [1, 2];
  const call = real.call.bind(real);
  real.call = async (op, ...args) =>
    op === 'encode' ? { ids, pieces: ids.map((i) => ({ display: `${i}` })) } : call(op, ...args);
  const heard = [];
  let changes = 0;
  const state = { gpt: defaultGpt() };
  const run = createGptRun({
    real,
    state: () => state,
    gpt: () => state.gpt,
    onChange: () => (changes += 1),
    onStatus: () => {},
    onOtherTokens: () => heard.push({ changesBefore: changes, ids: run.picture.ids }),
  });
  await run.run();
  await run.run(true);
  assert.deepEqual(heard, [], 'the first picture, then the same tokens again');
  ids = [4, 5, 6];
  await run.run(true);
  assert.equal(heard.length, 1);
  assert.deepEqual(heard[0].ids, [4, 5, 6], 'the new picture is in place');
  const changesBefore = heard[0].changesBefore;
  assert.ok(changes > changesBefore, 'the figures draw it after');
});

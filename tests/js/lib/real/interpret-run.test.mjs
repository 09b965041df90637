// The controller of the "what a head does" figures (web/lib/real/interpret-run.js) with a fake
// host: the candidate defaults to the clean top prediction, a new head asks only for its
// knock-out, a new prediction asks for everything, a newer choice overtakes an older one's late
// answers, and the sweep runs for the prediction on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createInterpretRun } from '../../../../web/lib/real/interpret-run.js';

function fakeHost() {
  const calls = [];
  const call = async (op, ids, args) => {
    calls.push({ op, args });
    if (op === 'ablate')
      return {
        ...args,
        rows: [
          { id: 7, text: '␣top', clean: 0.5, ablated: 0.4 },
          { id: 3, text: '␣b', clean: 0.1, ablated: 0.2 },
        ],
        token: args.token,
      };
    if (op === 'attribute') return { token: args.token, logit: 1 };
    if (op === 'lens') return { positions: args.positions, token: { ranks: [1, 0] } };
    if (op === 'sweep') return { layer: args.layer, row: Float32Array.of(-1, -2), logProb: -0.5 };
    if (op === 'predictions') return { actual: Float32Array.of(0.2, 0.6), top: Int32Array.of(2, 3, 9) };
    throw new Error(op);
  };
  return { calls, call };
}
const config = () => ({ layers: 2, heads: 2, width: 8, vocabSize: 10 });

test('InterpretRun_ItOpensOnTheModelsBestGuessAndEveryAnswerArrives', async () => {
  const host = fakeHost();
  let changes = 0;
  const run = createInterpretRun({ call: host.call, config, onChange: () => changes++ });
  // Nothing chosen: the opening prediction (position 1, whose next token 3 the model ranks first
  // with p = 0.6), and head 0 of layer 0 until a sweep has measured the heads.
  await run.choose([1, 2, 3], {});
  assert.deepEqual(
    host.calls.map((c) => c.op),
    ['predictions', 'ablate', 'attribute', 'lens'],
  );
  assert.deepEqual([run.choice.position, run.choice.token, run.choice.layer, run.choice.head], [1, 3, 0, 0]);
  assert.equal(run.answers.ablation.text, '␣b');
  assert.deepEqual(host.calls[3].args.positions, [0, 1, 2]);
  assert.ok(changes >= 4);
  // A position chosen with no candidate: the clean top prediction there (the first row).
  await run.choose([1, 2, 3], { position: 2, token: -1, layer: 1, head: 0 });
  assert.equal(run.choice.position, 2);
  assert.equal(run.choice.token, 7, 'the clean top prediction');
  assert.equal(run.answers.ablation.text, '␣top');
  assert.equal(host.calls.at(-2).args.token, 7);
  const asked = host.calls.length;
  // The same choice again asks nothing; another head asks only for its knock-out.
  await run.choose([1, 2, 3], { position: 2, token: -1, layer: 1, head: 0 });
  assert.equal(host.calls.length, asked);
  await run.choose([1, 2, 3], { position: 2, token: -1, layer: 0, head: 1 });
  assert.deepEqual(
    host.calls.slice(asked).map((c) => c.op),
    ['ablate'],
  );
  assert.ok(run.answers.attribution && run.answers.lens, 'the prediction’s answers stay');
  // Another candidate asks for everything; the sentence's opening is asked once.
  await run.choose([1, 2, 3], { layer: 0, head: 1, position: 1, token: 3 });
  assert.deepEqual(
    host.calls.slice(asked + 1).map((c) => c.op),
    ['ablate', 'attribute', 'lens'],
  );
  await run.choose([1, 2, 3], { layer: 0, head: 1 });
  assert.equal(host.calls.filter((c) => c.op === 'predictions').length, 1);
  // Out-of-range heads and positions are clamped to the model.
  await run.choose([1, 2], { layer: 9, head: 9, position: 9 });
  assert.deepEqual([run.choice.layer, run.choice.head, run.choice.position], [1, 1, 1]);
});

test('InterpretRun_AnUnchosenHeadBecomesTheOneTheSweepFoundStrongest', async () => {
  const host = fakeHost();
  const run = createInterpretRun({ call: host.call, config, onChange: () => {} });
  await run.choose([1, 2, 3], {});
  assert.equal(run.sweepsUnasked, true, 'a small model sweeps unasked');
  await run.startSweep();
  assert.equal(run.sweepsUnasked, false);
  // Rows (−1, −2) at log p −0.5: effects (−0.5, −1.5) in both blocks; the first strongest is L0H1.
  await run.choose([1, 2, 3], {});
  assert.deepEqual([run.choice.layer, run.choice.head], [0, 1]);
  // A head the reader chose wins.
  await run.choose([1, 2, 3], { layer: 1, head: 0 });
  assert.deepEqual([run.choice.layer, run.choice.head], [1, 0]);
  const big = createInterpretRun({
    call: host.call,
    config: () => ({ layers: 12, heads: 12, width: 768, vocabSize: 50257 }),
    onChange: () => {},
  });
  await big.choose([1, 2, 3], {});
  assert.equal(big.sweepsUnasked, false, 'GPT-2 small sweeps when asked');
});

test('InterpretRun_ANewerChoiceOvertakesAnOlderOnesLateAnswers', async () => {
  const calls = [];
  let release;
  const slow = new Promise((r) => (release = r));
  const call = async (op, ids, args) => {
    calls.push(op);
    if (op === 'ablate' && args.position === 0) await slow;
    return {
      rows: [{ id: args.position, text: `t${args.position}` }],
      token: args.token,
      positions: [],
      logit: args.position,
    };
  };
  const run = createInterpretRun({ call, config, onChange: () => {} });
  const first = run.choose([1, 2, 3], { position: 0 });
  await run.choose([1, 2, 3], { position: 2 });
  release();
  await first;
  assert.equal(run.choice.position, 2);
  assert.equal(run.answers.ablation.text, 't2');
  assert.equal(run.answers.attribution.logit, 2);
});

test('InterpretRun_TheSweepRunsForThePredictionOnScreen', async () => {
  const host = fakeHost();
  const run = createInterpretRun({ call: host.call, config, onChange: () => {} });
  await run.startSweep(); // nothing chosen yet: nothing asked
  assert.equal(host.calls.length, 0);
  await run.choose([1, 2, 3], { position: 1, token: 3 });
  await run.startSweep();
  const sweeps = host.calls.filter((c) => c.op === 'sweep');
  assert.deepEqual(
    sweeps.map((c) => [c.args.layer, c.args.position, c.args.token]),
    [
      [0, 1, 3],
      [1, 1, 3],
    ],
  );
  assert.equal(run.sweep.phase, 'finished');
  assert.equal(run.sweep.key, run.sweepKey);
  assert.deepEqual(Array.from(run.sweep.effect), [-0.5, -1.5, -0.5, -1.5]);
  await run.choose([1, 2, 3], { position: 2, token: 3 });
  assert.notEqual(run.sweep.key, run.sweepKey, 'the sweep on screen is of another prediction');
});

test('InterpretRun_TheBankMeasureIsAskedOncePerSpecAndTheNewestWins', async () => {
  const calls = [];
  let release;
  const call = async (op, spec) => {
    calls.push(spec.word);
    if (spec.word === 'slow') await new Promise((r) => (release = r));
    if (spec.word === 'bad') throw new Error('senses[0].sentences[0]: no “bad”');
    return { verdict: { sentence: spec.word } };
  };
  const run = createInterpretRun({ call, config, onChange: () => {} });
  await run.measureSenses({ word: 'bank', senses: [] });
  await run.measureSenses({ word: 'bank', senses: [] });
  assert.deepEqual(calls, ['bank']);
  assert.equal(run.senses.result.verdict.sentence, 'bank');
  const slow = run.measureSenses({ word: 'slow', senses: [] });
  await run.measureSenses({ word: 'bad', senses: [] });
  release();
  await slow;
  assert.equal(run.senses.result, null);
  assert.match(run.senses.error, /senses\[0\]/);
});

test('InterpretRun_AnotherModelForgetsEveryAnswerEvenWithTheSameTokens', async () => {
  // The same checkpoint with its weights kept otherwise (or another GPT-2 of the same tokenizer)
  // gives the same ids: nothing measured on the model before may be shown for the new one.
  const host = fakeHost();
  let model = { name: 'one' };
  let roles = 0;
  const call = async (op, ...args) => (op === 'roles' ? { asked: ++roles } : host.call(op, ...args));
  const run = createInterpretRun({ call, config, model: () => model, onChange: () => {} });
  await run.choose([1, 2, 3], { position: 2, token: -1, layer: 1, head: 0 });
  await run.measureRoles('text');
  await run.startSweep();
  assert.equal(run.sweep.phase, 'finished');
  assert.equal(run.roles.asked, 1);
  const asked = host.calls.length;
  // The same choice on the same model asks nothing again.
  await run.choose([1, 2, 3], { position: 2, token: -1, layer: 1, head: 0 });
  await run.measureRoles('text');
  assert.equal(host.calls.length, asked);
  assert.equal(roles, 1);
  // Another model: the roles measured again, the sweep forgotten, the choice asked again.
  model = { name: 'one' };
  assert.equal(run.sweep.phase, 'finished', 'nothing is forgotten before the run is used');
  await run.measureRoles('text');
  assert.equal(roles, 2);
  assert.equal(run.roles.asked, 2);
  assert.equal(run.sweep.phase, 'idle');
  assert.equal(run.answers.ablation, null);
  await run.choose([1, 2, 3], { position: 2, token: -1, layer: 1, head: 0 });
  assert.deepEqual(
    host.calls.slice(asked).map((c) => c.op),
    ['ablate', 'attribute', 'lens'],
  );
  assert.equal(run.answers.ablation.text, '␣top');
});

test('InterpretRun_ALateAnswerForAModelNoLongerOpenIsDropped', async () => {
  let model = { name: 'one' };
  const pending = [];
  const call = (op) => new Promise((resolve) => pending.push(() => resolve({ op, model: model.name })));
  const run = createInterpretRun({ call, config, model: () => model, onChange: () => {} });
  const roles = run.measureRoles('text');
  const senses = run.measureSenses({ word: 'bank', senses: [] });
  // Another model opens while both are asked; their answers arrive after.
  model = { name: 'two' };
  const again = run.measureRoles('text'); // forgets the first model's, asks again (pending[2])
  pending[0]();
  pending[1]();
  await roles;
  await senses;
  assert.equal(run.roles, null, 'the first model’s head scores are not shown for the second');
  assert.equal(run.senses.result, null);
  pending[2]();
  await again;
  assert.deepEqual(run.roles, { op: 'roles', model: 'two' });
});

// The Learn section's training sessions (web/lib/learn/session.js) over the real engine in Node:
// every task reaches its accuracy goal within its own step budget, a run is the same run however
// it is sliced, a diverging learning rate keeps the last good weights, the bank probe moves as the
// model learns (a head looks back from "bank" at the word that decides it, far above chance), each
// task's pattern forms 10–20 s into a run watched at its pace, and checkpoints round-trip. (The
// browser tests do the same through the page.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { createSession, taskFor } from '../../../../web/lib/learn/session.js';
import { patternFormed, BANK_FORMED } from '../../../../web/lib/learn/tasks.js';
import { defaultLearn, sessionSpec } from '../../../../web/lib/learn/learn-state.js';
import { withoutMetadata } from '../../../helpers/safetensors.mjs';

const engine = await loadEngine();
const spec = (id, patch = {}) => sessionSpec({ ...defaultLearn(id), ...patch });

for (const id of ['copy', 'reverse', 'sort', 'repeat']) {
  test(`Task_${id}_ReachesItsGoalWithinItsStepBudget`, () => {
    const session = createSession(engine, spec(id));
    const task = taskFor({ id });
    const start = session.evaluate();
    const t0 = performance.now();
    session.train(task.train.steps);
    const ms = performance.now() - t0;
    const end = session.evaluate();
    console.log(
      `[ measured ] ${id}: ${task.train.steps} steps in ${(ms / 1000).toFixed(2)} s (${((task.train.steps * 1000) / ms).toFixed(0)} steps/s); held-out accuracy ${start.accuracy.toFixed(3)} → ${end.accuracy.toFixed(3)}, loss ${start.loss.toFixed(3)} → ${end.loss.toFixed(3)}`,
    );
    assert.ok(end.accuracy >= task.goal, `${id}: accuracy ${end.accuracy} < goal ${task.goal}`);
    assert.ok(end.loss < start.loss);
    session.dispose();
  });
}

test('Session_TheSameRunHoweverItIsSliced', () => {
  const a = createSession(engine, spec('reverse'));
  const b = createSession(engine, spec('reverse'));
  const la = a.train(40).map((r) => r.loss);
  const lb = [...b.train(7), ...b.train(20), ...b.train(13)].map((r) => r.loss);
  assert.deepEqual(lb, la);
  assert.deepEqual(b.evaluate(), a.evaluate());
  const c = createSession(engine, spec('reverse', { seed: 1 }));
  assert.notDeepEqual(
    c.train(5).map((r) => r.loss),
    la.slice(0, 5),
    'another seed, another run',
  );
  for (const s of [a, b, c]) s.dispose();
});

test('Session_ADivergingRateStopsAndKeepsTheLastGoodWeights', () => {
  const session = createSession(engine, spec('copy'));
  session.train(5);
  const before = session.evaluate();
  const params = session.model.params();
  // A rate no run survives: the step that goes non-finite is refused and undone.
  let thrown = null;
  for (let n = 0; n < 5 && !thrown; n++) {
    try {
      session.model.step(batchOf(session), { lr: 1e30 });
    } catch (err) {
      thrown = err;
    }
  }
  assert.ok(thrown, 'a diverging run throws');
  assert.equal(thrown.name, 'AttentionError');
  const after = session.evaluate();
  assert.ok(Number.isFinite(after.loss), `the weights kept are finite (loss ${after.loss})`);
  assert.notDeepEqual(params, null);
  assert.ok(before.step <= after.step);
  session.dispose();
});
function batchOf(session) {
  const T = session.task.context;
  const tokens = Int32Array.from({ length: T }, (_, i) => i % session.task.vocab.length);
  return { tokens, targets: Int32Array.from(tokens, (t, i) => (i ? tokens[i - 1] : -1)), batch: 1, context: T };
}

test('Bank_TheProbeMovesAsTheModelLearns', () => {
  const session = createSession(engine, spec('bank'));
  const first = session.bank();
  session.train(taskFor({ id: 'bank' }).train.steps);
  const last = session.bank();
  // Per head of layer 1: the mean over the two probe sentences of the attention "bank" pays its deciding word.
  const share = (b) => b.contexts.river.onContext.map((r, h) => (r + b.contexts.finance.onContext[h]) / 2);
  console.log(
    `[ measured ] bank: attention from "bank" to the word that decides its sense (the probe's two sentences), per head ${share(first).map((v) => v.toFixed(2))} → ${share(last).map((v) => v.toFixed(2))}; cosine of the two "bank" outputs ${first.cosine.toFixed(3)} → ${last.cosine.toFixed(3)}`,
  );
  assert.ok(
    Math.max(...share(last)) > Math.max(...share(first)) + 0.2,
    'a head learns to look at the word that says which bank',
  );
  assert.ok(last.cosine < first.cosine, 'the two banks further apart');
  session.dispose();
});

test('Bank_AHeadLooksBackAtTheDecidingWordFarAboveChance', () => {
  const session = createSession(engine, spec('bank'));
  session.train(taskFor({ id: 'bank' }).train.steps);
  const { contexts, corpus } = session.bank();
  const best = (c) => Math.max(...c.onContext);
  console.log(
    `[ measured ] bank after ${session.steps} steps: "bank" on "mud" ${contexts.river.onContext.map((v) => v.toFixed(2))}, on "loan" ${contexts.finance.onContext.map((v) => v.toFixed(2))} per head (chance ${contexts.river.chance.toFixed(2)}); over ${corpus.sentences} training sentences ${corpus.onContext.map((v) => v.toFixed(2))} (chance ${corpus.chance.toFixed(2)})`,
  );
  assert.equal(contexts.river.chance, 1 / 6, '"bank" at position 5 sees 6 tokens');
  for (const c of [contexts.river, contexts.finance])
    assert.ok(best(c) >= 4 * c.chance, `${best(c)} vs chance ${c.chance}`);
  assert.ok(best(corpus) >= BANK_FORMED && best(corpus) >= 4 * corpus.chance, `${best(corpus)} over the corpus`);
  session.dispose();
});

// At its watch pace (lib/learn/tasks.js `watch`, reported every tick of max(1, pace/10) steps as
// tools/trainer.js does), each task's pattern forms 10–20 s after Train: the step it forms at is
// the run's (the same at any pace), so the seconds follow from it.
for (const id of ['copy', 'reverse', 'sort', 'repeat', 'bank', 'text']) {
  test(`Task_${id}_PatternFormsWithinTenToTwentySecondsAtItsWatchPace`, () => {
    const session = createSession(engine, spec(id));
    const rate = session.task.watch.stepsPerSecond;
    const tick = Math.max(1, Math.round(rate / 10));
    let formed = null;
    while (formed === null && session.steps < 4000) {
      session.train(tick);
      if (patternFormed(session.task, session.report())) formed = session.steps;
    }
    session.dispose();
    const seconds = formed / rate;
    console.log(`[ measured ] ${id}: the pattern forms at step ${formed}, ${seconds.toFixed(1)} s at ${rate} steps/s`);
    assert.ok(formed !== null, `${id}: the pattern forms`);
    assert.ok(seconds >= 10 && seconds <= 20, `${id}: ${seconds} s`);
  });
}

test('Bank_StartsFromTheSeedsWeightsWhereTheShapesAllow', () => {
  const examples = engine.examples();
  const session = createSession(engine, spec('bank', { fromSeed: true }));
  const vocab = session.task.vocab;
  const params = session.model.params();
  // The seed words' embeddings: the seed's 4 numbers, then zeros; other words keep their random start.
  const wte = params['transformer.wte.weight'];
  const C = wte.shape[1];
  for (const [word, vec] of Object.entries(examples.vocabulary)) {
    const row = Array.from(wte.data.subarray(vocab.indexOf(word) * C, (vocab.indexOf(word) + 1) * C));
    assert.deepEqual(row, [...Array.from(vec), ...new Array(C - 4).fill(0)], word);
  }
  const other = vocab.indexOf('the');
  assert.ok(
    wte.data.subarray(other * C, (other + 1) * C).some((x) => x !== 0),
    'other words start at random',
  );
  // Head 1's block is the seed's W_query, W_key, W_value, and those rows read nothing else.
  const first = session.bank().seedWeights;
  assert.deepEqual(first.now, { wq: examples.W_query, wk: examples.W_key, wv: examples.W_value });
  assert.deepEqual(first.start, first.now);
  const attn = params['transformer.h.0.attn.c_attn.weight'];
  assert.deepEqual(Array.from(attn.data.subarray(4, C)), new Array(C - 4).fill(0), 'query column 1 reads 4 numbers');
  // Training moves them, from the same start every time (a link retrains it).
  session.train(50);
  const moved = session.bank().seedWeights;
  assert.deepEqual(moved.start, first.start);
  assert.notDeepEqual(moved.now, first.now);
  const again = createSession(engine, spec('bank', { fromSeed: true }));
  again.train(50);
  assert.deepEqual(again.bank().seedWeights.now, moved.now);
  assert.equal(createSession(engine, spec('bank')).bank().seedWeights, null, 'off unless asked');
  // Shapes that cannot hold the seed's block get a message naming the setting.
  assert.throws(
    () => createSession(engine, spec('bank', { fromSeed: true, width: 4, heads: 2 })),
    /fromSeed: a head has 2 columns; notebook 3's W_value has 3/,
  );
  assert.throws(
    () => createSession(engine, spec('bank', { fromSeed: true, width: 3, heads: 1 })),
    /fromSeed: the width is 3; notebook 3's embeddings have 4 numbers/,
  );
  session.dispose();
  again.dispose();
});

test('Session_CheckpointsRoundTrip', () => {
  const a = createSession(engine, spec('copy'));
  a.train(30);
  const bytes = a.checkpoint();
  const b = createSession(engine, spec('copy'), bytes);
  assert.deepEqual(b.evaluate().loss, a.evaluate().loss);
  assert.throws(
    () => createSession(engine, spec('reverse'), bytes),
    /checkpoint: it has a vocabulary of 10 tokens; this task has 11/,
  );
  assert.equal(b.loadNote, null, 'our own files say everything');
  // A file without our metadata (as PyTorch's save_file writes it): the tensors give the config
  // but the head count, which comes from the Heads setting, and the note says so.
  const bare = withoutMetadata(bytes);
  const c = createSession(engine, spec('copy'), bare);
  assert.match(c.loadNote, /does not record how many heads.*read with 1 as the Heads setting says/);
  assert.equal(c.report().loadNote, c.loadNote);
  assert.deepEqual(c.model.config, { ...a.model.config, seed: c.model.config.seed });
  assert.deepEqual(c.evaluate().loss, a.evaluate().loss);
  // Another head count reads the same tensors as another model: the note is why.
  const d = createSession(engine, spec('copy', { heads: 2 }), bare);
  assert.match(d.loadNote, /read with 2 as the Heads setting says/);
  assert.equal(d.model.config.heads, 2);
  assert.notDeepEqual(d.evaluate().loss, a.evaluate().loss);
  d.dispose();
  a.dispose();
  b.dispose();
  c.dispose();
});

// web/lib/learn/run.js: the Learn section's run as a state machine, driven here with a fake
// trainer (its requests recorded, its reports made up) and a real store: a link's step count is
// retrained, play trains to the field's step, settings that change the model wait for a new one,
// a refused new model keeps the old, the bank task opens on its best head until the reader picks,
// a run is watched at its task's pace until its pattern forms and then goes fast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../../../web/lib/store.js';
import { defaultLearn, sessionSpec } from '../../../../web/lib/learn/learn-state.js';
import { createLearnRun } from '../../../../web/lib/learn/run.js';
import { LEARN_LIMITS } from '../../../../web/lib/limits.js';

const tick = () => new Promise((r) => setImmediate(r));

// Two layers of one head over two tokens; bank: head 1 of layer 1 looks at the context word most.
const reportAt = (step, { bank = null } = {}) => ({
  step,
  loss: 2 / (step + 1),
  accuracy: 0.5,
  example: { tokens: [0, 1] },
  attention: [0, 1].map(() => ({
    weights: [
      [
        [1, 0],
        [0.5, 0.5],
      ],
      [
        [1, 0],
        [0.2, 0.8],
      ],
    ],
  })),
  bank,
});

function fakeTrainer(log, handlers, { refuse = null } = {}) {
  const t = {
    handlers,
    steps: 0,
    running: false,
    mode: 'worker',
    watched: [],
    async start(spec, checkpoint) {
      log.push(['start', spec, checkpoint]);
      if (refuse) throw new Error(refuse);
      return reportAt(0);
    },
    watch(w) {
      t.watched.push(w);
    },
    play(until) {
      log.push(['play', until]);
      t.running = true;
    },
    pause() {
      t.running = false;
    },
    async step(n) {
      log.push(['step', n]);
      t.steps += n;
      return t.steps;
    },
    threads: async () => ({ threads: 1, maxThreads: 1, singleThreadReason: 'test' }),
    generate: async () => [0, 1],
    attention: async () => reportAt(0).attention,
    checkpoint: async () => Uint8Array.of(1, 2),
    dispose() {
      log.push(['dispose']);
    },
  };
  return t;
}

function setup({ learn = defaultLearn('copy'), until = '', refuse = null } = {}) {
  const log = [];
  const said = [];
  const trainers = [];
  const store = createStore({ view: ['all'], learn });
  const field = { value: until };
  const threadSubscribers = [];
  const run = createLearnRun({
    store,
    makeTrainer: (handlers) => {
      const t = fakeTrainer(log, handlers, { refuse: trainers.length ? refuse : null });
      trainers.push(t);
      return t;
    },
    threads: { chosen: null, report() {}, subscribe: (f) => (threadSubscribers.push(f), () => {}) },
    now: () => 0,
    field: { until: () => field.value, setUntil: (v) => (field.value = v) },
    view: {
      sync() {},
      clear: () => log.push(['clear']),
      progress() {},
      report: (force) => log.push(['report', force]),
      say: (text) => said.push(text),
      sample() {},
      retraining: (n) => log.push(['retraining', n]),
      threads() {},
    },
  });
  return { run, store, log, said, trainers, field };
}

test('LearnRun_StartMakesTheFirstModelOnceAndRetrainsToTheLinksStep', async () => {
  const { run, log, field, store } = setup({ learn: { ...defaultLearn('copy'), steps: 7 } });
  run.start();
  run.start();
  await tick();
  const starts = log.filter(([op]) => op === 'start');
  assert.equal(starts.length, 1, 'one model');
  assert.deepEqual(starts[0][1], sessionSpec(store.get().learn));
  assert.deepEqual(
    log.filter(([op]) => op === 'retraining' || op === 'step'),
    [
      ['retraining', 7],
      ['step', 7],
    ],
  );
  assert.equal(field.value, '7', 'the field says the step trained to');
  assert.equal(run.report.step, 0);
});

test('LearnRun_PlayTrainsToTheFieldsStepAndSaysWhyNot', async () => {
  const { run, log, said, field, trainers } = setup({ learn: { ...defaultLearn('copy'), speed: 'fast' } });
  run.start();
  await tick();
  field.value = '0';
  await run.togglePlay();
  assert.equal(said.at(-1), `Train to step: expected a whole number in [1, ${LEARN_LIMITS.steps}], got 0`);
  field.value = '120';
  await run.togglePlay();
  assert.deepEqual(log.at(-1), ['play', 120]);
  assert.deepEqual(trainers[0].watched.at(-1), { evalEvery: 2, stepsPerSecond: Infinity }, 'about 60 evaluations');
  assert.equal(run.running, true);
  await run.togglePlay();
  assert.equal(run.running, false, 'the button pauses a running model');
});

test('LearnRun_WatchesAtTheTasksPaceUntilThePatternFormsThenGoesFast', async () => {
  const { run, store, field, trainers } = setup();
  run.start();
  await tick();
  field.value = '300';
  await run.togglePlay();
  const trainer = trainers[0];
  assert.equal(trainer.watched.at(-1).stepsPerSecond, 3, 'copy is watched at 3 steps a second');
  assert.equal(run.formedAt, null);
  trainer.handlers.onReport({ ...reportAt(20), accuracy: 0.9 });
  assert.equal(trainer.watched.at(-1).stepsPerSecond, 3, 'below the goal: still watching');
  trainer.handlers.onReport({ ...reportAt(41), accuracy: 0.98 });
  assert.equal(run.formedAt, 41, 'the goal reached: the pattern has formed');
  assert.equal(trainer.watched.at(-1).stepsPerSecond, Infinity, 'then as fast as it goes');
  assert.equal(run.pace, Infinity);
  // A pace the reader picks holds whatever the pattern does, and goes into the state (the link).
  run.speed(4);
  assert.equal(trainer.watched.at(-1).stepsPerSecond, 4);
  assert.equal(store.get().learn.speed, 4);
  run.speed('fast');
  assert.equal(trainer.watched.at(-1).stepsPerSecond, Infinity);
  run.speed('watch');
  assert.equal('speed' in store.get().learn, false, 'watch is the default: the link leaves it out');
  assert.equal(trainer.watched.at(-1).stepsPerSecond, Infinity, 'watching a formed pattern: fast');
  // A new model watches again from its first step.
  await run.restart();
  await run.togglePlay();
  assert.equal(trainers.at(-1).watched.at(-1).stepsPerSecond, 3);
});

test('LearnRun_ChangedSettingsWaitForANewModelAndARefusedOneKeepsTheOld', async () => {
  const { run, store, said, trainers } = setup({ refuse: 'no engine' });
  run.start();
  await tick();
  const first = run.live;
  store.set({ learn: { ...store.get().learn, steps: 3 } });
  run.setting('lr', 0.02);
  assert.equal(store.get().learn.lr, 0.02);
  assert.equal(store.get().learn.steps, 0, 'a different model starts at step 0');
  assert.equal(run.needsRestart, true);
  assert.equal(await run.restart(), false);
  assert.equal(said.at(-1), 'Could not start a model: no engine');
  assert.equal(run.live, first, 'the model on screen stays');
  assert.equal(trainers.length, 2);
});

test('LearnRun_ABadSettingIsSaidAndTheStateKept', () => {
  const { run, store, said } = setup();
  const before = store.get();
  run.setting('layers', 99);
  assert.equal(store.get(), before);
  assert.match(said.at(-1), /layers: expected a whole number in \[1, 4\], got 99/);
});

test('LearnRun_TheBankTaskOpensOnItsBestHeadUntilTheReaderPicks', async () => {
  const { run, trainers, log } = setup({ learn: defaultLearn('bank') });
  run.start();
  await tick();
  const bank = { contexts: { river: { onContext: [0.1, 0.9] }, finance: { onContext: [0.3, 0.5] } }, cosine: 0.2 };
  trainers[0].handlers.onReport(reportAt(5, { bank }));
  assert.deepEqual(run.picture().chosen, { layer: 0, head: 1 }, 'the head that looks most at the context word');
  assert.deepEqual(
    run.picture().labels,
    [0, 1].map((t) => `${t}:${run.live.task.vocab[t]}`),
    'position:token',
  );
  run.pick(1, 0);
  assert.deepEqual(log.at(-1), ['report', true], 'a pick redraws at once');
  trainers[0].handlers.onReport(reportAt(6, { bank }));
  assert.deepEqual(run.picture().chosen, { layer: 1, head: 0 }, "the reader's pick stays");
  assert.deepEqual(run.history.cosine, [
    [5, 0.2],
    [6, 0.2],
  ]);
});

test('LearnRun_ReportsOfAModelNoLongerOnScreenAreIgnored', async () => {
  const { run, trainers } = setup();
  run.start();
  await tick();
  await run.restart();
  assert.equal(trainers.length, 2);
  trainers[0].handlers.onReport(reportAt(99));
  trainers[0].handlers.onProgress({ losses: [{ step: 99, loss: 1 }], steps: 99, stepsPerSecond: 1, mode: 'page' });
  assert.equal(run.report.step, 0);
  assert.deepEqual(run.history.train, []);
});

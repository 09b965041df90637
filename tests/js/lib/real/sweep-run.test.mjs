// The layer × head knock-out picture's controller (web/lib/real/sweep-run.js) with a fake host:
// one request per block, a row per answer, cancel between blocks, a new start overtaking the old,
// a failure said with the rows so far kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSweepRun } from '../../../../web/lib/real/sweep-run.js';

// A host whose answers the test releases one at a time.
function fakeHost() {
  const pending = [];
  const calls = [];
  return {
    calls,
    call(op, ids, args) {
      calls.push({ op, args });
      return new Promise((resolve, reject) => pending.push({ resolve, reject, args }));
    },
    answer(row, logProb = -1) {
      const p = pending.shift();
      p.resolve({ layer: p.args.layer, row: Float32Array.from(row), logProb });
      return new Promise((r) => setTimeout(r, 0));
    },
    fail(message) {
      pending.shift().reject(new Error(message));
      return new Promise((r) => setTimeout(r, 0));
    },
  };
}

test('SweepRun_FillsTheRowsBlockByBlockAndFinishes', async () => {
  const host = fakeHost();
  const seen = [];
  const run = createSweepRun({ call: host.call, onChange: (s) => seen.push(s) });
  const done = run.start({ ids: [1, 2], L: 3, H: 2, position: 1, token: 4, key: 'k' });
  assert.equal(run.state.phase, 'running');
  assert.equal(host.calls.length, 1, 'one block asked at a time');
  assert.deepEqual(host.calls[0], {
    op: 'sweep',
    args: { layer: 0, position: 1, token: 4, mode: 'zero', reference: undefined },
  });
  await host.answer([-2, -1]);
  assert.equal(run.state.done, 1);
  assert.deepEqual(Array.from(run.state.effect.slice(0, 2)), [-1, 0]);
  assert.ok(Number.isNaN(run.state.effect[2]), 'block 1 not measured yet');
  await host.answer([-1, -1]);
  await host.answer([-3, -1]);
  await done;
  assert.equal(run.state.phase, 'finished');
  assert.equal(run.state.done, 3);
  assert.deepEqual(Array.from(run.state.effect), [-1, 0, 0, 0, -2, 0]);
  assert.deepEqual(
    host.calls.map((c) => c.args.layer),
    [0, 1, 2],
  );
  assert.deepEqual(
    seen.map((s) => [s.phase, s.done]),
    [
      ['running', 0],
      ['running', 1],
      ['running', 2],
      ['finished', 3],
    ],
  );
});

test('SweepRun_CancelStopsBeforeTheNextBlockAndKeepsTheRows', async () => {
  const host = fakeHost();
  const run = createSweepRun({ call: host.call, onChange: () => {} });
  const done = run.start({ ids: [1], L: 4, H: 1, position: 0, token: 0 });
  await host.answer([-2]);
  run.cancel();
  assert.equal(run.state.phase, 'cancelled');
  await host.answer([-5]); // the block in flight when cancelled: dropped
  await done;
  assert.equal(host.calls.length, 2, 'no block asked after the cancel');
  assert.equal(run.state.done, 1);
  assert.equal(run.state.effect[0], -1);
  assert.ok(Number.isNaN(run.state.effect[1]));
});

test('SweepRun_ANewStartOvertakesTheOldAndAFailureIsSaid', async () => {
  const host = fakeHost();
  const run = createSweepRun({ call: host.call, onChange: () => {} });
  const first = run.start({ ids: [1], L: 2, H: 1, position: 0, token: 0, key: 'a' });
  const second = run.start({ ids: [1], L: 2, H: 1, position: 0, token: 1, key: 'b' });
  await host.answer([-9]); // the first's answer: dropped
  await first;
  assert.equal(run.state.key, 'b');
  assert.equal(run.state.done, 0);
  await host.answer([-2]);
  assert.equal(run.state.done, 1);
  await host.fail('the worker stopped');
  await second;
  assert.equal(run.state.phase, 'failed');
  assert.equal(run.state.message, 'the worker stopped');
  assert.equal(run.state.done, 1);
});

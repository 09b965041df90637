// engine.threads and the choice of the threaded engine (web/engine/threads.js), where Node can
// check them: the single-thread engine refuses any count but 1 naming `threads` and its range,
// loadEngine({threads: 'auto'}) falls back to it outside a Web Worker, the conditions for the
// threaded one over stand-in scopes, and the page's thread setting (tools/threads.js). The
// threaded engine itself runs in browsers only: tests/e2e/threads.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  loadEngine,
  createEngine,
  AttentionError,
  threadsUnavailableReason,
  MAX_DEFAULT_THREADS,
} from '../../../web/engine/engine.js';
import { applyThreads, expectedThreads } from '../../../web/tools/threads.js';

const engine = await loadEngine();
const bank = engine.examples();
const x = bank.contexts.river.map((w) => bank.vocabulary[w]);

test('Threads_TheSingleThreadEngineRunsOnOneAndSaysWhy', () => {
  assert.equal(engine.threads, 1);
  assert.equal(engine.maxThreads, 1);
  assert.match(engine.singleThreadReason, /without threads: 'auto'/);
  engine.threads = 1;
  assert.equal(engine.threads, 1);
});

test('Threads_ACountOutsideItsRangeIsAnAttentionErrorNamingThreadsAndTheEngineAnswersOn', () => {
  const before = engine.attend({ x }).output.data;
  for (const bad of [0, 2, -1, 1.5, NaN, '1', null, undefined, 2 ** 31]) {
    assert.throws(
      () => {
        engine.threads = bad;
      },
      (error) =>
        error instanceof AttentionError &&
        error.argument === 'threads' &&
        /^threads: expected an integer in \[1, 1\] \(this engine runs on one thread: .+\), got /.test(error.message),
      `threads = ${String(bad)}`,
    );
  }
  assert.equal(engine.threads, 1);
  assert.deepStrictEqual(engine.attend({ x }).output.data, before);
});

test('Threads_AutoOutsideAWorkerLoadsTheSingleThreadEngineWithTheSameNumbers', async () => {
  const auto = await loadEngine({ threads: 'auto' });
  assert.notEqual(auto, engine, 'one engine per kind');
  assert.equal(await loadEngine({ threads: 'auto' }), auto, 'shared');
  assert.equal(auto.maxThreads, 1);
  assert.match(auto.singleThreadReason, /not running in a Web Worker/);
  assert.deepStrictEqual(auto.attend({ x }).output.data, engine.attend({ x }).output.data);
});

test('Threads_AnUnknownThreadsOptionIsRefused', async () => {
  for (const bad of [2, true, 'all', 0]) {
    await assert.rejects(
      createEngine({ threads: bad }),
      (error) =>
        error instanceof AttentionError && error.argument === 'threads' && /expected 'auto'/.test(error.message),
    );
  }
});

test('Threads_TheThreadedEngineNeedsAWorkerOfAnIsolatedPageOnSeveralCores', () => {
  class WorkerGlobalScope {}
  const worker = (props) => Object.assign(new WorkerGlobalScope(), { WorkerGlobalScope, SharedArrayBuffer, ...props });
  const cores = (n) => ({ navigator: { hardwareConcurrency: n } });
  assert.equal(threadsUnavailableReason(worker({ crossOriginIsolated: true, ...cores(4) })), null);
  assert.match(
    threadsUnavailableReason(worker({ crossOriginIsolated: false, ...cores(4) })),
    /not cross-origin isolated/,
  );
  assert.match(
    threadsUnavailableReason(worker({ crossOriginIsolated: true, SharedArrayBuffer: undefined, ...cores(4) })),
    /not cross-origin isolated/,
  );
  assert.match(threadsUnavailableReason(worker({ crossOriginIsolated: true, ...cores(1) })), /single core/);
  // A page's main thread (a Window has no WorkerGlobalScope of its own) and Node.
  assert.match(
    threadsUnavailableReason({ crossOriginIsolated: true, SharedArrayBuffer, ...cores(8) }),
    /not running in a Web Worker/,
  );
  assert.match(threadsUnavailableReason(globalThis), /not running in a Web Worker/);
});

test('Threads_TheSettingIsCappedByEachEngineAndThePageExpectsTheCoresAtMostEight', () => {
  assert.deepEqual(applyThreads(engine, 4), {
    threads: 1,
    maxThreads: 1,
    singleThreadReason: engine.singleThreadReason,
  });
  assert.deepEqual(applyThreads(engine), { threads: 1, maxThreads: 1, singleThreadReason: engine.singleThreadReason });
  assert.throws(
    () => applyThreads(engine, 0),
    (error) => error.argument === 'threads',
  );
  assert.equal(MAX_DEFAULT_THREADS, 8);
  const win = (isolated, n) => ({ crossOriginIsolated: isolated, navigator: { hardwareConcurrency: n } });
  assert.deepEqual(expectedThreads(win(true, 16)), { maxThreads: 8, isolated: true });
  assert.deepEqual(expectedThreads(win(true, 2)), { maxThreads: 2, isolated: true });
  assert.deepEqual(expectedThreads(win(false, 16)), { maxThreads: 1, isolated: false });
});

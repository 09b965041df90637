// web/tools/worker-channels.js with tools/worker-backend.js's two sides: the figures of a page
// share one worker, each on its own channel answered by its own requests; the last one to go
// ends the worker; a worker that fails fails every figure on it, and the next figure tries a
// new worker. The "worker" is a fake that runs the worker's side in this thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedWorker } from '../../../web/tools/worker-channels.js';
import { answerChannels, workerBackend } from '../../../web/tools/worker-backend.js';

const tick = () => new Promise((r) => setImmediate(r));

/** A fake Worker whose other side runs answerChannels with a counter per channel. */
function fakeWorkers() {
  const made = [];
  function makeWorker() {
    const scope = { onmessage: null, postMessage: (data) => worker.onmessage?.({ data }) };
    const channels = [];
    answerChannels(
      scope,
      () => {
        const mine = { count: 0, disposed: false };
        channels.push(mine);
        return {
          async handle(op) {
            if (op === 'dispose') return (mine.disposed = true);
            if (op === 'fail') throw Object.assign(new Error('bad request'), { argument: 'op' });
            return ++mine.count;
          },
        };
      },
      () => [],
    );
    const worker = {
      onmessage: null,
      onerror: null,
      terminated: false,
      channels,
      postMessage: (data) => queueMicrotask(() => scope.onmessage({ data: structuredClone(data) })),
      terminate() {
        worker.terminated = true;
      },
    };
    made.push(worker);
    return worker;
  }
  return { made, makeWorker };
}

test('WorkerChannels_TheFiguresOfAPageShareOneWorkerEachWithItsOwnRequests', async () => {
  const { made, makeWorker } = fakeWorkers();
  const channel = sharedWorker(makeWorker);
  const a = workerBackend(channel(), 'the model worker');
  const b = workerBackend(channel(), 'the model worker');
  assert.equal(made.length, 1, 'one worker for both figures');
  assert.deepEqual([await a.call('count'), await a.call('count'), await b.call('count')], [1, 2, 1]);
  await assert.rejects(b.call('fail'), (e) => e.message === 'bad request' && e.argument === 'op');
  assert.equal(made[0].channels.length, 2);
  a.dispose();
  await tick();
  assert.deepEqual(
    made[0].channels.map((c) => c.disposed),
    [true, false],
    "a's requests are disposed of, b's stay",
  );
  assert.equal(made[0].terminated, false);
  b.dispose();
  assert.equal(made[0].terminated, true, 'the last figure ends the worker');
  // A figure after that starts a new one.
  const c = workerBackend(channel(), 'the model worker');
  assert.equal(await c.call('count'), 1);
  assert.equal(made.length, 2);
});

test('WorkerChannels_AWorkerThatFailsFailsEveryFigureOnItAndTheNextFigureTriesANewOne', async () => {
  const { made, makeWorker } = fakeWorkers();
  const channel = sharedWorker(makeWorker);
  const a = workerBackend(channel(), 'the model worker');
  const b = workerBackend(channel(), 'the model worker');
  let prevented = false;
  made[0].onerror({ message: 'it could not be loaded', preventDefault: () => (prevented = true) });
  assert.equal(prevented, true);
  for (const backend of [a, b])
    await assert.rejects(
      backend.call('count'),
      (e) => e.workerFailed === true && /could not be loaded/.test(e.message),
    );
  const c = workerBackend(channel(), 'the model worker');
  assert.equal(made.length, 2);
  assert.equal(await c.call('count'), 1);
});

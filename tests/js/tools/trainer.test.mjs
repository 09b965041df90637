// web/tools/trainer.js: the requests a training thread answers (the worker's and the page's
// fallback's) run a session over the real engine; a bad request is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../web/engine/engine.js';
import { defaultLearn, sessionSpec } from '../../../web/lib/learn/learn-state.js';
import { sessionRequests } from '../../../web/tools/trainer.js';

const engine = await loadEngine();
const spec = (id, patch = {}) => sessionSpec({ ...defaultLearn(id), ...patch });

test('Trainer_RequestsAnswerAsTheWorkerWould', async () => {
  const requests = sessionRequests(Promise.resolve(engine));
  await assert.rejects(requests.handle('train', [1]), /no model yet: start a run first/);
  await assert.rejects(requests.handle('nope', []), /unknown request "nope"/);
  const report = await requests.handle('start', [spec('copy')]);
  assert.equal(report.step, 0);
  assert.equal(report.attention.length, 1);
  const losses = await requests.handle('train', [10, Infinity]);
  assert.equal(losses.length, 10);
  const budgeted = await requests.handle('train', [100000, 1]);
  assert.ok(budgeted.length >= 1 && budgeted.length < 100000, 'stops once the slice budget is spent');
  await requests.handle('dispose', []);
});

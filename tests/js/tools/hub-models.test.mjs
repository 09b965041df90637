// Unit tests of web/tools/hub-models.js, the page's downloads from the Hub, against the fake Hub
// (tests/helpers/fake-hub.mjs): the precision a model is opened in follows the memory prediction
// (lib/hub/memory.js) — F32 where it fits, F16 where only that fits, a refusal naming both where
// neither does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHubModels } from '../../../web/tools/hub-models.js';
import { DEVICE_SHARE, memoryNeed } from '../../../web/lib/hub/memory.js';
import { bytes, fakeHub, TINY_GPT2_CONFIG } from '../../helpers/fake-hub.mjs';

const ENDPOINT = 'https://hub.test';
const REPO = 'someone/tiny-gpt2';
const CONFIG = TINY_GPT2_CONFIG;
const files = () => ({
  'config.json': JSON.stringify(CONFIG),
  'tokenizer.json': '{"model": {"type": "BPE"}}',
  'model.safetensors': bytes(25000),
});
const models = (hub, deviceMemoryGB) =>
  createHubModels({
    storage: undefined,
    options: { fetch: hub.fetch, sleep: async () => {}, watcher: { since: () => [] }, deviceMemoryGB },
  });

test('HubModels_AModelIsOpenedInF16OnlyWhereOnlyF16Fits', async () => {
  const hub = fakeHub(files(), {}, REPO);
  const roomy = await models(hub, undefined).fetch({ endpoint: ENDPOINT, repo: REPO });
  assert.equal(roomy.spec.weights, 'auto', 'no limit: the engine chooses (F32 for a model this size)');
  const n = roomy.sizes.parameters;
  assert.ok(Number.isSafeInteger(n) && n > 0, `parameters ${n}`);
  // A device whose share holds the model as F16 but not as F32.
  const between = (memoryNeed(n, 4) + memoryNeed(n, 2)) / 2 / (1024 ** 3 * DEVICE_SHARE);
  const tight = await models(fakeHub(files(), {}, REPO), between).fetch({ endpoint: ENDPOINT, repo: REPO });
  assert.equal(tight.spec.weights, 'f16');
  // Less than F16 needs: refused before the weights are asked for, naming both precisions.
  const small = memoryNeed(n, 2) / 2 / (1024 ** 3 * DEVICE_SHARE);
  const tiny = fakeHub(files(), {}, REPO);
  await assert.rejects(models(tiny, small).fetch({ endpoint: ENDPOINT, repo: REPO }), (e) => {
    assert.equal(e.reason, 'memory');
    assert.match(e.message, /as F32: more than half of this device's memory/);
    return true;
  });
  assert.ok(!tiny.calls.some((c) => c.url.includes('model.safetensors')), 'the weights were never asked for');
});

test('HubModels_TheReadersChoiceOfWeightsIsTheOneOpenedAndARefusalNamesTheOneThatWouldFit', async () => {
  const hub = fakeHub(files(), {}, REPO);
  const n = (await models(hub, undefined).fetch({ endpoint: ENDPOINT, repo: REPO })).sizes.parameters;
  // Chosen, each precision is what the spec asks the engine for, where it fits.
  for (const weights of ['f32', 'f16', 'bf16']) {
    const got = await models(fakeHub(files(), {}, REPO), undefined).fetch(
      { endpoint: ENDPOINT, repo: REPO },
      { weights },
    );
    assert.equal(got.spec.weights, weights);
  }
  // float32 chosen on a device whose share holds only F16: refused, saying which choice would fit.
  const between = (memoryNeed(n, 4) + memoryNeed(n, 2)) / 2 / (1024 ** 3 * DEVICE_SHARE);
  const tight = fakeHub(files(), {}, REPO);
  await assert.rejects(models(tight, between).fetch({ endpoint: ENDPOINT, repo: REPO }, { weights: 'f32' }), (e) => {
    assert.equal(e.reason, 'memory');
    assert.match(e.message, /as F32: more than half of this device's memory/);
    assert.match(e.message, /as F16 it would need .*, which would fit: choose F16 under “Weights as”/);
    return true;
  });
  assert.ok(!tight.calls.some((c) => c.url.includes('model.safetensors')), 'the weights were never asked for');
  // BF16 chosen where even 2 bytes a weight do not fit: refused naming BF16, not F16.
  const small = memoryNeed(n, 2) / 2 / (1024 ** 3 * DEVICE_SHARE);
  await assert.rejects(
    models(fakeHub(files(), {}, REPO), small).fetch({ endpoint: ENDPOINT, repo: REPO }, { weights: 'bf16' }),
    (e) => {
      assert.equal(e.reason, 'memory');
      assert.match(e.message, /of memory as BF16: more than half of this device's memory/);
      return true;
    },
  );
  // auto on the same device: F16, as before.
  const auto = await models(fakeHub(files(), {}, REPO), between).fetch({ endpoint: ENDPOINT, repo: REPO });
  assert.equal(auto.spec.weights, 'f16');
});

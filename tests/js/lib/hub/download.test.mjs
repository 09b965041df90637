// Unit tests of web/lib/hub/download.js, the download's state machine, against a fake fetch that
// answers like the Hub (the resolve URLs' final answers, the listing API) and fails on request:
// drops mid-body, HTTP statuses, refused requests. The same controller against the real HTTP
// stand-in: tests/js/lib/hub/standin.test.mjs; in the browsers: tests/e2e/hub.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDownload, openSpecOf, parseContentRange } from '../../../../web/lib/hub/download.js';
import { memoryBackend, openModelStore } from '../../../../web/lib/hub/store.js';
import { HubError } from '../../../../web/lib/hub/errors.js';
import { bytes, fakeHub as fakeHubOf, TINY_GPT2_CONFIG } from '../../../helpers/fake-hub.mjs';

const fakeHub = (files, script = {}) => fakeHubOf(files, script, REPO);
const ENDPOINT = 'https://hub.test';
const REPO = 'someone/tiny-gpt2';
const CONFIG = TINY_GPT2_CONFIG;
const defaults = (hub, store, extra = {}) => ({
  model: { endpoint: ENDPOINT, repo: REPO },
  store,
  fetch: hub.fetch,
  sleep: async () => {},
  watcher: { since: () => [] },
  askPersist: false,
  deviceMemoryGB: undefined,
  ...extra,
});

const files = () => ({
  'config.json': JSON.stringify(CONFIG),
  'tokenizer.json': '{"model": {"type": "BPE"}}',
  'model.safetensors': bytes(25000),
});
const text = async (blob) => new TextDecoder().decode(await blob.arrayBuffer());
const same = async (blob, data) => assert.deepEqual(new Uint8Array(await blob.arrayBuffer()), data);

test('Download_StoresTheFilesWithProgressAndASecondVisitFetchesNothing', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const hub = fakeHub(files());
  const d = createDownload(defaults(hub, store, { progressEveryMs: 0 }));
  const states = [];
  d.subscribe((s) => states.push(s));
  assert.equal(d.state.phase, 'idle');
  const result = await d.start();
  const phases = states.map((s) => s.phase).filter((p, i, a) => p !== a[i - 1]);
  assert.deepEqual(phases, ['checking', 'downloading', 'stored']);
  const weights = states.filter((s) => s.file === 'model.safetensors' && s.phase === 'downloading');
  assert.ok(weights.length >= 10, `${weights.length} progress states for 25 kB in 1 kB chunks`);
  assert.deepEqual([weights.at(-1).bytes, weights.at(-1).total, weights.at(-1).percent], [25000, 25000, 100]);
  for (let i = 1; i < weights.length; i++) assert.ok(weights[i].bytes >= weights[i - 1].bytes, 'bytes never go back');
  assert.equal(d.state.fetched, hub.served);
  assert.equal(result.fromStore, false);
  assert.equal(result.tokenizer, 'tokenizer.json');
  assert.equal(result.commit, 'c'.repeat(40));
  assert.deepEqual(result.sizes, {
    vocabSize: 512,
    contextLength: 64,
    layers: 2,
    heads: 2,
    width: 32,
    parameters: 512 * 32 + 64 * 32 + 2 * (12 * 32 * 32 + 13 * 32) + 64,
  });
  await same(result.files['model.safetensors'], hub.files['model.safetensors']);
  assert.equal(await text(result.files['config.json']), hub.files['config.json']);
  // The model host's open() spec: the weights and config as Blobs, the tokenizer's JSON.
  const spec = openSpecOf(result);
  assert.equal(spec.source, result.files['model.safetensors']);
  assert.equal(spec.tokenizer.json, result.files['tokenizer.json']);
  assert.equal(spec.name, REPO);
  // The second visit: no request at all.
  const calls = hub.calls.length;
  const again = await createDownload(defaults(hub, store)).start();
  assert.equal(hub.calls.length, calls);
  assert.equal(again.fromStore, true);
  assert.equal(again.fetched, 0);
  await same(again.files['model.safetensors'], hub.files['model.safetensors']);
});

test('Download_ADroppedConnectionResumesWithRangeAndTheFileIsIdentical', async () => {
  const store = await openModelStore({ backend: memoryBackend(), pieceBytes: 4096 });
  const hub = fakeHub(files(), {
    drops: [
      { file: 'model.safetensors', after: 9500 },
      { file: 'model.safetensors', after: 6000 },
    ],
  });
  const waits = [];
  const d = createDownload(defaults(hub, store, { sleep: async (ms) => waits.push(ms), backoffMs: 100 }));
  const retries = [];
  d.subscribe((s) => s.retry && retries.push(s.retry));
  const result = await d.start();
  const ranges = hub.calls.filter((c) => c.url.endsWith('model.safetensors')).map((c) => c.range);
  assert.deepEqual(ranges, [null, 'bytes=9500-', 'bytes=15500-']);
  assert.deepEqual(waits, [100, 100]); // each attempt brought bytes, so the count (and the wait) started again
  assert.deepEqual(
    retries.map((r) => r.attempt),
    [1, 1],
  );
  await same(result.files['model.safetensors'], hub.files['model.safetensors']);
  assert.equal(d.state.fetched, hub.served);
});

test('Download_AConnectionThatBringsNothingFailsAfterTheRetriesAndKeepsWhatArrived', async () => {
  const store = await openModelStore({ backend: memoryBackend(), pieceBytes: 4096 });
  const drops = [{ file: 'model.safetensors', after: 5000 }];
  for (let i = 0; i < 10; i++) drops.push({ file: 'model.safetensors', after: 0 });
  const hub = fakeHub(files(), { drops });
  const waits = [];
  const d = createDownload(
    defaults(hub, store, { sleep: async (ms) => waits.push(ms), retries: 3, backoffMs: 1000, maxBackoffMs: 3000 }),
  );
  await assert.rejects(d.start(), (e) => {
    assert.equal(e.reason, 'dropped');
    assert.match(
      e.message,
      /the connection kept dropping while downloading model\.safetensors: it failed 4 times in a row, stopped at 5\.00 kB of 25\.0 kB\. What arrived is kept/,
    );
    return true;
  });
  assert.deepEqual(waits, [1000, 2000, 3000]); // doubling, capped; the fourth failure in a row ends it
  assert.equal(d.state.phase, 'failed');
  assert.equal(d.state.error.reason, 'dropped');
  assert.equal((await store.fileState({ endpoint: ENDPOINT, repo: REPO }, 'model.safetensors')).bytes, 5000);
  // The next press resumes from byte 5000.
  hub.script.drops = [];
  const result = await createDownload(defaults(hub, store)).start();
  assert.equal(hub.calls.at(-1).range, 'bytes=5000-');
  await same(result.files['model.safetensors'], hub.files['model.safetensors']);
});

test('Download_AChangedFileRestartsFromZero', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const hub = fakeHub(files(), { drops: [{ file: 'model.safetensors', after: 8000 }] });
  // While the download waits to retry, the file is replaced by a new version (a new ETag).
  const d = createDownload(
    defaults(hub, store, {
      sleep: async () => {
        hub.files['model.safetensors'] = bytes(21000, 99);
        hub.versions = { 'model.safetensors': 2 };
      },
    }),
  );
  const result = await d.start();
  const ranges = hub.calls.filter((c) => c.url.endsWith('model.safetensors')).map((c) => c.range);
  assert.deepEqual(ranges, [null, 'bytes=8000-', null]); // the 206 said another ETag: from 0 again
  await same(result.files['model.safetensors'], bytes(21000, 99));
});

test('Download_AServerThatIgnoresRangeStartsOverWithoutFailing', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const hub = fakeHub(files(), { ignoreRange: true, drops: [{ file: 'model.safetensors', after: 12000 }] });
  const result = await createDownload(defaults(hub, store)).start();
  const ranges = hub.calls.filter((c) => c.url.endsWith('model.safetensors')).map((c) => c.range);
  assert.deepEqual(ranges, [null, 'bytes=12000-']); // asked; got 200 and the whole file
  await same(result.files['model.safetensors'], hub.files['model.safetensors']);
});

test('Download_A416AtTheEndCompletesTheFile', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const hub = fakeHub(files());
  const spec = { endpoint: ENDPOINT, repo: REPO };
  const w = await store.writer(spec, 'model.safetensors', { etag: '"model.safetensors-v1"', total: 25000 });
  await w.write(hub.files['model.safetensors']);
  await w.commit(); // every byte kept, but not marked complete (a crash before the last step)
  const result = await createDownload(defaults(hub, store)).start();
  assert.equal(hub.calls.at(-1).range, 'bytes=25000-');
  await same(result.files['model.safetensors'], hub.files['model.safetensors']);
});

test('Download_TheTokenizerFallsBackToVocabAndMergesThenToNone', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const f = files();
  delete f['tokenizer.json'];
  f['vocab.json'] = '{"a": 0}';
  f['merges.txt'] = '#version: 0.2\n';
  const result = await createDownload(defaults(fakeHub(f), store)).start();
  assert.equal(result.tokenizer, 'vocab.json+merges.txt');
  assert.deepEqual(Object.keys(result.files), ['config.json', 'vocab.json', 'merges.txt', 'model.safetensors']);
  const spec = openSpecOf(result);
  assert.equal(await text(spec.tokenizer.vocab), '{"a": 0}');
  assert.equal(await text(spec.tokenizer.merges), '#version: 0.2\n');
  const bare = files();
  delete bare['tokenizer.json'];
  const none = await createDownload({
    ...defaults(fakeHub(bare), store),
    model: { endpoint: ENDPOINT, repo: REPO, revision: 'main' },
  });
  const r2 = await none.start(); // the same key: it is already kept, from the first download
  assert.equal(r2.fromStore, true);
  const store2 = await openModelStore({ backend: memoryBackend() });
  const r3 = await createDownload(defaults(fakeHub(bare), store2)).start();
  assert.equal(r3.tokenizer, null);
  assert.deepEqual(openSpecOf(r3).tokenizer, {}); // the model host then uses GPT-2's own encoding
});

test('Download_NotFoundSaysWhichFilesTheRepositoryHas', async () => {
  const f = files();
  delete f['model.safetensors'];
  f['pytorch_model.bin'] = bytes(10);
  const hub = fakeHub(f);
  const d = createDownload(defaults(hub, await openModelStore({ backend: memoryBackend() })));
  await assert.rejects(d.start(), (e) => {
    assert.equal(e.reason, 'no-safetensors');
    assert.match(
      e.message,
      /someone\/tiny-gpt2 has no model\.safetensors.*its files are: config\.json, tokenizer\.json, pytorch_model\.bin \(PyTorch pickle/,
    );
    assert.deepEqual(e.files, ['config.json', 'tokenizer.json', 'pytorch_model.bin']);
    return true;
  });
  assert.deepEqual(d.state.error.files, ['config.json', 'tokenizer.json', 'pytorch_model.bin']);
  // Without the listing: what was expected.
  const quiet = fakeHub(f, { listing: false });
  await assert.rejects(
    createDownload(defaults(quiet, await openModelStore({ backend: memoryBackend() }))).start(),
    (e) =>
      e.reason === 'not-found' &&
      /has no model\.safetensors at https:\/\/hub\.test \(a GPT-2 checkpoint needs config\.json, model\.safetensors and its tokenizer; the repository's file list could not be read\)/.test(
        e.message,
      ),
  );
  // An unknown repository (the Hub answers 401 to anonymous requests for those).
  const other = createDownload({
    ...defaults(hub, await openModelStore({ backend: memoryBackend() })),
    model: { endpoint: ENDPOINT, repo: 'nobody/nothing' },
  });
  await assert.rejects(
    other.start(),
    (e) =>
      e.reason === 'not-found' &&
      /refused nobody\/nothing \(HTTP 401\): it does not exist, or it is private or gated/.test(e.message),
  );
});

test('Download_ANonGpt2ConfigStopsBeforeTheWeightsAndKeepsNothing', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const hub = fakeHub({
    ...files(),
    'config.json': JSON.stringify({ model_type: 'bert', architectures: ['BertModel'] }),
  });
  const d = createDownload(defaults(hub, store));
  await assert.rejects(
    d.start(),
    (e) =>
      e.reason === 'not-gpt2' &&
      /is not a GPT-2 model \(its config\.json says model_type "bert", architectures BertModel\)/.test(e.message),
  );
  assert.deepEqual(
    hub.calls.map((c) => new URL(c.url).pathname.split('/').pop()),
    ['config.json'],
  );
  assert.deepEqual(await store.list(), []);
});

test('Download_MemoryIsPredictedBeforeTheWeights', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const medium = { ...CONFIG, vocab_size: 50257, n_positions: 1024, n_layer: 24, n_head: 16, n_embd: 1024 };
  const hub = fakeHub({ ...files(), 'config.json': JSON.stringify(medium) });
  const d = createDownload(defaults(hub, store, { deviceMemoryGB: 2 }));
  await assert.rejects(
    d.start(),
    (e) =>
      e.reason === 'memory' &&
      /needs 1\.55 GB of memory as F32: more than half of this device's memory.*as F16 it would need 838 MB, which would fit/.test(
        e.message,
      ),
  );
  assert.equal(
    hub.calls.some((c) => c.url.endsWith('model.safetensors')),
    false,
  );
  assert.equal(d.state.fit.parameters, 354823168);
  // With F16 offered, it goes ahead and says so.
  const ok = createDownload(
    defaults(fakeHub({ ...files(), 'config.json': JSON.stringify(medium) }), store, {
      deviceMemoryGB: 2,
      precisions: [4, 2],
    }),
  );
  const r = await ok.start();
  assert.equal(r.fit.choice.name, 'F16');
  // No sizes in the config: the prediction uses the file's size, before its body is read.
  const sizeless = fakeHub({ ...files(), 'config.json': JSON.stringify({ model_type: 'gpt2' }) });
  const big = createDownload(
    defaults(sizeless, await openModelStore({ backend: memoryBackend() }), { alsoHeld: 4 * 1024 ** 3 - 1e8 }),
  );
  await assert.rejects(big.start(), (e) => e.reason === 'memory' && /beside the model on screen/.test(e.message));
  assert.equal(sizeless.served < 25000, true, 'the weights body was not read');
});

test('Download_QuotaIsCheckedBeforeTheBody', async () => {
  const backend = memoryBackend();
  const storage = { estimate: async () => ({ usage: 990000, quota: 1000000 }) };
  const store = await openModelStore({ backend, storage });
  Object.defineProperty(store, 'kept', { value: true }); // as OPFS would be
  const hub = fakeHub(files());
  const d = createDownload(defaults(hub, store));
  await assert.rejects(
    d.start(),
    (e) =>
      e.reason === 'quota' &&
      /keeping this model needs 25\.0 kB more of the browser's storage, but it allows this site 10\.0 kB more \(990 kB used of 1\.00 MB\)/.test(
        e.message,
      ),
  );
  assert.ok(hub.served < 25000);
});

test('Download_ARefusedWriteIsAQuotaErrorAndStopsTheBody', async () => {
  // Chromium reports more quota than it enforces: the write is refused mid-file.
  const backend = memoryBackend();
  let written = 0;
  const refusing = {
    ...backend,
    async createPiece(dir, name) {
      const piece = await backend.createPiece(dir, name);
      return {
        ...piece,
        async write(bytes) {
          written += bytes.length;
          if (written > 20000) throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
          return piece.write(bytes);
        },
      };
    },
  };
  const hub = fakeHub({ ...files(), 'model.safetensors': bytes(200000) });
  const d = createDownload(defaults(hub, await openModelStore({ backend: refusing })));
  await assert.rejects(d.start(), (e) => e.reason === 'quota' && /storage for this site is full/.test(e.message));
  assert.deepEqual(hub.cancelled, ['model.safetensors']); // the body was stopped, not left to download
});

test('Download_CancelStopsAndLeavesNothingHalfStoredAsComplete', async () => {
  const store = await openModelStore({ backend: memoryBackend(), pieceBytes: 2048 });
  const hub = fakeHub(files());
  const d = createDownload(defaults(hub, store, { progressEveryMs: 0 }));
  d.subscribe((s) => {
    if (s.file === 'model.safetensors' && s.bytes >= 7000) d.cancel();
  });
  await assert.rejects(d.start(), (e) => e instanceof HubError && e.reason === 'cancelled');
  assert.equal(d.state.phase, 'cancelled');
  const spec = { endpoint: ENDPOINT, repo: REPO };
  const kept = await store.fileState(spec, 'model.safetensors');
  assert.equal(kept.complete, false);
  assert.ok(kept.bytes >= 7000 && kept.bytes < 25000, `${kept.bytes} bytes kept`);
  assert.equal(await store.files(spec), null);
  assert.equal((await store.get(spec)).complete, false);
  // The next press resumes from there.
  const result = await createDownload(defaults(hub, store)).start();
  assert.equal(hub.calls.at(-1).range, `bytes=${kept.bytes}-`);
  await same(result.files['model.safetensors'], hub.files['model.safetensors']);
  // Cancelling before the start: nothing is asked.
  const early = createDownload(defaults(fakeHub(files()), await openModelStore({ backend: memoryBackend() })));
  early.cancel();
  await assert.rejects(early.start(), (e) => e.reason === 'cancelled');
});

test('Download_RefusedRequestsAreToldApartAsFarAsTheBrowserAllows', async () => {
  const store = () => openModelStore({ backend: memoryBackend() });
  // Offline.
  const off = fakeHub(files(), { refuse: () => true });
  await assert.rejects(
    createDownload(defaults(off, await store(), { online: () => false })).start(),
    (e) => e.reason === 'offline' && /this browser is offline/.test(e.message),
  );
  // The CSP blocked the CDN the Hub redirects to: a violation event names the CDN (as Firefox
  // does) or the URL before the redirect (as Chromium does).
  const csp = () => fakeHub(files(), { refuse: (url) => url.endsWith('model.safetensors') });
  const named = {
    since: () => [{ blockedURI: 'https://us.aws.cdn.hf.co/xet-bridge-us/1/2', directive: 'connect-src' }],
  };
  await assert.rejects(createDownload(defaults(csp(), await store(), { watcher: named })).start(), (e) => {
    assert.equal(e.reason, 'csp');
    assert.match(
      e.message,
      /Content-Security-Policy \(connect-src\) does not allow connecting to https:\/\/us\.aws\.cdn\.hf\.co, so the download was blocked/,
    );
    assert.match(
      e.message,
      /A page that downloads from https:\/\/hub\.test must allow https:\/\/hub\.test and the hosts it redirects to/,
    );
    return true;
  });
  const before = {
    since: () => [{ blockedURI: `${ENDPOINT}/${REPO}/resolve/main/model.safetensors`, directive: 'connect-src' }],
  };
  await assert.rejects(
    createDownload(defaults(csp(), await store(), { watcher: before })).start(),
    (e) =>
      e.reason === 'csp' &&
      /\(connect-src\) allows https:\/\/hub\.test but not the host it redirects model\.safetensors to/.test(e.message),
  );
  // CORS refused: the same request in no-cors mode gets an (opaque) answer.
  const cors = fakeHub(files(), {
    refuse: (url, init) => url.endsWith('model.safetensors') && init.mode !== 'no-cors',
  });
  await assert.rejects(
    createDownload(defaults(cors, await store())).start(),
    (e) =>
      e.reason === 'cors' &&
      /model\.safetensors: the host https:\/\/hub\.test redirects it to answered but does not let this page read it: it sends no CORS headers/.test(
        e.message,
      ),
  );
  assert.equal(cors.calls.at(-1).mode, 'no-cors');
  const corsHub = fakeHub(files(), { refuse: (url, init) => init.mode !== 'no-cors' });
  await assert.rejects(
    createDownload(defaults(corsHub, await store())).start(),
    (e) =>
      e.reason === 'cors' && /^https:\/\/hub\.test answered but does not let this page read its files/.test(e.message),
  );
  // Nothing answers at all.
  const down = fakeHub(files(), { refuse: () => true });
  await assert.rejects(
    createDownload(defaults(down, await store())).start(),
    (e) =>
      e.reason === 'unreachable' &&
      /could not reach https:\/\/hub\.test: the address may be wrong, the host down/.test(e.message),
  );
  // A cross-origin-isolated page cannot tell the two apart and says so.
  globalThis.crossOriginIsolated = true;
  try {
    await assert.rejects(createDownload(defaults(down, await store())).start(), (e) =>
      /; or it refused this page \(no CORS headers\): on a cross-origin-isolated page the browser does not say which/.test(
        e.message,
      ),
    );
    const cdnDown = fakeHub(files(), { refuse: (url) => url.endsWith('model.safetensors') });
    await assert.rejects(
      createDownload(defaults(cdnDown, await store())).start(),
      (e) =>
        e.reason === 'unreachable' &&
        /model\.safetensors: https:\/\/hub\.test answered for the other files, but this one failed before any answer: the host it redirects to \(for large files, a CDN on another host\) may be unreachable, or refusing this page/.test(
          e.message,
        ),
    );
  } finally {
    delete globalThis.crossOriginIsolated;
  }
});

test('Download_ServerErrorsAreRetriedThenReported', async () => {
  const hub = fakeHub(files(), { status: { 'model.safetensors': 503 } });
  const waits = [];
  const d = createDownload(
    defaults(hub, await openModelStore({ backend: memoryBackend() }), {
      sleep: async (ms) => waits.push(ms),
      retries: 2,
    }),
  );
  await assert.rejects(
    d.start(),
    (e) =>
      e.reason === 'http' &&
      e.status === 503 &&
      /answered HTTP 503 3 times in a row for model\.safetensors/.test(e.message),
  );
  assert.deepEqual(waits, [1000, 2000]);
  const forbidden = fakeHub(files(), { status: { 'config.json': 403 } });
  await assert.rejects(
    createDownload(defaults(forbidden, await openModelStore({ backend: memoryBackend() }))).start(),
    (e) => e.reason === 'not-found' && e.status === 403,
  );
});

test('Download_ContentRangeParses', () => {
  assert.deepEqual(parseContentRange('bytes 100-199/1000'), { start: 100, end: 199, total: 1000 });
  assert.deepEqual(parseContentRange('bytes */548105171'), { start: null, end: null, total: 548105171 });
  assert.deepEqual(parseContentRange('bytes 0-9/*'), { start: 0, end: 9, total: null });
  assert.equal(parseContentRange('items 0-1/2'), null);
  assert.equal(parseContentRange(null), null);
});

test('Download_BadOptionsNameTheArgument', () => {
  assert.throws(
    () => createDownload({ model: { repo: 'a--b' }, store: {} }),
    (e) => e.argument === 'repo',
  );
  assert.throws(
    () => createDownload({ model: { repo: 'a/b' }, store: null }),
    (e) => e.argument === 'store' && /openModelStore/.test(e.message),
  );
  assert.throws(
    () => createDownload({ model: { repo: 'a/b', endpoint: 'ftp://x' }, store: {} }),
    (e) => e.argument === 'endpoint',
  );
});

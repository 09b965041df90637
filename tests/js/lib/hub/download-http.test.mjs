// web/lib/hub/download.js over real HTTP, in Node, against tests/helpers/hf-standin.mjs (the
// Hugging Face stand-in on two ports): the stand-in answers as the Hub does (redirects, headers,
// Range, 416, If-Range, 404s), and the controller downloads through its redirects, resumes
// after dropped connections byte for byte, restarts a replaced file and opens the result with
// the engine. Node's fetch enforces no CORS or CSP: those are the browser tests'
// (tests/e2e/hub.test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHfStandin, tinyGpt2, vocabAndMerges } from '../../../helpers/hf-standin.mjs';
import { createDownload, openSpecOf } from '../../../../web/lib/hub/download.js';
import { memoryBackend, openModelStore } from '../../../../web/lib/hub/store.js';
import { loadEngine } from '../../../../web/engine/engine.js';

let hub, tiny;
before(async () => {
  hub = await startHfStandin();
  tiny = tinyGpt2();
  hub.addRepo('openai-community/gpt2', { files: tiny.files });
  const { 'tokenizer.json': json, ...rest } = tiny.files;
  hub.addRepo('distilbert/distilgpt2', { files: { ...rest, ...vocabAndMerges(json) } });
  hub.addRepo('someone/pickled', {
    files: { 'config.json': tiny.files['config.json'], 'pytorch_model.bin': Buffer.alloc(64) },
  });
});
after(() => hub?.close());

const download = async (repo, extra = {}) =>
  createDownload({
    model: { endpoint: hub.endpoint, repo },
    store: extra.store ?? (await openModelStore({ backend: memoryBackend(), pieceBytes: 256 * 1024 })),
    backoffMs: 10,
    askPersist: false,
    watcher: { since: () => [] },
    ...extra,
  });

test('Standin_AnswersLikeTheHub', async () => {
  hub.reset();
  const repo = 'openai-community/gpt2';
  // A small file: a relative 307 to /api/resolve-cache/…, with the Hub's headers and CORS.
  const small = await fetch(`${hub.endpoint}/${repo}/resolve/main/config.json`, {
    redirect: 'manual',
    headers: { origin: 'http://page.test' },
  });
  assert.equal(small.status, 307);
  assert.match(
    small.headers.get('location'),
    /^\/api\/resolve-cache\/models\/openai-community\/gpt2\/[0-9a-f]{40}\/config\.json\?etag=/,
  );
  assert.match(small.headers.get('x-repo-commit'), /^[0-9a-f]{40}$/);
  assert.equal(small.headers.get('x-linked-size'), String(tiny.files['config.json'].length));
  assert.equal(small.headers.get('access-control-allow-origin'), 'http://page.test');
  assert.match(
    small.headers.get('access-control-expose-headers'),
    /X-Repo-Commit,.*ETag,.*Content-Range,X-Linked-Size,X-Linked-ETag/,
  );
  // A large (LFS) file: a 302 to the other origin, signed, with its size and sha256.
  const large = await fetch(`${hub.endpoint}/${repo}/resolve/main/model.safetensors`, { redirect: 'manual' });
  assert.equal(large.status, 302);
  const cdn = large.headers.get('location');
  assert.ok(cdn.startsWith(hub.cdnOrigin + '/xet-bridge-us/'), cdn);
  assert.equal(Number(large.headers.get('x-linked-size')), tiny.files['model.safetensors'].length);
  // The CDN: ranges, 416, If-Range, CORS for any origin.
  const size = tiny.files['model.safetensors'].length;
  const part = await fetch(cdn, { headers: { range: 'bytes=100-' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 100-${size - 1}/${size}`);
  assert.equal(part.headers.get('access-control-allow-origin'), '*');
  assert.deepEqual(Buffer.from(await part.arrayBuffer()), tiny.files['model.safetensors'].subarray(100));
  const etag = part.headers.get('etag');
  const past = await fetch(cdn, { headers: { range: `bytes=${size}-` } });
  assert.equal(past.status, 416);
  assert.equal(past.headers.get('content-range'), `bytes */${size}`);
  const stale = await fetch(cdn, { headers: { range: 'bytes=100-', 'if-range': '"another"' } });
  assert.equal(stale.status, 200); // another version: the whole file
  await stale.arrayBuffer();
  const fresh = await fetch(cdn, { headers: { range: 'bytes=100-', 'if-range': etag } });
  assert.equal(fresh.status, 206);
  await fresh.arrayBuffer();
  // Missing things, as the Hub says them.
  const missing = await fetch(`${hub.endpoint}/${repo}/resolve/main/nope.json`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-error-code'), 'EntryNotFound');
  assert.equal((await fetch(`${hub.endpoint}/nobody/nothing/resolve/main/config.json`)).status, 401);
  assert.equal(
    (await fetch(`${hub.endpoint}/${repo}/resolve/v9/config.json`)).headers.get('x-error-code'),
    'RevisionNotFound',
  );
  const listing = await (await fetch(`${hub.endpoint}/api/models/${repo}`)).json();
  assert.deepEqual(
    listing.siblings.map((s) => s.rfilename),
    ['config.json', 'model.safetensors', 'tokenizer.json'],
  );
  // Switches: no CORS, an expired signed URL.
  hub.set({ cors: { hub: false } });
  assert.equal((await fetch(`${hub.endpoint}/api/models/${repo}`)).headers.get('access-control-allow-origin'), null);
  hub.set({ signedUrlSeconds: -1 });
  const expired = await fetch(`${hub.endpoint}/${repo}/resolve/main/model.safetensors`);
  assert.equal(expired.status, 403);
  hub.reset();
  hub.set({ status: { [`${repo}/config.json`]: 500 }, ignoreRange: true });
  assert.equal((await fetch(`${hub.endpoint}/${repo}/resolve/main/config.json`)).status, 500);
  const whole = await fetch(cdn.replace(/Expires=\d+/, 'Expires=9999999999'), { headers: { range: 'bytes=100-' } });
  assert.equal(whole.status, 200); // a server that ignores Range
  assert.equal((await whole.arrayBuffer()).byteLength, size);
  hub.reset();
});

test('Standin_DownloadThroughTheRedirectsOpensInTheEngine', async () => {
  hub.reset();
  hub.resetCounts();
  const store = await openModelStore({ backend: memoryBackend() });
  const result = await (await download('openai-community/gpt2', { store })).start();
  const size = Object.values(tiny.files).reduce((a, f) => a + f.length, 0);
  assert.equal(result.fetched, size);
  assert.ok(
    hub.bytesServed > size && hub.bytesServed < size + 2000,
    `${hub.bytesServed}: the files and the redirects' short texts`,
  );
  assert.deepEqual(Buffer.from(await result.files['model.safetensors'].arrayBuffer()), tiny.files['model.safetensors']);
  assert.match(result.commit, /^[0-9a-f]{40}$/);
  // The engine opens the kept Blob slice by slice with the kept config.json.
  const engine = await loadEngine();
  const spec = openSpecOf(result);
  const model = await engine.openModel(spec.source, { config: await spec.config.text(), sliceBytes: 65536 });
  assert.deepEqual(
    [model.config.layers, model.config.heads, model.config.width, model.config.vocabSize],
    [2, 2, 64, 4096],
  );
  const trace = model.trace([1, 2, 3], { logits: 'last' });
  assert.equal(trace.logits.data.length, 4096);
  model.dispose();
  // The second time: nothing asked.
  hub.resetCounts();
  const again = await (await download('openai-community/gpt2', { store })).start();
  assert.equal(again.fromStore, true);
  assert.deepEqual([hub.bytesServed, hub.requests.length], [0, 0]);
});

test('Standin_DroppedConnectionsResumeByteForByte', async () => {
  hub.reset();
  hub.set({ dropAfter: 400 * 1024, dropTimes: 2 });
  hub.resetCounts();
  const result = await (await download('openai-community/gpt2')).start();
  assert.equal(hub.drops, 2);
  const ranges = hub.requests.filter((r) => r.server === 'cdn').map((r) => [r.range, r.status]);
  assert.deepEqual(ranges, [
    [null, 200],
    [`bytes=${400 * 1024}-`, 206],
    [`bytes=${800 * 1024}-`, 206],
  ]);
  assert.deepEqual(Buffer.from(await result.files['model.safetensors'].arrayBuffer()), tiny.files['model.safetensors']);
  // Every attempt dropping before a byte: a clear failure after the retries.
  hub.set({ dropAfter: 0, dropTimes: Infinity });
  await assert.rejects(
    (await download('openai-community/gpt2', { retries: 2 })).start(),
    (e) => e.reason === 'dropped' && /it failed 3 times in a row/.test(e.message),
  );
  hub.reset();
});

test('Standin_AReplacedFileRestartsAndVocabMergesAndListingsWork', async () => {
  hub.reset();
  // A new version of the weights while the download waits to resume: the kept bytes are dropped.
  const store = await openModelStore({ backend: memoryBackend(), pieceBytes: 256 * 1024 });
  const repo = 'openai-community/gpt2';
  const next = tinyGpt2({ seed: 32 }).files['model.safetensors'];
  hub.set({ dropAfter: 300 * 1024, dropTimes: 1 });
  const d = await download(repo, {
    store: await openModelStore({ backend: memoryBackend(), pieceBytes: 256 * 1024 }),
    sleep: async () => hub.replaceFile(repo, 'model.safetensors', next),
  });
  const result = await d.start();
  assert.deepEqual(Buffer.from(await result.files['model.safetensors'].arrayBuffer()), next);
  hub.replaceFile(repo, 'model.safetensors', tiny.files['model.safetensors']);
  hub.reset();
  // vocab.json + merges.txt.
  const distil = await (await download('distilbert/distilgpt2', { store })).start();
  assert.equal(distil.tokenizer, 'vocab.json+merges.txt');
  // A repository without model.safetensors: its listing, through the API.
  await assert.rejects(
    (await download('someone/pickled')).start(),
    (e) =>
      e.reason === 'no-safetensors' &&
      /its files are: config\.json, pytorch_model\.bin \(PyTorch pickle/.test(e.message),
  );
  hub.set({ listing: false });
  await assert.rejects(
    (await download('someone/pickled')).start(),
    (e) => e.reason === 'not-found' && /file list could not be read/.test(e.message),
  );
  await assert.rejects(
    (await download('nobody/nothing')).start(),
    (e) => e.reason === 'not-found' && /HTTP 401/.test(e.message),
  );
  hub.reset();
});

// Unit tests of web/lib/hub/store.js over its memory backend (the same store code runs over OPFS
// in the browsers: tests/e2e/hub.test.mjs): keys, pieces, partial and complete files, listing,
// removal, and the fallback where OPFS is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { folderOf, memoryBackend, openModelStore, specOf } from '../../../../web/lib/hub/store.js';
import { HubError } from '../../../../web/lib/hub/errors.js';

const GPT2 = { repo: 'openai-community/gpt2' };
const bytes = (n, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const blobBytes = async (blob) => new Uint8Array(await blob.arrayBuffer());

test('Store_KeyIncludesEndpointRepoAndRevision', () => {
  const a = folderOf(GPT2);
  assert.match(a, /^openai-community--gpt2--main--[0-9a-f]{16}$/);
  assert.notEqual(folderOf({ ...GPT2, endpoint: 'https://hf-mirror.com' }), a);
  assert.notEqual(folderOf({ ...GPT2, revision: 'refs/pr/1' }), a);
  assert.match(folderOf({ ...GPT2, revision: 'refs/pr/1' }), /--refs_pr_1--/);
  assert.equal(folderOf({ ...GPT2, endpoint: 'https://huggingface.co/' }), a); // the same endpoint, normalised
  assert.deepEqual(specOf(GPT2), {
    endpoint: 'https://huggingface.co',
    repo: 'openai-community/gpt2',
    revision: 'main',
  });
  assert.throws(
    () => specOf(null),
    (e) => e instanceof HubError && e.argument === 'spec',
  );
  assert.throws(
    () => specOf({ repo: 'a--b' }),
    (e) => e instanceof HubError && e.argument === 'repo',
  );
});

test('Store_AFileIsKeptInPiecesAndReadBackWhole', async () => {
  const store = await openModelStore({ backend: memoryBackend(), pieceBytes: 1000 });
  const data = bytes(3500);
  const w = await store.writer(GPT2, 'model.safetensors', { etag: '"abc"', total: 3500 });
  await w.write(data.subarray(0, 1700)); // fills one piece, starts a second
  assert.deepEqual(await store.fileState(GPT2, 'model.safetensors'), {
    bytes: 1000,
    total: 3500,
    etag: '"abc"',
    complete: false,
  });
  await w.commit(); // a dropped connection: what arrived is kept
  assert.equal((await store.fileState(GPT2, 'model.safetensors')).bytes, 1700);
  await w.write(data.subarray(1700));
  await w.finish();
  const state = await store.fileState(GPT2, 'model.safetensors');
  assert.deepEqual(state, { bytes: 3500, total: 3500, etag: '"abc"', complete: true });
  assert.deepEqual(await blobBytes(await store.file(GPT2, 'model.safetensors')), data);
  // Not a complete model until markComplete: files() is null, the listing says partial.
  assert.equal(await store.files(GPT2), null);
  assert.equal((await store.list())[0].complete, false);
});

test('Store_FinishRefusesAShortFileAndAbortDropsTheUncommitted', async () => {
  const store = await openModelStore({ backend: memoryBackend(), pieceBytes: 1000 });
  const w = await store.writer(GPT2, 'config.json', { etag: '"1"', total: 500 });
  await w.write(bytes(300));
  await assert.rejects(w.finish(), (e) => e.reason === 'storage' && /300 bytes kept, 500 expected/.test(e.message));
  assert.equal((await store.fileState(GPT2, 'config.json')).complete, false);
  const w2 = await store.writer(GPT2, 'config.json', { etag: '"1"', total: 500 });
  await w2.write(bytes(150));
  await w2.abort();
  assert.equal((await store.fileState(GPT2, 'config.json')).bytes, 300); // the aborted 150 are gone
  // Another version's bytes are never appended to: reset first.
  await assert.rejects(store.writer(GPT2, 'config.json', { etag: '"2"', total: 500 }), /another version/);
  await store.resetFile(GPT2, 'config.json');
  assert.deepEqual(await store.fileState(GPT2, 'config.json'), { bytes: 0, total: null, etag: null, complete: false });
});

test('Store_ACompleteModelListsWithSizesAndIsRemovable', async () => {
  const store = await openModelStore({ backend: memoryBackend() });
  const put = async (spec, name, data, etag = '"e"') => {
    const w = await store.writer(spec, name, { etag, total: data.length });
    await w.write(data);
    await w.finish();
  };
  const medium = { repo: 'openai-community/gpt2-medium' };
  await put(GPT2, 'config.json', bytes(10));
  await put(GPT2, 'tokenizer.json', bytes(20));
  await put(GPT2, 'model.safetensors', bytes(300));
  await assert.rejects(store.markComplete(GPT2, ['config.json', 'vocab.json']), /vocab\.json is not complete/);
  await store.markComplete(GPT2, ['config.json', 'tokenizer.json', 'model.safetensors'], { commit: 'c'.repeat(40) });
  await put(medium, 'config.json', bytes(12));
  const list = await store.list();
  assert.deepEqual(
    list.map((m) => [m.repo, m.complete, m.bytes]),
    [
      ['openai-community/gpt2', true, 330],
      ['openai-community/gpt2-medium', false, 12],
    ],
  );
  assert.deepEqual(list[0].files, [
    { name: 'config.json', bytes: 10, total: 10, complete: true },
    { name: 'tokenizer.json', bytes: 20, total: 20, complete: true },
    { name: 'model.safetensors', bytes: 300, total: 300, complete: true },
  ]);
  assert.equal(list[0].commit, 'c'.repeat(40));
  const files = await store.files(GPT2);
  assert.deepEqual(Object.keys(files), ['config.json', 'tokenizer.json', 'model.safetensors']);
  assert.deepEqual(await blobBytes(files['model.safetensors']), bytes(300));
  await store.remove(GPT2);
  assert.deepEqual(
    (await store.list()).map((m) => m.repo),
    ['openai-community/gpt2-medium'],
  );
  assert.equal(await store.files(GPT2), null);
  await store.removeAll();
  assert.deepEqual(await store.list(), []);
});

test('Store_QuotaRefusalIsAQuotaError', async () => {
  const backend = memoryBackend();
  const full = {
    ...backend,
    async createPiece() {
      return {
        write: async () => {
          throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
        },
        close: async () => {},
        abort: async () => {},
      };
    },
  };
  const store = await openModelStore({ backend: full });
  const w = await store.writer(GPT2, 'model.safetensors', { etag: '"e"', total: 10 });
  await assert.rejects(
    w.write(bytes(10)),
    (e) => e instanceof HubError && e.reason === 'quota' && /storage for this site is full/.test(e.message),
  );
});

test('Store_WithoutOpfsFallsBackToMemoryAndSaysWhy', async () => {
  const denied = {
    getDirectory: async () => {
      throw Object.assign(new Error('Security error when calling GetDirectory'), { name: 'SecurityError' });
    },
    estimate: async () => ({ usage: 5, quota: 100 }),
  };
  const store = await openModelStore({ storage: denied });
  assert.equal(store.kind, 'memory');
  assert.equal(store.kept, false);
  assert.match(
    store.reason,
    /not kept in this browser: it refuses the origin private file system here \(Firefox does in private windows\)/,
  );
  assert.deepEqual(await store.estimate(), { usage: 5, quota: 100 });
  const none = await openModelStore({ storage: undefined });
  assert.match(none.reason, /this browser has no origin private file system/);
  assert.equal(await none.estimate(), null);
  assert.equal(await none.persist(), 'unsupported');
});

test('Store_PersistAnswersAndDoesNotWaitForever', async () => {
  const mem = memoryBackend();
  const ask = (persist, persisted = async () => false) =>
    openModelStore({ backend: mem, storage: { persist, persisted } }).then((s) => s.persist({ waitMs: 30 }));
  assert.equal(await ask(async () => true), 'granted');
  assert.equal(await ask(async () => false), 'denied');
  assert.equal(await ask(() => new Promise(() => {})), 'undecided'); // Firefox asks the reader; no answer came
  assert.equal(
    await ask(
      async () => true,
      async () => true,
    ),
    'persisted',
  );
});

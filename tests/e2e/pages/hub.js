// web/lib/hub on a page (and in a worker) for tests/e2e/hub.test.mjs, served from the repository
// root under the strict CSP with the stand-in's origins in connect-src. Everything the test asks
// goes through window.hubTest; results are plain data (no Blobs) so page.evaluate can return them.
import * as hub from '/web/lib/hub/index.js';
import { loadEngine } from '/web/engine/engine.js';

const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = async (blob) => hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
const pick = (s) => ({
  phase: s.phase,
  file: s.file,
  bytes: s.bytes,
  total: s.total,
  percent: s.percent,
  bytesPerSecond: s.bytesPerSecond,
  secondsLeft: s.secondsLeft,
  fetched: s.fetched,
  retry: s.retry,
  text: s.phase === 'downloading' ? hub.describeProgress(s) : null,
});

/** Runs one download; {ok, states, result | error, store: {kind, kept, reason}}. */
async function download({ endpoint, repo, options = {}, cancelAtBytes = null, hash = true }) {
  const store = await hub.openModelStore();
  const d = hub.createDownload({ model: { endpoint, repo }, store, backoffMs: 50, progressEveryMs: 0, ...options });
  const states = [];
  d.subscribe((s) => {
    states.push(pick(s));
    if (cancelAtBytes !== null && s.file === hub.WEIGHTS_FILE && s.bytes >= cancelAtBytes) d.cancel();
  });
  const where = { kind: store.kind, kept: store.kept, reason: store.reason };
  try {
    const r = await d.start();
    const files = {};
    for (const [name, blob] of Object.entries(r.files))
      files[name] = hash ? { size: blob.size, sha256: await sha256(blob) } : { size: blob.size };
    return {
      ok: true,
      states,
      store: where,
      result: {
        fromStore: r.fromStore,
        fetched: r.fetched,
        tokenizer: r.tokenizer,
        commit: r.commit,
        files,
        fit: r.fit.choice,
      },
    };
  } catch (error) {
    return {
      ok: false,
      states,
      store: where,
      error: { name: error.name, reason: error.reason, message: error.message, files: error.files },
    };
  }
}

/** Opens the kept model with the engine (slice by slice from the Blob) and runs a short trace. */
async function openKept({ endpoint, repo, sliceBytes }) {
  const store = await hub.openModelStore();
  const files = await store.files({ endpoint, repo });
  if (!files) return null;
  const spec = hub.openSpecOf({ spec: { endpoint, repo }, files, tokenizer: 'tokenizer.json' });
  const engine = await loadEngine();
  const model = await engine.openModel(spec.source, { config: await spec.config.text(), sliceBytes });
  const logits = model.trace([1, 2, 3], { logits: 'last' }).logits.data.length;
  const out = {
    layers: model.config.layers,
    vocabSize: model.config.vocabSize,
    logits,
    sourceIsBlob: spec.source instanceof Blob,
  };
  model.dispose();
  return out;
}

async function list() {
  const store = await hub.openModelStore();
  return store.list();
}

async function remove(spec) {
  const store = await hub.openModelStore();
  if (spec) await store.remove(spec);
  else await store.removeAll();
  return store.list();
}

async function estimate() {
  return (await hub.openModelStore()).estimate();
}

/** The same download in a dedicated worker (where the model worker will run it). */
function inWorker(args) {
  return new Promise((resolve, reject) => {
    const worker = new Worker('hub-worker.js', { type: 'module' });
    worker.onmessage = (event) => {
      resolve(event.data);
      worker.terminate();
    };
    worker.onerror = (event) => reject(new Error(event.message || 'the worker failed'));
    worker.postMessage(args);
  });
}

window.hubTest = { download, openKept, list, remove, estimate, inWorker, isolated: () => crossOriginIsolated };
window.hubReady = true;

// tests/e2e/hub.test.mjs: one download from a dedicated worker (fetch and OPFS there, as the
// model worker will use them); posts {ok, phases, fetched, files | error} back.
import * as hub from '/web/lib/hub/index.js';

self.onmessage = async ({ data: { endpoint, repo } }) => {
  const store = await hub.openModelStore();
  const d = hub.createDownload({ model: { endpoint, repo }, store, backoffMs: 50 });
  const phases = [];
  d.subscribe((s) => phases.at(-1) !== s.phase && phases.push(s.phase));
  try {
    const r = await d.start();
    const sizes = Object.fromEntries(Object.entries(r.files).map(([name, blob]) => [name, blob.size]));
    self.postMessage({ ok: true, kind: store.kind, phases, fetched: r.fetched, fromStore: r.fromStore, sizes });
  } catch (error) {
    self.postMessage({ ok: false, kind: store.kind, phases, error: { reason: error.reason, message: error.message } });
  }
};

// Models kept in the browser, so that a second visit opens them with no network. No DOM; runs on
// the page and in a worker. tests/js/lib/hub/store.test.mjs (memory backend),
// tests/e2e/hub.test.mjs (OPFS in Chromium and Firefox).
//
// Why the origin private file system (OPFS) and not Cache Storage:
// - A download must resume from the byte reached, after a dropped connection and after a reload.
//   OPFS files can be written piece by piece and each piece kept as soon as it is closed; Cache
//   Storage keeps whole responses (cache.put of one Response), so a half-downloaded 500 MB file
//   is either all there or lost.
// - A stored file must be read slice by slice (checkpoint-source.js's blobReader), never held
//   whole in JavaScript: getFile() gives a File backed by the disk. A Blob made of such Files (the
//   pieces below) is still backed by them.
// - Both count against the same per-site quota and are evicted together under storage pressure
//   unless navigator.storage.persist() is granted; both work in workers (the model worker can
//   download and read), in Chromium (86+) and Firefox (111+); createWritable on the page needs
//   Safari 26.
// - Private windows: Chromium keeps OPFS in memory for the session (its quota is small there);
//   Firefox refuses OPFS in private windows (getDirectory throws SecurityError). There, and
//   wherever OPFS is missing, the store falls back to memory: the model is downloaded and opened,
//   but not kept (`store.kept` is false and `store.reason` says why).
//
// Layout: one folder per model, <root>/<repo>--<revision>--<hash of endpoint + repo + revision>/,
// holding manifest.json (endpoint, repo, revision, each file's ETag, size and pieces) and the
// pieces: <file>.<hash of its ETag>.<n>, each at most PIECE_BYTES, closed (and so kept) when full,
// when the connection drops, or when the file ends. A file whose ETag changes starts again under
// new piece names, so bytes of two versions are never joined. A file or model is complete only
// when the manifest says so, after every byte arrived: a cancelled or dropped download is kept as
// partial (listed with its bytes, resumed next time, removable).
//
// The parts: the layout and manifests (store-layout.js), the OPFS and memory backends
// (store-backends.js), one file's writer (store-writer.js); here, opening the store, listing and
// removal, and the browser's quota and persistence.
import { inputError } from './errors.js';
import { fileBytes, folderOf, manifests, storageError, summary } from './store-layout.js';
import { memoryBackend, opfsBackend } from './store-backends.js';
import { openWriter } from './store-writer.js';

export { ROOT_FOLDER, folderOf, specOf } from './store-layout.js';
export { memoryBackend, opfsBackend } from './store-backends.js';

export const PIECE_BYTES = 64 * 1024 * 1024;
const PERSIST_WAIT_MS = 3000;

/**
 * Opens the store: OPFS where the browser allows it, else memory (not kept; `reason` says why).
 * @param {{backend?: object, storage?: StorageManager, pieceBytes?: number}} options
 */
export async function openModelStore({
  backend,
  storage = globalThis.navigator?.storage,
  pieceBytes = PIECE_BYTES,
} = {}) {
  let reason = null;
  if (!backend) {
    try {
      backend = await opfsBackend(storage);
    } catch (error) {
      reason = `models are not kept in this browser: ${error?.name === 'SecurityError' ? 'it refuses the origin private file system here (Firefox does in private windows)' : (error?.message ?? String(error))}; they are downloaded again on the next visit`;
      backend = memoryBackend();
    }
  }
  if (!Number.isSafeInteger(pieceBytes) || pieceBytes < 1)
    throw inputError('pieceBytes', 'expected a whole number > 0');
  return createStore(backend, { storage, pieceBytes, reason });
}

function createStore(backend, { storage, pieceBytes, reason }) {
  const mf = manifests(backend);
  return {
    kind: backend.kind,
    /** True when models stay after the page closes (OPFS). */
    kept: backend.kind !== 'memory',
    /** Why models are not kept, or null. */
    reason: backend.kind === 'memory' ? (reason ?? 'models are kept in memory only') : null,
    pieceBytes,

    /** Every model kept, complete or partial, with sizes: [{endpoint, repo, revision, complete, bytes, files}]. */
    list: () => listModels(mf),

    /** One model's summary, or null. */
    async get(spec) {
      const { m } = await mf.of(spec);
      return m ? summary(m) : null;
    },

    /** Where one file stands: {bytes kept, total, etag, complete}. */
    async fileState(spec, name) {
      const { m } = await mf.of(spec);
      const f = m?.files[name];
      return { bytes: fileBytes(f), total: f?.total ?? null, etag: f?.etag ?? null, complete: f?.complete === true };
    },

    /** Forgets a file's bytes (its ETag changed, or the server will not resume): the next write starts at 0. */
    resetFile: (spec, name) => resetFile(mf, spec, name),

    /**
     * A writer appending to `name` from the bytes already kept. {etag, total} describe the file
     * being downloaded; a different ETag than the kept bytes' is an error (resetFile first).
     * write(bytes) keeps a piece each time one fills; commit() keeps what was written so far
     * (before a retry); abort() drops what was not committed; finish() checks the size and
     * marks the file complete.
     */
    async writer(spec, name, { etag = null, total = null } = {}) {
      return openWriter(mf, spec, name, { etag, total, pieceBytes });
    },

    /** Marks the model complete once every file in `files` is; `commit` is the Hub's X-Repo-Commit if seen. */
    markComplete: (spec, files, { commit } = {}) => markComplete(mf, spec, files, commit),

    /**
     * A complete model's files as Blobs (read slice by slice from the disk): {name: Blob}, or
     * null when the model is not (completely, or any more) kept.
     */
    files: (spec) => modelFiles(mf, spec),

    /** One complete file as a Blob, or null. */
    async file(spec, name) {
      const { dir, m } = await mf.of(spec);
      const f = m?.files[name];
      return f?.complete ? blobOf(backend, dir, f) : null;
    },

    /** Removes one model (complete or partial). */
    remove(spec) {
      return mf
        .serial(async () => backend.removeFolder(folderOf(spec)))
        .catch((error) => {
          throw storageError(error, 'removing a kept model');
        });
    },

    /** Removes every kept model. */
    removeAll() {
      return mf
        .serial(async () => {
          for (const dir of await backend.folders()) await backend.removeFolder(dir);
        })
        .catch((error) => {
          throw storageError(error, 'removing the kept models');
        });
    },

    /** navigator.storage.estimate(): {usage, quota} in bytes, or null where unknown. */
    estimate: () => estimateOf(storage),

    /**
     * Asks for persistent storage (not evicted under pressure) where the browser allows it:
     * 'persisted' already, 'granted', 'denied', 'undecided' (Firefox asks the reader and the
     * answer did not come within a few seconds), or 'unsupported'.
     */
    async persist({ waitMs = PERSIST_WAIT_MS } = {}) {
      return askPersist(storage, waitMs);
    },
  };
}

// --- listing and reading ------------------------------------------------------------------------

async function listModels(mf) {
  const out = [];
  for (const dir of await mf.backend.folders()) {
    const m = await mf.read(dir);
    if (m) out.push(summary(m));
  }
  return out.sort(
    (a, b) =>
      a.repo.localeCompare(b.repo) || a.revision.localeCompare(b.revision) || a.endpoint.localeCompare(b.endpoint),
  );
}

/** A file's pieces as one Blob, or null when a piece is missing or changed (not usable). */
async function blobOf(backend, dir, f) {
  const blobs = [];
  for (const p of f.pieces) {
    const blob = await backend.pieceBlob(dir, p.name);
    if (!blob || blob.size !== p.bytes) return null;
    blobs.push(blob);
  }
  return new Blob(blobs);
}

async function modelFiles(mf, spec) {
  const { dir, m } = await mf.of(spec);
  if (!m?.complete) return null;
  const out = {};
  for (const name of m.order) {
    const f = m.files[name];
    if (!f?.complete) return null;
    const blob = await blobOf(mf.backend, dir, f);
    if (!blob) return null;
    out[name] = blob;
  }
  return out;
}

// --- changing what is kept ----------------------------------------------------------------------

function resetFile(mf, spec, name) {
  return mf.serial(async () => {
    const { dir, m } = await mf.of(spec);
    const f = m?.files[name];
    if (!f) return;
    delete m.files[name];
    m.complete = false;
    await mf.write(dir, m);
    for (const p of f.pieces) await mf.backend.removeFile(dir, p.name);
  });
}

function markComplete(mf, spec, files, commit) {
  return mf
    .serial(async () => {
      const { dir, m } = await mf.of(spec);
      if (!m) throw new Error('nothing kept for this model');
      for (const name of files) if (m.files[name]?.complete !== true) throw new Error(`${name} is not complete`);
      m.order = [...files, ...m.order.filter((n) => !files.includes(n))];
      m.complete = true;
      if (commit) m.commit = commit;
      m.updated = new Date().toISOString();
      await mf.write(dir, m);
    })
    .catch((error) => {
      throw storageError(error, 'finishing the model');
    });
}

// --- the browser's quota and persistence ---------------------------------------------------------

async function estimateOf(storage) {
  try {
    const e = await storage?.estimate?.();
    return e && Number.isFinite(e.quota) ? { usage: e.usage ?? 0, quota: e.quota } : null;
  } catch {
    return null;
  }
}

async function askPersist(storage, waitMs) {
  if (typeof storage?.persist !== 'function') return 'unsupported';
  try {
    if (await storage.persisted?.()) return 'persisted';
    let timer;
    const answer = await Promise.race([
      storage.persist().then((granted) => (granted ? 'granted' : 'denied')),
      new Promise((resolve) => (timer = setTimeout(() => resolve('undecided'), waitMs))),
    ]);
    clearTimeout(timer);
    return answer;
  } catch {
    return 'unsupported';
  }
}

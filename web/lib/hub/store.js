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
import { HubError, inputError } from './errors.js';
import { endpointOf, repoIdOf, revisionOf } from './urls.js';

export const ROOT_FOLDER = 'attention-explorer-hub';
export const PIECE_BYTES = 64 * 1024 * 1024;
const MANIFEST = 'manifest.json';
const PERSIST_WAIT_MS = 3000;

// FNV-1a over UTF-16 code units, twice with different offsets: 16 hex digits. The manifest holds
// the real fields and is compared on read, so a collision can only ever miss, never mix models.
function hash16(text) {
  let a = 0x811c9dc5,
    b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193 + 2) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

const safeName = (s) => s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);

/** The model's spec normalised: {endpoint, repo, revision}, each validated. */
export function specOf(spec) {
  if (!spec || typeof spec !== 'object') throw inputError('spec', 'expected {endpoint, repo, revision}');
  return { endpoint: endpointOf(spec.endpoint), repo: repoIdOf(spec.repo), revision: revisionOf(spec.revision) };
}

/** The folder a model is kept in: readable, and unique for endpoint + repo + revision. */
export function folderOf(spec) {
  const s = specOf(spec);
  return `${safeName(s.repo.replace('/', '--'))}--${safeName(s.revision)}--${hash16(`${s.endpoint}\n${s.repo}\n${s.revision}`)}`;
}

const pieceName = (file, etag, n) => `${safeName(file.replace(/\//g, '--'))}.${hash16(etag ?? '')}.${n}`;

const storageError = (error, what) => {
  if (error instanceof HubError) return error;
  if (error?.name === 'QuotaExceededError')
    return new HubError(
      `the browser's storage for this site is full: it refused to keep more of the model while ${what}; remove kept models, or allow this site more storage`,
      { reason: 'quota' },
    );
  return new HubError(
    `the browser's storage failed while ${what} (${error?.name ?? 'Error'}: ${error?.message ?? error})`,
    {
      reason: 'storage',
    },
  );
};

// --- backends: the few operations the store needs, over OPFS or memory ---------------------

/** OPFS under navigator.storage.getDirectory()/ROOT_FOLDER. Throws where it is unavailable. */
export async function opfsBackend(storage = globalThis.navigator?.storage) {
  if (typeof storage?.getDirectory !== 'function') throw new Error('this browser has no origin private file system');
  const top = await storage.getDirectory(); // SecurityError in Firefox's private windows
  const root = await top.getDirectoryHandle(ROOT_FOLDER, { create: true });
  if (typeof globalThis.FileSystemFileHandle?.prototype?.createWritable !== 'function')
    throw new Error('this browser cannot write files of the origin private file system from a page');
  const folder = (name, create = false) =>
    root.getDirectoryHandle(name, { create }).catch((error) => {
      if (!create && error?.name === 'NotFoundError') return null;
      throw error;
    });
  return {
    kind: 'opfs',
    async folders() {
      const out = [];
      for await (const [name, handle] of root.entries()) if (handle.kind === 'directory') out.push(name);
      return out;
    },
    async readText(dir, name) {
      const d = await folder(dir);
      if (!d) return null;
      try {
        return await (await (await d.getFileHandle(name)).getFile()).text();
      } catch (error) {
        if (error?.name === 'NotFoundError') return null;
        throw error;
      }
    },
    async writeText(dir, name, text) {
      const w = await (await (await folder(dir, true)).getFileHandle(name, { create: true })).createWritable();
      try {
        await w.write(text);
        await w.close(); // replaces the file at once: a reader sees the old text or the new
      } catch (error) {
        await w.abort().catch(() => {});
        throw error;
      }
    },
    async createPiece(dir, name) {
      const w = await (await (await folder(dir, true)).getFileHandle(name, { create: true })).createWritable();
      return { write: (bytes) => w.write(bytes), close: () => w.close(), abort: () => w.abort() };
    },
    async pieceBlob(dir, name) {
      const d = await folder(dir);
      return d ? (await d.getFileHandle(name)).getFile() : null;
    },
    async removeFile(dir, name) {
      const d = await folder(dir);
      await d?.removeEntry(name).catch((error) => {
        if (error?.name !== 'NotFoundError') throw error;
      });
    },
    async removeFolder(dir) {
      await root.removeEntry(dir, { recursive: true }).catch((error) => {
        if (error?.name !== 'NotFoundError') throw error;
      });
    },
  };
}

/** Everything in memory (Blobs): for Node, the tests, and browsers where OPFS is unavailable. */
export function memoryBackend() {
  const folders = new Map();
  const folder = (dir) => {
    if (!folders.has(dir)) folders.set(dir, new Map());
    return folders.get(dir);
  };
  return {
    kind: 'memory',
    async folders() {
      return [...folders.keys()];
    },
    async readText(dir, name) {
      const v = folders.get(dir)?.get(name);
      return v === undefined ? null : v.text();
    },
    async writeText(dir, name, text) {
      folder(dir).set(name, new Blob([text]));
    },
    async createPiece(dir, name) {
      const chunks = [];
      return {
        async write(bytes) {
          chunks.push(bytes.slice());
        },
        async close() {
          folder(dir).set(name, new Blob(chunks));
        },
        async abort() {
          chunks.length = 0;
        },
      };
    },
    async pieceBlob(dir, name) {
      return folders.get(dir)?.get(name) ?? null;
    },
    async removeFile(dir, name) {
      folders.get(dir)?.delete(name);
    },
    async removeFolder(dir) {
      folders.delete(dir);
    },
  };
}

// --- the store --------------------------------------------------------------------------------

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
  // Manifest updates of one store run one after another.
  let queue = Promise.resolve();
  const serial = (fn) => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };

  async function readManifest(dir) {
    const text = await backend.readText(dir, MANIFEST);
    if (text === null) return null;
    try {
      const m = JSON.parse(text);
      return m && m.v === 1 && typeof m.files === 'object' ? m : null;
    } catch {
      return null; // a manifest cut short by a crash: the folder reads as empty
    }
  }
  const writeManifest = (dir, m) => backend.writeText(dir, MANIFEST, JSON.stringify(m));
  const sameModel = (m, s) => m && m.endpoint === s.endpoint && m.repo === s.repo && m.revision === s.revision;

  async function manifestOf(spec, create = false) {
    const s = specOf(spec);
    const dir = folderOf(s);
    let m = await readManifest(dir);
    if (m && !sameModel(m, s)) m = null;
    if (!m && create) m = { v: 1, ...s, complete: false, files: {}, order: [], updated: new Date().toISOString() };
    return { s, dir, m };
  }

  const fileBytes = (f) => (f?.pieces ?? []).reduce((sum, p) => sum + p.bytes, 0);

  async function blobOf(dir, f) {
    const blobs = [];
    for (const p of f.pieces) {
      const blob = await backend.pieceBlob(dir, p.name);
      if (!blob || blob.size !== p.bytes) return null; // a piece missing or changed: not usable
      blobs.push(blob);
    }
    return new Blob(blobs);
  }

  const summary = (m) => {
    const files = m.order.map((name) => ({
      name,
      bytes: fileBytes(m.files[name]),
      total: m.files[name]?.total ?? null,
      complete: m.files[name]?.complete === true,
    }));
    return {
      endpoint: m.endpoint,
      repo: m.repo,
      revision: m.revision,
      commit: m.commit ?? null,
      complete: m.complete === true,
      bytes: files.reduce((a, f) => a + f.bytes, 0),
      files,
      updated: m.updated,
    };
  };

  const store = {
    kind: backend.kind,
    /** True when models stay after the page closes (OPFS). */
    kept: backend.kind !== 'memory',
    /** Why models are not kept, or null. */
    reason: backend.kind === 'memory' ? (reason ?? 'models are kept in memory only') : null,
    pieceBytes,

    /** Every model kept, complete or partial, with sizes: [{endpoint, repo, revision, complete, bytes, files}]. */
    async list() {
      const out = [];
      for (const dir of await backend.folders()) {
        const m = await readManifest(dir);
        if (m) out.push(summary(m));
      }
      return out.sort(
        (a, b) =>
          a.repo.localeCompare(b.repo) || a.revision.localeCompare(b.revision) || a.endpoint.localeCompare(b.endpoint),
      );
    },

    /** One model's summary, or null. */
    async get(spec) {
      const { m } = await manifestOf(spec);
      return m ? summary(m) : null;
    },

    /** Where one file stands: {bytes kept, total, etag, complete}. */
    async fileState(spec, name) {
      const { m } = await manifestOf(spec);
      const f = m?.files[name];
      return { bytes: fileBytes(f), total: f?.total ?? null, etag: f?.etag ?? null, complete: f?.complete === true };
    },

    /** Forgets a file's bytes (its ETag changed, or the server will not resume): the next write starts at 0. */
    resetFile(spec, name) {
      return serial(async () => {
        const { dir, m } = await manifestOf(spec);
        const f = m?.files[name];
        if (!f) return;
        delete m.files[name];
        m.complete = false;
        await writeManifest(dir, m);
        for (const p of f.pieces) await backend.removeFile(dir, p.name);
      });
    },

    /**
     * A writer appending to `name` from the bytes already kept. {etag, total} describe the file
     * being downloaded; a different ETag than the kept bytes' is an error (resetFile first).
     * write(bytes) keeps a piece each time one fills; commit() keeps what was written so far
     * (before a retry); abort() drops what was not committed; finish() checks the size and
     * marks the file complete.
     */
    async writer(spec, name, { etag = null, total = null } = {}) {
      const { s, dir } = await manifestOf(spec);
      await serial(async () => {
        const { m } = await manifestOf(s, true);
        const f = m.files[name];
        if (f && fileBytes(f) > 0 && (f.etag ?? null) !== (etag ?? null))
          throw new Error(`${name}: the kept bytes are of another version (ETag ${f.etag}, now ${etag})`);
        m.files[name] = { etag, total, pieces: f?.pieces ?? [], complete: false };
        if (!m.order.includes(name)) m.order.push(name);
        m.complete = false;
        m.updated = new Date().toISOString();
        await writeManifest(dir, m);
      }).catch((error) => {
        throw storageError(error, `starting ${name}`);
      });
      let piece = null,
        pieceBytesWritten = 0,
        closed = false;
      const keepPiece = (p, bytes) =>
        serial(async () => {
          const { m } = await manifestOf(s);
          if (!m?.files[name]) throw new Error(`${name} was removed while it downloaded`);
          m.files[name].pieces.push({ name: p, bytes });
          m.updated = new Date().toISOString();
          await writeManifest(dir, m);
        });
      const commit = async () => {
        if (!piece) return;
        const current = piece;
        piece = null;
        try {
          await current.handle.close();
          await keepPiece(current.name, pieceBytesWritten);
        } catch (error) {
          throw storageError(error, `keeping ${name}`);
        } finally {
          pieceBytesWritten = 0;
        }
      };
      return {
        /** Bytes kept before this writer started. */
        async write(bytes) {
          if (closed) throw new Error('write after finish/abort');
          let at = 0;
          while (at < bytes.length) {
            if (!piece) {
              const { m } = await manifestOf(s);
              const n = m?.files[name]?.pieces.length ?? 0;
              const pn = pieceName(name, etag, n);
              try {
                piece = { name: pn, handle: await backend.createPiece(dir, pn) };
              } catch (error) {
                throw storageError(error, `writing ${name}`);
              }
            }
            const take = Math.min(bytes.length - at, pieceBytes - pieceBytesWritten);
            try {
              await piece.handle.write(at === 0 && take === bytes.length ? bytes : bytes.subarray(at, at + take));
            } catch (error) {
              await piece.handle.abort().catch(() => {});
              piece = null;
              pieceBytesWritten = 0;
              throw storageError(error, `writing ${name}`);
            }
            pieceBytesWritten += take;
            at += take;
            if (pieceBytesWritten >= pieceBytes) await commit();
          }
        },
        commit,
        async abort() {
          closed = true;
          if (piece) await piece.handle.abort().catch(() => {});
          piece = null;
        },
        async finish() {
          await commit();
          closed = true;
          await serial(async () => {
            const { m } = await manifestOf(s);
            const f = m?.files[name];
            if (!f) throw new Error(`${name} was removed while it downloaded`);
            const have = fileBytes(f);
            if (f.total !== null && have !== f.total)
              throw new Error(`${name}: ${have} bytes kept, ${f.total} expected`);
            f.total = have;
            f.complete = true;
            m.updated = new Date().toISOString();
            await writeManifest(dir, m);
          }).catch((error) => {
            throw storageError(error, `finishing ${name}`);
          });
        },
      };
    },

    /** Marks the model complete once every file in `files` is; `commit` is the Hub's X-Repo-Commit if seen. */
    markComplete(spec, files, { commit } = {}) {
      return serial(async () => {
        const { dir, m } = await manifestOf(spec);
        if (!m) throw new Error('nothing kept for this model');
        for (const name of files) if (m.files[name]?.complete !== true) throw new Error(`${name} is not complete`);
        m.order = [...files, ...m.order.filter((n) => !files.includes(n))];
        m.complete = true;
        if (commit) m.commit = commit;
        m.updated = new Date().toISOString();
        await writeManifest(dir, m);
      }).catch((error) => {
        throw storageError(error, 'finishing the model');
      });
    },

    /**
     * A complete model's files as Blobs (read slice by slice from the disk): {name: Blob}, or
     * null when the model is not (completely, or any more) kept.
     */
    async files(spec) {
      const { dir, m } = await manifestOf(spec);
      if (!m?.complete) return null;
      const out = {};
      for (const name of m.order) {
        const f = m.files[name];
        if (!f?.complete) return null;
        const blob = await blobOf(dir, f);
        if (!blob) return null;
        out[name] = blob;
      }
      return out;
    },

    /** One complete file as a Blob, or null. */
    async file(spec, name) {
      const { dir, m } = await manifestOf(spec);
      const f = m?.files[name];
      return f?.complete ? blobOf(dir, f) : null;
    },

    /** Removes one model (complete or partial). */
    remove(spec) {
      return serial(async () => backend.removeFolder(folderOf(spec))).catch((error) => {
        throw storageError(error, 'removing a kept model');
      });
    },

    /** Removes every kept model. */
    removeAll() {
      return serial(async () => {
        for (const dir of await backend.folders()) await backend.removeFolder(dir);
      }).catch((error) => {
        throw storageError(error, 'removing the kept models');
      });
    },

    /** navigator.storage.estimate(): {usage, quota} in bytes, or null where unknown. */
    async estimate() {
      try {
        const e = await storage?.estimate?.();
        return e && Number.isFinite(e.quota) ? { usage: e.usage ?? 0, quota: e.quota } : null;
      } catch {
        return null;
      }
    },

    /**
     * Asks for persistent storage (not evicted under pressure) where the browser allows it:
     * 'persisted' already, 'granted', 'denied', 'undecided' (Firefox asks the reader and the
     * answer did not come within a few seconds), or 'unsupported'.
     */
    async persist({ waitMs = PERSIST_WAIT_MS } = {}) {
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
    },
  };
  return store;
}

// How the store lays a model out (store.js's header): folder and piece names, the manifest read
// and written one update at a time, what a listing says of a model, and a storage failure in words.
import { HubError, inputError } from './errors.js';
import { endpointOf, repoIdOf, revisionOf } from './urls.js';

export const ROOT_FOLDER = 'attention-explorer-hub';
const MANIFEST = 'manifest.json';

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

/** A piece's file name: the file, its ETag's hash, its number. */
export const pieceName = (file, etag, n) => `${safeName(file.replace(/\//g, '--'))}.${hash16(etag ?? '')}.${n}`;

/** A storage failure while `what` as a HubError (reason quota or storage; a HubError stays itself). */
export const storageError = (error, what) => {
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

/** Bytes kept of a manifest's file entry (the sum of its pieces). */
export const fileBytes = (f) => (f?.pieces ?? []).reduce((sum, p) => sum + p.bytes, 0);

const sameModel = (m, s) => m && m.endpoint === s.endpoint && m.repo === s.repo && m.revision === s.revision;

/**
 * The manifests of one backend: read(dir), write(dir, m), of(spec, create) → {s, dir, m} (m null
 * when nothing is kept, or a new one with `create`), and serial(fn): manifest updates of one store
 * run one after another.
 */
export function manifests(backend) {
  let queue = Promise.resolve();
  const serial = (fn) => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };
  async function read(dir) {
    const text = await backend.readText(dir, MANIFEST);
    if (text === null) return null;
    try {
      const m = JSON.parse(text);
      return m && m.v === 1 && typeof m.files === 'object' ? m : null;
    } catch {
      return null; // a manifest cut short by a crash: the folder reads as empty
    }
  }
  const write = (dir, m) => backend.writeText(dir, MANIFEST, JSON.stringify(m));
  async function of(spec, create = false) {
    const s = specOf(spec);
    const dir = folderOf(s);
    let m = await read(dir);
    if (m && !sameModel(m, s)) m = null;
    if (!m && create) m = { v: 1, ...s, complete: false, files: {}, order: [], updated: new Date().toISOString() };
    return { s, dir, m };
  }
  return { backend, serial, read, write, of };
}

/** A model as list() and get() give it: {endpoint, repo, revision, commit, complete, bytes, files, updated}. */
export function summary(m) {
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
}

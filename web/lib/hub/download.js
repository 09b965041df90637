// Downloading a GPT-2 checkpoint from the Hugging Face Hub into the browser's store, as a state
// machine a view subscribes to. No DOM; runs on the page and in a worker (fetch, OPFS).
// tests/js/lib/hub/download.test.mjs (a fake fetch), tests/e2e/hub.test.mjs (the browsers and
// tests/helpers/hf-standin.mjs).
//
//   idle → checking → downloading(file, bytes, total, bytes/s, seconds left) → stored
//                                                                            | failed(reason)
//                                                                            | cancelled
//
// checking: the store first (a model kept complete opens with no request at all), then
//   config.json (a GPT-2? how many parameters? will it fit?), then the tokenizer (tokenizer.json,
//   else vocab.json + merges.txt, else none: the model host then uses GPT-2's own encoding).
// downloading: each file still missing, model.safetensors last: its size comes from the
//   response (Content-Length, or Content-Range's total), and before its body is read the
//   memory it needs and the storage it takes are checked against what the browser reports.
//
// Resuming. Each file is kept in pieces as it arrives (store.js). A dropped connection (the body
// stops with a network error or short of its length) keeps what arrived and asks again from the
// byte reached with `Range: bytes=N-`, after a wait that doubles (1 s, 2 s, 4 s … at most 16 s);
// an attempt that brought new bytes resets the count, and `retries` attempts in a row without a
// byte end in a clear failure (what arrived stays kept for the next press). The resolve URL is
// asked again each time: its redirect target is a signed URL that expires.
// A changed file restarts from 0: a 206 whose ETag (or total size) differs from the kept bytes',
// or a 200 (the server ignored the range, as it must when a conditional range no longer matches).
// The check is made here rather than with If-Range because If-Range is not a CORS-safelisted
// header: it would make every request preflighted, and Hugging Face's CDN does not list it in
// Access-Control-Allow-Headers. Range with one "bytes=N-" range is safelisted (Chromium 99+,
// Firefox 117+, Safari 16+), so a resume needs no preflight.
//
// Telling failures apart. fetch() rejects with the same TypeError whether the host is down, the
// connection was refused, the answer lacked CORS headers, or the page's CSP blocked the address.
// What can be told apart, in this order: the browser says it is offline (navigator.onLine); the
// CSP reported a violation (a securitypolicyviolation event on the global object, with the
// blocked address); a second request in no-cors mode gets an (opaque) answer, so the host is up
// and refused CORS; else the host did not answer. A cross-origin-isolated page (COEP
// require-corp) blocks opaque answers without Cross-Origin-Resource-Policy, so there a refused
// CORS request reads as "did not answer", and the message says that both are possible.
import { HubError, cancelledError, isAbort } from './errors.js';
import {
  CONFIG_FILE,
  TOKENIZER_JSON,
  VOCAB_FILES,
  WEIGHTS_FILE,
  checkGpt2Config,
  listingUrl,
  noSafetensorsError,
  repoPageUrl,
  resolveUrl,
  siblingNames,
} from './urls.js';
import { specOf } from './store.js';
import { predictFit } from './memory.js';
import { formatBytes } from '../format.js';
import { progressNumbers, speedMeter } from './progress.js';

export const DOWNLOAD_DEFAULTS = Object.freeze({
  retries: 4, // attempts in a row without a new byte before giving up
  backoffMs: 1000, // the first wait; doubled each time
  maxBackoffMs: 16000,
  maxRestarts: 3, // a file that changes more often than this while downloading is an error
  progressEveryMs: 100, // at most one progress state per this many ms (phase changes always)
  violationWaitMs: 50, // how long to let a CSP violation event arrive after a refused fetch
});

export const PHASES = Object.freeze(['idle', 'checking', 'downloading', 'stored', 'failed', 'cancelled']);

const normalEtag = (value) => (value ? value.replace(/^W\//, '').trim() : null);

// "bytes 100-199/1000" → {start: 100, end: 199, total: 1000}; "bytes */1000" (a 416's) →
// {start: null, end: null, total: 1000}; anything else → null.
export function parseContentRange(value) {
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\s*\/\s*(\d+|\*)\s*$/i.exec(value ?? '');
  if (!m) return null;
  return {
    start: m[1] === undefined ? null : Number(m[1]),
    end: m[2] === undefined ? null : Number(m[2]),
    total: m[3] === '*' ? null : Number(m[3]),
  };
}

/** The body's length when it is the file's (no content coding), else null. */
function contentLength(response) {
  const encoding = response.headers.get('content-encoding');
  const length = response.headers.get('content-length');
  return length !== null && /^\d+$/.test(length) && (!encoding || encoding === 'identity') ? Number(length) : null;
}

/**
 * Listens for CSP violations on the global object (the page's window or a worker's global), so
 * that a refused fetch can be told from a host that did not answer.
 */
export function cspWatcher(target = globalThis) {
  const seen = [];
  const listener = (event) =>
    seen.push({
      blockedURI: event.blockedURI ?? '',
      directive: event.effectiveDirective || event.violatedDirective || '',
      time: Date.now(),
    });
  target?.addEventListener?.('securitypolicyviolation', listener);
  return {
    /** Violations of connect-src (or default-src standing in for it) since `time` (Date.now()). */
    since(time) {
      return seen.filter((v) => v.time >= time && /^(connect-src|default-src)/.test(v.directive));
    },
    close() {
      target?.removeEventListener?.('securitypolicyviolation', listener);
    },
  };
}

const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/**
 * A download controller.
 * @param {object} options
 * @param {{endpoint?, repo, revision?}} options.model which model (urls.js parseModelInput gives it)
 * @param {object} options.store from openModelStore
 * @param {Function} [options.fetch] globalThis.fetch
 * @param {number[]} [options.precisions] bytes per weight the engine can hold weights in ([4] today)
 * @param {number} [options.deviceMemoryGB] navigator.deviceMemory by default
 * @param {number} [options.alsoHeld] bytes of the model on screen, held while this one opens
 * @param {boolean} [options.ignoreDeviceMemory] the reader chose to try anyway
 * @param {boolean} [options.askPersist] ask navigator.storage.persist() once stored (default true)
 * @param {Function} [options.online] () => navigator.onLine
 * @param {object} [options.watcher] cspWatcher()
 */
export function createDownload(options) {
  const o = { ...DOWNLOAD_DEFAULTS, ...options };
  const spec = specOf(o.model);
  const store = o.store;
  if (!store || typeof store.writer !== 'function')
    throw new HubError('store: expected the store openModelStore() gives', { reason: 'input', argument: 'store' });
  const fetchImpl = o.fetch ?? globalThis.fetch?.bind(globalThis);
  const now = o.now ?? (() => (globalThis.performance ?? Date).now());
  const online = o.online ?? (() => globalThis.navigator?.onLine !== false);
  const deviceMemoryGB = o.ignoreDeviceMemory ? undefined : (o.deviceMemoryGB ?? globalThis.navigator?.deviceMemory);
  const precisions = o.precisions ?? [4];
  const abort = new AbortController();
  const signal = abort.signal;
  const sleep =
    o.sleep ??
    ((ms) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(cancelledError());
          },
          { once: true },
        );
      }));

  const listeners = new Set();
  let state = {
    phase: 'idle',
    spec,
    file: null,
    files: [],
    bytes: 0,
    total: null,
    percent: null,
    bytesPerSecond: null,
    secondsLeft: null,
    fetched: 0,
    reused: 0,
    retry: null,
    fit: null,
    tokenizer: null,
    commit: null,
    error: null,
    persist: null,
    estimate: null,
  };
  let lastProgress = -Infinity;
  const emit = (patch, { progress = false } = {}) => {
    state = { ...state, ...patch };
    if (progress) {
      const t = now();
      if (t - lastProgress < o.progressEveryMs) return;
      lastProgress = t;
    }
    for (const listener of listeners) {
      try {
        listener(state);
      } catch {
        // a view's error is its own; the download goes on
      }
    }
  };
  const meter = speedMeter();
  const fileRow = (name, patch) => {
    const files = state.files.some((f) => f.name === name)
      ? state.files.map((f) => (f.name === name ? { ...f, ...patch } : f))
      : [...state.files, { name, bytes: 0, total: null, done: false, ...patch }];
    return files;
  };
  const progressOf = (name, bytes, total) => {
    const bytesPerSecond = meter.rate();
    return {
      file: name,
      bytes,
      total,
      bytesPerSecond,
      ...progressNumbers({ bytes, total, bytesPerSecond }),
      files: fileRow(name, { bytes, total }),
    };
  };

  // --- failures, in words ----------------------------------------------------------------------

  const repoName = `${spec.repo}${spec.revision === 'main' ? '' : `@${spec.revision}`}`;
  const where = spec.endpoint === 'https://huggingface.co' ? 'Hugging Face' : spec.endpoint;

  async function classifyNetworkError(error, url, file, startedAt) {
    if (isAbort(error, signal)) return cancelledError();
    if (!online())
      return new HubError(
        'this browser is offline: connect to the internet, then try again (what arrived so far is kept)',
        { reason: 'offline', url },
      );
    const blocked = async () => {
      await sleep(o.violationWaitMs);
      return watcher.since(startedAt)[0] ?? null;
    };
    let violation = await blocked();
    let reachable = false;
    if (!violation) {
      // The same address in no-cors mode: an opaque answer means the host is up.
      const probe = new AbortController();
      const stop = () => probe.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        await fetchImpl(url, { mode: 'no-cors', cache: 'no-store', credentials: 'omit', signal: probe.signal });
        reachable = true;
      } catch {
        reachable = false;
      } finally {
        probe.abort(); // only the answer's arrival mattered, not its body
        signal.removeEventListener('abort', stop);
      }
      if (signal.aborted) return cancelledError();
      if (!reachable) violation = await blocked();
    }
    // The Hub answered for an earlier file: what failed is most likely the host it redirects this
    // one to (large files come from its CDN). Chromium reports a redirect's CSP violation with the
    // URL before the redirect, so the blocked address alone does not say which host it was.
    const hub = originOf(spec.endpoint);
    const redirected = hubAnswered && originOf(url) === hub;
    const isolated = globalThis.crossOriginIsolated === true;
    const cannotTell = '(no CORS headers): on a cross-origin-isolated page the browser does not say which';
    if (violation) {
      const host = originOf(violation.blockedURI) || 'an address';
      const what =
        redirected && host === hub
          ? `allows ${hub} but not the host it redirects ${file} to (Hugging Face sends large files from its CDN, on other hosts)`
          : `does not allow connecting to ${host}`;
      return new HubError(
        `this page's Content-Security-Policy (connect-src) ${what}, so the download was blocked. ` +
          `A page that downloads from ${where} must allow ${hub} and the hosts it redirects to (the README says which)`,
        { reason: 'csp', url: violation.blockedURI },
      );
    }
    if (reachable)
      return new HubError(
        (redirected
          ? `${file}: the host ${hub} redirects it to answered but does not let this page read it`
          : `${originOf(url)} answered but does not let this page read its files`) +
          ': it sends no CORS headers (Access-Control-Allow-Origin). Hugging Face sends them; a mirror must too',
        { reason: 'cors', url },
      );
    return new HubError(
      redirected
        ? `${file}: ${hub} answered for the other files, but this one failed before any answer: the host it redirects to ` +
            `(for large files, a CDN on another host) may be unreachable${isolated ? `, or refusing this page ${cannotTell}` : ''}`
        : `could not reach ${originOf(url)}: the address may be wrong, the host down, or the network blocking it` +
            (isolated ? `; or it refused this page ${cannotTell}` : ''),
      { reason: 'unreachable', url },
    );
  }

  async function listing() {
    const url = listingUrl(spec);
    try {
      const response = await fetchImpl(url, { signal, cache: 'no-store', credentials: 'omit' });
      if (!response.ok) return { status: response.status, names: null };
      return { status: response.status, names: siblingNames(await response.json()) };
    } catch (error) {
      if (isAbort(error, signal)) throw cancelledError();
      return { status: 0, names: null };
    }
  }

  async function notFound(name) {
    const l = await listing();
    if (l.names && name === WEIGHTS_FILE) return noSafetensorsError(spec.repo, l.names);
    if (l.names && !l.names.includes(WEIGHTS_FILE)) return noSafetensorsError(spec.repo, l.names);
    if (l.names)
      return new HubError(`${repoName} has no ${name}; its files are: ${l.names.slice(0, 30).join(', ')}`, {
        reason: 'not-found',
        files: l.names,
      });
    // 401 is the Hub's answer to an anonymous request for a missing (or private) repository; a
    // 404 too, unless a file of it was already served (then the listing API is what is missing).
    if (l.status === 401 || (l.status === 404 && state.files.length === 0))
      return new HubError(
        `there is no public model ${spec.repo} at ${where} (check the name at ${repoPageUrl(spec)}; a private or gated one needs a login this page does not ask for)`,
        { reason: 'not-found', status: l.status },
      );
    return new HubError(
      `${repoName} has no ${name} at ${where} (a GPT-2 checkpoint needs config.json, model.safetensors and its tokenizer; the repository's file list could not be read)`,
      { reason: 'not-found', status: 404 },
    );
  }

  const notPublic = (status) =>
    new HubError(
      `${where} refused ${repoName} (HTTP ${status}): it does not exist, or it is private or gated and needs a login this page does not ask for`,
      { reason: 'not-found', status },
    );

  const dropped = (name, bytes, total, attempts) =>
    new HubError(
      `the connection kept dropping while downloading ${name}: it failed ${attempts} times in a row, ` +
        `stopped at ${formatBytes(bytes)}${total ? ` of ${formatBytes(total)}` : ''}. What arrived is kept: try again to resume from there`,
      { reason: 'dropped' },
    );

  // --- one file ----------------------------------------------------------------------------------

  /**
   * Downloads `name` into the store, resuming from what is kept. Returns false when the Hub has no
   * such file and `optional` is set. `beforeBody({total})` may throw to refuse the file (memory,
   * quota) before its body is read.
   */
  async function downloadFile(name, { optional = false, beforeBody, phase = 'downloading' } = {}) {
    const url = resolveUrl({ ...spec, file: name });
    let kept = await store.fileState(spec, name);
    if (kept.complete) {
      emit({
        reused: state.reused + kept.bytes,
        files: fileRow(name, { bytes: kept.bytes, total: kept.bytes, done: true }),
      });
      return true;
    }
    let writer = null;
    let answered = false;
    let failures = 0;
    let restarts = 0;
    // Drops the kept bytes; `changed` (the file is another version) counts towards maxRestarts.
    const restart = async (changed = true) => {
      if (changed && ++restarts > o.maxRestarts)
        throw new HubError(`${name} changed ${restarts} times while it downloaded; try again later`, {
          reason: 'http',
        });
      await writer?.abort();
      writer = null;
      await store.resetFile(spec, name);
      kept = await store.fileState(spec, name);
    };
    const retryLater = async (why, retryAfterMs) => {
      failures++;
      if (failures > o.retries) throw why();
      const wait = Math.max(retryAfterMs ?? 0, Math.min(o.maxBackoffMs, o.backoffMs * 2 ** (failures - 1)));
      emit({ retry: { attempt: failures, of: o.retries, inMs: wait } });
      meter.reset();
      await sleep(wait);
      emit({ retry: null });
    };
    try {
      for (;;) {
        if (signal.aborted) throw cancelledError();
        const from = kept.bytes;
        const startedAt = Date.now();
        let response;
        try {
          response = await fetchImpl(url, {
            signal,
            cache: 'no-store',
            credentials: 'omit',
            headers: from > 0 ? { Range: `bytes=${from}-` } : {},
          });
        } catch (error) {
          if (isAbort(error, signal)) throw cancelledError();
          if (!answered) {
            // A refusal (CSP, CORS) is said at once; a host that did not answer, when the Hub did
            // for an earlier file (this one's redirect target: a CDN), is given the retries first.
            const why = await classifyNetworkError(error, url, name, startedAt);
            if (why.reason !== 'unreachable' || !hubAnswered) throw why;
            await retryLater(() => why);
            continue;
          }
          await retryLater(() => dropped(name, from, kept.total, failures));
          continue;
        }
        answered = true;
        hubAnswered = true;
        const status = response.status;
        const discard = () => response.body?.cancel().catch(() => {});
        if (status === 404 || status === 410) {
          discard();
          if (optional) return false;
          throw await notFound(name);
        }
        if (status === 401 || status === 403) {
          discard();
          throw notPublic(status);
        }
        if (status === 429 || status >= 500) {
          discard();
          const after = Number(response.headers.get('retry-after'));
          await retryLater(
            () =>
              new HubError(`${where} answered HTTP ${status} ${failures} times in a row for ${name}; try again later`, {
                reason: 'http',
                status,
              }),
            Number.isFinite(after) ? after * 1000 : undefined,
          );
          continue;
        }
        const etag = normalEtag(response.headers.get('etag'));
        const commit = response.headers.get('x-repo-commit');
        if (commit && /^[0-9a-f]{40}$/i.test(commit) && !state.commit) emit({ commit });
        if (status === 416) {
          // Nothing after byte `from`: complete if the file is exactly that long, else changed.
          discard();
          const range = parseContentRange(response.headers.get('content-range'));
          if (from > 0 && range?.total === from) {
            writer ??= await store.writer(spec, name, { etag: kept.etag, total: from });
            await writer.finish();
            writer = null;
            return true;
          }
          await restart();
          continue;
        }
        if (status !== 200 && status !== 206) {
          discard();
          throw new HubError(`${where} answered HTTP ${status} for ${name}`, { reason: 'http', status });
        }
        let start = 0,
          total;
        if (status === 206) {
          const range = parseContentRange(response.headers.get('content-range'));
          const changed =
            !range ||
            range.start !== from ||
            (kept.etag && etag && kept.etag !== etag) ||
            (kept.total !== null && range.total !== null && kept.total !== range.total);
          if (changed) {
            discard();
            await restart();
            continue;
          }
          start = from;
          total = range.total;
        } else {
          total = contentLength(response);
          if (from > 0)
            await restart(false); // the server ignored the range: the whole file is coming
          else if (writer) {
            await writer.abort(); // nothing kept yet: start clean with this answer's ETag
            writer = null;
          }
        }
        if (beforeBody) {
          try {
            await beforeBody({ total, from: start });
          } catch (error) {
            discard();
            throw error;
          }
        }
        writer ??= await store.writer(spec, name, { etag, total });
        emit({ phase, ...progressOf(name, start, total) });
        const reader = response.body.getReader();
        let got = 0;
        let brokenBy = null;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            await writer.write(value);
            got += value.length;
            meter.add(value.length, now());
            emit(
              { fetched: state.fetched + value.length, ...progressOf(name, start + got, total) },
              { progress: true },
            );
          }
        } catch (error) {
          if (isAbort(error, signal)) throw cancelledError();
          if (error instanceof HubError) {
            reader.cancel().catch(() => {}); // the store refused (quota, storage): stop the body too
            throw error;
          }
          brokenBy = error;
        }
        if (got > 0) failures = 0;
        if (brokenBy || (total !== null && start + got < total)) {
          reader.cancel().catch(() => {});
          await writer.commit();
          kept = await store.fileState(spec, name);
          await retryLater(() => dropped(name, kept.bytes, total, failures));
          continue;
        }
        await writer.finish();
        writer = null;
        emit({
          ...progressOf(name, start + got, start + got),
          files: fileRow(name, { bytes: start + got, total: start + got, done: true }),
        });
        return true;
      }
    } catch (error) {
      // Keep what arrived (a later press resumes from it); a refused write keeps what was committed.
      if (writer) {
        if (error?.reason === 'quota' || error?.reason === 'storage') await writer.abort().catch(() => {});
        else await writer.commit().catch(() => {});
      }
      throw error;
    }
  }

  // --- the whole model ---------------------------------------------------------------------------

  let watcher = null;
  let running = null;
  let hubAnswered = false; // any answer to a resolve URL in this run
  let sizes = null;

  function fitOf(params) {
    return predictFit({ ...params, precisions, deviceMemoryGB, alsoHeld: o.alsoHeld ?? 0 });
  }
  const memoryError = (fit) => new HubError(fit.message, { reason: 'memory' });

  async function checkQuota(bytesNeeded) {
    const estimate = await store.estimate();
    emit({ estimate });
    if (!store.kept || !estimate) return;
    const free = estimate.quota - estimate.usage;
    if (bytesNeeded > free)
      throw new HubError(
        `keeping this model needs ${formatBytes(bytesNeeded)} more of the browser's storage, but it allows this site ` +
          `${formatBytes(Math.max(0, free))} more (${formatBytes(estimate.usage)} used of ${formatBytes(estimate.quota)}): ` +
          'remove kept models, or free disk space',
        { reason: 'quota' },
      );
  }

  async function keptResult() {
    const files = await store.files(spec);
    if (!files?.[CONFIG_FILE] || !files[WEIGHTS_FILE]) return null;
    const { sizes: s, config } = checkGpt2Config(await files[CONFIG_FILE].text(), { repo: repoName });
    const fit = fitOf({ parameters: s.parameters ?? undefined, fileBytes: files[WEIGHTS_FILE].size });
    emit({ fit });
    if (!fit.fits) throw memoryError(fit);
    const tokenizer = files[TOKENIZER_JSON] ? TOKENIZER_JSON : files[VOCAB_FILES[0]] ? 'vocab.json+merges.txt' : null;
    const summary = await store.get(spec);
    return { files, config, sizes: s, tokenizer, fit, commit: summary?.commit ?? null };
  }

  async function run() {
    watcher = o.watcher ?? cspWatcher();
    try {
      emit({ phase: 'checking', file: null });
      const kept = await keptResult();
      if (kept) {
        const bytes = Object.values(kept.files).reduce((a, b) => a + b.size, 0);
        emit({
          phase: 'stored',
          reused: bytes,
          bytes,
          total: bytes,
          percent: 100,
          tokenizer: kept.tokenizer,
          commit: kept.commit,
        });
        return { spec, ...kept, fetched: 0, reused: bytes, fromStore: true };
      }
      // config.json: a GPT-2? How large?
      emit({ file: CONFIG_FILE });
      await downloadFile(CONFIG_FILE, { phase: 'checking' });
      const configBlob = await store.file(spec, CONFIG_FILE);
      let checked;
      try {
        checked = checkGpt2Config(await configBlob.text(), { repo: repoName });
      } catch (error) {
        await store.remove(spec).catch(() => {}); // nothing of a model this page cannot run stays
        throw error;
      }
      sizes = checked.sizes;
      if (sizes.parameters) {
        const fit = fitOf({ parameters: sizes.parameters });
        emit({ fit });
        if (!fit.fits) throw memoryError(fit);
      }
      // The tokenizer: tokenizer.json, else vocab.json + merges.txt, else none.
      let tokenizer = null;
      if (await downloadFile(TOKENIZER_JSON, { optional: true })) tokenizer = TOKENIZER_JSON;
      else if (await downloadFile(VOCAB_FILES[0], { optional: true })) {
        if (await downloadFile(VOCAB_FILES[1], { optional: true })) tokenizer = 'vocab.json+merges.txt';
        else await store.resetFile(spec, VOCAB_FILES[0]);
      }
      emit({ tokenizer });
      // The weights, checked against memory and storage before their body is read.
      await downloadFile(WEIGHTS_FILE, {
        beforeBody: async ({ total, from }) => {
          if (!sizes.parameters && total) {
            const fit = fitOf({ fileBytes: total });
            emit({ fit });
            if (!fit.fits) throw memoryError(fit);
          }
          if (total) await checkQuota(total - from);
        },
      });
      const files = [CONFIG_FILE];
      if (tokenizer === TOKENIZER_JSON) files.push(TOKENIZER_JSON);
      if (tokenizer === 'vocab.json+merges.txt') files.push(...VOCAB_FILES);
      files.push(WEIGHTS_FILE);
      await store.markComplete(spec, files, { commit: state.commit });
      const result = await keptResult();
      if (!result)
        throw new HubError('the model was downloaded but the browser did not keep it whole', { reason: 'storage' });
      const bytes = Object.values(result.files).reduce((a, b) => a + b.size, 0);
      emit({ phase: 'stored', file: null, bytes, total: bytes, percent: 100, retry: null });
      if (store.kept && o.askPersist !== false)
        store.persist().then(
          (persist) => emit({ persist }),
          () => {},
        );
      store.estimate().then(
        (estimate) => emit({ estimate }),
        () => {},
      );
      return { spec, ...result, fetched: state.fetched, reused: state.reused, fromStore: false };
    } catch (error) {
      const e =
        error instanceof HubError
          ? error
          : new HubError(`the download failed: ${error?.message ?? error}`, { reason: 'storage' });
      if (e.reason === 'cancelled' || signal.aborted) {
        emit({ phase: 'cancelled', retry: null, error: null });
        throw e.reason === 'cancelled' ? e : cancelledError();
      }
      emit({ phase: 'failed', retry: null, error: { reason: e.reason, message: e.message, files: e.files } });
      throw e;
    } finally {
      if (!o.watcher) watcher.close();
    }
  }

  return {
    get state() {
      return state;
    },
    /** Calls `listener(state)` on every change (progress at most every progressEveryMs); returns an unsubscribe. */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /**
     * Runs the download (once; a second call returns the same promise). Resolves with
     * {spec, files: {name: Blob}, config, sizes, tokenizer, fit, fetched, reused, fromStore};
     * rejects with a HubError (its `reason` as in errors.js).
     */
    start() {
      running ??= run();
      return running;
    },
    /** Stops the download; what arrived stays kept (as partial) for a later resume. */
    cancel() {
      abort.abort();
    },
  };
}

/**
 * What the model host's open(spec) takes (web/tools/model-host.js), from a finished download:
 * the weights and config as Blobs (read slice by slice), the tokenizer's files if any.
 */
export function openSpecOf(result, { name } = {}) {
  const f = result.files;
  const tokenizer =
    result.tokenizer === TOKENIZER_JSON
      ? { json: f[TOKENIZER_JSON], name: TOKENIZER_JSON }
      : result.tokenizer
        ? { vocab: f[VOCAB_FILES[0]], merges: f[VOCAB_FILES[1]] }
        : {};
  return {
    name: name ?? result.spec.repo,
    source: f[WEIGHTS_FILE],
    config: f[CONFIG_FILE],
    tokenizer,
    about: `${result.spec.repo} from ${result.spec.endpoint}, kept in this browser`,
  };
}

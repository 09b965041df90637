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
//
// The parts: the checks before a download and the run's steps (here), one file's ranged fetch
// with resume (download-file.js), failures told apart and worded (download-failures.js), the
// state a view subscribes to (download-state.js).
import { HubError, cancelledError } from './errors.js';
import { CONFIG_FILE, TOKENIZER_JSON, VOCAB_FILES, WEIGHTS_FILE, checkGpt2Config } from './urls.js';
import { specOf } from './store.js';
import { predictFit } from './memory.js';
import { createReporter } from './download-state.js';
import { downloadFile } from './download-file.js';
import { cspWatcher, quotaError } from './download-failures.js';

export { parseContentRange } from './download-file.js';
export { cspWatcher } from './download-failures.js';

export const DOWNLOAD_DEFAULTS = Object.freeze({
  retries: 4, // attempts in a row without a new byte before giving up
  backoffMs: 1000, // the first wait; doubled each time
  maxBackoffMs: 16000,
  maxRestarts: 3, // a file that changes more often than this while downloading is an error
  progressEveryMs: 100, // at most one progress state per this many ms (phase changes always)
  violationWaitMs: 50, // how long to let a CSP violation event arrive after a refused fetch
});

export const PHASES = Object.freeze(['idle', 'checking', 'downloading', 'stored', 'failed', 'cancelled']);

/**
 * A download controller.
 * @param {object} options
 * @param {{endpoint?, repo, revision?}} options.model which model (urls.js parseModelInput gives it)
 * @param {object} options.store from openModelStore
 * @param {Function} [options.fetch] globalThis.fetch
 * @param {number[]} [options.precisions] bytes per weight the engine may hold weights in (default [4]; the page's hub-models passes [4, 2]: F32 or F16, or [2] for F16 or BF16 chosen)
 * @param {boolean} [options.precisionChosen] precisions is the reader's choice (memory.js predictFit's `chosen`)
 * @param {string} [options.sixteenBit] the 2-byte precision's name in messages, 'F16' or 'BF16' (predictFit's)
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
  if (!o.store || typeof o.store.writer !== 'function')
    throw new HubError('store: expected the store openModelStore() gives', { reason: 'input', argument: 'store' });
  const abort = new AbortController();
  const dl = downloadContext(o, spec, abort.signal);
  let running = null;
  return {
    get state() {
      return dl.report.state;
    },
    /** Calls `listener(state)` on every change (progress at most every progressEveryMs); returns an unsubscribe. */
    subscribe(listener) {
      return dl.report.subscribe(listener);
    },
    /**
     * Runs the download (once; a second call returns the same promise). Resolves with
     * {spec, files: {name: Blob}, config, sizes, tokenizer, fit, fetched, reused, fromStore};
     * rejects with a HubError (its `reason` as in errors.js).
     */
    start() {
      running ??= run(dl);
      return running;
    },
    /** Stops the download; what arrived stays kept (as partial) for a later resume. */
    cancel() {
      abort.abort();
    },
  };
}

/** setTimeout as a promise that rejects (cancelled) when `signal` aborts. */
function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(cancelledError());
      },
      { once: true },
    );
  });
}

/**
 * What every part of one download reads: the options `o`, the model's `spec`, the `store`, the
 * `fetch`, `signal`, `sleep`, `online` and `fit` it uses, the names of the model and its host in
 * messages, the state's `report`; `watcher` and `hubAnswered` (any answer to a resolve URL) are
 * set by the run.
 */
function downloadContext(o, spec, signal) {
  const now = o.now ?? (() => (globalThis.performance ?? Date).now());
  const deviceMemoryGB = o.ignoreDeviceMemory ? undefined : (o.deviceMemoryGB ?? globalThis.navigator?.deviceMemory);
  const precisions = o.precisions ?? [4];
  return {
    o,
    spec,
    store: o.store,
    signal,
    fetch: o.fetch ?? globalThis.fetch?.bind(globalThis),
    online: o.online ?? (() => globalThis.navigator?.onLine !== false),
    sleep: o.sleep ?? ((ms) => abortableSleep(ms, signal)),
    fit: (params) =>
      predictFit({
        ...params,
        precisions,
        chosen: Boolean(o.precisionChosen),
        sixteenBit: o.sixteenBit,
        deviceMemoryGB,
        alsoHeld: o.alsoHeld ?? 0,
      }),
    repoName: `${spec.repo}${spec.revision === 'main' ? '' : `@${spec.revision}`}`,
    where: spec.endpoint === 'https://huggingface.co' ? 'Hugging Face' : spec.endpoint,
    report: createReporter({ spec, now, progressEveryMs: o.progressEveryMs }),
    watcher: null,
    hubAnswered: false,
  };
}

// --- the whole model -----------------------------------------------------------------------------

/** The whole download: the store first, else config, tokenizer and weights; then kept whole. */
async function run(dl) {
  const { spec, report } = dl;
  dl.watcher = dl.o.watcher ?? cspWatcher();
  try {
    report.emit({ phase: 'checking', file: null });
    const kept = await keptResult(dl);
    if (kept) {
      const bytes = Object.values(kept.files).reduce((a, b) => a + b.size, 0);
      report.emit({
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
    const sizes = await checkConfig(dl);
    const tokenizer = await downloadTokenizer(dl);
    await downloadWeights(dl, sizes);
    const result = await keepWhole(dl, tokenizer);
    return { spec, ...result, fetched: report.state.fetched, reused: report.state.reused, fromStore: false };
  } catch (error) {
    throw failed(dl, error);
  } finally {
    if (!dl.o.watcher) dl.watcher.close();
  }
}

/** The run's error as the HubError it rejects with, once the state says cancelled or failed. */
function failed(dl, error) {
  const e =
    error instanceof HubError
      ? error
      : new HubError(`the download failed: ${error?.message ?? error}`, { reason: 'storage' });
  if (e.reason === 'cancelled' || dl.signal.aborted) {
    dl.report.emit({ phase: 'cancelled', retry: null, error: null });
    return e.reason === 'cancelled' ? e : cancelledError();
  }
  dl.report.emit({ phase: 'failed', retry: null, error: { reason: e.reason, message: e.message, files: e.files } });
  return e;
}

/** The fit of `params` ({parameters?, fileBytes?}), emitted; thrown (reason memory) when it does not fit. */
function checkFit(dl, params) {
  const fit = dl.fit(params);
  dl.report.emit({ fit });
  if (!fit.fits) throw new HubError(fit.message, { reason: 'memory' });
  return fit;
}

/** The model as the store keeps it when complete (and it fits), else null. */
async function keptResult(dl) {
  const { store, spec } = dl;
  const files = await store.files(spec);
  if (!files?.[CONFIG_FILE] || !files[WEIGHTS_FILE]) return null;
  const { sizes, config } = checkGpt2Config(await files[CONFIG_FILE].text(), { repo: dl.repoName });
  const fit = checkFit(dl, { parameters: sizes.parameters ?? undefined, fileBytes: files[WEIGHTS_FILE].size });
  const tokenizer = files[TOKENIZER_JSON] ? TOKENIZER_JSON : files[VOCAB_FILES[0]] ? 'vocab.json+merges.txt' : null;
  const summary = await store.get(spec);
  return { files, config, sizes, tokenizer, fit, commit: summary?.commit ?? null };
}

/** config.json: a GPT-2? How large? Does it fit? Its sizes; nothing is kept of a model this page cannot run. */
async function checkConfig(dl) {
  const { store, spec } = dl;
  dl.report.emit({ file: CONFIG_FILE });
  await downloadFile(dl, CONFIG_FILE, { phase: 'checking' });
  const configBlob = await store.file(spec, CONFIG_FILE);
  let checked;
  try {
    checked = checkGpt2Config(await configBlob.text(), { repo: dl.repoName });
  } catch (error) {
    await store.remove(spec).catch(() => {});
    throw error;
  }
  const sizes = checked.sizes;
  if (sizes.parameters) checkFit(dl, { parameters: sizes.parameters });
  return sizes;
}

/** The tokenizer: tokenizer.json, else vocab.json + merges.txt, else none. Which one it is. */
async function downloadTokenizer(dl) {
  let tokenizer = null;
  if (await downloadFile(dl, TOKENIZER_JSON, { optional: true })) tokenizer = TOKENIZER_JSON;
  else if (await downloadFile(dl, VOCAB_FILES[0], { optional: true })) {
    if (await downloadFile(dl, VOCAB_FILES[1], { optional: true })) tokenizer = 'vocab.json+merges.txt';
    else await dl.store.resetFile(dl.spec, VOCAB_FILES[0]);
  }
  dl.report.emit({ tokenizer });
  return tokenizer;
}

/** The weights, checked against memory and storage before their body is read. */
async function downloadWeights(dl, sizes) {
  await downloadFile(dl, WEIGHTS_FILE, {
    beforeBody: async ({ total, from }) => {
      if (!sizes.parameters && total) checkFit(dl, { fileBytes: total });
      if (total) await checkQuota(dl, total - from);
    },
  });
}

/** Throws (reason quota) when the store keeps files and its estimate leaves less than `bytesNeeded` free. */
async function checkQuota(dl, bytesNeeded) {
  const { store } = dl;
  const estimate = await store.estimate();
  dl.report.emit({ estimate });
  if (!store.kept || !estimate) return;
  const free = estimate.quota - estimate.usage;
  if (bytesNeeded > free) throw quotaError(bytesNeeded, free, estimate);
}

/** Marks the files complete, reads the model back from the store, says stored; asks to persist. */
async function keepWhole(dl, tokenizer) {
  const { store, spec, report } = dl;
  const files = [CONFIG_FILE];
  if (tokenizer === TOKENIZER_JSON) files.push(TOKENIZER_JSON);
  if (tokenizer === 'vocab.json+merges.txt') files.push(...VOCAB_FILES);
  files.push(WEIGHTS_FILE);
  await store.markComplete(spec, files, { commit: report.state.commit });
  const result = await keptResult(dl);
  if (!result)
    throw new HubError('the model was downloaded but the browser did not keep it whole', { reason: 'storage' });
  const bytes = Object.values(result.files).reduce((a, b) => a + b.size, 0);
  report.emit({ phase: 'stored', file: null, bytes, total: bytes, percent: 100, retry: null });
  if (store.kept && dl.o.askPersist !== false)
    store.persist().then(
      (persist) => report.emit({ persist }),
      () => {},
    );
  store.estimate().then(
    (estimate) => report.emit({ estimate }),
    () => {},
  );
  return result;
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

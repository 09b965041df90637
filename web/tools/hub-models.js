// The real-model section's downloads from the Hugging Face Hub (or a mirror), on the page: one
// download at a time (lib/hub/download.js, its state shown as a progress bar), the models kept in
// the browser (lib/hub/store.js: listed with their sizes, removable), the storage estimate and
// whether persistent storage was granted. No DOM: views/gpt/model-picker.js draws what this holds
// and tools/real-model.js opens what it downloads.
//
// The download runs on the page rather than in the model worker: the library works in both, the
// page's OPFS writes (createWritable) are in every browser the engine runs in, and the worker
// stays free to run the model on screen while the next one downloads.
import { createDownload, openModelStore, openSpecOf, PRESETS, DEFAULT_ENDPOINT } from '../lib/hub/index.js';

// Failures after which what was kept of a repository cannot be resumed into a model.
const DEAD_ENDS = new Set(['no-safetensors', 'not-found', 'not-gpt2', 'memory']);

/** How a model of the Hub is introduced: a preset's name, else its repository id. */
export function hubLabel({ repo, revision = 'main' }) {
  const preset = PRESETS.find((p) => p.repo === repo);
  const name = preset ? `${preset.label} (${repo})` : repo;
  return revision && revision !== 'main' ? `${name} at ${revision}` : name;
}

/** Where a model comes from, in words: "Hugging Face" or the mirror's address. */
export const hubPlace = (endpoint) => (!endpoint || endpoint === DEFAULT_ENDPOINT ? 'Hugging Face' : endpoint);

/**
 * createHubModels's fetch: one download from start to its end, shown through hub.set while it is
 * hub's current one. `hub`: {storeOf, options, set, refresh, current: {get, set}}.
 */
async function fetchModel(hub, model, alsoHeld, weights) {
  const { set } = hub;
  hub.current.get()?.download.cancel();
  const store = await hub.storeOf();
  // The engine holds weights as F32, F16 or BF16 (weights: 'f16', 'bf16', issue 31): with
  // `weights` 'auto', a model that fits only in 2 bytes a weight is downloaded and opened as F16;
  // 'f32', 'f16' and 'bf16' ask for one (the fit check then says when that one would not fit).
  const precisions = weights === 'f32' ? [4] : weights === 'f16' || weights === 'bf16' ? [2] : [4, 2];
  const precisionChosen = weights === 'f32' || weights === 'f16' || weights === 'bf16';
  const download = createDownload({
    precisions,
    precisionChosen,
    sixteenBit: weights === 'bf16' ? 'BF16' : 'F16',
    ...hub.options,
    model,
    store,
    alsoHeld,
    askPersist: false,
  });
  const spec = download.state.spec;
  const label = hubLabel(spec);
  const place = hubPlace(spec.endpoint);
  const mine = { download, label, spec };
  hub.current.set(mine);
  const isMine = () => hub.current.get() === mine;
  const show = (s) => isMine() && set({ active: { label, place, ...s } });
  const off = download.subscribe(show);
  set({ error: null });
  show(download.state);
  try {
    const result = await download.start();
    if (!result.fromStore && store.kept)
      store.persist().then(
        (persist) => set({ persist }),
        () => {},
      );
    return {
      spec: {
        ...openSpecOf(result, { name: label }),
        weights: precisionChosen ? weights : result.fit?.choice?.bytesPerWeight === 2 ? 'f16' : 'auto',
        about: result.fromStore
          ? `opened from this browser’s store (downloaded from ${place})`
          : `downloaded from ${place} and kept in this browser`,
      },
      fetched: result.fetched,
      fromStore: result.fromStore,
      sizes: result.sizes,
    };
  } catch (error) {
    // Nothing worth resuming of a repository this page cannot open: its config.json goes too.
    if (DEAD_ENDS.has(error?.reason)) await store.remove(spec).catch(() => {});
    if (isMine() && error?.reason !== 'cancelled')
      set({
        error: {
          label,
          reason: error?.reason ?? 'http',
          message: error?.message ?? String(error),
          files: error?.files,
        },
      });
    throw error;
  } finally {
    off();
    if (isMine()) {
      hub.current.set(null);
      set({ active: null });
    }
    hub.refresh();
  }
}

/**
 * @param {{storage?: StorageManager, options?: object}} deps  options: passed to createDownload
 *   (the tests shorten the waits)
 */
export function createHubModels({ storage = globalThis.navigator?.storage, options = {} } = {}) {
  let storePromise = null;
  const storeOf = () => (storePromise ??= openModelStore({ storage }));
  const listeners = new Set();
  let current = null; // {download, label, spec}
  let state = {
    /** The download under way: {label, place, ...download.state}, or null. */
    active: null,
    /** The last failure: {label, reason, message, files}, or null (a new download clears it). */
    error: null,
    /** Models kept: store.list()'s summaries (null until read). */
    kept: null,
    /** {usage, quota} bytes, or null where the browser does not say. */
    estimate: null,
    /** navigator.storage.persist()'s answer after a download: 'granted', 'denied', … or null. */
    persist: null,
    /** Why models are not kept here (no OPFS), or null. */
    reason: null,
  };
  const set = (patch) => {
    state = { ...state, ...patch };
    for (const f of listeners) f(state);
  };

  async function refresh() {
    try {
      const store = await storeOf();
      const [kept, estimate] = await Promise.all([store.list(), store.estimate()]);
      set({ kept, estimate, reason: store.reason });
    } catch (error) {
      set({ kept: [], reason: error?.message ?? String(error) });
    }
  }

  const hub = {
    storeOf,
    options,
    set,
    refresh,
    current: { get: () => current, set: (c) => (current = c) },
  };
  return {
    get state() {
      return state;
    },
    subscribe(f) {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    /** Reads the kept list and the estimate again. */
    refresh,
    /** Whether the model {endpoint, repo, revision} is kept complete in this browser. */
    async isKept(model) {
      try {
        return (await (await storeOf()).get(model))?.complete === true;
      } catch {
        return false;
      }
    },
    /**
     * Downloads (or finds kept) the model {endpoint, repo, revision}; resolves with what the model
     * host opens (openSpecOf: Blobs read from the store) and {fetched, fromStore}. A download under
     * way is cancelled first. `alsoHeld`: bytes of the model on screen (the memory prediction);
     * `weights`: 'auto', 'f32', 'f16' or 'bf16' (engine.openModel's: how the spec asks them kept).
     */
    fetch: (model, { alsoHeld = 0, weights = 'auto' } = {}) => fetchModel(hub, model, alsoHeld, weights),
    /** Stops the download under way (what arrived stays kept, to resume). */
    cancel() {
      current?.download.cancel();
    },
    /** Removes a kept model ({endpoint, repo, revision}). */
    async remove(spec) {
      const store = await storeOf();
      await store.remove(spec);
      await refresh();
    },
  };
}

// A download's state as its views see it, and the one way it changes: emit(patch). Progress
// states are throttled (at most one per `progressEveryMs`; phase changes always go out), and a
// listener's error never stops the download. Pure; used by download.js and download-file.js.
import { progressNumbers, speedMeter } from './progress.js';

/** The state before start(): the fields a view may read, all empty. */
export const initialState = (spec) => ({
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
});

/** `files` with the row of `name` patched (added, bytes 0, when it is new). */
export function fileRow(files, name, patch) {
  return files.some((f) => f.name === name)
    ? files.map((f) => (f.name === name ? { ...f, ...patch } : f))
    : [...files, { name, bytes: 0, total: null, done: false, ...patch }];
}

/**
 * The state holder: `state`, `subscribe(listener)`, `emit(patch, {progress})`, and the progress
 * of one file (`progressOf`) with the speed over the chunks reported by `chunk(bytes)`.
 */
export function createReporter({ spec, now, progressEveryMs }) {
  const listeners = new Set();
  const meter = speedMeter();
  let state = initialState(spec);
  let lastProgress = -Infinity;
  return {
    get state() {
      return state;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(patch, { progress = false } = {}) {
      state = { ...state, ...patch };
      if (progress) {
        const t = now();
        if (t - lastProgress < progressEveryMs) return;
        lastProgress = t;
      }
      for (const listener of listeners) {
        try {
          listener(state);
        } catch {
          // a view's error is its own; the download goes on
        }
      }
    },
    fileRow: (name, patch) => fileRow(state.files, name, patch),
    /** The fields of a progress state: `bytes` of `name` arrived, of `total`. */
    progressOf(name, bytes, total) {
      const bytesPerSecond = meter.rate();
      return {
        file: name,
        bytes,
        total,
        bytesPerSecond,
        ...progressNumbers({ bytes, total, bytesPerSecond }),
        files: fileRow(state.files, name, { bytes, total }),
      };
    },
    /** `bytes` more arrived now. */
    chunk(bytes) {
      meter.add(bytes, now());
    },
    /** A pause (a retry's wait) is not slowness. */
    pause() {
      meter.reset();
    },
  };
}

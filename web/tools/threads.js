// How many threads the workers' engines use. Learn's training worker and the real model's worker
// each load the threaded engine where the page is cross-origin isolated (engine.js,
// loadEngine({threads: 'auto'})); the reader's setting (the engineers' panel) reaches both, and
// each reports back what its engine runs on, which the Learn status line and the panel show.
// The setting is the reader's machine's, not the explorer's state: it stays out of the link.

/**
 * Where a host learns which headers give threads: the README's “Threads” section, named rather
 * than linked (the README travels in the package; a figure's files may be copied without it, and
 * the package has no published page yet).
 */
export const THREADS_HELP =
  'its host sends no COOP and COEP headers: the README’s “Threads” section says what a host needs';

/**
 * The request a worker answers (and the page's fallback the same way): sets `count` threads on
 * `engine` when given (at most engine.maxThreads: the setting is one for every worker), then says
 * what the engine runs on: {threads, maxThreads, singleThreadReason}.
 */
export function applyThreads(engine, count = null) {
  if (count !== null && count !== undefined) engine.threads = Math.min(count, engine.maxThreads);
  return { threads: engine.threads, maxThreads: engine.maxThreads, singleThreadReason: engine.singleThreadReason };
}

/**
 * What the page expects its workers to get, before any has said: the cores (at most `cap`) where
 * the page is cross-origin isolated, else 1. {maxThreads, isolated}
 */
export function expectedThreads(win, cap = 8) {
  const isolated = Boolean(win.crossOriginIsolated);
  const cores = win.navigator?.hardwareConcurrency || 1;
  return { maxThreads: isolated ? Math.max(1, Math.min(cores, cap)) : 1, isolated };
}

/** The explorer's thread setting (made on first use), shared by the views and the workers' hosts. */
export function threadSettingOf(app) {
  return app.shared('threads', createThreadSetting);
}

function createThreadSetting() {
  let chosen = null; // the reader's count; null: each engine's default (its maxThreads)
  const reports = new Map(); // who ('learn', 'model') → {threads, maxThreads, singleThreadReason}
  const listeners = new Set();
  const notify = (kind) => listeners.forEach((f) => f(kind));
  return {
    /** The reader's count, or null for the default. */
    get chosen() {
      return chosen;
    },
    choose(count) {
      chosen = count;
      notify('chosen');
    },
    /** What `who`'s engine reported last (a worker, or the page's fallback). */
    report(who, info) {
      reports.set(who, info);
      notify('report');
    },
    get reports() {
      return new Map(reports);
    },
    /** Calls fn('chosen' | 'report') on every change; returns the function that stops it. */
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

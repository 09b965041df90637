// Training without freezing the page. A trainer runs one session (lib/learn/session.js) in a Web
// Worker (learn-worker.js) where one can start, and on the page itself in short time slices
// otherwise — inside the element under a CSP that forbids workers, from file://, or when the
// worker fails to load. Both run the same requests (sessionRequests below), so a run gives the
// same numbers either way; the page sees one asynchronous interface:
//
//   start(spec, checkpoint?) → report      play(untilStep) / pause() / step(n)
//   watch({evalEvery, stepsPerSecond})     how often it evaluates; slow motion
//   generate(prompt, n, options)           checkpoint() → safetensors bytes      dispose()
//   threads(count) → {threads, maxThreads, singleThreadReason}   (tools/threads.js)
//
// and is told of progress through callbacks: onProgress({losses, steps, stepsPerSecond}) after
// each slice, onReport(report) two or three times a second (held-out loss, attention of the example,
// the bank probe), onStop({reason, message}) when a run ends (reached, paused, diverged, failed).
import { createSession } from '../lib/learn/session.js';
import { applyThreads } from './threads.js';

/**
 * The requests a training thread answers, over an engine (or a promise of one). Used by the
 * worker and, on the page, by the time-sliced fallback.
 */
export function sessionRequests(enginePromise) {
  let session = null;
  const ops = {
    async start(spec, checkpoint) {
      const engine = await enginePromise;
      if (typeof engine.createModel !== 'function')
        throw new Error('this engine has no model (createModel); the Learn section needs the whole engine');
      const next = createSession(engine, spec, checkpoint || null);
      session?.dispose();
      session = next;
      return session.report();
    },
    train(count, budgetMs) {
      return need().train(count, budgetMs);
    },
    report() {
      return need().report();
    },
    attention(tokens) {
      return need().attention(tokens);
    },
    generate(prompt, count, options) {
      return need().generate(prompt, count, options);
    },
    checkpoint() {
      return need().checkpoint();
    },
    /** The engine's threads after the reader's setting `count` (tools/threads.js). */
    async threads(count) {
      return applyThreads(await enginePromise, count);
    },
    dispose() {
      session?.dispose();
      session = null;
    },
  };
  function need() {
    if (!session) throw new Error('no model yet: start a run first');
    return session;
  }
  return {
    async handle(op, args) {
      if (!Object.prototype.hasOwnProperty.call(ops, op)) throw new Error(`unknown request "${op}"`);
      return ops[op](...args);
    },
  };
}

// A worker backend: requests become messages. `failed` resolves when the worker cannot run (a
// load error, a CSP refusal), so the trainer can fall back to the page.
function workerBackend(worker) {
  let next = 1;
  const pending = new Map();
  let failedReason = null;
  let onFailed = () => {};
  const fail = (reason) => {
    if (failedReason) return;
    failedReason = reason;
    for (const { reject } of pending.values()) reject(Object.assign(new Error(reason), { workerFailed: true }));
    pending.clear();
    onFailed(reason);
  };
  worker.onmessage = (event) => {
    const { id, result, error } = event.data || {};
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (error) p.reject(Object.assign(new Error(error.message), { name: error.name }));
    else p.resolve(result);
  };
  worker.onerror = (event) => {
    event.preventDefault?.();
    fail(`the training worker failed to run (${event.message || 'it could not be loaded'})`);
  };
  worker.onmessageerror = () => fail('the training worker sent a message that could not be read');
  return {
    mode: 'worker',
    sliceMs: 50,
    call(op, ...args) {
      if (failedReason) return Promise.reject(Object.assign(new Error(failedReason), { workerFailed: true }));
      return new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, op, args });
      });
    },
    set onFailed(fn) {
      onFailed = fn;
    },
    dispose() {
      worker.terminate();
    },
  };
}

// The page backend: the same requests, run here; the trainer yields between slices.
function pageBackend(engine) {
  const requests = sessionRequests(engine);
  return {
    mode: 'page',
    sliceMs: 10,
    call: (op, ...args) => requests.handle(op, args),
    set onFailed(fn) {},
    dispose() {
      requests.handle('dispose', []).catch(() => {});
    },
  };
}

/** Lets the page handle input and paint between slices (a macrotask, not a microtask). */
function yieldToPage(win) {
  return new Promise((resolve) => {
    if (win.MessageChannel) {
      const channel = new win.MessageChannel();
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(null);
    } else win.setTimeout(resolve, 0);
  });
}

/**
 * @param {{engine: () => Promise<object>, makeWorker?: () => Worker|null, win?: Window,
 *          onProgress?, onReport?, onStop?, reportEveryMs?: number}} options
 *   engine: the engine with a model (createModel), loaded when the page backend is needed.
 *   makeWorker: a new training worker, or null / a throw where none can start.
 */
export function createTrainer(options) {
  const win = options.win || globalThis;
  const now = () => win.performance?.now() ?? Date.now();
  const reportEveryMs = options.reportEveryMs ?? 400;
  let backend = null;
  let spec = null;
  let checkpointBytes = null;
  let running = false;
  let target = Infinity;
  let steps = 0;
  let loop = null;
  let disposed = false;

  function useWorker() {
    let worker = null;
    try {
      worker = options.makeWorker?.() || null;
    } catch {
      worker = null; // e.g. a CSP that forbids workers: train on the page
    }
    return worker ? workerBackend(worker) : null;
  }

  // Runs a request, moving to the page when the worker turns out not to work.
  async function call(op, ...args) {
    try {
      return await backend.call(op, ...args);
    } catch (err) {
      if (!err.workerFailed || disposed) throw err;
      backend.dispose();
      backend = pageBackend(options.engine());
      await backend.call('start', spec, checkpointBytes);
      if (steps > 0) await backend.call('train', steps, Infinity); // the same batches: the same weights
      return backend.call(op, ...args);
    }
  }

  // How a run is watched: a held-out evaluation (a report) every `evalEvery` steps (else every
  // reportEveryMs), and a speed in steps per second (Infinity: as fast as it goes; a finite one
  // trains one step at a time with a report after each, for slow motion).
  let evalEvery = 0;
  let speed = Infinity;
  const sleep = (ms) => new Promise((resolve) => win.setTimeout(resolve, ms));

  async function run() {
    let lastReport = now();
    let windowStart = now();
    let windowSteps = 0;
    while (running && !disposed && steps < target) {
      const slow = Number.isFinite(speed);
      const toEval = evalEvery ? evalEvery - (steps % evalEvery) : Infinity;
      const count = slow ? 1 : Math.min(target - steps, toEval, 10000);
      let losses;
      try {
        losses = await call('train', count, slow ? Infinity : backend.sliceMs);
      } catch (err) {
        running = false;
        options.onStop?.({ reason: 'diverged', message: err.message });
        // A diverging step may also undo the update before it: take the model's own count.
        const r = await report();
        if (r) steps = r.step;
        return;
      }
      if (disposed) return;
      if (losses.length) steps = losses[losses.length - 1].step;
      windowSteps += losses.length;
      const t = now();
      const stepsPerSecond = t > windowStart ? (windowSteps * 1000) / (t - windowStart) : 0;
      if (t - windowStart > 2000) {
        windowStart = t;
        windowSteps = 0;
      }
      options.onProgress?.({ losses, steps, stepsPerSecond, mode: backend.mode });
      const due = slow || steps >= target || (evalEvery ? steps % evalEvery === 0 : t - lastReport >= reportEveryMs);
      if (due) {
        lastReport = t;
        await report();
      }
      if (slow) await sleep(Math.max(0, 1000 / speed - (now() - t)));
      else if (backend.mode === 'page') await yieldToPage(win);
    }
    if (!disposed) {
      const reached = steps >= target;
      running = false;
      options.onStop?.({ reason: reached ? 'reached' : 'paused' });
    }
  }

  async function report() {
    try {
      const r = await call('report');
      if (!disposed) options.onReport?.(r);
      return r;
    } catch (err) {
      options.onStop?.({ reason: 'failed', message: err.message });
      return null;
    }
  }

  return {
    get mode() {
      return backend?.mode ?? null;
    },
    get running() {
      return running;
    },
    get steps() {
      return steps;
    },
    /** A new run (disposing the last): a fresh model from spec, or from checkpoint bytes. */
    async start(nextSpec, checkpoint = null) {
      this.pause();
      await loop;
      spec = nextSpec;
      checkpointBytes = checkpoint;
      steps = 0;
      backend ||= useWorker() || pageBackend(options.engine());
      const r = await call('start', spec, checkpoint);
      options.onReport?.(r);
      return r;
    },
    /** Trains until step `untilStep` (or forever) or pause(). */
    play(untilStep = Infinity) {
      if (running || !spec) return loop;
      target = untilStep;
      running = true;
      loop = run();
      return loop;
    },
    /**
     * How the run is watched (takes effect at once, also while running): evalEvery — a held-out
     * evaluation every that many steps (0: a few times a second); stepsPerSecond — Infinity for
     * full speed, or a slow-motion rate (one step at a time, each reported).
     */
    watch({ evalEvery: every = evalEvery, stepsPerSecond = speed } = {}) {
      if (!(Number.isInteger(every) && every >= 0))
        throw new RangeError(`evalEvery: expected a whole number ≥ 0, got ${every}`);
      if (!(stepsPerSecond > 0)) throw new RangeError(`stepsPerSecond: expected a number > 0, got ${stepsPerSecond}`);
      evalEvery = every;
      speed = stepsPerSecond;
    },
    pause() {
      running = false;
      return loop;
    },
    /** Trains exactly `count` more steps (paused runs only), then reports. */
    async step(count = 1) {
      if (running) return null;
      target = steps + count;
      running = true;
      loop = run();
      await loop;
      return steps;
    },
    report,
    attention: (tokens) => call('attention', tokens),
    generate: (prompt, count, opts) => call('generate', prompt, count, opts),
    checkpoint: () => call('checkpoint'),
    /** Sets `count` threads (null: keep) where the run trains; {threads, maxThreads, singleThreadReason}. */
    threads: (count = null) => call('threads', count),
    dispose() {
      disposed = true;
      running = false;
      backend?.dispose();
      backend = null;
    },
  };
}

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
import { workerBackend } from './worker-backend.js';

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

// The page backend: the same requests, run here; the trainer yields between slices.
function pageBackend(engine) {
  const requests = sessionRequests(engine);
  return {
    mode: 'page',
    sliceMs: 10,
    call: (op, ...args) => requests.handle(op, args),
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
 * @returns {Trainer}
 */
export function createTrainer(options) {
  return new Trainer(options);
}

class Trainer {
  #options;
  #win;
  #backend = null;
  #spec = null;
  #checkpointBytes = null;
  #running = false;
  #target = Infinity;
  #steps = 0;
  #loop = null;
  #disposed = false;
  // How a run is watched: a held-out evaluation (a report) every `evalEvery` steps (else every
  // reportEveryMs), and a speed in steps per second (Infinity: as fast as it goes; a finite one
  // is paced: ticks of one step — or of speed/10 steps above 10 steps/s — each followed by a
  // report, so slow motion shows every step and a quicker pace still shows ten pictures a second).
  #evalEvery = 0;
  #speed = Infinity;

  constructor(options) {
    this.#options = options;
    this.#win = options.win || globalThis;
  }

  get mode() {
    return this.#backend?.mode ?? null;
  }
  get running() {
    return this.#running;
  }
  get steps() {
    return this.#steps;
  }

  /** A new run (disposing the last): a fresh model from spec, or from checkpoint bytes. */
  async start(nextSpec, checkpoint = null) {
    this.pause();
    await this.#loop;
    this.#spec = nextSpec;
    this.#checkpointBytes = checkpoint;
    this.#steps = 0;
    this.#backend ||= this.#useWorker() || pageBackend(this.#options.engine());
    const r = await this.#call('start', this.#spec, checkpoint);
    this.#options.onReport?.(r);
    return r;
  }

  /** Trains until step `untilStep` (or forever) or pause(). */
  play(untilStep = Infinity) {
    if (this.#running || !this.#spec) return this.#loop;
    this.#target = untilStep;
    this.#running = true;
    this.#loop = this.#run();
    return this.#loop;
  }

  /**
   * How the run is watched (takes effect at once, also while running): evalEvery — a held-out
   * evaluation every that many steps (0: a few times a second); stepsPerSecond — Infinity for
   * full speed, or a pace (ticks of max(1, round(stepsPerSecond / 10)) steps, each reported).
   */
  watch({ evalEvery = this.#evalEvery, stepsPerSecond = this.#speed } = {}) {
    if (!(Number.isInteger(evalEvery) && evalEvery >= 0))
      throw new RangeError(`evalEvery: expected a whole number ≥ 0, got ${evalEvery}`);
    if (!(stepsPerSecond > 0)) throw new RangeError(`stepsPerSecond: expected a number > 0, got ${stepsPerSecond}`);
    this.#evalEvery = evalEvery;
    this.#speed = stepsPerSecond;
  }

  pause() {
    this.#running = false;
    return this.#loop;
  }

  /** Trains exactly `count` more steps (paused runs only), then reports. */
  async step(count = 1) {
    if (this.#running) return null;
    this.#target = this.#steps + count;
    this.#running = true;
    this.#loop = this.#run();
    await this.#loop;
    return this.#steps;
  }

  async report() {
    try {
      const r = await this.#call('report');
      if (!this.#disposed) this.#options.onReport?.(r);
      return r;
    } catch (err) {
      this.#options.onStop?.({ reason: 'failed', message: err.message });
      return null;
    }
  }

  attention(tokens) {
    return this.#call('attention', tokens);
  }
  generate(prompt, count, opts) {
    return this.#call('generate', prompt, count, opts);
  }
  checkpoint() {
    return this.#call('checkpoint');
  }
  /** Sets `count` threads (null: keep) where the run trains; {threads, maxThreads, singleThreadReason}. */
  threads(count = null) {
    return this.#call('threads', count);
  }

  dispose() {
    this.#disposed = true;
    this.#running = false;
    this.#backend?.dispose();
    this.#backend = null;
  }

  #now() {
    return this.#win.performance?.now() ?? Date.now();
  }

  #useWorker() {
    let worker = null;
    try {
      worker = this.#options.makeWorker?.() || null;
    } catch {
      worker = null; // e.g. a CSP that forbids workers: train on the page
    }
    return worker ? { ...workerBackend(worker, 'the training worker'), sliceMs: 50 } : null;
  }

  // Runs a request, moving to the page when the worker turns out not to work.
  async #call(op, ...args) {
    try {
      return await this.#backend.call(op, ...args);
    } catch (err) {
      if (!err.workerFailed || this.#disposed) throw err;
      this.#backend.dispose();
      this.#backend = pageBackend(this.#options.engine());
      await this.#backend.call('start', this.#spec, this.#checkpointBytes);
      if (this.#steps > 0) await this.#backend.call('train', this.#steps, Infinity); // the same batches: the same weights
      return this.#backend.call(op, ...args);
    }
  }

  async #run() {
    const { onProgress, onStop } = this.#options;
    const reportEveryMs = this.#options.reportEveryMs ?? 400;
    let lastReport = this.#now();
    let windowStart = this.#now();
    let windowSteps = 0;
    while (this.#running && !this.#disposed && this.#steps < this.#target) {
      const slow = Number.isFinite(this.#speed);
      const evalEvery = this.#evalEvery;
      const toEval = evalEvery ? evalEvery - (this.#steps % evalEvery) : Infinity;
      const count = Math.min(
        this.#target - this.#steps,
        slow ? Math.max(1, Math.round(this.#speed / 10)) : Math.min(toEval, 10000),
      );
      const tick = this.#now();
      let losses;
      try {
        losses = await this.#call('train', count, slow ? Infinity : this.#backend.sliceMs);
      } catch (err) {
        this.#running = false;
        onStop?.({ reason: 'diverged', message: err.message });
        // A diverging step may also undo the update before it: take the model's own count.
        const r = await this.report();
        if (r) this.#steps = r.step;
        return;
      }
      if (this.#disposed) return;
      if (losses.length) this.#steps = losses[losses.length - 1].step;
      windowSteps += losses.length;
      const t = this.#now();
      const stepsPerSecond = t > windowStart ? (windowSteps * 1000) / (t - windowStart) : 0;
      if (t - windowStart > 2000) {
        windowStart = t;
        windowSteps = 0;
      }
      onProgress?.({ losses, steps: this.#steps, stepsPerSecond, mode: this.#backend.mode });
      const due =
        slow ||
        this.#steps >= this.#target ||
        (this.#evalEvery ? this.#steps % this.#evalEvery === 0 : t - lastReport >= reportEveryMs);
      if (due) {
        lastReport = t;
        await this.report();
      }
      if (slow) await sleep(this.#win, Math.max(0, (1000 * losses.length) / this.#speed - (this.#now() - tick)));
      else if (this.#backend.mode === 'page') await yieldToPage(this.#win);
    }
    if (!this.#disposed) {
      const reached = this.#steps >= this.#target;
      this.#running = false;
      onStop?.({ reason: reached ? 'reached' : 'paused' });
    }
  }
}

const sleep = (win, ms) => new Promise((resolve) => win.setTimeout(resolve, ms));

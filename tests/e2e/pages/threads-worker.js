// The worker of tests/e2e/pages/threads.html: the engine loaded as web/learn-worker.js loads it
// (threads: 'auto'), and the runs the test compares across thread counts and with Node.
import { loadEngine } from '/web/engine/engine.js';
import { defaultThreadsFiles } from '/web/engine/threads.js';
import { createSession } from '/web/lib/learn/session.js';
import { defaultLearn, sessionSpec } from '/web/lib/learn/learn-state.js';

// ?missing=worker: the threaded build's pthread worker file is not served (its start must fail
// into the single-thread engine, quietly).
const missing = new URLSearchParams(self.location.search).get('missing');
const enginePromise = loadEngine({
  threads: 'auto',
  threadsFiles: { ...defaultThreadsFiles(), ...(missing ? { [missing]: '/web/engine/missing.worker.js' } : {}) },
});

const ops = {
  info(engine) {
    return { threads: engine.threads, maxThreads: engine.maxThreads, singleThreadReason: engine.singleThreadReason };
  },
  setThreads(engine, count) {
    try {
      engine.threads = count;
      return { threads: engine.threads };
    } catch (error) {
      return { error: { name: error.name, argument: error.argument, message: error.message } };
    }
  },
  /** `steps` training steps of the Learn section's default task on `threads` threads: the losses. */
  train(engine, task, steps, threads) {
    engine.threads = threads;
    const session = createSession(engine, sessionSpec(defaultLearn(task)));
    try {
      const losses = session.train(steps).map((s) => s.loss);
      return { losses, evaluation: session.evaluate(), threads: engine.threads };
    } finally {
      session.dispose();
    }
  },
  /**
   * The trace of `tokens` through the safetensors model at `url` on `threads` threads: the
   * SHA-256 of each tensor's bytes (the logits of every position, the residual stream, every
   * layer's weights), to compare bit for bit without moving megabytes.
   */
  async trace(engine, url, tokens, threads) {
    engine.threads = threads;
    const model = await engine.openModel(url);
    try {
      const trace = model.trace(tokens, { residual: true, logits: 'all' });
      const digest = async (t) =>
        Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', t.data)), (b) =>
          b.toString(16).padStart(2, '0'),
        ).join('');
      return {
        threads: engine.threads,
        logits: await digest(trace.logits),
        residual: await digest(trace.residual),
        weights: await Promise.all(trace.attention.map((a) => digest(a.weights))),
      };
    } finally {
      model.dispose();
    }
  },
};

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    const engine = await enginePromise;
    self.postMessage({ id, result: await ops[op](engine, ...args) });
  } catch (error) {
    self.postMessage({ id, error: String(error?.stack || error) });
  }
};

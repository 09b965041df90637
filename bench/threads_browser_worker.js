// The worker of bench/threads_browser.mjs: the engine as the Learn and model workers load it
// (threads: 'auto', the threaded build on a cross-origin isolated page) beside the single-thread
// build, and each workload timed on the single-thread build, the threaded build on 1 thread and
// on `threads` threads, in interleaved rounds (the order rotates, so load from other jobs hits
// all three alike). Answers {id, result} or {id, error} to {id, options}.
import { loadEngine } from '../web/engine/engine.js';
import { mulberry32 } from '../web/lib/learn/random.js';

// The workloads of bench/native_threads.cpp (legend: B batch, T tokens, L layers, H heads,
// C width, V vocabulary), each made once per engine; run() is what is timed.
const WORKLOADS = {
  'char-step': {
    what: 'training step, char model (V 65, L 2, H 4, C 64), B 16 × T 64',
    make(engine) {
      const model = engine.createModel({ vocabSize: 65, contextLength: 64, layers: 2, heads: 4, width: 64, seed: 0 });
      const batch = randomBatch(65, 16, 64, 7);
      return { run: () => model.step(batch), dispose: () => model.dispose() };
    },
  },
  'gpt2-forward': {
    what: 'forward, GPT-2-small shapes (V 50257, H 12, C 768), 4 layers, 64 tokens (logits of every position)',
    quick: 'forward, GPT-2-small shapes (V 50257, H 12, C 768), 1 layer, 64 tokens (logits of every position)',
    make(engine, quick) {
      const config = { vocabSize: 50257, contextLength: 64, heads: 12, width: 768, gelu: 'tanh', seed: 0 };
      const model = engine.createModel({ ...config, layers: quick ? 1 : 4 });
      const tokens = Array.from(randomBatch(50257, 1, 64, 8).tokens);
      return { run: () => model.logits(tokens), dispose: () => model.dispose() };
    },
  },
  attention: {
    what: 'causal attention forward, tiled kernel, T 1024, H 8, hs 64 (engine.attend, q = k = v = x)',
    quick: 'causal attention forward, tiled kernel, T 128, H 8, hs 64 (engine.attend, q = k = v = x)',
    make(engine, quick) {
      const T = quick ? 128 : 1024;
      const x = { shape: [T, 512], data: uniform(T * 512, 9) };
      const args = { x, heads: 8, causal: true, kernel: 'tiled', materialize: false };
      return { run: () => engine.attend(args), dispose: () => {} };
    },
  },
};

// Attention over 8 heads of 64 tokens: above the core's 10⁶-flop threshold, so it wakes the pool.
const POOL_WARMUP = { x: { shape: [64, 512], data: new Float32Array(64 * 512).fill(0.5) }, heads: 8, causal: true };

// B sequences of T random ids (and targets) below V, from a small generator seeded with `seed`.
function randomBatch(V, B, T, seed) {
  const next = generator(seed);
  const tokens = Int32Array.from({ length: B * T }, () => Math.floor(next() * V));
  const targets = Int32Array.from({ length: B * T }, () => Math.floor(next() * V));
  return { tokens, targets, batch: B, context: T };
}
const uniform = (n, seed) => {
  const next = generator(seed);
  return Float32Array.from({ length: n }, () => next() * 2 - 1);
};
const generator = mulberry32;

const quantile = (xs, p) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
};
const summary = (xs) => ({ median: quantile(xs, 0.5), p10: quantile(xs, 0.1), p90: quantile(xs, 0.9) });

/**
 * options: {rounds, threads, quick, workloads: names}. Returns {threaded: {maxThreads,
 * singleThreadReason}, workloads: [{name, what, single, one, many, speedup, overhead}]}:
 * single/one/many are wall times (ms) of the single-thread build and the threaded build on 1 and
 * `threads` threads; speedup = one / many, overhead = one / single (paired per round).
 */
async function run({ rounds = 10, threads = 2, quick = false, workloads = Object.keys(WORKLOADS) }) {
  const [single, threaded] = await Promise.all([loadEngine(), loadEngine({ threads: 'auto' })]);
  if (threaded.maxThreads < threads)
    throw new Error(
      `the threaded engine offers ${threaded.maxThreads} thread(s), not ${threads}: ${threaded.singleThreadReason ?? 'fewer cores'}`,
    );
  const out = [];
  for (const name of workloads) {
    const w = WORKLOADS[name];
    const onSingle = w.make(single, quick);
    const onThreaded = w.make(threaded, quick);
    // Each variant's setup is outside its timing: the thread count, and after a change to more
    // than one thread a small parallel call that starts the pool's threads again.
    const variants = {
      single: { setup() {}, run: onSingle.run },
      one: { setup: () => (threaded.threads = 1), run: onThreaded.run },
      many: {
        setup() {
          threaded.threads = threads;
          threaded.attend(POOL_WARMUP);
        },
        run: onThreaded.run,
      },
    };
    const order = Object.keys(variants);
    const times = { single: [], one: [], many: [] };
    for (let warm = 0; warm < 2; warm++) for (const v of order) (variants[v].setup(), variants[v].run());
    for (let r = 0; r < rounds; r++) {
      for (const v of order.slice(r % 3).concat(order.slice(0, r % 3))) {
        variants[v].setup();
        const t0 = performance.now();
        variants[v].run();
        times[v].push(performance.now() - t0);
      }
    }
    onSingle.dispose();
    onThreaded.dispose();
    out.push({
      name,
      what: (quick && w.quick) || w.what,
      single: summary(times.single),
      one: summary(times.one),
      many: summary(times.many),
      speedup: summary(times.one.map((t, i) => t / times.many[i])),
      overhead: summary(times.one.map((t, i) => t / times.single[i])),
    });
  }
  threaded.threads = threaded.maxThreads;
  return {
    threaded: { maxThreads: threaded.maxThreads, singleThreadReason: threaded.singleThreadReason },
    workloads: out,
  };
}

self.onmessage = async ({ data: { id, options } }) => {
  try {
    self.postMessage({ id, result: await run(options) });
  } catch (error) {
    self.postMessage({ id, error: String(error?.stack || error) });
  }
};

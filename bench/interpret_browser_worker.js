// The worker of bench/interpret_browser.mjs: the threaded engine as the model worker loads it
// (threads: 'auto' on a cross-origin isolated page), and the interpretability tools timed on
// 1 and on `threads` threads in interleaved rounds. Answers {id, result} or {id, error}.
import { loadEngine } from '../web/engine/engine.js';
import { mulberry32 } from '../web/lib/learn/random.js';

// Legend: L layers, H heads, C width, V vocabulary, T tokens. Each model is made once (random
// weights: the same shapes, the same work); every case reads the prediction at the last position.
const MODELS = {
  gpt2: {
    what: 'GPT-2 small shapes (V 50257, L 12, H 12, C 768, tanh GELU), random weights',
    quick: 'GPT-2 small shapes but 2 layers (V 50257, L 2, H 12, C 768), random weights',
    make: (engine, quick) =>
      engine.createModel({
        vocabSize: 50257,
        contextLength: 64,
        layers: quick ? 2 : 12,
        heads: 12,
        width: 768,
        gelu: 'tanh',
        seed: 0,
      }),
  },
  shipped: {
    what: 'the shipped model, brown-wordnet (V 4096, L 4, H 4, C 128)',
    make: async (engine) =>
      engine.loadModel(new Uint8Array(await (await fetch('/web/models/brown-wordnet.safetensors')).arrayBuffer())),
  },
};
const CASES = [
  [
    'sweep, one block (layer 0: its heads × every block)',
    (m, ids, L) => m.ablationSweep(ids, { token: 5, layers: [0] }),
  ],
  ['sweep, the whole picture (one call)', (m, ids) => m.ablationSweep(ids, { token: 5 })],
  [
    'sweep, block by block (L calls, as the page fills it)',
    (m, ids, L) => {
      for (let l = 0; l < L; l++) m.ablationSweep(ids, { token: 5, layers: [l] });
    },
  ],
  ['knock out one head (ablate)', (m, ids) => m.ablate(ids, { layer: 0, head: 0 })],
  ['direct logit attribution', (m, ids) => m.attribute(ids, { token: 5 })],
  ['logit lens, every position, k 5', (m, ids) => m.logitLens(ids, { k: 5 })],
  ['logit lens, one position, k 5', (m, ids, L, T) => m.logitLens(ids, { k: 5, positions: [T - 1] })],
];

const quantile = (xs, p) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
};
const summary = (xs) => ({ median: quantile(xs, 0.5), min: Math.min(...xs), max: Math.max(...xs) });

async function run({ rounds = 3, threads = 2, quick = false, T = 16 }) {
  const engine = await loadEngine({ threads: 'auto' });
  const counts = [...new Set([1, Math.min(threads, engine.maxThreads)])];
  const next = mulberry32(11);
  const ids = Int32Array.from({ length: T }, () => Math.floor(next() * 4096));
  const out = [];
  for (const [name, spec] of Object.entries(MODELS)) {
    const model = await spec.make(engine, quick);
    const L = model.config.layers;
    for (const [what, fn] of CASES) {
      if (name === 'gpt2' && !quick && what.startsWith('sweep, the whole')) continue; // the block-by-block run measures it
      const times = Object.fromEntries(counts.map((c) => [c, []]));
      for (let r = 0; r < rounds; r++)
        for (const c of r % 2 ? counts.slice().reverse() : counts) {
          engine.threads = c;
          const t0 = performance.now();
          fn(model, ids, L, T);
          times[c].push(performance.now() - t0);
        }
      out.push({
        model: name,
        what: (quick && spec.quick) || spec.what,
        case: what,
        times: Object.fromEntries(counts.map((c) => [c, summary(times[c])])),
      });
    }
    model.dispose();
  }
  return { maxThreads: engine.maxThreads, singleThreadReason: engine.singleThreadReason, counts, T, results: out };
}

self.onmessage = async ({ data: { id, options } }) => {
  try {
    self.postMessage({ id, result: await run(options) });
  } catch (error) {
    self.postMessage({ id, error: String(error?.stack || error) });
  }
};

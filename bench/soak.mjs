// Soak (issue 22): 10,000 training steps and 1,000 forwards of the shipped model in Node, with
// the WASM memory and the JS heap sampled throughout; outside npm test (tests/js/engine/soak.test.mjs is
// the short version there). Writes bench/results/soak.json.
//
//   node bench/soak.mjs [--steps 10000] [--forwards 1000] [--out bench/results/soak.json]
//
// Training: the char model of the issue (vocab 65, context 64, 2 layers, 4 heads, width 64) on
// seeded random batches of 4 × 64, AdamW with clipping, a loss evaluation every 100 steps and a
// model created and disposed every 1,000 (so a leak per model shows too). Real model:
// web/models/brown-wordnet.safetensors through engine.openModel (read in 64 KiB slices, as the
// page reads a URL), then model.trace of sentences of 4 to 128 tokens (every layer's q, k, v,
// scores, weights, the residual stream and the last logits), with the model reopened every 250.
//
// WASM memory (engine.heapBytes(): linear memory, which grows and never shrinks) must not grow
// after the warm-up (the first 10 % of each phase); the JS heap (process.memoryUsage().heapUsed
// after a full GC; the script runs itself with --expose-gc) must end within 8 MiB of where it
// was after the warm-up. Prints both and exits 1 when either is not flat.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../web/lib/learn/random.js';
import { cliOption } from './report.mjs';

if (typeof globalThis.gc !== 'function') {
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const { loadEngine } = await import('../web/engine/engine.js');
const { fromTokenizerJson } = await import('../web/lib/tokenizer/index.js');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = Number(cliOption('steps', 10000));
const FORWARDS = Number(cliOption('forwards', 1000));
const OUT = cliOption('out', join(root, 'bench/results/soak.json'));
const JS_TOLERANCE = 8 * 1024 * 1024;

const random = mulberry32;
const MiB = (b) => Math.round((b / 1048576) * 100) / 100;

const engine = await loadEngine();
function sample(phase, index) {
  globalThis.gc();
  return {
    phase,
    index,
    wasmBytes: engine.heapBytes(),
    jsHeapUsed: process.memoryUsage().heapUsed,
    ms: performance.now(),
  };
}

// The verdict of a phase's samples: WASM growth and JS drift after the warm-up sample.
function verdict(samples, warmIndex) {
  const warm = samples.find((s) => s.index >= warmIndex) ?? samples[0];
  const end = samples[samples.length - 1];
  const wasmGrowth = end.wasmBytes - warm.wasmBytes;
  const jsDrift = end.jsHeapUsed - warm.jsHeapUsed;
  const jsMax = Math.max(...samples.filter((s) => s.index >= warm.index).map((s) => s.jsHeapUsed)) - warm.jsHeapUsed;
  return {
    warmAt: warm.index,
    wasmAtStart: samples[0].wasmBytes,
    wasmAfterWarmup: warm.wasmBytes,
    wasmAtEnd: end.wasmBytes,
    wasmGrowthAfterWarmup: wasmGrowth,
    jsHeapAfterWarmup: warm.jsHeapUsed,
    jsHeapAtEnd: end.jsHeapUsed,
    jsHeapDriftAfterWarmup: jsDrift,
    jsHeapLargestAboveWarmup: jsMax,
    flat: wasmGrowth === 0 && Math.abs(jsDrift) <= JS_TOLERANCE,
  };
}

// ---- 10,000 training steps
const config = { vocabSize: 65, contextLength: 64, layers: 2, heads: 4, width: 64, seed: 1 };
const B = 4,
  T = 64;
const rand = random(22);
const batch = () => {
  const tokens = Int32Array.from({ length: B * T }, () => Math.floor(rand() * 65));
  // next-character targets of a fixed rule, so the loss can fall
  const targets = tokens.map((t) => (t * 7 + 3) % 65);
  return { tokens, targets, batch: B, context: T };
};
const train = [sample('train', 0)];
const t0 = performance.now();
let model = engine.createModel(config);
let firstLoss, lastLoss, evalLoss;
for (let s = 1; s <= STEPS; s++) {
  const r = model.step(batch(), { lr: 3e-3, clip: 1, seed: s });
  if (s === 1) firstLoss = r.loss;
  lastLoss = r.loss;
  if (s % 100 === 0) evalLoss = model.evaluate(batch()).loss;
  if (s % 1000 === 0 && s < STEPS) {
    model.dispose();
    model = engine.createModel({ ...config, seed: s });
  }
  if (s % 250 === 0) train.push(sample('train', s));
}
model.dispose();
train.push(sample('train', STEPS + 1));
const trainSeconds = (performance.now() - t0) / 1000;

// ---- 1,000 forwards of the shipped model
const file = readFileSync(join(root, 'web/models/brown-wordnet.safetensors'));
const tokenizer = fromTokenizerJson(readFileSync(join(root, 'web/models/brown-wordnet.tokenizer.json')), {
  file: 'brown-wordnet.tokenizer.json',
});
const words =
  'the river bank was steep and the bank by the river lent money to a man who sat on the bank of a stream'.split(' ');
const sentence = (r) => {
  const n = 3 + Math.floor(r() * 60);
  return Array.from({ length: n }, () => words[Math.floor(r() * words.length)]).join(' ');
};
const forwardRand = random(7);
const open = () => engine.openModel(file, { sliceBytes: 65536 });
const forwards = [sample('forward', 0)];
const t1 = performance.now();
let real = await open();
let tokensTraced = 0;
for (let f = 1; f <= FORWARDS; f++) {
  const ids = tokenizer.encode(sentence(forwardRand)).slice(0, 128);
  const trace = real.trace(ids);
  tokensTraced += ids.length;
  if (!trace || !trace.logits) throw new Error(`forward ${f}: no logits`);
  if (f % 250 === 0 && f < FORWARDS) {
    real.dispose();
    real = await open();
  }
  if (f % 25 === 0) forwards.push(sample('forward', f));
}
real.dispose();
forwards.push(sample('forward', FORWARDS + 1));
const forwardSeconds = (performance.now() - t1) / 1000;

const trainVerdict = verdict(train, Math.floor(STEPS / 10));
const forwardVerdict = verdict(forwards, Math.floor(FORWARDS / 10));
const result = {
  what: 'bench/soak.mjs: training steps and real-model forwards in Node, WASM memory and JS heap sampled',
  date: new Date().toISOString(),
  node: process.version,
  engine: engine.version ?? null,
  training: {
    steps: STEPS,
    config,
    batch: [B, T],
    seconds: Math.round(trainSeconds * 10) / 10,
    firstLoss,
    lastLoss,
    lastEvaluateLoss: evalLoss,
    ...trainVerdict,
  },
  forwards: {
    count: FORWARDS,
    model: 'web/models/brown-wordnet.safetensors (openModel, 64 KiB slices)',
    tokensTraced,
    seconds: Math.round(forwardSeconds * 10) / 10,
    ...forwardVerdict,
  },
  samples: [...train, ...forwards].map((s) => ({ ...s, ms: Math.round(s.ms) })),
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify(result, null, 1) + '\n');
for (const [name, v] of [
  ['training', result.training],
  ['forwards', result.forwards],
]) {
  console.log(
    `soak ${name}: ${name === 'training' ? `${STEPS} steps` : `${FORWARDS} forwards`} in ${v.seconds} s; ` +
      `WASM ${MiB(v.wasmAtStart)} → ${MiB(v.wasmAfterWarmup)} MiB after warm-up → ${MiB(v.wasmAtEnd)} MiB at the end; ` +
      `JS heap ${MiB(v.jsHeapAfterWarmup)} → ${MiB(v.jsHeapAtEnd)} MiB (largest +${MiB(v.jsHeapLargestAboveWarmup)}); ` +
      (v.flat ? 'flat' : 'NOT FLAT'),
  );
}
console.log(`soak: results in ${OUT}`);
process.exitCode = trainVerdict.flat && forwardVerdict.flat ? 0 : 1;

// Trains a 2-layer attention-only transformer to reverse digits, in Node, with the WASM engine:
//
//   node examples/train-node.mjs            (after `npm run build`)
//   node examples/train-node.mjs model.safetensors   also saves the trained weights
//
// The task is web/lib/learn/tasks.js's "reverse": five digits, a bar, then the same digits
// backwards; the model reads the sequence and is scored only after the bar (targets −1 before it,
// as PyTorch's ignore_index), where the answer is determined by what came before. An installed
// package imports the same engine as 'attention-explorer/engine'.
import { writeFileSync } from 'node:fs';
import { loadEngine } from '../web/engine/engine.js';
import { mulberry32 } from '../web/lib/learn/random.js';

const DIGITS = 5,
  BAR = 10,
  T = 2 * DIGITS;

// A batch of `size` sequences as the engine takes it: tokens and targets (size × T), row-major.
function reverseBatch(random, size) {
  const tokens = new Int32Array(size * T),
    targets = new Int32Array(size * T);
  for (let b = 0; b < size; b++) {
    const digits = Array.from({ length: DIGITS }, () => Math.floor(random() * 10));
    const sequence = [...digits, BAR, ...digits.reverse()];
    for (let t = 0; t < T; t++) {
      tokens[b * T + t] = sequence[t];
      targets[b * T + t] = t >= DIGITS ? sequence[t + 1] : -1;
    }
  }
  return { tokens, targets, batch: size, context: T };
}

// mulberry32: a seeded generator, so every run draws the same batches.
const seeded = mulberry32;

const engine = await loadEngine();
// nanoGPT's GPT with its MLPs switched off; the weights are PyTorch's GPT(config) after torch.manual_seed(0).
const model = engine.createModel({
  vocabSize: 11,
  contextLength: T,
  layers: 2,
  heads: 2,
  width: 32,
  mlp: false,
  seed: 0,
});

const random = seeded(1);
const start = performance.now();
let loss = Infinity;
for (let step = 1; step <= 300 && loss > 0.005; step++) {
  // AdamW (nanoGPT's betas), gradients clipped at norm 1, 20 steps of warmup.
  ({ loss } = model.step(reverseBatch(random, 16), { lr: 1e-2, warmup: 20, weightDecay: 0 }));
  if (step % 25 === 0 || step === 1) console.log(`step ${String(step).padStart(3)}  loss ${loss.toFixed(4)}`);
}
const seconds = (performance.now() - start) / 1000;
console.log(`trained ${model.steps} steps in ${seconds.toFixed(2)} s; final loss ${loss.toFixed(4)}`);

// Sequences the model has never seen.
const held = model.evaluate(reverseBatch(seeded(2), 256));
console.log(`held-out loss ${held.loss.toFixed(4)}, accuracy ${(held.accuracy * 100).toFixed(1)} %`);

const prompt = [3, 1, 4, 1, 5, BAR];
console.log(`3 1 4 1 5 | → ${model.generate(prompt, DIGITS, { temperature: 0 }).join(' ')}`);

// What the last layer learned: after the bar, each position looks at the digit mirrored about it.
const [, last] = model.attention([...prompt, 5, 1, 4, 1]);
const weights = last.get('weights'); // (heads, T, T)
const row = 6; // the position after "| 5", which must answer 1: the digit at position 3
const strongest = weights.map((head) => head[row].indexOf(Math.max(...head[row])));
console.log(`layer 2, position ${row}: each head's strongest key is position ${strongest.join(' and ')}`);

if (process.argv[2]) {
  writeFileSync(process.argv[2], model.toSafetensors());
  console.log(`saved ${process.argv[2]} (safetensors; engine.loadModel or PyTorch's load_state_dict read it)`);
}
model.dispose();
process.exitCode = loss <= 0.01 && held.accuracy >= 0.99 ? 0 : 1;

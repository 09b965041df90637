// Generation per token, ours against onnxruntime-web, interleaved (a benchmark, not a test): on a
// shared machine whose load drifts from second to second, timing one engine's run and then the
// other's compares two different machines; here each round times one step of each, alternating
// which goes first, so both see the same load, and the ratio is of the sums. GPT-2 small's shapes
// (bench/gpt2_checkpoint.mjs), one thread each (Node's main thread: our threaded engine needs a
// worker), greedy, 16-token prompt; ours through model.session with weights 'f32' and 'f16',
// onnxruntime-web through the decoder-with-past graph (bench/onnx_gpt2.mjs).
//
//   node bench/gpt2_generate_interleaved.mjs [--rounds 24] [--results name]
//     appends to bench/results/gpt2-generate-node-<date>.md, or to bench/results/<name>-<date>.md
import { appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadEngine } from '../web/engine/engine.js';
import { GPT2_SMALL, ensureCheckpoint, readF32Tensors } from './gpt2_checkpoint.mjs';
import { gpt2DecoderWithPast } from './onnx_gpt2.mjs';
import { greedyDecoder } from './onnx_greedy.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const ROUNDS = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 24;
const RESULTS = argv.includes('--results') ? argv[argv.indexOf('--results') + 1] : 'gpt2-generate-node';
const { vocabSize: V, layers: L, heads: H, width: C } = GPT2_SMALL;
const PROMPT = Array.from({ length: 16 }, (_, i) => (i * 7919 + 13) % V);
const file = ensureCheckpoint('f32');
const loadStart = os.loadavg()[0];

const tensors = readF32Tensors(file);
const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;
const onnx = await ort.InferenceSession.create(gpt2DecoderWithPast(tensors, { V, C, H, L, eps: 1e-5 }).bytes, {
  executionProviders: ['wasm'],
  graphOptimizationLevel: 'all',
});
async function ortGenerator() {
  const step = greedyDecoder(ort, onnx, { L, H, C, V });
  let next;
  for (const token of PROMPT) next = await step(token);
  return { step, first: next };
}

const engine = await loadEngine();
const lines = [];
for (const weights of ['f32', 'f16']) {
  const model = await engine.openModel(await (await import('node:fs')).openAsBlob(file), { heads: H, weights });
  const session = model.session(PROMPT, { temperature: 0 });
  const o = await ortGenerator();
  let next = o.first;
  session.step();
  next = await o.step(next); // warm-ups
  let ours = 0,
    theirs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const runOurs = () => {
      const t = performance.now();
      session.step();
      ours += performance.now() - t;
    };
    const runTheirs = async () => {
      const t = performance.now();
      next = await o.step(next);
      theirs += performance.now() - t;
    };
    if (r % 2) {
      runOurs();
      await runTheirs();
    } else {
      await runTheirs();
      runOurs();
    }
  }
  session.dispose();
  model.dispose();
  const line =
    `| ${weights.toUpperCase()} | 1 | ${(ours / ROUNDS).toFixed(1)} | ${(theirs / ROUNDS).toFixed(1)} | ` +
    `${(theirs / ours).toFixed(2)}× |`;
  process.stderr.write(line + '\n');
  lines.push(line);
}
await onnx.release();
const date = new Date().toISOString().slice(0, 10);
const text = [
  '',
  `## Interleaved, Node ${process.versions.node} — ${date}`,
  '',
  `bench/gpt2_generate_interleaved.mjs: ${ROUNDS} rounds, each one step of ours and one of onnxruntime-web ` +
    `(alternating which first), load average ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end.`,
  '',
  '| our weights | threads | ours, ms per token | onnxruntime-web (F32), ms per token | onnxruntime-web ÷ ours |',
  '|---|---|---|---|---|',
  ...lines,
  '',
].join('\n');
process.stdout.write(text);
appendFileSync(path.join(here, 'results', `${RESULTS}-${date}.md`), text);

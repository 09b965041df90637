// Soak: 10,000 engine.attend calls of varying shapes and options (every kernel, batched and
// not, projections, masks, dropout, materialize on and off), interleaved with failing calls
// and averaging/cosine calls, must leave the WASM heap flat. engine.heapBytes() is the size of
// WASM linear memory, which grows and never shrinks, so a leak shows as growth; the test warms
// up with the largest call first so that the allocator has reached its working size.
// Prints the measured numbers ([ measured ] lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';
import { mulberry32 } from '../../../web/lib/learn/random.js';

const engine = await loadEngine();

// Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed.
const random = mulberry32;
const KERNELS = ['reference', 'vectorized', 'simd', 'tiled', 'auto'];
const MAX_T = 48,
  MAX_D = 24;

// One call's arguments from the generator; sizes up to (B 3, T 48, D 24, H ≤ 4).
function makeCall(rand) {
  const pick = (n) => Math.floor(rand() * n);
  const H = [1, 2, 3, 4][pick(4)];
  const D = H * (1 + pick(Math.floor(MAX_D / H)));
  const T = 1 + pick(MAX_T);
  const B = rand() < 0.3 ? 1 + pick(3) : 0;
  const shape = B ? [B, T, D] : [T, D];
  const tensor = (s) => ({
    shape: s,
    data: Float32Array.from({ length: s.reduce((a, b) => a * b, 1) }, () => rand() * 2 - 1),
  });
  const args = { x: tensor(shape), heads: H, causal: rand() < 0.5 };
  const kind = pick(3);
  if (kind === 1) Object.assign(args, { wq: tensor([D, D]), wk: tensor([D, D]), wv: tensor([D, D]), bq: tensor([D]) });
  if (kind === 2) Object.assign(args, { wqkv: tensor([3 * D, D]), bqkv: tensor([3 * D]) });
  if (rand() < 0.3) args.wo = tensor([D, 1 + pick(8)]);
  if (rand() < 0.3) args.keyPadding = Array.from({ length: T }, () => rand() < 0.8);
  args.kernel = KERNELS[pick(KERNELS.length)];
  args.materialize = args.kernel === 'tiled' ? false : rand() < 0.8;
  if (args.kernel !== 'tiled' && rand() < 0.3) Object.assign(args, { training: true, dropout: 0.25, seed: pick(1000) });
  if (rand() < 0.2) args.temperature = 0.5 + rand();
  return args;
}

// The biggest call makeCall can produce, to warm the allocator up to its working size.
function largestCall() {
  const B = 3,
    T = MAX_T,
    D = MAX_D;
  const t = (s) => ({ shape: s, data: new Float32Array(s.reduce((a, b) => a * b, 1)).fill(0.1) });
  return {
    x: t([B, T, D]),
    wqkv: t([3 * D, D]),
    bqkv: t([3 * D]),
    wo: t([D, 8]),
    heads: 1,
    kernel: 'reference',
    materialize: true,
    training: true,
    dropout: 0.25,
  };
}

test('10,000 attend calls of varying shapes (plus failing calls) leave the WASM heap flat', () => {
  const rand = random(7);
  const startBytes = engine.heapBytes();
  for (let i = 0; i < 5; i++) engine.attend(largestCall());
  for (let i = 0; i < 300; i++) engine.attend(makeCall(rand));
  const warmBytes = engine.heapBytes();
  const samples = [];
  let elements = 0,
    errors = 0;
  const started = performance.now();
  for (let i = 0; i < 10000; i++) {
    const args = makeCall(rand);
    const trace = engine.attend(args);
    elements += trace.output.data.length;
    if (i % 10 === 0) {
      // A failing call that gets as far as the C++ validation (an exception crosses the binding).
      try {
        engine.attend({ ...args, heads: 5, x: { shape: [2, 7], data: new Float32Array(14) } });
      } catch (error) {
        assert.ok(error instanceof AttentionError);
        errors++;
      }
    }
    if (i % 25 === 0) {
      engine.averaging({ x: { shape: [1 + (i % 17), 3], data: new Float32Array(3 * (1 + (i % 17))).fill(i) } });
      engine.cosine([1, 2, 3], [i, 1, 0]);
    }
    if (i % 1000 === 999) samples.push(engine.heapBytes());
  }
  const seconds = (performance.now() - started) / 1000;
  const endBytes = engine.heapBytes();
  const mib = (b) => (b / 1048576).toFixed(2);
  console.log(
    `[ measured ] soak: heap ${mib(startBytes)} MiB at load, ${mib(warmBytes)} MiB after warm-up, ` +
      `${mib(endBytes)} MiB after 10,000 attend + ${errors} failing + 400 averaging calls (${seconds.toFixed(1)} s); ` +
      `every 1,000 calls: ${samples.map(mib).join(', ')}`,
  );
  assert.equal(endBytes, warmBytes, `the WASM heap grew from ${warmBytes} to ${endBytes} bytes`);
  assert.ok(elements > 0);
});

test('1,000 rejected calls of every kind leave the WASM heap flat', () => {
  // Errors thrown from deep in validation (after the binding copied tensors in) must free them.
  const rand = random(11);
  engine.attend(largestCall());
  const before = engine.heapBytes();
  const bad = [
    (a) => ({ ...a, heads: 7 }),
    (a) => ({ ...a, keyPadding: [true] }),
    (a) => ({ ...a, kernel: 'tiled', materialize: true }),
    (a) => ({ ...a, wo: { shape: [1, 1], data: new Float32Array(1) } }),
    (a) => ({ ...a, training: true, dropout: 0.5, dropoutKeep: [1, 0, 1] }),
    (a) => ({ ...a, temperature: 1e-300 }),
  ];
  let count = 0;
  for (let i = 0; i < 1000; i++) {
    const args = bad[i % bad.length](makeCall(rand));
    try {
      engine.attend(args);
    } catch (error) {
      assert.ok(error instanceof AttentionError, `${error.name}: ${error.message}`);
      count++;
    }
  }
  const after = engine.heapBytes();
  console.log(`[ measured ] rejected calls: ${count} errors, heap ${before} → ${after} bytes`);
  assert.ok(count >= 900, `only ${count} of 1000 calls were rejected`);
  assert.equal(after, before);
});

// engine.torchGenerator: PyTorch's CPU random numbers through the WASM engine, compared bit for
// bit with the draws Debian's python3-torch 1.13.1 recorded (tests/fixtures/random/
// torch_random.json, made by tests/fixtures/make_torch_random.py; the C++ tests replay the same
// file natively and in WASM). Also engine.pca, and every bad argument as an AttentionError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();
const fixture = JSON.parse(fs.readFileSync(new URL('../../fixtures/random/torch_random.json', import.meta.url)));

// FNV-1a 64 of little-endian bytes (the fixture's digest of long streams).
function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}
const hex = (f32) =>
  Array.from(new Uint32Array(f32.buffer, f32.byteOffset, f32.length), (w) => w.toString(16).padStart(8, '0')).join(' ');

/** Compares a Float32Array with a fixture encoding: f32 hex words, i64 lists, or a digest. */
function assertSame(got, want, what) {
  if (want.f32 !== undefined) return assert.equal(hex(got), want.f32, what);
  if (want.i64 !== undefined) return assert.deepEqual(Array.from(got), want.i64, what);
  assert.equal(got.length, want.count, `${what}: count`);
  if (want.head.f32 !== undefined) {
    assert.equal(hex(got.subarray(0, 16)), want.head.f32, `${what}: head`);
    assert.equal(hex(got.subarray(got.length - 16)), want.tail.f32, `${what}: tail`);
    assert.equal(fnv1a64(new Uint8Array(got.buffer, got.byteOffset, got.byteLength)), want.fnv1a64, `${what}: digest`);
  } else {
    assert.deepEqual(Array.from(got.subarray(0, 16)), want.head.i64, `${what}: head`);
  }
}

const fromHex = (text) => new Float32Array(Uint32Array.from(text.split(' '), (w) => parseInt(w, 16)).buffer);

/** Replays one recorded call on generator g (or makes a new one for manual_seed); returns g. */
function replay(g, c, where) {
  const what = `${where}: ${c.op} ${c.cell ?? JSON.stringify(c.shape ?? '')}`;
  switch (c.op) {
    case 'manual_seed':
      g?.dispose();
      // Seeds beyond 2^53 (the fixture's 2^63 − 1) are not JS numbers; the C++ tests cover them.
      return Number.isSafeInteger(c.seed) ? engine.torchGenerator(c.seed) : null;
    case 'skip':
      g.skip(c.words);
      return g;
    case 'rand':
    case 'randn': {
      if (!c.shape.length) return null; // 0-dim draws: the JS API takes shapes of ≥ 1 dimension
      const outs = Array.from({ length: c.repeat ?? 1 }, () => g[c.op](c.shape).data);
      const all = new Float32Array(outs.reduce((n, o) => n + o.length, 0));
      let at = 0;
      for (const o of outs) {
        all.set(o, at);
        at += o.length;
      }
      assertSame(all, c.out, what);
      return g;
    }
    case 'randint':
      if (Math.abs(c.low) > 2 ** 24 || Math.abs(c.high) > 2 ** 24 || !c.shape.length) return null;
      assertSame(g.randint(c.low, c.high, c.shape).data, c.out, what);
      return g;
    case 'uniform_':
      assertSame(g.uniform(c.from, c.to, c.shape).data, c.out, what);
      return g;
    case 'normal_':
      assertSame(g.normal(c.mean, c.std, c.shape).data, c.out, what);
      return g;
    case 'linear': {
      const p = g.linear(c.in_features, c.out_features, { bias: c.bias });
      assertSame(p.weight.data, c.weight, `${what}: weight`);
      if (c.bias) assertSame(p.bias.data, c.bias_values ?? c.bias_out ?? c.b, `${what}: bias`);
      else assert.equal(p.bias, null);
      return g;
    }
    case 'embedding':
      assertSame(g.embedding(c.num_embeddings, c.embedding_dim).data, c.weight, what);
      return g;
    case 'bernoulli':
      assertSame(g.bernoulli(c.p, c.shape).data, c.out, what);
      return g;
    case 'dropout': {
      if (!c.training) return g;
      if (c.input.f32 === undefined) return null;
      const input = fromHex(c.input.f32);
      const d = g.dropout({ shape: [input.length], data: input }, c.p);
      assertSame(d.keep.data, c.keep, `${what}: keep`);
      assertSame(d.output.data, c.output, `${what}: output`);
      return g;
    }
    default:
      throw new Error(`unknown op ${c.op}`);
  }
}

test('TorchGenerator_ReplaysEveryRecordedStreamBitForBit', () => {
  let replayed = 0;
  for (const s of fixture.streams) {
    let g = null;
    for (const c of s.calls) {
      const next = replay(g, c, s.name);
      if (next === null) break; // the rest of the stream continues from a draw the JS API does not take
      g = next;
      replayed += 1;
    }
    g?.dispose();
  }
  assert.ok(replayed > 240, `${replayed} calls replayed (of 307; the rest follow a seed or range beyond JS numbers)`);
});

test('TorchGenerator_ManualSeed42PrintsTheNotebooksRandnAndRandint', () => {
  const g = engine.torchGenerator(42);
  const x = g.randn([3, 5]);
  assert.deepEqual(x.shape, [3, 5]);
  assert.deepEqual(
    Array.from(x.data.subarray(0, 5), (v) => Number(v.toFixed(4))),
    [0.3367, 0.1288, 0.2345, 0.2303, -1.1229],
  );
  g.dispose();
  for (let k = 0; k < 3; k++) {
    const h = engine.torchGenerator(42);
    assert.deepEqual(
      Array.from(h.randint(0, 10, [3, 2]).data),
      [2, 7, 6, 4, 6, 5],
      'seed 002: b after manual_seed(42)',
    );
    h.dispose();
  }
});

test('TorchGenerator_BadArgumentsNameThemselves', () => {
  const g = engine.torchGenerator(0);
  const cases = [
    [() => g.rand([-1]), 'shape'],
    [() => g.rand([]), 'shape'],
    [() => g.rand('3'), 'shape'],
    [() => g.rand([1.5]), 'shape'],
    [() => g.randn([4096, 4097]), 'shape'],
    [() => g.randint(5, 5, [2]), 'high'],
    [() => g.randint(0, 2 ** 30, [2]), 'high'],
    [() => g.randint(0.5, 2, [2]), 'low'],
    [() => g.normal(0, NaN, [2]), 'std'],
    [() => g.normal(0, -1, [2]), 'std'],
    [() => g.uniform('a', 1, [2]), 'from'],
    [() => g.bernoulli(1.5, [2]), 'p'],
    [() => g.linear(-1, 2), 'inFeatures'],
    [() => g.linear(2, 2, { bias: 'yes' }), 'bias'],
    [() => g.embedding(2 ** 25, 1), 'count'],
    [() => g.dropout([[1, 2]], 1.5), 'p'],
    [() => g.dropout([[1, NaN]], 0.5), 'input'],
    [() => g.skip(-1), 'words'],
    [() => engine.torchGenerator(0.5), 'seed'],
    [() => engine.torchGenerator('42'), 'seed'],
  ];
  for (const [call, argument] of cases) {
    let thrown;
    try {
      call();
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof AttentionError, `${call}: ${thrown}`);
    assert.equal(thrown.argument, argument, thrown.message);
    assert.ok(thrown.message.startsWith(argument), thrown.message);
  }
  // A rejected call draws nothing: the stream continues as if it had not been made.
  const a = engine.torchGenerator(7),
    b = engine.torchGenerator(7);
  assert.throws(() => a.bernoulli(2, [3]));
  assert.deepEqual(a.rand([4]).data, b.rand([4]).data);
  g.dispose();
  assert.throws(
    () => g.rand([2]),
    (e) => e instanceof AttentionError && /disposed/.test(e.message),
  );
});

test('TorchGenerator_DisposedOrNotTheHeapStaysFlat', () => {
  const before = engine.heapUsed();
  for (let i = 0; i < 3000; i++) {
    const g = engine.torchGenerator(i);
    g.randn([8, 8]);
    g.dispose();
  }
  assert.equal(engine.heapUsed(), before);
});

test('Pca_ProjectsOntoTheDirectionsOfLargestSpread', () => {
  const points = [
    [-2, -4, 2],
    [-1, -2, 1],
    [0, 0, 0],
    [1, 2, -1],
    [2, 4, -2],
  ];
  const p = engine.pca({ x: points });
  assert.ok(Math.abs(p.explained.data[0] - 1) < 1e-6);
  assert.ok(Math.abs(p.explained.data[1]) < 1e-6);
  assert.deepEqual(p.components.shape, [2, 3]);
  const proj = p.get('projected').map((r) => r[0]);
  proj.forEach((v, i) => assert.ok(Math.abs(v - (i - 2) * Math.sqrt(6)) < 1e-4, `${v}`));
  for (const [args, argument] of [
    [{ x: [1, 2] }, 'x'],
    [{ x: [[1, NaN]] }, 'x'],
    [{}, 'x'],
    [{ x: [[1]], y: 1 }, 'y'],
  ]) {
    assert.throws(
      () => engine.pca(args),
      (e) => e instanceof AttentionError && e.argument === argument,
    );
  }
  assert.deepEqual(engine.features, {
    attendBackward: true,
    pca: true,
    torchGenerator: true,
    createModel: true,
    loadModel: true,
    openModel: true,
  });
});

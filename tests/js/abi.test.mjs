// The arena layout between engine.js and the core (src/bindings/abi.h): engine.js takes every
// offset, type, order and index from the table the module exports (module.abi()) and checks
// at load that both sides name the same fields. Proved here by binding engine.js to a copy of
// the real table with its offsets shuffled (writes and reads must follow), and to tables with a
// field missing, renamed or of another type (binding must fail naming it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadEngine, bindAbi, AttentionError } from '../../web/engine/engine.js';
import createAttentionModule from '../../web/engine/attention_engine.mjs';

const wasmBinary = readFileSync(new URL('../../web/engine/attention_engine.wasm', import.meta.url));
const module = await createAttentionModule({ wasmBinary });
const table = module.abi();
const engine = await loadEngine();
const copy = (value) => JSON.parse(JSON.stringify(value));
const HEAP = { i32: 'HEAP32', u32: 'HEAPU32', f32: 'HEAPF32' };

test('the table names every header field, call and enum engine.js uses, with 4-byte types', () => {
  assert.deepEqual(
    table.sections.map((f) => f.name),
    ['floats', 'ints', 'bytes'],
  );
  assert.deepEqual(
    table.result.map((f) => f.name),
    ['failed', 'data', 'dataLength', 'layout', 'layoutLength', 'kernel', 'batched', 'scale'],
  );
  assert.deepEqual(
    table.options.map((f) => f.name),
    [
      'kernel',
      'heads',
      'causal',
      'scaleMode',
      'training',
      'materialize',
      'seedLow',
      'seedHigh',
      'scale',
      'temperature',
      'dropout',
    ],
  );
  for (const f of [...table.sections, ...table.options, ...table.result]) {
    assert.ok(f.type in HEAP && f.offset % 4 === 0, `${f.name}: ${f.type} at ${f.offset}`);
  }
  assert.deepEqual(Object.keys(table.calls), [
    'attend',
    'project',
    'averaging',
    'attendBackward',
    'pca',
    'draw',
    'modelLogits',
    'modelAttention',
    'modelTrace',
    'sessionStep',
    'nextToken',
  ]);
  assert.deepEqual(table.calls.modelAttention.results, ['q', 'k', 'v', 'scores', 'weights']);
  assert.deepEqual(table.calls.draw.shapes, ['shape']);
  assert.deepEqual(table.draws, [
    'rand',
    'randn',
    'randint',
    'normal',
    'uniform',
    'bernoulli',
    'linear',
    'embedding',
    'dropout',
    'skip',
  ]);
  assert.deepEqual(table.calls.project.tensors, [
    { name: 'x', ranks: [2, 3] },
    { name: 'w', ranks: [2] },
    { name: 'b', ranks: [1] },
  ]);
  assert.deepEqual(table.kernels, ['reference', 'vectorized', 'simd', 'tiled', 'auto']);
  assert.doesNotThrow(() => bindAbi(module));
});

test("engine.attend accepts exactly the table's tensor arguments and reads its result names", () => {
  assert.throws(
    () => engine.attend({ x: [[1]], nope: 1 }),
    (error) => {
      const tensors = table.calls.attend.tensors.map((t) => t.name).join(', ');
      assert.ok(error.message.includes(`known options are ${tensors}, heads,`), error.message);
      return true;
    },
  );
  const trace = engine.attend({
    x: [
      [1, 0],
      [0, 1],
    ],
  });
  for (const name of table.calls.attend.results) assert.ok(Object.hasOwn(trace, name), name);
  assert.equal(trace.kernel, 'simd');
});

// A module over a plain buffer whose table has the real fields at shuffled offsets.
function fakeModule(shuffledTable) {
  const buffer = new ArrayBuffer(1 << 16);
  const m = {
    HEAP32: new Int32Array(buffer),
    HEAPU32: new Uint32Array(buffer),
    HEAPF32: new Float32Array(buffer),
    HEAPU8: new Uint8Array(buffer),
    abi: () => shuffledTable,
    lastError: () => 'w: the core said no',
  };
  m.header = 256;
  m.sections = { floats: 4096, ints: 8192, bytes: 12288 };
  m.prepare = () => {
    for (const f of shuffledTable.sections) m[HEAP[f.type]][(m.header + f.offset) / 4] = m.sections[f.name];
    return m.header;
  };
  m.field = (fields, name, base) => {
    const f = fields.find((g) => g.name === name);
    return m[HEAP[f.type]][(base + f.offset) / 4];
  };
  return m;
}

// The call header's fields (sections and options share it) at each other's offsets, reversed.
function shuffled() {
  const t = copy(table);
  const header = [...t.sections, ...t.options];
  const offsets = header.map((f) => f.offset).reverse();
  header.forEach((f, i) => {
    f.offset = offsets[i];
  });
  const resultOffsets = t.result.map((f) => f.offset).reverse();
  t.result.forEach((f, i) => {
    f.offset = resultOffsets[i];
  });
  return t;
}

test('engine.js writes every argument where the table says, whatever the offsets', () => {
  const t = shuffled();
  const m = fakeModule(t);
  const abi = bindAbi(m);
  const x = { shape: [2, 3], data: Float32Array.of(1, 2, 3, 4, 5, 6) };
  const options = {
    kernel: 'vectorized',
    heads: 3,
    causal: true,
    scale: 0.5,
    temperature: 2,
    dropout: 0.25,
    seed: 2 ** 32 + 5,
    training: true,
    materialize: false,
  };
  abi.write('attend', { x }, { keyPadding: { shape: [2], data: Uint8Array.of(1, 0) } }, options);
  const want = {
    kernel: 1,
    heads: 3,
    causal: 1,
    scaleMode: t.scaleModes.indexOf('factor'),
    training: 1,
    materialize: 0,
    seedLow: 5,
    seedHigh: 1,
    scale: 0.5,
    temperature: 2,
    dropout: 0.25,
  };
  for (const [name, value] of Object.entries(want)) assert.equal(m.field(t.options, name, m.header), value, name);
  assert.deepEqual(Array.from(m.HEAPF32.subarray(4096 / 4, 4096 / 4 + 6)), [1, 2, 3, 4, 5, 6]);
  const tensorCount = t.calls.attend.tensors.length;
  const ints = Array.from(m.HEAP32.subarray(8192 / 4, 8192 / 4 + 3 + (tensorCount - 1) + 3));
  assert.deepEqual(
    ints,
    [2, 2, 3, ...Array(tensorCount - 1).fill(0), 1, 2, 0],
    'x, absent tensors, keyPadding, dropoutKeep',
  );
  assert.deepEqual(Array.from(m.HEAPU8.subarray(12288, 12290)), [1, 0]);
});

test('engine.js reads every result field where the table says, and names tensors by the table', () => {
  const t = shuffled();
  const m = fakeModule(t);
  const abi = bindAbi(m);
  const result = 1024;
  const set = (name, value) => {
    const f = t.result.find((g) => g.name === name);
    m[HEAP[f.type]][(result + f.offset) / 4] = value;
  };
  m.HEAPF32.set([0.25, 0.75, 1, 0], 16384 / 4);
  const weights = t.calls.attend.results.indexOf('weights');
  m.HEAP32.set([weights, 2, 2, 2], 20480 / 4);
  for (const [name, value] of Object.entries({
    failed: 0,
    data: 16384,
    dataLength: 4,
    layout: 20480,
    layoutLength: 4,
    kernel: 2,
    batched: 1,
    scale: 0.5,
  }))
    set(name, value);
  const raw = abi.read('attend', result);
  assert.deepEqual(raw.names, t.calls.attend.results);
  assert.deepEqual(Array.from(raw.data), [0.25, 0.75, 1, 0]);
  assert.deepEqual(Array.from(raw.layout), [weights, 2, 2, 2]);
  assert.equal(raw.kernel, 'simd');
  assert.equal(raw.batched, true);
  assert.equal(raw.scale, 0.5);
  set('failed', 1);
  assert.throws(
    () => abi.read('attend', result),
    (error) => error instanceof AttentionError && error.argument === 'w',
  );
});

const tampered = [
  [
    'an option engine.js writes is missing',
    (t) => {
      t.options = t.options.filter((f) => f.name !== 'heads');
    },
    /attend options has no field 'heads'/,
  ],
  [
    'a result field is renamed',
    (t) => {
      t.result.find((f) => f.name === 'scale').name = 'scaleFactor';
    },
    /result header field 'scaleFactor' is not one engine.js knows/,
  ],
  [
    'a section has a type engine.js cannot read',
    (t) => {
      t.sections[0].type = 'u64';
    },
    /call header field 'floats' is u64/,
  ],
  [
    'an offset is not 4-byte aligned',
    (t) => {
      t.options[1].offset += 2;
    },
    /attend options field 'heads' is i32 at offset/,
  ],
  [
    'a call is missing',
    (t) => {
      delete t.calls.project;
    },
    /there is no call 'project'/,
  ],
  [
    'a call is unknown',
    (t) => {
      t.calls.backward = t.calls.attend;
    },
    /call 'backward' is not one engine.js makes/,
  ],
];
for (const [what, change, message] of tampered) {
  test(`binding fails loudly when ${what}`, () => {
    const t = copy(table);
    change(t);
    assert.throws(
      () => bindAbi(module, t),
      (error) => {
        assert.match(error.message, message);
        assert.match(error.message, /^engine ABI: /);
        return true;
      },
    );
  });
}

test("the element's small engine has attention only, and engine.js says so instead of failing", async () => {
  const { default: createEmbed } = await import('../../web/engine/attention_engine_embed.mjs');
  const small = await createEmbed({
    wasmBinary: readFileSync(new URL('../../web/engine/attention_engine_embed.wasm', import.meta.url)),
  });
  const smallTable = small.abi();
  assert.deepEqual(Object.keys(smallTable.calls), ['attend', 'project', 'averaging']);
  const bound = bindAbi(small, smallTable);
  assert.deepEqual(Object.keys(bound.calls), ['attend', 'project', 'averaging']);
  assert.equal(typeof small.pca, 'undefined');
  assert.equal(typeof small.draw, 'undefined');
  assert.equal(typeof small.modelCreate, 'undefined');
});

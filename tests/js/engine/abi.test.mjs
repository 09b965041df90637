// The one binary interface between web/engine/ and the core (src/bindings/abi.h, web/engine/abi.js):
// abi.js takes every offset, type, order, enum value and argument list from the description the
// module exports (module.abi()) and checks at load that both sides name the same header fields
// and calls. Proved here by binding abi.js to a copy of the real description with its offsets and
// orders shuffled (writes and reads must follow), and to descriptions with a field missing,
// renamed or of another type (binding, or the call, must fail naming it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadEngine, bindAbi, AttentionError } from '../../../web/engine/engine.js';
import createAttentionModule from '../../../web/engine/attention_engine.mjs';

const wasmBinary = readFileSync(new URL('../../../web/engine/attention_engine.wasm', import.meta.url));
const module = await createAttentionModule({ wasmBinary });
const table = module.abi();
const engine = await loadEngine();
const copy = (value) => JSON.parse(JSON.stringify(value));
const HEAP = { i32: 'HEAP32', u32: 'HEAPU32', f32: 'HEAPF32' };
const names = (list) => list.map((entry) => entry.name);

test('the description names every header field, call and enum engine.js uses, with 4-byte types', () => {
  assert.deepEqual(names(table.sections), ['floats', 'ints', 'bytes', 'numbers']);
  assert.deepEqual(names(table.result), ['failed', 'report', 'layout', 'layoutLength']);
  assert.deepEqual(names(table.calls.attend.scalars), [
    'kernel',
    'heads',
    'causal',
    'scaleMode',
    'scale',
    'temperature',
    'dropout',
    'seed',
    'training',
    'materialize',
  ]);
  for (const f of [...table.sections, ...table.result]) {
    assert.ok(f.type in HEAP && f.offset % 4 === 0, `${f.name}: ${f.type} at ${f.offset}`);
  }
  assert.equal(table.word, 'u32');
  assert.deepEqual(Object.keys(table.calls), [
    'attend',
    'attendBackward',
    'averaging',
    'cosine',
    'draw',
    'generatorCreate',
    'generatorDelete',
    'limits',
    'modelAblate',
    'modelAblationSweep',
    'modelAttribute',
    'modelConfig',
    'modelCreate',
    'modelDelete',
    'modelEvaluate',
    'modelExport',
    'modelGenerate',
    'modelHeaderLength',
    'modelKernel',
    'modelLimits',
    'modelLoad',
    'modelLogitLens',
    'modelLogits',
    'modelOpen',
    'modelOpenCancel',
    'modelOpenFinish',
    'modelOpenWrite',
    'modelParamTable',
    'modelParams',
    'modelSetKernel',
    'modelSetParams',
    'modelStep',
    'modelSteps',
    'modelTrace',
    'modelTraceLayer',
    'modelWeights',
    'nextToken',
    'pca',
    'project',
    'sessionCreate',
    'sessionDelete',
    'sessionStep',
    'sessionTokens',
    'setThreads',
    'threads',
  ]);
  Object.values(table.calls).forEach((call, i) => assert.equal(call.id, i, 'ids in name order'));
  assert.deepEqual(names(table.calls.modelTraceLayer.results), ['q', 'k', 'v', 'scores', 'weights']);
  assert.deepEqual(table.enums.ablation, ['zero', 'mean']);
  assert.deepEqual(table.calls.draw.shapes, ['shape']);
  assert.deepEqual(table.enums.draw, [
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
  assert.deepEqual(table.enums.kernel, ['reference', 'vectorized', 'simd', 'tiled', 'auto']);
  // The enums the model's calls take cross by name too.
  assert.deepEqual(table.enums.gelu, ['exact', 'tanh']);
  assert.deepEqual(table.enums.optimizer, ['adamw', 'sgd']);
  assert.deepEqual(table.enums.logitRows, ['none', 'last', 'all']);
  assert.deepEqual(
    table.calls.modelStep.scalars.find((s) => s.name === 'optimizer'),
    {
      name: 'optimizer',
      kind: 'enum',
      enum: 'optimizer',
    },
  );
  assert.doesNotThrow(() => bindAbi(module));
});

test("engine.attend accepts exactly the description's tensor arguments and reads its result names", () => {
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
  for (const name of names(table.calls.attend.results)) assert.ok(Object.hasOwn(trace, name), name);
  assert.equal(trace.kernel, 'simd');
});

// A module over a plain buffer whose description has the real fields at shuffled offsets. Its
// invoke() keeps a copy of the arena's sections as they were written, and answers `answer`.
function fakeModule(shuffledTable) {
  const buffer = new ArrayBuffer(1 << 16);
  const m = {
    HEAP32: new Int32Array(buffer),
    HEAPU32: new Uint32Array(buffer),
    HEAPF32: new Float32Array(buffer),
    HEAPF64: new Float64Array(buffer),
    HEAPU8: new Uint8Array(buffer),
    abi: () => shuffledTable,
    lastError: () => 'w: the core said no',
  };
  m.header = 256;
  m.sections = { floats: 4096, ints: 8192, bytes: 12288, numbers: 16384 };
  m.prepare = (floats, ints, bytes, numbers) => {
    m.sizes = { floats, ints, bytes, numbers };
    for (const f of shuffledTable.sections) m[HEAP[f.type]][(m.header + f.offset) / 4] = m.sections[f.name];
    return m.header;
  };
  m.invoke = (id) => {
    m.invoked = id;
    m.written = {
      floats: Array.from(m.HEAPF32.subarray(m.sections.floats / 4, m.sections.floats / 4 + m.sizes.floats)),
      ints: Array.from(m.HEAP32.subarray(m.sections.ints / 4, m.sections.ints / 4 + m.sizes.ints)),
      bytes: Array.from(m.HEAPU8.subarray(m.sections.bytes, m.sections.bytes + m.sizes.bytes)),
      numbers: Array.from(m.HEAPF64.subarray(m.sections.numbers / 8, m.sections.numbers / 8 + m.sizes.numbers)),
    };
    return m.answer;
  };
  m.field = (fields, name, base) => {
    const f = fields.find((g) => g.name === name);
    return m[HEAP[f.type]][(base + f.offset) / 4];
  };
  m.set = (fields, name, base, value) => {
    const f = fields.find((g) => g.name === name);
    m[HEAP[f.type]][(base + f.offset) / 4] = value;
  };
  // A result at 1024: not failed, nothing in it (a call's writes can be checked alone).
  m.answer = 1024;
  m.set(shuffledTable.result, 'failed', 1024, 0);
  return m;
}

// The headers' fields at each other's offsets, reversed; every call's scalars in reverse order.
function shuffled() {
  const t = copy(table);
  for (const fields of [t.sections, t.result]) {
    const offsets = fields.map((f) => f.offset).reverse();
    fields.forEach((f, i) => {
      f.offset = offsets[i];
    });
  }
  for (const call of Object.values(t.calls)) call.scalars.reverse();
  return t;
}

test('abi.js writes every argument where and in the order the description says, whatever they are', () => {
  const t = shuffled();
  const m = fakeModule(t);
  const abi = bindAbi(m);
  const x = { shape: [2, 3], data: Float32Array.of(1, 2, 3, 4, 5, 6) };
  const options = {
    kernel: 'vectorized',
    heads: 3,
    causal: true,
    scaleMode: 'factor',
    scale: 0.5,
    temperature: 2,
    dropout: 0.25,
    seed: 2 ** 32 + 5,
    training: true,
    materialize: false,
  };
  abi.call('attend', { x, keyPadding: { shape: [2], data: Uint8Array.of(1, 0) }, ...options });
  assert.equal(m.invoked, t.calls.attend.id);
  const want = {
    kernel: 1,
    heads: 3,
    causal: 1,
    scaleMode: t.enums.scaleMode.indexOf('factor'),
    scale: 0.5,
    temperature: 2,
    dropout: 0.25,
    seed: 2 ** 32 + 5,
    training: 1,
    materialize: 0,
  };
  assert.deepEqual(
    m.written.numbers,
    t.calls.attend.scalars.map((s) => want[s.name]),
    'the scalars in the (reversed) order of the description',
  );
  assert.deepEqual(m.written.floats, [1, 2, 3, 4, 5, 6]);
  const tensorCount = t.calls.attend.tensors.length;
  assert.deepEqual(
    m.written.ints,
    [2, 2, 3, ...Array(tensorCount - 1).fill(0), 1, 2, 0],
    'x, absent tensors, keyPadding, dropoutKeep',
  );
  assert.deepEqual(m.written.bytes, [1, 0]);

  // A model call: lists as their length then their values, blobs as their length, a scalar not
  // given as NaN, an enum by the index of its name.
  abi.call('modelLoad', { file: Uint8Array.of(7, 8, 9), config: Uint8Array.of(123, 125), heads: 2, gelu: 'tanh' });
  assert.deepEqual(m.written.ints, [3, 2]);
  assert.deepEqual(m.written.bytes, [7, 8, 9, 123, 125]);
  const load = Object.fromEntries(t.calls.modelLoad.scalars.map((s, i) => [s.name, m.written.numbers[i]]));
  assert.equal(load.heads, 2);
  assert.equal(load.gelu, 1);
  assert.ok(Number.isNaN(load.vocabSize), 'not given');
  abi.call('modelEvaluate', { model: 4, tokens: [5, 6, 7], targets: Int32Array.of(6, 7, -1), batch: 1, context: 3 });
  assert.deepEqual(m.written.ints, [3, 5, 6, 7, 3, 6, 7, -1]);
});

test('abi.js reads every result field where the description says, and names tensors and report fields by it', () => {
  const t = shuffled();
  const m = fakeModule(t);
  const abi = bindAbi(m);
  const result = 1024;
  m.HEAPF32.set([0.25, 0.75, 1, 0], 20480 / 4);
  m.HEAPF64.set([2, 0.5, 1], 24576 / 8); // attend's report: kernel, scale, batched
  const weights = names(t.calls.attend.results).indexOf('weights');
  m.HEAPU32.set([weights, 20480, 2, 2, 2], 28672 / 4);
  for (const [name, value] of Object.entries({ failed: 0, report: 24576, layout: 28672, layoutLength: 5 }))
    m.set(t.result, name, result, value);
  const raw = abi.call('attend', { x: { shape: [1, 1], data: Float32Array.of(1) } });
  assert.deepEqual(raw.names, names(t.calls.attend.results));
  assert.equal(raw.tensors.length, 1);
  assert.equal(raw.tensors[0].name, 'weights');
  assert.deepEqual(raw.tensors[0].shape, [2, 2]);
  assert.deepEqual(Array.from(raw.tensors[0].copy()), [0.25, 0.75, 1, 0]);
  assert.deepEqual(Array.from(raw.tensors[0].copy(1, 3)), [0.75, 1]);
  assert.deepEqual(raw.report, { kernel: 'simd', scale: 0.5, batched: true });
  m.set(t.result, 'failed', result, 1);
  assert.throws(
    () => abi.call('attend', {}),
    (error) => error instanceof AttentionError && error.argument === 'w',
  );
});

test('an enum crosses by name: a name the description does not hold is refused naming the argument', () => {
  const abi = bindAbi(module);
  for (const kernel of ['cuda', 'SIMD', '__proto__', 3, null]) {
    assert.throws(
      () => abi.call('attend', { x: { shape: [1, 2], data: Float32Array.of(1, 2) }, kernel }),
      (error) =>
        error instanceof AttentionError &&
        error.argument === 'kernel' &&
        /'reference', 'vectorized', 'simd', 'tiled' or 'auto'/.test(error.message),
    );
  }
  // A handle that is not alive is refused naming it.
  assert.throws(
    () => abi.call('modelSteps', { model: 0 }),
    (error) => error instanceof AttentionError && error.argument === 'model',
  );
});

const tampered = [
  [
    'an argument engine.js passes is missing',
    (t) => {
      t.calls.attend.scalars = t.calls.attend.scalars.filter((f) => f.name !== 'heads');
    },
    /call 'attend' has no argument 'heads'/,
    (abi) => abi.call('attend', { x: { shape: [1, 1], data: Float32Array.of(1) }, heads: 1 }),
  ],
  [
    'a result field is renamed',
    (t) => {
      t.result.find((f) => f.name === 'report').name = 'reportAt';
    },
    /result header field 'reportAt' is not one abi.js knows/,
  ],
  [
    'a section has a type abi.js cannot read',
    (t) => {
      t.sections[0].type = 'u64';
    },
    /call header field 'floats' is u64/,
  ],
  [
    'an offset is not 4-byte aligned',
    (t) => {
      t.sections[1].offset += 2;
    },
    /call header field 'ints' is u32 at offset/,
  ],
  [
    'the layout words are not 32 bits',
    (t) => {
      t.word = 'u64';
    },
    /layout words are u64/,
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
for (const [what, change, message, act = null] of tampered) {
  test(`abi.js fails loudly when ${what}`, () => {
    const t = copy(table);
    change(t);
    assert.throws(
      () => {
        const abi = bindAbi(module, t);
        act?.(abi);
      },
      (error) => {
        assert.match(error.message, message);
        assert.match(error.message, /^engine ABI: /);
        return true;
      },
    );
  });
}

test("the element's small engine has attention only, and engine.js says so instead of failing", async () => {
  const { default: createEmbed } = await import('../../../web/engine/attention_engine_embed.mjs');
  const small = await createEmbed({
    wasmBinary: readFileSync(new URL('../../../web/engine/attention_engine_embed.wasm', import.meta.url)),
  });
  const smallTable = small.abi();
  assert.deepEqual(Object.keys(smallTable.calls), ['attend', 'averaging', 'cosine', 'limits', 'project']);
  const bound = bindAbi(small, smallTable);
  assert.deepEqual(Object.keys(bound.calls), ['attend', 'averaging', 'cosine', 'limits', 'project']);
  for (const call of ['pca', 'draw', 'modelCreate']) {
    assert.equal(smallTable.calls[call], undefined);
    assert.throws(
      () => bound.call(call, {}),
      (error) => error instanceof AttentionError && error.argument === call,
    );
  }
  assert.deepEqual(Object.keys(smallTable.enums), ['kernel', 'scaleMode']);
});

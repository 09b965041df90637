// The engine's memory may grow to 4 GB (-sMAXIMUM_MEMORY=4GB): addresses above 2^31 must work in
// the Emscripten glue (built with unsigned pointers) and in engine.js / model.js (>>> on every
// address). A model larger than 2 GB is opened from a synthetic source (nothing held in JS), so
// that a second copy of a medium model lands above 2^31; that copy must give, through every call
// that reads or writes the heap, what its twin below 2 GB gives. In a file of its own: node:test
// runs each file in its own process, so the 2.4 GB heap goes with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();

// A nanoGPT-layout checkpoint's header (F16, the config in the metadata) and a reader whose
// tensor bytes come from one repeating pattern of finite halves, so nothing of size is built here.
function syntheticCheckpoint({ vocabSize: V, contextLength: T, layers: L, heads: H, width: C }) {
  const shapes = [
    ['transformer.wte.weight', [V, C]],
    ['transformer.wpe.weight', [T, C]],
  ];
  for (let l = 0; l < L; l++) {
    const p = `transformer.h.${l}.`;
    shapes.push(
      [p + 'ln_1.weight', [C]],
      [p + 'ln_1.bias', [C]],
      [p + 'attn.c_attn.weight', [3 * C, C]],
      [p + 'attn.c_attn.bias', [3 * C]],
      [p + 'attn.c_proj.weight', [C, C]],
      [p + 'attn.c_proj.bias', [C]],
      [p + 'ln_2.weight', [C]],
      [p + 'ln_2.bias', [C]],
      [p + 'mlp.c_fc.weight', [4 * C, C]],
      [p + 'mlp.c_fc.bias', [4 * C]],
      [p + 'mlp.c_proj.weight', [C, 4 * C]],
      [p + 'mlp.c_proj.bias', [C]],
    );
  }
  shapes.push(['transformer.ln_f.weight', [C]], ['transformer.ln_f.bias', [C]]);
  const header = {
    __metadata__: { vocab_size: `${V}`, block_size: `${T}`, n_layer: `${L}`, n_head: `${H}`, n_embd: `${C}` },
  };
  let offset = 0;
  for (const [name, shape] of shapes) {
    const bytes = 2 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const text = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(8 + text.length);
  new DataView(head.buffer).setBigUint64(0, BigInt(text.length), true);
  head.set(text, 8);
  const slice = 1 << 20;
  const pattern = new Uint16Array(slice); // halves in ±[2^-6, 2^-2): finite, small
  for (let i = 0; i < slice; i++) pattern[i] = ((Math.imul(i + 1, 2654435761) >>> 0) & 0x83ff) | 0x2400;
  const bytes = new Uint8Array(pattern.buffer);
  const patternOf = new Uint8Array(2 * bytes.length);
  patternOf.set(bytes);
  patternOf.set(bytes, bytes.length);
  return {
    parameters: offset / 2,
    source: {
      size: head.length + offset,
      read(at, length) {
        if (at + length <= head.length) return head.subarray(at, at + length);
        const from = (at - head.length) % bytes.length;
        return patternOf.subarray(from, from + length);
      },
    },
    sliceBytes: bytes.length,
  };
}

test('a model above 2 GB opens, and a model above it in memory computes what its twin below does', async () => {
  const medium = syntheticCheckpoint({ vocabSize: 4096, contextLength: 64, layers: 8, heads: 8, width: 512 });
  const big = syntheticCheckpoint({ vocabSize: 50257, contextLength: 1024, layers: 16, heads: 12, width: 1536 });
  assert.ok(4 * (big.parameters + medium.parameters) > 2 ** 31, `${big.parameters} parameters`);

  const below = await engine.openModel(medium.source, { sliceBytes: medium.sliceBytes });
  const huge = await engine.openModel(big.source, { sliceBytes: big.sliceBytes });
  const above = await engine.openModel(medium.source, { sliceBytes: medium.sliceBytes });
  assert.ok(engine.heapBytes() > 2 ** 31 + 4 * medium.parameters, `${engine.heapBytes()} bytes of memory`);

  // Every call that reads or writes the second copy's memory gives the first copy's answer.
  const tokens = [5, 17, 300, 4095, 0, 42];
  const a = below.trace(tokens, { logits: 'all' }),
    b = above.trace(tokens, { logits: 'all' });
  assert.ok(a.logits.data.every(Number.isFinite));
  assert.deepEqual(b.logits.data, a.logits.data);
  assert.deepEqual(b.attention[7].weights.data, a.attention[7].weights.data);
  assert.deepEqual(b.residual.data, a.residual.data);
  const pa = below.params(),
    pb = above.params();
  for (const name of ['transformer.wte.weight', 'transformer.h.7.mlp.c_proj.weight', 'transformer.ln_f.bias']) {
    assert.deepEqual(pb[name].data, pa[name].data, name);
  }
  assert.deepEqual(
    above.generate([1, 2, 3], 5, { seed: 3, topP: 0.9 }),
    below.generate([1, 2, 3], 5, { seed: 3, topP: 0.9 }),
  );
  const sa = below.session([1, 2, 3], { seed: 3 }),
    sb = above.session([1, 2, 3], { seed: 3 });
  assert.deepEqual(sb.step().attention.data, sa.step().attention.data);
  above.setParams({ 'transformer.ln_f.bias': pa['transformer.ln_f.bias'] });
  assert.deepEqual(above.toSafetensors(), below.toSafetensors());
  // The core's message, read from its memory, names what is wrong.
  assert.throws(
    () => sb.step(),
    (e) => e instanceof AttentionError && /session: the model's weights changed/.test(e.message),
  );

  // The model above the training cap runs, and refuses to step naming the cap.
  assert.ok(Number.isFinite(huge.trace([1, 2]).logits.data[0]));
  const batch = { tokens: [1, 2, 3], targets: [2, 3, 4], batch: 1, context: 3 };
  assert.throws(
    () => huge.step(batch),
    (e) => e instanceof AttentionError && e.argument === 'step' && /limited to 67108864 \(2\^26\)/.test(e.message),
  );
  huge.dispose();
});

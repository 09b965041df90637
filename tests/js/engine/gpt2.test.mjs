// Hugging Face GPT-2 checkpoints through the engine (engine.loadModel, engine.openModel), and what
// the page shows of a real model: model.trace, model.session (the KV cache), engine.nextToken and
// generate's top-p — against tests/fixtures/gpt2/ (make_gpt2_fixtures.py: Hugging Face's forward
// written out in torch 1.13).
//
// Tolerance: tests/cpp/model/checkpoint_test.cpp's, where it is derived (the same float32 code runs here in
// WASM): |ours − torch| ≤ 1e-6 + 4e-5·max|tensor| for each tensor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();
const file = (name) => readFileSync(new URL(`../../fixtures/gpt2/${name}`, import.meta.url));
const reference = JSON.parse(file('reference.json'));
const config = file('config.json').toString('utf8');
const tokens = reference.tokens.data;
const V = reference.config.vocab_size;

function close(what, got, want) {
  assert.equal(got.length, want.length, what);
  const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const allowed = 1e-6 + 4e-5 * scale;
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= allowed, `${what}[${i}]: ${got[i]} vs ${want[i]} (allowed ${allowed})`);
  }
}

async function rejectsNaming(promise, argument, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof AttentionError, `${error?.name}: ${error?.message}`);
    assert.equal(error.argument, argument, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}
function throwsNaming(fn, argument, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof AttentionError, `${error?.name}: ${error?.message}`);
    assert.equal(error.argument, argument, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

// A local server for the URL source: the file with Content-Length, or streamed in pieces without
// it (chunked), or with extra bytes after it, or missing its last kilobyte.
async function serve(bytes) {
  const server = createServer((request, response) => {
    const path = request.url;
    if (path === '/length') {
      response.writeHead(200, { 'content-length': bytes.length });
      response.end(bytes);
    } else if (path === '/chunked' || path === '/longer' || path === '/shorter') {
      const body =
        path === '/longer'
          ? Buffer.concat([bytes, Buffer.alloc(5)])
          : path === '/shorter'
            ? bytes.subarray(0, bytes.length - 1024)
            : bytes;
      response.writeHead(200);
      for (let at = 0; at < body.length; at += 9973) response.write(body.subarray(at, at + 9973));
      response.end();
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: (path) => `http://127.0.0.1:${server.address().port}${path}`, close: () => server.close() };
}

test('every layout and dtype loads (loadModel) and computes torch’s logits', () => {
  for (const [name, c] of Object.entries(reference.cases)) {
    const model = engine.loadModel(file(c.file), { config: file(c.config_json).toString('utf8') });
    assert.equal(model.config.gelu, 'tanh');
    assert.equal(model.config.layerNormEps, name === 'eps' ? 0.01 : 1e-5);
    close(`${name} logits`, model.trace(tokens, { logits: 'all' }).logits.data, c.logits.data);
    model.dispose();
  }
});

test('trace holds torch’s q, k, v, scores, weights per layer and head and the residual stream', () => {
  const model = engine.loadModel(file('gpt2_tiny.safetensors'), { config });
  const want = reference.cases.f32;
  const t = model.trace(tokens, { logits: 'all' });
  assert.deepEqual([t.tokens, t.layers, t.heads], [12, [0, 1], [0, 1, 2, 3]]);
  assert.deepEqual(t.residual.shape, [3, 12, 32]);
  assert.deepEqual(t.logits.shape, [12, V]);
  for (let l = 0; l < 2; l++) {
    for (const part of ['q', 'k', 'v', 'scores', 'weights']) {
      assert.deepEqual(t.attention[l][part].shape, want.layers[l][part].shape, part);
      close(`layer ${l} ${part}`, t.attention[l][part].data, want.layers[l][part].data);
    }
  }
  close('residual', t.residual.data, want.residual.data);
  // attention() is trace()'s attention; logits() its logits.
  const layers = model.attention(tokens);
  assert.deepEqual(layers[1].weights.data, t.attention[1].weights.data);
  close('logits()', model.logits(tokens).data, t.logits.data);

  // Only what is asked: one layer, two heads, weights alone, the last logits.
  const some = model.trace(tokens, { layers: [1], heads: [1, 3], qkv: false, scores: false, residual: false });
  assert.equal(some.attention.length, 1);
  assert.deepEqual(some.attention[0].weights.shape, [2, 12, 12]);
  assert.equal(some.attention[0].q, undefined);
  assert.throws(() => some.attention[0].get('q'), AttentionError);
  assert.equal(some.residual, null);
  assert.deepEqual(some.logits.shape, [1, V]);
  close('head 3', some.attention[0].weights.data.subarray(144), want.layers[1].weights.data.slice(3 * 144, 4 * 144));
  assert.equal(model.trace(tokens, { logits: 'none' }).logits, null);
  const timed = model.trace(tokens, { timings: true });
  assert.ok(timed.timings.linear > 0 && timed.timings.linear + timed.timings.attention <= timed.timings.total + 1e-3);
  assert.equal(model.trace(tokens).timings, undefined);

  throwsNaming(() => model.trace(tokens, { layers: [2] }), 'layers', /\[0, 2\)/);
  throwsNaming(() => model.trace(tokens, { heads: [2, 1] }), 'heads', /ascending/);
  throwsNaming(() => model.trace(tokens, { logits: 'first' }), 'logits');
  throwsNaming(() => model.trace(tokens, { qkv: 1 }), 'qkv');
  throwsNaming(() => model.trace(tokens, { colour: 1 }), 'colour', /unknown option/);
  throwsNaming(() => model.trace([], {}), 'tokens');
  throwsNaming(() => model.trace([V], {}), 'tokens');
  model.dispose();
});

test('openModel reads bytes, a Blob, {size, read} and a URL slice by slice into the same model', async () => {
  const bytes = file('gpt2_tiny.safetensors');
  const whole = engine.loadModel(bytes, { config }).params();
  const server = await serve(bytes);
  try {
    const progress = [];
    const sources = [
      [new Uint8Array(bytes), { sliceBytes: 3 }],
      [new Blob([bytes]), { sliceBytes: 4099, onProgress: (p) => progress.push(p) }],
      [
        { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, offset + length) },
        { sliceBytes: 7 },
      ],
      [server.url('/length'), {}],
      [server.url('/chunked'), { sliceBytes: 1000 }],
      [new URL(server.url('/length')), { config: JSON.parse(config) }],
    ];
    for (const [source, options] of sources) {
      const model = await engine.openModel(source, { config, ...options });
      assert.deepEqual(model.params(), whole, String(source));
      model.dispose();
    }
    assert.ok(progress.length > 10);
    const last = progress.at(-1);
    assert.equal(last.loaded, last.total);
    assert.ok(last.total < bytes.length); // the attn.bias buffers are skipped
  } finally {
    server.close();
  }
});

test('openModel refuses hostile sources naming the problem, and the engine and its models stay usable', async () => {
  const bytes = file('gpt2_tiny.safetensors');
  const kept = engine.loadModel(bytes, { config });
  const logits = kept.trace(tokens).logits.data;
  const server = await serve(bytes);
  const hostile = async () => {
    await rejectsNaming(engine.openModel(server.url('/missing')), 'source', /HTTP 404/);
    await rejectsNaming(engine.openModel(server.url('/shorter'), { config }), 'source', /ends at byte \d+, but bytes/);
    await rejectsNaming(engine.openModel(server.url('/longer'), { config }), 'source', /continues past byte/);
    const truncated = {
      size: bytes.length,
      read: async (o, n) => bytes.subarray(o, Math.min(o + n, bytes.length - 10)),
    };
    await rejectsNaming(engine.openModel(truncated, { config }), 'source', /the file ends at byte \d+/);
    const throwing = { size: bytes.length, read: () => Promise.reject(new Error('disk gone')) };
    await rejectsNaming(engine.openModel(throwing), 'source', /disk gone/);
    await rejectsNaming(engine.openModel(new Uint8Array([1, 2, 3])), 'safetensors', /shorter than the 8-byte/);
    const tenGigabytes = new Uint8Array(64);
    new DataView(tenGigabytes.buffer).setBigUint64(0, 10000000000n, true);
    await rejectsNaming(
      engine.openModel(tenGigabytes),
      'safetensors',
      /10000000000 .* exceeds the 100000000-byte limit/,
    );
    await rejectsNaming(engine.openModel(bytes), 'heads', /pass heads/);
    await rejectsNaming(engine.openModel(bytes, { config: '{"model_type": "llama"}' }), 'config.json', /not GPT-2's/);
    await rejectsNaming(engine.openModel(bytes, { config: 42 }), 'config');
    await rejectsNaming(engine.openModel(42), 'source', /expected a Uint8Array/);
    await rejectsNaming(engine.openModel(bytes, { sliceBytes: 0 }), 'sliceBytes');
    const nan = new Uint8Array(bytes);
    const header = Number(new DataView(nan.buffer).getBigUint64(0, true));
    nan.set([0, 0, 0xc0, 0x7f], 8 + header + 4 * 100); // a NaN at the 101st float of the first tensor
    await rejectsNaming(engine.openModel(nan, { config }), 'safetensors', /element \d+ is nan \(file byte \d+\)/);
    const aborted = new AbortController();
    aborted.abort();
    await rejectsNaming(engine.openModel(bytes, { config, signal: aborted.signal }), 'signal', /aborted/);
    const midway = new AbortController();
    await rejectsNaming(
      engine.openModel(bytes, {
        config,
        sliceBytes: 1000,
        onProgress: (p) => p.loaded > 5000 && midway.abort(),
        signal: midway.signal,
      }),
      'signal',
    );
  };
  try {
    await hostile();
    // Every failed load freed what it allocated (the second round leaves the heap as the first:
    // only the arena and the error message keep their largest size); the model open is as it was.
    const used = engine.heapUsed();
    await hostile();
    assert.equal(engine.heapUsed(), used);
  } finally {
    server.close();
  }
  assert.deepEqual(kept.trace(tokens).logits.data, logits);
});

test('a session draws generate()’s tokens, which are torch’s, and counts its multiply-adds', () => {
  const model = engine.loadModel(file('gpt2_tiny.safetensors'), { config });
  for (const c of reference.generate) {
    const options = { temperature: c.temperature, topK: c.top_k, topP: c.top_p, seed: c.seed };
    assert.deepEqual(model.generate(c.prompt, c.count, options), c.tokens);
    const session = model.session(c.prompt, options);
    const steps = Array.from({ length: c.count }, () => session.step());
    assert.deepEqual(
      steps.map((s) => s.token),
      c.tokens,
    );
    assert.equal(
      steps.some((s) => s.recomputed),
      c.prompt.length + c.count > 64,
    );
    assert.deepEqual(session.tokens, [...c.prompt, ...c.tokens]);
    session.dispose();
  }
  const session = model.session([1, 2, 3], { temperature: 0 });
  const s = session.step();
  assert.deepEqual([s.position, s.keys, s.recomputed], [3, 4, false]);
  assert.deepEqual(s.attention.shape, [2, 4, 4]);
  const C = 32;
  assert.equal(s.macs.cached, 2 * (12 * C * C + 2 * C * 4) + C * V);
  assert.equal(s.macs.full, 2 * (12 * C * C * 4 + C * 4 * 5) + C * V);
  assert.equal(s.topTokens[0], s.token);
  assert.equal(s.topProbs[0], 1);
  assert.equal(session.step({ token: 7 }).token, 7);
  throwsNaming(() => session.step({ token: V }), 'token');
  // A change of the weights makes the cache stale; disposing the model ends the session.
  model.setParams({ 'transformer.ln_f.bias': new Array(32).fill(0) });
  throwsNaming(() => session.step(), 'session', /weights changed/);
  const again = model.session([1]);
  model.dispose();
  throwsNaming(() => again.step(), 'session', /disposed/);
});

test('nextToken gives the distribution after temperature, top-k and top-p, its top, and generate’s first draw', () => {
  const model = engine.loadModel(file('gpt2_tiny.safetensors'), { config });
  const c = reference.generate[0];
  const logits = model.trace(c.prompt).logits.data;
  const options = { temperature: c.temperature, topK: c.top_k, topP: c.top_p, seed: c.seed };
  const next = engine.nextToken(logits, options);
  assert.equal(next.token, c.tokens[0]);
  assert.ok(Math.abs(next.probs.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  assert.equal(next.topTokens.length, 10);
  assert.ok(next.topProbs[0] >= next.topProbs[9]);
  const kept = next.probs.filter((p) => p > 0).length;
  assert.ok(kept > 1 && kept < V, `top-p 0.9 keeps ${kept}`);
  assert.equal(engine.nextToken(logits, { topK: 3 }).probs.filter((p) => p > 0).length, 3);
  assert.equal(engine.nextToken(logits).token, null);
  assert.equal(engine.nextToken(Array.from(logits), { temperature: 0, top: 1 }).topProbs[0], 1);
  throwsNaming(() => engine.nextToken(logits, { topP: 0 }), 'topP');
  throwsNaming(() => engine.nextToken(logits, { top: V + 1 }), 'top');
  throwsNaming(() => engine.nextToken([1, NaN]), 'logits');
  model.dispose();
});

test('gelu and layerNormEps: a created tanh model round-trips through toSafetensors', () => {
  const model = engine.createModel({
    vocabSize: 13,
    contextLength: 8,
    layers: 1,
    heads: 2,
    width: 8,
    gelu: 'tanh',
    layerNormEps: 1e-3,
    seed: 4,
  });
  const again = engine.loadModel(model.toSafetensors());
  assert.equal(again.config.gelu, 'tanh');
  assert.equal(again.config.layerNormEps, 1e-3);
  assert.deepEqual(again.logits([1, 2, 3]).data, model.logits([1, 2, 3]).data);
  const exact = engine.loadModel(model.toSafetensors(), { gelu: 'exact' });
  assert.notDeepEqual(exact.logits([1, 2, 3]).data, model.logits([1, 2, 3]).data);
});

test('trace afterAttention splits each block into its attention branch and its MLP branch', () => {
  // Without an MLP the stream after the attention add is the block's output, bit for bit.
  const plain = engine.createModel({
    vocabSize: 13,
    contextLength: 8,
    layers: 2,
    heads: 2,
    width: 8,
    mlp: false,
    seed: 3,
  });
  const p = plain.trace([1, 2, 3, 4, 5], { afterAttention: true });
  assert.deepEqual(p.afterAttention.shape, [2, 5, 8]);
  assert.deepEqual(Array.from(p.afterAttention.data), Array.from(p.residual.data.subarray(5 * 8)));
  plain.dispose();
  // With an MLP, residual[l + 1] − afterAttention[l] is the MLP of ln_2(afterAttention[l]),
  // recomputed here from the parameters (exact GELU, LayerNorm eps 1e-5).
  const model = engine.createModel({
    vocabSize: 13,
    contextLength: 8,
    layers: 1,
    heads: 2,
    width: 8,
    mlp: true,
    seed: 4,
  });
  const t = model.trace([3, 1, 4], { afterAttention: true });
  const params = model.params();
  const W = (name) => params[`transformer.h.0.${name}`];
  const C = 8,
    T = 3;
  const erf = (x) => {
    // Abramowitz & Stegun 7.1.26 is too coarse here: integrate erf' numerically instead.
    let s = 0;
    const n = 2000;
    for (let k = 0; k < n; k++) {
      const u = (x * (k + 0.5)) / n;
      s += Math.exp(-u * u);
    }
    return ((2 / Math.sqrt(Math.PI)) * s * x) / n;
  };
  for (let i = 0; i < T; i++) {
    const x = Array.from(t.afterAttention.data.subarray(i * C, (i + 1) * C));
    const mean = x.reduce((a, b) => a + b, 0) / C;
    const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / C;
    const a = x.map(
      (v, c) => ((v - mean) / Math.sqrt(variance + 1e-5)) * W('ln_2.weight').data[c] + W('ln_2.bias').data[c],
    );
    const hidden = Array.from({ length: 4 * C }, (_, o) => {
      let s = W('mlp.c_fc.bias').data[o];
      for (let c = 0; c < C; c++) s += a[c] * W('mlp.c_fc.weight').data[o * C + c];
      return 0.5 * s * (1 + erf(s / Math.SQRT2));
    });
    for (let o = 0; o < C; o++) {
      let s = W('mlp.c_proj.bias').data[o];
      for (let c = 0; c < 4 * C; c++) s += hidden[c] * W('mlp.c_proj.weight').data[o * 4 * C + c];
      const branch = t.residual.data[(1 * T + i) * C + o] - x[o];
      assert.ok(Math.abs(branch - s) <= 1e-5 * (1 + Math.abs(s)), `row ${i}, column ${o}: ${branch} vs ${s}`);
    }
  }
  model.dispose();
});

// `got` runs as `want` does, bit for bit: the trace (logits, residual stream, layer 1's attention),
// 8 tokens of a session with their logits, the logit lens and the attribution.
function assertRunsAs(got, want) {
  const [g, w] = [got, want].map((m) => m.trace(tokens, { logits: 'all' }));
  assert.deepEqual(g.logits.data, w.logits.data);
  assert.deepEqual(g.residual.data, w.residual.data);
  assert.deepEqual(g.attention[1].weights.data, w.attention[1].weights.data);
  const [a, b] = [got, want].map((x) => x.session([1, 2, 3], { seed: 3, topK: 20 }));
  for (let i = 0; i < 8; i++) {
    const [sa, sb] = [a.step(), b.step()];
    assert.equal(sa.token, sb.token, `step ${i}`);
    assert.deepEqual(sa.logits, sb.logits, `step ${i}'s logits`);
  }
  (a.dispose(), b.dispose());
  assert.deepEqual(got.logitLens(tokens, { k: 5 }).topTokens.data, want.logitLens(tokens, { k: 5 }).topTokens.data);
  assert.deepEqual(
    got.attribute(tokens, { position: 3, token: 5 }).heads.data,
    want.attribute(tokens, { position: 3, token: 5 }).heads.data,
  );
}

test('inferenceOnly keeps float32 weights in panels: the same bits in every run, no training', async () => {
  // The same values summed in the same order (tests/cpp/model/inference_test.cpp, F32PanelsWeights):
  // the trace, a session's tokens and logits, the lens and the attribution equal the trainable
  // model's bit for bit; opened whole or slice by slice; training and params() refused by name.
  const bytes = file('gpt2_tiny.safetensors');
  const trainable = engine.loadModel(bytes, { config, weights: 'f32' });
  const run = engine.loadModel(bytes, { config, weights: 'f32', inferenceOnly: true });
  const opened = await engine.openModel(new Blob([bytes]), { config, inferenceOnly: true, sliceBytes: 999 });
  assert.deepEqual(trainable.weights, { precision: 'f32', inferenceOnly: false, bytes: trainable.weights.bytes });
  assert.deepEqual(run.weights, { precision: 'f32', inferenceOnly: true, bytes: trainable.weights.bytes });
  assert.deepEqual(opened.weights, run.weights, "'auto' fits: float32, for inference");
  for (const m of [run, opened]) assertRunsAs(m, trainable);
  throwsNaming(() => run.params(), 'params', /inference only.*inferenceOnly/);
  // logits() runs on it too, through the trace's forward: the trace's logits, bit for bit, for a batch as well
  assert.deepEqual(run.logits(tokens).data, run.trace(tokens, { logits: 'all' }).logits.data);
  const two = run.logits({ tokens: [...tokens, ...tokens], batch: 2, context: tokens.length });
  assert.deepEqual(two.shape, [2, tokens.length, V]);
  assert.deepEqual(two.data.subarray(tokens.length * V), run.trace(tokens, { logits: 'all' }).logits.data);
  const C = run.config.contextLength,
    many = Math.ceil(2 ** 26 / (C * V)) + 1; // sequences whose logits pass the trace's cap
  throwsNaming(
    () => run.logits({ tokens: new Array(many * C).fill(1), batch: many, context: C }),
    'tokens',
    /at most 67108864 \(2\^26\)/,
  );
  throwsNaming(
    () => run.step({ tokens: tokens.slice(0, 4), targets: tokens.slice(1, 5), batch: 1, context: 4 }),
    'step',
    /inference only/,
  );
  // F16 is for inference whatever inferenceOnly says
  const half = engine.loadModel(bytes, { config, weights: 'f16', inferenceOnly: false });
  assert.equal(half.weights.inferenceOnly, true);
  throwsNaming(() => engine.loadModel(bytes, { config, inferenceOnly: 'yes' }), 'inferenceOnly', /true or false/);
  await rejectsNaming(engine.openModel(bytes, { config, inferenceOnly: 1 }), 'inferenceOnly');
  for (const m of [trainable, run, opened, half]) m.dispose();
});

test('weights: f16 keeps the matrices as halves: the same top-10 next tokens as f32, inference only', async () => {
  // Tolerance on the logits: tests/cpp/model/inference_test.cpp's (F16Weights), where it is
  // stated: |F16 − F32| ≤ 2e-3 · max|logits|; the top 10 are the same tokens at every position,
  // in the same order but for near ties (float32 logits within twice the tolerance).
  const bytes = file('gpt2_tiny.safetensors');
  const f32 = engine.loadModel(bytes, { config, weights: 'f32' });
  const f16 = await engine.openModel(new Blob([bytes]), { config, weights: 'f16', sliceBytes: 999 });
  assert.deepEqual(f32.weights.precision, 'f32');
  assert.deepEqual(f16.weights.precision, 'f16');
  const params = f32.config.vocabSize * 32 + f32.config.contextLength * 32 + 2 * (12 * 32 * 32 + 13 * 32) + 2 * 32;
  assert.equal(f32.weights.bytes, params * 4);
  assert.ok(f16.weights.bytes < 0.53 * f32.weights.bytes, `${f16.weights.bytes} of ${f32.weights.bytes}`);
  const a = f32.trace(tokens, { logits: 'all' }).logits.data;
  const b = f16.trace(tokens, { logits: 'all' }).logits.data;
  const scale = a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const tolerance = 2e-3 * scale;
  let largest = 0;
  for (let i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  assert.ok(largest <= tolerance, `largest logit difference ${largest} > ${tolerance}`);
  for (let t = 0; t < tokens.length; t++) {
    const top = (logits) => engine.nextToken(logits.subarray(t * V, (t + 1) * V)).topTokens;
    const [ta, tb] = [top(a), top(b)];
    assert.deepEqual(
      [...ta].sort((x, y) => x - y),
      [...tb].sort((x, y) => x - y),
      `position ${t}`,
    );
    for (let i = 0; i < 10; i++) {
      if (ta[i] !== tb[i])
        assert.ok(Math.abs(a[t * V + ta[i]] - a[t * V + tb[i]]) <= 2 * tolerance, `near tie at ${t}`);
    }
  }
  // a session generates on F16 weights; training and the float32 buffer are refused by name
  const session = f16.session([1, 2, 3], { seed: 3 });
  assert.equal(typeof session.step().token, 'number');
  session.dispose();
  throwsNaming(() => f16.params(), 'params', /F16/);
  assert.deepEqual(f16.logits(tokens).data, b, 'logits() of an F16 model: its trace’s');
  throwsNaming(
    () => f16.step({ tokens: tokens.slice(0, 4), targets: tokens.slice(1, 5), batch: 1, context: 4 }),
    'step',
    /F16.*weights: 'f32'/,
  );
  // 'auto' on this machine's engine: float32 fits
  const auto = engine.loadModel(bytes, { config });
  assert.equal(auto.weights.precision, 'f32');
  throwsNaming(() => engine.loadModel(bytes, { config, weights: 'half' }), 'weights', /'f32', 'f16', 'bf16' or 'auto'/);
  await rejectsNaming(engine.openModel(bytes, { config, weights: 16 }), 'weights');
  for (const m of [f32, f16, auto]) m.dispose();
});

// A float32 rounded to the nearest bfloat16, ties to even, and back (kernels/half.h's
// f32_to_bf16_ref and bf16_to_f32_ref, for finite values).
function roundedToBf16(values) {
  const f = Float32Array.from(values);
  const u = new Uint32Array(f.buffer);
  for (let i = 0; i < u.length; i++) u[i] = (((u[i] + 0x7fff + ((u[i] >>> 16) & 1)) >>> 16) << 16) >>> 0;
  return f;
}

test('weights: bf16 runs as the float32 model of its rounded weights, bit for bit, inference only', async () => {
  // The engine's BF16 kernels convert each bfloat16 exactly and sum in float32's order, so a BF16
  // model's trace, session, lens and attribution equal those of a float32 model whose matrices
  // were rounded to bfloat16s here in JavaScript; opened whole or in slices of 999 bytes alike.
  const bytes = file('gpt2_tiny.safetensors');
  const rounded = engine.loadModel(bytes, { config, weights: 'f32' });
  const params = rounded.params();
  const matrices = {};
  for (const [name, t] of Object.entries(params))
    if (t.shape.length === 2) matrices[name] = { shape: t.shape, data: roundedToBf16(t.data) };
  rounded.setParams(matrices);
  const bf16 = engine.loadModel(bytes, { config, weights: 'bf16' });
  const sliced = await engine.openModel(new Blob([bytes]), { config, weights: 'bf16', sliceBytes: 999 });
  assert.deepEqual(bf16.weights, { precision: 'bf16', inferenceOnly: true, bytes: bf16.weights.bytes });
  assert.ok(bf16.weights.bytes < 0.53 * rounded.weights.bytes, `${bf16.weights.bytes} of ${rounded.weights.bytes}`);
  for (const m of [bf16, sliced]) {
    assertRunsAs(m, rounded);
    assert.deepEqual(m.logits(tokens).data, m.trace(tokens, { logits: 'all' }).logits.data, 'logits(): the trace’s');
  }
  // inference only, whatever inferenceOnly says; refusals name BF16 and the way out
  assert.equal(engine.loadModel(bytes, { config, weights: 'bf16', inferenceOnly: false }).weights.inferenceOnly, true);
  throwsNaming(() => bf16.params(), 'params', /BF16/);
  throwsNaming(
    () => bf16.step({ tokens: tokens.slice(0, 4), targets: tokens.slice(1, 5), batch: 1, context: 4 }),
    'step',
    /BF16.*weights: 'f32'/,
  );
  throwsNaming(() => bf16.toSafetensors(), 'toSafetensors', /BF16/);
  for (const m of [rounded, bf16, sliced]) m.dispose();
});

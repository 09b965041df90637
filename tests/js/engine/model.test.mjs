// engine.createModel / loadModel: the nanoGPT-compatible model through the WASM engine, against
// PyTorch (tests/fixtures/training/, make_training_fixtures.py): its initial weights, 20 training
// steps, the safetensors files torch wrote; and its errors, divergence, determinism, a flat heap,
// a toy task learned to near-zero loss, and web/lib/learn/session.js driving it.
//
// Tolerances are those of tests/cpp/model/gpt_test.cpp (the same float32 code runs here in WASM), where
// they are derived: per-step loss within 1e-5 relative, final weights within 1e-5 absolute except
// the key part of c_attn.bias (zero gradient in exact arithmetic) within the summed lr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';
import { createSession } from '../../../web/lib/learn/session.js';
import { mulberry32 } from '../../../web/lib/learn/random.js';

const engine = await loadEngine();
const training = (file) => new URL(`../../fixtures/training/${file}`, import.meta.url);
const fixture = (name) => JSON.parse(readFileSync(training(`${name}.json`), 'utf8'));
const TRAIN_FIXTURES = ['attention_only_1', 'attention_only_2', 'full_bias', 'full_nobias', 'full_dropout'];

const configOf = (c, seed) => ({
  vocabSize: c.vocab_size,
  contextLength: c.block_size,
  layers: c.n_layer,
  heads: c.n_head,
  width: c.n_embd,
  bias: c.bias,
  dropout: c.dropout,
  mlp: c.mlp,
  layerNorm: c.layer_norm,
  seed,
});

// Asserts `fn` throws an AttentionError naming `argument` (and matching `pattern`, when given).
function throwsNaming(fn, argument, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof AttentionError, `${error?.name}: ${error?.message}`);
    assert.equal(error.argument, argument, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

// web/lib/learn/tasks.js's reverse task: 5 digits, a bar (10), the digits backwards; scored after the bar.
function reverseBatch(random, B) {
  const T = 10;
  const tokens = new Int32Array(B * T),
    targets = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    const x = Array.from({ length: 5 }, () => Math.floor(random() * 10));
    const seq = [...x, 10, ...x.slice().reverse()];
    for (let p = 0; p < T; p++) {
      tokens[b * T + p] = seq[p];
      targets[b * T + p] = p >= 5 ? seq[p + 1] : -1;
    }
  }
  return { tokens, targets, batch: B, context: T };
}
// A small seeded generator (mulberry32) for the batches.
const seeded = mulberry32;
const reverseModel = (seed = 0) =>
  engine.createModel({ vocabSize: 11, contextLength: 10, layers: 2, heads: 2, width: 32, mlp: false, seed });

test('engine.features lists createModel and loadModel', () => {
  assert.equal(engine.features.createModel, true);
  assert.equal(engine.features.loadModel, true);
});

for (const name of TRAIN_FIXTURES) {
  test(`createModel equals PyTorch's GPT(config) after torch.manual_seed: ${name}`, () => {
    const fx = fixture(`gpt_train_${name}`);
    const model = engine.createModel(configOf(fx.config, fx.train.seed));
    const params = model.params();
    assert.deepEqual(Object.keys(params), Object.keys(fx.params));
    for (const [key, want] of Object.entries(fx.params)) {
      assert.deepEqual(params[key].shape, want.shape, key);
      assert.deepEqual(params[key].data, Float32Array.from(want.data), `${key} bit for bit`);
    }
    model.dispose();
  });

  test(`20 AdamW steps with clipping and warmup + cosine track PyTorch: ${name}`, () => {
    const fx = fixture(`gpt_train_${name}`);
    const t = fx.train;
    const model = engine.createModel(configOf(fx.config, t.seed));
    const T = fx.config.block_size,
      B = t.batch;
    const options = {
      lr: t.learning_rate,
      betas: [t.beta1, t.beta2],
      eps: t.eps,
      weightDecay: t.weight_decay,
      clip: t.clip,
      warmup: t.warmup_iters,
      decaySteps: t.lr_decay_iters,
      minLr: t.min_lr,
      seed: t.dropout_seed,
    };
    let worstLoss = 0;
    for (let k = 0; k < t.steps; k++) {
      const at = k * B * T;
      const batch = {
        tokens: fx.idx.data.slice(at, at + B * T),
        targets: fx.targets.data.slice(at, at + B * T),
        batch: B,
        context: T,
      };
      const r = model.step(batch, options);
      const want = fx.steps[k];
      assert.equal(r.step, k + 1);
      assert.ok(Math.abs(r.lr - want.lr) <= 1e-15, `lr ${r.lr} vs ${want.lr}`);
      const err = Math.abs(r.loss - want.loss.data[0]) / want.loss.data[0];
      assert.ok(err <= 1e-5, `step ${k}: loss ${r.loss} vs torch ${want.loss.data[0]}`);
      assert.ok(Math.abs(r.gradNorm - want.grad_norm.data[0]) <= 1e-4 * want.grad_norm.data[0], `step ${k} norm`);
      worstLoss = Math.max(worstLoss, err);
    }
    const lrSum = fx.steps.reduce((sum, s) => sum + s.lr, 0);
    const params = model.params();
    const C = fx.config.n_embd;
    let worst = 0;
    for (const [key, want] of Object.entries(fx.final)) {
      const keyBias = /attn\.c_attn\.bias$/.test(key);
      want.data.forEach((w, i) => {
        const err = Math.abs(params[key].data[i] - w);
        if (keyBias && i >= C && i < 2 * C) assert.ok(err <= lrSum, `${key}[${i}]`);
        else {
          assert.ok(err <= 1e-5, `${key}[${i}]: ${params[key].data[i]} vs ${w}`);
          worst = Math.max(worst, err);
        }
      });
    }
    console.log(
      `  [torch] ${name}: 20 steps, loss within ${worstLoss.toExponential(1)}, weights within ${worst.toExponential(1)}`,
    );
    model.dispose();
  });
}

test('toSafetensors writes the layout of the fixture file byte for byte, and loadModel reads it back', () => {
  const fx = fixture('gpt_step_tiny');
  const model = engine.createModel(configOf(fx.config, 1337));
  const bytes = model.toSafetensors();
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual(Buffer.from(bytes), readFileSync(training('gpt_tiny.safetensors')));
  const loaded = engine.loadModel(bytes);
  assert.deepEqual({ ...loaded.config, seed: 1337 }, model.config);
  assert.deepEqual(loaded.params(), model.params());
  model.dispose();
  loaded.dispose();
});

test("loadModel reads torch 1.13's own state_dict file given the head count it lacks, and F16 with metadata", () => {
  const fx = fixture('gpt_step_tiny');
  const torchFile = readFileSync(training('gpt_tiny_torch113.safetensors'));
  throwsNaming(() => engine.loadModel(torchFile), 'heads', /does not record n_head.*pass heads/);
  const c = configOf(fx.config, 0);
  // The rest of the config comes from the tensors' names and shapes.
  const inferred = engine.loadModel(torchFile, { heads: c.heads });
  const { seed, dropout, ...want } = c;
  for (const [key, value] of Object.entries(want)) assert.equal(inferred.config[key], value, key);
  assert.deepEqual(
    inferred.params()['transformer.wte.weight'].data,
    Float32Array.from(fx.params['transformer.wte.weight'].data),
  );
  inferred.dispose();
  const model = engine.loadModel(new Uint8Array(torchFile), {
    vocabSize: c.vocabSize,
    contextLength: c.contextLength,
    layers: c.layers,
    heads: c.heads,
    width: c.width,
  });
  for (const [key, want] of Object.entries(fx.params)) {
    const got = model.params()[key].data;
    assert.ok(
      Float32Array.from(want.data).every((w, i) => got[i] === w),
      key,
    );
  }
  model.dispose();
  const half = engine.loadModel(readFileSync(training('gpt_tiny_f16.safetensors')).buffer.slice(0), c);
  assert.equal(half.config.layers, 2);
  half.dispose();
  throwsNaming(() => engine.loadModel(new Uint8Array([1, 2, 3])), 'safetensors', /8-byte header/);
  throwsNaming(() => engine.loadModel('file.safetensors'), 'bytes');
  throwsNaming(() => engine.loadModel(torchFile, { heads: 3, width: 8 }), 'heads', /divide/);
});

test('params and setParams go by nanoGPT name, take some or all, treat lm_head.weight as the tied wte and check every value', () => {
  const model = reverseModel();
  const p = model.params();
  const wpe = p['transformer.wpe.weight'];
  wpe.data[3] = 0.5;
  model.setParams({ 'transformer.wpe.weight': wpe });
  assert.equal(model.params()['transformer.wpe.weight'].data[3], 0.5);
  const wte = { shape: [11, 32], data: new Float32Array(11 * 32).fill(0.25) };
  model.setParams({ 'lm_head.weight': wte });
  assert.ok(model.params()['transformer.wte.weight'].data.every((v) => v === 0.25));
  throwsNaming(
    () => model.setParams({ 'transformer.wpe.weight': { shape: [10, 31], data: new Float32Array(310) } }),
    'transformer.wpe.weight',
    /\(10, 32\)/,
  );
  throwsNaming(
    () => model.setParams({ 'transformer.h.0.mlp.c_fc.weight': wpe }),
    'transformer.h.0.mlp.c_fc.weight',
    /unknown/,
  );
  throwsNaming(() => model.setParams({ 'transformer.wte.weight': wte, 'lm_head.weight': wte }), 'lm_head.weight');
  const bad = { shape: [10, 32], data: new Float32Array(320).fill(NaN) };
  throwsNaming(() => model.setParams({ 'transformer.wpe.weight': bad }), 'transformer.wpe.weight', /finite/);
  assert.equal(model.params()['transformer.wpe.weight'].data[3], 0.5, 'a refused setParams changes nothing');
  model.dispose();
});

test('every bad config, batch, token and option is an AttentionError naming it', () => {
  const base = { vocabSize: 11, contextLength: 10, layers: 1, heads: 2, width: 8 };
  throwsNaming(() => engine.createModel({ ...base, vocabSize: 0 }), 'vocabSize', /\[1, 131072\]/);
  throwsNaming(() => engine.createModel({ ...base, contextLength: 1.5 }), 'contextLength');
  throwsNaming(() => engine.createModel({ ...base, layers: -1 }), 'layers');
  throwsNaming(() => engine.createModel({ ...base, heads: 3 }), 'heads', /must divide width = 8/);
  throwsNaming(() => engine.createModel({ ...base, bias: 'yes' }), 'bias');
  throwsNaming(() => engine.createModel({ ...base, dropout: 1 }), 'dropout', /\[0, 1\)/);
  throwsNaming(() => engine.createModel({ ...base, seed: 0.5 }), 'seed');
  throwsNaming(() => engine.createModel({ ...base, colour: 'red' }), 'colour', /unknown option/);
  throwsNaming(() => engine.createModel({ vocabSize: 11 }), 'contextLength', /required/);
  throwsNaming(() => engine.createModel({ ...base, vocabSize: 131072, width: 4096, heads: 1 }), 'config', /2\^29/);
  throwsNaming(() => engine.createModel({ ...base, gelu: 'relu' }), 'gelu', /'exact'.*'tanh'/);
  throwsNaming(() => engine.createModel({ ...base, layerNormEps: 0 }), 'layerNormEps', /\(0, 1\]/);
  throwsNaming(() => engine.createModel(null), 'config');

  const model = engine.createModel(base);
  const ok = reverseBatch(seeded(1), 2);
  throwsNaming(() => model.step(null), 'batch');
  throwsNaming(() => model.step({ ...ok, batch: 3 }), 'tokens', /expected 30 token ids/);
  throwsNaming(() => model.step({ ...ok, context: 11 }), 'context', /\[1, 10\]/);
  throwsNaming(() => model.step({ ...ok, tokens: [...ok.tokens.slice(0, 19), 11] }), 'tokens', /tokens\[19\]/);
  throwsNaming(() => model.step({ ...ok, tokens: [...ok.tokens.slice(0, 19), 0.5] }), 'tokens');
  throwsNaming(() => model.step({ ...ok, targets: [...ok.targets.slice(0, 19), -2] }), 'targets', /or -1/);
  throwsNaming(() => model.step({ ...ok, targets: new Int32Array(20).fill(-1) }), 'targets', /every target is -1/);
  throwsNaming(() => model.step(ok, { optimizer: 'adam' }), 'optimizer');
  throwsNaming(() => model.step(ok, { lr: -1 }), 'lr');
  throwsNaming(() => model.step(ok, { lr: NaN }), 'lr');
  throwsNaming(() => model.step(ok, { betas: [0.9] }), 'betas');
  throwsNaming(() => model.step(ok, { betas: [0.9, 1] }), 'betas');
  throwsNaming(() => model.step(ok, { eps: -1 }), 'eps');
  throwsNaming(() => model.step(ok, { weightDecay: -0.1 }), 'weightDecay');
  throwsNaming(() => model.step(ok, { clip: Infinity }), 'clip');
  throwsNaming(() => model.step(ok, { warmup: 5, decaySteps: 5 }), 'decaySteps', /more than warmup = 5/);
  throwsNaming(() => model.step(ok, { seed: -0.5 }), 'seed');
  throwsNaming(() => model.step(ok, { learningRate: 1 }), 'learningRate', /unknown option/);
  throwsNaming(() => model.evaluate({ ...ok, targets: undefined }), 'targets');
  throwsNaming(() => model.attention([]), 'tokens');
  throwsNaming(() => model.attention(new Array(11).fill(1)), 'tokens', /1 to 10/);
  throwsNaming(() => model.logits([1, 99]), 'tokens', /tokens\[1\]/);
  throwsNaming(() => model.generate([], 3), 'prompt');
  throwsNaming(() => model.generate([1], -1), 'count');
  throwsNaming(() => model.generate([1], 3, { temperature: -1 }), 'temperature');
  throwsNaming(() => model.generate([1], 3, { topK: 12 }), 'topK');
  assert.equal(model.steps, 0, 'no refused call took a step');
  assert.ok(model.step(ok).loss > 0, 'the model keeps working after errors');
  model.dispose();
  model.dispose(); // twice is fine
  throwsNaming(() => model.step(ok), 'step', /disposed/);
  throwsNaming(() => model.params(), 'params', /disposed/);
  throwsNaming(() => model.steps, 'steps', /disposed/);
});

test('a diverging step (lr 1e10) throws and leaves the last good weights; the SGD blow-up is undone entirely', () => {
  const model = reverseModel(1);
  const random = seeded(2);
  let threw = false;
  for (let k = 0; k < 10 && !threw; k++) {
    const before = model.params(),
      steps = model.steps;
    try {
      model.step(reverseBatch(random, 4), { lr: 1e10, clip: 0 });
    } catch (error) {
      threw = true;
      assert.ok(error instanceof AttentionError);
      assert.equal(error.argument, 'step');
      assert.match(error.message, /diverged/);
      assert.deepEqual(model.params(), before);
      assert.equal(model.steps, steps);
    }
  }
  assert.ok(threw, 'lr 1e10 diverges');
  model.dispose();

  const sgd = reverseModel(1);
  const initial = sgd.params();
  throwsNaming(() => sgd.step(reverseBatch(random, 4), { optimizer: 'sgd', lr: 1e300 }), 'step', /update made/);
  assert.deepEqual(sgd.params(), initial);
  assert.equal(sgd.steps, 0);
  assert.ok(Number.isFinite(sgd.step(reverseBatch(random, 4), { optimizer: 'sgd', lr: 0.1 }).loss));
  sgd.dispose();
});

test('the same seed, batches and options give the same losses and weights (with dropout too)', () => {
  for (const dropout of [0, 0.1]) {
    const runs = [0, 1].map(() => {
      const model = engine.createModel({
        vocabSize: 11,
        contextLength: 10,
        layers: 2,
        heads: 2,
        width: 16,
        dropout,
        seed: 7,
      });
      const random = seeded(3);
      const losses = Array.from({ length: 8 }, () => model.step(reverseBatch(random, 4), { lr: 3e-3, seed: 5 }).loss);
      const params = model.params();
      model.dispose();
      return { losses, params };
    });
    assert.deepEqual(runs[0].losses, runs[1].losses, `dropout ${dropout}`);
    assert.deepEqual(runs[0].params, runs[1].params);
  }
});

test("generate samples nanoGPT's tokens: the same weights and seed give torch.multinomial's draws", () => {
  const fx = fixture('gpt_generate');
  const trained = fixture(fx.model);
  const model = engine.createModel(configOf(trained.config, 0));
  model.setParams(trained.final);
  for (const c of fx.cases) {
    const tokens = model.generate(c.prompt, c.count, { temperature: c.temperature, topK: c.top_k, seed: c.seed });
    assert.deepEqual(tokens, c.tokens, `seed ${c.seed}, temperature ${c.temperature}, topK ${c.top_k}`);
  }
  model.dispose();
});

test('the attention kernel is chosen by name: every kernel trains the same model to the same losses within float error', () => {
  const run = (kernel) => {
    const model = engine.createModel({ vocabSize: 11, contextLength: 10, layers: 2, heads: 2, width: 16, seed: 7 });
    assert.equal(model.kernel, 'auto', 'the default');
    if (kernel) model.kernel = kernel;
    assert.equal(model.kernel, kernel ?? 'auto');
    const random = seeded(3);
    const losses = Array.from({ length: 6 }, () => model.step(reverseBatch(random, 4), { lr: 3e-3 }).loss);
    model.dispose();
    return losses;
  };
  const auto = run(null);
  assert.deepEqual(run('simd'), auto, "'auto' is 'simd' at 10 tokens, bit for bit");
  assert.deepEqual(run('reference'), run('reference'), 'each kernel is deterministic');
  for (const kernel of ['reference', 'vectorized', 'tiled']) {
    const losses = run(kernel);
    losses.forEach((loss, k) =>
      assert.ok(Math.abs(loss - auto[k]) <= 1e-5 * Math.abs(auto[k]), `${kernel} step ${k}: ${loss} vs ${auto[k]}`),
    );
  }
  const model = engine.createModel({ vocabSize: 11, contextLength: 10, layers: 1, heads: 1, width: 8 });
  throwsNaming(() => (model.kernel = 'fast'), 'kernel', /kernel/);
  throwsNaming(
    () => (model.kernel = 3),
    'kernel',
    /expected 'reference', 'vectorized', 'simd', 'tiled' or 'auto', got/,
  );
  assert.equal(model.kernel, 'auto', 'a refused name changes nothing');
  model.dispose();
  throwsNaming(() => (model.kernel = 'simd'), 'kernel', /disposed/);
});

test('a 2-layer attention-only model learns to reverse digits to near-zero loss in a few seconds', () => {
  const model = reverseModel(0);
  const random = seeded(4);
  const start = performance.now();
  let loss = Infinity,
    steps = 0;
  while (loss > 0.01 && steps < 1000) {
    loss = model.step(reverseBatch(random, 16), { lr: 1e-2, weightDecay: 0 }).loss;
    steps++;
  }
  const seconds = (performance.now() - start) / 1000;
  console.log(`  [learn] reverse: loss ${loss.toFixed(4)} after ${steps} steps, ${seconds.toFixed(2)} s`);
  assert.ok(loss <= 0.01, `loss ${loss} after ${steps} steps`);
  const held = model.evaluate(reverseBatch(seeded(99), 64));
  assert.ok(held.accuracy >= 0.99, `held-out accuracy ${held.accuracy}`);
  // After the bar, each position attends to the digit mirrored about it (layer 2 or 1).
  const tokens = [3, 1, 4, 1, 5, 10, 5, 1, 4, 1];
  assert.deepEqual(model.generate(tokens.slice(0, 6), 5, { temperature: 0 }), [5, 1, 4, 1, 3]);
  model.dispose();
});

test('evaluate predicts the argmax of logits; attention gives per-layer q, k, v, scores, weights (H, T, ·)', () => {
  const model = reverseModel(5);
  const batch = reverseBatch(seeded(6), 3);
  const e = model.evaluate(batch);
  assert.ok(e.predictions instanceof Int32Array && e.predictions.length === 30);
  const logits = model.logits(batch);
  assert.deepEqual(logits.shape, [3, 10, 11]);
  for (let i = 0; i < 30; i++) {
    const row = Array.from(logits.data.subarray(i * 11, i * 11 + 11));
    assert.equal(e.predictions[i], row.indexOf(Math.max(...row)));
  }
  const one = model.logits(Array.from(batch.tokens.subarray(10, 20)));
  assert.deepEqual(one.shape, [10, 11]);
  assert.deepEqual(Array.from(one.data), Array.from(logits.data.subarray(110, 220)));
  assert.equal(one.get().length, 10);

  const layers = model.attention(Array.from(batch.tokens.subarray(0, 7)));
  assert.equal(layers.length, 2);
  for (const layer of layers) {
    assert.deepEqual(layer.q.shape, [2, 7, 16]);
    assert.deepEqual(layer.scores.shape, [2, 7, 7]);
    const w = layer.get('weights');
    w.forEach((head) =>
      head.forEach((row, i) => {
        assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
        row.forEach((v, j) => j > i && assert.equal(v, 0, 'causal'));
      }),
    );
    throwsNaming(() => layer.get('dropped'), 'get');
  }
  const a = model.generate([1, 2], 20, { seed: 3, topK: 5 });
  assert.deepEqual(model.generate([1, 2], 20, { seed: 3, topK: 5 }), a);
  assert.ok(a.every((t) => Number.isInteger(t) && t >= 0 && t < 11));
  assert.equal(model.generate([1, 2], 30, { temperature: 0 }).length, 30, 'crops its context past contextLength');
  model.dispose();
});

test('the heap is flat across many steps, evaluations and models', () => {
  const model = engine.createModel({ vocabSize: 65, contextLength: 16, layers: 2, heads: 4, width: 32 });
  const random = seeded(7);
  const batch = () => {
    const tokens = Array.from({ length: 64 }, () => Math.floor(random() * 65));
    return { tokens, targets: tokens.map((t) => (t + 1) % 65), batch: 4, context: 16 };
  };
  for (let k = 0; k < 5; k++) model.step(batch());
  model.evaluate(batch());
  model.attention(batch().tokens.slice(0, 16));
  model.generate([1], 20);
  model.toSafetensors();
  const bytes = engine.heapBytes(),
    used = engine.heapUsed();
  for (let k = 0; k < 200; k++) {
    model.step(batch(), { lr: 1e-3 });
    if (k % 20 === 0) {
      model.evaluate(batch());
      model.attention(batch().tokens.slice(0, 16));
      model.generate([1], 20);
      model.toSafetensors();
      engine.createModel({ vocabSize: 5, contextLength: 4, layers: 1, heads: 1, width: 4 }).dispose();
    }
  }
  assert.equal(engine.heapBytes(), bytes);
  assert.ok(engine.heapUsed() <= used + 4096, `heap used ${used} → ${engine.heapUsed()}`);
  model.dispose();
});

test('web/lib/learn/session.js trains, evaluates and reads attention through the engine', () => {
  const session = createSession(engine, {
    task: { id: 'reverse' },
    settings: { layers: 1, heads: 1, width: 32, mlp: false, layerNorm: true, lr: 0.01, batch: 16, seed: 3 },
  });
  const losses = session.train(300);
  assert.equal(losses.length, 300);
  assert.equal(session.steps, 300);
  assert.ok(losses.at(-1).loss < losses[0].loss / 2, `${losses[0].loss} → ${losses.at(-1).loss}`);
  const e = session.evaluate();
  assert.ok(e.accuracy > 0.5, `accuracy ${e.accuracy}`);
  const attention = session.attention(session.example().tokens);
  assert.equal(attention.length, 1);
  assert.equal(attention[0].weights.length, 1);
  assert.equal(attention[0].weights[0].length, 10);
  session.dispose();
});

test("the README's Node example (examples/train-node.mjs) trains to near-zero loss and exits 0", () => {
  const script = fileURLToPath(new URL('../../../examples/train-node.mjs', import.meta.url));
  const output = execFileSync(process.execPath, [script], { encoding: 'utf8' }); // throws on a non-zero exit
  const final = /final loss (\d+\.\d+)/.exec(output);
  assert.ok(final && Number(final[1]) <= 0.01, output);
  assert.match(output, /accuracy 100\.0 %/);
  assert.match(output, /3 1 4 1 5 \| → 5 1 4 1 3/);
});

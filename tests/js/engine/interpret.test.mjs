// The interpretability tools through the engine (model.ablate, ablationSweep, attribute,
// logitLens: web/engine/interpret.js over src/bindings/abi_interpret.cpp) against PyTorch:
// tests/fixtures/interpret/ (make_interpret_fixtures.py, TransformerLens's definitions in torch
// 1.13) on a nanoGPT model, a lean one (no biases, MLPs or LayerNorms) and Hugging Face's GPT-2
// layout; and every bad argument an AttentionError naming it, the next good call still right.
//
// Tolerances: tests/cpp/model/interpret_test.cpp's, where they are derived (the same float32 code
// runs here in WASM). δ = 1e-6 + 4e-5·max|tensor| for a tensor of the forward (logits, z);
// probabilities, log-probabilities and losses within 2δ of the logits' δ plus 1e-6·|value|;
// attribution components within δ of their vector; a top token may differ from torch's only for
// one whose torch logit is within 2δ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadEngine, AttentionError } from '../../../web/engine/engine.js';

const engine = await loadEngine();
const here = (path) => new URL(`../../fixtures/interpret/${path}`, import.meta.url);
const NAMES = ['nanogpt', 'lean', 'gpt2'];

const fixtures = Object.fromEntries(
  NAMES.map((name) => {
    const fx = JSON.parse(readFileSync(here(`${name}.json`), 'utf8'));
    const config = fx.config_json ? readFileSync(here(fx.config_json), 'utf8') : undefined;
    const model = engine.loadModel(readFileSync(here(fx.file)), config ? { config } : {});
    return [name, { fx, model }];
  }),
);

const maxAbs = (v) => v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const deltaOf = (v) => 1e-6 + 4e-5 * maxAbs(v);
const data = (t) => (Array.isArray(t) ? t : t.data);

// Every |got − want| ≤ allowed + rel·|want|.
function within(what, got, want, allowed, rel = 0) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const bound = allowed + rel * Math.abs(want[i]);
    assert.ok(Math.abs(got[i] - want[i]) <= bound, `${what}[${i}]: ${got[i]} vs torch ${want[i]} (allowed ${bound})`);
  }
}

function softmax(row) {
  const m = Math.max(...row);
  const e = row.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function throwsNaming(fn, argument, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof AttentionError, `${error?.name}: ${error?.message}`);
    assert.equal(error.argument, argument, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

for (const name of NAMES) {
  test(`ablate (${name}): zero and mean ablation give torch's logits, losses and probabilities at p`, () => {
    const { fx, model } = fixtures[name];
    const V = model.config.vocabSize,
      p = fx.position;
    const clean = data(fx.clean.logits);
    for (const a of fx.ablations) {
      const want = data(a.logits);
      const delta = Math.max(deltaOf(clean), deltaOf(want));
      const r = model.ablate(fx.tokens, {
        layer: a.layer,
        head: a.head,
        position: p,
        mode: a.mode,
        reference: fx.reference,
        logits: true,
      });
      const at = `${name} ${a.mode} (${a.layer}, ${a.head})`;
      assert.deepEqual([r.layer, r.head, r.position, r.mode], [a.layer, a.head, p, a.mode]);
      assert.deepEqual(r.ablatedLogits.shape, [fx.tokens.length, V]);
      within(`${at} clean logits`, r.logits.data, clean, deltaOf(clean));
      within(`${at} ablated logits`, r.ablatedLogits.data, want, delta);
      within(`${at} losses`, r.losses, data(fx.clean.losses), 2 * delta, 1e-6);
      within(`${at} ablated losses`, r.ablatedLosses, data(a.losses), 2 * delta, 1e-6);
      within(`${at} loss`, [r.loss], data(fx.clean.loss), 2 * delta, 1e-6);
      within(`${at} ablated loss`, [r.ablatedLoss], data(a.loss), 2 * delta, 1e-6);
      within(`${at} clean probs`, r.probs, softmax(clean.slice(p * V, (p + 1) * V)), 2 * delta, 1e-6);
      within(`${at} ablated probs`, r.ablatedProbs, softmax(want.slice(p * V, (p + 1) * V)), 2 * delta, 1e-6);
      const hs = model.config.width / model.config.heads;
      const means = data(fx.mean_z);
      const from = (a.layer * model.config.heads + a.head) * hs;
      const value = a.mode === 'mean' ? means.slice(from, from + hs) : new Array(hs).fill(0);
      within(`${at} value`, r.value, value, deltaOf(means));
    }
  });

  test(`ablationSweep (${name}): every head's log p and loss are torch's, whole and block by block`, () => {
    const { fx, model } = fixtures[name];
    const { layers: L, heads: H } = model.config;
    let delta = deltaOf(data(fx.clean.logits));
    for (const a of fx.ablations) delta = Math.max(delta, deltaOf(data(a.logits)));
    for (const mode of ['zero', 'mean']) {
      const options = { position: fx.position, token: fx.token, mode, reference: fx.reference, loss: true };
      const whole = model.ablationSweep(fx.tokens, options);
      const at = `${name} ${mode}`;
      assert.deepEqual(whole.ablatedLogProb.shape, [L, H]);
      assert.deepEqual(whole.layers, [...Array(L).keys()]);
      within(`${at} clean log p`, [whole.logProb], data(fx.clean.log_prob), 2 * delta, 1e-6);
      within(`${at} clean loss`, [whole.loss], data(fx.clean.loss), 2 * delta, 1e-6);
      within(`${at} log p`, whole.ablatedLogProb.data, data(fx.sweep[mode].log_prob), 2 * delta, 1e-6);
      within(`${at} loss`, whole.ablatedLoss.data, data(fx.sweep[mode].loss), 2 * delta, 1e-6);
      // Block by block, as the page fills the picture: the same bits, NaN outside the block.
      for (let l = 0; l < L; l++) {
        const one = model.ablationSweep(fx.tokens, { ...options, layers: [l] });
        assert.deepEqual(one.layers, [l]);
        assert.equal(one.logProb, whole.logProb);
        for (let i = 0; i < L * H; i++) {
          const mine = Math.floor(i / H) === l;
          if (mine) assert.equal(one.ablatedLogProb.data[i], whole.ablatedLogProb.data[i], `${at} block ${l}`);
          else assert.ok(Number.isNaN(one.ablatedLogProb.data[i]), `${at} block ${l}: entry ${i} not swept`);
        }
      }
    }
    // Without the loss: rows up to p only, no loss; without reuse: the same bits from more rows.
    const quick = model.ablationSweep(fx.tokens, { position: fx.position, token: fx.token });
    const naive = model.ablationSweep(fx.tokens, { position: fx.position, token: fx.token, reuse: false });
    assert.equal(quick.loss, null);
    assert.equal(quick.ablatedLoss, null);
    assert.deepEqual(quick.ablatedLogProb.data, naive.ablatedLogProb.data);
    assert.ok(quick.rowsRun < naive.rowsRun, `${quick.rowsRun} < ${naive.rowsRun}`);
  });

  test(`attribute (${name}): every component is torch's and they add up to the logit`, () => {
    const { fx, model } = fixtures[name];
    const { layers: L, heads: H } = model.config;
    for (const which of ['attribution', 'attribution_diff']) {
      const other = which === 'attribution_diff' ? fx.other : undefined;
      const r = model.attribute(fx.tokens, { position: fx.position, token: fx.token, other });
      const w = fx[which];
      const want = [
        ...data(w.heads),
        ...data(w.mlps),
        ...['embed', 'pos_embed', 'attention_bias', 'ln_bias', 'logit'].flatMap((k) => data(w[k])),
      ];
      const got = [...r.heads.data, ...(r.mlps ?? []), r.embed, r.posEmbed, r.attentionBias, r.lnBias, r.logit];
      const delta = deltaOf(want);
      assert.deepEqual(r.heads.shape, [L, H]);
      assert.equal(r.mlps === null, !model.config.mlp);
      assert.equal(r.other, other ?? null);
      within(`${name} ${which}`, got, want, delta);
      within(`${name} ${which} scale`, [r.scale], data(w.scale), 1e-6, 4e-5);
      within(`${name} ${which} sum`, [r.total + r.lnBias], [r.logit], delta);
    }
  });

  test(`logitLens (${name}): top tokens, probabilities and the chosen token's rank are torch's`, () => {
    const { fx, model } = fixtures[name];
    const { layers: L, vocabSize: V } = model.config;
    const T = fx.tokens.length,
      p = fx.position,
      c = fx.token,
      lens = fx.lens,
      k = lens.k;
    const logits = data(lens.logits);
    const delta = deltaOf(logits);
    const r = model.logitLens(fx.tokens, { k, position: p, token: c });
    assert.deepEqual(r.positions, [...Array(T).keys()]);
    assert.deepEqual(r.topTokens.shape, [L + 1, T, k]);
    const want = data(lens.top_tokens);
    for (let i = 0; i < want.length; i++) {
      if (r.topTokens.data[i] === want[i]) continue;
      const row = Math.floor(i / k) * V;
      assert.ok(
        Math.abs(logits[row + r.topTokens.data[i]] - logits[row + want[i]]) <= 2 * delta,
        `${name} top token ${i}: ${r.topTokens.data[i]}, torch ${want[i]}`,
      );
    }
    within(`${name} top probs`, r.topProbs.data, data(lens.top_probs), 2 * delta, 1e-6);
    within(`${name} token probs`, r.token.probs, data(lens.token_probs), 2 * delta, 1e-6);
    within(`${name} token logits`, r.token.logits, data(lens.token_logits), delta);
    for (let l = 0; l <= L; l++) {
      const row = logits.slice((l * T + p) * V, (l * T + p + 1) * V);
      const near = row.filter((x, v) => v !== c && Math.abs(x - row[c]) <= 2 * delta).length;
      assert.ok(Math.abs(r.token.ranks[l] - lens.token_ranks[l]) <= near, `${name} rank at layer ${l}`);
    }
    // Chosen positions are read alone, in order, with the same bits.
    const some = model.logitLens(fx.tokens, { k, positions: [1, p] });
    assert.equal(some.token, null);
    for (let l = 0; l <= L; l++)
      for (const [i, t] of [1, p].entries())
        for (let j = 0; j < k; j++) {
          assert.equal(some.topTokens.data[(l * 2 + i) * k + j], r.topTokens.data[(l * T + t) * k + j]);
          assert.equal(some.topProbs.data[(l * 2 + i) * k + j], r.topProbs.data[(l * T + t) * k + j]);
        }
  });
}

test("the lens after the last block and ablate's clean numbers are the model's own logits", () => {
  const { fx, model } = fixtures.gpt2;
  const V = model.config.vocabSize,
    L = model.config.layers,
    T = fx.tokens.length;
  const logits = model.logits(fx.tokens).data;
  const lens = model.logitLens(fx.tokens, { k: 3, position: 4, token: 9 });
  assert.equal(lens.token.logits[L], logits[4 * V + 9]);
  const a = model.ablate(fx.tokens, { layer: 0, head: 0, logits: true });
  assert.equal(a.position, T - 1, 'position defaults to the last');
  assert.deepEqual(a.logits.data, logits);
});

test('a sequence of one token has no loss: null, and no losses', () => {
  const { model } = fixtures.nanogpt;
  const r = model.ablate([3], { layer: 0, head: 0 });
  assert.equal(r.loss, null);
  assert.equal(r.ablatedLoss, null);
  assert.equal(r.losses.length, 0);
  assert.equal(r.position, 0);
  const s = model.ablationSweep([3], { token: 4, loss: true });
  assert.equal(s.loss, null);
});

// Hostile arguments: each an AttentionError naming the argument; the model still answers right.
const { fx, model } = fixtures.nanogpt;
const tokens = fx.tokens;
const { vocabSize: V, layers: L, heads: H, contextLength } = model.config;
const poisoned = { valueOf: () => 1 };
const cases = [
  ['ablate', 'tokens', () => model.ablate([], { layer: 0, head: 0 })],
  ['ablate', 'tokens', () => model.ablate(new Array(contextLength + 1).fill(1), { layer: 0, head: 0 })],
  ['ablate', 'tokens', () => model.ablate([1, V], { layer: 0, head: 0 })],
  ['ablate', 'tokens', () => model.ablate('abc', { layer: 0, head: 0 })],
  ['ablate', 'layer', () => model.ablate(tokens, { head: 0 })],
  ['ablate', 'layer', () => model.ablate(tokens, { layer: L, head: 0 })],
  ['ablate', 'layer', () => model.ablate(tokens, { layer: poisoned, head: 0 })],
  ['ablate', 'head', () => model.ablate(tokens, { layer: 0, head: H })],
  ['ablate', 'head', () => model.ablate(tokens, { layer: 0, head: 0.5 })],
  ['ablate', 'position', () => model.ablate(tokens, { layer: 0, head: 0, position: tokens.length })],
  ['ablate', 'position', () => model.ablate(tokens, { layer: 0, head: 0, position: -1 })],
  ['ablate', 'mode', () => model.ablate(tokens, { layer: 0, head: 0, mode: 'resample' })],
  ['ablate', 'reference', () => model.ablate(tokens, { layer: 0, head: 0, mode: 'mean' })],
  ['ablate', 'reference', () => model.ablate(tokens, { layer: 0, head: 0, mode: 'mean', reference: [] })],
  ['ablate', 'reference', () => model.ablate(tokens, { layer: 0, head: 0, mode: 'mean', reference: [V] })],
  ['ablate', 'logits', () => model.ablate(tokens, { layer: 0, head: 0, logits: 1 })],
  ['ablate', 'heads', () => model.ablate(tokens, { layer: 0, heads: 0 })],
  ['ablate', 'options', () => model.ablate(tokens, 7)],
  ['ablationSweep', 'token', () => model.ablationSweep(tokens, {})],
  ['ablationSweep', 'token', () => model.ablationSweep(tokens, { token: V })],
  ['ablationSweep', 'token', () => model.ablationSweep(tokens, { token: NaN })],
  ['ablationSweep', 'layers', () => model.ablationSweep(tokens, { token: 1, layers: [1, 1] })],
  ['ablationSweep', 'layers', () => model.ablationSweep(tokens, { token: 1, layers: [2, 1] })],
  ['ablationSweep', 'layers', () => model.ablationSweep(tokens, { token: 1, layers: [L] })],
  ['ablationSweep', 'layers', () => model.ablationSweep(tokens, { token: 1, layers: 0 })],
  ['ablationSweep', 'loss', () => model.ablationSweep(tokens, { token: 1, loss: 'yes' })],
  ['ablationSweep', 'reuse', () => model.ablationSweep(tokens, { token: 1, reuse: null })],
  ['ablationSweep', 'position', () => model.ablationSweep(tokens, { token: 1, position: Infinity })],
  ['attribute', 'token', () => model.attribute(tokens, {})],
  ['attribute', 'token', () => model.attribute(tokens, { token: -1 })],
  ['attribute', 'other', () => model.attribute(tokens, { token: 1, other: V })],
  ['attribute', 'other', () => model.attribute(tokens, { token: 1, other: '2' })],
  ['attribute', 'position', () => model.attribute(tokens, { token: 1, position: 99 })],
  ['logitLens', 'k', () => model.logitLens(tokens, { k: 0 })],
  ['logitLens', 'k', () => model.logitLens(tokens, { k: 101 })],
  ['logitLens', 'k', () => model.logitLens(tokens, { k: V + 1 })],
  ['logitLens', 'positions', () => model.logitLens(tokens, { positions: [3, 2] })],
  ['logitLens', 'positions', () => model.logitLens(tokens, { positions: [tokens.length] })],
  ['logitLens', 'token', () => model.logitLens(tokens, { position: 2 })],
  ['logitLens', 'position', () => model.logitLens(tokens, { token: 2 })],
  ['logitLens', 'position', () => model.logitLens(tokens, { token: 2, position: -1 })],
  ['logitLens', 'token', () => model.logitLens(tokens, { token: V, position: 1 })],
];
for (const [method, argument, call] of cases) {
  test(`${method}: ${call.toString().slice(6, 90)} → AttentionError naming '${argument}'`, () => {
    throwsNaming(call, argument);
    const r = model.attribute(tokens, { position: fx.position, token: fx.token });
    within('after the error', [r.logit], data(fx.attribution.logit), deltaOf(data(fx.attribution.logit)));
  });
}

test('a getter that throws in the options is an AttentionError naming it; a disposed model names its method', () => {
  const options = {
    layer: 0,
    get head() {
      throw new Error('boom');
    },
  };
  throwsNaming(() => model.ablate(tokens, options), 'head', /boom/);
  const gone = engine.loadModel(readFileSync(here(fx.file)));
  gone.dispose();
  throwsNaming(() => gone.ablate(tokens, { layer: 0, head: 0 }), 'ablate', /disposed/);
  throwsNaming(() => gone.ablationSweep(tokens, { token: 1 }), 'ablationSweep', /disposed/);
  throwsNaming(() => gone.attribute(tokens, { token: 1 }), 'attribute', /disposed/);
  throwsNaming(() => gone.logitLens(tokens), 'logitLens', /disposed/);
});

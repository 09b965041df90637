// The model host's requests for what a head does (web/tools/model-host.js: ablate, sweep,
// attribute, lens) on the project's shipped model: each answers the engine's own numbers for the
// sentence's ids, with the tokens' text; the sweep one block per request gives the whole
// sweep's bits; a bad argument is refused naming it, and the model open stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadEngine } from '../../../web/engine/engine.js';
import { modelRequests } from '../../../web/tools/model-host.js';

const engine = await loadEngine();
const modelBytes = readFileSync(new URL('../../../web/models/brown-wordnet.safetensors', import.meta.url));
const tokenizerText = readFileSync(
  new URL('../../../web/models/brown-wordnet.tokenizer.json', import.meta.url),
  'utf8',
);
const shipped = () => ({
  name: 'brown-wordnet',
  source: new Uint8Array(modelBytes),
  tokenizer: { json: tokenizerText, name: 'brown-wordnet.tokenizer.json' },
});
// The same model, directly through the engine.
const direct = engine.loadModel(new Uint8Array(modelBytes));

async function opened() {
  const requests = modelRequests(Promise.resolve(engine));
  const call = (op, ...args) => requests.handle(op, args);
  await call('open', shipped());
  return call;
}
async function rejectsNaming(promise, argument) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.argument, argument, `${error.name}: ${error.message}`);
    return true;
  });
}
const sentence = 'She sat on the bank of the river and watched the water go by.';

test('RealModel_AblateAnswersTheEnginesNumbersWithTheTokensText', async () => {
  const call = await opened();
  const { ids, pieces } = await call('encode', sentence);
  const p = 5,
    token = ids[p + 1];
  const a = await call('ablate', ids, { layer: 1, head: 2, position: p, token });
  const want = direct.ablate(ids, { layer: 1, head: 2, position: p });
  assert.deepEqual(a.ablatedProbs, want.ablatedProbs);
  assert.deepEqual(a.probs, want.probs);
  assert.equal(a.loss, want.loss);
  assert.equal(a.ablatedLoss, want.ablatedLoss);
  assert.equal(a.text, pieces[p + 1].display);
  assert.ok(
    a.rows.some((r) => r.id === token),
    'the candidate is a row',
  );
  for (const r of a.rows) {
    assert.equal(r.clean, want.probs[r.id]);
    assert.equal(r.ablated, want.ablatedProbs[r.id]);
    assert.equal(typeof r.text, 'string');
  }
  assert.equal(a.logits, undefined, 'no logits cross to the page');
  // Mean ablation over a reference text, encoded by the host.
  const reference = 'The river ran past the old mill and under the stone bridge.';
  const m = await call('ablate', ids, { layer: 1, head: 2, position: p, token, mode: 'mean', reference });
  const refIds = (await call('encode', reference)).ids;
  assert.deepEqual(
    m.ablatedProbs,
    direct.ablate(ids, { layer: 1, head: 2, position: p, mode: 'mean', reference: refIds }).ablatedProbs,
  );
  assert.equal(m.mode, 'mean');
});

test('RealModel_TheSweepBlockByBlockIsTheWholeSweep', async () => {
  const call = await opened();
  const { ids } = await call('encode', sentence);
  const { layers: L, heads: H } = direct.config;
  const p = 7,
    token = ids[p + 1];
  const whole = direct.ablationSweep(ids, { position: p, token });
  for (let layer = 0; layer < L; layer++) {
    const r = await call('sweep', ids, { layer, position: p, token });
    assert.equal(r.layer, layer);
    assert.equal(r.logProb, whole.logProb);
    assert.deepEqual(Array.from(r.row), Array.from(whole.ablatedLogProb.data.slice(layer * H, (layer + 1) * H)));
  }
});

test('RealModel_AttributionAndLensAnswerTheEnginesNumbers', async () => {
  const call = await opened();
  const { ids, pieces } = await call('encode', sentence);
  const p = 4,
    token = ids[p + 1];
  const a = await call('attribute', ids, { position: p, token });
  const want = direct.attribute(ids, { position: p, token });
  assert.deepEqual(a.heads.data, want.heads.data);
  assert.deepEqual(a.mlps, want.mlps);
  assert.equal(a.logit, want.logit);
  assert.equal(a.text, pieces[p + 1].display);
  const lens = await call('lens', ids, { k: 3, position: p, token });
  const w = direct.logitLens(ids, { k: 3, position: p, token });
  assert.deepEqual(lens.topTokens.data, w.topTokens.data);
  assert.deepEqual(lens.topProbs.data, w.topProbs.data);
  assert.deepEqual(lens.token.ranks, w.token.ranks);
  assert.equal(lens.token.text, pieces[p + 1].display);
  assert.equal(lens.topText.length, lens.topTokens.data.length);
});

test('RealModel_InterpretRequestsRefuseBadArgumentsByNameAndTheModelStays', async () => {
  const call = await opened();
  const { ids } = await call('encode', sentence);
  await rejectsNaming(call('ablate', ids, { layer: 99, head: 0 }), 'layer');
  await rejectsNaming(call('ablate', ids, { layer: 0, head: 0, mode: 'mean' }), 'reference');
  await rejectsNaming(call('ablate', ids, { layer: 0, head: 0, mode: 'mean', reference: '  ' }), 'reference');
  await rejectsNaming(call('sweep', ids, { layer: -1, token: 1 }), 'layer');
  await rejectsNaming(call('sweep', ids, { layer: 0 }), 'token');
  await rejectsNaming(call('attribute', ids, { token: 1e9 }), 'token');
  await rejectsNaming(call('lens', ids, { k: 0 }), 'k');
  const a = await call('attribute', ids, { token: 5 });
  assert.equal(a.logit, direct.attribute(ids, { token: 5 }).logit);
});

test('RealModel_TheBankMeasureIsSenseSeparationOfTheEnginesStreams', async () => {
  const call = await opened();
  const { DEFAULT_SENSES, senseSeparation } = await import('../../../web/lib/real/sense-separation.js');
  const { wordPosition } = await import('../../../web/lib/real/view.js');
  const { fromTokenizerJson } = await import('../../../web/lib/tokenizer/index.js');
  const spec = {
    word: DEFAULT_SENSES.word,
    senses: DEFAULT_SENSES.senses.map((s) => ({ name: s.name, sentences: [...s.sentences] })),
  };
  const got = await call('senses', spec);
  // The same measure of the same streams, made here from the engine directly.
  const tokenizer = fromTokenizerJson(tokenizerText, { file: 'tokenizer.json' });
  const uses = spec.senses.flatMap((s) =>
    s.sentences.map((text) => {
      const pos = wordPosition(tokenizer, text, spec.word);
      return {
        sense: s.name,
        position: pos.index,
        residual: direct.trace(pos.ids, { qkv: false, scores: false, weights: false, residual: true, logits: 'none' })
          .residual,
      };
    }),
  );
  const want = senseSeparation(uses, { word: spec.word });
  assert.deepEqual(got, want);
  assert.equal(got.layers.length, direct.config.layers + 1);
  assert.match(got.verdict.sentence, /senses/);
  // A sentence without the word is refused naming where it is.
  await rejectsNaming(
    call('senses', {
      ...spec,
      senses: [{ name: 'river', sentences: ['No such word here.', 'The bank.'] }, spec.senses[1]],
    }),
    'senses',
  );
  await assert.rejects(
    call('senses', { ...spec, senses: [{ name: 'river', sentences: ['No such word here.'] }] }),
    /senses\[0\]\.sentences\[0\]/,
  );
});

// The opening prediction of "what a head does" (interpret-run's 'predictions') for a model kept
// as F16 as for float32 (model.logits once refused an F16 model): the trace's logits.
test('RealModel_PredictionsAnswerInBothPrecisionsWithTheEnginesTopTokens', async () => {
  for (const weights of ['f32', 'f16']) {
    const requests = modelRequests(Promise.resolve(engine));
    const call = (op, ...args) => requests.handle(op, args);
    await call('open', { ...shipped(), weights });
    const { ids: sentenceIds } = await call('encode', sentence);
    const p = await call('predictions', sentenceIds);
    const model = engine.loadModel(new Uint8Array(modelBytes), { weights });
    const logits = model.trace(sentenceIds, { logits: 'all' }).logits.data;
    const V = model.config.vocabSize,
      T = sentenceIds.length;
    assert.equal(p.top.length, T, weights);
    assert.equal(p.actual.length, T - 1, weights);
    for (let t = 0; t < T; t++) {
      const row = logits.subarray(t * V, (t + 1) * V);
      assert.equal(p.top[t], row.indexOf(Math.max(...row)), `${weights}: top at ${t}`);
      if (t + 1 < T) {
        const next = engine.nextToken(row, { top: 1 });
        assert.equal(p.actual[t], next.probs[sentenceIds[t + 1]], `${weights}: actual at ${t}`);
      }
    }
    model.dispose();
  }
});

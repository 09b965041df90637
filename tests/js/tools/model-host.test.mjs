// The "A real language model" section below its pictures: the requests its worker answers
// (web/tools/model-host.js modelRequests) on the project's shipped model, and the host that runs
// them on the page when no worker starts. Every bad input is refused with a message naming what
// was wrong, and the model open stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadEngine } from '../../../web/engine/engine.js';
import { modelRequests, createModelHost, modelKey, sharedModels } from '../../../web/tools/model-host.js';
import { serveStatic } from '../../../scripts/serve.mjs';
import { meanOverHeads, parameterCount } from '../../../web/lib/real/view.js';
import { fromTokenizerJson } from '../../../web/lib/tokenizer/index.js';

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

async function opened() {
  const requests = modelRequests(Promise.resolve(engine));
  const call = (op, ...args) => requests.handle(op, args);
  await call('open', shipped());
  return call;
}
async function rejectsNaming(promise, argument, pattern) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.argument, argument, `${error.name}: ${error.message}`);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

test('RealModel_TheShippedModelOpensWithItsSizeAndTokenizer', async () => {
  const requests = modelRequests(Promise.resolve(engine));
  const info = await requests.handle('open', [shipped()]);
  assert.deepEqual(
    [info.config.layers, info.config.heads, info.config.width, info.config.contextLength, info.config.vocabSize],
    [4, 4, 128, 128, 8192],
  );
  // The report's count (web/models/README.md): 1,858,304 parameters, lm_head tied to wte.
  assert.equal(info.parameters, 1858304);
  assert.equal(info.tokenizer.size, 8192);
  // GPT-2 small's count from its shape (124,439,808; Hugging Face's num_parameters()).
  assert.equal(parameterCount({ width: 768, vocabSize: 50257, contextLength: 1024, layers: 12, heads: 12 }), 124439808);
});

test('RealModel_ASentenceBecomesTokensAndEveryHeadsWeights', async () => {
  const call = await opened();
  const sentence = 'She sat on the bank of the river.';
  const { ids, pieces } = await call('encode', sentence);
  assert.equal(pieces.length, ids.length);
  assert.equal(await call('decode', ids), sentence);
  const t = await call('trace', ids, { layer: 2, head: 3 });
  const T = ids.length;
  assert.deepEqual([t.L, t.H, t.T], [4, 4, T]);
  assert.equal(t.weights.length, 4 * 4 * T * T);
  for (let lh = 0; lh < 16; lh++)
    for (let i = 0; i < T; i++) {
      let sum = 0;
      for (let j = 0; j < T; j++) {
        const w = t.weights[(lh * T + i) * T + j];
        if (j > i) assert.equal(w, 0, 'causal: nothing above the diagonal');
        sum += w;
      }
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} of head ${lh} sums to ${sum}`);
    }
  // The chosen head's scores (q·k, unscaled) give its weights back: softmax of the row ÷ √hs
  // (the mask applied).
  const base = (2 * 4 + 3) * T * T;
  for (let i = 0; i < T; i++) {
    const row = Array.from(t.chosen.scores.subarray(i * T, i * T + i + 1), (s) => s / Math.sqrt(32));
    const max = Math.max(...row);
    const e = row.map((s) => Math.exp(s - max));
    const z = e.reduce((a, b) => a + b, 0);
    e.forEach((v, j) => assert.ok(Math.abs(v / z - t.weights[base + i * T + j]) < 1e-5, `(${i}, ${j})`));
  }
  assert.equal(t.chosen.hs, 32);
  assert.deepEqual(Array.from(t.mean), Array.from(meanOverHeads(t.weights, 4, 4, T)));
  assert.equal(t.logits.length, 8192);
  assert.equal(t.residual.length, 5 * T * 128, 'the stream after the embedding and every layer');
  assert.equal(t.afterAttention.length, 4 * T * 128);
});

test('RealModel_TheNextTokenWithTemperatureTopKTopPAndASeed', async () => {
  const call = await opened();
  const { ids } = await call('encode', 'The river bank was');
  const { logits } = await call('trace', ids);
  const plain = await call('next', logits, { temperature: 1, topK: 0, topP: 1, seed: 0, top: 10 });
  assert.equal(plain.topTokens.length, 10);
  for (let k = 1; k < 10; k++) assert.ok(plain.topProbs[k] <= plain.topProbs[k - 1]);
  assert.equal(plain.topText.length, 10);
  // Top-k 3: only three tokens keep probability, renormalised.
  const k3 = await call('next', logits, { temperature: 1, topK: 3, topP: 1, seed: 0, top: 10 });
  assert.ok(Math.abs(k3.topProbs[0] + k3.topProbs[1] + k3.topProbs[2] - 1) < 1e-5);
  assert.equal(k3.topProbs[3], 0);
  assert.ok(Array.from(k3.topTokens.slice(0, 3)).includes(k3.token));
  // Temperature 0: the most likely token, every time.
  const greedy = await call('next', logits, { temperature: 0, topK: 0, topP: 1, seed: 7, top: 1 });
  assert.equal(greedy.token, plain.topTokens[0]);
  // The same seed, the same draw.
  const again = await call('next', logits, { temperature: 1, topK: 0, topP: 1, seed: 0, top: 10 });
  assert.equal(again.token, plain.token);
});

test('RealModel_GenerationWithTheKVCacheDrawsWhatTheModelsGenerateDraws', async () => {
  const call = await opened();
  const { ids } = await call('encode', 'He walked along the river');
  const options = { temperature: 0.8, topK: 40, topP: 0.95, seed: 3 };
  await call('generate', ids, options);
  const steps = [];
  for (let n = 0; n < 12; n++) steps.push(await call('step'));
  // The cache changes the cost, not the tokens: generate (nanoGPT's loop, the whole text every
  // step) draws the same ones from the same seed.
  const model = await engine.loadModel(new Uint8Array(modelBytes));
  const full = model.generate(Array.from(ids), 12, options); // the 12 new tokens
  model.dispose();
  assert.deepEqual(
    steps.map((s) => s.token),
    full,
  );
  steps.forEach((s, n) => {
    assert.equal(s.keys, ids.length + n + 1, 'the new token’s query meets every key so far');
    assert.ok(s.macs.cached < s.macs.full, `step ${n}: ${s.macs.cached} < ${s.macs.full}`);
    assert.deepEqual(s.attention.shape, [4, 4, s.keys]);
  });
  // Each step's multiply-adds with the cache: the new token through the linear layers and its
  // query against every key; without: all the tokens again. The ratio grows with the text.
  const ratio = (s) => s.macs.full / s.macs.cached;
  assert.ok(ratio(steps[11]) > ratio(steps[0]));
  await call('stopGenerating');
  await rejectsNaming(call('step'), 'session', /Generate/);
});

test('RealModel_TheSharedWordAcrossTwoSentencesLayerByLayer', async () => {
  const call = await opened();
  const r = await call('bank', { a: 'He sat on the river bank.', b: 'She took the money to the bank.', word: 'bank' });
  assert.equal(r.cosines.length, 5, 'after the embedding and after each of 4 layers');
  for (const c of r.cosines) assert.ok(c >= -1 - 1e-6 && c <= 1 + 1e-6);
  // The same word in the same position has the same vector after the embedding.
  const same = await call('bank', { a: 'The bank.', b: 'The bank!', word: 'bank' });
  assert.ok(Math.abs(same.cosines[0] - 1) < 1e-6);
  await rejectsNaming(
    call('bank', { a: 'He sat by the river.', b: 'The bank.', word: 'bank' }),
    'a',
    /not a whole word/,
  );
  await rejectsNaming(
    call('bank', { a: 'The bank.', b: 'bank '.repeat(200), word: 'bank' }),
    'b',
    /tokens; at most 128/,
  );
});

test('RealModel_WhatEachHeadDoesIsMeasured', async () => {
  const call = await opened();
  const roles = await call('roles', 'The cat sat on the mat. The dog sat on the log.');
  for (const kind of ['previous', 'first', 'self', 'induction']) {
    const scores = roles.scores[kind];
    assert.ok(scores, kind);
    assert.equal(scores.length, 4);
    assert.equal(scores[0].length, 4);
    assert.ok(roles.strongest[kind].length > 0);
  }
});

test('RealModel_BadInputIsRefusedByNameAndTheModelOpenStays', async () => {
  const call = await opened();
  const before = await call('encode', 'the bank');
  await rejectsNaming(call('encode', ''), 'sentence', /at least one character/);
  await rejectsNaming(call('encode', 42), 'sentence');
  // 100,000 characters: tokenized (fast), then refused by its length in tokens.
  await rejectsNaming(call('encode', 'word '.repeat(20000)), 'sentence', /tokens; this model shows at most 128/);
  // Control characters, right-to-left text and emoji are text like any other, and come back.
  for (const text of ['a\u0000b\u0007c\u001b[31m', 'שלום bank مرحبا', '👩‍👩‍👧 🏦 bank', '\u202Eknab\u202C']) {
    const { ids } = await call('encode', text);
    assert.equal(await call('decode', ids), text);
  }
  // Files that are not what they claim: each refused by name; the model open stays.
  await assert.rejects(call('open', { ...shipped(), source: new TextEncoder().encode('not a safetensors file') }));
  await rejectsNaming(
    call('open', { ...shipped(), tokenizer: { json: '{"model": {"type": "WordPiece"}}' } }),
    'tokenizer.json',
    /WordPiece.*only byte-level "BPE"/,
  );
  const small = fromTokenizerJson(tokenizerText);
  assert.equal(small.vocabSize, 8192);
  await rejectsNaming(
    call('open', { ...shipped(), tokenizer: {} }),
    'tokenizer',
    /vocabulary of 8192 tokens, not GPT-2's 50,257/,
  );
  await rejectsNaming(
    call('open', { ...shipped(), tokenizer: { vocab: '{}' } }),
    'tokenizer',
    /vocab.json and merges.txt go together/,
  );
  const after = await call('encode', 'the bank');
  assert.deepEqual(Array.from(after.ids), Array.from(before.ids));
  const requests = modelRequests(Promise.resolve(engine));
  await rejectsNaming(requests.handle('encode', ['x']), 'model', /no model is open/);
  await rejectsNaming(requests.handle('constructor', []), 'op', /unknown request/);
});

test('RealModel_TheHostRunsOnThePageWhenNoWorkerStarts', async () => {
  const host = createModelHost({
    engine: async () => engine,
    makeWorker: () => {
      throw new Error('blocked by the Content-Security-Policy');
    },
  });
  assert.equal(host.mode, 'page');
  const info = await host.call('open', shipped());
  assert.equal(info.config.layers, 4);
  const { ids } = await host.call('encode', 'bank');
  assert.ok(ids.length >= 1);
  host.dispose();
});

test('RealModel_FiguresThatOpenTheSameModelByUrlShareOneCopyUntilTheLastLetsItGo', async () => {
  // Two figures of a page (two channels of the one model worker) open the shipped model by its
  // URL: one fetch, one model; each keeps its own requests (a generation of one does not touch
  // the other's), and the model is freed when both are done.
  const server = await serveStatic(new URL('../../../web/models/', import.meta.url).pathname);
  try {
    let opens = 0;
    const disposed = [];
    const counting = {
      ...engine,
      openModel: async (...args) => {
        opens += 1;
        const model = await engine.openModel(...args);
        const dispose = model.dispose.bind(model);
        model.dispose = () => (disposed.push(opens), dispose());
        return model;
      },
      nextToken: (...args) => engine.nextToken(...args),
    };
    const models = sharedModels();
    const a = modelRequests(Promise.resolve(counting), { models });
    const b = modelRequests(Promise.resolve(counting), { models });
    const spec = {
      name: 'brown-wordnet',
      source: server.url + 'brown-wordnet.safetensors',
      tokenizer: { jsonUrl: server.url + 'brown-wordnet.tokenizer.json' },
    };
    const [infoA, infoB] = await Promise.all([a.handle('open', [spec]), b.handle('open', [spec])]);
    assert.equal(opens, 1, 'one copy for both figures');
    assert.deepEqual(infoA, infoB);
    const { ids } = await a.handle('encode', ['The bank of the river']);
    await a.handle('generate', [ids, { seed: 1, temperature: 1 }]);
    await assert.rejects(b.handle('step', []), /press Generate first/, "b has no generation of a's");
    const step = await a.handle('step', []);
    assert.ok(Number.isInteger(step.token));
    await a.handle('dispose', []);
    assert.deepEqual(disposed, [], 'b still has it open');
    assert.equal((await b.handle('encode', ['bank'])).ids.length >= 1, true);
    await b.handle('dispose', []);
    assert.deepEqual(disposed, [1], 'freed when the last figure lets it go');
    // A model from the reader's files (bytes) is each figure's own.
    assert.equal(modelKey(shipped()), null);
    assert.equal(typeof modelKey(spec), 'string');
  } finally {
    await server.close();
  }
});

test('SharedModels_AFailedLoadIsNotKeptAndTheNextOpenTriesAgain', async () => {
  const models = sharedModels();
  let loads = 0;
  await assert.rejects(
    models.open('k', async () => {
      loads += 1;
      throw new Error('HTTP 404');
    }),
    /HTTP 404/,
  );
  const model = { dispose() {} };
  const lease = await models.open('k', async () => ((loads += 1), { model, tokenizer: {} }));
  assert.equal(lease.model, model);
  assert.equal(loads, 2);
});

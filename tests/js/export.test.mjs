// Unit tests for the export formats (web/lib/matrix-formats.js, heatmap-image.js, png.js,
// pytorch-script.js): every export parses back to the numbers it was given, labels
// are escaped for each format, and the generated PyTorch script — run with /usr/bin/python3 and
// torch when available — prints the PyTorch fixtures' numbers (tests/fixtures, made by
// tests/fixtures/make_fixtures.py with real PyTorch 1.13).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { parseCSV } from '../helpers/csv.mjs';
import { float32Text } from '../../web/lib/format.js';
import { toCSV, toJSON, toTorchLiteral, pyString } from '../../web/lib/matrix-formats.js';
import { toSVG, heatmapLayout } from '../../web/lib/heatmap-image.js';
import { pngWithText, readPNG, crc32 } from '../../web/lib/png.js';
import { toPyTorchScript } from '../../web/lib/pytorch-script.js';
import { fileStem } from '../../web/lib/text.js';

const PYTHON = process.env.ATTN_PYTHON || '/usr/bin/python3';
const fixture = (name) => JSON.parse(fs.readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url)));

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

const hostileLabels = ['<img src=x onerror=alert(1)>', '=SUM(A1)', 'a,"b"\nc', '</script>'];
const matrix = [
  [Math.fround(0.1), Math.fround(-1 / 3), Math.fround(1e-7), -Infinity],
  [Math.fround(123.456), 0, Math.fround(-0.5), Math.fround(2 / 3)],
];

test('Float32Text_ShortestTextReadsBackToTheSameFloat32', () => {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < 2000; i++) {
    const v = Math.fround((rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 6));
    const t = float32Text(v);
    assert.equal(Math.fround(Number(t)), v, `${v} → ${t}`);
    const digits = t.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '');
    assert.ok(digits.length <= 9, `${t} has ${digits.length} significant digits`);
  }
  assert.equal(float32Text(Math.fround(0.1)), '0.1');
  assert.equal(float32Text(-Infinity), '-Infinity');
});

test('CSV_ParsesBackToTheNumbersAndLabels', () => {
  const csv = toCSV(matrix, { rowLabels: hostileLabels.slice(0, 2), colLabels: hostileLabels });
  const rows = parseCSV(csv);
  assert.equal(rows.length, 3);
  assert.deepEqual(rows[0].slice(1), ['<img src=x onerror=alert(1)>', "'=SUM(A1)", 'a,"b"\nc', '</script>']);
  assert.equal(rows[1][0], '<img src=x onerror=alert(1)>');
  rows
    .slice(1)
    .forEach((row, r) => row.slice(1).forEach((cell, c) => assert.equal(Math.fround(Number(cell)), matrix[r][c])));
});

test('JSON_ParsesBackWithNullForMaskedEntries', () => {
  const out = JSON.parse(toJSON(matrix, { name: 'weights', rowLabels: ['a', 'b'], colLabels: hostileLabels }));
  assert.deepEqual(out.shape, [2, 4]);
  assert.deepEqual(out.colLabels, hostileLabels);
  assert.equal(out.data[0][3], null);
  assert.match(out.note, /masked/);
  out.data.forEach((row, r) =>
    row.forEach((v, c) => {
      if (v !== null) assert.equal(Math.fround(v), matrix[r][c]);
    }),
  );
});

test('JSON_AcceptsAFlatTensor', () => {
  const out = JSON.parse(toJSON({ shape: [2, 2], data: new Float32Array([1, 2, 3, 4]) }));
  assert.deepEqual(out.data, [
    [1, 2],
    [3, 4],
  ]);
  assert.throws(() => toJSON({ shape: [2, 3], data: new Float32Array(5) }), /expected a 2-d tensor/);
  assert.throws(() => toCSV([[1, 2], [3]]), /row 1 has 1 entries, expected 2/);
});

test('TorchLiteral_IsFloatAndParsesBack', () => {
  const lit = toTorchLiteral([
    [1, 0],
    [Math.fround(0.2), -Infinity],
  ]);
  assert.match(lit, /^torch\.tensor\(\[/);
  assert.match(lit, /\[1\.0, 0\.0\]/);
  assert.match(lit, /float\("-inf"\)/);
});

test('SVG_HasEveryValueAndEscapedLabels', () => {
  const options = { rowLabels: hostileLabels.slice(0, 2), colLabels: hostileLabels, title: 'weights <river>' };
  const svg = toSVG(matrix, options);
  assert.ok(!svg.includes('<img'), 'a label became markup');
  assert.ok(!svg.includes('</script>'), 'a label became markup');
  // The full label is in the <title>; the visible text is clipped to 16 characters.
  assert.ok(svg.includes('<title>&lt;img src=x onerror=alert(1)&gt;</title>&lt;img src=x oner…'));
  assert.ok(svg.includes('weights &lt;river&gt;'));
  const values = [...svg.matchAll(/data-row="(\d+)" data-col="(\d+)" data-value="([^"]+)"/g)];
  assert.equal(values.length, 8);
  for (const [, r, c, v] of values) assert.equal(v === '-Infinity' ? -Infinity : Math.fround(Number(v)), matrix[r][c]);
  const L = heatmapLayout(matrix, options);
  assert.match(svg, new RegExp(`width="${L.width}" height="${L.height}"`));
});

test('PNG_TextChunkRoundTripsWithValidCRC', () => {
  // A 1×1 RGBA PNG made with zlib.
  const chunk = (type, data) => {
    const b = Buffer.alloc(12 + data.length);
    b.writeUInt32BE(data.length, 0);
    b.write(type, 4, 'latin1');
    data.copy(b, 8);
    b.writeUInt32BE(crc32(b.subarray(4, 8 + data.length)), 8 + data.length);
    return b;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const png = Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.from([0, 255, 0, 0, 255]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  assert.equal(crc32(Buffer.from('IEND')), 0xae426082); // the well-known IEND CRC
  const csv = toCSV(matrix);
  const out = readPNG(pngWithText(png, 'attention-explorer:csv', csv));
  assert.equal(out.width, 1);
  assert.equal(out.text['attention-explorer:csv'], csv);
});

test('FileStem_IsSafe', () => {
  assert.equal(fileStem('../<b>river weights</b>'), 'b-river-weights-b');
  assert.equal(pyString('a"b\n\u2028'), '"a\\"b\\n\\u2028"');
});

// ---------------------------------------------------------------------------------------------
// The PyTorch script, run for real.

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
    v: 1,
    example: 'both',
    vocab,
    contexts: tokens,
    weights: {
      wq: toRows(raw.inputs.wq),
      wk: toRows(raw.inputs.wk),
      wv: toRows(raw.inputs.wv),
      w: toRows(raw.inputs.wv),
    },
    options: {
      projections: true,
      scale: true,
      causal: false,
      temperature: 1,
      dropout: 0,
      seed: 0,
      training: false,
      heads: 1,
      head: 0,
      kernel: 'simd',
    },
    focus: 'river',
    view: ['all'],
    step: 0,
    selected: null,
    theme: 'auto',
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
  return {
    v: 1,
    example: 'both',
    vocab,
    contexts,
    weights: { wq: w('wq'), wk: w('wk'), wv: w('wv'), w: w('wv') },
    options: {
      projections: true,
      scale: true,
      causal: false,
      temperature: 1,
      dropout: 0,
      seed: 0,
      training: false,
      heads: 1,
      head: 0,
      kernel: 'simd',
      ...options,
    },
    focus: 'batch 0',
    view: ['all'],
    step: 0,
    selected: null,
    theme: 'auto',
    D,
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

// engine.openModel in the browsers, under the page's CSP: Hugging Face GPT-2 checkpoints of
// tests/fixtures/gpt2/ read from a URL (one streaming fetch) and from a file the reader chose
// (<input type=file>, read slice by slice), then traced: the logits are torch's (the bound of
// tests/cpp/model/checkpoint_test.cpp and inference_test.cpp), in Debian's Chromium and in Firefox ESR. (GPT-2 small itself, 500 MB,
// is measured by bench/gpt2_memory.mjs, not here.)
// Run: node --test tests/e2e/gpt2.test.mjs   (needs `node scripts/build.mjs` once)
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, launchFirefox, openPage, openFirefoxPage, serveStatic } from './helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'tests/fixtures/gpt2');
const reference = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'reference.json'), 'utf8'));
const config = fs.readFileSync(path.join(FIXTURES, 'config.json'), 'utf8');

let server;
test.before(async () => {
  server = await serveStatic(ROOT);
});
test.after(() => server?.close());

// Opens `source` ('url' or 'file') in the page and returns the last logits of the fixture's tokens.
const OPEN = async ({ source, url, config, tokens }) => {
  const engine = await window.enginePromise;
  const from = source === 'url' ? url : document.getElementById('checkpoint').files[0];
  const model = await engine.openModel(from, { config, sliceBytes: 4096 });
  const logits = Array.from(model.trace(tokens, { logits: 'all' }).logits.data);
  model.dispose();
  return logits;
};

function matchesTorch(got, want) {
  const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const worst = got.reduce((m, v, i) => Math.max(m, Math.abs(v - want[i])), 0);
  assert.ok(worst <= 1e-6 + 4e-5 * scale, `worst |ours − torch| ${worst}`);
}

const cases = [
  ['url', 'f32'],
  ['file', 'f16'],
];

test('Gpt2_ChromiumOpensACheckpointFromAUrlAndFromAChosenFile', async () => {
  const browser = await launchBrowser();
  try {
    const { page, problems } = await openPage(browser, server.url + 'tests/e2e/pages/gpt2.html');
    for (const [source, key] of cases) {
      const c = reference.cases[key];
      if (source === 'file') await page.setInputFiles('#checkpoint', path.join(FIXTURES, c.file));
      const url = server.url + 'tests/fixtures/gpt2/' + c.file;
      matchesTorch(await page.evaluate(OPEN, { source, url, config, tokens: reference.tokens.data }), c.logits.data);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('Gpt2_FirefoxOpensACheckpointFromAUrlAndFromAChosenFile', async () => {
  const browser = await launchFirefox();
  try {
    const { page, problems } = await openFirefoxPage(browser, server.url + 'tests/e2e/pages/gpt2.html');
    for (const [source, key] of cases) {
      const c = reference.cases[key];
      if (source === 'file') await (await page.$('#checkpoint')).uploadFile(path.join(FIXTURES, c.file));
      const url = server.url + 'tests/fixtures/gpt2/' + c.file;
      matchesTorch(await page.evaluate(OPEN, { source, url, config, tokens: reference.tokens.data }), c.logits.data);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('Gpt2_ChromiumKeepsTheWeightsAsF16WithTheSameTopTenNextTokensAsF32', async () => {
  // The float32 fixture opened twice from the chosen file, weights 'f32' and 'f16': the top 10
  // next tokens are the same tokens at every position, in the same order but for near ties, and
  // the logits within tests/cpp/model/inference_test.cpp's stated tolerance (2e-3·max|logits|).
  const browser = await launchBrowser();
  try {
    const { page, problems } = await openPage(browser, server.url + 'tests/e2e/pages/gpt2.html');
    await page.setInputFiles('#checkpoint', path.join(FIXTURES, reference.cases.f32.file));
    const got = await page.evaluate(
      async ({ config, tokens }) => {
        const engine = await window.enginePromise;
        const file = document.getElementById('checkpoint').files[0];
        const out = {};
        for (const weights of ['f32', 'f16']) {
          const model = await engine.openModel(file, { config, weights, sliceBytes: 4096 });
          const logits = model.trace(tokens, { logits: 'all' }).logits.data;
          const V = model.config.vocabSize;
          out[weights] = {
            kept: model.weights.precision,
            logits: Array.from(logits),
            top: tokens.map((_, t) => Array.from(engine.nextToken(logits.subarray(t * V, (t + 1) * V)).topTokens)),
          };
          model.dispose();
        }
        return out;
      },
      { config, tokens: reference.tokens.data },
    );
    assert.equal(got.f32.kept, 'f32');
    assert.equal(got.f16.kept, 'f16');
    const a = got.f32.logits,
      b = got.f16.logits;
    const V = reference.config.vocab_size;
    const tolerance = 2e-3 * a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const largest = a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
    assert.ok(largest > 0 && largest <= tolerance, `largest |F16 − F32| ${largest}, tolerance ${tolerance}`);
    got.f32.top.forEach((ta, t) => {
      const tb = got.f16.top[t];
      const sorted = (x) => [...x].sort((p, q) => p - q);
      assert.deepEqual(sorted(ta), sorted(tb), `position ${t}`);
      ta.forEach((token, i) => {
        if (token !== tb[i]) assert.ok(Math.abs(a[t * V + token] - a[t * V + tb[i]]) <= 2 * tolerance, `${t}, ${i}`);
      });
    });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

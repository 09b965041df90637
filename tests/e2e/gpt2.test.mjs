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

// bench/soak.mjs in Chromium (Debian's, headless, through playwright-core): the same 10,000
// training steps (a model recreated every 1,000) and 1,000 traces of the shipped model (opened
// from its URL, as the page opens it, reopened every 250) in a page served as `npm start` serves
// it (its Content-Security-Policy included). WASM memory (engine.heapBytes()) and the page's JS
// heap (CDP Runtime.getHeapUsage after HeapProfiler.collectGarbage) are sampled; the same
// verdict as bench/soak.mjs. Writes bench/results/soak-chromium.json.
//
//   node bench/soak_browser.mjs [--steps 10000] [--forwards 1000] [--out bench/results/soak-chromium.json]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, openPage, serveStatic } from '../tests/e2e/helpers.mjs';
import { cliOption } from './report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = Number(cliOption('steps', 10000));
const FORWARDS = Number(cliOption('forwards', 1000));
const OUT = cliOption('out', join(root, 'bench/results/soak-chromium.json'));
const JS_TOLERANCE = 8 * 1024 * 1024;
// The heaps are sampled every 250 steps and every 25 forwards.
for (const [name, value, every] of [
  ['steps', STEPS, 250],
  ['forwards', FORWARDS, 25],
]) {
  if (!Number.isInteger(value) || value < every || value % every) {
    console.error(`soak_browser: --${name} must be a multiple of ${every} (at least ${every}), not ${value}`);
    process.exit(2);
  }
}
const MiB = (b) => Math.round((b / 1048576) * 100) / 100;

const server = await serveStatic(root);
const browser = await launchBrowser();
const { page, context, problems } = await openPage(browser);
page.on('response', (r) => {
  if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
});
await page.goto(`${server.url}bench/threads_browser.html`);
const cdp = await context.newCDPSession(page);
await cdp.send('HeapProfiler.enable');

// In the page: the engine, the tokenizer, and one function per phase that runs a slice of it.
await page.evaluate(async () => {
  const { loadEngine } = await import('/web/engine/engine.js');
  const { fromTokenizerJson } = await import('/web/lib/tokenizer/index.js');
  const engine = await loadEngine();
  const { mulberry32: random } = await import('/web/lib/learn/random.js');

  const config = { vocabSize: 65, contextLength: 64, layers: 2, heads: 4, width: 64, seed: 1 };
  const rand = random(22);
  const batch = () => {
    const tokens = Int32Array.from({ length: 4 * 64 }, () => Math.floor(rand() * 65));
    return { tokens, targets: tokens.map((t) => (t * 7 + 3) % 65), batch: 4, context: 64 };
  };
  const tokenizer = fromTokenizerJson(await (await fetch('/web/models/brown-wordnet.tokenizer.json')).text(), {
    file: 'brown-wordnet.tokenizer.json',
  });
  const words =
    'the river bank was steep and the bank by the river lent money to a man who sat on the bank of a stream'.split(' ');
  const forwardRand = random(7);
  const sentence = () =>
    Array.from(
      { length: 3 + Math.floor(forwardRand() * 60) },
      () => words[Math.floor(forwardRand() * words.length)],
    ).join(' ');
  const open = () => engine.openModel(new URL('/web/models/brown-wordnet.safetensors', location.href).href);
  const state = { model: null, real: null, step: 0, forward: 0, tokens: 0, firstLoss: null, lastLoss: null };
  window.soak = {
    heapBytes: () => engine.heapBytes(),
    version: () => engine.version,
    // Steps up to `until`; a model recreated every 1,000.
    train(until, total) {
      while (state.step < until) {
        if (!state.model) state.model = engine.createModel({ ...config, seed: state.step + 1 });
        const r = state.model.step(batch(), { lr: 3e-3, clip: 1, seed: state.step + 1 });
        state.step++;
        state.firstLoss ??= r.loss;
        state.lastLoss = r.loss;
        if (state.step % 100 === 0) state.model.evaluate(batch());
        if (state.step % 1000 === 0 || state.step === total) {
          state.model.dispose();
          state.model = null;
        }
      }
      return { step: state.step, firstLoss: state.firstLoss, lastLoss: state.lastLoss };
    },
    // Traces up to `until`; the model reopened every 250.
    async trace(until, total) {
      while (state.forward < until) {
        if (!state.real) state.real = await open();
        const ids = tokenizer.encode(sentence()).slice(0, 128);
        const t = state.real.trace(ids);
        if (!t.logits) throw new Error('no logits');
        state.tokens += ids.length;
        state.forward++;
        if (state.forward % 250 === 0 || state.forward === total) {
          state.real.dispose();
          state.real = null;
        }
      }
      return { forward: state.forward, tokens: state.tokens };
    },
  };
});

async function sample(phase, index) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return {
    phase,
    index,
    wasmBytes: await page.evaluate(() => window.soak.heapBytes()),
    jsHeapUsed: usedSize,
    ms: Math.round(performance.now()),
  };
}

function verdict(samples, warmIndex) {
  const warm = samples.find((s) => s.index >= warmIndex) ?? samples[0];
  const end = samples[samples.length - 1];
  const after = samples.filter((s) => s.index >= warm.index);
  return {
    warmAt: warm.index,
    wasmAtStart: samples[0].wasmBytes,
    wasmAfterWarmup: warm.wasmBytes,
    wasmAtEnd: end.wasmBytes,
    wasmGrowthAfterWarmup: end.wasmBytes - warm.wasmBytes,
    jsHeapAfterWarmup: warm.jsHeapUsed,
    jsHeapAtEnd: end.jsHeapUsed,
    jsHeapDriftAfterWarmup: end.jsHeapUsed - warm.jsHeapUsed,
    jsHeapLargestAboveWarmup: Math.max(...after.map((s) => s.jsHeapUsed)) - warm.jsHeapUsed,
    flat: end.wasmBytes === warm.wasmBytes && Math.abs(end.jsHeapUsed - warm.jsHeapUsed) <= JS_TOLERANCE,
  };
}

const train = [await sample('train', 0)];
const t0 = performance.now();
let losses;
for (let s = 250; s <= STEPS; s += 250) {
  losses = await page.evaluate(([until, total]) => window.soak.train(until, total), [s, STEPS]);
  train.push(await sample('train', s));
}
const trainSeconds = (performance.now() - t0) / 1000;
const forwards = [await sample('forward', 0)];
const t1 = performance.now();
let traced;
for (let f = 25; f <= FORWARDS; f += 25) {
  traced = await page.evaluate(([until, total]) => window.soak.trace(until, total), [f, FORWARDS]);
  forwards.push(await sample('forward', f));
}
const forwardSeconds = (performance.now() - t1) / 1000;

const result = {
  what: 'bench/soak_browser.mjs: bench/soak.mjs in headless Chromium, WASM memory and the page JS heap sampled',
  date: new Date().toISOString(),
  browser: `chromium ${browser.version()}`,
  engine: await page.evaluate(() => window.soak.version()),
  problems,
  training: {
    steps: STEPS,
    seconds: Math.round(trainSeconds * 10) / 10,
    ...losses,
    ...verdict(train, Math.floor(STEPS / 10)),
  },
  forwards: {
    count: FORWARDS,
    model: 'web/models/brown-wordnet.safetensors (openModel of its URL)',
    tokensTraced: traced.tokens,
    seconds: Math.round(forwardSeconds * 10) / 10,
    ...verdict(forwards, Math.floor(FORWARDS / 10)),
  },
  samples: [...train, ...forwards],
};
await browser.close();
server.close();
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify(result, null, 1) + '\n');
for (const [name, v] of [
  ['training', result.training],
  ['forwards', result.forwards],
]) {
  console.log(
    `soak (chromium) ${name}: ${name === 'training' ? `${STEPS} steps` : `${FORWARDS} forwards`} in ${v.seconds} s; ` +
      `WASM ${MiB(v.wasmAtStart)} → ${MiB(v.wasmAfterWarmup)} MiB after warm-up → ${MiB(v.wasmAtEnd)} MiB at the end; ` +
      `JS heap ${MiB(v.jsHeapAfterWarmup)} → ${MiB(v.jsHeapAtEnd)} MiB (largest +${MiB(v.jsHeapLargestAboveWarmup)}); ` +
      (v.flat ? 'flat' : 'NOT FLAT'),
  );
}
if (problems.length) console.log(`page problems: ${problems.join('; ')}`);
console.log(`soak: results in ${OUT}`);
process.exitCode = result.training.flat && result.forwards.flat && !problems.length ? 0 : 1;

// What a head does, in the real-model section (views/gpt/knockout.js, attribution.js, lens.js),
// through the built dist/ files under the strict CSP in Chromium: on the shipped model and on a
// GPT-2 checkpoint (random weights in Hugging Face's layout, GPT-2's vocabulary, opened by the
// element's model-url), every number the figures show equals the engine's (computed here in Node
// on the same files), and each figure's sentence is the one lib/real/interpret.js makes of them,
// in several states (the opening, another position, another candidate, another head, mean
// ablation). The sweep fills block by block and stops when asked; at 390 px nothing is clipped;
// axe finds nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic, launchBrowser, keptPages, ensureDist, axeViolations } from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import {
  ablationClaim,
  attributionClaim,
  lensClaim,
  openingClaims,
  sweepClaim,
  sweepEffects,
} from '../../web/lib/real/interpret.js';
import { modelRequests } from '../../web/tools/model-host.js';
import { defaultGpt } from '../../web/lib/real/gpt-state.js';
import { decodeState } from '../../web/lib/share.js';
import { hfGpt2Checkpoint } from '../helpers/gpt2-checkpoint.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.join(ROOT, 'dist');
const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
const SECTION = 'section[data-section="gpt"]';
const engine = await loadEngine();
const shipped = engine.loadModel(fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.safetensors')));

// A GPT-2-family checkpoint as Hugging Face saves it: GPT-2's vocabulary, 2 layers of 4 heads at
// width 32, random weights from a seed.
function gpt2Checkpoint() {
  return hfGpt2Checkpoint({ width: 32, layers: 2, heads: 4, seed: 777, scale: 0.2 });
}

let root, server, browser, gpt2, gpt2Half, gpt2Bf16;
// A test's page is a new document in a page kept for its context options (keptPages in
// helpers.mjs), unless the test adds listeners, init scripts or emulation of its own.
let pages;
before(async () => {
  ensureDist();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-interpret-'));
  for (const name of fs.readdirSync(DIST)) fs.symlinkSync(path.join(DIST, name), path.join(root, name));
  fs.mkdirSync(path.join(root, 'models'));
  const g = gpt2Checkpoint();
  fs.writeFileSync(path.join(root, 'models', 'gpt2-test.safetensors'), g.model);
  fs.writeFileSync(path.join(root, 'models', 'config.json'), g.config);
  gpt2 = engine.loadModel(g.model, { config: g.config });
  gpt2Half = engine.loadModel(g.model, { config: g.config, weights: 'f16' }); // its numbers differ from gpt2's
  gpt2Bf16 = engine.loadModel(g.model, { config: g.config, weights: 'bf16' }); // and from F16's
  server = await serveStatic(root);
  browser = await launchBrowser();
  pages = keptPages(browser);
});
after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

// What the figures show, read from `root` (the document, or the element's shadow root).
const read = (root) => {
  const q = (s) => root.querySelector(s);
  const all = (s) => [...root.querySelectorAll(s)];
  const pressed = all('.ae-ko-position').find((b) => b.getAttribute('aria-pressed') === 'true');
  const candidate = all('.ae-ko-bar').find((li) => li.querySelector('[aria-pressed="true"]'));
  return {
    ids: all('.ae-gpt-chips .ae-gpt-chip').map((c) => Number(c.dataset.id)),
    position: Number(pressed.dataset.position),
    token: Number(candidate.dataset.id),
    layer: Number(q('.ae-ko-layer').value),
    head: Number(q('.ae-ko-head').value),
    mode: all('.ae-ko-modes input').find((i) => i.checked).value,
    rows: all('.ae-ko-bar').map((li) => ({
      id: Number(li.dataset.id),
      clean: Number(li.dataset.clean),
      ablated: Number(li.dataset.ablated),
      text: li.querySelector('.ae-ko-candidate').textContent,
    })),
    claim: q('.ae-ko-claim').textContent,
    sweepClaim: q('.ae-ko-sweep-claim').textContent,
    effects: all('.ae-ko-grid:not(.ae-attr-grid) .ae-ko-cell').map((c) =>
      c.dataset.effect === '' ? NaN : Number(c.dataset.effect),
    ),
    attribution: all('.ae-attr-cell').map((c) => Number(c.dataset.value)),
    others: all('.ae-attr-bar').map((c) => Number(c.dataset.value)),
    attributionClaim: q('.ae-attr-claim').textContent,
    logit: Number(q('.ae-attr-sum').dataset.logit),
    lensTokens: all('.ae-lens-cell').map((c) => Number(c.dataset.token)),
    lensClaim: q('.ae-lens-claim').textContent,
  };
};
const shown = (page) => page.evaluate(`(${read})(document.querySelector('${SECTION}'))`);

// Every figure against the engine's numbers for the prediction and head on screen.
function checkAgainstEngine(model, s) {
  const { ids, position, token, layer, head, mode } = s;
  const { layers: L, heads: H } = model.config;
  assert.equal(mode, 'zero');
  const a = model.ablate(ids, { layer, head, position });
  for (const r of s.rows) {
    assert.equal(r.clean, a.probs[r.id], `clean p of ${r.text}`);
    assert.equal(r.ablated, a.ablatedProbs[r.id], `knocked-out p of ${r.text}`);
  }
  const text = (id) => s.rows.find((r) => r.id === id).text;
  assert.equal(s.claim, ablationClaim({ ...a, layer, head, mode }, token, text));
  // The attribution: heads and MLPs by layer, then the other parts, in attributionParts' order.
  const attr = model.attribute(ids, { position, token });
  const grid = [];
  for (let l = 0; l < L; l++) grid.push(...attr.heads.data.slice(l * H, (l + 1) * H), attr.mlps[l]);
  assert.deepEqual(s.attribution, grid.map(Math.fround));
  assert.deepEqual(s.others, [attr.embed, attr.posEmbed, attr.attentionBias, attr.lnBias]);
  assert.equal(s.logit, attr.logit);
  assert.equal(s.attributionClaim, attributionClaim({ ...attr, text: text(token) }, L, H, text(token)));
  // The lens: rows from the last layer down, columns the positions read (all of them here).
  const lens = model.logitLens(ids, { k: 5, position, token });
  const T = ids.length;
  const top = [];
  for (let l = L; l >= 0; l--) for (let t = 0; t < T; t++) top.push(lens.topTokens.data[(l * T + t) * 5]);
  assert.deepEqual(s.lensTokens, top);
  assert.equal(s.lensClaim, lensClaim(Array.from(lens.token.ranks), text(token)));
  return a;
}

const settled = (page) =>
  page.waitForFunction(
    () =>
      document.querySelector('.ae-gpt-interpret')?.getAttribute('aria-busy') === 'false' &&
      /^Knocking out/.test(document.querySelector('.ae-ko-claim')?.textContent) &&
      document.querySelector('.ae-lens-claim')?.textContent &&
      document.querySelector('.ae-attr-claim')?.textContent,
    null,
    { timeout: 60000 },
  );
const sweptAll = (page) =>
  page.waitForFunction(
    () => /^(Of all|No single)/.test(document.querySelector('.ae-ko-sweep-claim')?.textContent),
    null,
    {
      timeout: 60000,
    },
  );

async function openSection(contextOptions = {}) {
  const o = await pages.open(null, { viewport: { width: 1280, height: 900 }, ...contextOptions });
  await o.page.goto(`${server.url}index.html`);
  await o.page.evaluate(() => window.__explorer.ready);
  await o.page.locator(`${SECTION} .ae-gpt-interpret`).scrollIntoViewIfNeeded();
  // The tools and the bank measure are one click deeper: open them, as a reader would.
  await o.page.evaluate((sel) => {
    for (const d of document.querySelectorAll(`${sel} details.ae-gpt-tools, ${sel} details.ae-gpt-senses`))
      d.open = true;
  }, SECTION);
  await settled(o.page);
  return o;
}

test('Interpret_TheShippedModelOpensOnItsOwnBestGuessWithTheStrongestHeadKnockedOut', async () => {
  const { page, context, problems } = await openSection();
  await sweptAll(page);
  await settled(page);
  const s = await shown(page);
  // The opening prediction is the model's surest right guess of the sentence's next token, and
  // the head knocked out is the one whose knock-out changes it most (measured, not set).
  assert.equal(s.token, s.ids[s.position + 1], 'the sentence’s own next token');
  const { layers: L, heads: H } = shipped.config;
  const sweep = shipped.ablationSweep(s.ids, { position: s.position, token: s.token });
  const rows = new Map(Array.from({ length: L }, (_, l) => [l, sweep.ablatedLogProb.data.slice(l * H, (l + 1) * H)]));
  const effect = sweepEffects(rows, L, H, sweep.logProb);
  assert.deepEqual(s.effects, Array.from(effect));
  let strongest = 0;
  for (let i = 1; i < effect.length; i++) if (Math.abs(effect[i]) > Math.abs(effect[strongest])) strongest = i;
  assert.deepEqual([s.layer, s.head], [Math.floor(strongest / H), strongest % H]);
  const text = (id) => s.rows.find((r) => r.id === id).text;
  assert.equal(s.sweepClaim, sweepClaim({ effect, L, H, logProb: sweep.logProb, done: L }, text(s.token)));
  const a = checkAgainstEngine(shipped, s);
  assert.ok(
    s.rows.some((r) => r.clean !== r.ablated),
    'knocking out a head changes the probabilities shown',
  );
  assert.notEqual(a.ablatedProbs[s.token], a.probs[s.token]);
  // It opens on a named head and says whether there is an induction head: the page's head scores,
  // as the model host measures them here on the same text.
  const requests = modelRequests(Promise.resolve(engine));
  await requests.handle('open', [
    {
      name: 'brown-wordnet',
      source: fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.safetensors')),
      tokenizer: { json: fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.tokenizer.json'), 'utf8') },
    },
  ]);
  const g = (await page.evaluate(() => window.__explorer.store.get().gpt)) ?? defaultGpt();
  const roles = await requests.handle('roles', [`${g.sentence} ${g.bank.a} ${g.bank.b}`]);
  const claims = openingClaims(roles, roles.tokens);
  assert.equal(await page.textContent(`${SECTION} .ae-gpt-opening-head > span:first-child`), claims.head);
  // (The sentence, then where else to see an induction head: Learn's repeat task, said as training
  // one where this model has none and as watching one form where it has one, and GPT-2 small.)
  assert.equal(await page.textContent(`${SECTION} .ae-gpt-opening-induction > span:first-child`), claims.induction);
  assert.equal(
    await page.textContent(`${SECTION} .ae-gpt-opening-learn`),
    `${claims.hasInduction ? 'Watch one form' : 'Train one'} in Learn (the repeat task)`,
  );
  assert.ok(await page.isVisible(`${SECTION} .ae-gpt-opening-picker`), 'GPT-2 small, one click');
  // The head named is one click from its picture: chosen in the grid and enlarged.
  const named = claims.previous;
  assert.equal(await page.textContent(`${SECTION} .ae-gpt-opening-show`), `Show ${named.name}`);
  await page.click(`${SECTION} .ae-gpt-opening-show`);
  await page.waitForFunction(
    ([sel, caption]) => document.querySelector(`${sel} .ae-gpt-enlarged caption`)?.textContent === caption,
    [SECTION, `Layer ${named.layer + 1}, head ${named.head + 1}`],
  );
  const chosen = await page.evaluate(() => window.__explorer.store.get().gpt);
  assert.deepEqual([chosen.layer, chosen.head], [named.layer, named.head]);
  assert.deepEqual(problems, []);
  await context.close();
});

// The reader keeps the weights as F16 (a phone's default for GPT-2): every tool answers the F16
// model's own numbers, the opening prediction included (model.logits once refused an F16 model,
// and the tools never answered).
test('Interpret_AModelKeptAsF16ShowsTheF16ModelsNumbers', async () => {
  const { page, context, problems } = await openSection();
  await page.locator(`${SECTION} select.ae-gpt-weights`).selectOption('f16');
  await page.waitForFunction(
    (sel) => /^now F16/.test(document.querySelector(`${sel} .ae-gpt-weights-now`)?.textContent),
    SECTION,
    { timeout: 30000 },
  );
  const half = engine.loadModel(fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.safetensors')), {
    weights: 'f16',
  });
  // The float32 answers go when the model changes; wait until the F16 ones are drawn.
  let s, lastError;
  for (let tries = 0; tries < 100; tries++) {
    await settled(page);
    s = await shown(page);
    try {
      checkAgainstEngine(half, s);
      lastError = null;
      break;
    } catch (error) {
      lastError = error;
      await page.waitForTimeout(200);
    }
  }
  if (lastError) throw lastError;
  assert.equal(s.token, s.ids[s.position + 1], 'the opening prediction: the sentence’s own next token');
  const alerts = await page.evaluate(
    (sel) =>
      [...document.querySelectorAll(`${sel} .ae-gpt-interpret [role=alert]`)]
        .filter((e) => !e.hidden && e.textContent)
        .map((e) => e.textContent),
    SECTION,
  );
  assert.deepEqual(alerts, [], 'no tool says it failed');
  half.dispose();
  assert.deepEqual(problems, []);
  await context.close();
});

test('Interpret_AnotherPositionCandidateAndHeadEachGiveTheEnginesNumbersAndTheirSentence', async () => {
  const { page, context, problems } = await openSection();
  const before = await shown(page);
  // Another position: the candidate becomes the clean top prediction there.
  const other = before.position === 1 ? 2 : 1;
  await page.click(`${SECTION} .ae-ko-position[data-position="${other}"]`);
  await page.waitForFunction(
    (p) => document.querySelector(`.ae-ko-position[data-position="${p}"]`)?.getAttribute('aria-pressed') === 'true',
    other,
  );
  await settled(page);
  let s = await shown(page);
  assert.equal(s.position, other);
  assert.equal(s.token, s.rows[0].id, 'the clean top prediction');
  checkAgainstEngine(shipped, s);
  // Another candidate: the third bar.
  const candidate = s.rows[2].id;
  await page.click(`${SECTION} .ae-ko-bar[data-id="${candidate}"] .ae-ko-candidate`);
  await page.waitForFunction(
    (id) =>
      document.querySelector(`.ae-ko-bar[data-id="${id}"] .ae-ko-candidate`)?.getAttribute('aria-pressed') === 'true',
    candidate,
  );
  await settled(page);
  s = await shown(page);
  assert.equal(s.token, candidate);
  checkAgainstEngine(shipped, s);
  // Another head, from the layer × head picture.
  const [layer, head] = s.layer === 2 && s.head === 1 ? [3, 0] : [2, 1];
  await page.click(`${SECTION} .ae-ko-grid:not(.ae-attr-grid) .ae-ko-cell[data-layer="${layer}"][data-head="${head}"]`);
  await page.waitForFunction(
    (h) => document.querySelector('.ae-ko-claim').textContent.includes(h),
    `L${layer + 1}H${head + 1}`,
  );
  s = await shown(page);
  assert.deepEqual([s.layer, s.head], [layer, head]);
  checkAgainstEngine(shipped, s);
  // Mean ablation, said as such.
  await page.check(`${SECTION} .ae-ko-modes input[value="mean"]`);
  await page.waitForFunction(
    () =>
      /replaced by its mean/.test(document.querySelector('.ae-ko-claim').textContent) ||
      /leaves the chance/.test(document.querySelector('.ae-ko-claim').textContent),
  );
  assert.match(await page.textContent(`${SECTION} .ae-ko-reference`), /reference text for the mean/);
  // The link carries the choice (state.gpt.prediction): opened elsewhere, the same prediction,
  // candidate, head and mode, and the same numbers.
  await settled(page);
  const chosen = await shown(page);
  // The hash is written in bursts after the state changes: the link once it names the choice.
  let link;
  for (const deadline = Date.now() + 15000; ; await new Promise((r) => setTimeout(r, 100))) {
    link = page.url();
    const p = decodeState(new URL(link).hash).gpt?.prediction;
    if (p?.mode === 'mean' && p.layer === chosen.layer && p.head === chosen.head) break;
    if (Date.now() > deadline) assert.fail(`the link never named the choice: ${JSON.stringify(p)}`);
  }
  const again = await pages.open(null, { viewport: { width: 1280, height: 900 } });
  await again.page.goto(link);
  await again.page.evaluate(() => window.__explorer.ready);
  await again.page.locator(`${SECTION} .ae-gpt-interpret`).scrollIntoViewIfNeeded();
  await again.page.evaluate((sel) => (document.querySelector(`${sel} details.ae-gpt-tools`).open = true), SECTION);
  await settled(again.page);
  const opened = await shown(again.page);
  for (const k of ['ids', 'position', 'token', 'layer', 'head', 'mode', 'rows', 'claim'])
    assert.deepEqual(opened[k], chosen[k], `the link's ${k}`);
  assert.equal(chosen.mode, 'mean');
  assert.deepEqual(again.problems, []);
  await again.context.close();
  // Another sentence opens on its own prediction; the head and the mode stay, in the link too.
  await page.evaluate(() => {
    const s = window.__explorer.store;
    s.set({ gpt: { ...s.get().gpt, sentence: 'The cat sat on the mat and the dog sat on the' } });
  });
  await page.waitForFunction(() => window.__explorer.store.get().gpt.prediction.position === undefined);
  const kept = await page.evaluate(() => window.__explorer.store.get().gpt.prediction);
  assert.deepEqual(kept, { layer: chosen.layer, head: chosen.head, mode: 'mean' });
  assert.deepEqual(problems, []);
  await context.close();
});

test('Interpret_TheSweepFillsBlockByBlockAndStopsWhenAsked', async () => {
  const { page, context, problems } = await openSection();
  await sweptAll(page);
  // Stop right after asking: no block is drawn after it.
  await page.evaluate(() => {
    document.querySelector('.ae-ko-sweep').click();
    document.querySelector('.ae-ko-cancel').click();
  });
  await page.waitForFunction(() => /^Stopped after/.test(document.querySelector('.ae-ko-sweep-claim').textContent));
  assert.equal(await page.textContent(`${SECTION} .ae-ko-sweep-claim`), 'Stopped after 0 of 4 blocks.');
  await page.waitForTimeout(300);
  assert.equal(await page.$eval(`${SECTION} .ae-ko-progress`, (p) => p.value), 0);
  const empty = await page.$$eval(`${SECTION} .ae-ko-grid:not(.ae-attr-grid) .ae-ko-cell`, (cs) =>
    cs.every((c) => c.dataset.effect === ''),
  );
  assert.ok(empty, 'no cell measured after the stop');
  // Again, watched: the progress grows one block at a time.
  await page.evaluate(() => {
    const progress = document.querySelector('.ae-ko-progress');
    window.__progress = [];
    new MutationObserver(() => window.__progress.push(progress.value)).observe(progress, {
      attributes: true,
      attributeFilter: ['value'],
    });
    document.querySelector('.ae-ko-sweep').click();
  });
  await sweptAll(page);
  const steps = await page.evaluate(() => [...new Set(window.__progress)]);
  assert.deepEqual(
    steps.filter((v) => v > 0),
    [1, 2, 3, 4],
  );
  assert.deepEqual(problems, []);
  await context.close();
});

// The same checkpoint kept as F16 (model-precision="f16") or BF16: a GPT-2 file is float32, so
// F16's and BF16's numbers differ from it, and the figures show the kept model's.
for (const [precision, model] of [
  ['auto', () => gpt2],
  ['f16', () => gpt2Half],
  ['bf16', () => gpt2Bf16],
]) {
  test(`Interpret_AGpt2CheckpointShowsTheEnginesNumbers_${precision}`, async () => {
    const { page, context, problems } = await pages.open(null, { viewport: { width: 1000, height: 900 } });
    const name = `element-gpt2-${precision}.html`;
    fs.writeFileSync(
      path.join(root, name),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="attention-explorer.js"></script></head><body><attention-explorer view="gpt" sentence="The river bank was muddy after the rain." model-url="models/gpt2-test.safetensors" config-url="models/config.json" model-precision="${precision}"></attention-explorer></body></html>`,
    );
    await page.goto(server.url + name);
    await page.evaluate(() => customElements.whenDefined('attention-explorer'));
    const inside = (s) => `attention-explorer >> ${s}`;
    // The tools are one click deeper: open them, as a reader would.
    await page.click(inside('details.ae-gpt-tools > summary'), { timeout: 60000 });
    await page.waitForSelector(inside('.ae-lens-cell'), { timeout: 60000 });
    await page.waitForFunction(
      () => {
        const r = document.querySelector('attention-explorer').shadowRoot;
        return (
          r.querySelector('.ae-gpt-interpret')?.getAttribute('aria-busy') === 'false' &&
          /^Knocking out/.test(r.querySelector('.ae-ko-claim')?.textContent) &&
          r.querySelector('.ae-lens-claim')?.textContent &&
          /^(Of all|No single)/.test(r.querySelector('.ae-ko-sweep-claim')?.textContent)
        );
      },
      null,
      { timeout: 60000 },
    );
    const s = await page.evaluate(`(${read})(document.querySelector('attention-explorer').shadowRoot)`);
    checkAgainstEngine(model(), s);
    // A small model sweeps unasked: 8 heads.
    const sweep = model().ablationSweep(s.ids, { position: s.position, token: s.token });
    assert.deepEqual(
      s.effects,
      Array.from(sweep.ablatedLogProb.data, (v) => Math.fround(v - sweep.logProb)),
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
}

for (const [scheme, width] of [
  ['light', 390],
  ['dark', 1280],
]) {
  test(`Interpret_NothingClippedAndAxeFindsNoViolations_${scheme}_${width}`, async () => {
    const { page, context } = await openSection({
      colorScheme: scheme,
      bypassCSP: true,
      viewport: { width, height: 900 },
    });
    await sweptAll(page);
    const overflow = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(overflow[0] <= overflow[1], `no horizontal overflow: ${overflow}`);
    // The opening's head shown (on a phone its enlarged picture's fold opens): its table scrolls in
    // its own box, the page does not.
    await page.click(`${SECTION} .ae-gpt-opening-show`);
    await page.waitForFunction(
      (sel) => document.querySelector(`${sel} .ae-gpt-enlarged caption`)?.checkVisibility(),
      SECTION,
    );
    const shownOverflow = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(shownOverflow[0] <= shownOverflow[1], `no horizontal overflow with a head enlarged: ${shownOverflow}`);
    // Every label of the figures inside its figure (the lens scrolls within its own box).
    await page.waitForFunction(() => document.querySelector('.ae-sense-verdict')?.textContent);
    const clipped = await page.evaluate(() =>
      ['.ae-gpt-interpret', '.ae-gpt-senses'].flatMap((figure) => {
        const box = document.querySelector(figure).getBoundingClientRect();
        return [...document.querySelectorAll(`${figure} *`)]
          .filter((e) => !e.closest('.ae-lens-scroll') && e.getClientRects().length)
          .filter((e) => e.getBoundingClientRect().right > box.right + 1)
          .map((e) => e.className || e.tagName);
      }),
    );
    assert.deepEqual(clipped, []);
    await page.addScriptTag({ path: AXE });
    const result = await page.evaluate(() =>
      window.axe.run(
        { include: [document.querySelector('.ae-gpt-interpret'), document.querySelector('.ae-gpt-senses')] },
        { resultTypes: ['violations'] },
      ),
    );
    assert.deepEqual(axeViolations(result), []);
    await context.close();
  });
}

test('Interpret_TheBankMeasureIsTheEnginesAndItsVerdictFollowsTheSentences', async () => {
  const { page, context, problems } = await openSection();
  const { DEFAULT_SENSES, senseSeparation } = await import('../../web/lib/real/sense-separation.js');
  const { wordPosition } = await import('../../web/lib/real/view.js');
  const { fromTokenizerJson } = await import('../../web/lib/tokenizer/index.js');
  const tokenizer = fromTokenizerJson(
    fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.tokenizer.json'), 'utf8'),
    {
      file: 'tokenizer.json',
    },
  );
  const measure = (senses, word = 'bank') =>
    senseSeparation(
      senses.flatMap((s) =>
        s.sentences.map((text) => {
          const pos = wordPosition(tokenizer, text, word);
          const residual = shipped.trace(pos.ids, {
            qkv: false,
            scores: false,
            weights: false,
            residual: true,
            logits: 'none',
          }).residual;
          return { sense: s.name, position: pos.index, residual };
        }),
      ),
      { word },
    );
  const verdict = () => page.textContent(`${SECTION} .ae-sense-verdict`);
  await page.waitForFunction(() => document.querySelector('.ae-sense-verdict')?.textContent);
  const want = measure(DEFAULT_SENSES.senses);
  assert.equal(await verdict(), want.verdict.sentence);
  assert.deepEqual(
    JSON.parse(await page.getAttribute(`${SECTION} .ae-sense-verdict`, 'data-layers')),
    want.layers.map((m) => [m.same, m.different, m.baseline.mean, m.z, m.nearest.correct]),
  );
  // Other sentences: a new measure and its own verdict.
  const senses = [
    {
      name: 'river',
      sentences: ['The river bank was muddy.', 'Fish swam near the bank of the stream.', 'We sat on the grassy bank.'],
    },
    {
      name: 'money',
      sentences: ['The bank lent them money.', 'She works at a bank in town.', 'He robbed the bank at noon.'],
    },
  ];
  const areas = page.locator(`${SECTION} .ae-sense-sentences`);
  await areas.nth(0).fill(senses[0].sentences.join('\n'));
  await areas.nth(1).fill(senses[1].sentences.join('\n'));
  await page.click(`${SECTION} .ae-sense-go`);
  const other = measure(senses);
  await page.waitForFunction(
    (t) => document.querySelector('.ae-sense-verdict').textContent === t,
    other.verdict.sentence,
  );
  // A sentence without the word: refused naming where it is; the measure on screen stays.
  await areas.nth(0).fill('No such word.\nThe bank.');
  await page.click(`${SECTION} .ae-sense-go`);
  await page.waitForFunction(() =>
    /senses\[0\]\.sentences\[0\]/.test(document.querySelector('.ae-sense-boxes ~ .ae-learn-message')?.textContent),
  );
  assert.deepEqual(problems, []);
  await context.close();
});

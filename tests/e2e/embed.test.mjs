// Browser tests of the embeddable explorer as shipped: dist/attention-explorer.js (the
// element), dist/embed.html (the iframe view) and dist/ opened from file://. The test builds
// dist/ first (scripts/build-dist.mjs), so it always checks the current sources.
// Run: node --test tests/e2e/embed.test.mjs
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchBrowser, keptPages, serveStatic, ensureDist } from './helpers.mjs';
import { loadEngine } from '../../web/engine/engine.js';
import { elementSnippet } from '../../web/tools/embed-dialog.js';
import { defaultState, VIEWS } from '../../web/lib/state.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');

let server;
let browser;
// A test's page is a new document in a page kept for its context options (keptPages in
// helpers.mjs); the routes a test adds go when it hands the page back.
let pages;
let engine;

test.before(async () => {
  ensureDist();
  server = await serveStatic(DIST);
  browser = await launchBrowser();
  pages = keptPages(browser);
  engine = await loadEngine();
});
test.after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
});

/** Opens a dist page, waits for every element to be ready; returns {page, problems}. A figure
 * draws as it nears the viewport (as a reader scrolls to it), so one not drawn yet is scrolled to. */
async function openElements(rel, { waitFor = 'attention-explorer' } = {}) {
  const { page, problems, context } = await pages.open(null);
  await page.goto(server.url + rel);
  await page.waitForFunction(
    (sel) => {
      const els = [...document.querySelectorAll(sel)];
      const drawn = (e) => e.shadowRoot?.querySelector('.ae-root table[data-matrix]');
      els.find((e) => !drawn(e))?.scrollIntoView();
      return els.length > 0 && els.every(drawn);
    },
    waitFor,
    { timeout: 20000 },
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => Promise.all([...document.querySelectorAll('attention-explorer')].map((e) => e.ready)));
  return { page, problems, context };
}

/** Visible heatmaps of an element: {matrix/context: number[][] from the cells' data-value}. */
function readTables(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    const out = {};
    for (const table of el.shadowRoot.querySelectorAll('table[data-matrix]')) {
      if (!table.offsetParent) continue; // hidden section
      const rows = [...table.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value)),
      );
      out[`${table.dataset.matrix}/${table.dataset.context || ''}`] = rows;
    }
    return out;
  }, selector);
}

const close = (a, b, tol = 1e-6) => Math.abs(a - b) <= tol + 1e-6 * Math.abs(b);
function assertMatrix(actual, expected, what) {
  assert.ok(actual, `${what}: not shown`);
  assert.equal(actual.length, expected.length, `${what}: rows`);
  actual.forEach((row, i) => {
    assert.equal(row.length, expected[i].length, `${what}[${i}]: columns`);
    row.forEach((v, j) =>
      assert.ok(close(v, expected[i][j]), `${what}[${i}][${j}]: shown ${v}, engine ${expected[i][j]}`),
    );
  });
}

/** The engine's trace (head 0) for a state and one context, computed in Node. */
function expected(state, context) {
  const o = state.options;
  const args = {
    x: state.contexts[context].map((w) => state.vocab[w]),
    heads: o.heads,
    causal: o.causal,
    scale: o.scale,
    temperature: o.temperature,
    dropout: o.dropout,
    seed: o.seed,
    training: o.training,
    kernel: 'reference',
  };
  if (o.projections) Object.assign(args, { wq: state.weights.wq, wk: state.weights.wk, wv: state.weights.wv });
  const t = engine.attend(args);
  return { scores: t.get('scores')[0], weights: t.get('weights')[0], output: t.get('output') };
}

test('TwoElements_EachShowsItsOwnConfigurationWithTheEngineNumbers', async () => {
  const { page, problems } = await openElements('examples/two-elements.html');
  const defaults = defaultState(engine.examples());
  const river = await readTables(page, '#river');
  const finance = await readTables(page, '#finance');
  // river: scores, weights and output of the river sentence; nothing else.
  assert.deepEqual(Object.keys(river).sort(), ['out/river', 'scores/river', 'weights/river']);
  const r = expected(defaults, 'river');
  assertMatrix(river['scores/river'], r.scores, 'river scores');
  assertMatrix(river['weights/river'], r.weights, 'river weights');
  assertMatrix(river['out/river'], r.output, 'river output');
  // finance: causal, temperature 2, weights only.
  assert.deepEqual(Object.keys(finance), ['weights/finance']);
  const f = expected({ ...defaults, options: { ...defaults.options, causal: true, temperature: 2 } }, 'finance');
  assertMatrix(finance['weights/finance'], f.weights, 'finance weights');
  assert.equal(finance['weights/finance'][0][1], 0, 'the causal mask zeroes future weights');
  const themes = await page.evaluate(() =>
    ['#river', '#finance'].map((s) => document.querySelector(s).shadowRoot.querySelector('.ae-root').dataset.theme),
  );
  assert.deepEqual(themes, ['light', 'dark']);
  // The minimal bar is only on the element that asked for it.
  const bars = await page.evaluate(() =>
    ['#river', '#finance'].map((s) => Boolean(document.querySelector(s).shadowRoot.querySelector('.ae-bar-minimal'))),
  );
  assert.deepEqual(bars, [false, true]);
  assert.deepEqual(
    problems.filter((p) => !/favicon/.test(p) && !/404/.test(p)),
    [],
  );
});

test('TwoElements_ShareOneEngineAndDoNotInterfere', async () => {
  const { page } = await openElements('examples/two-elements.html');
  const same = await page.evaluate(async () => {
    const [a, b] = document.querySelectorAll('attention-explorer');
    return (await a.engine) === (await b.engine);
  });
  assert.equal(same, true, 'both elements use one engine instance');
  const before = await readTables(page, '#finance');
  const events = await page.evaluate(async () => {
    const [river, finance] = document.querySelectorAll('attention-explorer');
    const seen = { river: 0, finance: 0 };
    river.addEventListener('change', () => {
      seen.river++;
    });
    finance.addEventListener('change', () => {
      seen.finance++;
    });
    river.setState({ options: { causal: true, temperature: 0.5 } });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { seen, financeOptions: finance.state.options, riverOptions: river.state.options };
  });
  assert.deepEqual(events.seen, { river: 1, finance: 0 });
  assert.equal(events.riverOptions.causal, true);
  assert.equal(events.financeOptions.temperature, 2);
  assert.deepEqual(await readTables(page, '#finance'), before);
  const river = await readTables(page, '#river');
  const defaults = defaultState(engine.examples());
  assertMatrix(
    river['weights/river'],
    expected({ ...defaults, options: { ...defaults.options, causal: true, temperature: 0.5 } }, 'river').weights,
    'river weights after setState',
  );
});

test('CustomJson_ShowsTheNumbersTheEngineComputesForIt', async () => {
  const html = fs.readFileSync(path.join(ROOT, 'web/examples/custom-json.html'), 'utf8');
  const json = JSON.parse(/<script type="application\/json">([\s\S]*?)<\/script>/.exec(html)[1]);
  const { page } = await openElements('examples/custom-json.html');
  const notice = await page.evaluate(
    () => document.querySelector('#custom').shadowRoot.querySelector('.ae-notice').hidden,
  );
  assert.equal(notice, true, 'a valid JSON state shows no notice');
  const shown = await readTables(page, '#custom');
  const t = engine.attend({
    x: json.contexts.sentence.map((w) => json.vocab[w]),
    wq: json.weights.wq,
    wk: json.weights.wk,
    wv: json.weights.wv,
    causal: true,
    kernel: 'reference',
  });
  assertMatrix(shown['scores/sentence'], t.get('scores')[0], 'scores');
  assertMatrix(shown['weights/sentence'], t.get('weights')[0], 'weights');
  assertMatrix(shown['out/sentence'], t.get('output'), 'output');
  const labels = await page.evaluate(() =>
    [...document.querySelector('#custom').shadowRoot.querySelectorAll('table[data-matrix="weights"] tbody th')].map(
      (th) => th.textContent.trim(),
    ),
  );
  assert.deepEqual(labels, ['the', 'cat', 'sat']);
});

test('HostileCss_DoesNotChangeTheElementLayout', async () => {
  const { page } = await openElements('examples/hostile-css.html');
  const measure = () =>
    page.evaluate(() => {
      const el = document.querySelector('#target');
      const host = el.getBoundingClientRect();
      const rendered = [
        ...el.shadowRoot.querySelectorAll('.ae-bar-minimal, .ae-root, h2, h3, table, th, td, p, select, input'),
      ].filter((n) => n.getClientRects().length > 0);
      const boxes = rendered.map((n) => {
        const r = n.getBoundingClientRect();
        const cs = getComputedStyle(n);
        return [
          n.localName,
          Math.round((r.left - host.left) * 2) / 2,
          Math.round((r.top - host.top) * 2) / 2,
          Math.round(r.width * 2) / 2,
          Math.round(r.height * 2) / 2,
          cs.fontFamily,
          cs.fontSize,
          cs.color,
          cs.textTransform,
          cs.letterSpacing,
        ];
      });
      return { width: host.width, height: host.height, boxes };
    });
  const hostile = await measure();
  await page.evaluate(() => {
    document.getElementById('hostile').disabled = true;
  });
  await page.waitForTimeout(100);
  const plain = await measure();
  assert.ok(plain.boxes.length > 20, `measured ${plain.boxes.length} boxes`);
  assert.ok(plain.height > 200, `element height ${plain.height}`);
  assert.equal(hostile.width, plain.width);
  assert.equal(hostile.height, plain.height);
  assert.equal(hostile.boxes.length, plain.boxes.length);
  hostile.boxes.forEach((b, i) => assert.deepEqual(b, plain.boxes[i], `box ${i} (${plain.boxes[i][0]})`));
});

test('Csp_StrictPolicyHeaderLoadsTheElementWithoutViolations', async () => {
  const { page, problems } = await openElements('examples/csp.html');
  // The header really was sent (serveStatic's CSP equals the issue's policy).
  const response = await page.goto(server.url + 'examples/csp.html');
  assert.equal(
    response.headers()['content-security-policy'],
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'",
  );
  await page.waitForFunction(
    () => document.querySelector('#csp')?.shadowRoot?.querySelector('table[data-matrix="weights"]'),
    null,
    { timeout: 20000 },
  );
  await page.evaluate(() => document.querySelector('#csp').ready);
  const out = await page.evaluate(() => ({
    violations: window.__cspViolations,
    math: document.querySelector('#csp').shadowRoot.querySelectorAll('math').length,
    // The element typesets with web/element/mathml-tex.js: the general formula has a fraction
    // with a square root; the numeric rows are bracketed tables of numbers.
    fraction: Boolean(document.querySelector('#csp').shadowRoot.querySelector('math mfrac msqrt')),
    vectors: [...document.querySelector('#csp').shadowRoot.querySelectorAll('math mtable')].map(
      (t) => t.querySelectorAll('mtd').length,
    ),
    tables: document.querySelector('#csp').shadowRoot.querySelectorAll('table[data-matrix]').length,
  }));
  assert.deepEqual(out.violations, []);
  assert.ok(out.math >= 1, 'the formula is typeset (MathML)');
  assert.equal(out.fraction, true);
  assert.ok(out.vectors.length >= 4 && out.vectors.every((n) => n === 3), `vectors of 3 numbers: ${out.vectors}`);
  assert.ok(out.tables >= 3);
  assert.deepEqual(
    problems.filter((p) => /Refused|violat|Content Security/i.test(p)),
    [],
  );
});

test('BadAttributesAndJson_ShowANoticeAndStillRender', async () => {
  const { page, context } = await pages.open(null);
  const src = server.url + 'attention-explorer.js';
  await page.route('**/bad.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><script type="module" src="${src}"></script>
<attention-explorer id="attrs" heads="abc" temperature="-5" view="scores,nope" theme="neon" controls="lots" height="tall" example="ocean"></attention-explorer>
<attention-explorer id="json"><script type="application/json">{"vocab": {"a": [1, 2]}, "weights": 7,</script></attention-explorer>
<attention-explorer id="tokens" tokens="stream <img src=x onerror=window.__pwned=1> mud"></attention-explorer>
<attention-explorer id="stepped" step="4" view="loops" height="200" tokens="money bank" example="finance"></attention-explorer>`,
    }),
  );
  await page.goto(server.url + 'bad.html');
  await page.waitForFunction(
    () => {
      const els = [...document.querySelectorAll('attention-explorer')];
      const drawn = (e) => e.shadowRoot.querySelector('table[data-matrix]');
      els.find((e) => !drawn(e))?.scrollIntoView(); // a figure draws as it nears the viewport
      return els.every(drawn);
    },
    null,
    { timeout: 20000 },
  );
  const notices = await page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('attention-explorer')].map((e) => {
        const n = e.shadowRoot.querySelector('.ae-notice');
        return [
          e.id,
          {
            hidden: n.hidden,
            text: n.textContent,
            tables: e.shadowRoot.querySelectorAll('table[data-matrix]').length,
            imgs: e.shadowRoot.querySelectorAll('img').length,
          },
        ];
      }),
    ),
  );
  for (const pattern of [
    /heads="abc"/,
    /temperature="-5": expected a number in \[0\.01, 100\]/,
    /view: unknown step the string "nope"/,
    /theme/,
    /controls="lots"/,
    /height="tall"/,
    /example/,
  ]) {
    assert.match(notices.attrs.text, pattern);
  }
  assert.equal(notices.attrs.hidden, false);
  assert.match(notices.json.text, /inline JSON: not valid JSON/);
  assert.match(notices.tokens.text, /not in the vocabulary/);
  for (const n of Object.values(notices)) {
    assert.ok(n.tables > 0, 'still renders');
    assert.equal(n.imgs, 0);
  }
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // Good attributes on the same page: the stepper starts at step 4, the element scrolls in 200px.
  const stepped = await page.evaluate(() => {
    const el = document.getElementById('stepped');
    const frame = el.shadowRoot.querySelector('.ae-el-frame');
    return {
      step: el.state.step,
      tokens: el.state.contexts.finance,
      height: el.getBoundingClientRect().height,
      scrolls: frame.scrollHeight > frame.clientHeight,
    };
  });
  assert.equal(notices.stepped.hidden, true, notices.stepped.text);
  assert.deepEqual(stepped.tokens, ['money', 'bank']);
  assert.equal(stepped.step, 4);
  assert.equal(Math.round(stepped.height), 200);
  assert.equal(stepped.scrolls, true);
  await context.close();
});

// Every attribute with a value it cannot use (issue 33: view="weigths" used to draw every section
// of the explorer, 14,492 px, and fetch every file): the notice names the attribute, the value and
// what it accepts, and the element shows its default figure for that attribute's part.
const BAD_ATTRIBUTES = [
  // [attributes, what the notice says, the sections shown]
  [
    'view="weigths"',
    /view: unknown step the string "weigths"; expected one of all, contexts, .*weights.*view: showing the default figure \(contexts\) instead/s,
    ['minimal-bar', 'contexts'],
  ],
  [
    'example="ocean"',
    /example="ocean": expected one of river, finance, both, averaging, got the string "ocean"/,
    ['minimal-bar', 'contexts'],
  ],
  [
    'example="learn:fly"',
    /example="learn:fly": expected one of copy, reverse, sort, repeat, bank, text, got the string "fly"/,
    ['learn'],
  ],
  [
    'tokens="stream zzz mud"',
    /tokens="stream zzz mud": .*"zzz" is not in the vocabulary; using the default contexts/,
    ['minimal-bar', 'contexts'],
  ],
  ['causal="maybe"', /causal="maybe": expected true or false \(or the bare attribute\)/, ['minimal-bar', 'contexts']],
  ['scale="big"', /scale="big": expected a number/, ['minimal-bar', 'contexts']],
  ['projections="nah"', /projections="nah": expected true or false/, ['minimal-bar', 'contexts']],
  ['temperature="-5"', /temperature="-5": expected a number in \[0\.01, 100\], got -5/, ['minimal-bar', 'contexts']],
  ['heads="abc"', /heads="abc": expected a whole number/, ['minimal-bar', 'contexts']],
  ['heads="3"', /heads="3": 3 heads do not divide width 2; using 1 head/, ['minimal-bar', 'contexts']],
  ['theme="neon"', /theme="neon": expected one of auto, light, dark/, ['minimal-bar', 'contexts']],
  [
    'controls="lots"',
    /controls="lots": expected one of none, minimal, full; using minimal/,
    ['minimal-bar', 'contexts'],
  ],
  ['step="99"', /step="99": expected an integer in \[0, \d+\], got 99/, ['minimal-bar', 'contexts']],
  ['height="tall"', /height="tall": expected a length such as 480, 480px, 30rem or 70vh/, ['minimal-bar', 'contexts']],
  ['example="learn:sort" steps="many"', /steps="many": expected a whole number/, ['learn']],
  ['example="learn:sort" autoplay="sometimes"', /autoplay="sometimes": expected true or false/, ['learn']],
  ['figure="maybe"', /figure="maybe": expected true or false/, ['minimal-bar', 'contexts']],
  ['sentence=""', /sentence="": expected text of 1 to 2000 characters/, ['gpt']],
  [
    'model-url="ftp://x/model.safetensors"',
    /model-url="ftp:\/\/x\/model\.safetensors": expected an http\(s\) or relative URL/,
    ['gpt'],
  ],
  ['config-url="config.json"', /config-url: it goes with model-url, which is missing; ignored/, ['gpt']],
  ['tokenizer-url="tokenizer.json"', /tokenizer-url: it goes with model-url, which is missing; ignored/, ['gpt']],
  ['model-url="m.safetensors" model-heads="x"', /model-heads="x": expected a whole number/, ['gpt']],
  [
    'model-precision="half"',
    /model-precision="half": expected f32, f16, bf16 or auto; using auto \(float32 where it fits\)/,
    ['gpt'],
  ],
];
// (caption takes any text: a long one is clipped, which Presentation_FigureAndCaptionAttributes checks.)

test('BadAttributes_EachShowsTheDefaultFigureAndANoticeNamingTheValueAndWhatItAccepts', async () => {
  const { page, context } = await pages.open(null, { viewport: { width: 1000, height: 800 } });
  await page.route('**/every-bad.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><script type="module" src="${server.url}attention-explorer.js"></script>
${BAD_ATTRIBUTES.map(([attrs], n) => `<attention-explorer id="bad-${n}" ${attrs}></attention-explorer>`).join('\n')}`,
    }),
  );
  await page.goto(server.url + 'every-bad.html');
  for (const [n, [attrs, says, sections]] of BAD_ATTRIBUTES.entries()) {
    const shown = await page.evaluate(async (id) => {
      const el = document.getElementById(id);
      el.scrollIntoView();
      await el.ready;
      const root = el.shadowRoot;
      const notice = root.querySelector('.ae-notice');
      return {
        notice: notice.hidden ? null : notice.textContent,
        sections: [...root.querySelectorAll('section[data-section]')]
          .filter((s) => !s.hidden)
          .map((s) => s.dataset.section),
      };
    }, `bad-${n}`);
    assert.match(shown.notice ?? '(no notice)', says, attrs);
    assert.deepEqual(shown.sections, sections, `${attrs}: the default figure, not the whole explorer`);
  }
  await context.close();
});

test('Element_TheTransposeIsASuperscriptTNotTheModifierLetterU1D40', async () => {
  // "Kᵀ" in DejaVu Serif Bold reads "Kˢ": headings, captions and section names draw a superscript
  // T; the text read back (an export's title) is the sign again.
  const { page, context } = await pages.open(null);
  await page.route('**/transpose.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><style>body { font-family: 'DejaVu Serif'; font-weight: 700 }</style>
<script type="module" src="${server.url}attention-explorer.js"></script>
<attention-explorer view="naive,scores" controls="none"></attention-explorer>`,
    }),
  );
  await page.goto(server.url + 'transpose.html');
  await page.waitForFunction(() =>
    document.querySelector('attention-explorer').shadowRoot?.querySelector('table[data-matrix="scores"] td.ae-cell'),
  );
  const shown = await page.evaluate(async () => {
    const root = document.querySelector('attention-explorer').shadowRoot;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const withSign = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode())
      if (n.nodeValue.includes('\u1d40')) withSign.push(n.nodeValue);
    const { readHeatmapTable } = await import(new URL('attention-explorer.export-menu.js', location.href).href);
    return {
      withSign,
      heading: [...root.querySelectorAll('h3')].map((h) => h.innerHTML).find((x) => x.includes('Scores')),
      caption: root.querySelector('table[data-matrix="scores"] caption').innerText,
      sups: root.querySelectorAll('sup.ae-t').length,
      exported: readHeatmapTable(root.querySelector('table[data-matrix="scores"]')).name,
    };
  });
  assert.deepEqual(shown.withSign, [], 'no text node draws U+1D40');
  assert.equal(shown.heading, '1 · Scores Q·K<sup class="ae-t" data-text="ᵀ">T</sup>');
  assert.match(shown.caption, /^scores = Q·KT/);
  assert.ok(shown.sups >= 4, `${shown.sups} superscript T's`);
  assert.equal(shown.exported, 'scores = Q·Kᵀ (river)', "an export's title reads the sign back");
  await context.close();
});

test('HostApi_StateSetStateStepAndEvents', async () => {
  const { page } = await openElements('examples/index.html');
  const out = await page.evaluate(async () => {
    const el = document.getElementById('demo');
    const events = [];
    el.addEventListener('change', (e) => events.push(['change', e.detail.state.options.causal, e.detail.state.step]));
    el.addEventListener('step', (e) => events.push(['step', e.detail.step]));
    const p1 = el.setState({ options: { causal: true } });
    const copy = el.state;
    copy.options.causal = false; // a copy: does not change the element
    const s1 = el.step();
    const s2 = el.step(3);
    const s3 = el.step(-100);
    const bad = el.setState({ options: { heads: 'x' }, focus: 'nowhere' });
    const noticeShown = !el.shadowRoot.querySelector('.ae-notice').hidden;
    el.state = { ...el.state, focus: 'finance' };
    return { p1, s: [s1, s2, s3], bad, noticeShown, causal: el.state.options.causal, focus: el.state.focus, events };
  });
  assert.deepEqual(out.p1, []);
  assert.deepEqual(out.s, [1, 4, 0]);
  assert.equal(out.causal, true);
  assert.equal(out.focus, 'finance');
  assert.ok(
    out.bad.some((p) => /options.heads/.test(p)) && out.bad.some((p) => /focus/.test(p)),
    JSON.stringify(out.bad),
  );
  assert.equal(out.noticeShown, true);
  assert.deepEqual(out.events.slice(0, 8), [
    ['change', true, 0],
    ['change', true, 1],
    ['step', 1],
    ['change', true, 4],
    ['step', 4],
    ['change', true, 0],
    ['step', 0],
    ['change', true, 0],
  ]);
});

test('EmbedSnippet_ReproducesAnEditedState', async () => {
  const defaults = defaultState(engine.examples());
  const state = structuredClone(defaults);
  state.vocab.bank = [0.5, 0.25, -1, 2];
  state.vocab['<b>x</b>'] = [1, 1, 1, 1];
  state.contexts.river = ['stream', '<b>x</b>', 'bank', 'mud'];
  state.options = { ...state.options, causal: true, temperature: 0.75, dropout: 0.2, training: true, seed: 3 };
  state.view = ['weights', 'output'];
  state.focus = 'river';
  state.example = 'river';
  state.selected = { matrix: 'weights', row: 1, col: 0 };
  const snippet = elementSnippet(state, defaults, { src: server.url + 'attention-explorer.js' });
  assert.ok(!snippet.includes('<b>x</b>'), 'token names are escaped in the snippet');
  const { page, context } = await pages.open(null);
  await page.route('**/snippet.html', (route) =>
    route.fulfill({ contentType: 'text/html', body: `<!doctype html><meta charset="utf-8">${snippet}` }),
  );
  await page.goto(server.url + 'snippet.html');
  await page.waitForFunction(
    () => document.querySelector('attention-explorer')?.shadowRoot?.querySelector('table[data-matrix="weights"]'),
    null,
    { timeout: 20000 },
  );
  const shown = await page.evaluate(() => document.querySelector('attention-explorer').state);
  const { notice } = await page.evaluate(() => ({
    notice: document.querySelector('attention-explorer').shadowRoot.querySelector('.ae-notice').textContent,
  }));
  assert.equal(notice, '');
  assert.deepEqual(shown, state);
  await context.close();
});

test('Iframe_ReportsItsHeightAndTheHostSizesIt', async () => {
  const { page, context } = await pages.open(server.url + 'examples/iframe.html');
  await page.waitForFunction(
    () =>
      document.querySelector('#frame').style.height &&
      document.querySelector('#frame').contentDocument?.documentElement.classList.contains('ae-frame-sized') &&
      document.querySelector('#frame').contentDocument?.querySelector('table[data-matrix="weights"]'),
    null,
    { timeout: 20000 },
  );
  await page.waitForTimeout(300);
  const out = await page.evaluate(() => {
    const frame = document.querySelector('#frame');
    const doc = frame.contentDocument;
    return {
      reported: parseFloat(frame.style.height),
      frameHeight: frame.getBoundingClientRect().height,
      contentHeight: Math.ceil(doc.documentElement.getBoundingClientRect().height),
      scrolls: doc.documentElement.scrollHeight > doc.documentElement.clientHeight + 1,
      tables: [...doc.querySelectorAll('table[data-matrix]')]
        .filter((t) => t.offsetParent)
        .map((t) => `${t.dataset.matrix}/${t.dataset.context}`),
    };
  });
  assert.ok(out.reported > 150, `reported ${out.reported}`);
  assert.equal(out.reported, out.contentHeight);
  assert.equal(Math.round(out.frameHeight), out.reported);
  assert.equal(out.scrolls, false, 'the sized frame shows everything');
  assert.deepEqual(out.tables, ['weights/river']);
  await context.close();
});

test('Dist_WorksFromFileUrls', async () => {
  const { page, problems, context } = await pages.open(null);
  // The page.
  await page.goto(pathToFileURL(path.join(DIST, 'index.html')).href);
  await page.waitForFunction(() => document.querySelectorAll('table[data-matrix]').length > 5, null, {
    timeout: 20000,
  });
  // The iframe view with a state in its hash.
  await page.goto(
    `${pathToFileURL(path.join(DIST, 'embed.html')).href}#${encodeURIComponent('{"example":"finance","view":["weights"],"focus":"finance"}')}`,
  );
  await page.waitForFunction(
    () => document.querySelector('table[data-matrix="weights"][data-context="finance"]')?.offsetParent,
    null,
    { timeout: 20000 },
  );
  // The element as a classic script, on a page opened from file://.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ae-file-'));
  const html = path.join(dir, 'post.html');
  fs.writeFileSync(
    html,
    `<!doctype html><meta charset="utf-8"><script src="${pathToFileURL(path.join(DIST, 'attention-explorer.iife.js')).href}"></script>
<attention-explorer example="river" view="weights" controls="none"></attention-explorer>`,
  );
  await page.goto(pathToFileURL(html).href);
  await page.waitForFunction(
    () => document.querySelector('attention-explorer')?.shadowRoot?.querySelector('table[data-matrix="weights"]'),
    null,
    { timeout: 20000 },
  );
  const weights = await readTables(page, 'attention-explorer');
  const defaults = defaultState(engine.examples());
  assertMatrix(weights['weights/river'], expected(defaults, 'river').weights, 'file:// element weights');
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(
    problems.filter((p) => !/favicon/.test(p)),
    [],
  );
  await context.close();
});

test('Dist_ElementFileIsOneSelfContainedFileWithinTheGzipBudget', () => {
  const file = path.join(DIST, 'attention-explorer.js');
  const text = fs.readFileSync(file, 'utf8');
  const kb = gzipSync(Buffer.from(text), { level: 9 }).length / 1024;
  console.log(`# dist/attention-explorer.js: ${kb.toFixed(1)} KB gzipped`);
  assert.ok(kb <= 150, `${kb.toFixed(1)} KB gzipped`);
  // Self-contained: no static import of another file. The whole engine (engine.js beside it,
  // its WASM inlined) is imported only by a view that needs more than the inlined one (the
  // plane); the next test renders the element with every other file unreachable.
  assert.doesNotMatch(text, /(^|[;}\n])\s*import\s*[\w{}*\s,]*\s*from\s*["'][^"']+["']/);
  // The one .wasm beside it is the threaded engine's, which only workers of cross-origin isolated
  // pages fetch (its pool's workers share it by URL, so it cannot be inlined).
  assert.deepEqual(
    fs.readdirSync(DIST, { recursive: true }).filter((f) => String(f).endsWith('.wasm')),
    ['attention-explorer.engine-threads.wasm'],
  );
});

test('Dist_ElementRendersWithNothingButItsOwnFile', async () => {
  const { page, context, problems } = await pages.open(null);
  const others = [];
  await page.route(/\/(?!alone\.html$|attention-explorer\.js$|favicon\.ico$)[^/]*$/, (route) => {
    others.push(route.request().url());
    return route.abort();
  });
  await page.route('**/alone.html', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><script type="module" src="attention-explorer.js"></script><attention-explorer example="river"></attention-explorer>',
    }),
  );
  await page.goto(server.url + 'alone.html');
  await page.waitForFunction(
    () => document.querySelector('attention-explorer')?.shadowRoot?.querySelector('table[data-matrix="output"]'),
    null,
    { timeout: 20000 },
  );
  await page.evaluate(() => document.querySelector('attention-explorer').ready);
  await page.evaluate(() => document.querySelector('attention-explorer').scrollIntoView());
  assert.deepEqual(others, [], 'no other file was requested for the figure on screen');
  assert.deepEqual(
    problems.filter((p) => !/favicon/.test(p)),
    [],
  );
  await context.close();
});

test('Dist_AFigureWhoseFileIsMissingSaysWhichFileAndWhere', async () => {
  // The element copied alone: the plane needs engine.js (and its own file) beside it.
  for (const [view, missing] of [
    ['plane', 'engine.js'],
    ['learn', 'attention-explorer.learn.js'],
  ]) {
    const { page, context } = await pages.open(null);
    await page.route(new RegExp(`/${missing.replace(/\./g, '\\.')}$`), (route) =>
      route.fulfill({ status: 404, body: 'not found' }),
    );
    await page.route('**/missing.html', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><meta charset="utf-8"><script type="module" src="attention-explorer.js"></script><attention-explorer view="${view}" controls="none"></attention-explorer>`,
      }),
    );
    await page.goto(server.url + 'missing.html');
    const notice = await page.waitForFunction(
      () => {
        const n = document.querySelector('attention-explorer')?.shadowRoot?.querySelector('.ae-notice');
        return n && !n.hidden && n.textContent;
      },
      null,
      { timeout: 20000 },
    );
    const text = await notice.jsonValue();
    assert.match(text, new RegExp(`${missing.replace(/\./g, '\\.')}`), text);
    assert.match(text, /beside attention-explorer\.js/, text);
    await context.close();
  }
});

test('Readme_TheFilesTableIsWhatTheBuildEmits', () => {
  // The README's "Which files" table against the build's own (dist/attention-explorer.files.json,
  // written by scripts/build-dist.mjs from the registry of sections): every figure's row names
  // exactly the files its sections need, every view has one row, every file the build lists is in
  // the table, in dist/ and in the package.
  const manifest = JSON.parse(fs.readFileSync(path.join(DIST, 'attention-explorer.files.json'), 'utf8'));
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('<!-- files-table');
  assert.ok(at > 0, 'the README marks its files table');
  const lines = readme.slice(at).split('\n').slice(1);
  const rows = lines
    .slice(
      0,
      lines.findIndex((l, n) => n > 0 && !l.startsWith('|')),
    )
    .slice(2)
    .map((l) => l.split('|').slice(1, -1));
  const ticked = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const filesOf = (cell) =>
    ticked(cell).filter((t) => t !== 'attention-explorer.js' && fs.existsSync(path.join(DIST, t)));
  const sorted = (list) => [...new Set(list)].sort();
  const forView = (view) =>
    sorted(Object.values(manifest.sections).flatMap((s) => (s.views?.includes(view) ? s.files : [])));
  const rowOf = new Map();
  const inTable = new Set();
  for (const [names, files] of rows) {
    const listed = sorted(filesOf(files));
    listed.forEach((f) => inTable.add(f));
    if (ticked(names).includes('controls="full"')) {
      const full = Object.values(manifest.sections).filter((s) => s.controls === 'full');
      assert.deepEqual(listed, sorted([...full.flatMap((s) => s.files), ...manifest.controls.full]), 'controls="full"');
      continue;
    }
    if (/without a `tokenizer-url`/.test(names))
      assert.deepEqual(listed, sorted(manifest.when['gpt2-without-tokenizer']), names);
    if (/cross-origin isolated/.test(names))
      assert.deepEqual(listed, sorted(manifest.when['cross-origin-isolated']), names);
    for (const view of ticked(names).filter((n) => VIEWS.includes(n))) {
      assert.ok(!rowOf.has(view), `${view} has one row`);
      rowOf.set(view, names);
      assert.deepEqual(listed, forView(view), `the files of view="${view}"`);
    }
  }
  for (const view of VIEWS.filter((v) => !['controls', 'edit'].includes(v)))
    assert.ok(rowOf.has(view), `view="${view}" has a row in the table`);
  const built = sorted([
    ...Object.values(manifest.sections).flatMap((s) => s.files),
    ...Object.values(manifest.controls).flat(),
    ...Object.values(manifest.when).flat(),
  ]);
  const packed = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).files;
  for (const file of built) {
    assert.ok(inTable.has(file), `${file} (in the build's table) is in the README's`);
    assert.ok(fs.existsSync(path.join(DIST, file)), `${file} is in dist/`);
    assert.ok(packed.includes(`dist/${file}`), `${file} is in the package`);
  }
  assert.ok(packed.includes('dist/attention-explorer.files.json'), 'the table ships too');
});

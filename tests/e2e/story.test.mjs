// The page as a story (issue 30; the built page, dist/index.html, in Chromium): its first screen shows attention
// picking out the context word with a sentence the numbers on screen support; the notebook's
// own weights are a click away and reproduce it; every computed sentence is true of the numbers
// on screen in many states (heads 1/2/4, the mask, each preset, an added word, an edited
// weight); one colour means one thing, with a legend wherever a colour is; the map of the whole
// transformer is whole at 1280 and 390 px and links both ways; the sections come in the order
// of one layer, then the block, then the model; the mask and the temperature say what they are.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveStatic, launchBrowser, keptPages, PAGE_DIR, ensureDist } from './helpers.mjs';
import { encodeState } from '../../web/lib/share.js';
import { defaultState } from '../../web/lib/state.js';
import { loadEngine } from '../../web/engine/engine.js';
import { headColor } from '../../web/lib/palette.js';
import { parseColor } from '../../web/lib/colormaps.js';
import { storyStates, numbersIn } from '../helpers/story-states.mjs';

let server, browser, defaults, states;
// A test's page is a new document in a page kept for its context options (keptPages in
// helpers.mjs), unless the test adds listeners, init scripts or emulation of its own.
let pages;
before(async () => {
  ensureDist();
  server = await serveStatic(PAGE_DIR);
  browser = await launchBrowser();
  pages = keptPages(browser);
  const engine = await loadEngine();
  defaults = defaultState(engine.examples());
  states = storyStates(engine.examples());
});
after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
});

async function open(hash = '', contextOptions = {}) {
  const o = await pages.open(null, { viewport: { width: 1280, height: 800 }, ...contextOptions });
  await o.page.goto(server.url + hash);
  await o.page.evaluate(() => window.__explorer.ready);
  return o;
}
const link = (state) => `#${encodeState(state, defaults)}`;
const rgb = (hex) => `rgb(${parseColor(hex).join(', ')})`;

/** Scrolls through the page so that every section draws. */
async function drawAll(page) {
  const H = await page.evaluate(() => document.documentElement.scrollHeight);
  for (let y = 0; y < H; y += 700) {
    await page.evaluate((v) => scrollTo(0, v), y);
    await page.waitForTimeout(30);
  }
  await page.evaluate(() => window.__explorer.explorer.rendered);
}

test('Story_TheFirstScreenShowsAttentionPickingOutTheContextWordWithASentenceItsNumbersSupport', async () => {
  const { page, context, problems } = await open();
  const first = await page.evaluate(() => {
    const s = document.querySelector('section[data-section="contexts"]');
    const seen = (el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight;
    };
    const onScreen = [
      ...[...s.querySelectorAll('.ae-lines-weight')].filter(seen).map((t) => t.textContent.split(' / ')),
      ...[...s.querySelectorAll('td[data-cos]')].filter(seen).map((td) => [td.textContent]),
    ].flat();
    const looks = s.querySelector('.ae-contrast-looks');
    const cosine = s.querySelector('.ae-contrast-cosine');
    return {
      picture: [...s.querySelectorAll('.ae-context svg')].every(seen),
      legend: [...s.querySelectorAll('.ae-context .ae-lines-legend')].every(seen),
      looks: looks.textContent,
      looksSeen: seen(looks),
      cosine: cosine.textContent,
      cosineSeen: seen(cosine),
      onScreen,
      pictureFirst: s.querySelector('.ae-context svg').getBoundingClientRect().top < looks.getBoundingClientRect().top,
    };
  });
  assert.ok(first.picture && first.legend, 'both pictures and their legends on the first screen');
  assert.ok(first.pictureFirst, 'the picture before the sentence');
  assert.ok(first.looksSeen && first.cosineSeen, 'the sentences on the first screen');
  assert.match(first.looks, /“bank” puts 0\.86 of its attention on “mud” in “river” and 0\.77 on “loan” in “finance”/);
  assert.match(first.cosine, /cosine 1\.000.*cosine 0\.178, further apart than a plain average .* \(0\.504\)/);
  for (const n of numbersIn(first.looks + first.cosine))
    assert.ok(first.onScreen.includes(n), `${n} is on the first screen (${first.onScreen.join(' ')})`);
  // Said plainly: set by hand, and Learn shows a model learning it.
  assert.match(
    await page.textContent('section[data-section="contexts"] .ae-contrast-honest'),
    /set by hand to show the idea.*Learn/,
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('Story_TheNotebooksWeightsAreOneClickAwayAndReproduceSeed003', async () => {
  const { page, context } = await open();
  const cos = () => page.$eval('td[data-cos="attention"][data-word="bank"]', (td) => td.textContent);
  const opening = page.locator('section[data-section="contexts"]');
  await opening.getByRole('button', { name: 'The notebook’s weights' }).click();
  await page.waitForFunction(() => document.querySelector('td[data-cos="attention"]').textContent === '0.565');
  assert.equal(await page.$eval('td[data-cos="average"]', (td) => td.textContent), '0.504');
  const rows = await page.$eval('table[data-matrix="output"][data-context="river"]', (t) =>
    [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
  );
  assert.deepEqual(rows, [
    ['0.992', '0.221', '0.261'],
    ['0.957', '0.314', '0.256'],
    ['0.986', '0.232', '0.263'],
  ]);
  const about = await page.textContent('section[data-section="contexts"] .ae-contrast-honest');
  assert.match(about, /notebook’s own hand-set weights.*spreads its attention almost evenly/);
  assert.match(
    await page.textContent('.ae-contrast-looks'),
    /at most 0\.39 on any one word \(stream 0\.32, bank 0\.39, mud 0\.29\)/,
  );
  // And back.
  await opening.getByRole('button', { name: 'Weights that look for the context word' }).click();
  await page.waitForFunction(() => document.querySelector('td[data-cos="attention"]').textContent === '0.178');
  assert.equal(await cos(), '0.178');
  await context.close();
});

// Every number a section's sentence says, against the numbers its figures show: the cells (to
// the 2 or 3 decimals the sentences use), the lines' weights and the pictures' labels.
async function sentencesAgainstFigures(page) {
  return page.evaluate(() => {
    const out = [];
    const claims = {
      contexts: '.ae-contrast-looks, .ae-contrast-cosine',
      naive: '.ae-claim',
      qkv: '.ae-claim',
      averaging: '.ae-verdict',
      heads: '.ae-claim:not([hidden])',
    };
    for (const [id, sel] of Object.entries(claims)) {
      const s = document.querySelector(`section[data-section="${id}"]`);
      const shown = new Set();
      for (const td of s.querySelectorAll('td')) {
        const v = Number(td.dataset.value);
        if (td.dataset.value !== undefined && td.dataset.value !== '' && Number.isFinite(v)) {
          shown.add(v.toFixed(2).replace('-', '\u2212'));
          shown.add(v.toFixed(3).replace('-', '\u2212'));
        } else shown.add(td.textContent.trim());
      }
      for (const t of s.querySelectorAll('.ae-lines-weight')) t.textContent.split(' / ').forEach((w) => shown.add(w));
      const text = [...s.querySelectorAll(sel)].map((el) => el.textContent).join(' ');
      out.push({ id, text, shown: [...shown] });
    }
    return out;
  });
}

test('Story_EveryComputedSentenceIsTrueOfTheNumbersOnScreenInEveryState', async () => {
  // The first state opened by its link, the others set as the reader's controls set them, in the
  // same page (one page load, not ten; links restoring states exactly: share.test.mjs).
  const { page, context, problems } = await open(link(states.default));
  for (const name of [
    'default',
    'notebook',
    'two heads',
    'heads 2',
    'heads 4',
    'causal',
    'notebook, causal',
    'an added word',
    'an edited weight',
    'projections off',
  ]) {
    const state = states[name];
    if (name !== 'default') {
      await page.evaluate(() => scrollTo(0, 0));
      await page.evaluate((s) => window.__explorer.store.set(s), state);
    }
    await drawAll(page);
    for (const { id, text, shown } of await sentencesAgainstFigures(page)) {
      for (const n of text.match(/[−-]?\d+\.\d+/g) ?? [])
        assert.ok(shown.includes(n), `${name}, ${id}: “${n}” is not among the numbers shown: ${text}`);
    }
    // What each section says of those numbers.
    const said = await page.evaluate(() => {
      const text = (sel) => document.querySelector(sel)?.textContent ?? '';
      return {
        mask: text('section[data-section="pipeline"] .ae-step[data-step="masked"] p'),
        masked: document.querySelectorAll('section[data-section="pipeline"] table[data-matrix="weights"] td.ae-masked')
          .length,
        order: text('section[data-section="order"] .ae-verdict'),
        heads: text('section[data-section="heads"] .ae-claim'),
        perHead: !document.querySelector('section[data-section="heads"] .ae-heads')?.closest('[hidden]'),
        output: text('section[data-section="contexts"] table[data-matrix="output"][data-context="river"] caption'),
        looks: text('.ae-contrast-looks'),
      };
    });
    const H = state.options.heads;
    assert.equal(/Causal mask on/.test(said.mask), state.options.causal, `${name}: the mask's sentence`);
    assert.equal(said.masked > 0, state.options.causal, `${name}: the masked cells`);
    assert.equal(/the same in both orders/.test(said.order), !state.options.causal, `${name}: order`);
    assert.equal(said.perHead, H > 1, `${name}: each head's figure from two heads on`);
    assert.equal(/heads side by side/.test(said.output), H > 1, `${name}: the output is the heads side by side`);
    assert.equal(/^In heads? /.test(said.looks), H > 1, `${name}: where bank looks, head by head`);
    if (H > 1) assert.match(said.heads, /in head 1/, name);
    assert.deepEqual(problems, [], name);
  }
  await context.close();
});

test('Story_OneColourOneMeaningAndALegendWhereverAColourIs', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, context } = await open(link(states['two heads']), { colorScheme });
    await drawAll(page);
    const seen = await page.evaluate(() => {
      const css = (el, p) => getComputedStyle(el)[p];
      // The toy example's heads have colours (the opening, "Where each token looks"); another
      // model's lines (Learn) are ink.
      const ink = [...document.querySelectorAll('section[data-section="learn"] line.ae-line')].map(
        (l) => l.style.stroke,
      );
      const figures = [
        ...document.querySelectorAll(
          'section[data-section="contexts"] figure.ae-lines, section[data-section="lines"] figure.ae-lines',
        ),
      ].map((f) => ({
        where: f.closest('section').dataset.section,
        lines: [...new Set([...f.querySelectorAll('line.ae-line')].map((l) => `${l.dataset.head}|${l.style.stroke}`))],
        legend: [...f.querySelectorAll('.ae-lines-legend-head')].map(
          (k) => `${k.dataset.head}|${k.querySelector('.ae-swatch').style.background}`,
        ),
      }));
      const plane = document.querySelector('section[data-section="plane"]');
      return {
        theme: document.querySelector('.ae-root').dataset.theme,
        fg: css(document.querySelector('.ae-root'), 'color'),
        figures,
        query: css(plane.querySelector('.ae-plane-query .ae-plane-shaft'), 'stroke'),
        key: css(plane.querySelector('.ae-plane-key .ae-plane-shaft'), 'stroke'),
        legendQuery: css(plane.querySelector('.ae-plane-legend .ae-plane-q'), 'borderTopColor'),
        points: [
          ...new Set(
            [...plane.querySelectorAll('.ae-plane-point:not(.ae-plane-ctx-1) circle')].map((c) => css(c, 'fill')),
          ),
        ],
        shared: css(plane.querySelector('.ae-plane-point.ae-plane-shared circle'), 'stroke'),
        headBoxes: [...document.querySelectorAll('section[data-section="heads"] .ae-headbox')].map((b) =>
          css(b, 'borderLeftColor'),
        ),
        keys: document.querySelectorAll('.ae-heads-key').length,
        ink: [...new Set(ink)],
      };
    });
    const theme = seen.theme;
    assert.equal(theme, colorScheme);
    // The lines: each head its colour, and a legend with exactly the heads drawn, in their colours.
    assert.ok(seen.figures.length >= 3, 'lines in the opening and in "Where each token looks"');
    for (const f of seen.figures) {
      const drawn = f.lines.map((l) => l.split('|'));
      for (const [h, stroke] of drawn) assert.equal(stroke, rgb(headColor(Number(h), theme)), `${f.where}: head ${h}`);
      const heads = [...new Set(drawn.map(([h]) => h))].sort();
      assert.deepEqual(
        f.legend.map((k) => k.split('|')[0]).sort(),
        heads,
        `${f.where}: the legend names the heads drawn`,
      );
      for (const k of f.legend) {
        const [h, bg] = k.split('|');
        assert.equal(bg, rgb(headColor(Number(h), theme)), `${f.where}: the legend's colour of head ${h}`);
      }
    }
    // The plane: the shown head's colour for its queries and keys; the sentences are ink.
    assert.equal(seen.query, rgb(headColor(0, theme)));
    assert.equal(seen.key, rgb(headColor(0, theme)));
    assert.equal(seen.legendQuery, rgb(headColor(0, theme)));
    assert.deepEqual(seen.points, [seen.fg], 'a sentence’s points are ink, not a head’s colour');
    assert.notEqual(seen.shared, rgb(headColor(0, theme)));
    assert.notEqual(seen.shared, rgb(headColor(1, theme)));
    assert.deepEqual(seen.headBoxes, [rgb(headColor(0, theme)), rgb(headColor(1, theme))]);
    assert.ok(seen.keys >= 1, 'a key to the heads’ colours where columns are tinted by head');
    for (const stroke of seen.ink) assert.equal(stroke, 'rgb(27, 29, 33)', 'Learn’s lines are ink');
    await context.close();
  }
});

test('Story_TheMapIsWholeAtBothWidthsAndLinksBothWays', async () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    const phone = width < 500 ? { isMobile: true, hasTouch: true } : {};
    const { page, context } = await open('', { viewport: { width, height }, ...phone });
    await page.locator('section[data-section="map"]').scrollIntoViewIfNeeded();
    await page.waitForSelector('.ae-map-box');
    const map = await page.evaluate(() => {
      const nav = document.querySelector('nav.ae-map');
      const r = nav.getBoundingClientRect();
      const boxes = [...nav.querySelectorAll('.ae-map-box')].map((b) => {
        const q = b.getBoundingClientRect();
        return { id: b.dataset.block, left: q.left, right: q.right, top: q.top, bottom: q.bottom };
      });
      // (A visually hidden name is 1 px wide by design.)
      const scrolls = [...nav.querySelectorAll('*:not(.ae-sr)')].filter((el) => el.scrollWidth > el.clientWidth + 1);
      return {
        nav: { left: r.left, right: r.right },
        boxes,
        scrolls: scrolls.length + (nav.scrollWidth > nav.clientWidth + 1 ? 1 : 0),
        pageWidth: document.documentElement.scrollWidth,
      };
    });
    assert.equal(map.boxes.length, 11);
    assert.equal(map.scrolls, 0, `${width}: nothing in the map scrolls or is clipped`);
    assert.equal(map.pageWidth, width, `${width}: the page does not scroll sideways`);
    for (const b of map.boxes)
      assert.ok(
        b.left >= map.nav.left - 0.5 && b.right <= map.nav.right + 0.5 && b.right <= width,
        `${width}: ${b.id} inside`,
      );
    if (width < 500) {
      // Down the page on a phone, in order.
      map.boxes.slice(1).forEach((b, n) => assert.ok(b.top > map.boxes[n].top, `${b.id} below ${map.boxes[n].id}`));
    } else {
      map.boxes
        .slice(1)
        .forEach((b, n) => assert.ok(b.left > map.boxes[n].left, `${b.id} right of ${map.boxes[n].id}`));
      assert.ok(
        Math.max(...map.boxes.map((b) => b.bottom)) - Math.min(...map.boxes.map((b) => b.top)) < height,
        'seen whole',
      );
    }
    await context.close();
  }
  // Each block links to its section; each section's heading links back, and the map says where it is.
  const { page, context } = await open();
  const targets = await page.$$eval('.ae-map-box', (bs) => bs.map((b) => [b.dataset.block, b.dataset.target]));
  for (const [block, target] of targets.filter((_, n) => n % 2 === 0)) {
    await page.locator(`.ae-map-box[data-block="${block}"]`).click();
    assert.equal(
      await page.evaluate(() => document.activeElement.closest('section')?.dataset.section),
      target,
      `${block} → ${target}`,
    );
  }
  const sections = await page.$$eval('section[data-section]', (ss) =>
    ss.filter((s) => s.querySelector('h2')).map((s) => s.dataset.section),
  );
  await drawAll(page);
  const linked = await page.$$eval('section[data-section] h2 .ae-where', (ls) =>
    ls.map((l) => l.closest('section').dataset.section),
  );
  assert.deepEqual(
    linked,
    sections.filter((s) => s !== 'map'),
    'every section but the map links to it',
  );
  for (const [from, lit] of [
    ['order', ['embed']],
    ['pipeline', ['attention']],
    ['next', ['ln1', 'add1', 'ln2', 'mlp', 'add2', 'lnf', 'unembed', 'probs']],
  ]) {
    await page.evaluate((s) => document.querySelector(`section[data-section="${s}"]`).scrollIntoView(), from);
    await page.waitForFunction((s) => document.querySelector('.ae-sec-map').dataset.here === s, from);
    await page.locator(`section[data-section="${from}"] h2 .ae-where`).click();
    assert.equal(await page.evaluate(() => document.activeElement.closest('section')?.dataset.section), 'map');
    const here = await page.$$eval('.ae-map-box[aria-current="location"]', (bs) => bs.map((b) => b.dataset.block));
    assert.deepEqual(here, lit, `from ${from}: you are here`);
    assert.equal(
      await page.$eval('.ae-map-box[aria-current] .ae-map-here', (e) => getComputedStyle(e).display !== 'none'),
      true,
    );
  }
  // In the real model's part, the map writes the real model's shapes once it has opened.
  await page.waitForFunction(() => document.querySelector('.ae-sec-map').dataset.mode === 'real');
  await page.waitForFunction(
    () => /\d+ heads · dₖ/.test(document.querySelector('.ae-map-attention').textContent),
    null,
    {
      timeout: 30000,
    },
  );
  await context.close();
});

test('Story_OneLayerFirstThenTheBlockThenTheModelThenTheCompanions', async () => {
  const { page, context } = await open();
  const order = await page.$$eval('section[data-section]', (ss) => ss.map((s) => s.dataset.section));
  assert.deepEqual(order, [
    'overview',
    'contexts',
    'map',
    'averaging',
    'naive',
    'qkv',
    'plane',
    'pipeline',
    'lines',
    'scaling',
    'loops',
    'heads',
    'order',
    'formula',
    'next',
    'learn',
    'gpt',
    'notebook',
    'edit',
    'engineers',
  ]);
  // "What happens next" names no section the reader has not reached.
  await page.locator('section[data-section="next"]').scrollIntoViewIfNeeded();
  const next = await page.textContent('section[data-section="next"] .ae-prose');
  for (const later of ['A real model', 'Learn', 'Notebooks']) assert.ok(!next.includes(`“${later}”`), later);
  await context.close();
});

test('Story_TheMaskSaysWhyWhereItChangesAndTheTemperatureSaysItIsNotRealAttentions', async () => {
  const { page, context } = await open();
  await drawAll(page);
  const text = (sel) => page.textContent(sel);
  // Averaging looks back, the bank example both ways: said where it changes.
  assert.match(await text('section[data-section="averaging"]'), /only back, as a model that writes text must/);
  assert.match(
    await text('section[data-section="pipeline"] .ae-step[data-step="masked"]'),
    /No mask: .*“mud” comes after “bank”/,
  );
  await page.getByLabel('Causal mask').check();
  await page.waitForFunction(() =>
    /predicts each next token/.test(document.querySelector('.ae-step[data-step="masked"]').textContent),
  );
  assert.match(await text('section[data-section="next"]'), /attends only to the ones before it/);
  // The temperature: one click deeper, with what it is.
  const box = page.locator('section[data-section="pipeline"] details.ae-temperature-details');
  assert.equal(await box.evaluate((d) => d.open), false);
  assert.equal(await page.locator('section[data-section="pipeline"] input.ae-temperature').isVisible(), false);
  await box.locator('summary').click();
  assert.match(
    await box.textContent(),
    /Real attention scales its scores only by 1\/√dₖ.*not the sampling temperature/,
  );
  await context.close();
  // A link that sets a temperature opens it, and step by step says it is on.
  const o = await open(link({ ...defaults, options: { ...defaults.options, temperature: 2 } }));
  await drawAll(o.page);
  assert.equal(await o.page.locator('details.ae-temperature-details').evaluate((d) => d.open), true);
  assert.match(await o.page.textContent('.ae-step[data-step="scaled"]'), /temperature you set, 2\.00/);
  await o.context.close();
});

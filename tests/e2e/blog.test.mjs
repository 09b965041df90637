// A blogger's page (web/examples/blog.html, as dist/examples/blog.html): a 700 px serif column
// with a dark variant, served with the strict CSP the README recommends, holding one figure for
// every documented example and view value, a training figure and the iframe route. In Chromium,
// light and dark and at a phone's width: no console errors, failed requests or CSP violations;
// every figure shows its numbers once on screen (how fast — goal 2 s — is bench/blog.mjs's to
// measure, not a test's to assert); each figure's height within the
// budget below; the figures wear the post's font and colours; the README's inline-JSON example
// is the one on the page, verbatim. In Firefox ESR: the training figure trains.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  serveStatic,
  launchBrowser,
  openPage,
  CSP,
  launchFirefox,
  openFirefoxPage,
  recordProblems,
  ensureDist,
} from './helpers.mjs';
import { SECTIONS } from '../../web/views/sections.js';
import { sectionShown, NEAR_MARGIN } from '../../web/shell/scheduler.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.join(ROOT, 'dist');
const SHOTS = path.join(ROOT, 'tests', 'e2e', 'screenshots');

// Height budgets at a 700 px column (px): the element's compact defaults under 1,200, a
// figure-only weights figure a few hundred; the rest what their figures need, with room.
const BUDGET = {
  // The bare bank contrast: its claim, picture and numbers, the page's paragraphs one click deeper
  // (issue 33): 790 px (was 1,029), both sentences 930 px.
  'fig-river': 900,
  'fig-both': 1000,
  'fig-finance': 1500,
  'fig-weights': 400,
  'fig-steps': 3300,
  'fig-lines': 800,
  'fig-plane': 1900,
  'fig-averaging': 1400,
  'fig-averaging-figure': 1000,
  'fig-tokens': 1200,
  'fig-heads': 1100,
  'fig-loops': 950,
  'fig-scaling': 800,
  'fig-order': 650,
  'fig-formula': 750,
  'fig-learn': 1500,
  'fig-learn-copy': 1500,
  'fig-learn-sort': 520,
  'fig-learn-repeat': 520,
  'fig-learn-bank': 520,
  'fig-learn-text': 520,
  'fig-model': 1400,
  'fig-notebook': 600,
  // The whole real-model section: 3,298 px when measured, with the opening's findings about its
  // heads (issue 32; the tools themselves one click deeper) — a post that wants less names parts.
  'fig-gpt': 3400,
  // Two of the real model's parts (view="gpt-heads, gpt-head"): 1,116 px when measured, where
  // the whole section is 3,298 px.
  'fig-gpt-parts': 1300,
  'fig-next': 1400,
  'fig-pets': 1100,
  'fig-iframe': 1100,
  'fig-all': 700,
};
// Every value the README documents for example and view.
const EXAMPLES = [
  'river',
  'finance',
  'both',
  'averaging',
  'learn:copy',
  'learn:reverse',
  'learn:sort',
  'learn:repeat',
  'learn:bank',
  'learn:text',
];
const VIEWS = [
  'all',
  'contexts',
  'averaging',
  'x',
  'naive',
  'qkv',
  'scores',
  'scaled',
  'masked',
  'weights',
  'output',
  'lines',
  'plane',
  'heads',
  'loops',
  'scaling',
  'order',
  'formula',
  'learn',
  'model',
  'notebook',
  'gpt',
  // Two of the real model's parts (the others: tests/e2e/gpt-parts.test.mjs).
  'gpt-heads',
  'gpt-head',
  'next',
];
// What counts as "its numbers" in a figure: a number cell, a cosine, the learning status, a
// plane arrow, a typeset number.
// On a phone (390 px), the same compact figure: 1,168 px (was 1,665; the issue measured 1,643),
// both sentences 1,565 px (was 2,002).
const PHONE_BUDGET = { 'fig-river': 1250, 'fig-both': 1650 };
const NUMBERS =
  'td.ae-cell[data-value], td[data-cos][data-value], .ae-learn-status[data-step], .ae-plane-arrow, math mn, .ae-scaling-table td';

// What the server sent, in order: {method, path, status, bytes} (tests that count fetches reset it).
let sent = [];
let server, browser;
// The page each scheme's walk leaves, every figure drawn, for that scheme's themed test (run
// next), which reads its figures there rather than loading and drawing them again (it opens its
// own page when run alone).
const walked = new Map(); // scheme → {page, context, problems}
before(async () => {
  ensureDist();
  assert.ok(fs.existsSync(path.join(DIST, 'examples/blog.html')), 'dist/ is built (node scripts/build.mjs)');
  fs.mkdirSync(SHOTS, { recursive: true });
  server = await serveStatic(DIST, { csp: CSP, onResponse: (r) => sent.push(r) });
  browser = await launchBrowser();
});
after(async () => {
  for (const { context } of walked.values()) await context.close();
  await browser?.close();
  await server?.close();
});

/** Scrolls to each figure in turn; returns [{id, ms, height}], and for a figure whose numbers
 * never showed (ms Infinity) what it shows instead. */
async function walk(page) {
  // A figure's name: its id, or for the README's example (which has none) fig-<its example>.
  const ids = await page.evaluate(() =>
    [...document.querySelectorAll('main attention-explorer, main iframe')].map(
      (el) => el.id || `fig-${el.getAttribute('example')}`,
    ),
  );
  const out = [];
  for (const [n, id] of ids.entries()) {
    const shown = await page.evaluate(
      async ([index, selector]) => {
        const el = [...document.querySelectorAll('main attention-explorer, main iframe')][index];
        const t0 = performance.now();
        el.scrollIntoView({ block: 'start' });
        const shows = () => {
          const root = el.localName === 'iframe' ? el.contentDocument : el.shadowRoot;
          return [...(root?.querySelectorAll(selector) ?? [])].some((x) => x.getClientRects().length > 0);
        };
        while (!shows()) {
          if (performance.now() - t0 > 20000) {
            // What it shows instead: its notices, and its sections that are drawn.
            const root = el.localName === 'iframe' ? el.contentDocument : el.shadowRoot;
            const notices = [...(root?.querySelectorAll('.ae-notice:not([hidden])') ?? [])].map((x) =>
              x.textContent.trim(),
            );
            const sections = [...(root?.querySelectorAll('section') ?? [])]
              .filter((x) => !x.hidden)
              .map((x) => `${x.className} (${x.childElementCount} children)`);
            return { ms: Infinity, instead: `notices ${JSON.stringify(notices)}; sections ${sections.join(', ')}` };
          }
          await new Promise((r) => setTimeout(r, 16));
        }
        return { ms: performance.now() - t0 };
      },
      [n, NUMBERS],
    );
    out.push({ id, ...shown });
  }
  // Heights once everything has drawn (the training figure is measured as it trains).
  for (const [n, f] of out.entries())
    f.height = await page.evaluate(
      (index) =>
        Math.round(
          [...document.querySelectorAll('main attention-explorer, main iframe')][index].getBoundingClientRect().height,
        ),
      n,
    );
  return out;
}

/** The figures whose numbers never showed, each with what it showed instead and the page's problems. */
const neverDrawn = (figures, problems) =>
  figures
    .filter((f) => !Number.isFinite(f.ms))
    .map(
      (f) =>
        `${f.id}: its numbers never showed; it shows ${f.instead}; the page's problems: ${JSON.stringify(problems)}`,
    );

for (const scheme of ['light', 'dark']) {
  test(`Blog_${scheme}_EveryFigureShowsItsNumbersWithinTwoSecondsAndWithinItsHeightBudget`, async () => {
    const { page, context, problems } = await openPage(browser, null, {
      viewport: { width: 1280, height: 900 },
      colorScheme: scheme,
    });
    const failed = recordProblems(page, []);
    const response = await page.goto(server.url + 'examples/blog.html');
    assert.equal(response.headers()['content-security-policy'], CSP);
    // The first figure's numbers, counted from the start of navigation.
    const first = await page.evaluate(async (selector) => {
      const el = document.querySelector('main attention-explorer');
      while (![...(el.shadowRoot?.querySelectorAll(selector) ?? [])].some((x) => x.getClientRects().length > 0))
        await new Promise((r) => setTimeout(r, 16));
      return performance.now();
    }, NUMBERS);
    // How fast is measured (bench/blog.mjs, goal 2 s), not asserted: a loaded machine moves it.
    const figures = await walk(page);
    console.log(
      `# [ measured ] blog (${scheme}): first figure ${Math.round(first)} ms after navigation; ` +
        figures.map((f) => `${f.id} ${f.height} px ${Math.round(f.ms)} ms`).join('; '),
    );
    assert.deepEqual(neverDrawn(figures, problems), [], 'every figure shows its numbers');
    for (const f of figures) {
      assert.ok(BUDGET[f.id], `${f.id} has a height budget`);
      assert.ok(f.height > 100 && f.height <= BUDGET[f.id], `${f.id}: ${f.height} px (budget ${BUDGET[f.id]})`);
    }
    // Every documented example and view value is on the page, through the attribute.
    const used = await page.evaluate(() =>
      [...document.querySelectorAll('attention-explorer')].map((el) => ({
        example: el.getAttribute('example'),
        // A sentence (or a model-url) with no view shows the real model (README).
        view: el.getAttribute('view') ?? (el.hasAttribute('sentence') || el.hasAttribute('model-url') ? 'gpt' : null),
      })),
    );
    for (const ex of EXAMPLES)
      assert.ok(
        used.some((u) => u.example === ex),
        `example="${ex}" is on the page`,
      );
    for (const v of VIEWS)
      assert.ok(
        used.some((u) => (u.view ?? '').split(/[\s,]+/).includes(v)),
        `view="${v}" is on the page`,
      );

    // The training figure trains to its steps and reaches its task's goal (in the light post: the
    // run is the same in either theme, and the dark walk above saw it start).
    if (scheme === 'light') {
      await page.locator('#fig-learn').scrollIntoViewIfNeeded();
      await page.waitForFunction(
        () =>
          document.querySelector('#fig-learn').shadowRoot.querySelector('.ae-learn-status')?.dataset.reportStep ===
          '600',
        null,
        { timeout: 60000 },
      );
      const learned = await page.evaluate(() => {
        const el = document.querySelector('#fig-learn');
        const status = el.shadowRoot.querySelector('.ae-learn-status').dataset;
        return {
          accuracy: Number(status.accuracy),
          task: el.state.learn.task,
          height: el.getBoundingClientRect().height,
        };
      });
      assert.equal(learned.task, 'reverse');
      assert.ok(learned.accuracy >= 0.98, `reverse reached ${learned.accuracy}`);
      assert.ok(learned.height <= BUDGET['fig-learn'], `the trained figure is ${learned.height} px`);
    }

    // The post's font and colours reach the figures (custom properties; the font by inheritance).
    const look = await page.evaluate(() => {
      const root = document.querySelector('#fig-river').shadowRoot.querySelector('.ae-root');
      const css = getComputedStyle(root);
      const post = getComputedStyle(document.documentElement);
      const rgb = (c) => {
        const probe = document.createElement('i');
        probe.style.color = c;
        document.body.append(probe);
        const v = getComputedStyle(probe).color;
        probe.remove();
        return v;
      };
      return {
        font: css.fontFamily,
        background: css.backgroundColor,
        figureBg: rgb(post.getPropertyValue('--figure-bg').trim()),
        color: css.color,
        postFg: rgb(post.getPropertyValue('--post-fg').trim()),
        theme: root.dataset.theme,
        caption: getComputedStyle(document.querySelector('#fig-weights').shadowRoot.querySelector('.ae-figure-caption'))
          .fontStyle,
      };
    });
    assert.match(look.font, /Georgia|DejaVu Serif/, 'the post’s serif font');
    assert.equal(look.background, look.figureBg, 'the figure wears --ae-bg');
    assert.equal(look.color, look.postFg, 'and --ae-fg');
    assert.equal(look.theme, scheme, 'theme="auto" follows the post’s colour scheme');
    assert.equal(look.caption, 'italic', '::part(caption) reaches the caption');

    // The figure-only weights: the heatmap and its caption, no heading, prose or picker.
    const figureOnly = await page.evaluate(() => {
      const root = document.querySelector('#fig-weights').shadowRoot;
      const shown = (sel) => [...root.querySelectorAll(sel)].filter((n) => n.getClientRects().length > 0).length;
      return {
        headings: shown('h2, h3'),
        prose: shown('.ae-prose'),
        tables: shown('table[data-matrix="weights"]'),
        caption: root.querySelector('.ae-figure-caption').textContent,
      };
    });
    assert.deepEqual(figureOnly, {
      headings: 0,
      prose: 0,
      tables: 1,
      caption: 'Where each word of “stream bank mud” looks: each row sums to 1.',
    });

    // The iframe route: embed-host.js sized the frame to its content, which does not scroll.
    const frame = await page.evaluate(() => {
      const el = document.querySelector('#fig-iframe');
      const doc = el.contentDocument;
      return {
        sized: doc.documentElement.classList.contains('ae-frame-sized'),
        height: Math.round(el.getBoundingClientRect().height),
        content: Math.ceil(doc.documentElement.getBoundingClientRect().height),
        focus: doc.defaultView.__embed && doc.querySelector('table[data-matrix="weights"]')?.dataset.context,
      };
    });
    assert.equal(frame.sized, true, 'the host answered the frame');
    assert.ok(Math.abs(frame.height - frame.content) <= 1, `frame ${frame.height} px, content ${frame.content} px`);
    assert.equal(frame.focus, 'finance', '"example":"finance" in the hash shows finance');

    await page.screenshot({ path: path.join(SHOTS, `blog-${scheme}.png`), fullPage: true });
    const violations = await page.evaluate(() => window.__cspViolations);
    assert.deepEqual(violations, [], 'no CSP violations');
    assert.deepEqual(problems, [], 'no console errors or failed requests');
    assert.deepEqual(failed, [], 'no HTTP errors');
    // Every figure drawn: the page goes on to this scheme's themed test, next.
    walked.set(scheme, { page, context, problems });
  });
  test(`Blog_${scheme}_AThemedPostsFiguresWearItsColoursOnEverySurface`, () => themedFigures(scheme));
}

// Before the reader scrolls, the post fetches its own files and the element's, nothing a figure
// needs beside it (engine.js, a section's file, a worker, a model, the iframe's page): 323.4 KB
// in 6 files when measured (the element's file is 318 KB of it); budget 360 KB. Before issue 33
// it was 1.9 MB in 22 files.
const FIRST_VIEW_BUDGET = 360 * 1024;
const POST_FILES = ['examples/blog.html', 'examples/blog.css', 'examples/csp-watch.js', 'embed-host.js', 'favicon.svg'];
const SCREENS = { column700: { width: 1280, height: 900 }, phone390: { width: 390, height: 844 } };

/** Waits until the server has sent nothing for `ms` (at most `max` ms in all). */
async function quiet(ms = 600, max = 20000) {
  const t0 = Date.now();
  let last = sent.length;
  let since = Date.now();
  while (Date.now() - since < ms && Date.now() - t0 < max) {
    await new Promise((r) => setTimeout(r, 50));
    if (sent.length !== last) [last, since] = [sent.length, Date.now()];
  }
}
const fetched = (log) => log.filter((r) => r.method === 'GET').map((r) => r.path.replace(/^\//, ''));

for (const [screen, viewport] of Object.entries(SCREENS))
  for (const scheme of ['light', 'dark'])
    test(`Blog_${screen}_${scheme}_BeforeAnyScrollItFetchesThePostAndTheElementUnderItsBudget`, async () => {
      const { page, context, problems } = await openPage(browser, null, {
        viewport,
        colorScheme: scheme,
        ...(screen === 'phone390' ? { isMobile: true, hasTouch: true } : {}),
      });
      sent = [];
      await page.goto(server.url + 'examples/blog.html');
      await page.waitForFunction(
        (selector) =>
          [...(document.querySelector('main attention-explorer').shadowRoot?.querySelectorAll(selector) ?? [])].some(
            (x) => x.getClientRects().length > 0,
          ),
        NUMBERS,
      );
      await quiet(1000);
      const files = fetched(sent);
      const bytes = sent.reduce((n, r) => n + r.bytes, 0);
      console.log(
        `# [ measured ] blog ${screen} ${scheme}: ${files.length} files, ${(bytes / 1024).toFixed(1)} KB before any scroll: ${files.join(', ')}`,
      );
      assert.deepEqual([...files].sort(), [...POST_FILES, 'attention-explorer.js'].sort(), 'the post and the element');
      assert.ok(bytes <= FIRST_VIEW_BUDGET, `${bytes} bytes, budget ${FIRST_VIEW_BUDGET}`);
      assert.equal(await page.evaluate(() => window.scrollY), 0, 'nothing scrolled');
      assert.deepEqual(problems, []);
      await context.close();
    });

test('Blog_EachFigureFetchesItsFilesOnlyAsItNearsTheScreen', async () => {
  // The files each figure needs beside the element's (the build's table), from what it shows.
  const manifest = JSON.parse(fs.readFileSync(path.join(DIST, 'attention-explorer.files.json'), 'utf8'));
  const needs = ({ view, controls }) => [
    ...new Set([
      ...SECTIONS.filter((e) => (!e.controls || e.controls === controls) && sectionShown(e, view)).flatMap(
        (e) => manifest.sections[e.id]?.files ?? [],
      ),
      ...(manifest.controls[controls] ?? []),
    ]),
  ];
  const IFRAME_FILES = ['embed.html', 'embed.js', 'styles/explorer.css'];
  const margin = parseInt(NEAR_MARGIN, 10) + 150; // the sections' margin, and room for layout moving
  const { page, context, problems } = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  sent = [];
  await page.goto(server.url + 'examples/blog.html');
  await quiet();
  const figures = await page.evaluate(() =>
    Promise.all(
      [...document.querySelectorAll('main attention-explorer')].map(async (el) => {
        await el.ready;
        return { id: el.id || `fig-${el.getAttribute('example')}`, view: el.state.view, controls: el.controls };
      }),
    ),
  );
  for (const f of figures) f.files = needs(f);
  figures.push({ id: 'fig-iframe', files: IFRAME_FILES, iframe: true });
  const rects = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('main attention-explorer'), document.querySelector('#fig-iframe')].map((el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: innerHeight };
      }),
    );
  // The browser decides when a lazy iframe loads (Chromium: some thousand px ahead).
  const isNear = (r, f) => r.bottom > -(f.iframe ? 4000 : margin) && r.top < r.height + (f.iframe ? 4000 : margin);
  const early = [];
  const check = (files, when, ...moments) => {
    for (const file of files) {
      const wanting = figures.filter((f) => f.files.includes(file));
      if (!wanting.length) continue; // not a figure's file
      const near = wanting.some((f) => moments.some((r) => isNear(r[figures.indexOf(f)], f)));
      if (!near) early.push(`${file} ${when}: needed by ${wanting.map((f) => f.id).join(', ')}, none near`);
    }
  };
  check(fetched(sent), 'before any scroll', await rects());
  for (let step = 1; step < 200; step++) {
    const from = sent.length;
    const before = await rects();
    const atEnd = await page.evaluate(async (y) => {
      scrollBy(0, y);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
    }, 800); // less than the viewport's 900 px: every part of the post passes on screen
    const during = await rects();
    await quiet(300);
    check(fetched(sent.slice(from)), `at scroll step ${step}`, before, during, await rects());
    if (atEnd) break;
  }
  assert.deepEqual(early, [], 'every figure file was fetched as a figure needing it neared the screen');
  // And they were fetched: the walk reached every kind of figure. The real-model figures (a real
  // model, what happens next) share one worker and one copy of the model.
  const count = (file) => fetched(sent).filter((f) => f === file).length;
  for (const file of [
    'engine.js',
    'attention-explorer.plane.js',
    'attention-explorer.learn.js',
    'attention-explorer.notebook.js',
    'attention-explorer.gpt.js',
    'attention-explorer.next.js',
    'attention-explorer.overview.js',
    'attention-explorer.export-menu.js',
    'embed.js',
  ])
    assert.equal(count(file), 1, `${file} fetched once`);
  assert.equal(count('attention-explorer.model-worker.js'), 1, 'one model worker for the page');
  assert.equal(count('attention-explorer.brown-wordnet.safetensors'), 1, 'one copy of the model');
  assert.deepEqual(problems, []);
  await context.close();
});

// A themed post (blog.css sets --ae-bg, --ae-fg and --ae-accent from the post's colours): every
// surface a figure draws follows them (web/styles/explorer.css derives the rest with color-mix()),
// and none keeps the unthemed palette — no white card or white controls bar on a cream page.
const UNTHEMED = {
  light: ['#ffffff', '#fafafa', '#eef0f3', '#d3d7dd'],
  dark: ['#131519', '#1c1f25', '#262a31', '#3b4049'],
};
// explorer.css's derivations: [weight of the first colour, first, second] per surface and theme.
const DERIVED = {
  light: {
    card: [0.6, 'bg', 'white'],
    cell: [0.9, 'bg', 'fg'],
    border: [0.76, 'bg', 'fg'],
    muted: [0.76, 'fg', 'bg'],
    highlight: [0.18, 'accent', 'bg'],
  },
  dark: {
    card: [0.93, 'bg', 'white'],
    cell: [0.86, 'bg', 'fg'],
    border: [0.72, 'bg', 'fg'],
    muted: [0.78, 'fg', 'bg'],
    highlight: [0.24, 'accent', 'bg'],
  },
};
const THEMED_FIGURES = ['fig-river', 'fig-finance', 'fig-learn-copy', 'fig-notebook', 'fig-all'];

// Blog_<scheme>_AThemedPostsFiguresWearItsColoursOnEverySurface, run after that scheme's walk.
async function themedFigures(scheme) {
  // The page this scheme's walk left (the same post, viewport and theme), or a new one.
  const walk = walked.get(scheme);
  walked.delete(scheme);
  const { page, context, problems } =
    walk ??
    (await openPage(browser, null, {
      viewport: { width: 1280, height: 900 },
      colorScheme: scheme,
    }));
  if (!walk) await page.goto(server.url + 'examples/blog.html');
  for (const id of THEMED_FIGURES) {
    await page.locator('#' + id).scrollIntoViewIfNeeded();
    await page.waitForFunction(
      ([id, selector]) =>
        [...document.getElementById(id).shadowRoot.querySelectorAll(selector)].some((x) => x.getClientRects().length),
      [id, `${NUMBERS}, .ae-btn`],
      { timeout: 30000 },
    );
  }
  const seen = await page.evaluate((ids) => {
    const rgb = (c) => {
      const probe = document.createElement('i');
      probe.style.color = c;
      document.body.append(probe);
      const v = getComputedStyle(probe).color;
      probe.remove();
      return v;
    };
    const post = getComputedStyle(document.documentElement);
    const colours = {
      bg: rgb(post.getPropertyValue('--figure-bg')),
      fg: rgb(post.getPropertyValue('--post-fg')),
      accent: rgb(post.getPropertyValue('--post-accent')),
      white: 'rgb(255, 255, 255)',
    };
    const out = { colours, surfaces: {}, backgrounds: [] };
    for (const id of ids) {
      const root = document.getElementById(id).shadowRoot;
      // Every surface's background inside the figure, with where. Not the data's colours (a
      // heatmap cell painted by its colour map, the same in every post) nor the browser's own
      // check boxes, radio buttons and sliders (they take the accent: accent-color).
      for (const el of root.querySelectorAll('*')) {
        if (!el.getClientRects().length || el.style.backgroundColor) continue;
        if (el.matches('input[type="checkbox"], input[type="radio"], input[type="range"]')) continue;
        const bg = getComputedStyle(el).backgroundColor;
        if (bg !== 'rgba(0, 0, 0, 0)') out.backgrounds.push([`${id} ${el.localName}.${el.className}`, bg]);
      }
    }
    const root = document.getElementById('fig-river').shadowRoot;
    const style = (sel, prop) => getComputedStyle(root.querySelector(sel))[prop];
    out.surfaces = {
      card: style('.ae-card', 'backgroundColor'),
      bar: style('.ae-bar-minimal', 'backgroundColor'),
      cell: getComputedStyle(document.getElementById('fig-all').shadowRoot.querySelector('.ae-btn')).backgroundColor,
      border: style('.ae-card', 'borderTopColor'),
      muted: style('.ae-hm-table th', 'color'),
      highlight: style('tr.ae-hl > th', 'backgroundColor'),
      select: style('select', 'backgroundColor'),
    };
    // The focus ring and a link: the accent.
    // A cell in sight in a themed figure (the bank contrast keeps its matrices one click deeper, in a
    // closed disclosure).
    const cell = ids
      .flatMap((id) => [...document.getElementById(id).shadowRoot.querySelectorAll('td.ae-cell')])
      .find((td) => td.getClientRects().length && !td.closest('details:not([open])'));
    cell.focus();
    out.surfaces.focus = getComputedStyle(cell).outlineColor;
    const link = root.querySelector('.ae-root').appendChild(document.createElement('a'));
    link.href = '#x';
    link.textContent = 'a link';
    out.surfaces.link = getComputedStyle(link).color;
    link.remove();
    return out;
  }, THEMED_FIGURES);
  // Colours as [r, g, b] in 0..255, whether written rgb() or color(srgb …).
  const parse = (c) => {
    const rgbMatch = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/.exec(c);
    if (rgbMatch) return rgbMatch.slice(1, 4).map(Number);
    const srgb = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)/.exec(c);
    assert.ok(srgb, `a colour: ${c}`);
    return srgb.slice(1, 4).map((v) => Number(v) * 255);
  };
  const hex = (c) =>
    '#' +
    parse(c)
      .map((v) => Math.round(v).toString(16).padStart(2, '0'))
      .join('');
  const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 2);
  const post = Object.fromEntries(Object.entries(seen.colours).map(([k, v]) => [k, parse(v)]));
  const mix = ([w, a, b]) => post[a].map((v, i) => w * v + (1 - w) * post[b][i]);
  const derived = DERIVED[scheme];
  for (const surface of ['card', 'cell', 'border', 'muted', 'highlight'])
    assert.ok(
      near(parse(seen.surfaces[surface]), mix(derived[surface])),
      `${scheme} ${surface}: ${hex(seen.surfaces[surface])}, derived from the post: ${hex(`rgb(${mix(derived[surface]).join(',')})`)}`,
    );
  assert.ok(near(parse(seen.surfaces.bar), mix(derived.card)), `the controls bar is a card: ${seen.surfaces.bar}`);
  assert.ok(near(parse(seen.surfaces.select), mix(derived.card)), `fields too: ${seen.surfaces.select}`);
  assert.ok(near(parse(seen.surfaces.focus), post.accent), `the focus ring is the accent: ${seen.surfaces.focus}`);
  assert.ok(near(parse(seen.surfaces.link), post.accent), `a link is the accent: ${seen.surfaces.link}`);
  const unthemed = seen.backgrounds.filter(([, bg]) => UNTHEMED[scheme].includes(hex(bg)));
  assert.ok(seen.backgrounds.length > 100, `${seen.backgrounds.length} backgrounds looked at`);
  assert.deepEqual(unthemed, [], 'no surface keeps the unthemed palette');
  for (const id of ['fig-river', 'fig-learn-copy', 'fig-all']) {
    await page.locator('#' + id).scrollIntoViewIfNeeded();
    await page.locator('#' + id).screenshot({ path: path.join(SHOTS, `blog-themed-${scheme}-${id}.png`) });
  }
  assert.deepEqual(problems, []);
  await context.close();
}

// A figure speaks of itself (issue 33): text written for the whole page that points at another
// section ("two sections down", "Everything above", "see “Why ÷√dₖ”") appears only where that
// section is shown too; the Learn figure's reader is not told about the post's headers; no link
// goes to a registry page of a package not published.
const REFERS = [
  [/Everything above, in one line/, 'pipeline'],
  [/“What happens next”, below/, 'next'],
  [/see “Why ÷√dₖ”/, 'scaling'],
  [/Learn section below|in Learn \(“Bank, learned”\)|Go to Learn/, 'learn'],
  [/first section/, 'contexts'],
  [/of “Queries, keys and values”/, 'qkv'],
  [/in “A real model” below/, 'gpt'],
];
const NEVER_IN_A_FIGURE = [/sections? (down|up|above|below)\b/i, /not cross-origin isolated/, /this section/i];

test('Blog_AFigureSpeaksOfWhatItShowsAndLinksOnlyToWhatExists', async () => {
  const { page, context, problems } = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  await page.goto(server.url + 'examples/blog.html');
  const figures = await walk(page);
  assert.deepEqual(neverDrawn(figures, problems), []);
  await page.locator('#fig-learn').scrollIntoViewIfNeeded();
  await page.waitForFunction(() =>
    document.querySelector('#fig-learn').shadowRoot.querySelector('.ae-learn-status')?.textContent.includes('thread'),
  );
  const texts = await page.evaluate(() =>
    [...document.querySelectorAll('main attention-explorer')].map((el) => {
      const root = el.shadowRoot;
      return {
        id: el.id || el.getAttribute('example'),
        text: root.querySelector('.ae-root').innerText,
        shown: [...root.querySelectorAll('section[data-section]')]
          .filter((s) => !s.hidden)
          .map((s) => s.dataset.section),
        links: [...root.querySelectorAll('a[href]')].map((a) => a.href),
      };
    }),
  );
  const wrong = [];
  for (const f of texts) {
    for (const [phrase, section] of REFERS)
      if (phrase.test(f.text) && !f.shown.includes(section))
        wrong.push(`${f.id}: "${phrase.exec(f.text)[0]}" points at ${section}, which it does not show`);
    for (const phrase of NEVER_IN_A_FIGURE) if (phrase.test(f.text)) wrong.push(`${f.id}: "${phrase.exec(f.text)[0]}"`);
    for (const href of f.links) if (!href.startsWith(server.url)) wrong.push(`${f.id}: a link to ${href}`);
  }
  assert.deepEqual(wrong, []);
  // Where both are shown, the pointer is there (the figure of every section: its top sections).
  const all = texts.find((f) => f.id === 'fig-all');
  assert.match(all.text, /Go to Learn/);
  assert.match(texts.find((f) => f.id === 'fig-learn').text, /training on 1 thread/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Blog_ReadmeInlineJsonExampleIsThePagesVerbatimAndShowsItsOwnSentence', async () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const snippet = /<!-- inline-json-example -->\n```html\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(snippet, 'the README has the inline-JSON example (marked <!-- inline-json-example -->)');
  const squash = (s) => s.replace(/\s+/g, ' ').trim();
  const blog = fs.readFileSync(path.join(ROOT, 'web/examples/blog.html'), 'utf8');
  assert.ok(squash(blog).includes(squash(snippet)), 'blog.html holds the README example verbatim');
  const { page, context, problems } = await openPage(browser, null, { viewport: { width: 1280, height: 900 } });
  await page.goto(server.url + 'examples/blog.html');
  const el = page.locator('attention-explorer[example="pets"]');
  await el.scrollIntoViewIfNeeded();
  await page.waitForFunction(() =>
    document
      .querySelector('attention-explorer[example="pets"]')
      .shadowRoot?.querySelector('table[data-matrix="weights"] td.ae-cell'),
  );
  const shown = await page.evaluate(() => {
    const el = document.querySelector('attention-explorer[example="pets"]');
    const root = el.shadowRoot;
    return {
      notice: root.querySelector('.ae-notice').hidden,
      rows: [...root.querySelectorAll('table[data-matrix="weights"] tbody th')].map((th) => th.textContent),
      highlighted: root.querySelectorAll('table[data-matrix="weights"] tr.ae-hl').length,
      w: el.state.weights.w,
      focus: el.state.focus,
      causal: el.state.options.causal,
    };
  });
  assert.deepEqual(shown, {
    notice: true,
    rows: ['the', 'cat', 'sat'],
    highlighted: 1, // "the" is in both sentences
    w: [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ],
    focus: 'pets',
    causal: true,
  });
  assert.deepEqual(problems, []);
  await context.close();
});

test('Blog_PhoneWidthNothingSticksOutAndEveryFigureDraws', async () => {
  const { page, context, problems } = await openPage(browser, null, {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  await page.goto(server.url + 'examples/blog.html');
  const figures = await walk(page);
  console.log(`# [ measured ] blog (390 px): ${figures.map((f) => `${f.id} ${Math.round(f.ms)} ms`).join('; ')}`);
  assert.deepEqual(neverDrawn(figures, problems), [], 'every figure shows its numbers at 390 px');
  for (const [id, budget] of Object.entries(PHONE_BUDGET)) {
    const f = figures.find((x) => x.id === id);
    assert.ok(f.height <= budget, `${id}: ${f.height} px at 390 px (budget ${budget})`);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.equal(overflow, 0, 'the post does not scroll sideways');
  // Inside the figures only tables and the formula's rows may scroll sideways, in their own boxes.
  const sticking = await page.evaluate(() =>
    [...document.querySelectorAll('attention-explorer')].flatMap((el) => {
      const box = el.getBoundingClientRect();
      return [...el.shadowRoot.querySelectorAll('*')]
        .filter((n) => {
          const r = n.getBoundingClientRect();
          return (
            r.width > 0 &&
            r.right > box.right + 1 &&
            !n.closest('.ae-hm-scroll, .ae-math, .ae-ov-strip, .ae-learn-grid')
          );
        })
        .slice(0, 3)
        .map((n) => `${el.id}: ${n.localName}.${n.getAttribute('class') ?? ''}`);
    }),
  );
  assert.deepEqual(sticking, []);
  await page.screenshot({ path: path.join(SHOTS, 'blog-phone.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('Blog_Firefox_TheTrainingFigureTrainsThroughItsAttributeFromDist', async () => {
  const firefox = await launchFirefox();
  try {
    const { page, context, problems } = await openFirefoxPage(firefox, null);
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(server.url + 'examples/blog.html');
    // The figure trains once it is on screen; figures above it may still grow after a first
    // scroll and push it off again, so the wait scrolls it back until training has started.
    await page.waitForFunction(
      () => {
        const figure = document.querySelector('#fig-learn');
        const status = figure.shadowRoot?.querySelector('.ae-learn-status');
        if (!status?.dataset.reportStep) figure.scrollIntoView();
        return status?.dataset.reportStep === '600';
      },
      { timeout: 90000 },
    );
    const accuracy = await page.evaluate(() =>
      Number(document.querySelector('#fig-learn').shadowRoot.querySelector('.ae-learn-status').dataset.accuracy),
    );
    assert.ok(accuracy >= 0.98, `reverse reached ${accuracy} in Firefox`);
    const violations = await page.evaluate(() => window.__cspViolations);
    assert.deepEqual(violations, []);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await firefox.close();
  }
});

// Shared browser-test helpers: a static file server (for dist/, the built page, or web/), a headless Debian Chromium
// (playwright-core) and a headless Firefox ESR (puppeteer-core, WebDriver BiDi).
// Used by every tests/e2e/*.test.mjs.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/**
 * The explorer page as `npm start` serves it and as it ships: dist/ (index.html, embed.html, the
 * element and one script per page; scripts/build-dist.mjs). The browser tests open it rather than
 * web/'s ~180 modules, which `npm run dev` serves: a cold load of the built page took 1.8 to 2.4
 * core-seconds here, web/'s 3.0 to 4.0 (the same page; most browser tests open it many times).
 */
export const PAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

/**
 * Builds dist/ from the current sources (scripts/build-dist.mjs: esbuild, about a second) for a
 * test file run alone, so it tests what web/ says now. Not under `npm test` (ATTN_BUILT), which
 * built it before any suite ran: rebuilding there would rewrite files under the feet of the
 * browser tests running beside.
 */
export function ensureDist() {
  if (process.env.ATTN_BUILT) return;
  const root = path.dirname(PAGE_DIR);
  execFileSync(process.execPath, [path.join(root, 'scripts/build-dist.mjs')], { cwd: root, stdio: 'pipe' });
}

/**
 * A failed request as a problem, unless it was cancelled: a download the page stopped on
 * purpose (a worker restarted for another thread count, a superseded model) and a streamed body
 * that Chromium reports as aborted after its reader saw the end both read as net::ERR_ABORTED
 * (Firefox: NS_BINDING_ABORTED). Blocked, refused or reset requests are problems; so are HTTP
 * errors, which arrive as responses.
 */
function recordFailedRequest(problems, req) {
  const error = req.failure()?.errorText ?? '?';
  if (error === 'net::ERR_ABORTED' || error === 'NS_BINDING_ABORTED') return;
  problems.push(`requestfailed: ${req.url()} (${error})`);
}

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

// The static server (with the page's Content-Security-Policy on every HTML response, so the
// tests prove it holds) is the one `npm start` uses.
export { serveStatic, mimeType, CSP } from '../../scripts/serve.mjs';

/** Launches Debian's Chromium headless through playwright-core. */
export function launchBrowser(options = {}) {
  announceBrowser('chromium');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options });
}

/**
 * Names the browser a test file drives, on its stdout: scripts/e2e-reporter.mjs counts each
 * file's tests under the browsers it named, for the e2e line of `npm test`'s summary.
 */
export function announceBrowser(name) {
  console.log(`# e2e-browser: ${name}`);
}

/**
 * Opens a page that records console errors, page errors and failed requests into `problems`.
 * @returns {Promise<{page, problems: string[]}>}
 */
export async function openPage(browser, url, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push('console: ' + msg.text());
  });
  page.on('pageerror', (err) => problems.push('pageerror: ' + err.message));
  page.on('requestfailed', (req) => recordFailedRequest(problems, req));
  if (url) await page.goto(url);
  return { page, context, problems };
}

/**
 * Pages kept open across the tests of one file, for tests that need no browser context of their
 * own: `open(url, contextOptions)` loads `url` as a new document in a free page kept for those
 * context options (a new context and page the first time, or while the kept ones are in use), and
 * the test's `context.close()` hands the page back on about:blank, its workers and timers gone. A
 * cold page load of dist/index.html or embed.html took 1.8 to 2.1 CPU-seconds here, the same load
 * in a kept page 0.9 to 1.0: most of a new page's cost is its renderer process starting and
 * warming. Only for tests that add no listeners, init scripts or emulation of their own to the
 * page and keep nothing in the browser's storage (nothing of the page's but the Hub's model store
 * does); routes a test adds go when it hands the page back. Each open() gets its own `problems`,
 * as openPage() records them.
 * @returns {{open: (url: string, contextOptions?: object) => Promise<{page, context: {close: () => Promise<void>}, problems: string[]}>, close: () => Promise<void>}}
 */
export function keptPages(browser) {
  const kept = []; // {key, context, page, busy, problems}
  return {
    async open(url, contextOptions = {}) {
      const key = JSON.stringify(contextOptions);
      let k = kept.find((x) => x.key === key && !x.busy);
      if (!k) {
        const opened = await openPage(browser, null, contextOptions);
        k = { key, context: opened.context, page: opened.page, problems: opened.problems };
        kept.push(k);
      }
      k.busy = true;
      k.problems.length = 0;
      const problems = k.problems;
      if (url) await k.page.goto(url);
      const close = async () => {
        if (!k.busy) return;
        await k.page.goto('about:blank');
        await k.page.unrouteAll({ behavior: 'ignoreErrors' });
        // Where a fresh page's pointer is: never over the next document's content.
        await k.page.mouse.move(0, 0);
        k.busy = false;
      };
      return { page: k.page, problems, context: { close } };
    },
    async close() {
      for (const k of kept.splice(0)) await k.context.close();
    },
  };
}

// --- Firefox ESR (Debian's stock build) over WebDriver BiDi, through puppeteer-core ---------
// puppeteer-core never downloads a browser; it starts /usr/bin/firefox-esr with a fresh
// temporary profile (removed on close) holding its own test prefs (no updates, no telemetry
// upload, no safe-browsing lists, blank start pages) plus the ones below.

export const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';

/**
 * Prefs on top of puppeteer's. Nothing may leave the machine: every http(s) request to another
 * host goes to `proxyPort`, a local port that drops the connection (localhost is never proxied),
 * and the remote-settings poll is pointed at puppeteer's dummy server (Firefox honours that pref
 * only with MOZ_REMOTE_SETTINGS_DEVTOOLS=1, set in the environment below).
 */
export function firefoxPrefs({ proxyPort }) {
  return {
    'network.proxy.type': 1,
    'network.proxy.http': '127.0.0.1',
    'network.proxy.http_port': proxyPort,
    'network.proxy.ssl': '127.0.0.1',
    'network.proxy.ssl_port': proxyPort,
    'network.proxy.no_proxies_on': '',
    'network.trr.mode': 5,
    'network.dns.disablePrefetch': true,
    'network.captive-portal-service.enabled': false,
    'network.connectivity-service.enabled': false,
    'toolkit.telemetry.enabled': false,
    'toolkit.telemetry.server': '',
    'app.normandy.enabled': false,
    'browser.region.update.enabled': false,
    'extensions.systemAddon.update.enabled': false,
  };
}

/** A local port that accepts and drops every connection: Firefox's proxy for the outside. */
async function deadEndProxy() {
  const net = await import('node:net');
  const server = net.createServer((socket) => socket.destroy());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * Launches Firefox ESR headless over WebDriver BiDi; `extraPrefsFirefox` adds prefs to the ones
 * above (e.g. a storage quota).
 * @returns {Promise<import('puppeteer-core').Browser>}
 */
export async function launchFirefox({ extraPrefsFirefox = {}, ...options } = {}) {
  const { default: puppeteer } = await import('puppeteer-core');
  announceBrowser('firefox');
  const proxy = await deadEndProxy();
  try {
    const browser = await puppeteer.launch({
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      executablePath: FIREFOX,
      headless: true,
      env: { ...process.env, MOZ_REMOTE_SETTINGS_DEVTOOLS: '1', MOZ_CRASHREPORTER_DISABLE: '1' },
      extraPrefsFirefox: { ...firefoxPrefs({ proxyPort: proxy.address().port }), ...extraPrefsFirefox },
      ...options,
    });
    browser.once('disconnected', () => proxy.close());
    return browser;
  } catch (error) {
    proxy.close();
    throw error;
  }
}

/**
 * Records console errors, page errors, failed requests and HTTP errors of a page into
 * `problems`. The events have the same names in playwright and puppeteer, so this works for
 * either browser. HTTP errors are recorded from responses because Firefox reports a 404 neither
 * on the console nor as a failed request (Chromium does both); Firefox reports CSP violations
 * as page errors (Chromium as console errors).
 */
export function recordProblems(page, problems = []) {
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push('console: ' + msg.text());
  });
  page.on('pageerror', (err) => problems.push('pageerror: ' + (err?.message ?? err)));
  page.on('requestfailed', (req) => recordFailedRequest(problems, req));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return problems;
}

/**
 * openPage() for a puppeteer browser: a fresh browser context (a BiDi user context) whose
 * downloads, if `downloadDir` is given, are saved there without asking (BiDi
 * browser.setDownloadBehavior; puppeteer has no event for a finished download: takeDownload).
 */
export async function openFirefoxPage(browser, url, { downloadDir } = {}) {
  const context = await browser.createBrowserContext(
    downloadDir ? { downloadBehavior: { policy: 'allow', downloadPath: downloadDir } } : {},
  );
  const page = await context.newPage();
  const problems = recordProblems(page);
  if (url) await page.goto(url);
  return { page, context, problems };
}

/**
 * Waits for a download called `name` to finish in `dir` (no .part file left, size steady) and
 * returns its bytes, deleting it so the next download of that name keeps the name.
 */
export async function takeDownload(dir, name, { timeout = 10000 } = {}) {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const file = path.join(dir, name);
  const deadline = Date.now() + timeout;
  let last = -1;
  for (;;) {
    const partial = fs.readdirSync(dir).some((f) => f.endsWith('.part'));
    const size = fs.existsSync(file) ? fs.statSync(file).size : -1;
    if (size > 0 && size === last && !partial) break;
    if (Date.now() > deadline)
      throw new Error(
        `download ${name}: not in ${dir} after ${timeout} ms (${fs.readdirSync(dir).join(', ') || 'empty'})`,
      );
    last = size;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const bytes = fs.readFileSync(file);
  fs.rmSync(file);
  return bytes;
}

/** Opens the Edit section's body (collapsed under its summary) the way a reader does: a click. */
export async function openEditor(page) {
  const details = page.locator('section[data-section="edit"] details.ae-editor');
  await details.scrollIntoViewIfNeeded();
  if (!(await details.evaluate((d) => d.open))) await details.locator(':scope > summary').click();
}

/**
 * axe-core's violations in one line each (rule, help, how many nodes and the first three), so a
 * failing assert.deepEqual(axeViolations(result), []) says what and where.
 */
export const axeViolations = (result) =>
  result.violations.map(
    (v) =>
      `${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(' '))
        .join(' | ')})`,
  );

/**
 * Waits until the page's first <attention-explorer> says, in its real-model status, that what ran
 * kept its weights as `shown` ('F16', 'BF16', 'float32'), and returns its state's gpt.precision.
 */
export async function elementWeightsSaid(page, shown, { timeout = 30000 } = {}) {
  await page.waitForFunction(
    (said) =>
      (
        document.querySelector('attention-explorer').shadowRoot.querySelector('.ae-gpt-status')?.textContent ?? ''
      ).endsWith(`weights as ${said}).`),
    shown,
    { timeout },
  );
  return page.evaluate(() => document.querySelector('attention-explorer').state.gpt.precision);
}

// Shared browser-test helpers: a static file server for web/ and a headless Debian Chromium.
// Used by tests/e2e/page.test.mjs and by the embed tests.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];

// The static server (with the page's Content-Security-Policy on every HTML response, so the
// tests prove it holds) is the one `npm start` uses.
export { serveStatic, mimeType, CSP } from '../../scripts/serve.mjs';

/** Launches Debian's Chromium headless through playwright-core. */
export function launchBrowser(options = {}) {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options });
}

/**
 * Opens a page that records console errors, page errors and failed requests into `problems`.
 * @returns {Promise<{page, problems: string[]}>}
 */
export async function openPage(browser, url, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push('console: ' + msg.text()); });
  page.on('pageerror', (err) => problems.push('pageerror: ' + err.message));
  page.on('requestfailed', (req) => problems.push('requestfailed: ' + req.url()));
  if (url) await page.goto(url);
  return { page, context, problems };
}

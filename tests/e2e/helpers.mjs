// Shared browser-test helpers: a static file server for web/ and a headless Debian Chromium.
// Used by tests/e2e/page.test.mjs and by the embed tests.
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];

/** The page's Content-Security-Policy; served on every HTML response so tests prove it holds. */
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'";

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.woff': 'font/woff',
  '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

export function mimeType(file) {
  return MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';
}

/**
 * Serves rootDir on 127.0.0.1 at a random free port. Paths are confined to rootDir.
 * @returns {Promise<{url: string, close: () => Promise<void>}>} url ends with '/'.
 */
export async function serveStatic(rootDir, { csp = CSP } = {}) {
  const root = path.resolve(rootDir);
  const server = http.createServer(async (req, res) => {
    try {
      const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = path.resolve(root, '.' + urlPath);
      if (file !== root && !file.startsWith(root + path.sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      let stat = await fs.stat(file).catch(() => null);
      if (stat && stat.isDirectory()) {
        file = path.join(file, 'index.html');
        stat = await fs.stat(file).catch(() => null);
      }
      if (!stat) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: ' + urlPath);
        return;
      }
      const headers = { 'content-type': mimeType(file), 'cache-control': 'no-store' };
      if (csp && file.endsWith('.html')) headers['content-security-policy'] = csp;
      res.writeHead(200, headers);
      res.end(await fs.readFile(file));
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

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

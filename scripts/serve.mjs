// A small static file server for web/ (and dist/): correct MIME types for .mjs/.wasm/.woff2,
// paths confined to the root, and the page's Content-Security-Policy on HTML responses so
// what we serve locally is what a strict host would enforce. With `isolate`, every response also
// carries the headers that make a page cross-origin isolated (ISOLATION_HEADERS), which the
// threaded engine needs (README "Threads").
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';

export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'";
// The page's own policy (web/index.html's meta says the same; tests/js/serve.test.mjs checks
// it): the strict one, and the Hugging Face Hub and its CDN for GPT-2 in one click (README).
export const PAGE_CSP = `${CSP}; connect-src 'self' https://huggingface.co https://*.hf.co`;

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

// COOP + COEP make the page cross-origin isolated (SharedArrayBuffer, so the threaded engine);
// on every response, as a worker is isolated only when its own script carries COEP too.
export const ISOLATION_HEADERS = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
});

export const mimeType = (file) => MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';

/**
 * Serves rootDir on host:port (port 0 = any free port). `csp` goes on HTML responses, or on every
 * response with `cspAll` (as a strict host may send it: workers then run under it too);
 * `isolate` adds ISOLATION_HEADERS to every response. `onResponse({method, path, status, bytes})`
 * hears of every response as it is sent (bytes: of its body), for tests that count what a page fetches.
 * @returns {Promise<{url: string, close: () => Promise<void>}>} url ends with '/'.
 */
export async function serveStatic(
  rootDir,
  { host = '127.0.0.1', port = 0, csp = CSP, cspAll = false, isolate = false, onResponse = null } = {},
) {
  const root = path.resolve(rootDir);
  const server = http.createServer(async (req, res) => {
    try {
      const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      const sent = (status, bytes) => onResponse?.({ method: req.method, path: urlPath, status, bytes });
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
        const body = 'not found: ' + urlPath;
        res.writeHead(404, { 'content-type': 'text/plain' }).end(body);
        sent(404, Buffer.byteLength(body));
        return;
      }
      const headers = {
        'content-type': mimeType(file),
        'cache-control': 'no-store',
        ...(isolate ? ISOLATION_HEADERS : {}),
      };
      if (csp && (cspAll || file.endsWith('.html'))) headers['content-security-policy'] = csp;
      const body = await fs.readFile(file);
      res.writeHead(200, { ...headers, 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
      sent(200, req.method === 'HEAD' ? 0 : body.length);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://${host}:${server.address().port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

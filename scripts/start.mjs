// `npm start`: builds what is missing or stale, then serves the built page (dist/: one script per
// page, as it ships) on localhost and prints the URL. `npm run dev` (--dev) serves web/ instead,
// the plain ES modules, so an edit shows on reload with no build. PORT chooses the port (default
// 8080, or the next free one). The page is served cross-origin isolated (COOP + COEP on every
// response, beside the CSP), so its workers load the threaded engine.
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic, PAGE_CSP } from './serve.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('node', [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });

const dev = process.argv.includes('--dev');
const served = dev ? 'web' : 'dist';
const first = Number(process.env.PORT || 8080);
for (let port = first; port < first + 20; port++) {
  try {
    // Cross-origin isolated, so Learn and the real model train and run on every core (README
    // "Threads"); the page's policy, which lets it download GPT-2 from the Hub.
    const { url } = await serveStatic(join(root, served), { port, isolate: true, csp: PAGE_CSP });
    console.log(`attention-explorer is running at ${url}  (${served}/; Ctrl+C to stop)`);
    break;
  } catch (error) {
    if (error.code !== 'EADDRINUSE') throw error;
  }
}

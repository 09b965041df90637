// The explorer page: loads the WASM engine once, builds the state from the seed example and the
// URL hash, mounts the explorer, keeps the hash in sync (with back/forward), and adds the export
// toolbars and the embed dialog. Tests read window.__explorer = {store, engine, explorer, ready}.
import { loadEngine } from './lib/engine.js';

// Fetch and compile the WASM engine while the other modules load, not after.
const enginePromise = loadEngine();
enginePromise.catch(() => {});   // reported by start() below
const modules = Promise.all([
  import('./lib/state.js'), import('./lib/store.js'), import('./lib/share-ui.js'), import('./views/explorer.js'),
]);
// Not needed for the first paint.
const extras = () => Promise.all([import('./lib/compute.js'), import('./views/export-menu.js'), import('./views/embed-dialog.js')]);

const root = document.getElementById('app');
const loading = document.getElementById('loading');

function fail(message) {
  loading.hidden = false;
  loading.replaceChildren();
  const h1 = document.createElement('h1');
  h1.textContent = 'Self-attention, one number at a time';
  const p = document.createElement('p');
  p.className = 'page-error';
  p.textContent = message;
  loading.append(h1, p);
}

async function start() {
  let mods, engine;
  try {
    mods = await modules;
    performance.mark('ae-modules-ready');
  } catch (err) {
    fail(`The page's scripts could not be loaded: ${err.message}.`);
    throw err;
  }
  const [{ defaultState }, { createStore }, { attachHashSync }, { mountExplorer }] = mods;
  try {
    engine = await enginePromise;
    performance.mark('ae-engine-ready');
  } catch (err) {
    fail(`The attention engine could not be loaded: ${err.message}. If you opened the file directly, serve web/ over HTTP (npm start).`);
    throw err;
  }
  const defaults = defaultState(engine.examples());
  const store = createStore(structuredClone(defaults));
  Object.assign(window.__explorer, { store, engine });
  let explorer = null;
  const early = [];   // problems found in the hash before the explorer exists
  attachHashSync(store, {
    defaults,
    onProblems(problems) {
      if (!problems.length) return;
      const text = `The link held values this page cannot use, so defaults were kept for them: ${problems.join('; ')}.`;
      if (explorer) explorer.notify(text); else early.push(text);
    },
  });
  loading.remove();
  performance.mark('ae-mount-start');
  explorer = mountExplorer(root, {
    store, engine, defaults, chrome: true,
    // First paint: the first heatmaps are in the DOM now; a task after the next frame runs once
    // that frame has been painted.
    onFirstRender() {
      performance.mark('ae-first-heatmap');
      requestAnimationFrame(() => setTimeout(() => performance.mark('ae-first-frame'), 0));
    },
  });
  window.__explorer.explorer = explorer;
  for (const text of early) explorer.notify(text);
  await explorer.rendered;
  // KaTeX's stylesheet is only needed by the formula view, far below the fold: not render-blocking.
  const katexCss = document.createElement('link');
  katexCss.rel = 'stylesheet';
  katexCss.href = 'vendor/katex/katex.min.css';
  document.head.append(katexCss);
  addTools(explorer, store, engine, defaults).catch((err) => explorer.notify(`The export and embed tools could not be loaded: ${err.message}`));
  return { engine, explorer, store, defaults };
}

async function addTools(explorer, store, engine, defaults) {
  const [{ computeAll }, { attachExportMenus, attachScriptExport }, { attachEmbedButton }] = await extras();
  const tools = explorer.container.querySelector('.ae-header-tools');
  attachEmbedButton(tools, { store, defaults });
  attachScriptExport(tools, { getState: () => store.get(), getResults: () => computeAll(engine, store.get(), { averaging: false }) });
  attachExportMenus(explorer.container);
}

window.__explorer = { store: null, engine: null, explorer: null, ready: null };
window.__explorer.ready = start();

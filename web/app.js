// The explorer page: its state comes from the URL hash (and goes back into it, with working
// back/forward), with the full controls, the export menus and the embed dialog. Tests read
// window.__explorer = {store, engine, explorer, ready}.
import { loadEngine } from './engine/engine.js';

// Fetch and compile the WASM engine while the other modules load, not after.
const enginePromise = loadEngine();
enginePromise.catch(() => {}); // reported by mountFromState below
const modules = Promise.all([import('./bootstrap.js'), import('./lib/share.js'), import('./tools/hash-sync.js')]);
// Not needed for the first paint.
const tools = () =>
  Promise.all([import('./lib/compute.js'), import('./tools/export-menu.js'), import('./tools/embed-dialog.js')]);

const LINK_PROBLEMS = 'The link held values this page cannot use, so defaults were kept for them:';
const root = document.getElementById('app');
const loading = document.getElementById('loading');

function fail(message) {
  loading.querySelector('p').textContent = message;
  loading.querySelector('p').className = 'page-error';
}

async function start() {
  let mods;
  try {
    mods = await modules;
    performance.mark('ae-modules-ready');
  } catch (err) {
    fail(`The page's scripts could not be loaded: ${err.message}.`);
    throw err;
  }
  const [{ mountFromState }, { readHash }, { attachHashSync }] = mods;
  let mounted;
  try {
    mounted = await mountFromState(root, {
      engine: enginePromise.then((engine) => {
        performance.mark('ae-engine-ready');
        loading.remove();
        return engine;
      }),
      readState: () => readHash(location.hash),
      controls: 'full',
      problemsIntro: LINK_PROBLEMS,
      // First paint: the first heatmaps are in the DOM now; a task after the next frame runs once
      // that frame has been painted.
      onFirstRender() {
        performance.mark('ae-first-heatmap');
        requestAnimationFrame(() => setTimeout(() => performance.mark('ae-first-frame'), 0));
      },
    });
  } catch (err) {
    fail('If you opened the file directly, serve web/ over HTTP (npm start).');
    throw err;
  }
  const { engine, store, explorer, defaults } = mounted;
  Object.assign(window.__explorer, { store, engine, explorer });
  attachHashSync(store, {
    defaults,
    applyInitial: false,
    onProblems: (problems) => explorer.showProblems(problems, LINK_PROBLEMS),
  });
  await explorer.rendered;
  addTools(explorer, store, engine, defaults).catch((err) =>
    explorer.notify(`The export and embed tools could not be loaded: ${err.message}`),
  );
  return mounted;
}

async function addTools(explorer, store, engine, defaults) {
  const [{ computeAll }, { attachExportMenus, attachScriptExport }, { attachEmbedButton }] = await tools();
  const bar = explorer.container.querySelector('.ae-header-tools');
  attachEmbedButton(bar, { store, defaults });
  attachScriptExport(bar, {
    getState: () => store.get(),
    getResults: () => computeAll(engine, store.get(), { averaging: false, focusExtras: false }),
  });
  attachExportMenus(explorer.container);
}

window.__explorer = { store: null, engine: null, explorer: null, ready: null };
window.__explorer.ready = start();

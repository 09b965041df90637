// The explorer page: loads the WASM engine once, builds the state from the seed example and the
// URL hash, mounts the explorer and keeps the hash in sync. Tests read window.__explorer.
import { loadEngine } from './lib/engine.js';

// Fetch and compile the WASM engine while the view modules load, not after.
const enginePromise = loadEngine();
enginePromise.catch(() => {});   // reported by start() below
const modules = Promise.all([
  import('./lib/state.js'), import('./lib/store.js'), import('./lib/share.js'), import('./views/explorer.js'),
]);

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
  let engine;
  let mods;
  try {
    mods = await modules;
    performance.mark('ae-modules-ready');
  } catch (err) {
    fail(`The page's scripts could not be loaded: ${err.message}.`);
    throw err;
  }
  const [{ defaultState }, { createStore }, { encodeState, stateFromHash }, { mountExplorer }] = mods;
  try {
    engine = await enginePromise;
    performance.mark('ae-engine-ready');
  } catch (err) {
    fail(`The attention engine could not be loaded: ${err.message}. If you opened the file directly, serve web/ over HTTP (npm start).`);
    throw err;
  }
  const defaults = defaultState(engine.examples());
  const fromHash = stateFromHash(location.hash, defaults);
  const store = createStore(fromHash.state);
  window.__explorer.store = store;
  window.__explorer.engine = engine;
  loading.remove();
  let hashTimer = 0;
  let lastHash = location.hash.replace(/^#/, '');
  const explorer = mountExplorer(root, {
    store, engine, defaults, chrome: true,
    // First paint: the first heatmaps are in the DOM now; the frame after next has painted them.
    onFirstRender() {
      performance.mark('ae-first-heatmap');
      requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('ae-first-frame')));
    },
    onChange(state) {
      // Keep the URL a link to what is on screen; replaceState so drags do not flood history.
      clearTimeout(hashTimer);
      hashTimer = setTimeout(() => {
        const text = encodeState(state, defaults);
        if (text === lastHash) return;
        lastHash = text;
        history.replaceState(null, '', text === encodeState(defaults, defaults) ? location.pathname + location.search : '#' + text);
      }, 250);
    },
  });
  window.__explorer.explorer = explorer;
  if (fromHash.problems.length) showProblems(explorer, fromHash.problems);
  addEventListener('hashchange', () => {
    const text = location.hash.replace(/^#/, '');
    if (text === lastHash) return;
    lastHash = text;
    const next = stateFromHash(location.hash, defaults);
    store.set(next.state);
    if (next.problems.length) showProblems(explorer, next.problems);
  });
  await explorer.rendered;
  return { engine, explorer, store, defaults };
}

function showProblems(explorer, problems) {
  explorer.notify(`The link held values this page cannot use, so defaults were kept for them: ${problems.join('; ')}.`);
}

window.__explorer = { store: null, engine: null, explorer: null, ready: null };
window.__explorer.ready = start();

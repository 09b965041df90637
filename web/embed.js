// web/embed.html#<state>: one configured view of the explorer for an <iframe>, no page chrome.
// The state comes from the hash (same format as the main page's links); a bad hash shows the
// defaults and a notice. The page posts its height to the parent on every size change:
//   {type: 'attention-explorer:height', height: <CSS px>}
// so the host can size the frame (see web/examples/iframe.html).
import { loadEngine } from './lib/engine.js';
import { defaultState } from './lib/state.js';
import { createStore } from './lib/store.js';
import { stateFromHash } from './lib/share.js';
import { mountExplorer } from './views/explorer.js';

export const HEIGHT_MESSAGE = 'attention-explorer:height';

const root = document.getElementById('app');

function postHeight() {
  // The document's full height: the iframe should show all of it without scrolling.
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === postHeight.last) return;
  postHeight.last = height;
  if (window.parent !== window) window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
}

function problemsText(problems) {
  return `This embedded view's link held values it cannot use, so defaults are shown for them: ${problems.join('; ')}.`;
}

async function start() {
  let engine;
  try {
    engine = await loadEngine();
  } catch (error) {
    const p = document.createElement('p');
    p.className = 'ae-embed-error';
    p.setAttribute('role', 'alert');
    p.textContent = `The attention engine could not be loaded: ${error.message}`;
    root.replaceChildren(p);
    postHeight();
    throw error;
  }
  const defaults = defaultState(engine.examples());
  const first = stateFromHash(location.hash, defaults);
  const store = createStore(first.state);
  root.replaceChildren();
  const explorer = mountExplorer(root, { store, engine, defaults, chrome: false });
  document.body.classList.add('ae-embed-page');
  if (first.problems.length) explorer.notify(problemsText(first.problems));
  addEventListener('hashchange', () => {
    const next = stateFromHash(location.hash, defaults);
    store.set(next.state);
    explorer.notify(next.problems.length ? problemsText(next.problems) : null);
  });
  new ResizeObserver(postHeight).observe(document.documentElement);
  await explorer.rendered;
  postHeight();
  return { engine, store, explorer };
}

window.__embed = { ready: start() };
window.__embed.ready.catch(() => {});

// web/embed.html#<state>: one configured view of the explorer for an <iframe>, no page chrome.
// The state comes from the hash (same format as the main page's links); a bad hash shows the
// defaults and a notice. The page posts its height to the parent on every size change:
//   {type: 'attention-explorer:height', height: <CSS px>}
// and web/embed-host.js, on the host page, sizes the frame and answers
//   {type: 'attention-explorer:sized'};
// until an answer comes the frame scrolls its own content, so nothing is cut off on a host that
// does not size it (see web/examples/iframe.html).
import { mountFromState } from './bootstrap.js';
import { loadEngine } from './engine/engine.js';
import { readHash, stateFromHash } from './lib/share.js';

export const HEIGHT_MESSAGE = 'attention-explorer:height';
export const SIZED_MESSAGE = 'attention-explorer:sized';
const PROBLEMS = "This embedded view's link held values it cannot use, so defaults are shown for them:";

const root = document.getElementById('app');

function postHeight() {
  // The document's full height: the iframe should show all of it without scrolling.
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === postHeight.last) return;
  postHeight.last = height;
  if (window.parent !== window) window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
}

// The parent sized the frame to the content: the page no longer needs its own scroll bar.
addEventListener('message', (event) => {
  if (event.source === window.parent && event.data?.type === SIZED_MESSAGE)
    document.documentElement.classList.add('ae-frame-sized');
});

async function start() {
  new ResizeObserver(postHeight).observe(document.documentElement);
  const loading = root.querySelector('.ae-embed-loading');
  const mounted = await mountFromState(root, {
    engine: loadEngine().finally(() => loading?.remove()),
    readState: () => readHash(location.hash),
    controls: 'none',
    problemsIntro: PROBLEMS,
    embedded: true,
  });
  const { store, explorer, defaults } = mounted;
  addEventListener('hashchange', () => {
    const next = stateFromHash(location.hash, defaults);
    store.set(next.state);
    explorer.showProblems(next.problems, PROBLEMS);
  });
  await explorer.rendered;
  postHeight();
  return mounted;
}

window.__embed = { ready: start() };
window.__embed.ready.catch(() => {});

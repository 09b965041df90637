// Keeps the URL hash a link to what is on screen, with working back/forward.
//
//   const detach = attachHashSync(store, { defaults, onProblems: (problems) => explorer.notify(…) });
//
// Edits come in bursts (a drag fires many); the first change of a burst pushes a history entry,
// later changes within `burstMs` replace it, so Back returns to the state before the burst rather
// than stepping through every pixel of a drag. Opening a link, Back and Forward decode the hash
// through stateFromHash(); problems (bad or hostile hash) are handed to onProblems for a visible
// notice while the defaults are shown for the bad parts.
import { encodeState, stateFromHash } from '../lib/share.js';

/**
 * @param {{get(): object, set(state: object): void, subscribe(fn): () => void}} store
 * @param {{defaults: object, onProblems?: (problems: string[]) => void, win?: Window,
 *          debounceMs?: number, burstMs?: number, applyInitial?: boolean}} options
 * @returns {() => void} detach
 */
export function attachHashSync(store, options) {
  const { defaults, onProblems = () => {}, debounceMs = 200, burstMs = 1000, applyInitial = true } = options;
  if (!defaults) throw new TypeError('attachHashSync: options.defaults (the default state) is required');
  const win = options.win || window;
  const { history, location } = win;
  const hashOf = (state) => encodeState(state, defaults);
  const defaultHash = hashOf(defaults);
  let shown = location.hash.replace(/^#/, ''); // the hash that matches the store
  let timer = 0;
  let lastWrite = -Infinity;
  let applying = false;

  function urlFor(text) {
    return text === defaultHash ? location.pathname + location.search : `#${text}`;
  }

  function fromLocation() {
    const text = location.hash.replace(/^#/, '');
    if (text === shown) return;
    const { state, problems } = stateFromHash(location.hash, defaults);
    shown = text;
    applying = true;
    try {
      store.set(state);
    } finally {
      applying = false;
    }
    onProblems(problems);
  }

  function write() {
    timer = 0;
    const text = hashOf(store.get());
    const current = location.hash.replace(/^#/, '');
    if (text === shown || (text === defaultHash && current === '')) {
      shown = text;
      return;
    }
    const now = Date.now();
    if (now - lastWrite > burstMs) history.pushState(null, '', urlFor(text));
    else history.replaceState(null, '', urlFor(text));
    lastWrite = now;
    shown = text;
  }

  if (applyInitial && location.hash.replace(/^#/, '') !== '') {
    shown = null;
    fromLocation();
  }

  const unsubscribe = store.subscribe(() => {
    if (applying) return;
    clearTimeout(timer);
    timer = setTimeout(write, debounceMs);
  });
  // popstate covers Back/Forward over pushState entries; hashchange covers a typed or pasted link.
  const onNavigate = () => {
    clearTimeout(timer);
    timer = 0;
    lastWrite = -Infinity;
    fromLocation();
  };
  win.addEventListener('popstate', onNavigate);
  win.addEventListener('hashchange', onNavigate);

  return function detach() {
    clearTimeout(timer);
    unsubscribe();
    win.removeEventListener('popstate', onNavigate);
    win.removeEventListener('hashchange', onNavigate);
  };
}

/** A link to `state` on the page at `pageUrl` (default: this page without its hash). */
export function shareLink(state, defaults, pageUrl = null) {
  const base = pageUrl || `${location.origin}${location.pathname}${location.search}`;
  const text = encodeState(state, defaults);
  return text === encodeState(defaults, defaults) ? base : `${base}#${text}`;
}

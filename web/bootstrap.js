// The one way in. The page (app.js), the iframe (embed.js) and the element
// (element/attention-explorer.js) each say only where their state comes from — the URL hash, or
// the element's attributes and inline JSON — and how much control to show; this goes from there
// to a mounted explorer:
//
//   engine → defaults (seed 003's example) → the entry's untrusted state → sanitizeState →
//   store → mountExplorer → problems shown in the explorer's notice
import { loadEngine } from './engine/engine.js';
import { defaultState } from './lib/state.js';
import { sanitizeState } from './lib/share.js';
import { createStore } from './lib/store.js';
import { mountExplorer } from './shell/explorer.js';
import { h } from './ui/dom.js';

/**
 * @param {Element|ShadowRoot} root  where to mount
 * @param {{engine?: object|Promise<object>,
 *          readState?: (defaults) => {state: object|undefined, problems: string[], say?: (problems) => string[]},
 *          store?: object, defaults?: object,
 *          controls: 'full'|'minimal'|'none', problemsIntro: string, onFirstRender?: () => void,
 *          upgradeEngine?: () => Promise<object>, lazy?: boolean, embedded?: boolean,
 *          presentation?: {figure?: boolean, caption?: string}}} options
 *   readState returns the entry point's untrusted state (undefined = the defaults) and any
 *   problems met reading it (and how to say the state's problems: the element names its attributes); problemsIntro is the sentence shown above them. store + defaults:
 *   mount again over an existing store (no state is read). upgradeEngine: see
 *   mountExplorer (the element's small engine swaps in the whole one for views that need it);
 *   lazy, embedded: see mountExplorer (the element fetches its files as it nears the viewport; a
 *   figure in someone else's page speaks to its reader);
 *   presentation: see mountExplorer (figure-only, caption).
 * @returns {Promise<{engine, defaults, store, explorer}>}  If the engine cannot load, `root`
 *   shows why (as text, role=alert) and the promise rejects with the error.
 */
export async function mountFromState(
  root,
  {
    engine = loadEngine(),
    readState,
    store: existing,
    defaults: knownDefaults,
    controls,
    problemsIntro,
    onFirstRender,
    upgradeEngine,
    lazy,
    embedded,
    presentation,
  },
) {
  let ready;
  try {
    ready = await engine;
  } catch (error) {
    const doc = root.ownerDocument || root;
    root.append(
      h(
        doc,
        'div',
        { class: 'ae-notice ae-load-error', role: 'alert' },
        h(doc, 'p', {}, `The attention engine could not be loaded: ${error.message}`),
      ),
    );
    throw error;
  }
  const defaults = knownDefaults ?? defaultState(ready.examples());
  // A remount (the element's controls changed) keeps its store: nothing to read again.
  const read = existing ? { state: undefined, problems: [] } : readState(defaults);
  const sanitized = existing ? { state: null, problems: [] } : sanitizeState(read.state, defaults);
  const store = existing ?? createStore(sanitized.state);
  const explorer = mountExplorer(root, {
    store,
    engine: ready,
    defaults,
    controls,
    onFirstRender,
    upgradeEngine,
    lazy,
    embedded,
    presentation,
  });
  explorer.showProblems([...read.problems, ...(read.say?.(sanitized.problems) ?? sanitized.problems)], problemsIntro);
  return { engine: ready, defaults, store, explorer };
}

// <attention-explorer>: the explorer as a custom element for blog posts.
//
//   <script type="module" src="attention-explorer.js"></script>
//   <attention-explorer example="river" view="scores,weights,output" causal controls="minimal">
//   </attention-explorer>
//
// Its state comes from its attributes (lib/attributes.js) and/or a child
// <script type="application/json"> holding a full or partial state; attributes apply on top of
// the JSON, and everything passes through sanitizeState(), so a bad attribute or JSON shows a
// notice inside the element and the defaults are kept for that part (web/bootstrap.js).
// Host API: el.state (a copy), el.setState(patch) → problems, el.step(delta) → step,
// el.ready (Promise), events 'change' {detail: {state}} and 'step' {detail: {step}}.
// All elements on a page share one engine instance.
import { loadEngine } from '../engine/engine.js';
import { mountFromState } from '../bootstrap.js';
import {
  ATTRIBUTES,
  applyAttributes,
  attributeProblems,
  defaultViewFor,
  parseControls,
  parseHeight,
  parseInlineJSON,
  parsePresentation,
  removedAttributeText,
} from '../lib/attributes.js';
import { sanitizeState } from '../lib/share.js';
import { stepCount } from '../lib/steps.js';
import { loadExportMenus } from '../views/full-engine-sections.js';
import { h } from '../ui/dom.js';
import { whenNear } from '../ui/on-screen.js';
import { NEAR_MARGIN } from '../shell/scheduler.js';
import { elementCSS, engineOptions, loadFullEngine } from './assets.js';

export { ATTRIBUTES };
const PROBLEMS = "Some of this explorer's settings could not be used, so defaults are shown for them:";

/**
 * Makes the page's CSS fit a shadow root on someone else's page:
 * - `rem` is the host document's root font size (a blog's `html {font-size: 62.5%}` would
 *   shrink every rem length inside the element), so rem lengths become multiples of
 *   --ae-rem, which the element pins to 16px; media queries (where var() cannot go) keep rem;
 * - @font-face rules do nothing inside a shadow root, so they are dropped.
 */
export function shadowCSS(css) {
  const preludes = [];
  const protectedCss = css
    .replace(/@font-face\s*\{[^}]*\}/g, '')
    .replace(/@(media|container|supports)[^{]*\{/g, (m) => {
      preludes.push(m);
      return `\u0000${preludes.length - 1}\u0000`;
    });
  return protectedCss
    .replace(/(-?(?:\d+\.?\d*|\.\d+))rem\b/g, 'calc($1 * var(--ae-rem))')
    .replace(/\u0000(\d+)\u0000/g, (_, i) => preludes[Number(i)]);
}

// Until the figure draws, it holds a figure's room (the page's own CSS can do the same before the
// element's file has run: README "Embed it"), so the post does not jump as figures appear and
// what is far below — a lazy iframe, the next figures — stays out of the browser's reach. A
// constructed sheet adopted at once: the element's own sheet comes a task or two later.
const PLACEHOLDER_CSS = ':host{display:block}.ae-el-loading{min-height:320px}';
let placeholderSheet = null;

let sheetPromise = null;
function sharedSheet() {
  // One constructed sheet adopted by every element's shadow root.
  sheetPromise ||= elementCSS().then((css) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(shadowCSS(css));
    return sheet;
  });
  return sheetPromise;
}

let enginePromise = null;
/** The page-wide engine shared by all elements. */
export function sharedEngine() {
  enginePromise ||= engineOptions().then((options) => loadEngine(options));
  return enginePromise;
}

let fullEnginePromise = null;
/** The whole engine, for views the shared one cannot draw; also shared by all elements. */
export function sharedFullEngine() {
  fullEnginePromise ||= loadFullEngine()
    .then((full) => full ?? sharedEngine())
    .catch((error) => {
      fullEnginePromise = null;
      throw error;
    });
  return fullEnginePromise;
}

// A post with many figures mounts them one per task, in document order, so the browser paints
// the first ones (and answers the reader) before the rest are built, instead of all at once.
let mountTurns = Promise.resolve();
function nextMountTurn(win) {
  const turn = mountTurns.then(
    () =>
      new Promise((resolve) => {
        if (win?.MessageChannel) {
          const channel = new win.MessageChannel();
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(null);
        } else setTimeout(resolve, 0);
      }),
  );
  mountTurns = turn;
  return turn;
}

export class AttentionExplorerElement extends HTMLElement {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    const doc = this.ownerDocument;
    if (!placeholderSheet) {
      placeholderSheet = new CSSStyleSheet();
      placeholderSheet.replaceSync(PLACEHOLDER_CSS);
    }
    shadow.adoptedStyleSheets = [placeholderSheet];
    this._loading = h(doc, 'div', { class: 'ae-el-loading', role: 'status' }, 'Loading the attention explorer…');
    this._frame = h(doc, 'div', { class: 'ae-el-frame' }, this._loading);
    shadow.append(this._frame);
    this._mounted = null; // {engine, defaults, store, explorer}
    this._jsonView = false; // the inline JSON names a view (then the example's default view is not used)
    this._presentationProblems = [];
    this._exports = null;
    this._exportsNear = null; // the export menus wait for the figure to near the viewport
    this._pending = [];
    this._started = false;
    this.ready = new Promise((resolve, reject) => {
      this._resolveReady = resolve;
      this._rejectReady = reject;
    });
    this.ready.catch(() => {}); // failures are shown in the element; no unhandled rejections
  }

  connectedCallback() {
    this._applyHeight();
    if (this._started) return;
    this._started = true;
    const doc = this.ownerDocument;
    // Children (the JSON script) are complete once the document is parsed.
    const parsed =
      doc.readyState === 'loading'
        ? new Promise((r) => doc.addEventListener('DOMContentLoaded', r, { once: true }))
        : Promise.resolve();
    const engine = Promise.all([sharedEngine(), sharedSheet(), parsed])
      .then(([ready, sheet]) => {
        this.shadowRoot.adoptedStyleSheets = [placeholderSheet, sheet];
        return ready;
      })
      .then((ready) => nextMountTurn(this.ownerDocument.defaultView).then(() => ready));
    engine.finally(() => this._loading.remove()).catch(() => {});
    mountFromState(this._frame, {
      engine,
      readState: (defaults) => this._readState(defaults),
      controls: this.controls,
      problemsIntro: PROBLEMS,
      upgradeEngine: sharedFullEngine,
      lazy: true,
      embedded: true,
      presentation: this._presentation(),
    }).then(
      (mounted) => this._onMounted(mounted),
      (error) => this._rejectReady(error),
    );
  }

  attributeChangedCallback(name, oldValue, value) {
    if (name === 'height') this._applyHeight();
    if (!this._mounted || oldValue === value || name === 'height') return;
    if (name === 'controls') {
      this._remount();
      return;
    }
    if (name === 'figure' || name === 'caption') {
      this._mounted.explorer.setPresentation(this._presentation());
      return;
    }
    const { store, defaults, explorer } = this._mounted;
    // Without a view of its own (attribute or JSON), the element shows its example's figure.
    const ownView = this.hasAttribute('view') || this._jsonView;
    if (name === 'view' && value === null && !ownView) {
      const current = store.get();
      const example = this.getAttribute('example') ?? current.example;
      store.set({ ...current, view: defaultViewFor(example) });
      return;
    }
    const text = value ?? removedAttributeText(name);
    if (text === null) return; // removing example/tokens/view keeps what is shown
    const { state: untrusted, problems } = applyAttributes(store.get(), { [name]: text }, defaults, {
      defaultView: name === 'example' && !ownView,
    });
    const out = sanitizeState(untrusted, defaults);
    explorer.showProblems([...problems, ...attributeProblems(out.problems, { [name]: text })], PROBLEMS);
    store.set(out.state);
  }

  /** A copy of the current state (null until ready). */
  get state() {
    return this._mounted ? structuredClone(this._mounted.store.get()) : null;
  }

  set state(value) {
    this.setState(value, { replace: true });
  }

  /** The engine all elements share (a Promise). */
  get engine() {
    return sharedEngine();
  }

  get controls() {
    return parseControls(this.getAttribute('controls'));
  }

  /**
   * Merges `patch` (a partial state; `options` merged key by key) into the state, or replaces
   * it with {replace: true}. Returns the problems found (also shown in the notice); bad fields
   * keep their current values (or the defaults when replacing). Before ready, the patch is
   * queued and applied once the element is ready (returns null).
   */
  setState(patch, { replace = false } = {}) {
    if (!this._mounted) {
      this._pending.push([patch, replace]);
      return null;
    }
    const { store, defaults, explorer } = this._mounted;
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      const problems = [
        `setState: expected an object, got ${patch === null ? 'null' : Array.isArray(patch) ? 'an array' : typeof patch}`,
      ];
      explorer.showProblems(problems, PROBLEMS);
      return problems;
    }
    const current = store.get();
    const untrusted = replace
      ? patch
      : {
          ...current,
          ...patch,
          options:
            patch.options && typeof patch.options === 'object'
              ? { ...current.options, ...patch.options }
              : (patch.options ?? current.options),
        };
    // Fields a patch gets wrong fall back to the current state, not the seed defaults.
    const { state, problems } = sanitizeState(untrusted, replace ? defaults : current);
    explorer.showProblems(problems, PROBLEMS);
    store.set(state);
    return problems;
  }

  /** Moves the stepper by `delta` (default 1), clamped to its range; returns the new step. */
  step(delta = 1) {
    if (!this._mounted) return null;
    const { store, explorer } = this._mounted;
    if (typeof delta !== 'number' || !Number.isFinite(delta)) {
      explorer.showProblems([`step(): expected a number of steps, got ${String(delta)}`], PROBLEMS);
      return store.get().step;
    }
    const s = store.get();
    const next = Math.max(0, Math.min(stepCount(s), s.step + Math.trunc(delta)));
    if (next !== s.step) store.set({ ...s, step: next });
    return next;
  }

  // --- internals --------------------------------------------------------------------------

  /** Attributes over the inline JSON: the element's untrusted state and what was wrong with it. */
  _readState(defaults) {
    const script = [...this.children].find(
      (c) => c.localName === 'script' && (c.type || '').trim().toLowerCase() === 'application/json',
    );
    const json = parseInlineJSON(script ? script.textContent : null);
    this._jsonView = Object.prototype.hasOwnProperty.call(json.base, 'view');
    const attrs = {};
    for (const name of ATTRIBUTES) if (this.hasAttribute(name)) attrs[name] = this.getAttribute(name);
    const applied = applyAttributes(json.base, attrs, defaults, { defaultView: !this._jsonView });
    return {
      state: applied.state,
      problems: [...json.problems, ...applied.problems, ...this._presentationProblems],
      say: (problems) => attributeProblems(problems, attrs),
    };
  }

  /** The figure and caption attributes (presentation, not state). */
  _presentation() {
    const problems = [];
    const out = parsePresentation(this.getAttribute('figure'), this.getAttribute('caption'), problems);
    this._presentationProblems = problems;
    return out;
  }

  _onMounted(mounted) {
    this._mounted = mounted;
    mounted.store.subscribe((next, previous) => {
      this.dispatchEvent(new CustomEvent('change', { detail: { state: structuredClone(next) } }));
      if (next.step !== previous.step) this.dispatchEvent(new CustomEvent('step', { detail: { step: next.step } }));
    });
    this._decorate();
    for (const [patch, replace] of this._pending.splice(0)) this.setState(patch, { replace });
    mounted.explorer.rendered.then(() => this._resolveReady(this));
  }

  // Embedded styling, and with full controls every heatmap's export menu, as on the page (from a
  // file beside the element's: only full controls need it), fetched as the figure nears the
  // viewport like its sections' files.
  _decorate() {
    const { explorer } = this._mounted;
    explorer.container.classList.add('ae-embedded');
    this._exports = null;
    this._exportsNear?.stop();
    if (this.controls !== 'full') return;
    const attach = () =>
      loadExportMenus().then(
        ({ attachExportMenus }) => {
          if (this._mounted.explorer === explorer) this._exports = attachExportMenus(explorer.container);
        },
        (error) => explorer.notify(`The export menus could not be loaded: ${error.message}`),
      );
    this._exportsNear = whenNear(this.ownerDocument.defaultView, this, attach, { margin: NEAR_MARGIN });
  }

  async _remount() {
    const { store, engine, defaults, explorer } = this._mounted;
    this._exports?.disconnect();
    explorer.destroy();
    const again = await mountFromState(this._frame, {
      engine,
      store,
      defaults,
      controls: this.controls,
      upgradeEngine: sharedFullEngine,
      lazy: true,
      embedded: true,
      presentation: this._presentation(),
    });
    this._mounted.explorer = again.explorer;
    this._decorate();
  }

  _applyHeight() {
    const text = this.getAttribute('height');
    const height = text === null ? null : parseHeight(text);
    this._frame.style.maxHeight = height || '';
  }
}

if (!customElements.get('attention-explorer')) customElements.define('attention-explorer', AttentionExplorerElement);

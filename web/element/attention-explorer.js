// <attention-explorer>: the explorer as a custom element for blog posts.
//
//   <script type="module" src="attention-explorer.js"></script>
//   <attention-explorer example="river" view="scores,weights,output" causal controls="minimal">
//   </attention-explorer>
//
// Configured by attributes (see ATTRIBUTES) and/or a child <script type="application/json">
// holding a full or partial state (custom vocabulary, contexts, weights, options); attributes
// apply on top of the JSON. Everything passes through sanitizeState(), so a bad attribute or
// JSON shows a notice inside the element and the defaults are kept for that part.
// Host API: el.state (a copy), el.setState(patch) → problems, el.step(delta) → step,
// el.ready (Promise), events 'change' {detail: {state}} and 'step' {detail: {step}}.
// All elements on a page share one engine instance (loadEngine() caches it).
import { loadEngine } from '../lib/engine.js';
import { defaultState } from '../lib/state.js';
import { sanitizeState } from '../lib/share.js';
import { createStore } from '../lib/store.js';
import { loopSteps } from '../lib/steps.js';
import { mountExplorer } from '../views/explorer.js';
import { attachExportMenus } from '../views/export-menu.js';
import { elementCSS, engineOptions } from './assets.js';

export const ATTRIBUTES = Object.freeze(['example', 'view', 'tokens', 'causal', 'scale', 'temperature', 'heads',
  'projections', 'theme', 'controls', 'step', 'height']);
export const CONTROLS = Object.freeze(['none', 'minimal', 'full']);

const clip = (s, n = 40) => (String(s).length > n ? `${String(s).slice(0, n)}…` : String(s));

function parseBool(name, text, problems) {
  const t = text.trim().toLowerCase();
  if (t === '' || t === 'true' || t === name) return true;
  if (t === 'false') return false;
  problems.push(`${name}="${clip(text)}": expected true or false (or the bare attribute)`);
  return undefined;
}

function parseNumberAttr(name, text, problems, { integer = false } = {}) {
  const t = text.trim();
  const ok = integer ? /^[+]?\d+$/.test(t) : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t);
  if (!ok) {
    problems.push(`${name}="${clip(text)}": expected ${integer ? 'a whole number' : 'a number'}`);
    return undefined;
  }
  return Number(t);
}

/** A CSS length for the height attribute ("480", "480px", "30rem", "70vh"), or null. */
export function parseHeight(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(px|em|rem|vh|svh|dvh|lvh)?\s*$/.exec(text);
  if (!m) return null;
  return `${m[1]}${m[2] || 'px'}`;
}

/**
 * Applies attribute values ({name: text}; absent attributes are left out) to an untrusted state
 * object. Returns {state, problems}; the result still goes through sanitizeState().
 * @param {object} base  untrusted partial state (from JSON) or the current state
 * @param {object} defaults  the default state (for context names when `base` has none)
 */
export function applyAttributes(base, attrs, defaults) {
  const problems = [];
  const out = { ...base };
  const options = { ...(base.options && typeof base.options === 'object' ? base.options : {}) };
  const has = (n) => attrs[n] !== undefined && attrs[n] !== null;
  if (has('example')) {
    const ex = attrs.example.trim();
    out.example = ex;
    const contexts = out.contexts && typeof out.contexts === 'object' ? out.contexts : defaults.contexts;
    if (Object.prototype.hasOwnProperty.call(contexts, ex)) out.focus = ex;
    if (ex === 'averaging' && !has('view')) out.view = ['averaging'];
  }
  if (has('view')) {
    out.view = attrs.view.split(/[\s,]+/).filter(Boolean);
  }
  if (has('tokens')) {
    // "stream bank mud" sets the focused context; "river: stream bank; finance: money bank" names them.
    const text = attrs.tokens;
    const contexts = { ...(out.contexts && typeof out.contexts === 'object' ? out.contexts : defaults.contexts) };
    if (text.includes(':')) {
      for (const part of text.split(';')) {
        if (!part.trim()) continue;
        const at = part.indexOf(':');
        const name = part.slice(0, at).trim();
        if (at < 0 || !name) { problems.push(`tokens: "${clip(part)}" should read "context: word word …"`); continue; }
        contexts[name] = part.slice(at + 1).split(/[\s,]+/).filter(Boolean);
      }
    } else {
      const target = typeof out.focus === 'string' ? out.focus : (defaults.focus || Object.keys(contexts)[0]);
      contexts[target] = text.split(/[\s,]+/).filter(Boolean);
    }
    out.contexts = contexts;
  }
  for (const name of ['causal', 'projections']) {
    if (has(name)) { const v = parseBool(name, attrs[name], problems); if (v !== undefined) options[name] = v; }
  }
  if (has('scale')) {
    const t = attrs.scale.trim().toLowerCase();
    if (t === '' || t === 'true' || t === 'scale') options.scale = true;
    else if (t === 'false') options.scale = false;
    else { const v = parseNumberAttr('scale', attrs.scale, problems); if (v !== undefined) options.scale = v; }
  }
  if (has('temperature')) { const v = parseNumberAttr('temperature', attrs.temperature, problems); if (v !== undefined) options.temperature = v; }
  if (has('heads')) { const v = parseNumberAttr('heads', attrs.heads, problems, { integer: true }); if (v !== undefined) options.heads = v; }
  if (has('step')) { const v = parseNumberAttr('step', attrs.step, problems, { integer: true }); if (v !== undefined) out.step = v; }
  if (has('theme')) out.theme = attrs.theme.trim();
  if (has('controls') && !CONTROLS.includes(attrs.controls.trim())) {
    problems.push(`controls="${clip(attrs.controls)}": expected one of ${CONTROLS.join(', ')}; using minimal`);
  }
  if (has('height') && !parseHeight(attrs.height)) {
    problems.push(`height="${clip(attrs.height)}": expected a length such as 480, 480px, 30rem or 70vh`);
  }
  if (Object.keys(options).length) out.options = options;
  return { state: out, problems };
}

/** Number of stepper positions for a state: T·(T + 2) for the focused context. */
function stepCount(state) {
  const tokens = state.contexts[state.focus] || Object.values(state.contexts)[0] || [];
  return loopSteps(tokens.length, state.options.causal).length;
}

/**
 * Makes the page's CSS fit a shadow root on someone else's page:
 * - `rem` is the host document's root font size (a blog's `html {font-size: 62.5%}` would
 *   shrink every rem length inside the element), so rem lengths become multiples of
 *   --ae-rem, which the element pins to 16px; media queries (where var() cannot go) keep rem;
 * - @font-face rules do nothing inside a shadow root, so KaTeX's are dropped (MathML is shown).
 */
export function shadowCSS(css) {
  const preludes = [];
  const protectedCss = css
    .replace(/@font-face\s*\{[^}]*\}/g, '')
    .replace(/@(media|container|supports)[^{]*\{/g, (m) => { preludes.push(m); return `\u0000${preludes.length - 1}\u0000`; });
  return protectedCss
    .replace(/(-?(?:\d+\.?\d*|\.\d+))rem\b/g, 'calc($1 * var(--ae-rem))')
    .replace(/\u0000(\d+)\u0000/g, (_, i) => preludes[Number(i)]);
}

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

export class AttentionExplorerElement extends HTMLElement {
  static get observedAttributes() { return ATTRIBUTES; }

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    const doc = this.ownerDocument;
    this._frame = doc.createElement('div');
    this._frame.className = 'ae-el-frame';
    this._notice = doc.createElement('div');
    this._notice.className = 'ae-el-notice';
    this._notice.setAttribute('role', 'alert');
    this._notice.hidden = true;
    this._loading = doc.createElement('div');
    this._loading.className = 'ae-el-loading';
    this._loading.setAttribute('role', 'status');
    this._loading.textContent = 'Loading the attention explorer…';
    this._bar = null;
    this._frame.append(this._notice, this._loading);
    shadow.append(this._frame);
    this._explorer = null;
    this._store = null;
    this._defaults = null;
    this._pending = [];
    this._started = false;
    this._resolveReady = null;
    this._rejectReady = null;
    this.ready = new Promise((resolve, reject) => { this._resolveReady = resolve; this._rejectReady = reject; });
    this.ready.catch(() => {});  // failures are shown in the notice; do not raise unhandled rejections
  }

  connectedCallback() {
    this._applyHeight();
    if (this._started) return;
    this._started = true;
    const doc = this.ownerDocument;
    // Children (the JSON script) are complete once the document is parsed.
    const parsed = doc.readyState === 'loading'
      ? new Promise((r) => doc.addEventListener('DOMContentLoaded', r, { once: true }))
      : Promise.resolve();
    Promise.all([sharedEngine(), sharedSheet(), parsed])
      .then(([engine, sheet]) => this._mount(engine, sheet))
      .catch((error) => {
        this._loading.remove();
        this._showProblems([`The attention explorer could not start: ${error.message}`]);
        this._rejectReady(error);
      });
  }

  attributeChangedCallback(name, oldValue, value) {
    if (name === 'height') this._applyHeight();
    if (!this._store || oldValue === value) return;
    if (name === 'controls') { this._remount(); return; }
    if (name === 'height') return;
    const text = value ?? defaultAttr(name);
    if (text === null) return;   // removing example/tokens keeps what is shown
    const current = this._store.get();
    const { state: untrusted, problems } = applyAttributes(current, { [name]: text }, this._defaults);
    const out = sanitizeState(untrusted, this._defaults);
    this._showProblems([...problems, ...out.problems]);
    this._store.set(out.state);
  }

  /** A copy of the current state (null until ready). */
  get state() {
    return this._store ? structuredClone(this._store.get()) : null;
  }

  set state(value) {
    this.setState(value, { replace: true });
  }

  /** The engine all elements share (a Promise). */
  get engine() {
    return sharedEngine();
  }

  get controls() {
    const c = (this.getAttribute('controls') || 'minimal').trim();
    return CONTROLS.includes(c) ? c : 'minimal';
  }

  /**
   * Merges `patch` (a partial state; `options` merged key by key) into the state, or replaces
   * it with {replace: true}. Returns the problems found (also shown in the notice); bad fields
   * keep their current values... or defaults when replacing. Before ready, the patch is queued
   * and applied once the element is ready (returns null).
   */
  setState(patch, { replace = false } = {}) {
    if (!this._store) { this._pending.push([patch, replace]); return null; }
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      const problems = [`setState: expected an object, got ${patch === null ? 'null' : Array.isArray(patch) ? 'an array' : typeof patch}`];
      this._showProblems(problems);
      return problems;
    }
    const current = this._store.get();
    const untrusted = replace ? patch : {
      ...current, ...patch,
      options: patch.options && typeof patch.options === 'object' ? { ...current.options, ...patch.options } : (patch.options ?? current.options),
    };
    // Fields a patch gets wrong fall back to the current state, not the seed defaults.
    const { state, problems } = sanitizeState(untrusted, replace ? this._defaults : current);
    this._showProblems(problems);
    this._store.set(state);
    return problems;
  }

  /** Moves the stepper by `delta` (default 1), clamped to its range; returns the new step. */
  step(delta = 1) {
    if (!this._store) return null;
    if (typeof delta !== 'number' || !Number.isFinite(delta)) {
      this._showProblems([`step(): expected a number of steps, got ${String(delta)}`]);
      return this._store.get().step;
    }
    const s = this._store.get();
    const next = Math.max(0, Math.min(stepCount(s), s.step + Math.trunc(delta)));
    if (next !== s.step) this._store.set({ ...s, step: next });
    return next;
  }

  // --- internals --------------------------------------------------------------------------

  _attrs() {
    const attrs = {};
    for (const name of ATTRIBUTES) if (this.hasAttribute(name)) attrs[name] = this.getAttribute(name);
    return attrs;
  }

  _initialState() {
    const problems = [];
    let base = {};
    const script = [...this.children].find((c) => c.localName === 'script' && (c.type || '').trim().toLowerCase() === 'application/json');
    if (script) {
      const text = script.textContent;
      if (text.length > 65536) {
        problems.push(`inline JSON: ${text.length} characters, more than the limit of 65536; using the defaults`);
      } else {
        try {
          const parsed = JSON.parse(text);
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
            problems.push('inline JSON: expected an object holding a state; using the defaults');
          } else {
            base = parsed;
          }
        } catch (error) {
          problems.push(`inline JSON: not valid JSON (${error.message}); using the defaults`);
        }
      }
    }
    const applied = applyAttributes(base, this._attrs(), this._defaults);
    const out = sanitizeState(applied.state, this._defaults);
    return { state: out.state, problems: [...problems, ...applied.problems, ...out.problems] };
  }

  _mount(engine, sheet) {
    this.shadowRoot.adoptedStyleSheets = [sheet];
    this._engine = engine;
    this._defaults = defaultState(engine.examples());
    const { state, problems } = this._initialState();
    this._store = createStore(state);
    this._store.subscribe((next, previous) => {
      this._syncBar(next);
      this.dispatchEvent(new CustomEvent('change', { detail: { state: structuredClone(next) } }));
      if (next.step !== previous.step) this.dispatchEvent(new CustomEvent('step', { detail: { step: next.step } }));
    });
    this._loading.remove();
    this._showProblems(problems);
    this._mountViews();
    for (const [patch, replace] of this._pending.splice(0)) this.setState(patch, { replace });
    this._explorer.rendered.then(() => this._resolveReady(this));
  }

  _mountViews() {
    const controls = this.controls;
    if (controls === 'minimal') {
      this._bar = this._buildBar();
      this._frame.append(this._bar);
    }
    const host = this.ownerDocument.createElement('div');
    host.className = 'ae-el-views';
    this._frame.append(host);
    this._explorer = mountExplorer(host, {
      store: this._store, engine: this._engine, defaults: this._defaults, chrome: controls === 'full',
    });
    this._explorer.container.classList.add('ae-embedded');
    // Full controls: every heatmap gets its export toolbar, as on the page.
    this._exports = controls === 'full' ? attachExportMenus(this._explorer.container) : null;
    this._syncBar(this._store.get());
  }

  _remount() {
    this._exports?.disconnect();
    this._explorer?.destroy();
    this._bar?.remove();
    this._bar = null;
    this._frame.querySelector('.ae-el-views')?.remove();
    this._mountViews();
  }

  _applyHeight() {
    const text = this.getAttribute('height');
    const height = text === null ? null : parseHeight(text);
    this._frame.style.maxHeight = height || '';
  }

  _showProblems(problems) {
    const doc = this.ownerDocument;
    if (!problems.length) {
      this._notice.hidden = true;
      this._notice.replaceChildren();
      return;
    }
    const head = doc.createElement('p');
    head.textContent = 'Some of this explorer\'s settings could not be used, so defaults are shown for them:';
    const items = problems.map((text) => {
      const p = doc.createElement('p');
      p.textContent = `• ${text}`;   // untrusted text: textContent only
      return p;
    });
    this._notice.replaceChildren(head, ...items);
    this._notice.hidden = false;
  }

  // controls="minimal": context, causal mask, temperature.
  _buildBar() {
    const doc = this.ownerDocument;
    const bar = doc.createElement('div');
    bar.className = 'ae-el-bar';
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Attention settings');
    const label = (text, control) => {
      const l = doc.createElement('label');
      const span = doc.createElement('span');
      span.textContent = text;
      l.append(span, control);
      return l;
    };
    const focus = doc.createElement('select');
    focus.addEventListener('change', () => this._store.set({ ...this._store.get(), focus: focus.value, step: 0, selected: null }));
    const causal = doc.createElement('input');
    causal.type = 'checkbox';
    causal.addEventListener('change', () => this.setState({ options: { causal: causal.checked } }));
    const temp = doc.createElement('input');
    temp.type = 'range';
    temp.min = '0.1';
    temp.max = '5';
    temp.step = '0.1';
    const out = doc.createElement('output');
    temp.addEventListener('input', () => this.setState({ options: { temperature: Number(temp.value) } }));
    const causalLabel = label('causal mask', causal);
    causalLabel.prepend(causal);
    bar.append(label('context', focus), causalLabel, label('temperature', temp), out);
    this._barParts = { focus, causal, temp, out };
    return bar;
  }

  _syncBar(state) {
    const dark = state.theme === 'dark' || (state.theme === 'auto' && this.ownerDocument.defaultView?.matchMedia?.('(prefers-color-scheme: dark)').matches);
    this._frame.dataset.theme = dark ? 'dark' : 'light';
    if (!this._bar) return;
    const { focus, causal, temp, out } = this._barParts;
    const names = Object.keys(state.contexts);
    if (focus.options.length !== names.length || names.some((n, i) => focus.options[i].value !== n)) {
      focus.replaceChildren(...names.map((n) => {
        const o = this.ownerDocument.createElement('option');
        o.value = n;
        o.textContent = n;   // untrusted
        return o;
      }));
    }
    focus.value = state.focus;
    causal.checked = state.options.causal;
    temp.value = String(state.options.temperature);
    out.textContent = Number(state.options.temperature).toFixed(1);
  }
}

function defaultAttr(name) {
  // A removed attribute returns to the default of what it controls.
  return { causal: 'false', projections: 'true', scale: 'true', temperature: '1', heads: '1', step: '0', theme: 'auto', view: 'all' }[name] ?? null;
}

if (!customElements.get('attention-explorer')) customElements.define('attention-explorer', AttentionExplorerElement);

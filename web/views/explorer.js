// mountExplorer: builds the whole explorer inside any root node (a page element or a shadow
// root's container) and keeps it in sync with one store. Decoupled from `document`: every
// element is created through root.ownerDocument, every query is scoped to the container.
import { createStore } from '../lib/store.js';
import { computeAll, averagingNested } from '../lib/compute.js';
import { createHeatmap } from '../ui/heatmap.js';
import { explainCell, modelFor, covers } from '../lib/explain.js';
import { h } from '../ui/dom.js';
import * as header from './header.js';
import * as contexts from './contexts.js';
import { SECTION_LOADERS, MODEL_FILES, makeLearnWorker, makeModelWorker } from './full-engine-sections.js';

// Sections in teaching order, one idea each: the bank contrast as the hook (seed 003), averaging —
// the dullest rule (002), naive scores X·Xᵀ and why queries and keys are needed, the plane of
// queries and keys, attention step by step with each knob at the step it changes (001), the
// weights as lines, what happens after attention in a whole transformer, why √dₖ, the loops
// (000), many heads and W_O (001), order and positions, the formula (004), then learning. The
// notebooks cell by cell come after, as a companion for a reader arriving from one of them; the
// editor and the engineers' panel last. `views` are the state.view names that show the section;
// `title` is its name in the table of contents and the overview strip's links.
// The first section's module is imported statically (it makes the first paint); the others
// load in parallel right after it, keeping the first paint's module graph small.
export const SECTIONS = [
  // The bar's context, mask and temperature act on the bank example: not drawn above figures
  // that have nothing of it (Learn, the real model, the notebooks, the √dₖ experiment).
  {
    load: () => import('./minimal-bar.js'),
    id: 'minimal-bar',
    views: [],
    controls: 'minimal',
    notFor: ['learn', 'model', 'gpt', 'next', 'notebook', 'scaling'],
  },
  { load: SECTION_LOADERS.overview, id: 'overview', views: [], controls: 'full' },
  { mod: contexts, id: 'contexts', views: ['contexts'], title: 'Two sentences, one word' },
  { load: () => import('./averaging.js'), id: 'averaging', views: ['averaging'], title: 'Averaging the past' },
  { load: () => import('./naive.js'), id: 'naive', views: ['naive', 'x'], title: 'Naive scores X·Xᵀ' },
  { load: () => import('./qkv.js'), id: 'qkv', views: ['qkv'], title: 'Queries, keys, values' },
  { load: SECTION_LOADERS.plane, id: 'plane', views: ['plane'], needs: 'pca', title: 'The plane' },
  {
    load: () => import('./pipeline.js'),
    id: 'pipeline',
    views: ['scores', 'scaled', 'masked', 'weights', 'output'],
    title: 'Step by step',
  },
  { load: () => import('./lines.js'), id: 'lines', views: ['lines'], title: 'Lines' },
  { load: SECTION_LOADERS.next, id: 'next', views: ['next'], needs: 'openModel', title: 'What happens next' },
  { load: () => import('./scaling.js'), id: 'scaling', views: ['scaling'], title: 'Why ÷√dₖ' },
  { load: () => import('./stepper.js'), id: 'loops', views: ['loops'], title: 'Loops' },
  { load: () => import('./heads.js'), id: 'heads', views: ['heads'], title: 'Many heads' },
  { load: () => import('./order.js'), id: 'order', views: ['order'], title: 'Order' },
  { load: () => import('./formula.js'), id: 'formula', views: ['formula'], title: 'Formula' },
  { load: SECTION_LOADERS.learn, id: 'learn', views: ['learn', 'model'], needs: 'createModel', title: 'Learn' },
  { load: SECTION_LOADERS.gpt, id: 'gpt', views: ['gpt'], needs: 'openModel', title: 'A real model' },
  {
    load: SECTION_LOADERS.notebook,
    id: 'notebook',
    views: ['notebook'],
    needs: 'torchGenerator',
    title: 'Notebooks',
  },
  { load: SECTION_LOADERS.editor, id: 'edit', views: [], controls: 'full', title: 'Edit' },
  { load: SECTION_LOADERS.engineers, id: 'engineers', views: [], controls: 'full', title: 'For engineers' },
];

/**
 * @param {Element|ShadowRoot} root  where to render
 * @param {{state?: object, store?: object, engine: object, controls?: 'full'|'minimal'|'none',
 *          chrome?: boolean, defaults?: object, onChange?: (state) => void,
 *          onFirstRender?: () => void, upgradeEngine?: () => Promise<object>,
 *          presentation?: {figure?: boolean, caption?: string}}} options
 *   controls: 'full' = the page's header, knobs and editor; 'minimal' = one bar of the toggles a
 *   reader most wants; 'none' = the views alone. `chrome: true/false` is 'full'/'none'.
 *   upgradeEngine: where the engine is a small build without some feature (the element's), a
 *   section that needs it (the plane needs PCA) asks for the whole engine once it is shown.
 *   presentation: figure = the figures alone (headings, prose, step numbers and context pickers
 *   hidden: CSS .ae-figure-only .ae-prose), caption = a line of text under them (the element's
 *   figure and caption attributes; not part of the state). setPresentation() changes it later.
 * @returns {{store, container: HTMLElement, flush(): void, rendered: Promise<void>,
 *            notify(message), showProblems(problems, intro), setPresentation(p), destroy(): void}}
 */
export function mountExplorer(root, options) {
  let engine = options.engine;
  const controls = options.controls ?? (options.chrome === false ? 'none' : 'full');
  const chrome = controls === 'full';
  if (!engine || typeof engine.attend !== 'function')
    throw new TypeError('mountExplorer: options.engine must be a loaded engine (loadEngine())');
  const store = options.store || createStore(options.state);
  const doc = root.ownerDocument || root;
  const win = doc.defaultView || globalThis;
  const defaults = options.defaults || store.get();

  const container = h(doc, 'div', { class: 'ae-root' + (chrome ? ' ae-chrome' : ''), part: 'explorer' });
  const notice = h(doc, 'div', { class: 'ae-notice', role: 'alert', hidden: true, part: 'notice' });
  const tooltip = h(doc, 'div', { class: 'ae-explain', role: 'status', 'aria-live': 'polite', hidden: true });
  const main = h(doc, 'div', { class: 'ae-main' });
  const caption = h(doc, 'p', { class: 'ae-figure-caption', part: 'caption', hidden: true });
  container.append(notice, main, caption, tooltip);
  root.append(container);

  // --- presentation: figure-only (no headings, prose or pickers around the figures) and a caption
  function setPresentation({ figure = false, caption: text = '' } = {}) {
    container.classList.toggle('ae-figure-only', Boolean(figure));
    caption.textContent = text || '';
    caption.hidden = !text;
  }
  setPresentation(options.presentation);

  let results = null;
  let lastGood = null;
  let computeKey = '';
  // What the notice shows: problems found in the state's source (a link, attributes), engine
  // errors, failed views, and the last edit that could not be applied (dismissable).
  const noticeMessages = { problems: [], engine: [], views: [], edit: null };

  // --- theme ----------------------------------------------------------------------------------
  const media = win.matchMedia ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  const applyTheme = () => {
    const t = store.get().theme;
    container.dataset.theme = t === 'dark' || (t !== 'light' && media?.matches) ? 'dark' : 'light';
  };
  media?.addEventListener?.('change', applyTheme);

  // --- notices --------------------------------------------------------------------------------
  function showNotice() {
    const lines = [
      ...noticeMessages.problems,
      ...noticeMessages.engine.map((m) => `The engine could not compute this: ${m}`),
      ...noticeMessages.views,
    ];
    if (noticeMessages.edit) lines.push(noticeMessages.edit);
    notice.hidden = lines.length === 0;
    notice.replaceChildren(...lines.map((l) => h(doc, 'p', {}, l)));
    if (noticeMessages.edit) {
      notice.append(
        h(
          doc,
          'button',
          {
            type: 'button',
            class: 'ae-btn',
            onclick: () => {
              noticeMessages.edit = null;
              showNotice();
            },
          },
          'Dismiss',
        ),
      );
    }
  }
  // An edit that could not be applied is said where it was made (the section the reader last
  // touched), not pinned at the top while the reader is elsewhere; with no such section, in the
  // explorer's notice.
  let lastSection = null;
  const touched = (e) => {
    lastSection = e.target.closest?.('section[data-section]') ?? lastSection;
  };
  for (const type of ['pointerdown', 'keydown', 'focusin']) container.addEventListener(type, touched, true);
  function sectionNotice(section) {
    let box = section.querySelector(':scope > .ae-section-notice');
    if (!box) {
      box = h(doc, 'div', { class: 'ae-notice ae-section-notice', role: 'alert', hidden: true });
      const heading = section.querySelector(':scope > h2');
      if (heading) heading.after(box);
      else section.prepend(box);
    }
    return box;
  }
  function clearEditNotices() {
    for (const box of container.querySelectorAll('.ae-section-notice')) box.hidden = true;
    if (noticeMessages.edit) {
      noticeMessages.edit = null;
      showNotice();
    }
  }
  function notify(message) {
    if (lastSection?.isConnected && !lastSection.hidden) {
      const box = sectionNotice(lastSection);
      box.replaceChildren(
        h(doc, 'p', {}, message),
        h(doc, 'button', { type: 'button', class: 'ae-btn', onclick: () => (box.hidden = true) }, 'Dismiss'),
      );
      box.hidden = false;
      return;
    }
    noticeMessages.edit = message;
    showNotice();
  }
  /** Problems found in where the state came from: `intro` then one line each; [] clears them. */
  function showProblems(problems, intro) {
    noticeMessages.problems = problems.length ? [intro, ...problems.map((p) => `• ${p}`)] : [];
    showNotice();
  }

  // --- explanation tooltip ------------------------------------------------------------------
  let explained = null;
  function clearSources() {
    for (const el of container.querySelectorAll('.ae-src, .ae-sel')) el.classList.remove('ae-src', 'ae-sel');
  }
  function explain(matrix, context, i, j, td) {
    clearSources();
    if (i === null || i === undefined || !results) {
      tooltip.hidden = true;
      explained = null;
      td?.removeAttribute('aria-describedby');
      return;
    }
    const state = store.get();
    const entry = results.contexts[context];
    if (!entry?.trace) return;
    // Views that redraw a pipeline matrix under another id map back to it here.
    let head = state.options.head;
    let m = matrix,
      col = j;
    const perHead = /^head-(\d+)-(weights|out)$/.exec(matrix);
    if (perHead) {
      head = Number(perHead[1]);
      m = perHead[2];
    } else if (/^heads-[qkv]$/.test(matrix)) {
      m = matrix.slice(-1);
      const n = entry.trace[m][0][0].length;
      head = Math.floor(j / n);
      col = j % n;
    } else if (matrix === 'loop-scores') m = 'masked';
    else if (matrix === 'loop-weights') m = state.options.training && state.options.dropout > 0 ? 'dropped' : 'weights';
    else if (matrix === 'loop-output') m = 'out';
    const model = modelFor(state, entry, Math.min(head, entry.trace.q.length - 1));
    model.avg = results.averaging ? averagingNested(results.averaging) : null;
    const info = (matrix === 'vocab'
      ? {
          title: `embedding of “${Object.keys(state.vocab)[i]}”, dimension ${j}`,
          lines: ['edit it here or in X; every sentence using the word follows'],
          result: td.dataset.value && Number(td.dataset.value).toFixed(3),
          sources: [],
        }
      : explainCell(model, m, i, col)) || {
      title: `${matrix}[${i}][${j}]`,
      lines: [],
      result: td.textContent,
      sources: [],
    };
    explained = { matrix, context, i, j };
    td.classList.add('ae-sel');
    for (const s of info.sources) {
      for (const table of container.querySelectorAll(`table[data-matrix="${s.matrix}"]`)) {
        if (table.dataset.context && table.dataset.context !== context) continue;
        for (const cell of table.querySelectorAll('td.ae-cell')) {
          if (covers(s, Number(cell.dataset.row), Number(cell.dataset.col))) cell.classList.add('ae-src');
        }
      }
    }
    tooltip.replaceChildren(
      h(doc, 'p', { class: 'ae-explain-title' }, info.title),
      ...info.lines.map((l) => h(doc, 'p', {}, l)),
      h(doc, 'p', { class: 'ae-explain-result' }, `= ${info.result}`),
    );
    tooltip.id ||= `ae-explain-${Math.random().toString(36).slice(2, 8)}`;
    td.setAttribute('aria-describedby', tooltip.id);
    tooltip.hidden = false;
    // Place below the cell, inside the container.
    const box = container.getBoundingClientRect();
    const r = td.getBoundingClientRect();
    const width = Math.min(360, box.width - 8);
    tooltip.style.maxWidth = `${width}px`;
    const left = Math.max(4, Math.min(r.left - box.left, box.width - tooltip.offsetWidth - 4));
    tooltip.style.left = `${left}px`;
    tooltip.style.top = `${r.bottom - box.top + 6}px`;
  }

  // Clicking (or Enter on) a cell of a matrix with one row per token picks that row for the
  // formula view. Editable matrices keep click-to-edit.
  const ROW_PER_TOKEN = new Set([
    'x',
    'q',
    'k',
    'v',
    'scores',
    'scaled',
    'masked',
    'weights',
    'dropped',
    'out',
    'merged',
    'output',
    'linear',
  ]);
  function pickRow(e) {
    if (e.type === 'keydown' && e.key !== 'Enter') return;
    const td = e.target.closest?.('td.ae-cell');
    const table = td?.closest('table[data-matrix]');
    if (!table || table.classList.contains('ae-editable') || !ROW_PER_TOKEN.has(table.dataset.matrix)) return;
    const state = store.get();
    if (table.dataset.context && table.dataset.context !== state.focus) return;
    const row = Number(td.dataset.row),
      col = Number(td.dataset.col);
    if (state.selected?.row === row && state.selected?.matrix === table.dataset.matrix && state.selected?.col === col)
      return;
    store.set({ selected: { matrix: table.dataset.matrix, row, col } });
  }
  container.addEventListener('click', pickRow);
  container.addEventListener('keydown', pickRow);
  // Escape dismisses the explanation without moving focus (WCAG 1.4.13).
  container.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !tooltip.hidden) {
      tooltip.hidden = true;
      explained = null;
      clearSources();
    }
  });

  // --- helpers handed to the views ---------------------------------------------------------
  const app = {
    doc,
    win,
    store,
    chrome,
    controls,
    defaults,
    container,
    get engine() {
      return engine;
    },
    get state() {
      return store.get();
    },
    get results() {
      return results;
    },
    /** True while a slider or a scrubbed number is being dragged (views may defer slow work). */
    get dragging() {
      return dragging;
    },
    /** A heatmap wired to the explanation tooltip. */
    heatmap(opts) {
      const hm = createHeatmap(doc, {
        ...opts,
        onExplain: (i, j, td) => explain(hm.table.dataset.matrix, hm.table.dataset.context, i, j, td),
      });
      return hm;
    },
    /** Applies a pure transition (state → {state}|{error}); errors become a visible notice. */
    edit(transition) {
      const out = transition(store.get());
      if (out.error) {
        notify(out.error);
        return false;
      }
      clearEditNotices();
      store.set(out.state);
      return true;
    },
    notify,
    /** A new training worker for the Learn section, or null where the entry point has none. */
    learnWorker: options.learnWorker === undefined ? makeLearnWorker : options.learnWorker,
    /** A new worker for the real model, or null; and where its files are served. */
    modelWorker: options.modelWorker === undefined ? makeModelWorker : options.modelWorker,
    modelFiles: MODEL_FILES,
    setOptions(patch) {
      store.set((s) => ({ ...s, options: { ...s.options, ...patch } }));
    },
    /** Scrolls to a section's heading and moves the keyboard focus there (TOC, overview strip). */
    goTo(id) {
      const target = container.querySelector(`[data-section="${id}"]`);
      const heading = target?.querySelector('h2') || target;
      if (!heading) return;
      for (const details of target.querySelectorAll('details[data-opens-on-jump]')) details.open = true;
      heading.tabIndex = -1;
      heading.scrollIntoView({ block: 'start' });
      heading.focus({ preventScroll: true });
    },
  };

  // --- sections -----------------------------------------------------------------------------
  const mounted = [];
  // The sections this mount shows, in page order (the table of contents and the overview strip).
  app.sections = SECTIONS.filter((s) => s.title && (!s.controls || s.controls === controls)).map((s) => ({
    id: s.id,
    title: s.title,
  }));
  if (chrome) mounted.push({ section: null, inst: header.render(main, app), views: null });
  for (const s of SECTIONS) {
    if (s.controls && s.controls !== controls) continue;
    const section = h(doc, 'section', {
      class: `ae-section ae-sec-${s.id}`,
      'data-section': s.id,
      part: `section section-${s.id}`,
    });
    main.append(section);
    // A section's DOM is built the first time it is drawn (after the first paint for most).
    mounted.push({
      section,
      inst: null,
      mod: s.mod,
      load: s.load,
      views: s.views,
      id: s.id,
      controls: s.controls,
      notFor: s.notFor,
      needs: s.needs,
    });
  }

  // While the learner drags (a slider, or a number being scrubbed), only sections near the
  // viewport are redrawn each frame; the others catch up when the pointer is released. The
  // engine still recomputes everything every frame, so whatever is on screen is current.
  // Programmatic changes (setState, the URL) always redraw everything.
  let dragging = false;
  // While dragging, values change every frame: transitions would only lag behind the pointer and
  // cost style work each frame, so they are off (.ae-dragging) until the pointer is released.
  const onPointerDown = (e) => {
    if (e.target.closest?.('input[type="range"], table.ae-editable td.ae-cell')) {
      dragging = true;
      container.classList.add('ae-dragging');
    }
  };
  const onPointerUp = () => {
    if (!dragging) return;
    dragging = false;
    container.classList.remove('ae-dragging');
    burst = false;
    schedule();
  };
  container.addEventListener('pointerdown', onPointerDown);
  win.addEventListener('pointerup', onPointerUp, true);
  win.addEventListener('pointercancel', onPointerUp, true);
  let burst = false;
  const io = win.IntersectionObserver
    ? new win.IntersectionObserver(
        (entries) => {
          let wake = false;
          for (const e of entries) {
            const m = mounted.find((x) => x.section === e.target);
            if (!m) continue;
            m.onscreen = e.isIntersecting;
            if (m.onscreen && m.stale) wake = true;
          }
          if (wake) {
            burst = false;
            schedule();
          }
        },
        { rootMargin: '400px 0px' },
      )
    : null;
  for (const m of mounted) if (m.section && io) io.observe(m.section);

  function visible(m, view) {
    if (!m.views) return true;
    // mounted only for its controls mode; shown unless every view shown is one it does not act on
    if (m.controls) return !m.notFor || view.includes('all') || view.some((v) => !m.notFor.includes(v));
    return view.includes('all') || m.views.some((v) => view.includes(v));
  }

  // --- render loop (coalesced to one per animation frame) --------------------------------
  let frame = 0;
  const timings = { compute: 0, views: {}, total: 0 }; // of the last render, in ms
  let resolveRendered;
  const rendered = new Promise((r) => {
    resolveRendered = r;
  });
  // The first render draws the first sections (the two contexts) and lets the browser paint
  // them; the rest follows on the next frame. Later renders draw everything.
  let firstRender = true;
  // Starts loading a section's module; the render after it arrives draws the section.
  function load(m) {
    if (m.mod || m.loading || !m.load) return;
    m.loading = m
      .load()
      .then(
        (mod) => {
          m.mod = mod;
        },
        (err) => {
          m.failed = `its module could not be loaded (${err.message})`;
        },
      )
      .then(() => {
        m.loading = null;
        schedule();
      });
  }
  // Swaps in the whole engine for a section that needs more than the small one has; the same
  // code computes the same numbers, so everything is recomputed with it and nothing changes.
  let upgrading = null;
  function upgrade(m) {
    if (upgrading) return;
    if (!options.upgradeEngine) {
      m.failed = `it needs the engine's ${m.needs}, which this build does not have`;
      m.needs = null;
      return;
    }
    upgrading = options
      .upgradeEngine()
      .then(
        (full) => {
          engine = full;
          computeKey = '';
          // An engine that still lacks what a section needs would be asked again every frame.
          for (const x of mounted)
            if (x.needs && !engine.features?.[x.needs]) {
              x.failed = `it needs the engine's ${x.needs}, which the whole engine loaded for it does not have`;
              x.needs = null;
            }
        },
        (err) => {
          for (const x of mounted)
            if (x.needs && !engine.features?.[x.needs]) {
              x.failed = `it needs the whole engine, which could not be loaded (${err.message})`;
              x.needs = null;
            }
        },
      )
      .then(() => {
        upgrading = null;
        schedule();
      });
  }
  let prefetching = false;
  function prefetch(m) {
    if (prefetching || upgrading) return;
    prefetching = true;
    const idle = win.requestIdleCallback
      ? (f) => win.requestIdleCallback(f, { timeout: 1500 })
      : (f) => win.setTimeout(f, 300);
    idle(() => upgrade(m));
  }
  function renderNow() {
    frame = 0;
    const partial = firstRender;
    firstRender = false;
    const state = store.get();
    applyTheme();
    const key = JSON.stringify([state.vocab, state.contexts, state.weights, state.options, state.focus]);
    const now = () => win.performance?.now() ?? Date.now();
    const t0 = now();
    timings.views = {};
    const viewErrors = [];
    if (key !== computeKey) {
      computeKey = key;
      const r = computeAll(engine, state);
      timings.compute = now() - t0;
      // Keep the last good result of a context the engine rejected (its tokens, vectors and
      // trace together, so labels match numbers): the page never blanks.
      for (const [name, entry] of Object.entries(r.contexts)) {
        if (!entry.trace && lastGood?.contexts[name]?.trace) {
          r.contexts[name] = { ...lastGood.contexts[name], stale: true, error: entry.error };
        }
      }
      results = r;
      if (!r.errors.length) lastGood = r;
      noticeMessages.engine = r.errors;
      showNotice();
    }
    let drawn = 0;
    let waiting = false;
    const onlyNear = burst && !partial;
    for (const m of mounted) {
      const show = visible(m, state.view);
      if (partial && show && m.section && drawn >= 1) {
        pendingRest = true;
        continue;
      }
      if (show && m.section) drawn += 1;
      if (show && onlyNear && m.section && m.onscreen === false) {
        m.stale = true;
        m.section.hidden = false;
        continue;
      }
      if (show) m.stale = false;
      if (m.section) m.section.hidden = !show;
      if (show && m.needs && !engine.features?.[m.needs]) {
        // The whole engine is fetched once the section that needs it comes near the screen, or
        // before that in idle time after the first paint (the figure will need it).
        m.section.hidden = false;
        if (m.onscreen) {
          upgrade(m);
          waiting = true;
        } else {
          m.stale = true;
          prefetch(m);
        }
        continue;
      }
      if (show && !m.inst && !m.mod && m.load && !m.failed) {
        load(m);
        waiting = true;
        continue;
      }
      if (show) {
        const t1 = now();
        try {
          if (m.failed) throw new Error(m.failed);
          if (!m.inst && m.mod) m.inst = m.mod.render(m.section, app);
          m.inst?.update?.(app);
        } catch (err) {
          // One broken view must not blank the others; say which one failed.
          viewErrors.push(`the ${m.id || 'header'} view failed: ${err.message}`);
        }
        timings.views[m.id || 'header'] = now() - t1;
      }
    }
    timings.total = now() - t0;
    if (viewErrors.length || noticeMessages.views.length) {
      noticeMessages.views = viewErrors;
      showNotice();
    }
    if (explained) {
      const t = container.querySelector(
        `table[data-matrix="${explained.matrix}"]${explained.context ? `[data-context="${explained.context}"]` : ''} td[data-row="${explained.i}"][data-col="${explained.j}"]`,
      );
      if (t) explain(explained.matrix, explained.context, explained.i, explained.j, t);
    }
    options.onChange?.(state);
    if (partial) {
      options.onFirstRender?.();
      for (const m of mounted) if (visible(m, state.view)) load(m);
    }
    if (pendingRest && partial) {
      // The rest after the browser has painted the first sections (rAF, then a task).
      (win.requestAnimationFrame || ((f) => setTimeout(f, 16)))(() =>
        win.setTimeout(() => {
          if (!frame) renderNow();
        }, 0),
      );
      return;
    }
    pendingRest = false;
    if (waiting) return; // a section's module is still loading; its arrival renders again
    // Resolved once everything is drawn, including what views load on first use .
    Promise.all(mounted.map((m) => m.inst?.ready)).then(resolveRendered, resolveRendered);
  }
  let pendingRest = false;
  const onChange = () => {
    burst = dragging;
    schedule();
  };
  const schedule = () => {
    if (frame) return;
    frame = (win.requestAnimationFrame || ((f) => setTimeout(f, 16)))(renderNow);
  };
  const unsubscribe = store.subscribe(onChange);
  renderNow();

  return {
    store,
    container,
    rendered,
    notify,
    showProblems,
    setPresentation,
    timings,
    /** Runs a pending render now (tests use it to time one update). */
    flush() {
      if (frame) {
        (win.cancelAnimationFrame || clearTimeout)(frame);
        renderNow();
      }
    },
    destroy() {
      unsubscribe();
      io?.disconnect();
      win.removeEventListener('pointerup', onPointerUp, true);
      win.removeEventListener('pointercancel', onPointerUp, true);
      if (frame) (win.cancelAnimationFrame || clearTimeout)(frame);
      media?.removeEventListener?.('change', applyTheme);
      for (const m of mounted) m.inst?.destroy?.();
      container.remove();
    },
  };
}

// mountExplorer: builds the whole explorer inside any root node (a page element or a shadow
// root's container) and keeps it in sync with one store. It only composes the shell's parts:
//
//   views/sections.js   the registry: which sections, in which order, what each needs
//   section-loader.js   a section's module and the whole engine: when they are fetched
//   scheduler.js        what redraws when: one render per frame, near the viewport while dragging
//   render.js           one render: the results, then each section
//   explain-tooltip.js  "explain this number", asking the figure what a cell is
//   row-picker.js       a click on a token's row picks it for the formula
//   notices.js          what went wrong, where
//   theme.js            light or dark, and the palette's colours
//   map-links.js        every section's heading links to the map of the whole transformer
//   app-context.js      `app`, what the views are handed
//
// Decoupled from `document`: every element is created through root.ownerDocument, every query is
// scoped to the container.
import { createStore } from '../lib/store.js';
import { createResults } from '../lib/compute.js';
import { h } from '../ui/dom.js';
import * as header from '../views/header.js';
import { SECTIONS } from '../views/sections.js';
import { FILES_BESIDE } from '../views/full-engine-sections.js';
import { createAppContext } from './app-context.js';
import { createExplainTooltip } from './explain-tooltip.js';
import { createMapLinks } from './map-links.js';
import { createNotices } from './notices.js';
import { createRender } from './render.js';
import { attachRowPicker } from './row-picker.js';
import { createScheduler } from './scheduler.js';
import { createSectionLoader } from './section-loader.js';
import { createTheme } from './theme.js';

/**
 * @param {Element|ShadowRoot} root  where to render
 * @param {{state?: object, store?: object, engine: object, controls?: 'full'|'minimal'|'none',
 *          chrome?: boolean, defaults?: object, onChange?: (state) => void,
 *          onFirstRender?: () => void, upgradeEngine?: () => Promise<object>, lazy?: boolean,
 *          embedded?: boolean,
 *          presentation?: {figure?: boolean, caption?: string}}} options
 *   controls: 'full' = the page's header, knobs and editor; 'minimal' = one bar of the toggles a
 *   reader most wants; 'none' = the views alone. `chrome: true/false` is 'full'/'none'.
 *   upgradeEngine: where the engine is a small build without some feature (the element's), a
 *   section that needs it (the plane needs PCA) asks for the whole engine once it is shown.
 *   lazy: a figure in someone else's page (the element): its sections' files and the whole engine
 *   are fetched only as they near the viewport (shell/section-loader.js FETCH_POLICY).
 *   embedded: the explorer is a figure in someone else's page (the element, the iframe): its text
 *   speaks to that page's reader (app.embedded), not to the page's author.
 *   presentation: figure = the figures alone (headings, prose, step numbers and context pickers
 *   hidden: CSS .ae-figure-only .ae-prose), caption = a line of text under them (the element's
 *   figure and caption attributes; not part of the state). setPresentation() changes it later.
 * @returns {{store, container: HTMLElement, flush(): void, rendered: Promise<void>,
 *            notify(message), showProblems(problems, intro), setPresentation(p), timings, destroy(): void}}
 */
export function mountExplorer(root, options) {
  const controls = options.controls ?? (options.chrome === false ? 'none' : 'full');
  if (!options.engine || typeof options.engine.attend !== 'function')
    throw new TypeError('mountExplorer: options.engine must be a loaded engine (loadEngine())');
  const store = options.store || createStore(options.state);
  const doc = root.ownerDocument || root;
  const win = doc.defaultView || globalThis;

  const container = h(doc, 'div', { class: 'ae-root' + (controls === 'full' ? ' ae-chrome' : ''), part: 'explorer' });
  const notice = h(doc, 'div', { class: 'ae-notice', role: 'alert', hidden: true, part: 'notice' });
  const tooltipBox = h(doc, 'div', { class: 'ae-explain', role: 'status', 'aria-live': 'polite', hidden: true });
  const main = h(doc, 'div', { class: 'ae-main' });
  const caption = h(doc, 'p', { class: 'ae-figure-caption', part: 'caption', hidden: true });
  container.append(notice, main, caption, tooltipBox);
  root.append(container);
  // Presentation: figure-only (no headings, prose or pickers around the figures) and a caption.
  function setPresentation({ figure = false, caption: text = '' } = {}) {
    container.classList.toggle('ae-figure-only', Boolean(figure));
    caption.textContent = text || '';
    caption.hidden = !text;
  }
  setPresentation(options.presentation);

  const results = createResults();
  const figures = new WeakMap(); // table → heatmap
  const figureOf = (table) => figures.get(table);
  const notices = createNotices(doc, container, notice);
  const theme = createTheme(win, container, () => store.get().theme);
  const tooltip = createExplainTooltip({
    doc,
    container,
    tooltip: tooltipBox,
    figureOf,
    state: () => store.get(),
    results: () => results.current,
  });
  const rowPicker = attachRowPicker(container, store, figureOf);
  const ctx = { doc, win, store, container, controls, notices, results, figures, explain: tooltip.explain };
  ctx.defaults = options.defaults || store.get();
  ctx.embedded = Boolean(options.embedded);
  ctx.learnWorker = options.learnWorker;
  ctx.modelWorker = options.modelWorker;
  ctx.loader = createSectionLoader({
    engine: options.engine,
    upgradeEngine: options.upgradeEngine,
    win,
    lazy: Boolean(options.lazy),
    beside: FILES_BESIDE,
    onEngine: () => results.invalidate(),
    onSettled: () => ctx.scheduler.schedule(),
  });
  const app = createAppContext(ctx);

  // The header first (drawn at once), then a section element per registry entry of this mode.
  const parts = [];
  if (controls === 'full') parts.push(part({ id: 'header', mod: header, views: null }, null, header.render(main, app)));
  for (const entry of SECTIONS) {
    if (entry.controls && entry.controls !== controls) continue;
    const element = h(doc, 'section', {
      class: `ae-section ae-sec-${entry.id}`,
      'data-section': entry.id,
      part: `section section-${entry.id}`,
    });
    main.append(element);
    parts.push(part(entry, element, null));
  }
  // A section part: where it is drawn, how far its loading got, its view once built, and the
  // scheduler's two facts about it (near the viewport; left stale by a render that skipped it).
  function part(entry, element, inst) {
    return { entry, element, slot: ctx.loader.slot(entry), inst, near: undefined, stale: false };
  }

  const timings = { compute: 0, views: {}, total: 0 }; // of the last render, in ms
  const mapLinks = createMapLinks(app);
  const hooks = { onChange: options.onChange, onFirstRender: options.onFirstRender, onBuilt: mapLinks.add };
  const render = createRender({
    parts,
    app,
    loader: ctx.loader,
    results,
    notices,
    tooltip,
    theme,
    win,
    timings,
    ...hooks,
  });
  ctx.scheduler = createScheduler({ win, container, render });
  ctx.scheduler.watch(parts);
  const unsubscribe = store.subscribe(() => ctx.scheduler.stateChanged());
  ctx.scheduler.start();

  return {
    store,
    container,
    rendered: ctx.scheduler.rendered,
    notify: notices.notify,
    showProblems: notices.showProblems,
    setPresentation,
    timings,
    /** Runs a pending render now (tests use it to time one update). */
    flush: () => ctx.scheduler.flush(),
    destroy() {
      unsubscribe();
      ctx.scheduler.destroy();
      theme.destroy();
      tooltip.destroy();
      rowPicker.destroy();
      notices.destroy();
      for (const p of parts) p.inst?.destroy?.();
      container.remove();
    },
  };
}

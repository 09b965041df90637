// What the explorer hands every view: `app`, read at each update (app.state, app.results) and
// used to act (app.edit, app.setOptions, app.goTo) and to build figures that the explanation
// tooltip and row picking understand (app.heatmap).
import { createHeatmap } from '../ui/heatmap.js';
import { SECTIONS } from '../views/sections.js';
import { sectionShown } from './scheduler.js';
import { MODEL_FILES, makeLearnWorker, makeModelWorker } from '../views/full-engine-sections.js';
import { sharedWorker } from '../tools/worker-channels.js';

// Every real-model figure of a page on one worker (one engine, one copy of each model).
const modelChannel = sharedWorker(makeModelWorker);

/**
 * @param {{doc, win, store, container, controls, defaults, loader, results, scheduler, notices,
 *          explain(figure, i, j, td), figures: WeakMap, learnWorker?, modelWorker?, embedded?}} ctx
 *   figures: table → heatmap, for every figure made through app.heatmap
 */
export function createAppContext(ctx) {
  const { doc, store, container, controls, notices } = ctx;
  const shared = new Map();
  return {
    doc,
    win: ctx.win,
    store,
    chrome: controls === 'full',
    controls,
    /** A figure in someone else's page (the element, the iframe), not the explorer's own page. */
    embedded: Boolean(ctx.embedded),
    /**
     * Whether this explorer shows section `id` now: text that points to another section says so
     * only where it is there (ui/dom.js withSection for text built once; this for text redrawn).
     */
    shows(id) {
      const entry = SECTIONS.find((s) => s.id === id);
      return (
        Boolean(entry) && (!entry.controls || entry.controls === controls) && sectionShown(entry, store.get().view)
      );
    },
    defaults: ctx.defaults,
    container,
    /** The sections this mount shows, in page order (the table of contents and the overview strip). */
    sections: SECTIONS.filter((s) => s.title && (!s.controls || s.controls === controls)).map(({ id, title }) => ({
      id,
      title,
    })),
    get engine() {
      return ctx.loader.engine;
    },
    get state() {
      return store.get();
    },
    get results() {
      return ctx.results.current;
    },
    /** True while a slider or a scrubbed number is being dragged (views may defer slow work). */
    get dragging() {
      return ctx.scheduler.dragging;
    },
    /** A heatmap (ui/heatmap.js) whose cells the tooltip explains and row picking reads. */
    heatmap(opts) {
      const hm = createHeatmap(doc, { ...opts, onExplain: (i, j, td) => ctx.explain(hm, i, j, td) });
      ctx.figures.set(hm.table, hm);
      return hm;
    },
    /** Applies a pure transition (state → {state}|{error}); errors become a visible notice. */
    edit(transition) {
      const out = transition(store.get());
      if (out.error) {
        notices.notify(out.error);
        return false;
      }
      notices.clearEdits();
      store.set(out.state);
      return true;
    },
    notify: notices.notify,
    /** A new training worker for the Learn section, or null where the entry point has none. */
    learnWorker: ctx.learnWorker === undefined ? makeLearnWorker : ctx.learnWorker,
    /** The real model's worker (a channel on the page's one), or null; and where its files are served. */
    modelWorker: ctx.modelWorker === undefined ? modelChannel : ctx.modelWorker,
    modelFiles: MODEL_FILES,
    /**
     * One `name` per explorer, made on first use by make() (the real model, the thread setting);
     * without make(), the one made already or undefined (the map reads the real model's shapes
     * without opening it).
     */
    shared(name, make) {
      if (!shared.has(name) && make) shared.set(name, make());
      return shared.get(name);
    },
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
}

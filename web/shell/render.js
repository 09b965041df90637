// One render of the explorer: the theme, the results of the state (computed again only when its
// numbers changed: lib/compute.js), then each section as the scheduler's plan and its loader
// allow — a section's first drawing builds its DOM (render(section, app)), every drawing after
// that updates it — and one view that fails never blanks the others: the notice says which.
// A section whose module exports compute(engine, state, results) gets its own numbers from it,
// computed here when the results change (not at every drawing) and handed to update(app, own):
// views draw, the engine is called from here.
import { planFrame } from './scheduler.js';
import { missingFilesText } from './missing-files.js';

/**
 * @param {{parts: object[], app: object, loader: object, results: object, notices: object,
 *          tooltip: object, theme: object, win: Window, timings: object,
 *          onChange?(state), onFirstRender?(), onBuilt?(id, element)}} ctx
 *   parts: {entry, element, slot, inst, near, stale, own, ownVersion} per section in page order (the
 *   header first); own: what its module's compute gave for results version ownVersion
 *   onBuilt: a section's DOM was just built (its heading gets the map's link there)
 * @returns {(frame: {partial: boolean, onlyNear: boolean}) => {later, waiting, instances}}
 */
export function createRender({ parts, app, loader, results, notices, tooltip, theme, win, timings, ...hooks }) {
  const now = () => win.performance?.now() ?? Date.now();

  function draw(part, errors) {
    const t = now();
    try {
      // Files missing beside the element's are named once for the whole figure (below).
      if (part.slot.state === 'failed' && loader.lacksFiles(part.slot)) return;
      if (part.slot.state === 'failed') throw new Error(part.slot.failure);
      if (!part.inst) {
        part.inst = part.slot.module.render(part.element, app);
        hooks.onBuilt?.(part.entry.id, part.element);
      }
      part.inst?.update?.(app, ownNumbers(part));
    } catch (err) {
      errors.push(`the ${part.entry.id} view failed: ${err.message}`);
    }
    timings.views[part.entry.id] = now() - t;
  }

  // The section's own numbers (its module's compute), once per version of the results: a section
  // drawn again for another reason (the view, the theme, coming on screen) reuses them. The
  // section's first drawing computes them even when they were computed before it existed.
  function ownNumbers(part) {
    const compute = part.slot.module.compute;
    if (!compute || !results.current) return undefined;
    if (part.ownVersion !== results.version) {
      // Thrown: the view's notice says why, and it is tried again at the next drawing.
      part.own = compute(loader.engine, app.state, results.current);
      part.ownVersion = results.version;
    }
    return part.own;
  }

  // Text that points to another section (ui/dom.js withSection) shows only where it is shown; done
  // again when the sections shown change or a section was drawn for the first time.
  let referred = '';
  function referTo(shownIds) {
    const key = [...shownIds].join() + '|' + parts.filter((p) => p.inst).length;
    if (key === referred) return;
    referred = key;
    for (const el of app.container.querySelectorAll('[data-with], [data-without]'))
      el.hidden = el.dataset.with ? !shownIds.has(el.dataset.with) : shownIds.has(el.dataset.without);
  }

  return function render({ partial, onlyNear }) {
    const state = app.state;
    theme.apply();
    const t0 = now();
    timings.views = {};
    if (results.update(loader.engine, state)) {
      timings.compute = now() - t0;
      notices.setEngineErrors(results.current.errors);
    }
    let later = false;
    let waiting = false;
    const errors = [];
    const plan = planFrame(parts, { view: state.view, partial, onlyNear });
    parts.forEach((part, n) => {
      const action = plan[n];
      if (part.element) part.element.hidden = action === 'hide';
      if (action === 'later') later = true;
      if (action === 'offscreen') part.stale = true;
      if (action !== 'draw') return;
      part.stale = false;
      const can = loader.prepare(part.slot, { near: part.near === true });
      if (can === 'waiting') waiting = true;
      else if (can === 'deferred') part.stale = true;
      else draw(part, errors);
      // A figure whose code is still to come holds a figure's room (a bar of controls does not).
      const pending = !part.inst && !part.entry.controls && (can === 'waiting' || can === 'deferred');
      part.element?.classList.toggle('ae-section-pending', pending);
    });
    timings.total = now() - t0;
    // A fetch failed: every file the figure needs is checked at once, and those missing named once.
    const shown = parts.filter((p, n) => p.element && plan[n] !== 'hide');
    if (shown.some((p) => p.slot.state === 'failed'))
      loader.diagnose({ sections: shown.map((p) => p.entry.id), controls: app.controls });
    if (loader.missing?.length) errors.unshift(missingFilesText(loader.missing));
    notices.setViewErrors(errors);
    referTo(new Set(shown.map((p) => p.entry.id)));
    tooltip.refresh();
    hooks.onChange?.(state);
    if (partial) {
      hooks.onFirstRender?.();
      plan.forEach(
        (action, n) => action !== 'hide' && loader.prefetch(parts[n].slot, { near: parts[n].near === true }),
      );
    }
    return { later, waiting, instances: parts.map((p) => p.inst) };
  };
}

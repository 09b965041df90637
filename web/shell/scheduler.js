// What redraws when. State changes are coalesced into one render per animation frame. The first
// render draws the first section and lets the browser paint it; the rest follows a frame later.
// While the reader drags (a slider, or a number being scrubbed) only the sections near the
// viewport redraw each frame (values change every frame; the others catch up when the pointer is
// released, or when they come near the viewport). Programmatic changes (setState, the URL) always
// redraw everything. Sections are near when within NEAR_MARGIN of the viewport (an
// IntersectionObserver), which the section loader's fetch policy reads too.

export const NEAR_MARGIN = '400px 0px';

/** Whether a registry entry (views/sections.js) is shown for state.view; the header always is. */
export function sectionShown(entry, view) {
  if (!entry.views) return true;
  // mounted only for its controls mode; shown unless every view shown is one it does not act on
  if (entry.controls) return !entry.notFor || view.includes('all') || view.some((v) => !entry.notFor.includes(v));
  return view.includes('all') || entry.views.some((v) => view.includes(v));
}

/**
 * What one render does with each part ({entry, element, near}), in page order:
 *   'hide'      not shown for this view
 *   'draw'      draw it now (if its loader says it can)
 *   'later'     the first render drew the first section only: next frame
 *   'offscreen' a drag is on and it is away from the viewport: drawn when the drag ends
 * @param {{view: string[], partial: boolean, onlyNear: boolean}} frame
 */
export function planFrame(parts, { view, partial, onlyNear }) {
  let drawn = 0;
  return parts.map((part) => {
    if (!sectionShown(part.entry, view)) return 'hide';
    if (!part.element) return 'draw'; // the header: not a section
    if (partial && drawn >= 1) return 'later';
    drawn += 1;
    return onlyNear && part.near === false ? 'offscreen' : 'draw';
  });
}

/**
 * @param {{win: Window, container: HTMLElement,
 *          render({partial, onlyNear}): {later: boolean, waiting: boolean, instances: object[]}}} options
 *   render draws one frame and says whether it left sections for the next one (later), is
 *   waiting for a fetch (whose end schedules another render), and the views drawn so far
 * @returns {{start(), schedule(), stateChanged(), flush(), watch(parts), dragging: boolean,
 *            rendered: Promise, destroy()}}
 */
export function createScheduler({ win, container, render }) {
  const raf = win.requestAnimationFrame?.bind(win) || ((f) => win.setTimeout(f, 16));
  const cancel = win.cancelAnimationFrame?.bind(win) || ((id) => win.clearTimeout(id));
  let frame = 0;
  let first = true;
  let dragging = false;
  let burst = false; // the pending render comes from a change made while dragging

  let resolveRendered;
  const rendered = new Promise((r) => {
    resolveRendered = r;
  });

  function run() {
    frame = 0;
    const partial = first;
    first = false;
    const { later, waiting, instances } = render({ partial, onlyNear: burst && !partial });
    // The rest once the browser has painted the first section (a frame, then a task).
    if (later && partial) raf(() => win.setTimeout(() => frame || run(), 0));
    else if (!waiting) Promise.all(instances.map((inst) => inst?.ready)).then(resolveRendered, resolveRendered);
  }
  function schedule() {
    if (!frame) frame = raf(run);
  }

  // While dragging, transitions would only lag behind the pointer and cost style work each
  // frame: they are off (.ae-dragging) until the pointer is released.
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

  // Near the viewport or not, per section; a section left stale redraws when it comes near.
  const watched = new Map(); // element → part
  const io = win.IntersectionObserver
    ? new win.IntersectionObserver(
        (entries) => {
          let wake = false;
          for (const e of entries) {
            const part = watched.get(e.target);
            if (!part) continue;
            part.near = e.isIntersecting;
            if (part.near && part.stale) wake = true;
          }
          if (wake) {
            burst = false;
            schedule();
          }
        },
        { rootMargin: NEAR_MARGIN },
      )
    : null;

  return {
    /** The first render, now (it draws the first section; the rest follows the first paint). */
    start: run,
    schedule,
    /** The store changed: render next frame (near the viewport only, while dragging). */
    stateChanged() {
      burst = dragging;
      schedule();
    },
    /** Runs a pending render now (tests use it to time one update). */
    flush() {
      if (!frame) return;
      cancel(frame);
      run();
    },
    /** Tracks which parts are near the viewport (part.near), waking stale ones (part.stale). */
    watch(parts) {
      for (const part of parts) {
        if (!part.element || !io) continue;
        watched.set(part.element, part);
        io.observe(part.element);
      }
    },
    /** True while a slider or a scrubbed number is being dragged (views may defer slow work). */
    get dragging() {
      return dragging;
    },
    /** Resolved once everything shown is drawn, including what views load on first use (`ready`). */
    rendered,
    destroy() {
      io?.disconnect();
      container.removeEventListener('pointerdown', onPointerDown);
      win.removeEventListener('pointerup', onPointerUp, true);
      win.removeEventListener('pointercancel', onPointerUp, true);
      if (frame) cancel(frame);
    },
  };
}

// Where the reader is: the section that crosses a line a fifth of the way down the viewport (an
// IntersectionObserver), one per explorer, read by the sticky "you are here" bar and the map.
// The map itself and the bars are never "where the reader is": while the map is on screen, the
// section the reader came from stays current, so the map shows where that section sits.

const IGNORED = new Set(['map', 'overview', 'minimal-bar']);

/**
 * @param {Window} win
 * @param {HTMLElement} container  the explorer's root (its section[data-section] elements)
 * @param {string[]} order  the section ids in page order
 * @returns {{current: string|null, watch(), subscribe(f): () => void, stop()}}
 *   watch(): observe the sections present now (call after sections are added)
 */
export function createReadingPosition(win, container, order) {
  // Before the reader scrolls: the first section (the header fills the top of the screen).
  let current = order.find((id) => !IGNORED.has(id)) ?? null;
  const listeners = new Set();
  const onscreen = new Map();
  const watched = new Set();
  const io = win.IntersectionObserver
    ? new win.IntersectionObserver(
        (entries) => {
          for (const e of entries) onscreen.set(e.target.dataset.section, e.isIntersecting);
          const first = order.find((id) => !IGNORED.has(id) && onscreen.get(id));
          if (!first || first === current) return;
          current = first;
          listeners.forEach((f) => f(current));
        },
        { rootMargin: '-20% 0px -70% 0px' },
      )
    : null;
  return {
    get current() {
      return current;
    },
    watch() {
      if (!io) return;
      for (const el of container.querySelectorAll('section[data-section]')) {
        if (watched.has(el)) continue;
        watched.add(el);
        io.observe(el);
      }
    },
    subscribe(f) {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    stop: () => io?.disconnect(),
  };
}

/** The explorer's one reading position (made on first use). */
export function readingPositionOf(app) {
  return app.shared('reading-position', () =>
    createReadingPosition(
      app.win,
      app.container,
      app.sections.map((s) => s.id),
    ),
  );
}

// Work a figure starts only once the reader gets near it (a model to open, a run to train), so a
// page that never scrolls there — or a post with figures the reader has not reached — does none.

/**
 * Calls `start` once, when `el` comes within `margin` of the viewport (at once where the browser
 * has no IntersectionObserver).
 * @returns {{stop()}}  stop: never start (the figure is gone)
 */
export function whenNear(win, el, start, { margin = '0px' } = {}) {
  if (!win.IntersectionObserver) {
    start();
    return { stop() {} };
  }
  const io = new win.IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      start();
    },
    { rootMargin: margin },
  );
  io.observe(el);
  return { stop: () => io.disconnect() };
}

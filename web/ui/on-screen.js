// Work a figure starts only once the reader gets near it (a model to open, a run to train), so a
// page that never scrolls there — or a post with figures the reader has not reached — does none.

/**
 * Calls `start` once, when `el` comes within `margin` of the viewport (at once where the browser
 * has no IntersectionObserver).
 * @returns {{started: boolean, stop()}}  stop: never start (the figure is gone)
 */
export function whenNear(win, el, start, { margin = '0px' } = {}) {
  const near = {
    started: false,
    stop() {},
  };
  const go = () => {
    near.started = true;
    start();
  };
  if (!win.IntersectionObserver) {
    go();
    return near;
  }
  const io = new win.IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      go();
    },
    { rootMargin: margin },
  );
  io.observe(el);
  near.stop = () => io.disconnect();
  return near;
}

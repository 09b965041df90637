// What the browser benchmarks share (bench/browser.mjs, bench/threads_browser.mjs): the
// statistics of a list of intervals, their text, and the in-page measure of the Learn section
// while it trains.

/** n, mean, p95 and max of intervals (ms). */
export const stats = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return {
    n: xs.length,
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
    p95: s[Math.floor(s.length * 0.95)],
    max: s[s.length - 1],
  };
};

/** "mean / p95 / max" of stats(), in ms. */
export const fmt = (s) => `${s.mean.toFixed(2)} / ${s.p95.toFixed(2)} / ${s.max.toFixed(2)}`;

/**
 * Runs in the page (page.evaluate) while the Learn section trains: the interval between
 * animation frames over 3 s, and the steps per second trained meanwhile (from the status line).
 * Returns {frame: ms[], stepsPerSecond, mode, threads}.
 */
export const FRAMES_WHILE_TRAINING = async () => {
  const status = document.querySelector('section[data-section="learn"] .ae-learn-status');
  const frame = [];
  const step0 = Number(status.dataset.step);
  const t0 = performance.now();
  let last = t0;
  while (performance.now() - t0 < 3000) {
    await new Promise((r) => requestAnimationFrame(() => r()));
    const t = performance.now();
    frame.push(t - last);
    last = t;
  }
  return {
    frame,
    stepsPerSecond: ((Number(status.dataset.step) - step0) * 1000) / (performance.now() - t0),
    mode: status.dataset.mode,
    threads: Number(status.dataset.threads),
  };
};

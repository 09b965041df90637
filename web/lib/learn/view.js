// What the Learn section derives from a run to draw it: labels, when to evaluate, which head to
// open on, how a long run's charts are thinned, and the speeds a reader can pick. Pure;
// unit-tested in tests/js/lib/learn/view.test.mjs.

/** Speeds of the speed control: steps per second (Infinity = as fast as it goes). */
export const SPEEDS = Object.freeze([
  { value: Infinity, label: 'full speed' },
  { value: 20, label: '20 steps/s' },
  { value: 4, label: '4 steps/s' },
  { value: 1, label: 'slow motion: 1 step/s' },
]);

/** Held-out evaluations per run: often enough for a curve with ~60 points and markers. */
export const EVALUATIONS_PER_RUN = 60;

/** The held-out evaluation interval (in steps) for a run that trains to step `until`. */
export function evalInterval(until) {
  if (!(until > 0) || !Number.isFinite(until)) return 25;
  return Math.max(1, Math.round(until / EVALUATIONS_PER_RUN));
}

/** "position:token" labels for a sequence (the rows and columns of the pictures). */
export function positionLabels(tokens, vocab) {
  return tokens.map((t, n) => `${n}:${vocab?.[t] ?? t}`);
}

/**
 * The head of layer 1 whose attention from "bank" to the word that says which bank is largest
 * (averaged over the two sentences): the bank task opens on it.
 * @param {{contexts: {[name]: {onContext: number[]}}}} bank  the session's bank probe
 * @returns {number}
 */
export function bestBankHead(bank) {
  const names = Object.keys(bank.contexts);
  const H = bank.contexts[names[0]].onContext.length;
  let best = 0,
    bestScore = -Infinity;
  for (let h = 0; h < H; h++) {
    const score = names.reduce((s, n) => s + bank.contexts[n].onContext[h], 0) / names.length;
    if (score > bestScore) {
      best = h;
      bestScore = score;
    }
  }
  return best;
}

/** Points kept per line of a long run's charts: beyond it, every other point of the older half goes. */
export const MAX_CHART_POINTS = 1500;

/** Thins a chart's [step, value] points in place, keeping the recent half whole (see MAX_CHART_POINTS). */
export function thinPoints(points) {
  if (points.length <= MAX_CHART_POINTS) return;
  const half = points.length >> 1;
  const kept = points.slice(0, half).filter((_, n) => n % 2 === 0);
  points.splice(0, points.length, ...kept, ...points.slice(half));
}

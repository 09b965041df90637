// What the Learn section derives from a run to draw it: labels, when to evaluate, which head to
// open on, how a long run's charts are thinned, the paces a reader can pick, and the sentence
// that says what the bank probe shows. Pure; unit-tested in tests/js/lib/learn/view.test.mjs.
import { fmt } from '../format.js';

// The pace choices' check lives with the state it guards (learn-state.js), which the element's
// own file carries; this file is the Learn section's.
export { SPEED_MAX, speedProblem } from './learn-state.js';

/**
 * The fixed speeds of the pace control: steps per second (Infinity = as fast as it goes). The
 * control's first choice, and the default, is "watch" (paceOf): the task's own pace until its
 * pattern has formed.
 */
export const SPEEDS = Object.freeze([
  { value: Infinity, label: 'fast' },
  { value: 4, label: '4 steps/s' },
  { value: 1, label: '1 step/s' },
]);

/**
 * A pace choice ('watch', 'fast' or steps per second) for a task → {stepsPerSecond, untilFormed}:
 * watch is the task's pace (lib/learn/tasks.js `watch`) until its pattern has formed, then fast.
 */
export function paceOf(speed, task) {
  if (speed === 'fast') return { stepsPerSecond: Infinity, untilFormed: false };
  if (typeof speed === 'number' && speed > 0) return { stepsPerSecond: speed, untilFormed: false };
  return { stepsPerSecond: task?.watch?.stepsPerSecond ?? Infinity, untilFormed: true };
}

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

// A head "looks at" the deciding word when it gives it at least this many times chance.
const LOOKS = 2;

/**
 * What the bank probe shows, in one or two sentences that follow its numbers in every state:
 * which head of layer 1 looks back from "bank" at each probe sentence's deciding word, against
 * chance (an even spread over the tokens "bank" can see), and the same over the training corpus.
 * @param {{contexts: {river, finance}, corpus: {onContext, chance, sentences}|null}} bank  the session's probe
 * @param {string[]} vocab
 */
export function bankClaim(bank, vocab) {
  const contexts = [bank.contexts.river, bank.contexts.finance].map((c) => {
    const head = c.onContext.indexOf(Math.max(...c.onContext));
    return {
      word: `“${vocab[c.tokens[c.decider]]}”`,
      head,
      value: c.onContext[head],
      looks: c.onContext[head] >= LOOKS * c.chance,
    };
  });
  const { chance, bank: at } = bank.contexts.river;
  const two = (x) => fmt(x, 2);
  const even = `an even spread over the ${at + 1} tokens “bank” can see (itself and the ${at} before it) would give each ${two(chance)}`;
  const [a, b] = contexts;
  let text;
  if (!a.looks && !b.looks)
    text = `No head looks back at the deciding word yet: the most “bank” gives ${a.word} is ${two(a.value)} (head ${a.head + 1}), ${b.word} ${two(b.value)} (head ${b.head + 1}); ${even}.`;
  else if (a.looks && b.looks && a.head === b.head)
    text = `Head ${a.head + 1} looks back from “bank” at the word that decides its sense: ${two(a.value)} of its attention on ${a.word}, ${two(b.value)} on ${b.word}; ${even}.`;
  else if (a.looks && b.looks)
    text = `Head ${a.head + 1} looks back from “bank” at ${a.word} (${two(a.value)}), head ${b.head + 1} at ${b.word} (${two(b.value)}): each head has learnt one sense's words; ${even}.`;
  else {
    const [yes, no] = a.looks ? [a, b] : [b, a];
    text = `Head ${yes.head + 1} looks back from “bank” at ${yes.word} (${two(yes.value)}), but no head at ${no.word} yet (at most ${two(no.value)}); ${even}.`;
  }
  const c = bank.corpus;
  if (c) {
    const head = c.onContext.indexOf(Math.max(...c.onContext));
    text += ` Over the ${c.sentences} training sentences with a deciding word before “bank”, head ${head + 1} gives that word ${two(c.onContext[head])} on average (chance ${two(c.chance)}).`;
  }
  return text;
}

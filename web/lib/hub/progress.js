// A download's progress as a reader reads it: bytes, percent, speed over the last seconds, time
// left, and one line of text. Pure; tests/js/lib/hub/progress.test.mjs.
//
// Sizes and durations are formatted by lib/format.js (formatBytes, formatSeconds), re-exported
// here for the hub's users.
import { formatBytes, formatSeconds } from '../format.js';

export { formatBytes, formatSeconds };

const STRINGS = {
  of: (a, b) => `${a} of ${b}`,
  unknownTotal: (a) => `${a} so far`,
  speed: (s) => `${s}/s`,
  left: (t) => `${t} left`,
  waiting: 'waiting for the server…',
};

/**
 * Speed over a sliding window: add(bytes, time) after each chunk; rate() is bytes per second
 * over the last `windowMs` (null until two samples span at least `minSpanMs`).
 */
export function speedMeter({ windowMs = 3000, minSpanMs = 200 } = {}) {
  let samples = []; // [time, cumulative bytes]
  let total = 0;
  return {
    add(bytes, time) {
      total += bytes;
      samples.push([time, total]);
      const cut = time - windowMs;
      let drop = 0;
      while (drop < samples.length - 2 && samples[drop + 1][0] <= cut) drop++;
      if (drop) samples = samples.slice(drop);
    },
    /** A pause (a retry's wait) is not slowness: forget the window. */
    reset() {
      samples = [];
    },
    rate() {
      if (samples.length < 2) return null;
      const [t0, b0] = samples[0];
      const [t1, b1] = samples[samples.length - 1];
      return t1 - t0 >= minSpanMs ? ((b1 - b0) * 1000) / (t1 - t0) : null;
    },
  };
}

/** {bytes, total, bytesPerSecond} → percent (0–100, or null), seconds left (or null). */
export function progressNumbers({ bytes, total, bytesPerSecond }) {
  const known = Number.isFinite(total) && total > 0;
  return {
    percent: known ? Math.min(100, (100 * bytes) / total) : null,
    secondsLeft: known && bytesPerSecond > 0 ? Math.max(0, total - bytes) / bytesPerSecond : null,
  };
}

/** One line for a progress bar's label: "123 MB of 548 MB (22%), 12.3 MB/s, 35 s left". */
export function describeProgress({ bytes, total, bytesPerSecond }) {
  const { percent, secondsLeft } = progressNumbers({ bytes, total, bytesPerSecond });
  const amount =
    percent === null
      ? STRINGS.unknownTotal(formatBytes(bytes))
      : `${STRINGS.of(formatBytes(bytes), formatBytes(total))} (${Math.floor(percent)}%)`;
  const parts = [amount];
  if (bytesPerSecond > 0) parts.push(STRINGS.speed(formatBytes(bytesPerSecond)));
  else if (bytes === 0) parts.push(STRINGS.waiting);
  if (secondsLeft !== null) parts.push(STRINGS.left(formatSeconds(secondsLeft)));
  return parts.join(', ');
}

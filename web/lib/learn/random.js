// A small seeded random source for the Learn section's data (tasks, batches, splits): the same
// seed gives the same numbers in every browser and in Node, so a shared link retrains to the
// same weights. splitmix32-style mixing of a 32-bit counter; not PyTorch's generator (the model's
// own initialisation and dropout use the engine's). Pure.

/** A generator: next() → a float in [0, 1); int(n) → an integer in [0, n); normal() → N(0, 1). */
export function seededRandom(seed) {
  let state = (Number(seed) >>> 0) ^ 0x9e3779b9;
  const next32 = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  return {
    next: () => next32() / 4294967296,
    /** A standard normal draw (Box–Muller over two uniforms in (0, 1]). */
    normal() {
      const u = (next32() + 1) / 4294967296;
      const v = next32() / 4294967296;
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    int: (n) => Math.floor((next32() / 4294967296) * n),
    /** A uniformly shuffled copy of `items`. */
    shuffle(items) {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor((next32() / 4294967296) * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}

/**
 * mulberry32: the seeded 32-bit stream the tests, benchmarks, fuzzers and examples draw their
 * inputs from (one home for it; Learn's own data uses seededRandom above). uint32() → an integer
 * in [0, 2^32); the function itself → a float in [0, 1). Pure.
 */
export function mulberry32(seed) {
  let a = Number(seed) >>> 0;
  const uint32 = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const next = () => uint32() / 4294967296;
  next.uint32 = uint32;
  return next;
}

// The one small store that holds the explorer's state. Views read it and redraw on change.
// State objects are treated as immutable: set() replaces, never mutates.

/**
 * @param {object} initial
 * @returns {{get(): object, set(patch: object|((s: object) => object)): void,
 *            subscribe(fn: (state: object, previous: object) => void): () => void}}
 */
export function createStore(initial) {
  let state = initial;
  const listeners = new Set();
  return {
    get: () => state,
    set(patch) {
      const previous = state;
      const next = typeof patch === 'function' ? patch(state) : { ...state, ...patch };
      if (next === previous || next == null) return;
      state = next;
      for (const fn of [...listeners]) fn(state, previous);
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

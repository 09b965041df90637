// The layer × head knock-out picture, filled block by block: a small state machine the view
// subscribes to. Each block is one request to the model host (tools/model-host.js's sweep: every
// head of that block knocked out in turn), so the worker answers between blocks, the picture
// gains a row per answer, and cancel() stops before the next block. A new start() overtakes the
// one running (its late answers are dropped). Pure (no DOM); unit-tested in
// tests/js/lib/real/sweep-run.test.mjs with a fake host.
//
//   idle ──start(args)──► running (done of L blocks) ──► finished
//                                 ├──cancel()──► cancelled (the rows so far stay)
//                                 └──► failed (the reason said; the rows so far stay)

import { sweepEffects } from './interpret.js';

/**
 * @param {{call(op, ...args): Promise, onChange(state): void}} deps
 *   call: the host's call ('sweep', ids, {layer, position, token, mode, reference});
 *   onChange: the state after every block and every change of phase
 */
export function createSweepRun(deps) {
  return new SweepRun(deps);
}

class SweepRun {
  #deps;
  #version = 0;
  #state = { phase: 'idle', done: 0, L: 0, H: 0, rows: new Map(), logProb: NaN, key: null, message: null };

  constructor(deps) {
    this.#deps = deps;
  }

  /** {phase, done, L, H, logProb, effect (L·H, NaN where not measured), key, message} */
  get state() {
    const s = this.#state;
    return { ...s, effect: sweepEffects(s.rows, s.L, s.H, s.logProb) };
  }

  /**
   * Sweeps every block of an L × H model for one prediction; `key` names what is swept (the view
   * restarts only when it changes). Resolves when it finished, was cancelled or overtaken.
   */
  async start({ ids, L, H, position, token, mode = 'zero', reference, key = null }) {
    const mine = ++this.#version;
    this.#state = { phase: 'running', done: 0, L, H, rows: new Map(), logProb: NaN, key, message: null };
    this.#changed();
    for (let layer = 0; layer < L; layer++) {
      let answer;
      try {
        answer = await this.#deps.call('sweep', ids, { layer, position, token, mode, reference });
      } catch (error) {
        if (mine !== this.#version) return;
        this.#state = { ...this.#state, phase: 'failed', message: error.message };
        return this.#changed();
      }
      if (mine !== this.#version || this.#state.phase !== 'running') return; // overtaken or cancelled
      this.#state.rows.set(layer, answer.row);
      this.#state = { ...this.#state, done: layer + 1, logProb: answer.logProb };
      if (layer + 1 === L) this.#state.phase = 'finished';
      this.#changed();
    }
  }

  /** Forgets every row (another model is open): idle, as new; a sweep under way stops. */
  reset() {
    ++this.#version;
    this.#state = { phase: 'idle', done: 0, L: 0, H: 0, rows: new Map(), logProb: NaN, key: null, message: null };
  }

  /** Stops before the next block; the rows measured so far stay. */
  cancel() {
    if (this.#state.phase !== 'running') return;
    this.#state = { ...this.#state, phase: 'cancelled' };
    this.#changed();
  }

  #changed() {
    this.#deps.onChange(this.state);
  }
}

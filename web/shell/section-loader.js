// A section's way to its first drawing, and the one policy of when its fetches start.
//
// Each section (an entry of views/sections.js) has a slot that moves through:
//
//   idle ──fetch its module──► loading ──► ready           (draw it)
//     │                                └─► failed          (its module could not be loaded)
//     └─ needs an engine feature the engine lacks ──► upgrading ──► idle   (the whole engine is in)
//                                                               └─► failed (it could not load,
//                                                                           or lacks the feature too)
//
// The whole engine is fetched once for every section that needs it, and swapped in: the same
// code computes the same numbers, so the explorer recomputes everything with it and nothing
// changes on screen. When a fetch fails, every file the explorer's figures need beside the
// element's is checked at once (shell/missing-files.js), so one notice names all that are missing.
import { filesOf, findMissing } from './missing-files.js';

/**
 * When a shown section's module and the whole engine it needs are fetched: 'now', 'idle' (when
 * the browser is idle) or 'later' (not yet: the section is asked again when it comes near the
 * viewport). `near`: the section is within the scheduler's margin of the viewport (NEAR_MARGIN);
 * `lazy`: the explorer is a figure in someone else's page (the element), whose files beside it
 * are fetched only as the figure nears the viewport (issue 33): a post with many figures fetches
 * nothing for the figures its reader has not reached. The page and the iframe (one bundle that
 * carries every section and the whole engine) import their sections at once.
 */
export const FETCH_POLICY = Object.freeze({
  module: ({ near, lazy }) => (near || !lazy ? 'now' : 'later'),
  engine: ({ near, lazy }) => (near ? 'now' : lazy ? 'later' : 'idle'),
});

/** A section's failure: drawn instead of it; it needs nothing more. */
const fail = (slot, why) => Object.assign(slot, { state: 'failed', failure: why, needs: null });

/** The slot of a registry entry: {id, needs, load, state, module, failure}. */
function slotOf(entry) {
  return {
    id: entry.id,
    needs: entry.needs ?? null,
    load: entry.load ?? null,
    state: entry.mod ? 'ready' : 'idle',
    module: entry.mod ?? null,
    failure: null,
  };
}

/** loading ──► ready | failed; onSettled() once it ends. */
function fetchModule(slot, onSettled) {
  slot.state = 'loading';
  slot
    .load()
    .then(
      (mod) => {
        slot.module = mod;
        // A section that failed meanwhile (the whole engine it needs could not load) stays failed.
        if (slot.state === 'loading') slot.state = 'ready';
      },
      (err) => fail(slot, `its module could not be loaded (${err.message})`),
    )
    .then(onSettled);
}

/**
 * The engine, and its upgrade to the whole engine: fetched once (now, or when the browser is idle)
 * for every slot that `lacks` a feature; the slots that still lack it afterwards fail.
 */
function engineUpgrade({ engine, upgradeEngine, win, slots, onEngine, onSettled }) {
  const lacks = (slot) => Boolean(slot.needs) && !engine.features?.[slot.needs];
  const failLacking = (why) => slots.filter(lacks).forEach((slot) => fail(slot, why(slot)));
  let upgrading = null;
  let idleUpgrade = false;
  function now() {
    if (upgrading) return;
    if (!upgradeEngine) {
      failLacking((s) => `it needs the engine's ${s.needs}, which this build does not have`);
      onSettled();
      return;
    }
    upgrading = upgradeEngine()
      .then(
        (full) => {
          engine = full;
          onEngine(full);
          // An engine that still lacks what a section needs would be asked again every frame.
          failLacking((s) => `it needs the engine's ${s.needs}, which the whole engine loaded for it does not have`);
        },
        (err) => failLacking(() => `it needs the whole engine, which could not be loaded (${err.message})`),
      )
      .then(() => {
        upgrading = null;
        onSettled();
      });
  }
  return {
    get engine() {
      return engine;
    },
    lacks,
    now,
    whenIdle() {
      if (idleUpgrade || upgrading) return;
      idleUpgrade = true;
      const idle = win.requestIdleCallback
        ? (f) => win.requestIdleCallback(f, { timeout: 1500 })
        : (f) => win.setTimeout(f, 300);
      idle(now);
    },
  };
}

/** The check, once, of the files the shown sections need beside the element's (after a failed fetch). */
function besideFilesCheck({ beside, win, onSettled }) {
  let missing = null; // the files found missing (null: not checked)
  let diagnosing = false;
  return {
    get missing() {
      return missing;
    },
    diagnose(shown) {
      if (diagnosing || !beside || !win.fetch) return;
      diagnosing = true;
      findMissing(filesOf(beside.table, shown), beside.url, win.fetch.bind(win)).then((found) => {
        missing = found;
        onSettled();
      });
    },
    lacksFiles(slot) {
      const files = beside?.table.sections[slot.id] ?? [];
      return Boolean(missing?.length) && files.some((f) => missing.includes(f));
    },
  };
}

/**
 * @param {{engine: object, upgradeEngine?: () => Promise<object>, win: Window, lazy?: boolean,
 *          onEngine(engine): void, onSettled(): void, policy?: typeof FETCH_POLICY,
 *          beside?: {table, url(file): string}|null}} options
 *   onEngine: the whole engine was swapped in; onSettled: a fetch ended (render again);
 *   lazy: the policy's (a figure in someone else's page); beside: the files each section needs
 *   beside the element's (views/full-engine-sections.js FILES_BESIDE; null: none)
 * @returns {{engine, missing, slot(entry), prepare(slot, {near}), prefetch(slot, {near}),
 *            diagnose(shown), lacksFiles(slot)}}
 */
export function createSectionLoader({
  engine,
  upgradeEngine,
  win,
  lazy = false,
  onEngine,
  onSettled,
  policy = FETCH_POLICY,
  beside = null,
}) {
  const slots = [];
  const upgrade = engineUpgrade({ engine, upgradeEngine, win, slots, onEngine, onSettled });
  const files = besideFilesCheck({ beside, win, onSettled });
  return {
    get engine() {
      return upgrade.engine;
    },
    /** The files beside the element's that a check found missing (null: none checked yet). */
    get missing() {
      return files.missing;
    },
    /**
     * A fetch failed: checks, once, every file the shown sections ({sections: ids, controls})
     * need beside the element's, then renders again.
     */
    diagnose(shown) {
      files.diagnose(shown);
    },
    /** Whether a section's failure comes from files the check found missing. */
    lacksFiles(slot) {
      return files.lacksFiles(slot);
    },
    /** The slot of a registry entry: {id, needs, load, state, module, failure}. */
    slot(entry) {
      const slot = slotOf(entry);
      slots.push(slot);
      return slot;
    },
    /**
     * A shown section asks whether it can draw: 'ready', 'failed' (draw its failure), 'waiting'
     * (a fetch it needs is running: the render after it ends draws it) or 'deferred' (its fetch
     * starts later: idle time, or when it comes near the viewport).
     */
    prepare(slot, { near }) {
      if (upgrade.lacks(slot)) {
        const when = policy.engine({ near, lazy });
        if (when === 'now') upgrade.now();
        else if (when === 'idle') upgrade.whenIdle();
        return when === 'now' ? 'waiting' : 'deferred';
      }
      if (slot.state === 'ready' || slot.state === 'failed') return slot.state;
      if (slot.state === 'loading') return 'waiting';
      if (policy.module({ near, lazy }) !== 'now') return 'deferred';
      fetchModule(slot, onSettled);
      return 'waiting';
    },
    /**
     * After the first paint: the module of a shown section the first render left for later, if
     * the policy fetches it now (one that needs the whole engine too: its module does not wait
     * for the engine).
     */
    prefetch(slot, { near }) {
      if (slot.state === 'idle' && slot.load && policy.module({ near, lazy }) === 'now') fetchModule(slot, onSettled);
    },
  };
}

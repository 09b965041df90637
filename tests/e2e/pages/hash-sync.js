// Fixture for tests/e2e/share.test.mjs: a store (the seed default state) synced with the URL
// hash by attachHashSync(); problems go to a visible notice as text.
import { loadEngine } from '/web/engine/engine.js';
import { defaultState } from '/web/lib/state.js';
import { createStore } from '/web/lib/store.js';
import { attachHashSync } from '/web/tools/hash-sync.js';

async function start() {
  const engine = await loadEngine();
  const defaults = defaultState(engine.examples());
  const store = createStore(structuredClone(defaults));
  const notice = document.getElementById('notice');
  const problems = [];
  attachHashSync(store, {
    defaults,
    debounceMs: 50,
    burstMs: 1000,
    onProblems(list) {
      problems.push(...list);
      notice.hidden = list.length === 0;
      notice.textContent = list.join('; ');
    },
  });
  return { store, defaults, problems };
}
window.__sync = start();

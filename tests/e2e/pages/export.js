// Fixture for tests/e2e/export.test.mjs: the explorer (no chrome) with attachExportMenus() on
// all its heatmaps and the whole-state PyTorch script export — the hooks the page uses.
import { loadEngine } from '/web/engine/engine.js';
import { defaultState } from '/web/lib/state.js';
import { createStore } from '/web/lib/store.js';
import { computeAll } from '/web/lib/compute.js';
import { mountExplorer } from '/web/shell/explorer.js';
import { attachExportMenus, attachScriptExport } from '/web/tools/export-menu.js';

async function start() {
  const engine = await loadEngine();
  const defaults = defaultState(engine.examples());
  const store = createStore({ ...defaults, view: ['scores', 'masked', 'weights', 'output'] });
  const root = document.getElementById('app');
  const explorer = mountExplorer(root, { store, engine, defaults, chrome: false });
  attachExportMenus(explorer.container);
  attachScriptExport(explorer.container, {
    getState: () => store.get(),
    getResults: () => computeAll(engine, store.get(), { averaging: false, focusExtras: false }),
  });
  await explorer.rendered;
  return { engine, store, explorer, defaults };
}
window.__page = start();

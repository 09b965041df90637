// web/shell/section-loader.js: a section's way to its first drawing (module, whole engine) and
// the fetch policy, with a fake engine and a window whose idle callbacks run when the test says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSectionLoader, FETCH_POLICY } from '../../../web/shell/section-loader.js';

const small = { features: { pca: false } };
const whole = { features: { pca: true } };
const tick = () => new Promise((r) => setImmediate(r));
// The loader's mechanics (a module fetched while its section is away, the whole engine in idle
// time) as the page's explorer has them (lazy: false); a figure's (lazy: true) further down.

function setup({ upgradeEngine, policy, lazy = false } = {}) {
  const idle = [];
  const log = { settled: 0, engines: [] };
  const loader = createSectionLoader({
    engine: small,
    upgradeEngine,
    policy,
    lazy,
    win: { setTimeout: (f) => idle.push(f) },
    onEngine: (e) => log.engines.push(e),
    onSettled: () => (log.settled += 1),
  });
  return { loader, idle, log };
}

test('SectionLoader_AModuleLoadsOnceThenTheSectionIsReady', async () => {
  const { loader, log } = setup();
  let imports = 0;
  const mod = { render() {} };
  const slot = loader.slot({ id: 'a', load: async () => (imports++, mod) });
  assert.equal(slot.state, 'idle');
  assert.equal(loader.prepare(slot, { near: false }), 'waiting');
  assert.equal(loader.prepare(slot, { near: false }), 'waiting', 'asked again while loading: no second import');
  await tick();
  assert.equal(imports, 1);
  assert.equal(log.settled, 1, 'the end of the fetch asks for a render');
  assert.equal(loader.prepare(slot, { near: false }), 'ready');
  assert.equal(slot.module, mod);
});

test('SectionLoader_AStaticModuleIsReadyAtOnce', () => {
  const { loader } = setup();
  const slot = loader.slot({ id: 'a', mod: { render() {} } });
  assert.equal(loader.prepare(slot, { near: true }), 'ready');
});

test('SectionLoader_AModuleThatCannotLoadFailsWithItsReason', async () => {
  const { loader } = setup();
  const slot = loader.slot({ id: 'a', load: () => Promise.reject(new Error('404')) });
  loader.prepare(slot, { near: true });
  await tick();
  assert.equal(loader.prepare(slot, { near: true }), 'failed');
  assert.equal(slot.failure, 'its module could not be loaded (404)');
});

test('SectionLoader_NearTheViewportTheWholeEngineIsFetchedAtOnceAndSwappedIn', async () => {
  let calls = 0;
  const { loader, log } = setup({ upgradeEngine: async () => (calls++, whole) });
  const slot = loader.slot({ id: 'plane', needs: 'pca', load: async () => ({}) });
  assert.equal(loader.prepare(slot, { near: true }), 'waiting');
  assert.equal(loader.prepare(slot, { near: true }), 'waiting');
  await tick();
  assert.equal(calls, 1, 'one fetch of the whole engine');
  assert.equal(loader.engine, whole);
  assert.deepEqual(log.engines, [whole]);
  assert.equal(loader.prepare(slot, { near: true }), 'waiting', 'then its module');
});

test('SectionLoader_AwayFromTheViewportTheWholeEngineWaitsForIdleTime', async () => {
  let calls = 0;
  const { loader, idle } = setup({ upgradeEngine: async () => (calls++, whole) });
  const slot = loader.slot({ id: 'plane', needs: 'pca', load: async () => ({}) });
  assert.equal(loader.prepare(slot, { near: false }), 'deferred');
  assert.equal(loader.prepare(slot, { near: false }), 'deferred');
  assert.equal(idle.length, 1, 'one idle callback however often it is asked');
  assert.equal(calls, 0);
  idle[0]();
  await tick();
  assert.equal(calls, 1);
  assert.equal(loader.engine, whole);
});

test('SectionLoader_WithoutTheWholeEngineEverySectionNeedingItFailsByName', async () => {
  const none = setup();
  const a = none.loader.slot({ id: 'a', needs: 'pca', load: async () => ({}) });
  none.loader.prepare(a, { near: true });
  assert.equal(a.failure, "it needs the engine's pca, which this build does not have");

  const broken = setup({ upgradeEngine: () => Promise.reject(new Error('offline')) });
  const b = broken.loader.slot({ id: 'b', needs: 'pca', load: async () => ({}) });
  const c = broken.loader.slot({ id: 'c', needs: 'pca', load: async () => ({}) });
  broken.loader.prepare(b, { near: true });
  await tick();
  for (const slot of [b, c]) {
    assert.equal(broken.loader.prepare(slot, { near: true }), 'failed');
    assert.equal(slot.failure, 'it needs the whole engine, which could not be loaded (offline)');
  }

  const short = setup({ upgradeEngine: async () => small });
  const d = short.loader.slot({ id: 'd', needs: 'pca', load: async () => ({}) });
  short.loader.prepare(d, { near: true });
  await tick();
  assert.equal(d.failure, "it needs the engine's pca, which the whole engine loaded for it does not have");
});

test('SectionLoader_PrefetchLoadsAShownSectionsModuleBeforeItsEngine', async () => {
  const { loader } = setup({ upgradeEngine: async () => whole });
  let imports = 0;
  const slot = loader.slot({ id: 'plane', needs: 'pca', load: async () => (imports++, {}) });
  loader.prefetch(slot, { near: false });
  await tick();
  assert.equal(imports, 1);
  assert.equal(slot.state, 'ready');
});

test('SectionLoader_APolicyOfLaterFetchesNothingUntilTheSectionIsNear', async () => {
  // The policy issue 33 asks for: fetch only as a figure nears the viewport.
  const policy = { module: ({ near }) => (near ? 'now' : 'later'), engine: ({ near }) => (near ? 'now' : 'later') };
  let imports = 0;
  const { loader, idle } = setup({ upgradeEngine: async () => whole, policy });
  const slot = loader.slot({ id: 'a', load: async () => (imports++, {}) });
  const needy = loader.slot({ id: 'b', needs: 'pca', load: async () => (imports++, {}) });
  assert.equal(loader.prepare(slot, { near: false }), 'deferred');
  assert.equal(loader.prepare(needy, { near: false }), 'deferred');
  loader.prefetch(slot, { near: false });
  await tick();
  assert.equal(imports, 0);
  assert.equal(idle.length, 0);
  assert.equal(loader.prepare(slot, { near: true }), 'waiting');
  await tick();
  assert.equal(imports, 1);
});

test('FetchPolicy_AFigureFetchesNothingUntilItNearsTheViewport', () => {
  assert.equal(FETCH_POLICY.module({ near: false, lazy: true }), 'later');
  assert.equal(FETCH_POLICY.module({ near: true, lazy: true }), 'now');
  assert.equal(FETCH_POLICY.engine({ near: true, lazy: true }), 'now');
  assert.equal(FETCH_POLICY.engine({ near: false, lazy: true }), 'later');
});

test('FetchPolicy_ThePageImportsItsBundledSectionsAtOnce', () => {
  // The page and the iframe carry every section and the whole engine in their one bundle.
  assert.equal(FETCH_POLICY.module({ near: false, lazy: false }), 'now');
  assert.equal(FETCH_POLICY.engine({ near: true, lazy: false }), 'now');
  assert.equal(FETCH_POLICY.engine({ near: false, lazy: false }), 'idle');
});

test('SectionLoader_UnderTheShippedPolicyAFigureAwayFromTheViewportFetchesNothing', async () => {
  let imports = 0;
  let engines = 0;
  const { loader, idle } = setup({ upgradeEngine: async () => (engines++, whole), policy: FETCH_POLICY, lazy: true });
  const plain = loader.slot({ id: 'a', load: async () => (imports++, {}) });
  const needy = loader.slot({ id: 'plane', needs: 'pca', load: async () => (imports++, {}) });
  for (const slot of [plain, needy]) {
    assert.equal(loader.prepare(slot, { near: false }), 'deferred');
    loader.prefetch(slot, { near: false });
  }
  await tick();
  assert.deepEqual({ imports, engines, idle: idle.length }, { imports: 0, engines: 0, idle: 0 });
  // Near the viewport: the whole engine, then the module.
  assert.equal(loader.prepare(needy, { near: true }), 'waiting');
  await tick();
  assert.equal(engines, 1);
  assert.equal(loader.prepare(needy, { near: true }), 'waiting');
  await tick();
  assert.equal(imports, 1);
  assert.equal(loader.prepare(needy, { near: true }), 'ready');
});

test('SectionLoader_AModuleArrivingAfterItsEngineFailedLeavesTheSectionFailed', async () => {
  let arrive;
  const { loader } = setup({ upgradeEngine: () => Promise.reject(new Error('engine.js: 404')) });
  const slot = loader.slot({ id: 'plane', needs: 'pca', load: () => new Promise((r) => (arrive = r)) });
  loader.prefetch(slot, { near: true }); // its module is on its way …
  loader.prepare(slot, { near: true }); // … when the whole engine fails
  await tick();
  assert.equal(slot.state, 'failed');
  arrive({ render() {} });
  await tick();
  assert.equal(loader.prepare(slot, { near: true }), 'failed');
  assert.equal(slot.failure, 'it needs the whole engine, which could not be loaded (engine.js: 404)');
});

// web/shell/render.js: one render of the explorer — here, the sections' own numbers (a module's
// compute), computed by the shell once per version of the results and handed to the view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRender } from '../../../web/shell/render.js';

// A results object as lib/compute.js createResults makes it: `bump()` is a change of the state's
// numbers (the next update computes, and the version moves).
function fakeResults() {
  let version = 0;
  let pending = true;
  return {
    current: { contexts: {}, errors: [] },
    get version() {
      return version;
    },
    update() {
      if (!pending) return false;
      pending = false;
      version += 1;
      return true;
    },
    bump() {
      pending = true;
    },
  };
}

// One section whose module computes with the engine and whose view records what it was handed.
function setup(compute) {
  const engine = { name: 'the engine' };
  const handed = [];
  const module = {
    compute,
    render: () => ({ update: (app, own) => handed.push(own) }),
  };
  const part = {
    entry: { id: 'plane', views: ['plane'] },
    element: { hidden: false, classList: { toggle() {} } },
    slot: { state: 'ready', module },
    inst: null,
    near: true,
    stale: false,
  };
  const results = fakeResults();
  const viewErrors = [];
  const render = createRender({
    parts: [part],
    app: { state: { view: ['plane'] }, container: { querySelectorAll: () => [] }, controls: 'full' },
    loader: { engine, prepare: () => 'ready', lacksFiles: () => false, diagnose() {}, prefetch() {}, missing: [] },
    results,
    notices: { setEngineErrors() {}, setViewErrors: (e) => viewErrors.push(e) },
    tooltip: { refresh() {} },
    theme: { apply() {} },
    win: {},
    timings: {},
  });
  const frame = () => render({ partial: false, onlyNear: false });
  return { engine, handed, results, frame, viewErrors };
}

test('SectionCompute_RunsOncePerVersionOfTheResultsWithTheEngineAndItsAnswerReachesTheView', () => {
  const calls = [];
  const { engine, handed, results, frame } = setup((e, state, r) => {
    calls.push({ e, state, r });
    return { n: calls.length };
  });
  frame();
  assert.equal(calls.length, 1);
  assert.equal(calls[0].e, engine, 'the loader’s engine');
  assert.deepEqual(calls[0].state.view, ['plane']);
  assert.equal(calls[0].r, results.current);
  assert.deepEqual(handed, [{ n: 1 }]);
  // Drawn again with the same numbers (a theme, a scroll): nothing computed, the same answer.
  frame();
  frame();
  assert.equal(calls.length, 1);
  assert.deepEqual(handed, [{ n: 1 }, { n: 1 }, { n: 1 }]);
  // The numbers changed: computed again.
  results.bump();
  frame();
  assert.equal(calls.length, 2);
  assert.deepEqual(handed.at(-1), { n: 2 });
});

test('SectionCompute_ThatThrowsNamesTheViewAndIsTriedAgainAtTheNextDrawing', () => {
  let fail = true;
  let calls = 0;
  const { handed, frame, viewErrors } = setup(() => {
    calls += 1;
    if (fail) throw new Error('pca: x must be (N, D) with N ≥ 2');
    return 'numbers';
  });
  frame();
  assert.deepEqual(viewErrors.at(-1), ['the plane view failed: pca: x must be (N, D) with N ≥ 2']);
  assert.deepEqual(handed, [], 'the view is not handed what was never computed');
  fail = false;
  frame();
  assert.equal(calls, 2, 'tried again though the results did not change');
  assert.deepEqual(viewErrors.at(-1), []);
  assert.deepEqual(handed, ['numbers']);
});

test('SectionCompute_AViewWithoutComputeIsHandedNothing', () => {
  const { handed, frame } = setup(undefined);
  frame();
  assert.deepEqual(handed, [undefined]);
});

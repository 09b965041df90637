// Unit tests of web/lib/store.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../../web/lib/store.js';

test('Store_SetMergesAPatchOrAppliesAFunctionAndTellsSubscribersOldAndNew', () => {
  const s = createStore({ a: 1, b: 2 });
  const seen = [];
  const off = s.subscribe((next, prev) => seen.push([prev.a, next.a, next.b]));
  s.set({ a: 5 });
  s.set((st) => ({ ...st, b: st.b + 1 }));
  assert.deepEqual(s.get(), { a: 5, b: 3 });
  assert.deepEqual(seen, [
    [1, 5, 2],
    [5, 5, 3],
  ]);
  off();
  s.set({ a: 9 });
  assert.equal(seen.length, 2, 'unsubscribed listeners are not called');
});

test('Store_ASetThatChangesNothingNotifiesNobodyAndNeverMutates', () => {
  const initial = { a: 1 };
  const s = createStore(initial);
  let calls = 0;
  s.subscribe(() => {
    calls += 1;
  });
  s.set((st) => st);
  assert.equal(calls, 0);
  s.set({ a: 2 });
  assert.deepEqual(initial, { a: 1 });
});

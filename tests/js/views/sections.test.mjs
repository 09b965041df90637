// web/views/sections.js, the registry of sections: what a link, the `view` attribute and the
// element can name (lib/state.js VIEWS) shows a section, every section has one id and a module,
// and a section that needs an engine feature names one the whole engine has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECTIONS } from '../../../web/views/sections.js';
import { VIEWS } from '../../../web/lib/state.js';
import { loadEngine } from '../../../web/engine/engine.js';

test('Sections_EveryViewNameIsOneTheStateAccepts', () => {
  for (const s of SECTIONS)
    for (const v of s.views) assert.ok(VIEWS.includes(v), `${s.id}: view "${v}" is not in lib/state.js VIEWS`);
});

test('Sections_OneIdAndOneModuleEach', () => {
  const ids = SECTIONS.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const s of SECTIONS) {
    assert.ok(typeof s.load === 'function' || typeof s.mod?.render === 'function', `${s.id}: load or mod`);
    assert.ok(!s.controls || ['full', 'minimal'].includes(s.controls), `${s.id}: controls`);
  }
});

test('Sections_WhatTheyNeedIsAFeatureOfTheWholeEngine', async () => {
  const { features } = await loadEngine();
  for (const s of SECTIONS) if (s.needs) assert.equal(features[s.needs], true, `${s.id}: needs ${s.needs}`);
});

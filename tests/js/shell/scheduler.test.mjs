// web/shell/scheduler.js: which sections a view shows and what one render does with each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planFrame, sectionShown } from '../../../web/shell/scheduler.js';
import { SECTIONS } from '../../../web/views/sections.js';

const entry = (id) => SECTIONS.find((s) => s.id === id);
const part = (id, near) => ({ entry: entry(id), element: {}, near });
const header = { entry: { id: 'header', views: null }, element: null };

test('SectionShown_AViewShowsItsSectionsAndAllShowsEvery', () => {
  assert.equal(sectionShown(entry('pipeline'), ['weights']), true);
  assert.equal(sectionShown(entry('pipeline'), ['contexts']), false);
  assert.equal(sectionShown(entry('naive'), ['x']), true);
  for (const s of SECTIONS) if (!s.controls) assert.equal(sectionShown(s, ['all']), true, s.id);
});

test('SectionShown_TheMinimalBarStaysAwayFromFiguresItDoesNotActOn', () => {
  const bar = entry('minimal-bar');
  assert.equal(sectionShown(bar, ['weights']), true);
  assert.equal(sectionShown(bar, ['learn']), false);
  assert.equal(sectionShown(bar, ['learn', 'weights']), true);
  assert.equal(sectionShown(entry('engineers'), ['weights']), true, 'a controls-only section without notFor');
  assert.equal(sectionShown(header.entry, []), true);
});

test('PlanFrame_TheFirstRenderDrawsTheHeaderAndOneSection', () => {
  const parts = [header, part('overview'), part('contexts'), part('pipeline'), part('learn')];
  assert.deepEqual(planFrame(parts, { view: ['all'], partial: true, onlyNear: false }), [
    'draw',
    'draw',
    'later',
    'later',
    'later',
  ]);
  assert.deepEqual(planFrame(parts, { view: ['weights'], partial: true, onlyNear: false }), [
    'draw',
    'draw',
    'hide',
    'later',
    'hide',
  ]);
  assert.deepEqual(planFrame(parts, { view: ['all'], partial: false, onlyNear: false }), [
    'draw',
    'draw',
    'draw',
    'draw',
    'draw',
  ]);
});

test('PlanFrame_WhileDraggingOnlySectionsNotKnownToBeAwayRedraw', () => {
  const parts = [part('contexts', true), part('pipeline', false), part('lines', undefined), part('learn', false)];
  assert.deepEqual(planFrame(parts, { view: ['contexts', 'weights', 'lines'], partial: false, onlyNear: true }), [
    'draw',
    'offscreen',
    'draw',
    'hide',
  ]);
});

// web/lib/real/gpt-parts.js: the real-model figure's parts. Every part is a view name the state
// accepts and the section shows, each names a figure once; view="gpt" (or "all") is the whole
// section; a view of parts shows those and asks the model only for what they draw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GPT_PARTS, GPT_PART_VIEWS, gptPartsOf } from '../../../../web/lib/real/gpt-parts.js';
import { VIEWS } from '../../../../web/lib/state.js';
import { SECTIONS } from '../../../../web/views/sections.js';
import { sectionShown } from '../../../../web/shell/scheduler.js';

test('GptParts_EachPartIsAViewTheStateAcceptsAndShowsTheRealModelSection', () => {
  const gpt = SECTIONS.find((s) => s.id === 'gpt');
  assert.equal(new Set(GPT_PART_VIEWS).size, GPT_PARTS.length, 'each view name once');
  assert.equal(new Set(GPT_PARTS.map((p) => p.figure)).size, GPT_PARTS.length, 'each figure once');
  for (const v of GPT_PART_VIEWS) {
    assert.match(v, /^gpt-[a-z]+$/);
    assert.ok(VIEWS.includes(v), `${v} is in VIEWS`);
    assert.ok(sectionShown(gpt, [v]), `${v} shows the real-model section`);
    // No other section is shown for a part: none of the page's, nor the minimal bar (its knobs
    // act on the bank example); the full controls' panels stay for controls="full" only.
    for (const s of SECTIONS.filter((x) => x.id !== 'gpt' && x.controls !== 'full'))
      assert.equal(sectionShown(s, [v]), false, `${s.id} is not shown for ${v}`);
  }
  const bar = SECTIONS.find((s) => s.id === 'minimal-bar');
  assert.equal(sectionShown(bar, ['gpt-heads', 'gpt-bank']), false);
});

test('GptParts_TheWholeSectionShowsEveryPartAndAViewOfPartsOnlyThose', () => {
  for (const view of [['gpt'], ['all'], ['gpt', 'gpt-heads']]) {
    const s = gptPartsOf(view);
    assert.equal(s.whole, true);
    assert.deepEqual(
      [...s.figures],
      GPT_PARTS.map((p) => p.figure),
    );
    assert.deepEqual([s.run, s.bank], [true, true]);
  }
  assert.deepEqual(gptPartsOf(['gpt-heads']), { whole: false, figures: new Set(['grid']), run: true, bank: false });
  assert.deepEqual(gptPartsOf(['gpt-bank']), { whole: false, figures: new Set(['bank']), run: false, bank: true });
  assert.deepEqual(gptPartsOf(['gpt-picker']), { whole: false, figures: new Set(['pick']), run: false, bank: false });
  const both = gptPartsOf(['gpt-next', 'gpt-bank', 'weights']);
  assert.deepEqual([...both.figures].sort(), ['bank', 'next']);
  assert.deepEqual([both.whole, both.run, both.bank], [false, true, true]);
  // The picker is a part: hidden in a figure of parts unless named.
  for (const v of GPT_PART_VIEWS.filter((v) => v !== 'gpt-picker'))
    assert.equal(gptPartsOf([v]).figures.has('pick'), false, v);
});

test('GptParts_AToolIsAPartInsideTheToolsBoxAndTheToolsAreAllThree', () => {
  const figures = (view) => [...gptPartsOf(view).figures].sort();
  assert.deepEqual(figures(['gpt-tools']), ['attribution', 'knockout', 'lens', 'tools']);
  assert.deepEqual(figures(['gpt-lens']), ['lens', 'tools'], 'the lens in its box, alone');
  assert.deepEqual(figures(['gpt-knockout', 'gpt-attribution']), ['attribution', 'knockout', 'tools']);
  assert.deepEqual(figures(['gpt-lens', 'gpt-tools']), ['attribution', 'knockout', 'lens', 'tools']);
  assert.equal(gptPartsOf(['gpt-attribution']).run, true);
  for (const p of GPT_PARTS.filter((q) => q.inside))
    assert.ok(
      GPT_PARTS.some((q) => q.figure === p.inside && !q.inside),
      `${p.view} is inside a part`,
    );
});

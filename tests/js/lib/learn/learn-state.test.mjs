// The Learn section's state (web/lib/learn/learn-state.js) and its place in links: defaults per
// task, every bad field named, the corpus in a link only when small, and a round trip through
// encodeState / stateFromHash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LEARN_TASKS,
  defaultLearn,
  sanitizeLearn,
  sessionSpec,
  linkLearn,
  checkSentences,
  checkSettings,
  LINK_TEXT_CHARS,
} from '../../../../web/lib/learn/learn-state.js';
import { TASKS } from '../../../../web/lib/learn/tasks.js';
import { taskFor } from '../../../../web/lib/learn/session.js';
import { encodeState, stateFromHash } from '../../../../web/lib/share.js';
import { LEARN_LIMITS } from '../../../../web/lib/limits.js';
import { tinyState } from '../../../helpers/seed-state.mjs';
import { BANK_SENTENCES } from '../../../../web/lib/learn/corpus.js';

// A small default state (lib/state.js's, over a one-word example).
const DEFAULTS = tinyState();

test('LearnState_EveryTaskHasDefaultsThatPassTheirOwnChecks', () => {
  for (const id of LEARN_TASKS) {
    const learn = defaultLearn(id);
    assert.equal(learn.task, id);
    assert.equal(learn.steps, 0);
    assert.deepEqual(checkSettings(learn), [], id);
    assert.deepEqual(sanitizeLearn(learn), { learn, problems: [] }, id);
    // The defaults match the task a session builds.
    const task = taskFor(sessionSpec(learn).task);
    assert.equal(learn.layers, task.model.layers, id);
    assert.equal(learn.lr, task.train.lr, id);
  }
  assert.deepEqual(
    Object.keys(TASKS).every((id) => LEARN_TASKS.includes(id)),
    true,
  );
  assert.throws(() => defaultLearn('nope'), /task: unknown task "nope"/);
});

test('LearnState_BadFieldsAreNamedAndDefaultsKept', () => {
  const cases = [
    [{ task: 'nope' }, /learn\.task: expected one of copy/],
    [{ task: 'reverse', layers: 99 }, /learn\.layers: expected a whole number in \[1, 4\]/],
    [{ task: 'reverse', heads: 3 }, /learn\.heads: 3 must divide the width 32/],
    [{ task: 'reverse', lr: 5 }, /learn\.learning rate: expected a number in \[0\.00001, 1\]/],
    [{ task: 'reverse', mlp: 'yes' }, /learn\.mlp: expected true or false/],
    [{ task: 'reverse', steps: -1 }, /learn\.steps: expected a whole number in \[0, 20000\]/],
    [{ task: 'reverse', steps: 1.5 }, /learn\.steps/],
    [{ task: 'text', context: 1000 }, /learn\.context: expected a whole number in \[4, 64\]/],
    [{ task: 'text', text: 'abc' }, /learn\.text: the text has 3 characters/],
    [{ task: 'text', text: 'x'.repeat(LEARN_LIMITS.textChars + 1) }, /learn\.text: expected a text of at most 20000/],
    [{ task: 'bank', sentences: ['the bank', '<script>'] }, /learn\.sentences: sentence 2/],
    [{ task: 'bank', sentences: 'the bank' }, /learn\.sentences: expected a list of 2 to 200/],
    [{ task: 'bank', fromSeed: 'yes' }, /learn\.fromSeed: expected true or false, got the string "yes"/],
    [
      { task: 'copy', speed: 0 },
      /learn\.speed: expected "watch", "fast" or a number of steps per second in \(0, 1000\]/,
    ],
    [{ task: 'copy', speed: 'slow' }, /learn\.speed: expected .*, got the string "slow"/],
    ['reverse', /learn: expected an object/],
  ];
  for (const [input, re] of cases) {
    const out = sanitizeLearn(input);
    assert.ok(
      out.problems.some((p) => re.test(p)),
      `${JSON.stringify(input).slice(0, 60)} → ${out.problems}`,
    );
  }
  // A bad setting keeps the task's defaults for the settings.
  assert.equal(sanitizeLearn({ task: 'reverse', layers: 99 }).learn.layers, defaultLearn('reverse').layers);
  assert.deepEqual(sanitizeLearn(null), { learn: null, problems: [] });
});

test('LearnState_ThePaceIsKeptButIsNoPartOfTheRun', () => {
  for (const speed of ['watch', 'fast', 4, 0.5, 1000]) {
    const { learn, problems } = sanitizeLearn({ task: 'reverse', speed });
    assert.deepEqual(problems, [], String(speed));
    assert.equal(learn.speed, speed);
    assert.deepEqual(sessionSpec(learn), sessionSpec(defaultLearn('reverse')), 'the same run at any pace');
  }
  assert.equal('speed' in defaultLearn('reverse'), false, 'watch by default, left out of links');
});

test('LearnState_SentencesNeedTheWordBankAndShortLowerCaseWords', () => {
  assert.equal(checkSentences(BANK_SENTENCES.slice()), null);
  assert.match(checkSentences(['the river', 'the stream']), /no sentence uses the word "bank"/);
  assert.match(checkSentences(['the bank ' + 'a '.repeat(20), 'bank']), /has 22 words; at most 12/);
  const out = sanitizeLearn({ task: 'bank', sentences: ['The Bank of the river', 'money in the bank'] });
  assert.deepEqual(out.problems, []);
  assert.deepEqual(out.learn.sentences, ['the bank of the river', 'money in the bank']);
});

test('LearnState_TravelsInTheLinkWithTheCorpusOnlyWhenSmall', () => {
  const learn = {
    ...defaultLearn('text'),
    steps: 120,
    text: 'a small text, long enough for the context of thirty-two.',
  };
  const back = stateFromHash(encodeState({ ...DEFAULTS, learn }, DEFAULTS), DEFAULTS);
  assert.deepEqual(back.problems, []);
  assert.deepEqual(back.state.learn, learn);
  const big = { ...learn, text: 'y'.repeat(LINK_TEXT_CHARS + 1) };
  assert.equal(linkLearn(big).text, undefined);
  const back2 = stateFromHash(encodeState({ ...DEFAULTS, learn: big }, DEFAULTS), DEFAULTS);
  assert.equal(back2.state.learn.text, undefined);
  assert.equal(back2.state.learn.steps, 120);
  // Nothing about Learn in the link until the reader changes it.
  assert.equal(encodeState(DEFAULTS, DEFAULTS), encodeState({ ...DEFAULTS }, DEFAULTS));
  assert.equal(stateFromHash(encodeState(DEFAULTS, DEFAULTS), DEFAULTS).state.learn, null);
});

test('LearnState_SessionSpecCarriesTheCorpusAndSettings', () => {
  const spec = sessionSpec({ ...defaultLearn('bank'), sentences: ['the bank', 'a bank'] });
  assert.deepEqual(spec.task, { id: 'bank', sentences: ['the bank', 'a bank'] });
  assert.deepEqual(Object.keys(spec.settings).sort(), [
    'batch',
    'heads',
    'layerNorm',
    'layers',
    'lr',
    'mlp',
    'seed',
    'width',
  ]);
  assert.deepEqual(sessionSpec(defaultLearn('text')).task, { id: 'text', context: 32 });
  // Starting from the seed's weights is part of the bank task's spec (a link retrains it).
  assert.deepEqual(sessionSpec({ ...defaultLearn('bank'), fromSeed: true }).task, { id: 'bank', fromSeed: true });
  assert.equal(sanitizeLearn({ task: 'bank', fromSeed: true }).learn.fromSeed, true);
  assert.equal('fromSeed' in sanitizeLearn({ task: 'reverse', fromSeed: true }).learn, false, 'bank only');
});

test('ElementAttributes_LearnExampleStepsAndAutoplayBecomeTheLearnState', async () => {
  const { applyAttributes } = await import('../../../../web/lib/attributes.js');
  const { sanitizeState } = await import('../../../../web/lib/share.js');
  const read = applyAttributes({}, { example: 'learn:repeat', steps: '900', autoplay: '' }, DEFAULTS, {
    defaultView: true,
  });
  assert.deepEqual(read.problems, []);
  const { state, problems } = sanitizeState(read.state, DEFAULTS);
  assert.deepEqual(problems, []);
  assert.deepEqual(state.view, ['learn']);
  assert.equal(state.learn.task, 'repeat');
  assert.equal(state.learn.until, 900);
  assert.equal(state.learn.autoplay, true);
  assert.equal(state.learn.layers, defaultLearn('repeat').layers);
  // Bad values are named.
  const bad = applyAttributes({}, { example: 'learn:juggle', steps: 'many', autoplay: 'sometimes' }, DEFAULTS);
  assert.ok(
    bad.problems.some((p) => /^steps="many": expected a whole number/.test(p)),
    bad.problems.join('|'),
  );
  assert.ok(
    bad.problems.some((p) => /^autoplay="sometimes": expected true or false/.test(p)),
    bad.problems.join('|'),
  );
  const s2 = sanitizeState(bad.state, DEFAULTS);
  assert.ok(
    s2.problems.some((p) =>
      /learn\.task: expected one of copy, reverse, sort, repeat, bank, text, got the string "juggle"/.test(p),
    ),
    s2.problems.join('|'),
  );
  const s3 = sanitizeState(applyAttributes({}, { example: 'learn:copy', steps: '999999' }, DEFAULTS).state, DEFAULTS);
  assert.ok(s3.problems.some((p) => /learn\.until: expected a whole number in \[1, 20000\], got 999999/.test(p)));
});

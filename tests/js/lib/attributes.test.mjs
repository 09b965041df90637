// The element's attributes and inline JSON as data (web/lib/attributes.js): what each attribute
// sets, and a problem naming the attribute for every value it cannot use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ATTRIBUTES,
  applyAttributes,
  attributeProblems,
  defaultViewFor,
  parseControls,
  parseHeight,
  parseInlineJSON,
  parsePresentation,
  removedAttributeText,
} from '../../../web/lib/attributes.js';
import { LIMITS } from '../../../web/lib/limits.js';

const defaults = {
  focus: 'river',
  contexts: { river: ['stream', 'bank', 'mud'], finance: ['money', 'bank', 'loan'] },
};

test('Attributes_ExampleNamesAContextAndFocusesIt', () => {
  const { state, problems } = applyAttributes({}, { example: ' finance ' }, defaults);
  assert.deepEqual(problems, []);
  assert.equal(state.example, 'finance');
  assert.equal(state.focus, 'finance');
  assert.equal(applyAttributes({}, { example: 'both' }, defaults).state.focus, undefined, 'both is not a context');
});

test('Attributes_AveragingShowsTheAveragingViewUnlessAViewIsGiven', () => {
  const compact = { defaultView: true };
  assert.deepEqual(applyAttributes({}, { example: 'averaging' }, defaults, compact).state.view, ['averaging']);
  assert.deepEqual(applyAttributes({}, { example: 'averaging', view: 'weights' }, defaults, compact).state.view, [
    'weights',
  ]);
});

test('Attributes_WithoutAViewTheElementShowsItsExamplesCompactFigure', () => {
  // The element asks for the example's figure (defaultView) when it has no view of its own.
  const compact = { defaultView: true };
  const view = (attrs) => applyAttributes({}, attrs, defaults, compact).state.view;
  assert.deepEqual(view({}), ['contexts'], 'no example: the bank contrast');
  for (const ex of ['river', 'finance', 'both', 'mine']) assert.deepEqual(view({ example: ex }), ['contexts'], ex);
  assert.deepEqual(view({ example: 'learn:sort' }), ['learn']);
  assert.deepEqual(view({ example: 'river', view: 'all' }), ['all']);
  assert.deepEqual(defaultViewFor(' learn:text '), ['learn']);
  // A JSON view (the base) is kept when the element does not ask for the default.
  assert.deepEqual(applyAttributes({ view: ['heads'] }, { example: 'river' }, defaults).state.view, ['heads']);
});

test('Attributes_AViewOfNoKnownNameShowsTheDefaultFigureAndNamesTheValueAndTheAcceptedOnes', () => {
  // view="weigths" (issue 33): the element's compact figure, not every section of the explorer.
  const compact = { defaultView: true };
  const typo = applyAttributes({}, { example: 'river', view: 'weigths' }, defaults, compact);
  assert.deepEqual(typo.state.view, ['contexts']);
  assert.equal(typo.problems.length, 2);
  assert.match(typo.problems[0], /^view: unknown step the string "weigths"; expected one of all, contexts, .*weights/);
  for (const name of ['averaging', 'naive', 'plane', 'scores', 'formula', 'learn', 'model', 'gpt', 'next', 'notebook'])
    assert.ok(typo.problems[0].includes(name), `the accepted ones include ${name}`);
  assert.equal(typo.problems[1], 'view: showing the default figure (contexts) instead');
  // The default of its example and attributes: Learn's for a task, the real model's for a sentence.
  assert.deepEqual(applyAttributes({}, { example: 'learn:sort', view: 'lern' }, defaults, compact).state.view, [
    'learn',
  ]);
  assert.deepEqual(applyAttributes({}, { sentence: 'A bank.', view: 'gtp' }, defaults).state.view, ['gpt']);
  // Some known: those, and the unknown ones named.
  const some = applyAttributes({}, { view: 'scores,nope,weights' }, defaults);
  assert.deepEqual(some.state.view, ['scores', 'weights']);
  assert.deepEqual(some.problems.length, 1);
  assert.match(some.problems[0], /^view: unknown step the string "nope"; expected one of /);
  // The inline JSON's view, the same way.
  const json = applyAttributes({ view: ['weigths'] }, { example: 'averaging' }, defaults);
  assert.deepEqual(json.state.view, ['averaging']);
});

test('Presentation_FigureAndCaptionAttributes', () => {
  assert.deepEqual(parsePresentation(null, null), { figure: false, caption: '' });
  assert.deepEqual(parsePresentation('', '  Where bank looks '), { figure: true, caption: 'Where bank looks' });
  assert.deepEqual(parsePresentation('false', null), { figure: false, caption: '' });
  const problems = [];
  assert.deepEqual(parsePresentation('maybe', 'x'.repeat(400), problems).caption.length, 301);
  assert.match(problems[0], /^figure="maybe": expected true or false/);
});

test('Attributes_ViewSplitsOnCommasAndSpaces', () => {
  assert.deepEqual(applyAttributes({}, { view: 'scores, weights  output' }, defaults).state.view, [
    'scores',
    'weights',
    'output',
  ]);
});

test('Attributes_TokensSetTheFocusedContextOrNamedOnes', () => {
  const plain = applyAttributes({}, { tokens: 'stream, bank bank' }, defaults).state;
  assert.deepEqual(plain.contexts.river, ['stream', 'bank', 'bank']);
  assert.deepEqual(plain.contexts.finance, defaults.contexts.finance);
  const named = applyAttributes({}, { tokens: 'river: mud bank; finance: loan' }, defaults).state;
  assert.deepEqual(named.contexts, { river: ['mud', 'bank'], finance: ['loan'] });
  const bad = applyAttributes({}, { tokens: 'river: mud; : bank; x' }, defaults);
  assert.equal(bad.problems.length, 2);
  assert.match(bad.problems[0], /^tokens: ".*" should read "context: word word …"/);
  const onFocus = applyAttributes({ focus: 'finance' }, { tokens: 'loan money' }, defaults).state;
  assert.deepEqual(onFocus.contexts.finance, ['loan', 'money']);
});

test('Attributes_BooleansAcceptBareTrueFalseAndTheirOwnName', () => {
  for (const [text, want] of [
    ['', true],
    ['true', true],
    ['causal', true],
    [' FALSE ', false],
  ]) {
    assert.equal(applyAttributes({}, { causal: text }, defaults).state.options.causal, want, text);
  }
  const bad = applyAttributes({}, { projections: 'yes please' }, defaults);
  assert.equal(bad.state.options, undefined);
  assert.deepEqual(bad.problems, ['projections="yes please": expected true or false (or the bare attribute)']);
});

test('Attributes_ScaleIsABooleanOrAFactor', () => {
  assert.equal(applyAttributes({}, { scale: '' }, defaults).state.options.scale, true);
  assert.equal(applyAttributes({}, { scale: 'false' }, defaults).state.options.scale, false);
  assert.equal(applyAttributes({}, { scale: '0.25' }, defaults).state.options.scale, 0.25);
  assert.match(applyAttributes({}, { scale: 'big' }, defaults).problems[0], /^scale="big": expected a number/);
});

test('Attributes_NumbersAreCheckedBeforeSanitizing', () => {
  const ok = applyAttributes({}, { temperature: '1e-1', heads: '+2', step: '4' }, defaults);
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.state.options, { temperature: 0.1, heads: 2 });
  assert.equal(ok.state.step, 4);
  const bad = applyAttributes({}, { temperature: 'NaN', heads: '1.5', step: '-1' }, defaults);
  assert.deepEqual(bad.problems, [
    'temperature="NaN": expected a number',
    'heads="1.5": expected a whole number',
    'step="-1": expected a whole number',
  ]);
});

test('Attributes_SpeedIsWatchFastOrStepsPerSecond', () => {
  const speed = (text) => applyAttributes({}, { example: 'learn:reverse', speed: text }, defaults);
  assert.equal(speed(' Fast ').state.learn.speed, 'fast');
  assert.equal(speed('watch').state.learn.speed, 'watch');
  assert.equal(speed('4').state.learn.speed, 4);
  assert.equal(speed('0.5').state.learn.speed, 0.5);
  assert.deepEqual(speed('quick').problems, ['speed="quick": expected watch, fast or a number of steps per second']);
  assert.equal(speed('quick').state.learn.speed, undefined, 'a bad speed leaves the default pace');
  assert.ok(ATTRIBUTES.includes('speed'), 'observed by the element');
});

test('Attributes_OptionsMergeWithTheBaseState', () => {
  const { state } = applyAttributes({ options: { dropout: 0.5 } }, { causal: 'true' }, defaults);
  assert.deepEqual(state.options, { dropout: 0.5, causal: true });
});

test('Attributes_ControlsAndHeightAreReportedWhenUnusable', () => {
  const { problems } = applyAttributes({}, { controls: 'lots', height: 'tall', theme: ' dark ' }, defaults);
  assert.deepEqual(problems, [
    'controls="lots": expected one of none, minimal, full; using minimal',
    'height="tall": expected a length such as 480, 480px, 30rem or 70vh',
  ]);
  assert.equal(parseControls(null), 'minimal');
  assert.equal(parseControls(' full '), 'full');
  assert.equal(parseControls('lots'), 'minimal');
  assert.equal(parseHeight('480'), '480px');
  assert.equal(parseHeight(' 30rem '), '30rem');
  assert.equal(parseHeight('70vh'), '70vh');
  assert.equal(parseHeight('10em;color:red'), null);
});

test('Attributes_LongTextIsClippedInProblems', () => {
  const { problems } = applyAttributes({}, { heads: 'x'.repeat(500) }, defaults);
  assert.ok(problems[0].length < 100, problems[0]);
});

test('InlineJSON_ObjectsOnlyWithinTheLimit', () => {
  assert.deepEqual(parseInlineJSON(null), { base: {}, problems: [] });
  assert.deepEqual(parseInlineJSON('{"focus":"finance"}'), { base: { focus: 'finance' }, problems: [] });
  assert.match(parseInlineJSON('{"a": 1,').problems[0], /^inline JSON: not valid JSON/);
  assert.match(parseInlineJSON('[1, 2]').problems[0], /^inline JSON: expected an object/);
  assert.match(parseInlineJSON('null').problems[0], /^inline JSON: expected an object/);
  const long = parseInlineJSON(' '.repeat(LIMITS.jsonChars + 1));
  assert.match(long.problems[0], /more than the limit of 65536/);
  assert.deepEqual(long.base, {});
});

test('RemovedAttributes_ReturnToWhatTheyControlByDefault', () => {
  assert.equal(removedAttributeText('causal'), 'false');
  // Removing view returns to the example's compact figure (the element computes it).
  assert.equal(removedAttributeText('view'), null);
  assert.equal(removedAttributeText('example'), null);
  assert.equal(removedAttributeText('tokens'), null);
  assert.ok(ATTRIBUTES.includes('height') && ATTRIBUTES.includes('controls'));
});

test('Attributes_TheRealModelFromASentenceAndAModelUrl', () => {
  const compact = { defaultView: true };
  // A sentence alone: the real model's figure on the project's own model.
  const a = applyAttributes({}, { sentence: 'The cat sat on the mat.' }, defaults, compact);
  assert.deepEqual(a.problems, []);
  assert.deepEqual(a.state.view, ['gpt']);
  assert.equal(a.state.gpt.sentence, 'The cat sat on the mat.');
  assert.equal(a.state.gpt.model, undefined, 'no model-url: the project’s own model');
  // A checkpoint the blogger hosts, with its config, tokenizer and head count.
  const b = applyAttributes(
    {},
    {
      'model-url': ' /models/gpt2/model.safetensors ',
      'config-url': '/models/gpt2/config.json',
      'tokenizer-url': '/models/gpt2/tokenizer.json',
      'model-heads': '12',
      view: 'gpt next',
    },
    defaults,
    compact,
  );
  assert.deepEqual(b.problems, []);
  assert.deepEqual(b.state.view, ['gpt', 'next']);
  assert.deepEqual(b.state.gpt.model, {
    kind: 'url',
    url: '/models/gpt2/model.safetensors',
    config: '/models/gpt2/config.json',
    tokenizer: '/models/gpt2/tokenizer.json',
    heads: 12,
  });
  // The rest of the gpt state (from inline JSON) is kept.
  const c = applyAttributes({ gpt: { layer: 2 } }, { sentence: 'x' }, defaults);
  assert.deepEqual(c.state.gpt, { layer: 2, sentence: 'x' });
  // Problems name the attribute.
  const d = applyAttributes({}, { 'model-url': 'm.safetensors', 'model-heads': 'twelve' }, defaults);
  assert.match(d.problems.join(' '), /model-heads="twelve": expected a whole number/);
  const e = applyAttributes({}, { 'config-url': 'c.json' }, defaults);
  assert.match(e.problems.join(' '), /config-url: it goes with model-url, which is missing/);
  for (const name of ['sentence', 'model-url', 'config-url', 'tokenizer-url', 'model-heads'])
    assert.ok(ATTRIBUTES.includes(name), name);
});

test('Attributes_TheStatesProblemsAreSaidByTheAttributeThatCausedThem', () => {
  const attrs = { temperature: '-5', tokens: 'stream zzz mud', theme: 'neon', example: 'learn:fly', sentence: '' };
  assert.deepEqual(
    attributeProblems(
      [
        'options.temperature: expected a number in [0.01, 100], got -5',
        'contexts["river"]: token the string "zzz" is not in the vocabulary; using the default contexts',
        'theme: expected one of auto, light, dark, got the string "neon"',
        'learn.task: expected one of copy, reverse, sort, repeat, bank, text, got the string "fly"',
        'gpt.sentence: expected text of 1 to 2000 characters, got the string ""',
        'options.heads: 3 heads do not divide width 2; using 1 head',
      ],
      attrs,
    ),
    [
      'temperature="-5": expected a number in [0.01, 100], got -5',
      'tokens="stream zzz mud": contexts["river"]: token the string "zzz" is not in the vocabulary; using the default contexts',
      'theme="neon": expected one of auto, light, dark, got the string "neon"',
      'example="learn:fly": expected one of copy, reverse, sort, repeat, bank, text, got the string "fly"',
      'sentence="": expected text of 1 to 2000 characters, got the string ""',
      // no heads attribute: the problem came from the inline JSON, and says so by its field
      'options.heads: 3 heads do not divide width 2; using 1 head',
    ],
  );
});

test('model and hf-endpoint: a preset, a repository id or URL of the Hub, and its endpoint; bad values named', () => {
  const apply = (attrs) => applyAttributes({}, attrs, {}, { defaultView: true });
  const hub = (endpoint, repo) => ({ kind: 'hub', endpoint, repo, revision: 'main' });
  let r = apply({ model: 'gpt2' });
  assert.deepEqual(r.state.gpt.model, hub('https://huggingface.co', 'openai-community/gpt2'));
  assert.deepEqual(r.state.view, ['gpt']);
  assert.deepEqual(r.problems, []);
  r = apply({ model: 'distilgpt2', 'hf-endpoint': 'https://mirror.example/hf/' });
  assert.deepEqual(r.state.gpt.model, hub('https://mirror.example/hf', 'distilbert/distilgpt2'));
  r = apply({ model: 'https://huggingface.co/someone/tiny-gpt2/tree/v1' });
  assert.deepEqual(r.state.gpt.model, { ...hub('https://huggingface.co', 'someone/tiny-gpt2'), revision: 'v1' });
  // A bad model: named, nothing set (the model shown stays).
  r = apply({ model: 'a/b/c' });
  assert.equal(r.state.gpt.model, undefined);
  assert.deepEqual(r.problems, [
    'model="a/b/c": "a/b/c" is not a repository id: expected "name" or "namespace/name" (or one of gpt2, distilgpt2, gpt2-medium); the model shown stays',
  ]);
  // A bad endpoint: named, the default kept.
  r = apply({ model: 'gpt2', 'hf-endpoint': 'ftp://mirror' });
  assert.deepEqual(r.state.gpt.model, hub('https://huggingface.co', 'openai-community/gpt2'));
  assert.deepEqual(r.problems, [
    'hf-endpoint="ftp://mirror": expected an http(s) URL, got ftp: ("ftp://mirror"); using https://huggingface.co',
  ]);
  assert.deepEqual(apply({ 'hf-endpoint': 'https://x.example' }).problems, [
    'hf-endpoint: it goes with model, which is missing; ignored',
  ]);
  r = apply({ model: 'gpt2', 'model-url': 'm.safetensors' });
  assert.deepEqual(r.state.gpt.model, { kind: 'url', url: 'm.safetensors' });
  assert.deepEqual(r.problems, ['model: model-url is given too; model-url is used']);
  assert.ok(ATTRIBUTES.includes('model') && ATTRIBUTES.includes('hf-endpoint'));
});

test('model-precision: how the real model keeps its weights; a bad value named, auto kept', () => {
  const apply = (attrs) => applyAttributes({}, attrs, {}, { defaultView: true });
  for (const [value, want] of [
    ['f16', 'f16'],
    ['BF16', 'bf16'],
    ['F32', 'f32'],
    [' auto ', 'auto'],
  ]) {
    const r = apply({ 'model-precision': value });
    assert.equal(r.state.gpt.precision, want, value);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.state.view, ['gpt'], 'a real-model attribute: the figure is the real model');
  }
  const r = apply({ model: 'gpt2', 'model-precision': 'half' });
  assert.equal(r.state.gpt.precision, undefined);
  assert.equal(r.state.gpt.model.repo, 'openai-community/gpt2');
  assert.deepEqual(r.problems, [
    'model-precision="half": expected f32, f16, bf16 or auto; using auto (float32 where it fits)',
  ]);
  assert.ok(ATTRIBUTES.includes('model-precision'));
});

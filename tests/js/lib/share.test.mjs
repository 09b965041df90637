// Unit tests for web/lib/share.js: the hash round-trips a state exactly, and every hostile or
// malformed hash falls back to the defaults with a problem naming the field.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeState,
  decodeState,
  sanitizeState,
  stateFromHash,
  LIMITS,
  ShareError,
  V1_WEIGHTS,
} from '../../../web/lib/share.js';
import { defaults, edited, notebook } from '../../helpers/seed-state.mjs';

test('EncodeDecode_EditedStateRoundTripsExactly', () => {
  const state = edited();
  const hash = encodeState(state, defaults());
  const { state: back, problems } = sanitizeState(decodeState('#' + hash), defaults());
  assert.deepEqual(problems, []);
  assert.deepEqual(back, state);
});

test('EncodeDecode_WithoutDefaultsAlsoRoundTrips', () => {
  const state = edited();
  const { state: back, problems } = sanitizeState(decodeState(encodeState(state)), defaults());
  assert.deepEqual(problems, []);
  assert.deepEqual(back, state);
});

test('Encode_DefaultStateIsTiny_AndHashIsUrlSafe', () => {
  const hash = encodeState(defaults(), defaults());
  assert.equal(hash, '2' + Buffer.from('{}').toString('base64url'));
  const full = encodeState(edited(), defaults());
  assert.match(full, /^2[A-Za-z0-9_-]+$/);
  // Only the edits travel: far shorter than the whole state.
  assert.ok(full.length < encodeState(edited()).length, `${full.length} vs ${encodeState(edited()).length}`);
});

// Links made before 0.4.0 (format 1: the fields that differ from the notebook's weights), written
// by that version's encodeState: they open exactly what they showed then.
const V1_LINKS = [
  ['the default', '1e30', (s) => s],
  ['causal on', '1eyJvcHRpb25zIjp7ImNhdXNhbCI6dHJ1ZX19', (s) => ({ ...s, options: { ...s.options, causal: true } })],
  [
    'one W_K cell edited, the weights view',
    '1eyJ3ZWlnaHRzIjp7IndrIjpbWzEsMF0sWzAsMV0sWzAsMF0sWzAuNywwLjFdXX0sInZpZXciOlsid2VpZ2h0cyJdfQ',
    (s) => {
      s.weights.wk[3][0] = 0.7;
      return { ...s, view: ['weights'] };
    },
  ],
  [
    'two heads over padded widths, finance',
    '1eyJleGFtcGxlIjoiZmluYW5jZSIsIndlaWdodHMiOnsid3EiOltbMSwwLDAsMF0sWzAsMSwwLDBdLFswLjIsMC4yLDAsMF0sWzAsMCwwLDBdXSwid2siOltbMSwwLDAsMF0sWzAsMSwwLDBdLFswLDAsMCwwXSxbMC4xLDAuMSwwLDBdXSwid3YiOltbMSwwLDAsMF0sWzAsMSwwLDBdLFswLDAsMSwwXSxbMCwwLDAuNSwwXV19LCJvcHRpb25zIjp7ImhlYWRzIjoyLCJoZWFkIjoxfSwiZm9jdXMiOiJmaW5hbmNlIn0',
    (s) => {
      const pad = (m) => m.map((row) => [...row, ...new Array(4 - row.length).fill(0)]);
      s.weights = { ...s.weights, wq: pad(s.weights.wq), wk: pad(s.weights.wk), wv: pad(s.weights.wv) };
      return { ...s, example: 'finance', focus: 'finance', options: { ...s.options, heads: 2, head: 1 } };
    },
  ],
];

test('Decode_LinksOfFormat1OpenWithTheNotebooksWeightsAsTheyDidBefore', () => {
  for (const [name, hash, expected] of V1_LINKS) {
    const r = stateFromHash('#' + hash, defaults());
    assert.deepEqual(r.problems, [], name);
    assert.deepEqual(r.state, expected(notebook()), name);
    // Written again, the link is of the current format and opens the same state.
    const again = encodeState(r.state, defaults());
    assert.match(again, /^2/, name);
    assert.deepEqual(stateFromHash(again, defaults()).state, r.state, name);
  }
  // A JSON state says its format in v; without one it is the current format.
  assert.deepEqual(sanitizeState({ v: 1 }, defaults()).state.weights, notebook().weights);
  assert.deepEqual(sanitizeState({}, defaults()).state.weights, defaults().weights);
  assert.deepEqual(V1_WEIGHTS, { wq: notebook().weights.wq, wk: notebook().weights.wk });
  // A format-1 state over another vocabulary width has nothing of the notebook's to take.
  const narrow = sanitizeState({ v: 1, vocab: { a: [1, 0] }, contexts: { mine: ['a'] } }, defaults());
  assert.deepEqual(narrow.state.weights.wq, [
    [1, 0],
    [0, 1],
  ]);
});

test('Decode_EmptyHashIsDefaultWithoutProblems', () => {
  const r = stateFromHash('', defaults());
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.state, defaults());
});

test('Decode_PlainJsonHashIsAccepted', () => {
  const r = stateFromHash('#' + encodeURIComponent('{"example":"finance","view":"weights,output"}'), defaults());
  assert.deepEqual(r.problems, []);
  assert.equal(r.state.example, 'finance');
  assert.deepEqual(r.state.view, ['weights', 'output']);
});

function problemsFor(hash) {
  const r = stateFromHash(hash, defaults());
  return r;
}
const b64 = (obj) => '1' + Buffer.from(typeof obj === 'string' ? obj : JSON.stringify(obj)).toString('base64url');

test('Decode_MalformedHashesFallBackToDefaultsWithAProblem', () => {
  const cases = {
    'not base64': '1$$$',
    'bad json': b64('{"example": '),
    'not an object': b64('[1,2,3]'),
    'unknown format': 'hello',
    'bad percent': '%7B%E0%A4%A',
    'invalid utf8': '1' + Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url'),
    huge: '1' + 'A'.repeat(LIMITS.hashChars + 10),
  };
  for (const [name, hash] of Object.entries(cases)) {
    const r = problemsFor(hash);
    assert.deepEqual(r.state, defaults(), name);
    assert.equal(r.problems.length, 1, name);
    assert.match(r.problems[0], /^hash: /, name);
  }
  assert.throws(() => decodeState('1$$$'), ShareError);
});

test('Sanitize_WrongSizesAndNonFiniteValuesNameTheField', () => {
  const cases = [
    [{ vocab: { a: [1, 2], b: [1, 2, 3] } }, /vocab\["b"\]: expected 2 numbers/],
    [{ vocab: { a: [1, null, 3, 4] } }, /vocab\["a"\]\[1\]: expected a finite number, got null/],
    [{ vocab: { a: [1, 2, 3, 1e308 * 10] } }, /finite/],
    [{ vocab: { a: [1, 2, 3, 1001] } }, /\|value\| ≤ 1000/],
    [{ vocab: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`w${i}`, [1, 2, 3, 4]])) }, /1 to 32 words/],
    [{ vocab: { ['x'.repeat(33)]: [1, 2, 3, 4] } }, /1 to 32 characters/],
    [{ contexts: { river: ['stream', 'nope'] } }, /token the string "nope" is not in the vocabulary/],
    [{ contexts: { river: Array(17).fill('bank') } }, /1 to 16 tokens/],
    [
      {
        weights: {
          wq: [
            [1, 0],
            [0, 1],
            [0.2, 0.2],
          ],
        },
      },
      /weights.wq: expected 4 rows/,
    ],
    [
      {
        weights: {
          wk: [
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 0],
            [0, 0, 0],
          ],
        },
      },
      /weights.wk: expected 2 columns like weights.wq/,
    ],
    [
      {
        weights: {
          wv: [
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [0, 0, 'x'],
          ],
        },
      },
      /weights.wv\[3\]\[2\]/,
    ],
    [{ options: { temperature: 0 } }, /options.temperature: expected a number in \[0.01, 100\], got 0/],
    [{ options: { heads: 3 } }, /options.heads: 3 heads do not divide width 2/],
    [{ options: { heads: 2.5 } }, /options.heads: expected an integer/],
    [{ options: { dropout: 1 } }, /options.dropout/],
    [{ options: { kernel: 'fast' } }, /options.kernel/],
    [{ options: { scale: 'yes' } }, /options.scale/],
    [{ example: 'ocean' }, /example: expected one of river, finance, both, averaging/],
    [{ view: ['weights', '<b>'] }, /view: unknown step the string "<b>"/],
    [{ step: -1 }, /step: expected an integer/],
    [{ selected: { matrix: 'weights', row: 99, col: 0 } }, /selected:/],
    [{ theme: 'neon' }, /theme:/],
    [{ focus: 'ocean' }, /focus:/],
    [{ v: 3 }, /v: expected format version 1 or 2/],
    [{ extra: 1 }, /"extra": unknown field, ignored/],
  ];
  for (const [untrusted, pattern] of cases) {
    const { state, problems } = sanitizeState(JSON.parse(JSON.stringify(untrusted)), defaults());
    assert.ok(
      problems.some((p) => pattern.test(p)),
      `${JSON.stringify(untrusted).slice(0, 80)} → ${JSON.stringify(problems)}`,
    );
    // Whatever was wrong, the result is a complete, valid state.
    assert.deepEqual(sanitizeState(state, defaults()).problems, [], JSON.stringify(untrusted).slice(0, 80));
  }
});

test('Sanitize_ValidPartsOfAHalfBadStateAreKept', () => {
  const { state, problems } = sanitizeState({ example: 'finance', options: { causal: true, heads: 'x' } }, defaults());
  assert.equal(state.example, 'finance');
  assert.equal(state.options.causal, true);
  assert.equal(state.options.heads, 1);
  assert.equal(problems.length, 1);
});

test('Sanitize_ScriptInTokenNamesIsKeptAsPlainData', () => {
  // Token names are data; they are rendered with textContent. The sanitizer keeps them
  // verbatim (within the limits) so what was shared is what is shown.
  const hostile = ['<img src=x onerror=alert(1)>', '</script>', 'javascript:'];
  const vocab = { ...defaults().vocab };
  for (const t of hostile) vocab[t] = [1, 0, 0, 0];
  const { state, problems } = sanitizeState({ vocab, contexts: { river: hostile, finance: ['money'] } }, defaults());
  assert.deepEqual(problems, []);
  assert.deepEqual(state.contexts.river, hostile);
});

test('Sanitize_ProtoKeysCannotReparentObjects', () => {
  const untrusted = JSON.parse('{"vocab": {"__proto__": [1,2,3,4], "a": [1,2,3,4]}, "__proto__": {"polluted": 1}}');
  const { state, problems } = sanitizeState(untrusted, defaults());
  assert.ok(
    problems.some((p) => /__proto__/.test(p)),
    JSON.stringify(problems),
  );
  assert.equal(Object.getPrototypeOf(state.vocab), Object.prototype);
  assert.equal({}.polluted, undefined);
  assert.deepEqual(state.vocab, defaults().vocab);
});

test('Sanitize_CustomWidthWithoutWeightsTakesTheIdentity', () => {
  // A vocabulary of another width than the seed's takes the D × D identity for every matrix it
  // leaves out (queries, keys and values equal the embeddings; X·W = X), and says nothing.
  const vocab = { a: [1, 0], b: [0, 1] };
  const contexts = { mine: ['a', 'b'] };
  const eye = [
    [1, 0],
    [0, 1],
  ];
  const bare = sanitizeState({ vocab, contexts }, defaults());
  assert.deepEqual(bare.problems, []);
  assert.deepEqual(bare.state.vocab, vocab);
  assert.deepEqual(bare.state.weights, { wq: eye, wk: eye, wv: eye, w: eye });
  const some = sanitizeState({ vocab, contexts, weights: { wv: [[2], [3]] } }, defaults());
  assert.deepEqual(some.problems, []);
  assert.deepEqual(some.state.weights.wv, [[2], [3]]);
  assert.deepEqual(some.state.weights.wq, eye);
  // A given matrix of the wrong height still falls back to the default example, named.
  const bad = sanitizeState({ vocab, contexts, weights: { wq: [[1, 0]] } }, defaults());
  assert.ok(
    bad.problems.some((p) => /^weights\.wq: expected 2 rows/.test(p)),
    JSON.stringify(bad.problems),
  );
  assert.deepEqual(bad.state.vocab, defaults().vocab);
  const good = sanitizeState(
    { vocab, contexts, focus: 'mine', weights: { wq: eye, wk: eye, wv: eye, w: eye } },
    defaults(),
  );
  assert.deepEqual(good.problems, []);
  assert.deepEqual(good.state.contexts, contexts);
  assert.equal(good.state.focus, 'mine');
});

test('Sanitize_DoesNotShareObjectsWithItsInputs', () => {
  const d = defaults();
  const input = edited();
  const { state } = sanitizeState(input, d);
  state.vocab.bank[0] = 99;
  state.options.heads = 7;
  assert.notEqual(input.vocab.bank[0], 99);
  assert.notEqual(d.options.heads, 7);
});

test('Example_NamingAContextShowsAndFocusesIt', () => {
  // The hash as the element's attribute: {"example":"finance"} shows finance, not river.
  const fromHash = stateFromHash('#{"example":"finance"}', defaults());
  assert.deepEqual(fromHash.problems, []);
  assert.equal(fromHash.state.example, 'finance');
  assert.equal(fromHash.state.focus, 'finance');
  // A context of the blogger's own may be the example.
  const own = sanitizeState(
    { vocab: { a: [1, 0], b: [0, 1] }, contexts: { mine: ['a', 'b'], yours: ['b', 'a'] }, example: 'yours' },
    defaults(),
  );
  assert.deepEqual(own.problems, []);
  assert.equal(own.state.example, 'yours');
  assert.equal(own.state.focus, 'yours');
  // An explicit focus wins, and a link keeps a focus that differs from the example even when
  // that focus is the default one.
  const s = { ...defaults(), example: 'finance', focus: 'river' };
  const back = stateFromHash(encodeState(s, defaults()), defaults());
  assert.equal(back.state.example, 'finance');
  assert.equal(back.state.focus, 'river');
  const unknown = sanitizeState({ example: 'moon' }, defaults());
  assert.match(unknown.problems[0], /^example: expected one of river, finance, both, averaging, got the string "moon"/);
});

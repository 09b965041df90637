// The byte-level BPE (web/lib/tokenizer/): GPT-2's ids on the fixture that js-tiktoken,
// gpt-tokenizer and a Python reference agree on (tests/fixtures/make_gpt2_tokens.mjs), the round
// trip, what a page shows of tokens that cut a character, every loader and its hostile inputs, and
// the time a 100,000-character input takes (printed, never asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BytePairTokenizer,
  TokenizerError,
  TOKENIZER_LIMITS,
  fromCompact,
  fromTokenizerJson,
  fromVocabAndMerges,
  toCompact,
  toTokenizerJson,
  loadGpt2Tokenizer,
} from '../../../../web/lib/tokenizer/index.js';
import { BYTE_TO_CHAR, bytesSymbol, utf8Characters, utf8Text } from '../../../../web/lib/tokenizer/bytes.js';
import { buildTokenizers } from '../../../../scripts/build-tokenizers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const fixture = JSON.parse(readFileSync(join(root, 'tests/fixtures/tokenizer/gpt2_tokens.json'), 'utf8'));
const GPT2_FILE = join(root, 'web/models/gpt2-tokenizer.bin');
if (!existsSync(GPT2_FILE)) await buildTokenizers();
const gpt2Bytes = readFileSync(GPT2_FILE);
const gpt2 = fromCompact(gpt2Bytes, { file: 'gpt2-tokenizer.bin' });

// GPT-2's own file formats, written from the tokenizer (vocab.json, merges.txt, tokenizer.json).
const symbol = (t, id) => bytesSymbol(t.tokenBytes(id));
function gpt2Files(t) {
  const vocab = {};
  for (let id = 0; id < t.vocabSize; id++) vocab[t.isSpecial(id) ? '<|endoftext|>' : symbol(t, id)] = id;
  const merges =
    '#version: 0.2\n' +
    t
      .merges()
      .map(([a, b]) => `${symbol(t, a)} ${symbol(t, b)}`)
      .join('\n') +
    '\n';
  return { vocab: JSON.stringify(vocab), merges };
}
const throwsTokenizer = (fn, pattern) =>
  assert.throws(fn, (e) => e instanceof TokenizerError && pattern.test(e.message), `expected ${pattern}`);

test('Gpt2_IdsEqualTheFixtureOfThreeImplementations', () => {
  assert.equal(gpt2.vocabSize, 50257);
  assert.equal(gpt2.mergeCount, 50000);
  assert.deepEqual(gpt2.specials, { '<|endoftext|>': 50256 });
  assert.ok(fixture.strings.length >= 60);
  for (const { name, text, ids } of fixture.strings) assert.deepEqual(gpt2.encode(text), ids, name);
  for (const { name, text, ids } of fixture.special)
    assert.deepEqual(gpt2.encode(text, { allowSpecial: true }), ids, name);
  // Python's \s, not JavaScript's: where the JS packages split differently, GPT-2's split wins.
  for (const { name, text, ids, jsPackagesIds } of fixture.pythonOnly) {
    assert.deepEqual(gpt2.encode(text), ids, name);
    assert.notDeepEqual(ids, jsPackagesIds, name);
  }
});

test('Gpt2_FixtureRegeneratesFromThePackages', () => {
  const out = execFileSync('node', [join(root, 'tests/fixtures/make_gpt2_tokens.mjs'), '--check'], {
    encoding: 'utf8',
  });
  assert.match(out, /regenerate byte for byte/);
});

test('Gpt2_DecodeInvertsEncodeForWellFormedText', () => {
  for (const { name, text, ids } of [...fixture.strings, ...fixture.pythonOnly]) {
    assert.equal(gpt2.decode(ids), text.toWellFormed(), name);
  }
  assert.equal(gpt2.decode(gpt2.encode('a\ud800b')), 'a\ufffdb'); // a lone surrogate is U+FFFD in UTF-8
  assert.equal(gpt2.decode(gpt2.encode('\ufeffBOM first')), '\ufeffBOM first'); // kept, not stripped
  assert.equal(gpt2.decode([50256]), '<|endoftext|>');
  // Random strings over every plane, surrogates included.
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 300; n++) {
    let s = '';
    const length = Math.floor(random() * 40);
    for (let i = 0; i < length; i++) {
      const pick = random();
      const cp =
        pick < 0.4
          ? 32 + Math.floor(random() * 95)
          : pick < 0.6
            ? Math.floor(random() * 0x800)
            : pick < 0.8
              ? Math.floor(random() * 0x10000)
              : 0x10000 + Math.floor(random() * 0x100000);
      s += cp >= 0xd800 && cp < 0xe000 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
    }
    assert.equal(gpt2.decode(gpt2.encode(s)), s.toWellFormed(), JSON.stringify(s));
  }
});

test('Describe_ShowsCharactersCutBetweenTokensAsTheirBytes', () => {
  const text = 'I 👍 it 🇫🇷\n';
  const ids = gpt2.encode(text);
  const chips = gpt2.describe(ids);
  assert.equal(chips.length, ids.length);
  assert.equal(chips.map((c) => c.text).join('') === text, false); // halves of 👍 are U+FFFD alone
  // Every byte is shown once, in order, and whole characters as text.
  const bytes = chips.flatMap((c) => [...c.bytes]);
  assert.equal(utf8Text(Uint8Array.from(bytes)), text);
  const thumbs = chips.filter((c) => c.pieces.some((p) => p.fragment?.char === '👍'));
  assert.ok(thumbs.length >= 2, 'GPT-2 splits 👍 (F0 9F 91 8D) across tokens');
  const shares = thumbs.flatMap((c) => c.pieces.filter((p) => p.fragment?.char === '👍').map((p) => p.fragment));
  assert.deepEqual(
    shares.map((f) => [f.from, f.bytes.length, f.length]),
    [
      [0, shares[0].bytes.length, 4],
      [shares[0].bytes.length, 4 - shares[0].bytes.length, 4],
    ].slice(0, shares.length),
  );
  assert.equal(
    shares.reduce((n, f) => n + f.bytes.length, 0),
    4,
  );
  assert.match(thumbs[0].display, /⟨F0 9F( 91)?⟩/);
  assert.equal(chips.at(-1).display.endsWith('\\n'), true);
  // Special tokens and invalid bytes (a model's sample can be any ids).
  const special = gpt2.describe([15496, 50256]);
  assert.deepEqual(
    special.map((c) => [c.special, c.display]),
    [
      [false, 'Hello'],
      [true, '<|endoftext|>'],
    ],
  );
  const lone = gpt2.describe([gpt2.encode('👍')[0]]); // the first part of 👍 alone
  assert.equal(lone[0].pieces[0].fragment.valid, false);
  assert.equal(lone[0].text, '\ufffd');
  const controls = gpt2.describe(gpt2.encode('a\u0007\tb'));
  assert.equal(controls.map((c) => c.display).join(''), 'a⟨U+0007⟩\\tb');
});

test('Utf8Characters_GroupInvalidBytesAsTextDecoderDoes', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const interesting = [
    0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x90, 0x8f,
  ];
  for (let n = 0; n < 2000; n++) {
    const bytes = Uint8Array.from({ length: Math.floor(random() * 12) }, () =>
      random() < 0.6 ? interesting[Math.floor(random() * interesting.length)] : Math.floor(random() * 256),
    );
    const chars = utf8Characters(bytes);
    assert.equal(chars.map((c) => c.char).join(''), utf8Text(bytes), Array.from(bytes).join(','));
    let at = 0;
    for (const c of chars) {
      assert.equal(c.start, at);
      at = c.end;
    }
    assert.equal(at, bytes.length);
  }
});

test('Loaders_VocabMergesAndTokenizerJsonGiveGpt2sIds', () => {
  const { vocab, merges } = gpt2Files(gpt2);
  const fromFiles = fromVocabAndMerges(vocab, new TextEncoder().encode(merges));
  const json = toTokenizerJson(gpt2);
  const pairs = fromTokenizerJson(JSON.stringify(json));
  const strings = fromTokenizerJson(
    JSON.stringify({ ...json, model: { ...json.model, merges: json.model.merges.map((m) => m.join(' ')) } }),
  );
  const again = fromCompact(toCompact(gpt2));
  for (const t of [fromFiles, pairs, strings, again]) {
    assert.equal(t.vocabSize, 50257);
    assert.deepEqual(t.specials, { '<|endoftext|>': 50256 });
    for (const { name, text, ids } of fixture.strings.slice(0, 30)) assert.deepEqual(t.encode(text), ids, name);
  }
  assert.equal(BYTE_TO_CHAR[32], 'Ġ');
  assert.equal(BYTE_TO_CHAR[10], 'Ċ');
});

test('Loaders_RefuseHostileFilesNamingTheFileAndTheFault', () => {
  const { vocab, merges } = gpt2Files(gpt2);
  const v = JSON.parse(vocab);
  const withVocab = (o) => () => fromVocabAndMerges(JSON.stringify(o), merges);
  throwsTokenizer(() => fromVocabAndMerges('{"a": 1', merges), /^vocab\.json: not JSON/);
  throwsTokenizer(
    () => fromVocabAndMerges('[1, 2]', merges),
    /^vocab\.json: expected an object of token → id, got an array/,
  );
  throwsTokenizer(() => fromVocabAndMerges(Uint8Array.of(0xff, 0xfe), merges), /^vocab\.json: not UTF-8 text/);
  throwsTokenizer(() => fromVocabAndMerges(42, merges), /^vocab\.json: expected the file as text/);
  throwsTokenizer(withVocab({ ...v, hello: -1 }), /the id of "hello" is "-1"; expected an integer/);
  throwsTokenizer(withVocab({ ...v, hello: 1.5 }), /the id of "hello" is "1.5"/);
  throwsTokenizer(withVocab({ ...v, hello: 0 }), /"!" and "hello" have the same id 0/);
  throwsTokenizer(withVocab({ ...v, 'naïve ☃': 60000 }), /not written in GPT-2's byte alphabet/);
  const noByte = { ...v };
  delete noByte['Ġ'];
  throwsTokenizer(() => fromVocabAndMerges(JSON.stringify(noByte), merges), /byte 0x20 \("Ġ"\) has no token/);
  throwsTokenizer(() => fromVocabAndMerges(vocab, '#version: 0.2\n'), /^merges\.txt: no merges/);
  throwsTokenizer(
    () => fromVocabAndMerges(vocab, 'Ġ t\nthree parts here\n'),
    /^merges\.txt line 2: expected two tokens/,
  );
  throwsTokenizer(() => fromVocabAndMerges(vocab, 'Ġ t\nqqqq zzzz\n'), /^merges\.txt line 2: "qqqq" is not a token/);
  throwsTokenizer(
    () => fromVocabAndMerges(vocab, 'Ġ t\nz q\n'),
    /^merges\.txt line 2: "zq" \(the merge of "z" and "q"\) is not in vocab\.json/,
  );
  // Names that are properties of every JS object are tokens like any other.
  const bytesOnly = Object.fromEntries(BYTE_TO_CHAR.map((c, b) => [c, b]));
  const tiny = JSON.stringify({ ...bytesOnly, con: 256, structor: 257, __: 258, proto: 259 });
  throwsTokenizer(
    () => fromVocabAndMerges(tiny, 'con structor\n'),
    /line 1: "constructor" \(the merge of "con" and "structor"\) is not in vocab\.json/,
  );
  throwsTokenizer(() => fromVocabAndMerges(tiny, '__ proto\n'), /line 1: "__proto" \(the merge/);
  const withProto = fromVocabAndMerges('{"__proto__": 260, "proto__": 261, ' + tiny.slice(1), '_ _\n__ proto__\n');
  assert.equal(withProto.vocabSize, 262);
  assert.equal(withProto.decode([260]), '__proto__');
  assert.deepEqual(withProto.encode('__'), [258]);
  const huge = new Uint8Array(TOKENIZER_LIMITS.maxFileBytes + 1);
  throwsTokenizer(() => fromVocabAndMerges(huge, merges), /^vocab\.json: 67108865 bytes; at most 67108864/);
  throwsTokenizer(
    () => fromVocabAndMerges(vocab, merges.repeat(2)),
    /^merges\.txt line 50002: "#version:" is not a token of vocab\.json/,
  );

  const json = toTokenizerJson(gpt2);
  const withJson = (o) => () => fromTokenizerJson(JSON.stringify(o));
  throwsTokenizer(() => fromTokenizerJson('not json'), /^tokenizer\.json: not JSON/);
  throwsTokenizer(() => fromTokenizerJson('null'), /^tokenizer\.json: expected a JSON object, got null/);
  throwsTokenizer(withJson({ ...json, model: null }), /expected a "model" object, got null/);
  throwsTokenizer(
    withJson({ ...json, model: { ...json.model, type: 'WordPiece' } }),
    /model\.type is "WordPiece"; only byte-level "BPE"/,
  );
  throwsTokenizer(
    withJson({ ...json, model: { ...json.model, merges: undefined } }),
    /model\.merges: expected an array, got undefined/,
  );
  throwsTokenizer(withJson({ ...json, model: { ...json.model, merges: [] } }), /model\.merges: no merges/);
  throwsTokenizer(
    withJson({ ...json, model: { ...json.model, merges: [['Ġ', 't'], 7] } }),
    /model\.merges\[1\]: expected "left right" or \["left", "right"\], got number/,
  );
  throwsTokenizer(withJson({ ...json, model: { ...json.model, byte_fallback: true } }), /SentencePiece-style BPE/);
  throwsTokenizer(withJson({ ...json, normalizer: { type: 'NFC' } }), /normalizer "NFC" is not supported/);
  throwsTokenizer(
    withJson({ ...json, pre_tokenizer: { type: 'Metaspace' } }),
    /pre_tokenizer is "Metaspace"; expected "ByteLevel"/,
  );
  throwsTokenizer(
    withJson({ ...json, added_tokens: [{ id: 5, content: '<|endoftext|>' }] }),
    /added_tokens\[0\]: "<\|endoftext\|>" has id 5 here and 50256/,
  );

  const compact = toCompact(gpt2);
  throwsTokenizer(
    () => fromCompact(compact.subarray(0, compact.length - 2), { file: 'g.bin' }),
    /^g\.bin: \d+ bytes; the header says/,
  );
  throwsTokenizer(
    () => fromCompact(new TextEncoder().encode('{"not": "binary"}'), { file: 'g.bin' }),
    /^g\.bin: not a compact BPE file/,
  );
  const broken = compact.slice();
  const J = new DataView(broken.buffer).getUint32(8, true);
  new DataView(broken.buffer).setUint16(12 + J + 2 * 256, 60000, true); // the first merge's left part
  throwsTokenizer(
    () => fromCompact(broken, { file: 'g.bin' }),
    /^g\.bin: merge 0: its parts 60000, \d+ are not defined before it/,
  );
});

test('BytePairTokenizer_ChecksItsArguments', () => {
  throwsTokenizer(() => gpt2.encode(42), /^text: expected a string, got number/);
  throwsTokenizer(
    () => gpt2.encode('x'.repeat(TOKENIZER_LIMITS.maxChars + 1)),
    /^text: 1000001 characters; at most 1000000/,
  );
  throwsTokenizer(() => gpt2.decode([1, 50257]), /^ids\[1\]: expected a token id of gpt2 in \[0, 50257\), got 50257/);
  throwsTokenizer(() => gpt2.decode([1.5]), /^ids\[0\]: expected a token id/);
  throwsTokenizer(() => gpt2.describe('abc'), /^ids: expected an array of token ids/);
  throwsTokenizer(
    () => new BytePairTokenizer({ name: 'tiny', tokens: new Array(256).fill(Uint8Array.of(0)), merges: [] }),
    /^tiny: not a byte-level BPE: byte 0x01 has no token of its own/,
  );
});

test('BytePairTokenizer_DecodesWhateverEncodeGives', () => {
  // tests/fuzz/js F11: 400,000 characters of U+0800 are 1,200,000 ids (3 bytes each, unmerged),
  // which decode refused when its limit was 1,000,000 ids.
  assert.ok(TOKENIZER_LIMITS.maxIds >= 3 * TOKENIZER_LIMITS.maxChars + 1);
  const text = '\u0800'.repeat(400_000);
  const ids = gpt2.encode(text);
  assert.equal(ids.length, 1_200_000);
  assert.equal(gpt2.decode(ids), text);
  throwsTokenizer(() => gpt2.decode(new Int32Array(TOKENIZER_LIMITS.maxIds + 1)), /^ids: 3000002 ids; at most 3000001/);
});

test('Gpt2_LongInputsTakeMillisecondsNotMinutes', () => {
  // Printed for the report; a per-chunk quadratic merge (js-tiktoken's) takes ~2 minutes on a
  // 20,000-letter word here. Timing is never asserted.
  const word = 'abcdefghij'.repeat(10000);
  let t0 = performance.now();
  const ids = gpt2.encode(word);
  const wordMs = performance.now() - t0;
  assert.equal(gpt2.decode(ids), word);
  const prose = fixture.strings
    .find((s) => s.name === 'paragraph')
    .text.repeat(600)
    .slice(0, 100000);
  t0 = performance.now();
  const proseIds = gpt2.encode(prose);
  const proseMs = performance.now() - t0;
  assert.equal(gpt2.decode(proseIds), prose);
  console.log(
    `gpt2 encode: 100,000-letter word ${wordMs.toFixed(0)} ms (${ids.length} tokens); ` +
      `100,000 characters of prose ${proseMs.toFixed(0)} ms (${proseIds.length} tokens)`,
  );
});

test('LoadGpt2Tokenizer_FetchesTheCompactFileAndNamesFailures', async () => {
  const ok = async () => ({
    ok: true,
    arrayBuffer: async () => gpt2Bytes.buffer.slice(gpt2Bytes.byteOffset, gpt2Bytes.byteOffset + gpt2Bytes.length),
  });
  const t = await loadGpt2Tokenizer({ url: 'x', fetch: ok });
  assert.deepEqual(t.encode('Hello world'), [15496, 995]);
  await assert.rejects(
    loadGpt2Tokenizer({ url: 'x', fetch: async () => ({ ok: false, status: 404, statusText: 'Not Found' }) }),
    /gpt2-tokenizer\.bin: x answered 404 Not Found/,
  );
  await assert.rejects(
    loadGpt2Tokenizer({
      url: 'x',
      fetch: async () => {
        throw new Error('offline');
      },
    }),
    /could not be fetched from x \(offline\)/,
  );
});

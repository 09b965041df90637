// A seeded, grammar-aware mutation fuzzer for the byte-level BPE tokenizers (web/lib/tokenizer/),
// which libFuzzer cannot reach: GPT-2's (web/models/gpt2-tokenizer.bin) and the shipped model's
// (web/models/brown-wordnet.tokenizer.json), and the three loaders on hostile files.
//
//   node tests/fuzz/js/tokenizer_fuzz.mjs [--seed N] [--seconds S | --executions N]
//   import { fuzzTokenizers } from './tokenizer_fuzz.mjs'   (tests/js/lib/tokenizer/tokenizer-fuzz.test.mjs)
//
// Texts are built from a grammar of the pieces that break tokenizers (every Unicode plane, lone
// surrogates, whitespace runs with Python's and JavaScript's \s differences, contractions,
// digits of many scripts, emoji ZWJ sequences and flags, RTL and bidi marks, combining marks,
// controls, <|endoftext|>, huge repeats) and by mutating the fixture's strings
// (tests/fixtures/tokenizer/gpt2_tokens.json). Hostile files are a small valid tokenizer.json,
// vocab.json + merges.txt and compact file, damaged structurally (fields dropped or given every
// JSON kind, ids duplicated or out of range, merges naming unknown tokens, bytes flipped, files
// cut, invalid UTF-8).
//
// What counts as a finding (reported with the seed and execution that reproduce it):
//   - encode/decode: decode(encode(text)) !== text.toWellFormed() (with the prefix space the
//     tokenizer adds), also with allowSpecial; an id that is not an integer in [0, vocabSize), or
//     a special token's id from an ordinary encode;
//   - GPT-2: ids other than js-tiktoken's and gpt-tokenizer's on texts where those are correct
//     (no U+0085 or U+FEFF, whose \s differs from Python's; no special token texts; at most 4,000
//     characters, as their merge loops are quadratic);
//   - a call slower than the time bound (2 s, or 4 s for texts over 100,000 characters);
//   - loaders: an exception other than TokenizerError, or one whose `file` does not start with
//     the file's name or whose message does not start with its `file`; a loaded tokenizer that
//     fails the round trip on a few texts; a load slower than the bound.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import gpt2Ranks from 'js-tiktoken/ranks/gpt2';
import { encode as gptTokenizerEncode } from 'gpt-tokenizer/encoding/r50k_base';
import {
  TOKENIZER_LIMITS,
  TokenizerError,
  fromCompact,
  fromTokenizerJson,
  fromVocabAndMerges,
  toCompact,
  toTokenizerJson,
} from '../../../web/lib/tokenizer/index.js';
import { bytesSymbol } from '../../../web/lib/tokenizer/bytes.js';
import { buildTokenizers } from '../../../scripts/build-tokenizers.mjs';
import { mulberry32 } from '../../../web/lib/learn/random.js';
import { cliOption } from '../../../bench/report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

// ---- a seeded PRNG (mulberry32) and its helpers

function rng(seed) {
  const next = mulberry32(seed);
  const int = (n) => Math.floor(next() * n); // [0, n)
  const pick = (list) => list[int(list.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

// ---- the text grammar

const WHITESPACE = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u0085',
  '\ufeff',
  '\u1680',
  '\u2000',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\u180e',
  '\u200b',
];
const CONTRACTIONS = [
  "'s",
  "'t",
  "'re",
  "'ve",
  "'m",
  "'ll",
  "'d",
  "'S",
  "'T",
  "'RE",
  "'LL",
  "''",
  "'",
  '’s',
  "n't",
  "o'",
];
const DIGITS = [
  '0',
  '7',
  '12',
  '123',
  '1234',
  '99999',
  '3.14',
  '1,000',
  '٣٤٥',
  '४५६',
  '๓',
  '½',
  'Ⅻ',
  '²',
  '𝟘𝟙',
  '１２',
];
const EMOJI = [
  '👍',
  '😀',
  '❤️',
  '✨',
  '🎉',
  '👍🏽',
  '👨‍👩‍👧‍👦',
  '👩‍💻',
  '🏳️‍🌈',
  '🧑🏽‍🚀',
  '🇫🇷',
  '🇯🇵',
  '🏴󠁧󠁢󠁳󠁣󠁴󠁿',
  '1️⃣',
  '#️⃣',
  '\u200d',
  '\ufe0f',
  '\ud83c\udffd',
];
const BIDI = [
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  'שלום',
  'مرحبا',
  'א״ב',
  '\u061c',
];
const WORDS = [
  'the',
  'The',
  'bank',
  ' river',
  'a',
  'I',
  'hello',
  'Größe',
  'été',
  'Ωμέγα',
  'Съешь',
  '我能',
  'ガラス',
  '나는',
  'मैं',
  'ฉัน',
  'x',
  'ab',
  'aaaaaaaa',
  'camelCase',
  'snake_case',
  'https://x.org/a?b=c',
  'e\u0301',
  'Z\u0351\u0352',
];
const PUNCT = [
  '.',
  ',',
  '!',
  '?',
  '...',
  '--',
  '—',
  '"',
  '“',
  '”',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  '/',
  '\\',
  '#',
  '$',
  '%',
  '^',
  '&',
  '*',
  '_',
  '=',
  '+',
  '~',
  '`',
  '|',
  ';',
  ':',
  '@',
];
const SPECIAL_TEXTS = [
  '<|endoftext|>',
  '<|endoftext|',
  '<|endoftext|><|endoftext|>',
  '< |endoftext|>',
  '<|ENDOFTEXT|>',
];
const CONTROLS = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0080',
  '\u009f',
  '\u00ad',
  '\u034f',
  '\u2060',
  '\ufff9',
  '\ufffc',
  '\ufffd',
  '\uffff',
  '\ufffe',
];

// A code point of any plane, weighted toward the interesting ones (surrogates included: lone).
function codePoint(r) {
  switch (r.int(9)) {
    case 0:
      return r.int(0x80);
    case 1:
      return 0x80 + r.int(0x780);
    case 2:
      return 0x800 + r.int(0xd800 - 0x800);
    case 3:
      return 0xd800 + r.int(0x800); // a lone surrogate (high or low)
    case 4:
      return 0xe000 + r.int(0x2000); // private use, specials
    case 5:
      return 0x10000 + r.int(0x10000); // SMP: emoji, math, scripts
    case 6:
      return 0x20000 + r.int(0x20000); // SIP, TIP: CJK extensions
    case 7:
      return 0xe0000 + r.int(0x30000); // tags, plane 15/16 private use
    default:
      return 0x300 + r.int(0x70); // combining marks
  }
}
const fromCodePoint = (cp) => (cp >= 0xd800 && cp < 0xe000 ? String.fromCharCode(cp) : String.fromCodePoint(cp));

function piece(r) {
  switch (r.int(12)) {
    case 0:
      return r.pick(WHITESPACE).repeat(1 + r.int(r.chance(0.1) ? 200 : 4));
    case 1:
      return r.pick(CONTRACTIONS);
    case 2:
      return r.pick(DIGITS).repeat(1 + r.int(3));
    case 3:
      return r.pick(EMOJI);
    case 4:
      return r.pick(BIDI);
    case 5:
      return r.pick(WORDS);
    case 6:
      return r.pick(PUNCT).repeat(1 + r.int(3));
    case 7:
      return r.pick(SPECIAL_TEXTS);
    case 8:
      return r.pick(CONTROLS);
    case 9:
      return fromCodePoint(codePoint(r));
    case 10: {
      let s = '';
      for (let i = 1 + r.int(6); i > 0; i--) s += fromCodePoint(codePoint(r));
      return s;
    }
    default:
      return ' ' + r.pick(WORDS);
  }
}

// A huge repeat: one piece (or a word without spaces: one pre-token, the merge loop's worst case)
// thousands of times.
function hugeRepeat(r) {
  const unit = r.chance(0.5)
    ? r.pick(['a', 'ab', 'x y ', '1', ' ', '😀', "'s", '\u0301', 'é', '<|endoftext|>'])
    : piece(r);
  return unit.repeat(1000 + r.int(r.chance(0.2) ? 60000 : 8000));
}

function grammarText(r) {
  if (r.chance(0.02)) return hugeRepeat(r);
  let s = '';
  for (let i = r.int(r.chance(0.3) ? 40 : 12); i >= 0; i--) s += piece(r);
  return s;
}

// Mutations of a string: character-level edits with pieces of the grammar.
function mutate(r, text) {
  let s = text;
  for (let n = 1 + r.int(4); n > 0; n--) {
    const at = r.int(s.length + 1);
    switch (r.int(7)) {
      case 0:
        s = s.slice(0, at) + piece(r) + s.slice(at);
        break;
      case 1:
        s = s.slice(0, at) + s.slice(at + 1 + r.int(8));
        break;
      case 2:
        s = s.slice(0, at) + s.slice(at, at + 1 + r.int(16)).repeat(2 + r.int(6)) + s.slice(at);
        break;
      case 3:
        s = s.slice(0, at) + fromCodePoint(codePoint(r)) + s.slice(at + 1);
        break;
      case 4:
        s = r.chance(0.5) ? s.toUpperCase() : s.toLowerCase();
        break;
      case 5:
        s = s.slice(at) + s.slice(0, at);
        break;
      default:
        s = s.slice(0, at) + r.pick(WHITESPACE) + s.slice(at);
        break;
    }
  }
  return s;
}

// ---- oracles

export class Finding extends Error {}

const TIME_BOUND_MS = 2000;
const boundFor = (chars) => (chars > 100_000 ? 2 * TIME_BOUND_MS : TIME_BOUND_MS);

function timed(what, chars, fn) {
  const t0 = performance.now();
  const out = fn();
  const ms = performance.now() - t0;
  if (ms > boundFor(chars)) throw new Finding(`${what}: ${ms.toFixed(0)} ms for ${chars} characters`);
  return out;
}

const preview = (s) => JSON.stringify(s.length > 120 ? s.slice(0, 120) + `… (${s.length} chars)` : s);

function checkRoundTrip(tokenizer, text) {
  if (text.length > TOKENIZER_LIMITS.maxChars) {
    // Refused by name, whatever the text (a huge repeat can pass the limit).
    try {
      tokenizer.encode(text);
    } catch (error) {
      if (error instanceof TokenizerError && error.argument === 'text') return;
      throw error;
    }
    throw new Finding(`${tokenizer.name}: encode took ${text.length} characters, above maxChars`);
  }
  const expected = (tokenizer.addPrefixSpace && text.length && text[0] !== ' ' ? ' ' + text : text).toWellFormed();
  for (const allowSpecial of [false, true]) {
    const ids = timed(`${tokenizer.name} encode`, text.length, () => tokenizer.encode(text, { allowSpecial }));
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= tokenizer.vocabSize) {
        throw new Finding(`${tokenizer.name}: id ${id} outside [0, ${tokenizer.vocabSize}) for ${preview(text)}`);
      }
      if (!allowSpecial && tokenizer.isSpecial(id)) {
        throw new Finding(`${tokenizer.name}: special id ${id} from an ordinary encode of ${preview(text)}`);
      }
    }
    const back = timed(`${tokenizer.name} decode`, text.length, () => tokenizer.decode(ids));
    if (back !== expected) {
      throw new Finding(
        `${tokenizer.name}: decode(encode(text${allowSpecial ? ', allowSpecial' : ''})) differs for ${preview(text)}: ${preview(back)}`,
      );
    }
  }
}

// Where js-tiktoken and gpt-tokenizer are GPT-2's tokenizer (tests/fixtures/make_gpt2_tokens.mjs).
const comparable = (text) => text.length <= 4000 && !/[\u0085\ufeff]/.test(text) && !text.includes('<|endoftext|>');

function checkAgainstPeers(gpt2, peers, text) {
  const ours = gpt2.encode(text);
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const tiktoken = peers.tiktoken.encode(text);
  if (!same(ours, tiktoken)) throw new Finding(`gpt2 differs from js-tiktoken for ${preview(text)}`);
  const gptTokenizer = gptTokenizerEncode(text);
  if (!same(ours, gptTokenizer)) throw new Finding(`gpt2 differs from gpt-tokenizer for ${preview(text)}`);
}

// ---- hostile files

const KINDS = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  2 ** 53,
  1e308,
  -0,
  '',
  'x',
  '__proto__',
  [],
  [1, 2],
  {},
  { a: 1 },
];

// A JSON value changed at a random path: a field dropped, given another kind, duplicated.
function mutateJson(r, value, depth = 0) {
  if (value === null || typeof value !== 'object' || depth > 6 || r.chance(0.25)) {
    if (r.chance(0.15) && typeof value === 'string') return value + fromCodePoint(codePoint(r));
    if (r.chance(0.1) && Number.isInteger(value)) return r.pick([value + 1, value - 1, -value, value * 1000]);
    return structuredClone(r.pick(KINDS));
  }
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  const keys = Object.keys(copy);
  if (!keys.length) return copy;
  for (let n = 1 + r.int(3); n > 0; n--) {
    const key = r.pick(keys);
    switch (r.int(6)) {
      case 0:
        if (Array.isArray(copy)) copy.splice(Number(key), 1);
        else delete copy[key];
        break;
      case 1:
        if (Array.isArray(copy)) copy.push(copy[Number(key)]);
        else copy[key + r.pick(['', 'x', ' '])] = copy[key];
        break;
      case 2:
        if (Array.isArray(copy) && copy.length > 1) copy.reverse();
        break;
      default:
        copy[key] = mutateJson(r, copy[key], depth + 1);
    }
  }
  return copy;
}

// Text-level damage of a serialised file: cut, bytes flipped, invalid UTF-8, deep nesting.
function damageBytes(r, bytes) {
  let b = Uint8Array.from(bytes);
  switch (r.int(6)) {
    case 0:
      return b.subarray(0, r.int(b.length + 1));
    case 1:
      for (let n = 1 + r.int(8); n > 0; n--) b[r.int(b.length)] ^= 1 << r.int(8);
      return b;
    case 2: {
      const at = r.int(b.length + 1);
      const bad = r.pick([[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]);
      return Uint8Array.from([...b.subarray(0, at), ...bad, ...b.subarray(at)]);
    }
    case 3: {
      const depth = 1 + r.int(200000);
      return new TextEncoder().encode('['.repeat(depth) + ']'.repeat(r.chance(0.5) ? depth : 0));
    }
    case 4: {
      const at = r.int(b.length + 1);
      return Uint8Array.from([...b.subarray(0, at), ...b.subarray(r.int(b.length + 1))]);
    }
    default: {
      // Little-endian fields of the compact form: the header length, a vocab size.
      if (b.length >= 12)
        new DataView(b.buffer).setUint32(8, r.pick([0, 1, 0xffffffff, b.length, b.length - 11]), true);
      return b;
    }
  }
}

// A small byte-level BPE, from the shipped tokenizer: every byte, its first merges, the special.
function smallFiles(shipped, merges = 48) {
  const symbol = (id) => bytesSymbol(shipped.tokenBytes(id));
  const kept = shipped.merges().slice(0, merges);
  const vocab = {};
  for (const id of shipped.byteTokens()) vocab[symbol(id)] = id;
  for (const [, , c] of kept) vocab[symbol(c)] = c;
  for (const [text, id] of Object.entries(shipped.specials)) vocab[text] = id;
  const mergeLines = kept.map(([a, b]) => `${symbol(a)} ${symbol(b)}`);
  const json = toTokenizerJson(shipped);
  json.model.vocab = vocab;
  json.model.merges = kept.map(([a, b]) => [symbol(a), symbol(b)]);
  const small = fromTokenizerJson(JSON.stringify(json));
  return {
    tokenizerJson: json,
    vocabJson: JSON.parse(JSON.stringify(vocab)),
    merges: '#version: 0.2\n' + mergeLines.join('\n') + '\n',
    compact: toCompact(small),
  };
}

// `files`: the names the error may start with (either of vocab.json and merges.txt).
export function checkLoad(what, files, load) {
  let tokenizer;
  const t0 = performance.now();
  try {
    tokenizer = load();
  } catch (error) {
    if (!(error instanceof TokenizerError)) {
      throw new Finding(
        `${what}: ${error?.constructor?.name ?? typeof error} instead of a TokenizerError: ${error?.message}`,
      );
    }
    const named = typeof error.file === 'string' && files.some((f) => error.file.startsWith(f));
    if (!named || !error.message.startsWith(error.file)) {
      throw new Finding(
        `${what}: a TokenizerError that does not name ${files.join(' or ')}: file ${error.file}, ${error.message}`,
      );
    }
  }
  const ms = performance.now() - t0;
  if (ms > TIME_BOUND_MS) throw new Finding(`${what}: ${ms.toFixed(0)} ms`);
  if (tokenizer)
    for (const text of ['', 'hello world', ' the bank', '😀 é\u0301 <|endoftext|>', '\ud800x'])
      checkRoundTrip(tokenizer, text);
}

function hostileFile(r, files) {
  const encode = (v) => new TextEncoder().encode(JSON.stringify(v));
  const maybeDamaged = (bytes) => (r.chance(0.3) ? damageBytes(r, bytes) : bytes);
  switch (r.int(3)) {
    case 0: {
      const json = r.chance(0.8) ? mutateJson(r, files.tokenizerJson) : files.tokenizerJson;
      const data = maybeDamaged(encode(json));
      checkLoad('fromTokenizerJson', ['tokenizer.json'], () => fromTokenizerJson(data));
      return;
    }
    case 1: {
      const vocab = maybeDamaged(encode(r.chance(0.6) ? mutateJson(r, files.vocabJson) : files.vocabJson));
      let merges = files.merges;
      if (r.chance(0.6)) {
        const lines = merges.split('\n');
        for (let n = 1 + r.int(3); n > 0; n--) {
          const at = r.int(lines.length);
          lines[at] = r.chance(0.5)
            ? mutate(r, lines[at])
            : r.pick(['', '#version: 0.2', 'a', 'a  b', 'Ġ Ġ Ġ', 'zz qq']);
        }
        merges = lines.join(r.chance(0.2) ? '\r\n' : '\n');
      }
      const mergesData = r.chance(0.3) ? damageBytes(r, new TextEncoder().encode(merges)) : merges;
      checkLoad('fromVocabAndMerges', ['vocab.json', 'merges.txt'], () => fromVocabAndMerges(vocab, mergesData));
      return;
    }
    default: {
      let bytes = files.compact;
      if (r.chance(0.5)) {
        // The header's JSON changed, the ids after it kept (the length field rewritten to match).
        const J = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
        const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + J)));
        let text = JSON.stringify(mutateJson(r, header));
        while ((12 + new TextEncoder().encode(text).length) % 4) text += ' ';
        const h = new TextEncoder().encode(text);
        const out = new Uint8Array(12 + h.length + bytes.length - 12 - J);
        out.set(bytes.subarray(0, 8));
        new DataView(out.buffer).setUint32(8, h.length, true);
        out.set(h, 12);
        out.set(bytes.subarray(12 + J), 12 + h.length);
        bytes = out;
      }
      if (r.chance(0.6)) bytes = damageBytes(r, bytes);
      checkLoad('fromCompact', ['tokenizer'], () => fromCompact(bytes));
    }
  }
}

// ---- the loop

/** The tokenizers and peers the fuzzer runs against (loaded once). */
export async function loadTargets() {
  const gpt2File = join(root, 'web/models/gpt2-tokenizer.bin');
  if (!existsSync(gpt2File)) await buildTokenizers();
  const gpt2 = fromCompact(readFileSync(gpt2File), { file: 'gpt2-tokenizer.bin' });
  const shipped = fromTokenizerJson(readFileSync(join(root, 'web/models/brown-wordnet.tokenizer.json')), {
    file: 'brown-wordnet.tokenizer.json',
  });
  const fixture = JSON.parse(readFileSync(join(root, 'tests/fixtures/tokenizer/gpt2_tokens.json'), 'utf8'));
  const seeds = [...fixture.strings, ...fixture.special, ...fixture.pythonOnly].map((s) => s.text);
  return { gpt2, shipped, seeds, files: smallFiles(shipped), peers: { tiktoken: new Tiktoken(gpt2Ranks) } };
}

/**
 * Runs the fuzzer from `seed` for `executions` inputs or `seconds`, whichever ends first.
 * Returns {executions, texts, files, findings: [{execution, message}]}; stops at the first finding
 * unless keepGoing.
 */
export async function fuzzTokenizers({
  seed = 1,
  executions = Infinity,
  seconds = Infinity,
  keepGoing = false,
  targets,
} = {}) {
  const t = targets ?? (await loadTargets());
  const r = rng(seed);
  const stats = { seed, executions: 0, texts: 0, files: 0, compared: 0, findings: [] };
  const end = performance.now() + seconds * 1000;
  while (stats.executions < executions && performance.now() < end) {
    const execution = stats.executions++;
    try {
      if (r.chance(0.15)) {
        stats.files++;
        hostileFile(r, t.files);
        continue;
      }
      stats.texts++;
      const text = r.chance(0.4) ? mutate(r, r.pick(t.seeds)) : grammarText(r);
      checkRoundTrip(t.gpt2, text);
      checkRoundTrip(t.shipped, text);
      if (comparable(text)) {
        stats.compared++;
        checkAgainstPeers(t.gpt2, t.peers, text);
      }
    } catch (error) {
      const message = error instanceof Finding ? error.message : `uncaught ${error?.name}: ${error?.message}`;
      stats.findings.push({ execution, message });
      if (!keepGoing) break;
    }
  }
  return stats;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name, fallback) => Number(cliOption(name, fallback));
  const seed = arg('seed', 1);
  const t0 = performance.now();
  const stats = await fuzzTokenizers({
    seed,
    seconds: arg('seconds', Infinity),
    executions: arg('executions', arg('seconds', null) === null ? 10000 : Infinity),
    keepGoing: process.argv.includes('--keep-going'),
  });
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `tokenizer fuzz: seed ${seed}, ${stats.executions} executions (${stats.texts} texts, ${stats.compared} compared with js-tiktoken and gpt-tokenizer, ${stats.files} hostile files) in ${s} s, ${stats.findings.length} findings`,
  );
  for (const f of stats.findings.slice(0, 20)) console.log(`  execution ${f.execution}: ${f.message}`);
  process.exitCode = stats.findings.length ? 1 : 0;
}

// Byte-level BPE tokenizers from files, each treated as hostile input: a checkpoint's vocab.json +
// merges.txt (GPT-2's own files), Hugging Face's tokenizer.json (model.type "BPE", merges as
// "a b" strings or ["a", "b"] pairs), and this project's compact binary form (GPT-2's encoding
// as the page ships it, written by scripts/build-tokenizers.mjs). Every failure is a
// TokenizerError naming the file and what is wrong with it. Pure; tests/js/lib/tokenizer/tokenizer.test.mjs.

import { BYTE_TO_CHAR, bytesSymbol, symbolBytes } from './bytes.js';
import { BytePairTokenizer, TOKENIZER_LIMITS, TokenizerError } from './bpe.js';

const GPT2_SPECIALS = ['<|endoftext|>'];
const MAX_SHOWN = 40;
const show = (s) => JSON.stringify(s.length > MAX_SHOWN ? s.slice(0, MAX_SHOWN) + '…' : s);

/** File contents (a string, Uint8Array or ArrayBuffer) as text, size- and UTF-8-checked. */
function fileText(data, file) {
  const fail = (what) => new TokenizerError(`${file}: ${what}`, file, file);
  if (typeof data === 'string') {
    if (data.length > TOKENIZER_LIMITS.maxFileBytes) {
      throw fail(`${data.length} characters; at most ${TOKENIZER_LIMITS.maxFileBytes} bytes`);
    }
    return data;
  }
  const bytes = data instanceof Uint8Array ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : null;
  if (!bytes) throw fail('expected the file as text, a Uint8Array or an ArrayBuffer');
  if (bytes.length > TOKENIZER_LIMITS.maxFileBytes) {
    throw fail(`${bytes.length} bytes; at most ${TOKENIZER_LIMITS.maxFileBytes}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fail('not UTF-8 text');
  }
}

function parseJson(text, file) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TokenizerError(`${file}: not JSON (${error.message})`, file, file);
  }
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const kind = (v) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;

/**
 * The shared core of both file formats: a vocabulary {symbol: id} in GPT-2's byte alphabet, merges
 * as [left, right] symbol pairs in rank order, and the special tokens' texts. Checks that ids are
 * unique integers below maxVocab, that every byte has a token, that every merge's parts and result
 * are in the vocabulary, and that every other symbol is a special token or made of alphabet bytes.
 */
function buildTokenizer({ name, vocab, merges, specials, addPrefixSpace, vocabFile, mergesFile }) {
  const fail = (file, what) => new TokenizerError(`${file}: ${what}`, file, file);
  const entries = Object.entries(vocab);
  // A Map, so that a token named "constructor" or "__proto__" is a token like any other.
  const idOf = new Map(entries);
  if (entries.length > TOKENIZER_LIMITS.maxVocab) {
    throw fail(vocabFile, `${entries.length} tokens; at most ${TOKENIZER_LIMITS.maxVocab}`);
  }
  let size = 0;
  const byId = new Map();
  for (const [symbol, id] of entries) {
    if (!Number.isInteger(id) || id < 0 || id >= TOKENIZER_LIMITS.maxVocab) {
      throw fail(
        vocabFile,
        `the id of ${show(symbol)} is ${show(JSON.stringify(id) ?? kind(id))}; expected an integer in [0, ${TOKENIZER_LIMITS.maxVocab})`,
      );
    }
    if (byId.has(id)) throw fail(vocabFile, `${show(byId.get(id))} and ${show(symbol)} have the same id ${id}`);
    byId.set(id, symbol);
    size = Math.max(size, id + 1);
  }
  const tokens = new Array(size).fill(null);
  const specialIds = {};
  for (const [symbol, id] of entries) {
    if (specials.has(symbol)) {
      specialIds[symbol] = id;
      continue;
    }
    const bytes = symbolBytes(symbol);
    if (!bytes || bytes.length === 0) {
      throw fail(
        vocabFile,
        `the token ${show(symbol)} (id ${id}) is not written in GPT-2's byte alphabet and is not a special token: not a byte-level BPE vocabulary`,
      );
    }
    tokens[id] = bytes;
  }
  for (let b = 0; b < 256; b++) {
    if (!idOf.has(BYTE_TO_CHAR[b])) {
      throw fail(
        vocabFile,
        `byte 0x${b.toString(16).padStart(2, '0')} (${show(BYTE_TO_CHAR[b])}) has no token: not a byte-level BPE vocabulary`,
      );
    }
  }
  if (merges.length > TOKENIZER_LIMITS.maxVocab) {
    throw fail(mergesFile, `${merges.length} merges; at most ${TOKENIZER_LIMITS.maxVocab}`);
  }
  const triples = new Int32Array(merges.length * 3);
  merges.forEach(([left, right, where], r) => {
    const a = idOf.get(left);
    const b = idOf.get(right);
    const c = idOf.get(left + right);
    const at = `${mergesFile} ${where}`;
    if (a === undefined || specials.has(left)) throw fail(at, `${show(left)} is not a token of ${vocabFile}`);
    if (b === undefined || specials.has(right)) throw fail(at, `${show(right)} is not a token of ${vocabFile}`);
    if (c === undefined) {
      throw fail(at, `${show(left + right)} (the merge of ${show(left)} and ${show(right)}) is not in ${vocabFile}`);
    }
    triples.set([a, b, c], 3 * r);
  });
  return new BytePairTokenizer({ name, tokens, merges: triples, specials: specialIds, addPrefixSpace });
}

/**
 * GPT-2's own files: vocab.json ({"!": 0, …, "<|endoftext|>": 50256}) and merges.txt (an optional
 * "#version" line, then one "left right" merge per line, in rank order). <|endoftext|> is special.
 */
export function fromVocabAndMerges(
  vocabData,
  mergesData,
  { vocabFile = 'vocab.json', mergesFile = 'merges.txt' } = {},
) {
  const vocab = parseJson(fileText(vocabData, vocabFile), vocabFile);
  if (!isPlainObject(vocab)) {
    throw new TokenizerError(
      `${vocabFile}: expected an object of token → id, got ${kind(vocab)}`,
      vocabFile,
      vocabFile,
    );
  }
  const lines = fileText(mergesData, mergesFile).split(/\r?\n/);
  const merges = [];
  lines.forEach((line, i) => {
    if (i === 0 && line.startsWith('#version')) return;
    if (line === '') return;
    const parts = line.split(' ');
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      throw new TokenizerError(
        `${mergesFile} line ${i + 1}: expected two tokens separated by one space, got ${show(line)}`,
        mergesFile,
        mergesFile,
      );
    }
    merges.push([parts[0], parts[1], `line ${i + 1}`]);
  });
  if (merges.length === 0) {
    throw new TokenizerError(
      `${mergesFile}: no merges (expected one "left right" pair per line)`,
      mergesFile,
      mergesFile,
    );
  }
  const specials = new Set(GPT2_SPECIALS.filter((s) => Object.hasOwn(vocab, s)));
  return buildTokenizer({ name: vocabFile, vocab, merges, specials, addPrefixSpace: false, vocabFile, mergesFile });
}

/**
 * Hugging Face tokenizers' tokenizer.json for a byte-level BPE (GPT-2's and every model that
 * copies it): model.type "BPE" with vocab and merges, pre_tokenizer ByteLevel (GPT-2's pattern),
 * no normalizer; added_tokens marked special become special tokens. Other kinds of tokenizer
 * (WordPiece, SentencePiece-style BPE, other split patterns) are refused with a message naming
 * what the file has.
 */
export function fromTokenizerJson(data, { file = 'tokenizer.json' } = {}) {
  const json = parseJson(fileText(data, file), file);
  const fail = (what) => new TokenizerError(`${file}: ${what}`, file, file);
  if (!isPlainObject(json)) throw fail(`expected a JSON object, got ${kind(json)}`);
  const model = json.model;
  if (!isPlainObject(model)) throw fail(`expected a "model" object, got ${kind(model)}`);
  if (model.type !== undefined && model.type !== 'BPE') {
    throw fail(`model.type is ${show(String(model.type))}; only byte-level "BPE" is supported`);
  }
  if (!isPlainObject(model.vocab))
    throw fail(`model.vocab: expected an object of token → id, got ${kind(model.vocab)}`);
  if (!Array.isArray(model.merges)) throw fail(`model.merges: expected an array, got ${kind(model.merges)}`);
  if (model.merges.length === 0) throw fail('model.merges: no merges');
  for (const option of ['continuing_subword_prefix', 'end_of_word_suffix']) {
    if (model[option]) throw fail(`model.${option} is ${show(String(model[option]))}; GPT-2's BPE has none`);
  }
  if (model.byte_fallback) throw fail('model.byte_fallback is true: a SentencePiece-style BPE, not a byte-level one');
  if (json.normalizer) throw fail(`normalizer ${show(String(json.normalizer.type))} is not supported (GPT-2 has none)`);
  const pre = json.pre_tokenizer;
  if (!isPlainObject(pre) || pre.type !== 'ByteLevel') {
    throw fail(
      `pre_tokenizer is ${isPlainObject(pre) ? show(String(pre.type)) : kind(pre)}; expected "ByteLevel" (GPT-2's pattern)`,
    );
  }
  if (pre.use_regex === false) throw fail('pre_tokenizer.use_regex is false; GPT-2 splits by its pattern');
  const merges = model.merges.map((m, i) => {
    const where = `model.merges[${i}]`;
    if (typeof m === 'string') {
      const parts = m.split(' ');
      if (parts.length !== 2 || !parts[0] || !parts[1]) {
        throw fail(`${where}: expected "left right", got ${show(m)}`);
      }
      return [parts[0], parts[1], where];
    }
    if (Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string' && m[0] && m[1]) {
      return [m[0], m[1], where];
    }
    throw fail(`${where}: expected "left right" or ["left", "right"], got ${kind(m)}`);
  });
  const vocab = Object.assign(Object.create(null), model.vocab);
  const specials = new Set();
  const added = json.added_tokens ?? [];
  if (!Array.isArray(added)) throw fail(`added_tokens: expected an array, got ${kind(added)}`);
  added.forEach((t, i) => {
    if (!isPlainObject(t) || typeof t.content !== 'string' || !Number.isInteger(t.id)) {
      throw fail(`added_tokens[${i}]: expected {id, content}, got ${kind(t)}`);
    }
    if (vocab[t.content] !== undefined && vocab[t.content] !== t.id) {
      throw fail(`added_tokens[${i}]: ${show(t.content)} has id ${t.id} here and ${vocab[t.content]} in model.vocab`);
    }
    vocab[t.content] = t.id;
    specials.add(t.content);
  });
  return buildTokenizer({
    name: file,
    vocab,
    merges,
    specials,
    addPrefixSpace: pre.add_prefix_space === true,
    vocabFile: `${file} model.vocab`,
    mergesFile: file,
  });
}

/** A tokenizer as Hugging Face's tokenizer.json (what the project's own tokenizer ships as). */
export function toTokenizerJson(tokenizer) {
  const specials = Object.entries(tokenizer.specials);
  const specialText = new Map(specials.map(([text, id]) => [id, text]));
  const symbol = (id) => bytesSymbol(tokenizer.tokenBytes(id));
  // Special tokens are in model.vocab too, as in Hugging Face's GPT-2 tokenizer.json.
  const vocab = Object.create(null); // "__proto__" is a possible token
  for (let id = 0; id < tokenizer.vocabSize; id++) vocab[specialText.get(id) ?? symbol(id)] = id;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(([content, id]) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: true,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: {
      type: 'ByteLevel',
      add_prefix_space: tokenizer.addPrefixSpace,
      trim_offsets: true,
      use_regex: true,
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: tokenizer.merges().map(([a, b]) => [symbol(a), symbol(b)]),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The compact binary form (GPT-2's encoding as the page loads it: 300 KB instead of 1.5 MB of
// vocab.json + merges.txt):
//   8 bytes   "AEBPE\0\0\1" (magic, version 1)
//   4 bytes   J, the header length, uint32 little-endian
//   J bytes   UTF-8 JSON {name, vocabSize, merges, idBytes, specials {text: id}, addPrefixSpace, source,
//             licence}, padded with spaces so the ids start at a multiple of 4
//   256 ids   the id of each byte's token
//   merges × 3 ids  (left, right, merged) in rank order
// Ids are little-endian uint16 when vocabSize ≤ 65536 (idBytes 2), else uint32 (idBytes 4).
// Every token's bytes follow from these (a byte, or its merge's two parts), so no vocabulary is
// stored; the loader checks each merged id is new and made of ids already defined.

const MAGIC = [0x41, 0x45, 0x42, 0x50, 0x45, 0, 0, 1];

/** The compact form of a tokenizer; `info` adds {source, licence} to its header. */
export function toCompact(tokenizer, info = {}) {
  const merges = tokenizer.merges();
  const idBytes = tokenizer.vocabSize <= 65536 ? 2 : 4;
  let json = JSON.stringify({
    name: tokenizer.name,
    vocabSize: tokenizer.vocabSize,
    merges: merges.length,
    idBytes,
    specials: tokenizer.specials,
    addPrefixSpace: tokenizer.addPrefixSpace,
    ...info,
  });
  let header = new TextEncoder().encode(json);
  header = new TextEncoder().encode(json + ' '.repeat((4 - ((12 + header.length) % 4)) % 4));
  const ids = new (idBytes === 2 ? Uint16Array : Uint32Array)(256 + 3 * merges.length);
  ids.set(tokenizer.byteTokens());
  merges.forEach((m, r) => ids.set(m, 256 + 3 * r));
  const out = new Uint8Array(12 + header.length + ids.byteLength);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 12);
  out.set(new Uint8Array(ids.buffer), 12 + header.length); // little-endian hosts (every browser's)
  return out;
}

/** A tokenizer from its compact form (bytes); `file` names it in errors. */
export function fromCompact(data, { file = 'tokenizer' } = {}) {
  const fail = (what) => new TokenizerError(`${file}: ${what}`, file, file);
  const bytes = data instanceof Uint8Array ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : null;
  if (!bytes) throw fail('expected a Uint8Array or an ArrayBuffer');
  if (bytes.length > TOKENIZER_LIMITS.maxFileBytes)
    throw fail(`${bytes.length} bytes; at most ${TOKENIZER_LIMITS.maxFileBytes}`);
  if (bytes.length < 12 || MAGIC.some((b, i) => bytes[i] !== b)) throw fail('not a compact BPE file (bad magic)');
  const J = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (12 + J > bytes.length) throw fail(`header of ${J} bytes runs past the end of the file (${bytes.length} bytes)`);
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + J)));
  } catch (error) {
    throw fail(`header is not JSON (${error.message})`);
  }
  if (!isPlainObject(header)) throw fail('header: expected a JSON object');
  const { vocabSize: V, merges: M, idBytes, specials = {}, addPrefixSpace = false, name = file } = header;
  if (!Number.isInteger(V) || V < 256 || V > TOKENIZER_LIMITS.maxVocab) {
    throw fail(`header.vocabSize: expected an integer in [256, ${TOKENIZER_LIMITS.maxVocab}], got ${V}`);
  }
  if (!Number.isInteger(M) || M < 0 || M > V) throw fail(`header.merges: expected an integer in [0, ${V}], got ${M}`);
  if (idBytes !== 2 && idBytes !== 4) throw fail(`header.idBytes: expected 2 or 4, got ${idBytes}`);
  if ((12 + J) % 4 !== 0) throw fail('header: the ids must start at a multiple of 4 bytes');
  if (bytes.length !== 12 + J + idBytes * (256 + 3 * M)) {
    throw fail(`${bytes.length} bytes; the header says ${12 + J + idBytes * (256 + 3 * M)}`);
  }
  if (!isPlainObject(specials)) throw fail('header.specials: expected an object of text → id');
  // A copy, aligned for the typed array whatever the caller's buffer offset.
  const raw = new Uint8Array(bytes.subarray(12 + J)); // (Buffer.slice would not copy)
  const ids = idBytes === 2 ? new Uint16Array(raw.buffer) : new Uint32Array(raw.buffer);
  const tokens = new Array(V).fill(null);
  const taken = new Uint8Array(V);
  const take = (id, what) => {
    if (!Number.isInteger(id) || id < 0 || id >= V) throw fail(`${what}: id ${id} outside [0, ${V})`);
    if (taken[id]) throw fail(`${what}: id ${id} is defined twice`);
    taken[id] = 1;
  };
  for (const [text, id] of Object.entries(specials)) take(id, `special ${show(text)}`);
  for (let b = 0; b < 256; b++) {
    take(ids[b], `byte 0x${b.toString(16).padStart(2, '0')}`);
    tokens[ids[b]] = Uint8Array.of(b);
  }
  const triples = new Int32Array(ids.subarray(256));
  for (let r = 0; r < M; r++) {
    const a = triples[3 * r];
    const b = triples[3 * r + 1];
    const c = triples[3 * r + 2];
    if (!(a < V && tokens[a]) || !(b < V && tokens[b]))
      throw fail(`merge ${r}: its parts ${a}, ${b} are not defined before it`);
    take(c, `merge ${r}`);
    const t = new Uint8Array(tokens[a].length + tokens[b].length);
    t.set(tokens[a]);
    t.set(tokens[b], tokens[a].length);
    tokens[c] = t;
  }
  return new BytePairTokenizer({ name, tokens, merges: triples, specials, addPrefixSpace });
}

/** The compact file's header (name, source, licence, sizes) without building the tokenizer. */
export function compactHeader(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const J = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + J)));
}

// A byte-level BPE tokenizer (GPT-2's scheme; Sennrich et al.'s merges over UTF-8 bytes, Radford
// et al. 2019 §2.2), used for GPT-2 and for the project's own model. Pure; unit-tested in
// tests/js/lib/tokenizer/tokenizer.test.mjs, its ids checked against two other implementations on a fixture.
//
// encode: text → chunks by the pre-tokenisation pattern → each chunk's UTF-8 bytes → one token
// per byte → repeatedly merge the adjacent pair whose merge has the lowest rank (the leftmost of
// equals), until no adjacent pair has a merge. decode: ids → bytes → UTF-8 text.
//
// Text is UTF-8 bytes to GPT-2, so what it can round-trip is well-formed Unicode: a lone
// surrogate (possible in a JS string, not in UTF-8) is encoded as U+FFFD, as TextEncoder does,
// and decode(encode(s)) === s.toWellFormed() for every string s. Ids that do not form valid UTF-8
// (a model's sample may end inside a character) decode with U+FFFD for each invalid run, as
// TextDecoder does; describe() shows such bytes as bytes.

import { hexBytes, utf8, utf8Characters, utf8Text } from './bytes.js';

/** A bad tokenizer file, text or id; `argument` names it (`file` too when it came from one). */
export class TokenizerError extends Error {
  constructor(message, argument, file = undefined) {
    super(message);
    this.name = 'TokenizerError';
    this.argument = argument;
    this.file = file;
  }
}

/**
 * GPT-2's pre-tokenisation pattern, as Python's `regex` module runs it (OpenAI's encoder.py,
 * Hugging Face's ByteLevel, tiktoken's r50k_base): its \s is Unicode White_Space, which includes
 * U+0085 and excludes U+FEFF — JavaScript's \s is the other way round, so \s is spelled
 * \p{White_Space} here. Letters and numbers follow the Unicode version of the JS engine.
 */
export const GPT2_PATTERN_SOURCE =
  "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\p{White_Space}\\p{L}\\p{N}]+|\\p{White_Space}+(?!\\P{White_Space})|\\p{White_Space}+";

export const TOKENIZER_LIMITS = Object.freeze({
  maxVocab: 1 << 17, // the model's own cap (src/model/config.h kMaxVocab)
  maxFileBytes: 64 * 1024 * 1024, // GPT-2's tokenizer.json is 1.4 MB; the largest common ones ~30 MB
  maxChars: 1_000_000, // one encode call; 100,000 characters take ~0.1 s (see the report)
  // One decode/describe call: whatever one encode call gives, which is at most 3 ids per UTF-16
  // unit (a unit's character takes ≤ 3 UTF-8 bytes, a pair's 4 bytes are 2 units, a lone
  // surrogate becomes U+FFFD's 3) and the prefix space: 1,000,000 refused encode's own output.
  maxIds: 3_000_001,
});

const PAIR_BASE = TOKENIZER_LIMITS.maxVocab; // pair key = left · PAIR_BASE + right (< 2^34)
const SHORT_CHUNK = 32; // below this many bytes the quadratic merge loop beats the heap
const CACHE_CHUNK_CHARS = 64; // chunks up to this long are cached (words, mostly)
const CACHE_ENTRIES = 50000;

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isId = (id, n) => Number.isInteger(id) && id >= 0 && id < n;

export class BytePairTokenizer {
  #tokens; // Array<Uint8Array | null> by id: each token's bytes (null for specials and unused ids)
  #specialIds; // Map text → id
  #specialTexts; // Map id → text
  #byteIds; // Int32Array(256): the token of each single byte
  #mergeRank; // Map pair key → rank
  #mergeResult; // Int32Array: rank → merged id
  #pattern;
  #specialPattern;
  #cache = new Map();

  /**
   * @param {object} spec
   * @param {string} spec.name              what to call it in messages ("gpt2", a file name)
   * @param {Array<Uint8Array|null>} spec.tokens  bytes of every id (null where the id is a special or unused)
   * @param {Int32Array|number[]} spec.merges     triples (left, right, merged) in rank order
   * @param {Object<string, number>} [spec.specials]  special tokens by text (e.g. {'<|endoftext|>': 50256})
   * @param {boolean} [spec.addPrefixSpace]  prepend a space when the text does not start with one (HF's ByteLevel option)
   * Loaders (load.js) check files and build this; the constructor checks consistency again.
   */
  constructor({ name, tokens, merges, specials = {}, addPrefixSpace = false }) {
    this.name = name;
    this.addPrefixSpace = addPrefixSpace;
    const V = tokens.length;
    if (V < 256 || V > TOKENIZER_LIMITS.maxVocab) {
      throw new TokenizerError(`${name}: ${V} tokens; expected 256 to ${TOKENIZER_LIMITS.maxVocab}`, 'tokens', name);
    }
    this.#tokens = tokens;
    this.#byteIds = new Int32Array(256).fill(-1);
    tokens.forEach((bytes, id) => {
      if (bytes && bytes.length === 1) this.#byteIds[bytes[0]] = id;
    });
    const missing = this.#byteIds.indexOf(-1);
    if (missing >= 0) {
      throw new TokenizerError(
        `${name}: not a byte-level BPE: byte 0x${hexBytes([missing])} has no token of its own`,
        'tokens',
        name,
      );
    }
    const count = merges.length / 3;
    this.#mergeRank = new Map();
    this.#mergeResult = new Int32Array(count);
    for (let r = 0; r < count; r++) {
      const [a, b, c] = [merges[3 * r], merges[3 * r + 1], merges[3 * r + 2]];
      const key = a * PAIR_BASE + b;
      // A pair listed twice keeps its first (lowest) rank, as HF's BPE builds its merge map.
      if (!this.#mergeRank.has(key)) this.#mergeRank.set(key, r);
      this.#mergeResult[r] = c;
    }
    this.#specialIds = new Map(Object.entries(specials));
    this.#specialTexts = new Map([...this.#specialIds].map(([t, id]) => [id, t]));
    this.#pattern = new RegExp(GPT2_PATTERN_SOURCE, 'gu');
    this.#specialPattern = this.#specialIds.size
      ? new RegExp(
          [...this.#specialIds.keys()]
            .sort((x, y) => y.length - x.length)
            .map(escapeRegExp)
            .join('|'),
          'gu',
        )
      : null;
  }

  /** One more than the largest id: the model's vocab_size must be at least this. */
  get vocabSize() {
    return this.#tokens.length;
  }

  /** The id of each single byte's token (256 ids). */
  byteTokens() {
    return this.#byteIds.slice();
  }

  /** Number of merges. */
  get mergeCount() {
    return this.#mergeResult.length;
  }

  /** Special tokens by text, e.g. {'<|endoftext|>': 50256}. */
  get specials() {
    return Object.fromEntries(this.#specialIds);
  }

  /** Each merge in rank order as [left, right, merged] ids. */
  merges() {
    const out = [];
    const byRank = new Array(this.mergeCount);
    for (const [key, r] of this.#mergeRank) byRank[r] = key;
    for (let r = 0; r < this.mergeCount; r++) {
      const key = byRank[r];
      if (key === undefined) continue; // a duplicate pair (never used)
      out.push([Math.floor(key / PAIR_BASE), key % PAIR_BASE, this.#mergeResult[r]]);
    }
    return out;
  }

  /** The bytes of a token (a copy), or the UTF-8 of a special token's text. */
  tokenBytes(id) {
    this.#checkId(id, 'id');
    const bytes = this.#tokens[id];
    return bytes ? bytes.slice() : utf8(this.#specialTexts.get(id));
  }

  /** Whether `id` is a special token (e.g. <|endoftext|>). */
  isSpecial(id) {
    return this.#specialTexts.has(id);
  }

  /**
   * Token ids of `text`. `allowSpecial`: special tokens' texts in `text` become their ids
   * (Hugging Face's default); otherwise they are encoded as ordinary text (tiktoken's
   * encode_ordinary). Throws TokenizerError for a non-string or more than maxChars characters.
   */
  encode(text, { allowSpecial = false } = {}) {
    if (typeof text !== 'string') {
      throw new TokenizerError(`text: expected a string, got ${typeof text}`, 'text');
    }
    if (text.length > TOKENIZER_LIMITS.maxChars) {
      throw new TokenizerError(
        `text: ${text.length} characters; at most ${TOKENIZER_LIMITS.maxChars} in one call`,
        'text',
      );
    }
    if (this.addPrefixSpace && text.length && text[0] !== ' ') text = ' ' + text;
    const ids = [];
    if (!allowSpecial || !this.#specialPattern) {
      this.#encodeOrdinary(text, ids);
      return ids;
    }
    let last = 0;
    for (const m of text.matchAll(this.#specialPattern)) {
      this.#encodeOrdinary(text.slice(last, m.index), ids);
      ids.push(this.#specialIds.get(m[0]));
      last = m.index + m[0].length;
    }
    this.#encodeOrdinary(text.slice(last), ids);
    return ids;
  }

  /** Text of token ids (see the file's comment for invalid UTF-8). */
  decode(ids) {
    this.#checkIds(ids);
    let out = '';
    let run = [];
    const flush = () => {
      if (run.length) out += utf8Text(concat(run));
      run = [];
    };
    for (const id of ids) {
      const bytes = this.#tokens[id];
      if (bytes) run.push(bytes);
      else {
        flush();
        out += this.#specialTexts.get(id);
      }
    }
    flush();
    return out;
  }

  /**
   * What a page needs to show each token of a sequence honestly, as chips:
   *   {id, bytes, special, text, pieces, display}
   * bytes: the token's bytes; text: its own bytes decoded (U+FFFD where a character is cut);
   * pieces: in order, {text} for characters wholly inside the token and, for a character whose
   * bytes span tokens (or invalid bytes), {fragment: {char, bytes, from, length, valid}} — this
   * token's `bytes` of `char`, starting at byte `from` of its `length`; valid false for bytes
   * that are not UTF-8 (char is then U+FFFD); display: the pieces as one string, fragments as
   * ⟨F0 9F⟩, control and invisible format characters as \n, \t, ⟨U+200D⟩.
   * A character split between tokens is known only from its neighbours, so describe a whole
   * sequence rather than ids one by one.
   */
  describe(ids) {
    this.#checkIds(ids);
    const out = [];
    let i = 0;
    while (i < ids.length) {
      if (!this.#tokens[ids[i]]) {
        const text = this.#specialTexts.get(ids[i]);
        out.push({ id: ids[i], bytes: utf8(text), special: true, text, pieces: [{ text }], display: text });
        i++;
        continue;
      }
      // A run of byte tokens: decode it whole, then give each token its share of the characters.
      let j = i;
      while (j < ids.length && this.#tokens[ids[j]]) j++;
      const parts = ids.slice(i, j).map((id) => this.#tokens[id]);
      const chars = utf8Characters(concat(parts));
      let c = 0;
      let offset = 0;
      for (let k = 0; k < parts.length; k++) {
        const bytes = parts[k];
        const start = offset;
        const end = offset + bytes.length;
        const pieces = [];
        while (c < chars.length && chars[c].start < end) {
          const ch = chars[c];
          if (ch.valid && ch.start >= start && ch.end <= end) {
            const last = pieces[pieces.length - 1];
            if (last && last.text !== undefined) last.text += ch.char;
            else pieces.push({ text: ch.char });
          } else {
            const from = Math.max(start, ch.start);
            const to = Math.min(end, ch.end);
            pieces.push({
              fragment: {
                char: ch.char,
                bytes: bytes.slice(from - start, to - start),
                from: from - ch.start,
                length: ch.end - ch.start,
                valid: ch.valid,
              },
            });
          }
          if (ch.end <= end) c++;
          else break; // the character goes on in the next token
        }
        out.push({
          id: ids[i + k],
          bytes: bytes.slice(),
          special: false,
          text: utf8Text(bytes),
          pieces,
          display: pieces.map(displayPiece).join(''),
        });
        offset = end;
      }
      i = j;
    }
    return out;
  }

  #checkId(id, name) {
    if (!isId(id, this.#tokens.length) || (!this.#tokens[id] && !this.#specialTexts.has(id))) {
      throw new TokenizerError(
        `${name}: expected a token id of ${this.name} in [0, ${this.#tokens.length}), got ${String(id).slice(0, 40)}`,
        name,
      );
    }
  }

  #checkIds(ids) {
    if (!(Array.isArray(ids) || ArrayBuffer.isView(ids))) {
      throw new TokenizerError('ids: expected an array of token ids', 'ids');
    }
    if (ids.length > TOKENIZER_LIMITS.maxIds) {
      throw new TokenizerError(`ids: ${ids.length} ids; at most ${TOKENIZER_LIMITS.maxIds} in one call`, 'ids');
    }
    for (let i = 0; i < ids.length; i++) this.#checkId(ids[i], `ids[${i}]`);
  }

  #encodeOrdinary(text, ids) {
    if (!text) return;
    this.#pattern.lastIndex = 0;
    for (const m of text.matchAll(this.#pattern)) {
      const chunk = m[0];
      if (chunk.length <= CACHE_CHUNK_CHARS) {
        let cached = this.#cache.get(chunk);
        if (!cached) {
          if (this.#cache.size >= CACHE_ENTRIES) this.#cache.clear();
          cached = this.#mergeChunk(utf8(chunk));
          this.#cache.set(chunk, cached);
        }
        for (const id of cached) ids.push(id);
      } else {
        for (const id of this.#mergeChunk(utf8(chunk))) ids.push(id);
      }
    }
  }

  /** The merges applied to one chunk's bytes: the lowest-ranked adjacent pair first, leftmost of equals. */
  #mergeChunk(bytes) {
    const n = bytes.length;
    const ids = new Array(n);
    for (let i = 0; i < n; i++) ids[i] = this.#byteIds[bytes[i]];
    if (n < 2) return ids;
    return n < SHORT_CHUNK ? this.#mergeShort(ids) : this.#mergeLong(ids);
  }

  // O(n²): rescan for the best pair after every merge; fastest for words.
  #mergeShort(ids) {
    const rank = this.#mergeRank;
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < ids.length; i++) {
        const r = rank.get(ids[i] * PAIR_BASE + ids[i + 1]);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) return ids;
      ids.splice(best, 2, this.#mergeResult[bestRank]);
    }
  }

  // O(n log n): a linked list of parts and a min-heap of (rank, position) with stale entries
  // skipped, so a 100,000-letter "word" takes milliseconds, not minutes.
  #mergeLong(ids) {
    const n = ids.length;
    const rank = this.#mergeRank;
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const pairRank = new Float64Array(n).fill(Infinity); // rank of (i, next[i]), Infinity if none
    for (let i = 0; i < n; i++) {
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    const heap = new MinHeap();
    const update = (i) => {
      const j = i >= 0 ? next[i] : -1;
      if (i < 0) return;
      const r = j < 0 ? undefined : rank.get(ids[i] * PAIR_BASE + ids[j]);
      pairRank[i] = r === undefined ? Infinity : r;
      if (r !== undefined) heap.push(r * 8388608 + i); // (rank, position) in one ordered number
    };
    for (let i = 0; i + 1 < n; i++) update(i);
    const alive = new Uint8Array(n).fill(1);
    while (heap.size) {
      const top = heap.pop();
      const r = Math.floor(top / 8388608);
      const i = top - r * 8388608;
      if (!alive[i] || pairRank[i] !== r) continue; // stale
      const j = next[i];
      ids[i] = this.#mergeResult[r];
      alive[j] = 0;
      next[i] = next[j];
      if (next[j] >= 0) prev[next[j]] = i;
      update(i);
      update(prev[i]);
    }
    const out = [];
    for (let i = 0; i >= 0; i = next[i]) out.push(ids[i]);
    return out;
  }
}

function displayPiece(piece) {
  if (piece.text !== undefined) {
    return piece.text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => {
      if (c === '\n') return '\\n';
      if (c === '\t') return '\\t';
      if (c === '\r') return '\\r';
      return `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
    });
  }
  return `⟨${hexBytes(piece.fragment.bytes)}⟩`;
}

function concat(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// A binary min-heap of non-negative numbers.
class MinHeap {
  #a = [];
  get size() {
    return this.#a.length;
  }
  push(x) {
    const a = this.#a;
    let i = a.length;
    a.push(x);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p] <= x) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = x;
  }
  pop() {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (a.length) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= a.length) break;
        if (c + 1 < a.length && a[c + 1] < a[c]) c++;
        if (a[c] >= last) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

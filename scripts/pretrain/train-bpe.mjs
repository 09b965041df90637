// A deterministic byte-level BPE trainer (GPT-2's scheme): text → chunks by GPT-2's pattern (the
// same split the tokenizer encodes with) → counted chunks as byte sequences → repeatedly merge the
// most frequent adjacent pair (ties: the pair with the smaller left id, then right id), counting
// pairs within chunks only, until the vocabulary has its size. The result is a BytePairTokenizer
// whose ids are the 256 bytes in byte order, then the merges in order, then the special tokens;
// encoding the training text with it reproduces the training's segmentation.
//
// Pair counts are updated incrementally (only the chunks that hold the merged pair are rewritten)
// and the best pair comes from a max-heap with stale entries skipped, so 4,000 merges over the
// corpus's ~150,000 distinct chunks take seconds.
import { BytePairTokenizer, GPT2_PATTERN_SOURCE } from '../../web/lib/tokenizer/bpe.js';

const KEY = 1 << 17; // pair key = left · KEY + right

/**
 * @param {Iterable<string>} texts  the training text
 * @param {{vocabSize: number, specials?: string[], name?: string}} options
 *   vocabSize counts everything: 256 bytes + merges + specials.
 */
export function trainBpe(texts, { vocabSize, specials = ['<|endoftext|>'], name = 'bpe' }) {
  const merges = vocabSize - 256 - specials.length;
  if (!Number.isInteger(merges) || merges < 0 || vocabSize > KEY) {
    throw new Error(`trainBpe: vocabSize ${vocabSize} must be in [${256 + specials.length}, ${KEY}]`);
  }
  // 1. Distinct chunks and their counts.
  const counts = new Map();
  const pattern = new RegExp(GPT2_PATTERN_SOURCE, 'gu');
  const encoder = new TextEncoder();
  for (const text of texts) {
    for (const m of text.matchAll(pattern)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  // Sorted so that nothing depends on the Map's insertion order (the texts' order).
  const chunks = [...counts.keys()].sort();
  const words = chunks.map((c) => Array.from(encoder.encode(c)));
  const freq = chunks.map((c) => counts.get(c));

  // 2. Pair counts and where each pair occurs.
  const pairCount = new Map();
  const where = new Map();
  const addPairs = (w, sign) => {
    const s = words[w];
    for (let i = 0; i + 1 < s.length; i++) {
      const key = s[i] * KEY + s[i + 1];
      pairCount.set(key, (pairCount.get(key) ?? 0) + sign * freq[w]);
      if (sign > 0) {
        let set = where.get(key);
        if (!set) where.set(key, (set = new Set()));
        set.add(w);
      }
    }
  };
  words.forEach((_, w) => addPairs(w, +1));
  const heap = new MaxHeap();
  for (const [key, n] of pairCount) heap.push(n, key);

  // 3. Merge.
  const tokens = Array.from({ length: 256 }, (_, b) => Uint8Array.of(b));
  const triples = [];
  while (triples.length / 3 < merges && heap.size) {
    const [n, key] = heap.pop();
    if (pairCount.get(key) !== n || n <= 0) continue; // stale
    const a = Math.floor(key / KEY);
    const b = key % KEY;
    const id = tokens.length;
    const bytes = new Uint8Array(tokens[a].length + tokens[b].length);
    bytes.set(tokens[a]);
    bytes.set(tokens[b], tokens[a].length);
    tokens.push(bytes);
    triples.push(a, b, id);
    const touched = [...where.get(key)].sort((x, y) => x - y);
    where.delete(key);
    const changed = new Set();
    for (const w of touched) {
      const s = words[w];
      let has = false;
      for (let i = 0; i + 1 < s.length; i++) if (s[i] === a && s[i + 1] === b) has = true;
      if (!has) continue;
      // Remove the word's old pairs, merge left to right, add its new pairs.
      for (let i = 0; i + 1 < s.length; i++) changed.add(s[i] * KEY + s[i + 1]);
      addPairs(w, -1);
      const out = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          out.push(id);
          i++;
        } else out.push(s[i]);
      }
      words[w] = out;
      addPairs(w, +1);
      for (let i = 0; i + 1 < out.length; i++) changed.add(out[i] * KEY + out[i + 1]);
    }
    pairCount.delete(key);
    for (const k of [...changed].sort((x, y) => x - y)) {
      const c = pairCount.get(k);
      if (c > 0) heap.push(c, k);
      else if (c !== undefined && k !== key) pairCount.delete(k);
    }
  }
  const specialIds = {};
  for (const s of specials) {
    specialIds[s] = tokens.length;
    tokens.push(null);
  }
  return new BytePairTokenizer({ name, tokens, merges: Int32Array.from(triples), specials: specialIds });
}

// Max-heap of (count, key): the larger count first, then the smaller key.
class MaxHeap {
  #n = [];
  #k = [];
  get size() {
    return this.#n.length;
  }
  #before(i, j) {
    return this.#n[i] > this.#n[j] || (this.#n[i] === this.#n[j] && this.#k[i] < this.#k[j]);
  }
  #swap(i, j) {
    [this.#n[i], this.#n[j]] = [this.#n[j], this.#n[i]];
    [this.#k[i], this.#k[j]] = [this.#k[j], this.#k[i]];
  }
  push(n, k) {
    this.#n.push(n);
    this.#k.push(k);
    let i = this.#n.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#before(i, p)) break;
      this.#swap(i, p);
      i = p;
    }
  }
  pop() {
    const top = [this.#n[0], this.#k[0]];
    const last = this.#n.length - 1;
    this.#swap(0, last);
    this.#n.pop();
    this.#k.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.#n.length && this.#before(l, m)) m = l;
      if (r < this.#n.length && this.#before(r, m)) m = r;
      if (m === i) break;
      this.#swap(i, m);
      i = m;
    }
    return top;
  }
}

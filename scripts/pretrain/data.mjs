// The pretraining data: the corpus (corpus.mjs) → a byte-level BPE trained on its training split
// (train-bpe.mjs) → token files in nanoGPT's format (uint16, documents separated by
// <|endoftext|>): train.bin (the training split, a share of its passages repeated: see REPEAT),
// train-plain.bin (the training split as written), val.bin (every held-out document), val-brown.bin, val-wordnet.bin (held out, never repeated).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDocuments } from './corpus.mjs';
import { trainBpe } from './train-bpe.mjs';
import { toTokenizerJson } from '../../web/lib/tokenizer/load.js';
import { seededRandom } from '../../web/lib/learn/random.js';

export const TOKENIZER_NAME = 'brown-wordnet';
export const VOCAB_SIZE = 8192; // 256 bytes + 7,935 merges + <|endoftext|>

// Repeated passages: the training stream is cut into passages of min…max tokens (lengths drawn by a
// seeded generator), and each passage is followed by a second copy of itself with probability
// `share`. Both copies fit in one context window, so predicting the second copy rewards a head
// that finds the earlier occurrence of the current token and copies what followed it (an
// induction head; Olsson et al. 2022). With probability `random`, a passage is then followed by
// min…max tokens drawn uniformly from the vocabulary (never <|endoftext|>, the last id), twice in
// a row: the Learn section's "repeat" task, where copying is the only way to predict. share and
// random 0: the plain stream.
// The shipped model was trained with repeats (share 0.3, random 0.1): docs/pretrained-model.md
// records the runs that chose them (issue 32) and what the model learned from them.
export const REPEAT = { share: 0.3, random: 0.1, min: 16, max: 60, seed: 1 };

/** The corpus's documents, the tokenizer trained on their training split, and its tokenizer.json text. */
export function buildTokenizer(nodeModules, { vocabSize = VOCAB_SIZE } = {}) {
  const documents = corpusDocuments(nodeModules);
  const tokenizer = trainBpe(
    documents.filter((d) => !d.heldOut).map((d) => d.text),
    { vocabSize, name: TOKENIZER_NAME },
  );
  return { documents, tokenizer, json: JSON.stringify(toTokenizerJson(tokenizer)) + '\n' };
}

/**
 * `ids` with a share of its passages repeated and random sequences repeated (REPEAT), over a
 * vocabulary of `vocabSize` ids whose last is <|endoftext|>; the same arguments give the same stream.
 */
export function withRepeats(ids, { share, random: randomShare = 0, min, max, seed } = REPEAT, vocabSize = VOCAB_SIZE) {
  if (!(share > 0) && !(randomShare > 0)) return ids;
  const random = seededRandom(seed);
  const out = new Uint16Array(Math.ceil(ids.length * (1 + share + 2 * randomShare) * 1.1) + 4 * max);
  let n = 0;
  const push = (part) => {
    if (n + part.length > out.length) throw new Error('withRepeats: stream longer than expected');
    out.set(part, n);
    n += part.length;
  };
  for (let i = 0; i < ids.length;) {
    const passage = ids.subarray(i, i + min + random.int(max - min + 1));
    push(passage);
    if (random.next() < share) push(passage);
    if (randomShare > 0 && random.next() < randomShare) {
      const r = Uint16Array.from({ length: min + random.int(max - min + 1) }, () => random.int(vocabSize - 1));
      push(r);
      push(r);
    }
    i += passage.length;
  }
  return out.slice(0, n);
}

/** The training stream as train.bin holds it: the training documents' ids, REPEAT applied. */
export function trainStream(tokenizer, documents, repeat = REPEAT) {
  return withRepeats(
    tokenStream(
      tokenizer,
      documents.filter((d) => !d.heldOut),
    ),
    repeat,
    tokenizer.vocabSize,
  );
}

/** The documents' ids, each followed by <|endoftext|>, as a Uint16Array. */
export function tokenStream(tokenizer, documents) {
  const eot = tokenizer.specials['<|endoftext|>'];
  const ids = [];
  for (const d of documents) {
    for (const id of tokenizer.encode(d.text)) ids.push(id);
    ids.push(eot);
  }
  return Uint16Array.from(ids);
}

/** Writes tokenizer.json, the token files and stats.json into `dir`; returns the stats. */
export function writeData(nodeModules, dir, { vocabSize = VOCAB_SIZE, repeat = REPEAT } = {}) {
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const { documents, tokenizer, json } = buildTokenizer(nodeModules, { vocabSize });
  const bpeSeconds = (performance.now() - t0) / 1000;
  writeFileSync(join(dir, 'tokenizer.json'), json);
  const splits = {
    train: documents.filter((d) => !d.heldOut),
    val: documents.filter((d) => d.heldOut),
    'val-brown': documents.filter((d) => d.heldOut && d.source === 'brown'),
    'val-wordnet': documents.filter((d) => d.heldOut && d.source === 'wordnet'),
  };
  const stats = { bpeSeconds, vocabSize: tokenizer.vocabSize, repeat, splits: {} };
  for (const [name, docs] of Object.entries(splits)) {
    const plain = tokenStream(tokenizer, docs);
    const ids = name === 'train' ? withRepeats(plain, repeat, tokenizer.vocabSize) : plain;
    writeFileSync(join(dir, `${name}.bin`), new Uint8Array(ids.buffer));
    // The count baselines are counted on the training split itself, without the second copies.
    if (name === 'train') writeFileSync(join(dir, 'train-plain.bin'), new Uint8Array(plain.buffer));
    const chars = docs.reduce((n, d) => n + d.text.length, 0);
    stats.splits[name] = {
      documents: docs.length,
      characters: chars,
      tokens: ids.length,
      ...(ids !== plain && { tokensBeforeRepeats: plain.length }),
      brownDocuments: docs.filter((d) => d.source === 'brown').length,
      wordnetSynsets: docs.filter((d) => d.source === 'wordnet').length,
    };
  }
  stats.seconds = (performance.now() - t0) / 1000;
  writeFileSync(join(dir, 'stats.json'), JSON.stringify(stats, null, 1) + '\n');
  return stats;
}

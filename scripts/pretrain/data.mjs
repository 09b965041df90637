// The pretraining data: the corpus (corpus.mjs) → a byte-level BPE trained on its training split
// (train-bpe.mjs) → token files in nanoGPT's format (uint16, documents separated by
// <|endoftext|>): train.bin, val.bin (every held-out document), val-brown.bin, val-wordnet.bin.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDocuments } from './corpus.mjs';
import { trainBpe } from './train-bpe.mjs';
import { toTokenizerJson } from '../../web/lib/tokenizer/load.js';

export const TOKENIZER_NAME = 'brown-wordnet';
export const VOCAB_SIZE = 4096; // 256 bytes + 3,839 merges + <|endoftext|>

/** The corpus's documents, the tokenizer trained on their training split, and its tokenizer.json text. */
export function buildTokenizer(nodeModules) {
  const documents = corpusDocuments(nodeModules);
  const tokenizer = trainBpe(
    documents.filter((d) => !d.heldOut).map((d) => d.text),
    { vocabSize: VOCAB_SIZE, name: TOKENIZER_NAME },
  );
  return { documents, tokenizer, json: JSON.stringify(toTokenizerJson(tokenizer)) + '\n' };
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
export function writeData(nodeModules, dir) {
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const { documents, tokenizer, json } = buildTokenizer(nodeModules);
  const bpeSeconds = (performance.now() - t0) / 1000;
  writeFileSync(join(dir, 'tokenizer.json'), json);
  const splits = {
    train: documents.filter((d) => !d.heldOut),
    val: documents.filter((d) => d.heldOut),
    'val-brown': documents.filter((d) => d.heldOut && d.source === 'brown'),
    'val-wordnet': documents.filter((d) => d.heldOut && d.source === 'wordnet'),
  };
  const stats = { bpeSeconds, vocabSize: tokenizer.vocabSize, splits: {} };
  for (const [name, docs] of Object.entries(splits)) {
    const ids = tokenStream(tokenizer, docs);
    writeFileSync(join(dir, `${name}.bin`), new Uint8Array(ids.buffer));
    const chars = docs.reduce((n, d) => n + d.text.length, 0);
    stats.splits[name] = {
      documents: docs.length,
      characters: chars,
      tokens: ids.length,
      brownDocuments: docs.filter((d) => d.source === 'brown').length,
      wordnetSynsets: docs.filter((d) => d.source === 'wordnet').length,
    };
  }
  stats.seconds = (performance.now() - t0) / 1000;
  writeFileSync(join(dir, 'stats.json'), JSON.stringify(stats, null, 1) + '\n');
  return stats;
}

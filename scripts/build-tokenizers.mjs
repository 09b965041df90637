// GPT-2's tokenizer for the page when a checkpoint comes without its own files: js-tiktoken's
// GPT-2 ranks (MIT; the same 50,257 tokens as OpenAI's vocab.json) turned into GPT-2's merge list
// and written in the compact form of web/lib/tokenizer/load.js (~600 KB instead of the package's
// 545 KB of base64 JS plus its encoder). The page fetches it only when a GPT-2 model is opened
// without a tokenizer; it is not part of any bundle.
//
//   node scripts/build-tokenizers.mjs            writes web/models/gpt2-tokenizer.bin when missing or stale
//   import { buildTokenizers, copyModelsToDist }  (scripts/build.mjs)
//
// Merges from ranks: a token of rank r is the merge of the two parts that rank-ordered BPE
// leaves when only merges of rank < r are allowed (as tiktoken's and Hugging Face's converters
// recover merges.txt); GPT-2's own merges.txt lists them in this order.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BytePairTokenizer } from '../web/lib/tokenizer/bpe.js';
import { toCompact } from '../web/lib/tokenizer/load.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export const GPT2_TOKENIZER_FILE = 'web/models/gpt2-tokenizer.bin';
// What ships beside the bundle in dist/ (web/models/ name → dist name). The model's files exist
// once `npm run pretrain` has written them (they are committed).
export const MODEL_FILES = {
  'gpt2-tokenizer.bin': 'attention-explorer.gpt2-tokenizer.bin',
  'brown-wordnet.safetensors': 'attention-explorer.brown-wordnet.safetensors',
  'brown-wordnet.tokenizer.json': 'attention-explorer.brown-wordnet.tokenizer.json',
};

/** js-tiktoken's GPT-2 ranks: {bytes (latin1 string) → rank}, the pattern and special tokens. */
async function tiktokenGpt2() {
  const entry = require.resolve('js-tiktoken/ranks/gpt2');
  const { default: ranks } = await import(pathToFileURL(entry.replace(/\.cjs$/, '.js')).href);
  const version = JSON.parse(readFileSync(join(root, 'node_modules/js-tiktoken/package.json'), 'utf8')).version;
  const byBytes = new Map();
  for (const line of ranks.bpe_ranks.split('\n').filter(Boolean)) {
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((b64, i) => byBytes.set(Buffer.from(b64, 'base64').toString('latin1'), Number(offset) + i));
  }
  return { byBytes, specials: ranks.special_tokens, size: ranks.explicit_n_vocab, version };
}

/** GPT-2's tokenizer from tiktoken-style ranks, merges recovered as described above. */
export function tokenizerFromRanks(byBytes, specials, size, name) {
  const tokens = new Array(size).fill(null);
  for (const [bytes, rank] of byBytes) tokens[rank] = Uint8Array.from(bytes, (c) => c.charCodeAt(0));
  const merged = [...byBytes].filter(([bytes]) => bytes.length > 1).sort((a, b) => a[1] - b[1]);
  const triples = new Int32Array(3 * merged.length);
  merged.forEach(([bytes, rank], m) => {
    let parts = [...bytes];
    for (;;) {
      let best = -1;
      let bestRank = rank;
      for (let i = 0; i + 1 < parts.length; i++) {
        const r = byBytes.get(parts[i] + parts[i + 1]);
        if (r !== undefined && r < bestRank) [best, bestRank] = [i, r];
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
    }
    if (parts.length !== 2) throw new Error(`build-tokenizers: token of rank ${rank} does not split into one merge`);
    triples.set([byBytes.get(parts[0]), byBytes.get(parts[1]), rank], 3 * m);
  });
  return new BytePairTokenizer({ name, tokens, merges: triples, specials });
}

/** Writes web/models/gpt2-tokenizer.bin unless it is newer than js-tiktoken's ranks. */
export async function buildTokenizers({ force = false } = {}) {
  const out = join(root, GPT2_TOKENIZER_FILE);
  const source = join(root, 'node_modules/js-tiktoken/package.json');
  if (!force && existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return false;
  const { byBytes, specials, size, version } = await tiktokenGpt2();
  const tokenizer = tokenizerFromRanks(byBytes, specials, size, 'gpt2');
  const bytes = toCompact(tokenizer, {
    source: `GPT-2's byte-level BPE (OpenAI, 2019), converted from js-tiktoken@${version} ranks/gpt2`,
    licence:
      "js-tiktoken: MIT, Copyright (c) 2023-2024 Bazyli Brzóska; GPT-2's encoder files: MIT, Copyright (c) 2019 OpenAI",
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(`build: ${GPT2_TOKENIZER_FILE} ${(bytes.length / 1024).toFixed(1)} KB (${tokenizer.mergeCount} merges)`);
  return true;
}

/** Copies web/models/'s shipped files into dist/ beside the bundle (after build-dist, which empties dist/). */
export function copyModelsToDist(dist = join(root, 'dist')) {
  for (const [from, to] of Object.entries(MODEL_FILES)) {
    const src = join(root, 'web/models', from);
    if (existsSync(src)) copyFileSync(src, join(dist, to));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildTokenizers({ force: process.argv.includes('--force') });
}

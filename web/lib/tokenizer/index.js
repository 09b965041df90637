// Byte-level BPE tokenizers (GPT-2's and the project's own model's). Pure, no DOM:
//   bpe.js    BytePairTokenizer (encode, decode, describe), TokenizerError, limits
//   load.js   from vocab.json + merges.txt, tokenizer.json, or the compact form; to tokenizer.json
//   bytes.js  GPT-2's byte alphabet and UTF-8 helpers
// loadGpt2Tokenizer fetches GPT-2's own encoding (web/models/gpt2-tokenizer.bin, built by
// scripts/build-tokenizers.mjs) only when called: it is in no bundle.

import { fromCompact } from './load.js';
import { TokenizerError } from './bpe.js';

export { BytePairTokenizer, TokenizerError, TOKENIZER_LIMITS, GPT2_PATTERN_SOURCE } from './bpe.js';
export {
  fromVocabAndMerges,
  fromTokenizerJson,
  fromCompact,
  toTokenizerJson,
  toCompact,
  compactHeader,
} from './load.js';
export { BYTE_TO_CHAR, utf8Characters, hexBytes } from './bytes.js';

/** Where the page finds GPT-2's encoding when it is served from web/ (dist/ names it differently). */
export const GPT2_TOKENIZER_URL = new URL('../../models/gpt2-tokenizer.bin', import.meta.url);

/** GPT-2's tokenizer (50,257 tokens), fetched from `url`; a TokenizerError names what failed. */
export async function loadGpt2Tokenizer({ url = GPT2_TOKENIZER_URL, fetch = globalThis.fetch } = {}) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new TokenizerError(`gpt2-tokenizer.bin: could not be fetched from ${url} (${error.message})`, 'url');
  }
  if (!response.ok) {
    throw new TokenizerError(`gpt2-tokenizer.bin: ${url} answered ${response.status} ${response.statusText}`, 'url');
  }
  return fromCompact(new Uint8Array(await response.arrayBuffer()), { file: 'gpt2-tokenizer.bin' });
}

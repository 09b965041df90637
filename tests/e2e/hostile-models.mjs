// Files a stranger can hand the real-model section, built from the shipped model (shared by the
// browser tests of the section and of the element's model-url): each with the words its refusal
// must contain.
import { readFileSync } from 'node:fs';

const shipped = readFileSync(new URL('../../web/models/brown-wordnet.safetensors', import.meta.url));

/** A safetensors file of `tensors` ({name: {dtype, shape, bytes}}), laid out as the format says. */
export function safetensors(tensors) {
  const header = {};
  let offset = 0;
  const parts = [];
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.bytes.length] };
    offset += t.bytes.length;
    parts.push(t.bytes);
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, ...parts]);
}

function withNaN(bytes) {
  const out = Buffer.from(bytes);
  const n = Number(out.readBigUInt64LE(0));
  const header = JSON.parse(out.subarray(8, 8 + n).toString('utf8'));
  const [name, t] = Object.entries(header).find(([k]) => k !== '__metadata__');
  out.writeUInt16LE(0x7e00, 8 + n + t.data_offsets[0] + 6); // F16 NaN as the fourth value
  return { bytes: out, name };
}

const nan = withNaN(shipped);
const tenGigabytes = Buffer.alloc(64);
tenGigabytes.writeBigUInt64LE(10_000_000_000n);
tenGigabytes.write('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}', 8);

/** [what, {name, bytes}, pattern] for model.safetensors. */
export const HOSTILE_MODELS = [
  [
    'not safetensors',
    { name: 'model.safetensors', bytes: Buffer.from('<!doctype html><p>Not found</p>') },
    /safetensors/i,
  ],
  [
    'another architecture',
    {
      name: 'model.safetensors',
      bytes: safetensors({
        'bert.embeddings.word_embeddings.weight': { dtype: 'F32', shape: [4, 2], bytes: Buffer.alloc(32) },
      }),
    },
    /bert\.embeddings|wte|not a GPT/i,
  ],
  [
    'truncated',
    { name: 'model.safetensors', bytes: shipped.subarray(0, shipped.length >> 1) },
    /run past the \d+-byte/,
  ],
  ['a header claiming 10 GB', { name: 'model.safetensors', bytes: tenGigabytes }, /header length 10000000000/],
  ['NaN weights', { name: 'model.safetensors', bytes: nan.bytes }, /finite|NaN/],
];

/** [what, tokenizer file, pattern], each beside the shipped model. */
export const HOSTILE_TOKENIZERS = [
  ['not JSON', { name: 'tokenizer.json', bytes: Buffer.from('{ "model": ') }, /tokenizer\.json.*JSON/],
  [
    'another kind',
    { name: 'tokenizer.json', bytes: Buffer.from('{"model": {"type": "WordPiece", "vocab": {}}}') },
    /WordPiece/,
  ],
];

export const SHIPPED_MODEL = shipped;

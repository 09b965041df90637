// A GPT-2-small-shaped checkpoint with random weights from a seed, for the GPT-2 benchmark and
// the memory measurement: Hugging Face's layout as gpt2's own model.safetensors has it (no
// "transformer." prefix, Conv1D weights (in, out), an F32 attn.bias causal-mask buffer per
// block, no lm_head.weight), V = 50257, T = 1024, L = 12, H = 12, C = 768: 124,439,808
// parameters, 498 MB as F32, 249 MB as F16. The compute of a forward is the real model's; the
// weights are normal(0, 0.02) (LayerNorm weights 1 + normal(0, 0.02), biases normal(0, 0.01)).
//
//   node bench/gpt2_checkpoint.mjs [f32|f16] [small|medium]   writes build-bench/gpt2-<size>-<dtype>.safetensors
//                                              (once; build-bench/ is git-ignored) and prints it
// GPT-2 medium's shape (L = 24, H = 16, C = 1024) the same way: 354,823,168 parameters.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../web/lib/learn/random.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const GPT2_SMALL = { vocabSize: 50257, contextLength: 1024, layers: 12, heads: 12, width: 768 };
// GPT-2 medium's shape (openai-community/gpt2-medium): 354,823,168 parameters, 1419 MB as F32.
export const GPT2_MEDIUM = { vocabSize: 50257, contextLength: 1024, layers: 24, heads: 16, width: 1024 };
export const GPT2_SIZES = { small: GPT2_SMALL, medium: GPT2_MEDIUM };
export const SEED = 20240;

// Tensors in GPT2Model's state_dict order (names without the prefix), with how each is drawn.
export function gpt2Tensors({ vocabSize: V, contextLength: P, layers: L, width: C } = GPT2_SMALL) {
  const t = [
    ['wte.weight', [V, C], 'weight'],
    ['wpe.weight', [P, C], 'weight'],
  ];
  for (let l = 0; l < L; l++) {
    const p = `h.${l}.`;
    t.push(
      [p + 'ln_1.weight', [C], 'norm'],
      [p + 'ln_1.bias', [C], 'bias'],
      [p + 'attn.bias', [1, 1, P, P], 'mask'],
      [p + 'attn.c_attn.weight', [C, 3 * C], 'weight'],
      [p + 'attn.c_attn.bias', [3 * C], 'bias'],
      [p + 'attn.c_proj.weight', [C, C], 'weight'],
      [p + 'attn.c_proj.bias', [C], 'bias'],
      [p + 'ln_2.weight', [C], 'norm'],
      [p + 'ln_2.bias', [C], 'bias'],
      [p + 'mlp.c_fc.weight', [C, 4 * C], 'weight'],
      [p + 'mlp.c_fc.bias', [4 * C], 'bias'],
      [p + 'mlp.c_proj.weight', [4 * C, C], 'weight'],
      [p + 'mlp.c_proj.bias', [C], 'bias'],
    );
  }
  t.push(['ln_f.weight', [C], 'norm'], ['ln_f.bias', [C], 'bias']);
  return t;
}

// n normal(mean, std) draws as float32: Box–Muller over mulberry32 seeded with `seed`.
function normals(n, std, mean, seed) {
  const bits = mulberry32(seed).uint32;
  const u = () => (bits() + 1) / 4294967297;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(u())),
      th = 2 * Math.PI * u();
    out[i] = mean + std * r * Math.cos(th);
    if (i + 1 < n) out[i + 1] = mean + std * r * Math.sin(th);
  }
  return out;
}

// float32 → IEEE half, round to nearest even (finite inputs of this file's magnitude).
function toHalf(values) {
  const out = new Uint16Array(values.length);
  const f = new Float32Array(1),
    u = new Uint32Array(f.buffer);
  for (let i = 0; i < values.length; i++) {
    f[0] = values[i];
    const x = u[0],
      sign = (x >>> 16) & 0x8000,
      exp = ((x >>> 23) & 0xff) - 127 + 15;
    let mant = x & 0x7fffff;
    if (exp <= 0) {
      if (exp < -10) {
        out[i] = sign;
        continue;
      }
      mant |= 0x800000;
      const shift = 14 - exp;
      let h = mant >>> shift;
      const rest = mant & ((1 << shift) - 1),
        half = 1 << (shift - 1);
      if (rest > half || (rest === half && h & 1)) h++;
      out[i] = sign | h;
      continue;
    }
    let h = (exp << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
    out[i] = sign | h;
  }
  return out;
}

/** Writes the checkpoint of a size ('small' or 'medium') if it is missing; returns its path. */
export function ensureCheckpoint(dtype = 'f32', size = 'small') {
  const file = path.join(root, 'build-bench', `gpt2-${size}-${dtype}.safetensors`);
  if (existsSync(file)) return file;
  mkdirSync(path.dirname(file), { recursive: true });
  const tensors = gpt2Tensors(GPT2_SIZES[size]);
  const width = dtype === 'f16' ? 2 : 4;
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape, kind] of tensors) {
    const w = kind === 'mask' ? 4 : width; // the buffer stays F32, as in gpt2's file
    const bytes = w * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: w === 4 ? 'F32' : 'F16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const fd = openSync(file + '.part', 'w');
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(text.length), true);
  writeSync(fd, length);
  writeSync(fd, Buffer.from(text));
  for (const [index, [, shape, kind]] of tensors.entries()) {
    const n = shape.reduce((a, b) => a * b, 1);
    let values;
    if (kind === 'mask') {
      const P = shape[2];
      values = new Float32Array(n);
      for (let i = 0; i < P; i++) values.fill(1, i * P, i * P + i + 1);
    } else {
      const seed = SEED * 1000 + index; // each tensor its own stream
      values = normals(n, kind === 'bias' ? 0.01 : 0.02, kind === 'norm' ? 1 : 0, seed);
    }
    const data = kind !== 'mask' && dtype === 'f16' ? toHalf(values) : values;
    writeSync(fd, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  closeSync(fd);
  renameSync(file + '.part', file);
  return file;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    ensureCheckpoint(process.argv[2] === 'f16' ? 'f16' : 'f32', process.argv[3] === 'medium' ? 'medium' : 'small'),
  );
}

/**
 * A checkpoint's F32 tensors by GPT2Model's names ("transformer." dropped), each copied so it is
 * aligned for a Float32Array: what onnxruntime's graphs (onnx_gpt2.mjs) take. F16 tensors are left out.
 */
export function readF32Tensors(file) {
  const bytes = readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || t.dtype !== 'F32') continue;
    const [b, e] = t.data_offsets;
    out[name.replace(/^transformer\./, '')] = new Float32Array(
      new Uint8Array(bytes.subarray(8 + n + b, 8 + n + e)).buffer,
    );
  }
  return out;
}

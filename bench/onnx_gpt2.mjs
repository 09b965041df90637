// The GPT-2 forward of model.trace as an ONNX graph, for the onnxruntime-web peer of
// bench/gpt2.mjs: the same computation on the same weights, with the same outputs.
//
// gpt2Model(weights, {T, V, C, H, L, eps}) returns the bytes of a model whose input is the token
// ids (int64, T) and whose outputs are, per layer l, q_l, k_l, v_l (H, T, hs), scores_l = q·kᵀ
// (H, T, T), weights_l = softmax(scores/√hs + causal mask) (H, T, T), residual_l (T, C) after
// block l; then embed (T, C) after the embedding and logits (1, V) of the last position. The
// weights are initializers (raw_data), in Hugging Face's Conv1D layout (in, out), which ONNX's
// MatMul takes as it is; GELU is gelu_new written out (Mul, Pow, Add, Tanh), as torch.onnx
// exports it; LayerNormalization is the opset-17 op. `weights` maps GPT2Model's names (no
// prefix) to Float32Arrays.
//
// The protobuf is written as a list of byte chunks (the initializers are 500 MB: no arrays of
// numbers), with bench/onnx_model.mjs's field numbers: ModelProto ir_version 1, producer 2,
// graph 7, opset_import 8; GraphProto node 1, name 2, initializer 5, input 11, output 12;
// NodeProto input 1, output 2, name 3, op_type 4, attribute 5; TensorProto dims 1, data_type 2,
// name 8, raw_data 9; AttributeProto name 1, f 2, i 3, ints 8, type 20 (FLOAT 1, INT 2, INTS 7).

const enc = new TextEncoder();

function varint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n));
  while (v >= 0x80n) {
    out.push(Number((v & 0x7fn) | 0x80n));
    v >>= 7n;
  }
  out.push(Number(v));
  return new Uint8Array(out);
}
// A message or field: a list of Uint8Array chunks and its byte length.
class Bytes {
  constructor() {
    this.chunks = [];
    this.length = 0;
  }
  push(...parts) {
    for (const p of parts) {
      if (p instanceof Bytes) {
        this.chunks.push(...p.chunks);
        this.length += p.length;
      } else {
        this.chunks.push(p);
        this.length += p.length;
      }
    }
    return this;
  }
  concat() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
const key = (field, wire) => varint((field << 3) | wire);
const fInt = (field, n) => new Bytes().push(key(field, 0), varint(n));
const fBytes = (field, bytes) => new Bytes().push(key(field, 2), varint(bytes.length), bytes);
const fStr = (field, s) => fBytes(field, enc.encode(s));
const fMsg = (field, message) => new Bytes().push(key(field, 2), varint(message.length), message);
function fFloat(field, x) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, x, true);
  return new Bytes().push(key(field, 5), b);
}

const FLOAT = 1,
  INT64 = 7;
function valueInfo(name, dims, type = FLOAT) {
  const shape = new Bytes();
  // a number is a fixed size (dim_value), a string a symbolic one (dim_param)
  for (const d of dims) shape.push(fMsg(1, typeof d === 'string' ? fStr(2, d) : fInt(1, d)));
  const tensorType = new Bytes().push(fInt(1, type), fMsg(2, shape));
  return new Bytes().push(fStr(1, name), fMsg(2, new Bytes().push(fMsg(1, tensorType))));
}
const attrInts = (name, values) => {
  const a = new Bytes().push(fStr(1, name));
  for (const v of values) a.push(fInt(8, v));
  return fMsg(5, a.push(fInt(20, 7)));
};
const attrInt = (name, v) => fMsg(5, new Bytes().push(fStr(1, name), fInt(3, v), fInt(20, 2)));
const attrFloat = (name, v) => fMsg(5, new Bytes().push(fStr(1, name), fFloat(2, v), fInt(20, 1)));

function tensor(name, dims, data, type = FLOAT) {
  const t = new Bytes();
  for (const d of dims) t.push(fInt(1, d));
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return t.push(fInt(2, type), fStr(8, name), fBytes(9, raw));
}

// What both graphs are built with: their nodes, initializers and outputs, and helpers that add
// a node (its output named after the op), a named graph output, an initializer, a weight by its
// checkpoint name, a float scalar and an int64 vector.
function graphBuilder(weights, outputs = []) {
  const nodes = [];
  const inits = [];
  let n = 0;
  const node = (op, inputs, attrs = []) => {
    const out = `${op}_${n++}`;
    const m = new Bytes();
    for (const i of inputs) m.push(fStr(1, i));
    m.push(fStr(2, out), fStr(3, out), fStr(4, op));
    for (const a of attrs) m.push(a);
    nodes.push(m);
    return out;
  };
  // `value` as a graph output called `name` (an Identity node writing it).
  const output = (value, name, dims) => {
    nodes.push(new Bytes().push(fStr(1, value), fStr(2, name), fStr(3, name), fStr(4, 'Identity')));
    outputs.push([name, dims]);
  };
  const init = (name, dims, data, type = FLOAT) => {
    inits.push(tensor(name, dims, data, type));
    return name;
  };
  const weight = (name, dims) => init(name, dims, weights[name]);
  const scalar = (name, x) => init(name, [], Float32Array.of(x));
  const ints = (name, values) => init(name, [values.length], BigInt64Array.from(values.map(BigInt)), INT64);
  return { nodes, inits, outputs, node, output, init, weight, scalar, ints };
}

export function gpt2Model(weights, { T, V, C, H, L, eps }) {
  const hs = C / H;
  const { nodes, inits, outputs, node, output, init, weight, scalar, ints } = graphBuilder(weights);

  // constants
  scalar('half', 0.5);
  scalar('one', 1);
  scalar('three', 3);
  scalar('cubic', 0.044715);
  scalar('sqrt_2_over_pi', Math.sqrt(2 / Math.PI));
  scalar('inv_sqrt_hs', 1 / Math.sqrt(hs));
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -Infinity;
  init('mask', [T, T], mask);
  ints(
    'positions',
    Array.from({ length: T }, (_, i) => i),
  );
  ints('heads_shape', [T, H, hs]);
  ints('merged_shape', [T, C]);
  ints('split', [C, C, C]);
  ints('last_start', [T - 1]);
  ints('last_end', [T]);
  ints('axis0', [0]);

  const layerNorm = (x, p) =>
    node(
      'LayerNormalization',
      [x, weight(p + '.weight', [C]), weight(p + '.bias', [C])],
      [attrInt('axis', -1), attrFloat('epsilon', eps)],
    );
  const linear = (x, p, i, o) =>
    node('Add', [node('MatMul', [x, weight(p + '.weight', [i, o])]), weight(p + '.bias', [o])]);

  // 1. embed
  const wte = node('Gather', [weight('wte.weight', [V, C]), 'ids']);
  const wpe = node('Gather', [weight('wpe.weight', [weights['wpe.weight'].length / C, C]), 'positions']);
  let x = node('Add', [wte, wpe]);
  output(x, 'embed', [T, C]);
  for (let l = 0; l < L; l++) {
    const p = `h.${l}.`;
    // 3–5. ln_1, c_attn, split into heads
    const qkv = linear(layerNorm(x, p + 'ln_1'), p + 'attn.c_attn', C, 3 * C);
    const parts = ['q', 'k', 'v'].map((_, i) => `split_${l}_${i}`);
    const split = new Bytes().push(fStr(1, qkv), fStr(1, 'split'));
    for (const name of parts) split.push(fStr(2, name));
    nodes.push(split.push(fStr(3, `split_${l}`), fStr(4, 'Split'), attrInt('axis', 1)));
    const heads = parts.map((s) =>
      node('Transpose', [node('Reshape', [s, 'heads_shape'])], [attrInts('perm', [1, 0, 2])]),
    );
    const [q, k, v] = heads;
    // 6. attention: scores, scale, mask, softmax, weights · v
    const scores = node('MatMul', [q, node('Transpose', [k], [attrInts('perm', [0, 2, 1])])]);
    const probs = node('Softmax', [node('Add', [node('Mul', [scores, 'inv_sqrt_hs']), 'mask'])], [attrInt('axis', -1)]);
    const y = node('Reshape', [
      node('Transpose', [node('MatMul', [probs, v])], [attrInts('perm', [1, 0, 2])]),
      'merged_shape',
    ]);
    // 8–9. c_proj, residual;  10–13. ln_2, c_fc, gelu_new, c_proj, residual
    x = node('Add', [x, linear(y, p + 'attn.c_proj', C, C)]);
    const fc = linear(layerNorm(x, p + 'ln_2'), p + 'mlp.c_fc', C, 4 * C);
    const inner = node('Mul', [
      'sqrt_2_over_pi',
      node('Add', [fc, node('Mul', ['cubic', node('Pow', [fc, 'three'])])]),
    ]);
    const gelu = node('Mul', [node('Mul', ['half', fc]), node('Add', ['one', node('Tanh', [inner])])]);
    x = node('Add', [x, linear(gelu, p + 'mlp.c_proj', 4 * C, C)]);
    for (const [value, name, dims] of [
      [q, 'q', [H, T, hs]],
      [k, 'k', [H, T, hs]],
      [v, 'v', [H, T, hs]],
      [scores, 'scores', [H, T, T]],
      [probs, 'weights', [H, T, T]],
      [x, 'residual', [T, C]],
    ]) {
      output(value, `${name}_${l}`, dims);
    }
  }
  // 14–15. ln_f and lm_head (wteᵀ) on the last position
  const last = node('Slice', [x, 'last_start', 'last_end', 'axis0']);
  const logits = node('Gemm', [layerNorm(last, 'ln_f'), 'wte.weight'], [attrInt('transB', 1)]);
  output(logits, 'logits', [1, V]);

  const graph = new Bytes();
  for (const m of nodes) graph.push(fMsg(1, m));
  graph.push(fStr(2, 'gpt2'));
  for (const t of inits) graph.push(fMsg(5, t));
  graph.push(fMsg(11, valueInfo('ids', [T], INT64)));
  for (const [name, dims] of outputs) graph.push(fMsg(12, valueInfo(name, dims)));
  const model = new Bytes().push(
    fInt(1, 8),
    fStr(2, 'attention-explorer bench'),
    fMsg(7, graph),
    fMsg(8, new Bytes().push(fStr(1, ''), fInt(2, 17))),
  );
  return { bytes: model.concat(), outputs: outputs.map(([name]) => name) };
}

// The decoder with past key values, as transformers.js runs GPT-2 (its decoder_model_merged's
// with-past branch): one new token per run. Inputs: ids (int64, 1), position (int64, 1), and per
// layer past_key_l, past_value_l (H, P, hs), P symbolic ("past", 0 on the first run); outputs:
// logits (1, V) and per layer present_key_l, present_value_l (H, P + 1, hs) — the past with the
// new token's key and value appended, fed back as the next run's past. No mask: the one query
// attends to every key. The same weights and ops as gpt2Model.
export function gpt2DecoderWithPast(weights, { V, C, H, L, eps }) {
  const hs = C / H;
  const inputs = [
    ['ids', [1], INT64],
    ['position', [1], INT64],
  ];
  const { nodes, inits, outputs, node, output, init, weight, scalar, ints } = graphBuilder(weights, [
    ['logits', [1, V]],
  ]);
  scalar('half', 0.5);
  scalar('one', 1);
  scalar('three', 3);
  scalar('cubic', 0.044715);
  scalar('sqrt_2_over_pi', Math.sqrt(2 / Math.PI));
  scalar('inv_sqrt_hs', 1 / Math.sqrt(hs));
  ints('heads_shape', [1, H, hs]);
  ints('merged_shape', [1, C]);
  ints('split', [C, C, C]);
  const layerNorm = (x, p) =>
    node(
      'LayerNormalization',
      [x, weight(p + '.weight', [C]), weight(p + '.bias', [C])],
      [attrInt('axis', -1), attrFloat('epsilon', eps)],
    );
  const linear = (x, p, i, o) =>
    node('Add', [node('MatMul', [x, weight(p + '.weight', [i, o])]), weight(p + '.bias', [o])]);

  let x = node('Add', [
    node('Gather', [weight('wte.weight', [V, C]), 'ids']),
    node('Gather', [weight('wpe.weight', [weights['wpe.weight'].length / C, C]), 'position']),
  ]);
  for (let l = 0; l < L; l++) {
    const p = `h.${l}.`;
    inputs.push([`past_key_${l}`, [H, 'past', hs], FLOAT], [`past_value_${l}`, [H, 'past', hs], FLOAT]);
    const qkv = linear(layerNorm(x, p + 'ln_1'), p + 'attn.c_attn', C, 3 * C);
    const parts = ['q', 'k', 'v'].map((_, i) => `split_${l}_${i}`);
    const split = new Bytes().push(fStr(1, qkv), fStr(1, 'split'));
    for (const name of parts) split.push(fStr(2, name));
    nodes.push(split.push(fStr(3, `split_${l}`), fStr(4, 'Split'), attrInt('axis', 1)));
    // (1, C) → (H, 1, hs)
    const [q, k, v] = parts.map((s) =>
      node('Transpose', [node('Reshape', [s, 'heads_shape'])], [attrInts('perm', [1, 0, 2])]),
    );
    const keys = node('Concat', [`past_key_${l}`, k], [attrInt('axis', 1)]);
    const values = node('Concat', [`past_value_${l}`, v], [attrInt('axis', 1)]);
    output(keys, `present_key_${l}`, [H, 'present', hs]);
    output(values, `present_value_${l}`, [H, 'present', hs]);
    const scores = node('MatMul', [q, node('Transpose', [keys], [attrInts('perm', [0, 2, 1])])]);
    const probs = node('Softmax', [node('Mul', [scores, 'inv_sqrt_hs'])], [attrInt('axis', -1)]);
    const y = node('Reshape', [
      node('Transpose', [node('MatMul', [probs, values])], [attrInts('perm', [1, 0, 2])]),
      'merged_shape',
    ]);
    x = node('Add', [x, linear(y, p + 'attn.c_proj', C, C)]);
    const fc = linear(layerNorm(x, p + 'ln_2'), p + 'mlp.c_fc', C, 4 * C);
    const inner = node('Mul', [
      'sqrt_2_over_pi',
      node('Add', [fc, node('Mul', ['cubic', node('Pow', [fc, 'three'])])]),
    ]);
    const gelu = node('Mul', [node('Mul', ['half', fc]), node('Add', ['one', node('Tanh', [inner])])]);
    x = node('Add', [x, linear(gelu, p + 'mlp.c_proj', 4 * C, C)]);
  }
  const logits = node('Gemm', [layerNorm(x, 'ln_f'), 'wte.weight'], [attrInt('transB', 1)]);
  nodes.push(new Bytes().push(fStr(1, logits), fStr(2, 'logits'), fStr(3, 'logits'), fStr(4, 'Identity')));

  const graph = new Bytes();
  for (const m of nodes) graph.push(fMsg(1, m));
  graph.push(fStr(2, 'gpt2_with_past'));
  for (const t of inits) graph.push(fMsg(5, t));
  for (const [name, dims, type] of inputs) graph.push(fMsg(11, valueInfo(name, dims, type)));
  for (const [name, dims] of outputs) graph.push(fMsg(12, valueInfo(name, dims)));
  const model = new Bytes().push(
    fInt(1, 8),
    fStr(2, 'attention-explorer bench'),
    fMsg(7, graph),
    fMsg(8, new Bytes().push(fStr(1, ''), fInt(2, 17))),
  );
  return { bytes: model.concat() };
}

// Hand-encoded ONNX models for the onnxruntime-web peer (no protobuf dependency).
//
// attentionModel({H, T, hs, causal}) returns the bytes of
//   O = MatMul(Softmax(Mul(MatMul(Q, Transpose(K)), 1/√hs) [+ mask]), V)
// with Q, K, V inputs of shape (1, H, T, hs) and, when causal, a (T, T) additive mask input
// (0 on and below the diagonal, −∞ above), opset 17. This is the graph PyTorch exports for
// scaled_dot_product_attention; onnxruntime's optimiser may fuse parts of it.
//
// Protobuf wire format: each field is a varint key (field_number << 3 | wire_type) and a
// value; wire type 0 = varint, 2 = length-delimited, 5 = fixed32.

const enc = new TextEncoder();

function varint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n)); // negative int64 → 10-byte two's complement
  while (v >= 0x80n) {
    out.push(Number((v & 0x7fn) | 0x80n));
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const fInt = (field, n) => [...key(field, 0), ...varint(n)];
const fBytes = (field, bytes) => [...key(field, 2), ...varint(bytes.length), ...bytes];
const fStr = (field, s) => fBytes(field, [...enc.encode(s)]);
const fMsg = (field, parts) => fBytes(field, parts.flat());
function fFloat(field, x) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, x, true);
  return [...key(field, 5), ...b];
}

// ValueInfoProto of a float tensor with fixed dims.
function valueInfo(name, dims) {
  const shape = dims.map((d) => fMsg(1, [fInt(1, d)])); // TensorShapeProto.dim { dim_value }
  const tensorType = [fInt(1, 1), fMsg(2, shape)]; // elem_type FLOAT, shape
  return [fStr(1, name), fMsg(2, [fMsg(1, tensorType)])]; // name, type { tensor_type }
}

function node(opType, inputs, outputs, attributes = [], domain = '') {
  return [
    ...inputs.map((n) => fStr(1, n)),
    ...outputs.map((n) => fStr(2, n)),
    fStr(3, `${opType}_${outputs[0]}`),
    fStr(4, opType),
    ...attributes,
    ...(domain ? [fStr(7, domain)] : []),
  ];
}
// AttributeProto: name (1), type (20): INT = 2, INTS = 7; i (3), ints (8).
const attrInts = (name, values) => fMsg(5, [fStr(1, name), ...values.map((v) => fInt(8, v)), fInt(20, 7)]);
const attrInt = (name, value) => fMsg(5, [fStr(1, name), fInt(3, value), fInt(20, 2)]);

// A scalar float initializer (TensorProto: dims none, data_type FLOAT = 1, float_data (4), name (8)).
function scalarInit(name, x) {
  return [fInt(2, 1), fFloat(4, x), fStr(8, name)];
}

export function attentionModel({ H, T, hs, causal }) {
  const dims = [1, H, T, hs];
  const nodes = [
    node('Transpose', ['K'], ['Kt'], [attrInts('perm', [0, 1, 3, 2])]),
    node('MatMul', ['Q', 'Kt'], ['S']),
    node('Mul', ['S', 'scale'], ['Ss']),
  ];
  let logits = 'Ss';
  if (causal) {
    nodes.push(node('Add', ['Ss', 'mask'], ['Sm']));
    logits = 'Sm';
  }
  nodes.push(node('Softmax', [logits], ['P'], [attrInt('axis', -1)]));
  nodes.push(node('MatMul', ['P', 'V'], ['O']));

  const inputs = [valueInfo('Q', dims), valueInfo('K', dims), valueInfo('V', dims)];
  if (causal) inputs.push(valueInfo('mask', [T, T]));
  const graph = [
    ...nodes.map((n) => fMsg(1, n)),
    fStr(2, 'attention'),
    fMsg(5, scalarInit('scale', 1 / Math.sqrt(hs))),
    ...inputs.map((v) => fMsg(11, v)),
    fMsg(12, valueInfo('O', dims)),
  ];
  const model = [
    fInt(1, 8), // ir_version
    fStr(2, 'attention-explorer bench'), // producer_name
    fMsg(7, graph), // graph
    fMsg(8, [fStr(1, ''), fInt(2, 17)]), // opset_import { domain "", version 17 }
  ];
  return new Uint8Array(model.flat());
}

// The (T, T) additive causal mask: 0 where j ≤ i, −∞ where j > i.
export function causalMask(T) {
  const m = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[i * T + j] = -Infinity;
  return m;
}

// The fused contrib op: com.microsoft MultiHeadAttention with Q, K, V of shape (1, T, H·hs)
// (heads side by side), output (1, T, H·hs); unidirectional = 1 for the causal mask.
export function mhaModel({ H, T, hs, causal }) {
  const dims = [1, T, H * hs];
  const attrs = [attrInt('num_heads', H)];
  if (causal) attrs.push(attrInt('unidirectional', 1));
  const graph = [
    fMsg(1, node('MultiHeadAttention', ['Q', 'K', 'V'], ['O'], attrs, 'com.microsoft')),
    fStr(2, 'mha'),
    ...['Q', 'K', 'V'].map((n) => fMsg(11, valueInfo(n, dims))),
    fMsg(12, valueInfo('O', dims)),
  ];
  const model = [
    fInt(1, 8),
    fStr(2, 'attention-explorer bench'),
    fMsg(7, graph),
    fMsg(8, [fStr(1, ''), fInt(2, 17)]),
    fMsg(8, [fStr(1, 'com.microsoft'), fInt(2, 1)]),
  ];
  return new Uint8Array(model.flat());
}

// The concatenation of `parts` (number arrays or Uint8Arrays) as one Uint8Array; fMsgBytes wraps it
// as length-delimited field `field`. The linear model's weights run to 150 MB (lm_head), too large
// for the number arrays the helpers above build.
function concat(parts) {
  const chunks = parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p.flat())));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) (out.set(c, at), (at += c.length));
  return out;
}
function fMsgBytes(field, parts) {
  const body = concat(parts);
  return concat([[...key(field, 2), ...varint(body.length)], body]);
}

// A float initializer with its data (TensorProto: dims (1), data_type FLOAT = 1 (2), name (8),
// raw_data little-endian (9)), as GraphProto field 5.
function tensorInit(name, dims, data) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return fMsgBytes(5, [
    [...dims.map((d) => fInt(1, d)).flat(), ...fInt(2, 1), ...fStr(8, name)],
    fMsgBytes(9, [bytes]),
  ]);
}

// The linear layer's forward, y (R, O) = x (R, I) · wᵀ + b: one Gemm node (transB = 1), w (O, I)
// and b (O) as initializers, as an exported nn.Linear has them (onnxruntime packs them once at
// session creation), x the input.
export function linearModel({ R, I, O, w, b }) {
  const graph = fMsgBytes(7, [
    fMsg(1, node('Gemm', ['X', 'W', 'B'], ['Y'], [attrInt('transB', 1)])),
    fStr(2, 'linear'),
    tensorInit('W', [O, I], w),
    tensorInit('B', [O], b),
    fMsg(11, valueInfo('X', [R, I])),
    fMsg(12, valueInfo('Y', [R, O])),
  ]);
  return concat([fInt(1, 8), fStr(2, 'attention-explorer bench'), graph, fMsg(8, [fStr(1, ''), fInt(2, 17)])]);
}

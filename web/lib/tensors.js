// Tensor plumbing for the notebook cells: {shape, data} in, {shape, data} out, no arithmetic
// beyond moving numbers (every product, softmax and draw is the engine's). Pure.

/** A tensor of `shape` filled by fill(flat index) (or a constant). */
export function full(shape, fill) {
  const n = shape.reduce((a, b) => a * b, 1);
  const f = typeof fill === 'function' ? fill : () => fill;
  return { shape: shape.slice(), data: Float32Array.from({ length: n }, (_, i) => f(i)) };
}

/** The transpose of a (R, C) tensor: e.g. nn.Linear's weight (out, in) as the (in, out) x·W form. */
export function transpose({ shape: [R, C], data }) {
  const out = new Float32Array(R * C);
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) out[c * R + r] = data[r * C + c];
  return { shape: [C, R], data: out };
}

/** (R₁, C), (R₂, C), … stacked into (R₁ + R₂ + …, C): e.g. W_Q, W_K, W_V as one fused qkv weight. */
export function concatRows(...parts) {
  const C = parts[0].shape[1];
  const rows = parts.reduce((n, p) => n + p.shape[0], 0);
  const out = new Float32Array(rows * C);
  let at = 0;
  for (const p of parts) {
    out.set(p.data, at);
    at += p.data.length;
  }
  return { shape: [rows, C], data: out };
}

/** Element `index` of the leading axis: (A, …) → (…). */
export function take(t, index) {
  const inner = t.shape.slice(1);
  const n = inner.reduce((a, b) => a * b, 1);
  return { shape: inner, data: t.data.slice(index * n, (index + 1) * n) };
}

/** The same numbers under another shape with as many elements. */
export function reshape(t, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n !== t.data.length) throw new RangeError(`reshape: ${t.data.length} values cannot take the shape (${shape})`);
  return { shape: shape.slice(), data: t.data };
}

// The bank model can start from seed 003's hand-set numbers, so the page can show where they go
// when they learn. The seed has 4-number embeddings and W_query, W_key (4 × 2) and W_value (4 × 3);
// the model is wider. Where the shapes allow (a width of at least 4, a head of at least 3), the
// seed's numbers become a block of the fresh model:
//   - the embedding of each seed word (stream, mud, money, loan, bank) is the seed's 4 numbers,
//     then zeros;
//   - head 1's first 2 query and key columns and first 3 value columns read the first 4 numbers
//     of the embedding through the seed's W_query, W_key and W_value, and nothing else.
// Everything else keeps its usual random start. nanoGPT's layout: c_attn.weight is (3C × C), the
// query rows first, then the key rows, then the value rows; y = x Wᵀ, so the seed's W[i][o] goes to
// row o, column i. Pure.

const BLOCKS = [
  ['wq', 'W_query', 0],
  ['wk', 'W_key', 1],
  ['wv', 'W_value', 2],
];

/** Why the seed's weights cannot start a model of this shape, or null when they can. */
export function seedStartProblem({ width, heads }, examples) {
  const D = examples.W_query.length; // 4
  const widest = Math.max(...BLOCKS.map(([, name]) => examples[name][0].length)); // 3
  if (width < D) return `the width is ${width}; notebook 3's embeddings have ${D} numbers`;
  if (width / heads < widest) return `a head has ${width / heads} columns; notebook 3's W_value has ${widest}`;
  return null;
}

/**
 * The parameters to change so a fresh model starts from the seed's numbers.
 * @param {Record<string, {shape: number[], data: Float32Array}>} params  model.params() of a fresh model
 * @param {{vocabulary: Record<string, ArrayLike<number>>, W_query: number[][], W_key: number[][], W_value: number[][]}} examples
 *   engine.examples()
 * @param {string[]} vocab  the task's words (row n of the embedding is vocab[n])
 * @returns {Record<string, {shape: number[], data: Float32Array}>}  for model.setParams
 */
export function seedStartParams(params, examples, vocab) {
  const wte = params['transformer.wte.weight'];
  const attn = params['transformer.h.0.attn.c_attn.weight'];
  const [, C] = wte.shape; // wte (V × C), c_attn (3C × C)
  const D = examples.W_query.length;
  const embedding = new Float32Array(wte.data);
  for (const [word, vec] of Object.entries(examples.vocabulary)) {
    const row = vocab.indexOf(word);
    if (row < 0) continue;
    embedding.fill(0, row * C, (row + 1) * C);
    for (let d = 0; d < D; d++) embedding[row * C + d] = vec[d];
  }
  const projection = new Float32Array(attn.data);
  for (const [, name, part] of BLOCKS) {
    const W = examples[name]; // (D × columns)
    for (let o = 0; o < W[0].length; o++) {
      const row = part * C + o;
      projection.fill(0, row * C, (row + 1) * C);
      for (let i = 0; i < D; i++) projection[row * C + i] = W[i][o];
    }
  }
  return {
    'transformer.wte.weight': { shape: wte.shape, data: embedding },
    'transformer.h.0.attn.c_attn.weight': { shape: attn.shape, data: projection },
  };
}

/**
 * Where the seed's blocks are now: head 1's W_query, W_key (D × 2) and W_value (D × 3) in the
 * seed's orientation (rows are embedding numbers), read from the model's parameters.
 * @returns {{wq: number[][], wk: number[][], wv: number[][]}}
 */
export function seedBlocks(params, examples) {
  const attn = params['transformer.h.0.attn.c_attn.weight'];
  const C = attn.shape[1];
  const D = examples.W_query.length;
  const out = {};
  for (const [key, name, part] of BLOCKS) {
    const columns = examples[name][0].length;
    out[key] = Array.from({ length: D }, (_, i) =>
      Array.from({ length: columns }, (_, o) => attn.data[(part * C + o) * C + i]),
    );
  }
  return out;
}

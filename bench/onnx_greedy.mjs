// One token at a time through onnxruntime-web's decoder-with-past graph (bench/onnx_gpt2.mjs
// gpt2DecoderWithPast), greedy: the past keys and values start empty and each run's present ones
// are the next run's past. Imports nothing, so Node's benchmarks and the browser's worker
// (gpt2_generate_measure.mjs) share it.

/**
 * @param {object} ort  onnxruntime-web
 * @param {object} session  an InferenceSession of the decoder-with-past graph
 * @param {{L: number, H: number, C: number, V: number}} shape  layers, heads, width, vocabulary
 * @returns {(token: number) => Promise<number>}  feeds one token, returns the most likely next one
 */
export function greedyDecoder(ort, session, { L, H, C, V }) {
  let past = {};
  for (let l = 0; l < L; l++) {
    past[`past_key_${l}`] = new ort.Tensor('float32', new Float32Array(0), [H, 0, C / H]);
    past[`past_value_${l}`] = new ort.Tensor('float32', new Float32Array(0), [H, 0, C / H]);
  }
  let position = 0;
  return async (token) => {
    const out = await session.run({
      ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(token)), [1]),
      position: new ort.Tensor('int64', BigInt64Array.of(BigInt(position++)), [1]),
      ...past,
    });
    past = {};
    for (let l = 0; l < L; l++) {
      past[`past_key_${l}`] = out[`present_key_${l}`];
      past[`past_value_${l}`] = out[`present_value_${l}`];
    }
    const logits = out.logits.data;
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v] > logits[best]) best = v;
    return best;
  };
}

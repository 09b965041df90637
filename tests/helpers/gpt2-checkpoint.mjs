// A GPT-2-family checkpoint as Hugging Face saves it (GPT2LMHeadModel: "transformer." keys,
// Conv1D weights (in, out)), GPT-2's vocabulary by default, random weights from a seed (a linear
// congruential generator, uniform in ±scale/2): what a blogger's model-url points at, small
// enough for a browser test (tests/e2e/real-model.test.mjs, interpret.test.mjs).
import { safetensors } from '../e2e/hostile-models.mjs';

/**
 * @param {{vocab?: number, positions?: number, width: number, layers: number, heads: number,
 *          seed: number, scale: number, config?: object}} o  config: extra config.json fields
 * @returns {{model: Uint8Array, config: string}}  model.safetensors and config.json
 */
export function hfGpt2Checkpoint({ vocab = 50257, positions = 64, width, layers, heads, seed, scale, config = {} }) {
  const [V, P, C, L] = [vocab, positions, width, layers];
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5) * scale;
  const tensor = (shape, fill) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = fill ?? random();
    return { dtype: 'F32', shape, bytes: Buffer.from(data.buffer) };
  };
  const t = { 'transformer.wte.weight': tensor([V, C]), 'transformer.wpe.weight': tensor([P, C]) };
  for (let l = 0; l < L; l++) {
    const p = `transformer.h.${l}.`;
    Object.assign(t, {
      [`${p}ln_1.weight`]: tensor([C], 1),
      [`${p}ln_1.bias`]: tensor([C], 0),
      [`${p}attn.c_attn.weight`]: tensor([C, 3 * C]),
      [`${p}attn.c_attn.bias`]: tensor([3 * C]),
      [`${p}attn.c_proj.weight`]: tensor([C, C]),
      [`${p}attn.c_proj.bias`]: tensor([C]),
      [`${p}ln_2.weight`]: tensor([C], 1),
      [`${p}ln_2.bias`]: tensor([C], 0),
      [`${p}mlp.c_fc.weight`]: tensor([C, 4 * C]),
      [`${p}mlp.c_fc.bias`]: tensor([4 * C]),
      [`${p}mlp.c_proj.weight`]: tensor([4 * C, C]),
      [`${p}mlp.c_proj.bias`]: tensor([C]),
    });
  }
  t['transformer.ln_f.weight'] = tensor([C], 1);
  t['transformer.ln_f.bias'] = tensor([C], 0);
  const json = {
    model_type: 'gpt2',
    activation_function: 'gelu_new',
    layer_norm_epsilon: 1e-5,
    n_positions: P,
    n_embd: C,
    n_head: heads,
    n_layer: L,
    vocab_size: V,
    ...config,
  };
  return { model: safetensors(t), config: JSON.stringify(json) };
}

// What the "A real language model" section derives from a model's trace. Pure (plain arrays and
// the engine and tokenizer they are handed); unit-tested in tests/js/lib/real/view.test.mjs.
//
// Legend: L layers, H heads, T tokens, C width; weights (L, H, T, T) row-major, each row of a
// head a causal softmax (zeros after the diagonal).

/** The longest sentence the section shows (tokens): readable pictures, a bounded capture. */
export function traceLimits(config) {
  return { tokens: Math.min(config.contextLength, 128) };
}

/** Parameters of a nanoGPT/GPT-2 config (lm_head tied to wte), for "the model's size". */
export function parameterCount(c) {
  const C = c.width;
  const bias = c.bias === false ? 0 : 1;
  const norm = c.layerNorm === false ? 0 : 1;
  const mlp = c.mlp === false ? 0 : 1;
  const attention = 4 * C * C + bias * 4 * C + norm * (1 + bias) * C;
  const feedForward = mlp * (8 * C * C + bias * 5 * C + norm * (1 + bias) * C);
  return c.vocabSize * C + c.contextLength * C + c.layers * (attention + feedForward) + norm * (1 + bias) * C;
}

/** The mean over heads of each layer's weights: (L, T, T). */
export function meanOverHeads(weights, L, H, T) {
  const out = new Float32Array(L * T * T);
  for (let l = 0; l < L; l++)
    for (let h = 0; h < H; h++) {
      const base = (l * H + h) * T * T;
      for (let k = 0; k < T * T; k++) out[l * T * T + k] += weights[base + k] / H;
    }
  return out;
}

/**
 * Attention rollout (Abnar & Zuidema, 2020): each layer's mean over heads mixed half and half
 * with the identity (the residual connection), rows renormalised, multiplied from the first layer
 * up — how much of each token's stream after the last layer traces back to each input token,
 * if attention were the only way information moved (it is not: the MLPs, the values' sizes and
 * the output projections are all left out). (T, T).
 */
export function attentionRollout(weights, L, H, T) {
  const mean = meanOverHeads(weights, L, H, T);
  let rollout = null;
  for (let l = 0; l < L; l++) {
    const a = new Float64Array(T * T);
    for (let i = 0; i < T; i++) {
      let sum = 0;
      for (let j = 0; j < T; j++) {
        a[i * T + j] = 0.5 * mean[l * T * T + i * T + j] + (i === j ? 0.5 : 0);
        sum += a[i * T + j];
      }
      for (let j = 0; j < T; j++) a[i * T + j] /= sum;
    }
    if (!rollout) rollout = a;
    else {
      const next = new Float64Array(T * T);
      for (let i = 0; i < T; i++)
        for (let k = 0; k < T; k++) {
          const aik = a[i * T + k];
          if (aik === 0) continue;
          for (let j = 0; j < T; j++) next[i * T + j] += aik * rollout[k * T + j];
        }
      rollout = next;
    }
  }
  return Float32Array.from(rollout ?? []);
}

/**
 * Where `word` ends in `text`'s tokens: the index of the token holding its last character, found
 * by tokenizing the text up to the end of the word (a prefix ending at a word boundary tokenizes
 * as the same first tokens). null when the word is not in the text as a whole word.
 */
export function wordPosition(tokenizer, text, word) {
  const escaped = word.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (!escaped) return null;
  const m = new RegExp(`(^|[^\\p{L}\\p{N}])(${escaped})(?![\\p{L}\\p{N}])`, 'iu').exec(text);
  if (!m) return null;
  const end = m.index + m[1].length + m[2].length;
  const all = tokenizer.encode(text);
  const prefix = tokenizer.encode(text.slice(0, end));
  if (prefix.length === 0 || prefix.some((id, i) => all[i] !== id)) return null;
  return { index: prefix.length - 1, ids: all };
}

/**
 * The shared word's vector after the embedding and after every layer (the residual stream at its
 * last token) in two sentences, compared by cosine: {cosines (L + 1), tokens: {a, b}}.
 */
export function bankCosines(engine, model, tokenizer, { a, b, word }) {
  const at = {};
  for (const [key, text] of Object.entries({ a, b })) {
    const pos = wordPosition(tokenizer, text, word);
    if (!pos)
      throw Object.assign(new RangeError(`sentence ${key.toUpperCase()}: “${word}” is not a whole word in it`), {
        argument: key,
      });
    if (pos.ids.length > traceLimits(model.config).tokens)
      throw Object.assign(
        new RangeError(
          `sentence ${key.toUpperCase()}: ${pos.ids.length} tokens; at most ${traceLimits(model.config).tokens}`,
        ),
        {
          argument: key,
        },
      );
    at[key] = pos;
  }
  const C = model.config.width;
  const stream = (pos) =>
    model.trace(pos.ids, { qkv: false, scores: false, weights: false, residual: true, logits: 'none' }).residual;
  const [ra, rb] = [stream(at.a), stream(at.b)];
  const T = { a: at.a.ids.length, b: at.b.ids.length };
  const cosines = [];
  for (let l = 0; l <= model.config.layers; l++) {
    const va = ra.data.subarray((l * T.a + at.a.index) * C, (l * T.a + at.a.index + 1) * C);
    const vb = rb.data.subarray((l * T.b + at.b.index) * C, (l * T.b + at.b.index + 1) * C);
    cosines.push(engine.cosine(Array.from(va), Array.from(vb)));
  }
  return { cosines, positions: { a: at.a.index, b: at.b.index } };
}

/**
 * The last token through the model, for "What happens next": its vector (embedding + position),
 * the first block's attention branch (after W_O), the vector with it added, the MLP branch, the
 * vector after block 1 and after the last block, each (C,); and the lengths of four of them.
 * @param {{width, T, L, residual: Float32Array, afterAttention: Float32Array}} t  (L + 1, T, C) and (L, T, C)
 */
export function lastTokenThroughBlocks(t) {
  const C = t.width,
    i = t.T - 1;
  const at = (data, layer) => Array.from(data.subarray((layer * t.T + i) * C, (layer * t.T + i) * C + C));
  const x0 = at(t.residual, 0);
  const mid = at(t.afterAttention, 0);
  const x1 = at(t.residual, 1);
  const xL = at(t.residual, t.L);
  const attention = mid.map((v, c) => v - x0[c]);
  const mlp = x1.map((v, c) => v - mid[c]);
  const length = (v) => Math.sqrt(v.reduce((s, a) => s + a * a, 0));
  return {
    x0,
    attention,
    mid,
    mlp,
    x1,
    xL,
    lengths: { x0: length(x0), attention: length(attention), mlp: length(mlp), xL: length(xL) },
  };
}

/**
 * The next-token candidates worth listing: the top tokens with a probability above 0 — at
 * temperature 0, or after top-k and top-p, the others all have 0 and their order means nothing
 * (they would be the vocabulary's first ids, control characters) — each with its text as
 * tokenizer describe() shows it (spaces as ␣) and, for a text that is an escape, what it stands
 * for; and a sentence for the tokens left out (null when none is).
 * @param {{topTokens, topProbs, topText}} next  the model host's next-token result
 * @param {{temperature: number}} options
 * @returns {{shown: Array<{id, p, text, title: string|null}>, leftOut: string|null}}
 */
export function listedCandidates(next, { temperature }) {
  const shown = [];
  for (let n = 0; n < next.topTokens.length; n++) {
    if (!(next.topProbs[n] > 0)) continue;
    // Spaces as ␣, except inside a fragment's ⟨hex bytes⟩.
    const text = next.topText[n].replace(/⟨[^⟩]*⟩| /g, (m) => (m === ' ' ? '␣' : m));
    shown.push({ id: next.topTokens[n], p: next.topProbs[n], text, title: escapeTitle(text) });
  }
  const left = next.topTokens.length - shown.length;
  const leftOut =
    left === 0
      ? null
      : temperature === 0
        ? 'Every other token has probability 0: at temperature 0 the most likely token takes it all.'
        : 'Every other token has probability 0: top-k and top-p cut them.';
  return { shown, leftOut };
}

// What an escaped token text stands for (tokenizer describe()'s display forms), or null.
function escapeTitle(text) {
  const parts = [];
  if (/\\n|\\r/.test(text)) parts.push('\\n and \\r: a line break');
  if (/\\t/.test(text)) parts.push('\\t: a tab');
  if (/⟨U\+[0-9A-F]+⟩/.test(text)) parts.push('⟨U+…⟩: an invisible or control character, by its code point');
  if (/⟨[0-9A-F]{2}( [0-9A-F]{2})*⟩/.test(text)) parts.push('⟨hex⟩: bytes of a character split between tokens');
  return parts.length ? parts.join('; ') : null;
}

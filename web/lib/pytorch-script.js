// The whole state as a PyTorch script in the seeds' style (seed 003's embed(), W_query, …) that
// recomputes the attention of every context and prints each weights matrix and output. The
// script is one template below; the variable parts are small functions of the state. Untrusted
// names only enter it through pyString() (a Python string literal). Pure.
import { pyFloat, pyList, pyString, toMatrix, toTorchLiteral } from './matrix-formats.js';

const indent = (text, spaces) => text.replace(/^(?=.)/gm, ' '.repeat(spaces));
const lines = (items) => items.filter((line) => line !== null).join('\n');

function vocabulary(state) {
  return lines(
    Object.entries(state.vocab).map(
      ([word, vec]) => `${pyString(word)}: torch.tensor([${vec.map(pyFloat).join(', ')}]),`,
    ),
  );
}

function projections(state) {
  if (!state.options.projections)
    return '# Projections are off: queries, keys and values are the embeddings themselves.';
  const { wq, wk, wv } = state.weights;
  return `W_query = ${toTorchLiteral(wq)}\nW_key = ${toTorchLiteral(wk)}\nW_value = ${toTorchLiteral(wv)}`;
}

function scaleLine(scale) {
  if (scale === true) return 'scale = 1 / math.sqrt(head_size)  # 1/√(head size)';
  if (scale === false) return 'scale = 1.0  # scaling is off';
  return `scale = ${pyFloat(scale)}`;
}

/** The script's part for one context: its tokens, the call, and what it prints. */
function contextPart(state, name, i, dropoutActive, dropoutKeep) {
  const id = `context_${i}`;
  let keepLine = null;
  if (dropoutActive) {
    const keep = dropoutKeep[name];
    if (!keep) {
      throw new TypeError(
        `dropoutKeep["${name}"]: expected the (H, T, T) keep mask of the context while dropout is active`,
      );
    }
    keepLine = `${id}_keep = torch.tensor([${keep.map((m) => pyList(toMatrix(m))).join(', ')}])`;
  }
  return lines([
    `# ${pyString(name)}`,
    `${id}_tokens = [${state.contexts[name].map(pyString).join(', ')}]`,
    `${id}_embeddings = embed(${id}_tokens)`,
    keepLine,
    `${id}_weights, ${id}_output = self_attention(${id}_embeddings${dropoutActive ? `, ${id}_keep` : ''})`,
    `print(${pyString(`${name} weights`)}, list(${id}_weights.shape))`,
    `print(${id}_weights)`,
    `print(${pyString(`${name} output`)}, list(${id}_output.shape))`,
    `print(${id}_output)`,
    '',
  ]);
}

function averagingPart(state) {
  const tokens = state.contexts[state.focus] || Object.values(state.contexts)[0];
  return `# Causal averaging ("bag of words") of the focused context, three ways that agree.
x = embed([${tokens.map(pyString).join(', ')}])
T = x.shape[0]
loop = torch.zeros_like(x)
for t in range(T):
    loop[t] = x[: t + 1].mean(0)
tril = torch.tril(torch.ones(T, T))
matmul = (tril / tril.sum(1, keepdim=True)) @ x
zeros = torch.zeros(T, T).masked_fill(tril == 0, float("-inf"))
softmax = torch.softmax(zeros, dim=-1) @ x
print("averaging", list(softmax.shape))
print(softmax)
print("three ways agree:", torch.allclose(loop, matmul) and torch.allclose(loop, softmax))
`;
}

/**
 * A runnable script that recomputes the attention of every context in `state` (and the causal
 * averaging of the focused context for the averaging example). `dropoutKeep` maps a context name
 * to its (H, T, T) keep mask (nested 0/1), needed only when dropout is active: the engine's
 * seeded draw is not PyTorch's RNG.
 */
export function toPyTorchScript(state, { dropoutKeep = {} } = {}) {
  const o = state.options;
  const dropoutActive = o.training && o.dropout > 0;
  const qkv = o.projections
    ? 'queries = x @ W_query  # (T, dk)\nkeys = x @ W_key  # (T, dk)\nvalues = x @ W_value  # (T, dv)'
    : 'queries, keys, values = x, x, x  # (T, D) each';
  const contexts = Object.keys(state.contexts).map((name, i) =>
    contextPart(state, name, i, dropoutActive, dropoutKeep),
  );
  return `# Recomputes the attention shown by attention-explorer for this state.
# Run: python3 attention.py   (needs PyTorch)
import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)


def embed(tokens):
    vocab = {
${indent(vocabulary(state), 8)}
    }
    return torch.stack([vocab[token] for token in tokens])


${projections(state)}
heads = ${o.heads}
temperature = ${pyFloat(o.temperature)}
causal = ${o.causal ? 'True' : 'False'}
${dropoutActive ? `dropout = ${pyFloat(o.dropout)}  # training mode: the page's keep masks are given below\n` : ''}

def self_attention(x${dropoutActive ? ', keep' : ''}):
${indent(qkv, 4)}
    T = x.shape[0]
    head_size = keys.shape[-1] // heads
    value_size = values.shape[-1] // heads
    ${scaleLine(o.scale)}
    all_weights, outputs = [], []
    for h in range(heads):
        q = queries[:, h * head_size:(h + 1) * head_size]
        k = keys[:, h * head_size:(h + 1) * head_size]
        v = values[:, h * value_size:(h + 1) * value_size]
        attn_scores = q @ k.T
        attn_scores = attn_scores * scale / temperature
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            attn_scores = attn_scores.masked_fill(future, float("-inf"))
        attn_weights = torch.softmax(attn_scores, dim=-1)
${dropoutActive ? '        attn_weights = attn_weights * keep[h] / (1 - dropout)\n' : ''}        all_weights.append(attn_weights)
        outputs.append(attn_weights @ v)
    return torch.stack(all_weights), torch.cat(outputs, dim=-1)


${contexts.join('\n')}
${state.example === 'averaging' ? averagingPart(state) : ''}`;
}

/** The (H, T, T) dropout keep masks of every context, from computed results (dropped ≠ 0 ⇔ kept). */
export function keepMasks(results) {
  const out = {};
  for (const [name, entry] of Object.entries(results?.contexts || {})) {
    const dropped = entry.trace?.dropped;
    if (dropped) out[name] = dropped.map((m) => m.map((row) => row.map((v) => (v !== 0 ? 1 : 0))));
  }
  return out;
}

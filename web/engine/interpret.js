// What a head does, not only where it looks: a model's ablate, ablationSweep, attribute and
// logitLens (engine.d.ts), each one call of src/bindings/abi_interpret.cpp through abi.js, by
// name (src/model/interpret.h computes; tests/cpp/model/interpret_test.cpp holds it to PyTorch).
// model.js checks the model and the token ids; every option is checked here and named in an
// AttentionError, and the core checks again.
//
// Shapes: T tokens, V vocabSize, L layers, H heads, hs = width / heads, P′ positions read, k top
// tokens.

import { AttentionError, describe, integerIn, booleanOf, ownArguments } from './args.js';
import { Projection, Result } from './result.js';

const MAX_LENS_TOP = 100; // model::kMaxLensTop

const options = (context, value, allowed) => ownArguments(context, value ?? {}, 'options', new Set(allowed));

// Ascending, distinct indices in [0, count), or [] for all.
export function ascendingIndices(context, list, name, count) {
  context.reading = name;
  if (!Array.isArray(list) || list.some((v, i) => !Number.isInteger(v) || v < 0 || v >= count || v <= list[i - 1])) {
    throw new AttentionError(
      `${name}: expected ascending, distinct indices in [0, ${count}) (or [] for all), got ${describe(list)}`,
      name,
    );
  }
  return list;
}

// A position in [0, T) (default T − 1: the prediction of the token after the sequence).
const positionOf = (value, T) => (value === undefined ? T - 1 : integerIn(value, 'position', 0, T - 1));
const tokenOf = (value, name, V) => {
  if (value === undefined) throw new AttentionError(`${name}: required, a token id in [0, ${V - 1}]`, name);
  return integerIn(value, name, 0, V - 1);
};

// How a head is knocked out: mode 'zero' (default) or 'mean', and the reference text of a mean.
function ablationOf(context, abi, o, sequence) {
  const names = abi.enums.ablation;
  context.reading = 'mode';
  const mode = o.mode ?? 'zero';
  if (!names.includes(mode)) {
    throw new AttentionError(
      `mode: expected ${names.map((n) => `'${n}'`).join(' or ')}, got ${describe(mode)}`,
      'mode',
    );
  }
  if (mode === 'mean' && o.reference === undefined) {
    throw new AttentionError(
      'reference: mean ablation needs a reference text (1 … contextLength token ids)',
      'reference',
    );
  }
  const reference = o.reference === undefined ? [] : sequence(context, o.reference, 'reference');
  return { mode, reference };
}

const lossOf = (x) => (Number.isNaN(x) ? null : x);

/** model.ablate: one head knocked out; see engine.d.ts. */
export function ablate(abi, model, config, ids, context, value, sequence) {
  const o = options(context, value, ['layer', 'head', 'position', 'mode', 'reference', 'logits']);
  const layer = integerIn(o.layer, 'layer', 0, config.layers - 1);
  const head = integerIn(o.head, 'head', 0, config.heads - 1);
  const position = positionOf(o.position, ids.length);
  const logits = o.logits === undefined ? false : booleanOf(o.logits, 'logits');
  const ablation = ablationOf(context, abi, o, sequence);
  const raw = abi.call('modelAblate', { model, tokens: ids, layer, head, position, logits, ...ablation });
  const r = new Result(raw);
  return {
    layer,
    head,
    position,
    mode: ablation.mode,
    probs: r.probs.data,
    ablatedProbs: r.ablatedProbs.data,
    losses: r.losses.data,
    ablatedLosses: r.ablatedLosses.data,
    loss: lossOf(raw.report.loss),
    ablatedLoss: lossOf(raw.report.ablatedLoss),
    value: r.value.data,
    logits: r.logits ? new Projection(r.logits) : null,
    ablatedLogits: r.ablatedLogits ? new Projection(r.ablatedLogits) : null,
  };
}

/** model.ablationSweep: every head of the chosen blocks knocked out in turn; see engine.d.ts. */
export function ablationSweep(abi, model, config, ids, context, value, sequence) {
  const o = options(context, value, ['position', 'token', 'layers', 'loss', 'mode', 'reference', 'reuse']);
  const position = positionOf(o.position, ids.length);
  const token = tokenOf(o.token, 'token', config.vocabSize);
  const layers = ascendingIndices(context, o.layers ?? [], 'layers', config.layers);
  const loss = o.loss === undefined ? false : booleanOf(o.loss, 'loss');
  const reuse = o.reuse === undefined ? true : booleanOf(o.reuse, 'reuse');
  const ablation = ablationOf(context, abi, o, sequence);
  const raw = abi.call('modelAblationSweep', { model, tokens: ids, position, token, layers, loss, reuse, ...ablation });
  const r = new Result(raw);
  return {
    position,
    token,
    mode: ablation.mode,
    layers: Array.from(r.layers.data),
    logProb: raw.report.logProb,
    ablatedLogProb: new Projection(r.ablatedLogProb),
    loss: lossOf(raw.report.loss),
    ablatedLoss: r.ablatedLoss ? new Projection(r.ablatedLoss) : null,
    rowsRun: raw.report.rowsRun,
  };
}

/** model.attribute: direct logit attribution; see engine.d.ts. */
export function attribute(abi, model, config, ids, context, value) {
  const o = options(context, value, ['position', 'token', 'other']);
  const position = positionOf(o.position, ids.length);
  const token = tokenOf(o.token, 'token', config.vocabSize);
  const other = o.other === undefined || o.other === null ? -1 : tokenOf(o.other, 'other', config.vocabSize);
  const raw = abi.call('modelAttribute', { model, tokens: ids, position, token, other });
  const r = new Result(raw);
  const { embed, posEmbed, attentionBias, lnBias, logit, scale, total } = raw.report;
  return {
    position,
    token,
    other: other < 0 ? null : other,
    heads: new Projection(r.heads),
    mlps: r.mlps ? r.mlps.data : null,
    embed,
    posEmbed,
    attentionBias,
    lnBias,
    logit,
    scale,
    total,
  };
}

/** model.logitLens: the stream after the embedding and every block, read as logits; see engine.d.ts. */
export function logitLens(abi, model, config, ids, context, value) {
  const o = options(context, value, ['positions', 'k', 'position', 'token']);
  const positions = ascendingIndices(context, o.positions ?? [], 'positions', ids.length);
  const k = o.k === undefined ? 5 : integerIn(o.k, 'k', 1, Math.min(config.vocabSize, MAX_LENS_TOP));
  if ((o.token === undefined) !== (o.position === undefined)) {
    const missing = o.token === undefined ? 'token' : 'position';
    throw new AttentionError(
      `${missing}: position and token go together (the chosen token's rank at a position)`,
      missing,
    );
  }
  const chosen = o.token !== undefined;
  const position = chosen ? integerIn(o.position, 'position', 0, ids.length - 1) : -1;
  const token = chosen ? tokenOf(o.token, 'token', config.vocabSize) : -1;
  const raw = abi.call('modelLogitLens', { model, tokens: ids, positions, k, position, token });
  const r = new Result(raw);
  return {
    positions: Array.from(r.positions.data),
    k,
    topTokens: r.topTokens,
    topProbs: new Projection(r.topProbs),
    token: chosen
      ? { position, token, ranks: r.tokenRanks.data, probs: r.tokenProbs.data, logits: r.tokenLogits.data }
      : null,
  };
}

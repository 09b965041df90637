// What a head does, not only where it looks (issue 32): what the real-model section derives from
// the engine's ablate, ablationSweep, attribute and logitLens answers (web/tools/model-host.js's
// ablate, sweep, attribute and lens requests), and the one-sentence claim each figure makes from
// its numbers. Pure (plain arrays); unit-tested in tests/js/lib/real/interpret.test.mjs.
//
// Legend: L layers, H heads, T tokens, V vocabulary, k top tokens. Layers and heads are indices
// from 0 in the numbers, and named from 1 on the page as the head grid and the head scores name
// them: head h of layer l is "L<l + 1>H<h + 1>", the stream after block l is "after layer l + 1".

import { fmt, MINUS } from '../format.js';

export const headName = (layer, head) => `L${layer + 1}H${head + 1}`;
const pct = (p) => `${fmt(100 * p, p >= 0.1 ? 0 : 1)}%`;
const quoted = (text) => `“${text}”`;

// The figures' sentences (teaching prose is data): each a function of the numbers it reads.
export const CLAIMS = {
  ablation: {
    lower: (s) =>
      `Knocking out ${s.head}${s.mean ? ' (replaced by its mean)' : ''} lowers the chance of ${quoted(s.text)} from ${pct(s.before)} to ${pct(s.after)}${s.flip ? `, and ${quoted(s.flip)} becomes the top prediction` : ''}; the sentence's loss goes from ${fmt(s.loss, 3)} to ${fmt(s.ablatedLoss, 3)}.`,
    raise: (s) =>
      `Knocking out ${s.head}${s.mean ? ' (replaced by its mean)' : ''} raises the chance of ${quoted(s.text)} from ${pct(s.before)} to ${pct(s.after)}${s.flip ? `, and ${quoted(s.flip)} becomes the top prediction` : ''}: this head was working against it. The sentence's loss goes from ${fmt(s.loss, 3)} to ${fmt(s.ablatedLoss, 3)}.`,
    same: (s) =>
      `Knocking out ${s.head}${s.mean ? ' (replaced by its mean)' : ''} leaves the chance of ${quoted(s.text)} at ${pct(s.before)} (a change under ${SMALL_CHANGE * 100}% of it): this prediction does not need this head.`,
  },
  sweep: {
    partial: (s) => `${s.done} of ${s.total} blocks measured so far.`,
    cancelled: (s) => `Stopped after ${s.done} of ${s.total} blocks.`,
    most: (s) =>
      `Of all ${s.count} heads, knocking out ${s.head} changes the chance of ${quoted(s.text)} most: log p goes ${s.delta < 0 ? 'down' : 'up'} by ${fmt(Math.abs(s.delta), 2)} (from ${pct(s.before)} to ${pct(s.after)}).${s.helpers > 0 ? ` ${s.helpers === 1 ? '1 head lowers' : `${s.helpers} heads lower`} it by more than ${fmt(NOTABLE, 1)} when knocked out.` : ''}`,
    none: (s) =>
      `No single head matters much here: knocking out any one of the ${s.count} changes log p(${quoted(s.text)}) by at most ${fmt(s.largest, 2)}.`,
  },
  attribution: (s) =>
    `The largest direct push toward ${quoted(s.text)} comes from ${s.top} (${sign(s.topValue)}), the largest push against it from ${s.bottom} (${sign(s.bottomValue)}); all the parts add up to the logit ${fmt(s.logit, 2)} (checked: ${fmt(s.sum, 2)}).`,
  lens: {
    formed: (s) =>
      `${quoted(s.text)} becomes the top prediction ${s.layer === 0 ? 'straight from the embedding' : `after layer ${s.layer}`} (of ${s.layers}) and stays there; its rank after the embedding was ${s.firstRank + 1}.`,
    late: (s) =>
      `${quoted(s.text)} is ranked ${s.rank + 1} after the last layer; it was ranked ${s.firstRank + 1} after the embedding${s.bestLayer > 0 && s.best < s.rank ? ` and ${s.best + 1} at best (after layer ${s.bestLayer})` : ''}.`,
  },
};
// A change of p(token) smaller than this fraction of it is "no change".
export const SMALL_CHANGE = 0.01;
// A head whose knock-out lowers log p by more than this (nats) "helps" the prediction.
export const NOTABLE = 0.1;

const sign = (x) => (x < 0 ? MINUS : '+') + fmt(Math.abs(x), 2);

/** The indices of the k largest values, largest first (ties: smaller index first). */
export function topIndices(values, k) {
  const order = Array.from(values.keys());
  order.sort((a, b) => values[b] - values[a] || a - b);
  return order.slice(0, k);
}

/**
 * The rows of the clean-vs-knocked-out bars: the k most likely tokens before and after, and the
 * chosen candidate, each {id, clean, ablated}, most likely (clean) first.
 */
export function comparisonRows(probs, ablatedProbs, k, candidate = -1) {
  const ids = new Set([...topIndices(probs, k), ...topIndices(ablatedProbs, k)]);
  if (candidate >= 0) ids.add(candidate);
  return [...ids]
    .map((id) => ({ id, clean: probs[id], ablated: ablatedProbs[id] }))
    .sort((a, b) => b.clean - a.clean || a.id - b.id);
}

/** The bars' full width: the largest probability of the rows, clean or knocked out (1 if all are 0). */
export const comparisonScale = (rows) => Math.max(...rows.map((r) => Math.max(r.clean, r.ablated))) || 1;

/**
 * The knock-out figures' prediction {position, token, layer, head, mode} after the reader's
 * change `patch` (any of those fields): a new position drops the candidate (token -1: the
 * run picks one), a token < 0 is ignored, a layer or head alone keeps the other (else takes the
 * run's `choice`, else 0). Returns a new object; other fields of `p` are kept.
 */
export function choosePrediction(p, patch, choice) {
  const q = { ...p };
  if ('position' in patch) Object.assign(q, { position: patch.position, token: -1 });
  if ('token' in patch && patch.token >= 0) q.token = patch.token;
  if ('layer' in patch) Object.assign(q, { layer: patch.layer, head: q.head ?? choice?.head ?? 0 });
  if ('head' in patch) Object.assign(q, { head: patch.head, layer: q.layer ?? choice?.layer ?? 0 });
  if ('mode' in patch) q.mode = patch.mode;
  return q;
}

/**
 * The knock-out's sentence. a: the host's ablate answer ({layer, head, mode, probs,
 * ablatedProbs, loss, ablatedLoss}); token: the candidate; text(id): a token's text.
 */
export function ablationClaim(a, token, text) {
  const before = a.probs[token],
    after = a.ablatedProbs[token];
  const top = topIndices(a.probs, 1)[0],
    ablatedTop = topIndices(a.ablatedProbs, 1)[0];
  const s = {
    head: headName(a.layer, a.head),
    mean: a.mode === 'mean',
    text: text(token),
    before,
    after,
    loss: a.loss ?? NaN,
    ablatedLoss: a.ablatedLoss ?? NaN,
    flip: top !== ablatedTop ? text(ablatedTop) : null,
  };
  if (Math.abs(after - before) < SMALL_CHANGE * before) return CLAIMS.ablation.same(s);
  return after < before ? CLAIMS.ablation.lower(s) : CLAIMS.ablation.raise(s);
}

/**
 * The layer × head picture's numbers: effect[l·H + h] = log p with (l, h) knocked out − clean
 * log p (negative: the head helped the prediction), NaN where not measured yet.
 */
export function sweepEffects(rows, L, H, logProb) {
  const effect = new Float32Array(L * H).fill(NaN);
  for (const [layer, row] of rows) for (let h = 0; h < H; h++) effect[layer * H + h] = row[h] - logProb;
  return effect;
}

/** The sweep's sentence from the effects measured so far (sweepEffects), with progress. */
export function sweepClaim({ effect, L, H, logProb, done, cancelled = false }, text) {
  if (done < L) return (cancelled ? CLAIMS.sweep.cancelled : CLAIMS.sweep.partial)({ done, total: L });
  let at = -1;
  for (let i = 0; i < effect.length; i++) if (at < 0 || Math.abs(effect[i]) > Math.abs(effect[at])) at = i;
  const delta = effect[at];
  const largest = Math.abs(delta);
  if (largest < NOTABLE) return CLAIMS.sweep.none({ count: L * H, text, largest });
  return CLAIMS.sweep.most({
    count: L * H,
    head: headName(Math.floor(at / H), at % H),
    text,
    delta,
    before: Math.exp(logProb),
    after: Math.exp(logProb + delta),
    helpers: effect.filter((e) => e < -NOTABLE).length,
  });
}

/**
 * Direct logit attribution as named parts, in the model's order: every head, then each block's
 * MLP, the embeddings, the attention biases and the final LayerNorm's bias. {name, value, kind}.
 */
export function attributionParts(a, L, H) {
  const parts = [
    { name: 'token embedding', value: a.embed, kind: 'embed' },
    { name: 'position embedding', value: a.posEmbed, kind: 'embed' },
  ];
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++)
      parts.push({ name: headName(l, h), value: a.heads.data[l * H + h], kind: 'head', layer: l, head: h });
    if (a.mlps) parts.push({ name: `MLP ${l + 1}`, value: a.mlps[l], kind: 'mlp', layer: l });
  }
  parts.push({ name: 'attention biases', value: a.attentionBias, kind: 'bias' });
  parts.push({ name: 'final LayerNorm bias', value: a.lnBias, kind: 'bias' });
  return parts;
}

/** The attribution's sentence: the strongest push each way, and the parts' sum against the logit. */
export function attributionClaim(a, L, H, text) {
  const parts = attributionParts(a, L, H);
  let top = parts[0],
    bottom = parts[0],
    sum = 0;
  for (const p of parts) {
    if (p.value > top.value) top = p;
    if (p.value < bottom.value) bottom = p;
    sum += p.value;
  }
  return CLAIMS.attribution({
    text,
    top: top.name,
    topValue: top.value,
    bottom: bottom.name,
    bottomValue: bottom.value,
    logit: a.logit,
    sum,
  });
}

/** The lens's sentence for the chosen token: where it becomes (and stays) the top prediction. */
export function lensClaim(ranks, text) {
  const rows = ranks.length,
    last = ranks[rows - 1];
  let best = 0;
  for (let l = 1; l < rows; l++) if (ranks[l] < ranks[best]) best = l;
  const s = { text, layers: rows - 1, firstRank: ranks[0], rank: last, best: ranks[best], bestLayer: best };
  if (last !== 0) return CLAIMS.lens.late(s);
  let from = rows - 1;
  while (from > 0 && ranks[from - 1] === 0) from--;
  return CLAIMS.lens.formed({ ...s, layer: from });
}

/**
 * The positions the lens reads: every one when the work fits `budget` multiply-adds (1e10: about
 * a second in the browser's worker here, bench/results/interpret-browser-2026-11-27.md: GPT-2
 * small's 16 positions took 1.2 s; each
 * position costs (L + 1)·C·V), else the chosen one and those before it, as many as fit (at least
 * the chosen one).
 */
export function lensPositions({ layers, width, vocabSize }, T, chosen, budget = 1e10) {
  const each = (layers + 1) * width * vocabSize;
  const fit = Math.max(1, Math.floor(budget / each));
  if (fit >= T) return Array.from({ length: T }, (_, i) => i);
  const from = Math.max(0, chosen - fit + 1);
  return Array.from({ length: chosen - from + 1 }, (_, i) => from + i);
}

/**
 * The prediction the section opens on, from the model's own numbers: among the positions whose
 * next token is in the sentence, the one where the model gives that actual next token the highest
 * probability while ranking it first (else the highest probability at all). predictions: the
 * host's ({actual: p(tokens[t + 1]) at t (T − 1), top: the top token id at t (T)}); ids the
 * sentence. null for a one-token sentence.
 * @returns {{position, token, right: boolean} | null}
 */
export function openingPrediction({ actual, top }, ids) {
  let best = -1,
    right = false;
  for (let t = 0; t < actual.length; t++) {
    const isTop = top[t] === ids[t + 1];
    if (best < 0 || (isTop && !right) || (isTop === right && actual[t] > actual[best])) {
      best = t;
      right = isTop;
    }
  }
  return best < 0 ? null : { position: best, token: ids[best + 1], right };
}

/** The head whose knock-out changes log p most (sweepEffects), or null when none was measured. */
export function strongestEffect(effect, H) {
  let at = -1;
  for (let i = 0; i < effect.length; i++)
    if (Number.isFinite(effect[i]) && (at < 0 || Math.abs(effect[i]) > Math.abs(effect[at]))) at = i;
  return at < 0 ? null : { layer: Math.floor(at / H), head: at % H, effect: effect[at] };
}

/** Whether a whole sweep is quick enough to run unasked (a small model: ≤ 64 heads, width ≤ 256). */
export const sweepsUnasked = ({ layers, heads, width }) => layers * heads <= 64 && width <= 256;

// A head that copies what came next last time shows an induction score of about this or more
// (issue 32's threshold); below it the section says the model has none.
export const INDUCTION_SHOWS = 0.3;

export const OPENING = {
  head: (s) =>
    `${s.head} is this model’s clearest previous-token head: on a held text, ${fmt(s.score, 2)} of its attention goes to the token just before (${fmt(s.uniform, 2)} if spread evenly).`,
  induction: (s) =>
    `Its best induction score is ${fmt(s.score, 2)} (${s.head}), under the ${fmt(INDUCTION_SHOWS, 1)} that copying from earlier in the text would show: this small model has no induction head. Learn’s repeat task trains one in seconds, and GPT-2 has several.`,
  inductionFound: (s) =>
    `${s.head} has an induction score of ${fmt(s.score, 2)}: on a random sequence seen twice, it looks from each token to the one that followed it the first time.`,
};

/**
 * What the section opens on, from the page's head scores (the host's roles: {scores, strongest}):
 * the clearest previous-token head named, and whether the model has an induction head; uniform:
 * the previous-token score of attention spread evenly over a text of `T` tokens (the mean of
 * 1/(i + 1) over its positions i ≥ 1). `previous`: the head named, {layer, head, name}.
 */
export function openingClaims(roles, T) {
  const previous = roles.strongest.previous[0];
  const induction = roles.strongest.induction[0];
  let uniform = 0;
  for (let i = 1; i < T; i++) uniform += 1 / (i + 1);
  uniform /= Math.max(1, T - 1);
  const name = (x) => headName(x.layer, x.head);
  return {
    head: OPENING.head({ head: name(previous), score: previous.score, uniform }),
    previous: { layer: previous.layer, head: previous.head, name: name(previous) },
    induction: (induction.score >= INDUCTION_SHOWS ? OPENING.inductionFound : OPENING.induction)({
      head: name(induction),
      score: induction.score,
    }),
    hasInduction: induction.score >= INDUCTION_SHOWS,
  };
}

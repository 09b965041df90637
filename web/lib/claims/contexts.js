// What the first section says, derived from the numbers it shows, so it stays true whatever the
// weights, the heads, the mask or the temperature: where the shared word ("bank") looks in each
// sentence, head by head (the pictures beside it draw the same weights); what that does to its
// two vectors (the cosine table's numbers); and what the weights on screen are — set by hand to
// show the idea, the notebook's own, or the reader's. Pure; tests/js/lib/claims/contexts.test.mjs
// checks every sentence against the engine's numbers in many states.
import { fmt } from '../format.js';
import { weightsKind } from '../presets.js';
import { argmax, capital, headsName, joinAnd, q, w2, weightsList } from './words.js';

const TEXT = {
  noShared: 'Add the same word to two sentences to compare what attention makes of it in each.',
  noTrace: (w) => `${q(w)} is the same vector in both sentences before attention; the engine could not run it.`,
  clauseOther: (first, w, tok) => `${w2(w)}${first ? ' of its attention' : ''} on ${q(tok)}`,
  clauseSelf: (first, w) => `${w2(w)}${first ? ' of its attention' : ''} on itself`,
  clauseSpread: (max, list) => `at most ${w2(max)} on any one word (${list})`,
  masked: (hidden) => ` (the causal mask hides ${joinAnd(hidden.map(q))}, after it)`,
  unique: ': each a word only its own sentence has',
  equal: (w, e, lin, a) =>
    `${q(w)} enters both sentences as one vector (cosine ${e})${lin}, and self-attention leaves the two equal too (cosine ${a}).`,
  linear: (lin) => `, and a plain linear layer keeps it one (${lin})`,
  differ: (w, e, lin, a, vs) =>
    `${q(w)} enters both sentences as one vector (cosine ${e})${lin}; self-attention makes two of it: cosine ${a}${vs}.`,
  started: (w, e, a) =>
    `${q(w)} starts with different vectors in the two sentences (cosine ${e}); after self-attention the cosine is ${a}.`,
  further: (avg) => `, further apart than a plain average of each sentence leaves them (${avg})`,
  closer: (avg) => `, yet more alike than a plain average of each sentence leaves them (${avg})`,
  same: (avg) => `, about as far apart as a plain average of each sentence leaves them (${avg})`,
  hand: 'These weights were set by hand to show the idea: W_Q turns a feature only “bank” has into a question, and W_K lets the other words answer it. Learn shows a model finding where to look by itself, from examples.',
  notebookWhy: (w, relation, a, avg) =>
    `These are the notebook’s own hand-set weights (notebook 3), the ones it prints. Its W_query and W_key mostly copy d0 and d1 — how river-like and how money-like a word is — which every word of a sentence shares, so every key answers ${q(w)}’s query about equally: it spreads its attention almost evenly. The two ${q(w)}s differ only because their neighbours differ, and end ${relation} (cosine ${a}, against ${avg} for plain averages).`,
  notebook:
    'These are the notebook’s own hand-set weights (notebook 3), the ones it prints: set to show the computation, not to pick out a word.',
  twoHeads:
    'Two heads set by hand: head 0 has the queries and keys that look for the context word; head 1 compares d0 and d1, how river-like and how money-like a word is.',
  own: 'These weights are no longer a hand-set example of this page: the buttons bring one back.',
  raw: 'Projections are off: queries, keys and values are the embeddings themselves, as the notebook first computes attention.',
  more: 'more alike than plain averages of the two sentences',
  less: 'further apart than plain averages of the two sentences',
  about: 'about as alike as plain averages of the two sentences',
  output: (H, name) =>
    H === 1 ? `self-attention output of ${q(name)}` : `self-attention output of ${q(name)}: ${H} heads side by side`,
};

/** Row i of a (H, T, T) weights tensor averaged over heads. */
export function meanHeadsRow(weights, i) {
  const H = weights.length;
  return weights[0][i].map((_, j) => weights.reduce((s, w) => s + w[i][j], 0) / H);
}

/**
 * Where token i of a sentence looks in head h: the key it gives most, how much, whether that is
 * itself, whether the weight is spread (none at half), and the keys the mask hides from it.
 * @returns {{j: number, w: number, token: string, self: boolean, spread: boolean, row: number[],
 *   hidden: string[]}}
 */
export function looks(entry, h, i) {
  const t = entry.trace;
  const row = t.weights[h][i];
  const j = argmax(row);
  const hidden = entry.tokens.filter((_, k) => t.masked[h][i][k] === -Infinity);
  return { j, w: row[j], token: entry.tokens[j], self: j === i, spread: row[j] < 0.5, row, hidden };
}

// One sentence's part of a head's sentence.
function clause(entry, look, first) {
  if (look.spread) return TEXT.clauseSpread(look.w, weightsList(entry.tokens, look.row));
  return look.self ? TEXT.clauseSelf(first, look.w) : TEXT.clauseOther(first, look.w, look.token);
}

/**
 * @param {object} state  the explorer state
 * @param {{contexts, cosines}} results  computeAll's results
 * @param {object} examples  engine.examples() (to tell the notebook's weights)
 * @returns {{claim: string, looks: string[], cosine: string, honest: string, kind: string,
 *   outputCaption(name): string}}
 *   looks: one sentence per head, where the shared word looks (with the masked words);
 *   cosine: what that does to its two vectors; claim: both; honest: what the weights are (kind:
 *   lib/presets.js weightsKind); all '' where there is nothing to say.
 */
export function contextClaims(state, results, examples) {
  const kind = weightsKind(state, examples);
  const names = Object.keys(results.contexts);
  const row = results.cosines[0];
  const H = results.contexts[names[0]]?.trace?.weights.length ?? 1;
  const base = { kind, looks: [], cosine: '', honest: '', outputCaption: (name) => TEXT.output(H, name) };
  if (!row || names.length < 2) return { ...base, claim: TEXT.noShared };
  const [a, b] = names;
  const A = results.contexts[a];
  const B = results.contexts[b];
  const word = row.word;
  if (row.attention === null || !A.trace || !B.trace) return { ...base, claim: TEXT.noTrace(word) };

  // The sentences a state showing one example talks about: that one alone.
  const shown = [a, b].includes(state.example)
    ? [[state.example, state.example === a ? A : B]]
    : [
        [a, A],
        [b, B],
      ];
  const index = (name) => (name === a ? row.i : row.j);
  const said = Array.from({ length: H }, (_, h) => {
    const found = shown.map(([name, entry]) => ({ name, entry, look: looks(entry, h, index(name)) }));
    const parts = found.map(
      ({ name, entry, look }, n) =>
        `${clause(entry, look, n === 0)} in ${q(name)}${look.hidden.length ? TEXT.masked(look.hidden) : ''}`,
    );
    // Each picks a word the other sentence lacks: the word that tells the sentences apart.
    const unique =
      found.length === 2 &&
      found.every(({ look }) => !look.spread && !look.self) &&
      !B.tokens.includes(found[0].look.token) &&
      !A.tokens.includes(found[1].look.token);
    return `${q(word)} puts ${joinAnd(parts)}${unique ? TEXT.unique : ''}`;
  });
  // Heads that look the same way are said once ("in heads 1, 2 and 3, …").
  const groups = [];
  said.forEach((text, h) => {
    const group = groups.find((g) => g.text === text);
    if (group) group.heads.push(h);
    else groups.push({ text, heads: [h] });
  });
  const perHead = groups.map(({ text, heads }) => capital(H > 1 ? `in ${headsName(heads)}, ${text}.` : `${text}.`));

  const e = fmt(row.embedding ?? NaN);
  const att = fmt(row.attention);
  const avg = fmt(row.average);
  const lin = row.linear === null ? '' : TEXT.linear(fmt(row.linear));
  const gap = row.attention - row.average;
  let cosine;
  if (row.embedding === null || row.embedding <= 0.9995) cosine = TEXT.started(word, e, att);
  else if (row.attention > 0.9995) cosine = TEXT.equal(word, e, lin, att);
  else {
    const vs = gap < -0.02 ? TEXT.further(avg) : gap > 0.02 ? TEXT.closer(avg) : TEXT.same(avg);
    cosine = TEXT.differ(word, e, lin, att, vs);
  }

  const relation = gap > 0.02 ? TEXT.more : gap < -0.02 ? TEXT.less : TEXT.about;
  const allSpread = Array.from({ length: H }, (_, h) =>
    [
      [A, row.i],
      [B, row.j],
    ].every(([entry, i]) => looks(entry, h, i).spread),
  ).every(Boolean);
  const honest = {
    'context-seeking': TEXT.hand,
    'two-heads': TEXT.twoHeads,
    notebook: allSpread ? TEXT.notebookWhy(word, relation, att, avg) : TEXT.notebook,
    own: TEXT.own,
    raw: TEXT.raw,
  }[kind];
  return { ...base, looks: perHead, cosine, claim: `${perHead.join(' ')} ${cosine}`, honest };
}

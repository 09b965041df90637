// What "Many heads" says: how the columns are split among the heads, the first section's cosine
// under that split, and where the shared word looks in each head. Pure.
import { fmt } from '../format.js';
import { strongestKeys } from '../focus.js';
import { headName, q, w2 } from './words.js';

const range = (from, n) => (n === 1 ? `column ${from}` : `columns ${from}–${from + n - 1}`);

const TEXT = {
  oneHead: (hk, hv, cosine, whole) =>
    `One head now: it sees all ${hk} query/key columns and all ${hv} value columns${whole ? ', and its weights and output are those of “Step by step”' : ''}. With H heads the columns are split into H equal groups (the Heads menu adds zero columns where needed), each head sees only its share and has its own weights, and every output changes.${cosine}`,
  manyHeads: (H, hk, hv, focus, cosine) =>
    `${H} heads over ${q(focus)}. ${Array.from({ length: H }, (_, hh) => `Head ${hh} uses query/key ${range(hh * hk, hk)} and value ${range(hh * hv, hv)}`).join('. ')}. ` +
    `Each head scales its scores by 1/√${hk}, one over the square root of its own head size dₖ, runs softmax on its own, and the outputs are put side by side. This is a different model from the one-head one: every output differs.${cosine}`,
  cosine: (shared) => ` The cosine of the two sentences’ ${q(shared.word)} outputs is now ${fmt(shared.attention)}.`,
  claim: (focus, word, tops, tokens) =>
    `In ${q(focus)}, ${q(word)} ${tops.map((x, hh) => `puts ${w2(x.w)} on ${q(tokens[x.j])} in ${headName(hh)}`).join(', ')}${new Set(tops.map((x) => x.j)).size > 1 ? ': the heads look at different words.' : ': here the heads agree on where to look.'}`,
};

/**
 * @param {object} f  lib/focus.js focusView
 * @param {Array} cosines  results.cosines
 * @param {string} focus  the focused sentence's name
 * @param {boolean} whole  the whole page is shown (so "Step by step" is there to point at)
 * @returns {{intro: string, claim: string}}  claim: '' with one head
 */
export function headsTexts(f, cosines, focus, whole = true) {
  const { trace: t, heads: H, tokens, highlightRows: hl, hk, hv } = f;
  const shared = cosines.find((c) => c.attention !== null);
  const cosine = shared ? TEXT.cosine(shared) : '';
  const intro = H === 1 ? TEXT.oneHead(hk, hv, cosine, whole) : TEXT.manyHeads(H, hk, hv, focus, cosine);
  const row = hl.length ? hl[0] : Math.min(1, tokens.length - 1);
  return { intro, claim: H === 1 ? '' : TEXT.claim(focus, tokens[row], strongestKeys(t, row), tokens) };
}

// What "What happens next" says about one token through a real model, from its trace. Pure.
import { fmt } from '../format.js';
import { q } from './words.js';

const TEXT = {
  status: (token, L, C) => `The last token, ${q(token)}, in a model of ${L} layers and width ${C}.`,
  claim: (l, L) =>
    `In block 1 the attention branch has length ${fmt(l.attention, 2)} and the MLP branch ${fmt(l.mlp, 2)}, both added to a vector of length ${fmt(l.x0, 2)}; after ${L} blocks the vector has length ${fmt(l.xL, 2)}.`,
};

/**
 * @param {string} token  the last token as shown
 * @param {{L: number, width: number}} t  the trace
 * @param {{x0, attention, mlp, xL}} lengths  lib/real/view.js lastTokenThroughBlocks().lengths
 */
export function nextTexts(token, t, lengths) {
  return { status: TEXT.status(token, t.L, t.width), claim: TEXT.claim(lengths, t.L) };
}

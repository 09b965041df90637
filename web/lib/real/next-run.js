// "What happens next"'s run: the state's sentence through the real model (tools/real-model.js),
// once per change of model, sentence or temperature, and what the section shows of it. Pure (no
// DOM); tests/js/lib/real/next-run.test.mjs with a fake model.
import { lastTokenThroughBlocks, listedCandidates } from './view.js';
import { nextTexts } from '../claims/next.js';

/**
 * What the section shows of one run: the last token as shown (spaces as ␣), the model's width
 * and layers, the six vectors of lastTokenThroughBlocks cut to their first `show` numbers, what
 * is said of them (claims/next.js), the candidates worth listing (listedCandidates) each with its
 * bar's width in percent of the most likely, and the sentence for those left out.
 * @param {{pieces: Array<{display: string}>}} encoded  the model host's encode result
 * @param {{width, T, L, residual, afterAttention}} t  its trace
 * @param {{topTokens, topProbs, topText}} next  its next-token result
 */
export function nextPicture(encoded, t, next, { show, temperature }) {
  const { lengths, ...vectors } = lastTokenThroughBlocks(t);
  const cut = Math.min(show, t.width);
  const token = encoded.pieces[t.T - 1].display.replace(/ /g, '␣');
  const max = next.topProbs[0] || 1;
  const listed = listedCandidates(next, { temperature });
  return {
    token,
    width: t.width,
    layers: t.L,
    show: cut,
    vectors: Object.fromEntries(Object.entries(vectors).map(([name, v]) => [name, v.slice(0, cut)])),
    said: nextTexts(token, t, lengths),
    bars: listed.shown.map((c) => ({ ...c, percent: (100 * c.p) / max })),
    leftOut: listed.leftOut,
  };
}

/**
 * @param {{real: {ensure(state), call(op, ...args), info}, gpt(): object, state(): object}} deps
 *   gpt: the state's real-model part ({model, sentence, temperature}); state: the whole state
 * @returns {{run(options: {show(): number}): Promise<object|null>}} run resolves with
 *   {temperature, ...nextPicture} — or null when the inputs are those of the last run, or a newer
 *   run overtook it — and rejects when the model could not run (then the next run asks again).
 *   `show()` is how many numbers of each vector fit, asked once the numbers are in.
 */
export function createNextRun({ real, gpt, state }) {
  let seen = null;
  return {
    async run({ show }) {
      const g = gpt();
      const key = JSON.stringify([g.model, g.precision, g.sentence, g.temperature, real.info?.name]);
      if (key === seen) return null;
      seen = key;
      try {
        await real.ensure(state());
        const encoded = await real.call('encode', g.sentence);
        const t = await real.call('trace', encoded.ids, { layer: 0, head: 0 });
        const next = await real.call('next', t.logits, { temperature: g.temperature, top: 5 });
        if (key !== seen) return null;
        return {
          temperature: g.temperature,
          ...nextPicture(encoded, t, next, { show: show(), temperature: g.temperature }),
        };
      } catch (error) {
        seen = null;
        throw error;
      }
    },
  };
}

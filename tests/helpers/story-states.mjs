// The states a reader can reach that the page's computed sentences must stay true in (issue 30):
// the page's default (weights that look for the context word), the notebook's weights, two heads
// that look at different things, 1/2/4 heads, the causal mask on and off, an added word, an edited
// weight, the temperature's extremes, projections off, one sentence alone. Built with the page's
// own transitions (lib/state.js, lib/presets.js), so they are states the controls produce.
import assert from 'node:assert/strict';
import { addToken, addWord, defaultState, setValue } from '../../web/lib/state.js';
import { computeAll } from '../../web/lib/compute.js';
import { focusView } from '../../web/lib/focus.js';
import { fmt } from '../../web/lib/format.js';
import { TWO_HEADS, withHeads, withNotebookWeights, withPreset } from '../../web/lib/presets.js';

const opt = (s, o) => ({ ...s, options: { ...s.options, ...o } });
const must = (r) => {
  if (r.error) throw new Error(r.error);
  return r.state;
};

/** name → state, from engine.examples(). */
export function storyStates(examples) {
  const d = defaultState(examples);
  const notebook = must(withNotebookWeights(d, examples));
  const two = must(withPreset(d, TWO_HEADS));
  const shore = must(addToken(must(addWord(d, 'shore', [1, 0, 0, 0.8])), 'river', 'shore'));
  return {
    default: d,
    notebook,
    'two heads': two,
    'two heads, head 1 shown': opt(two, { head: 1 }),
    'heads 2': must(withHeads(d, 2)),
    'heads 4': must(withHeads(d, 4)),
    'heads 4 of two heads': must(withHeads(two, 4)),
    causal: opt(d, { causal: true }),
    'notebook, causal': opt(notebook, { causal: true }),
    'two heads, causal': opt(two, { causal: true }),
    'an added word': shore,
    'an edited weight': must(setValue(d, { matrix: 'wk' }, 3, 0, 0.5)),
    'temperature 0.1': opt(notebook, { temperature: 0.1 }),
    'temperature 5': opt(d, { temperature: 5 }),
    'projections off': opt(d, { projections: false, scale: false }),
    'river alone': { ...d, example: 'river', focus: 'river' },
    finance: { ...d, focus: 'finance' },
  };
}

/** Every number written in a sentence, as written ("0.86", "1.000", "−0.25"). */
export const numbersIn = (text) => text.match(/[−-]?\d+\.\d+/g) ?? [];

/**
 * Runs f(name, state, results, view) for every story state: the engine's results for it
 * (lib/compute.js computeAll) and the focused sentence's view (lib/focus.js focusView).
 */
export function eachStoryState(engine, states, f) {
  for (const [name, state] of Object.entries(states)) {
    const results = computeAll(engine, state);
    f(name, state, results, focusView(state, results));
  }
}

/** Every number of `matrix` as the page writes it (`digits` decimals). */
export const allShown = (matrix, digits = 3) => new Set(matrix.flat().map((v) => fmt(v, digits)));

/** Every number `text` says is one of those `shown`. */
export function assertOnScreen(text, shown, what) {
  for (const n of numbersIn(text)) assert.ok(shown.has(n), `${what}: ${n} is not on screen: ${text}`);
}

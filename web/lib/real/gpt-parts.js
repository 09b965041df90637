// The real-model figure's parts (issue 33): what the `view` attribute (a link's view) can name to
// show one piece of "A real language model" as a compact figure of its own, and what each needs
// the model to compute. view="gpt" shows the whole section (every part and what belongs to no
// part: the introduction, the exports); a view naming parts shows those parts only, and asks the
// model only for what they draw. A new figure of views/gpt/ becomes a part by one line here (its
// view name, its figure's key in views/gpt.js, what it needs). Pure; tests/js/lib/real/gpt-parts.test.mjs.
//
//   needs  'run'   the sentence through the model (its tokens, every head's weights, the next token)
//          'bank'  the shared word across the two sentences, layer by layer
//          (none)  nothing until the reader acts (the file picker)

export const GPT_PARTS = Object.freeze(
  [
    { view: 'gpt-picker', figure: 'pick', needs: [] },
    { view: 'gpt-tokens', figure: 'tokens', needs: ['run'] },
    { view: 'gpt-heads', figure: 'grid', needs: ['run'] },
    { view: 'gpt-head', figure: 'big', needs: ['run'] },
    { view: 'gpt-roles', figure: 'roles', needs: ['run'] },
    { view: 'gpt-next', figure: 'next', needs: ['run'] },
    { view: 'gpt-kv', figure: 'kv', needs: ['run'] },
    { view: 'gpt-bank', figure: 'bank', needs: ['bank'] },
    { view: 'gpt-tools', figure: 'tools', needs: ['run'] },
    { view: 'gpt-senses', figure: 'senses', needs: ['run'] },
  ].map(Object.freeze),
);

/** The part names `view` accepts (lib/state.js VIEWS holds them). */
export const GPT_PART_VIEWS = Object.freeze(GPT_PARTS.map((p) => p.view));

/**
 * What a view shows of the real-model section.
 * @param {string[]} view  state.view
 * @returns {{whole: boolean, figures: Set<string>, run: boolean, bank: boolean}}
 *   whole: the whole section ('all' or 'gpt'); figures: the keys of the parts shown; run, bank:
 *   what the model is asked for
 */
export function gptPartsOf(view) {
  const whole = view.includes('all') || view.includes('gpt');
  const parts = GPT_PARTS.filter((p) => whole || view.includes(p.view));
  const needs = new Set(parts.flatMap((p) => p.needs));
  return {
    whole,
    figures: new Set(parts.map((p) => p.figure)),
    run: needs.has('run'),
    bank: needs.has('bank'),
  };
}

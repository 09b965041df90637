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
//   inside a figure drawn inside another part's box: naming it shows that box with it alone in it,
//          naming the other part shows it with everything inside it (the tools: each of the three
//          alone, or all of them)

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
    { view: 'gpt-knockout', figure: 'knockout', inside: 'tools', needs: ['run'] },
    { view: 'gpt-attribution', figure: 'attribution', inside: 'tools', needs: ['run'] },
    { view: 'gpt-lens', figure: 'lens', inside: 'tools', needs: ['run'] },
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
  const named = GPT_PARTS.filter((p) => whole || view.includes(p.view));
  const figures = new Set(named.map((p) => p.figure));
  for (const p of GPT_PARTS.filter((q) => q.inside)) {
    if (figures.has(p.inside) && named.some((q) => q.figure === p.inside)) figures.add(p.figure); // all inside it
    if (figures.has(p.figure)) figures.add(p.inside); // its box
  }
  const needs = new Set(named.flatMap((p) => p.needs));
  return {
    whole,
    figures,
    run: needs.has('run'),
    bank: needs.has('bank'),
  };
}

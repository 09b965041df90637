// The heads section's knobs (the page's full controls only): how many heads (every count the
// widths allow, padding them with zero columns where needed), which head the step-by-step figures
// show, and a preset of two heads that look at different things.
import { h, uid, setOptions, withSection, withoutSection } from '../../ui/dom.js';
import { LIMITS } from '../../lib/state.js';
import { TWO_HEADS, headChoices, presetApplies, withHeads, withPreset } from '../../lib/presets.js';

const TEXT = {
  heads: 'Heads',
  head: 'Show head',
  headHelp: 'the head the step-by-step figures show',
  padded: (c) => `${c.heads} (widths padded to ${c.dk} and ${c.dv})`,
  preset: 'Two heads that look at different things',
  presetHead0: 'Head 0 gets the query and key ',
  presetOfQkv: 'of “Queries, keys and values”',
  presetOfOneHead: 'of the one-head example',
  presetHelp:
    ' (bank’s query looks for the context word); head 1 compares d0 and d1, river-ness and money-ness, so each token looks at words of its own kind.',
};
const MAX_HEADS = 8;

/**
 * @param {Element} parent
 * @param {object} app  the explorer's (edit, setOptions)
 * @returns {{update(state, heads)}}  heads: the trace's head count
 */
export function render(parent, app) {
  const { doc } = app;
  const headsId = uid('opt');
  const headsSel = h(doc, 'select', {
    id: headsId,
    onchange: (e) => app.edit((s) => withHeads(s, Number(e.target.value))),
  });
  const headId = uid('opt');
  const headSel = h(doc, 'select', { id: headId, onchange: (e) => app.setOptions({ head: Number(e.target.value) }) });
  const presetBtn = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => withPreset(s, TWO_HEADS)) },
    TEXT.preset,
  );
  parent.append(
    h(
      doc,
      'div',
      { class: 'ae-knobs ae-row' },
      h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headsId }, `${TEXT.heads} `), headsSel),
      h(
        doc,
        'div',
        { class: 'ae-ctl' },
        h(doc, 'label', { for: headId }, `${TEXT.head} `),
        headSel,
        h(doc, 'span', { class: 'ae-help' }, ` ${TEXT.headHelp}`),
      ),
      presetBtn,
      h(
        doc,
        'p',
        { class: 'ae-help' },
        TEXT.presetHead0,
        withSection(doc, 'qkv', TEXT.presetOfQkv),
        withoutSection(doc, 'qkv', TEXT.presetOfOneHead),
        TEXT.presetHelp,
      ),
    ),
  );
  return {
    update(state, H) {
      const choices = headChoices(state, LIMITS.width, Math.min(MAX_HEADS, LIMITS.heads));
      setOptions(
        doc,
        headsSel,
        choices.map((c) => ({ value: c.heads, label: c.padded ? TEXT.padded(c) : String(c.heads) })),
        state.options.heads,
      );
      setOptions(
        doc,
        headSel,
        Array.from({ length: H }, (_, i) => ({ value: i, label: `head ${i}` })),
        Math.min(state.options.head, H - 1),
      );
      headSel.disabled = H === 1;
      presetBtn.disabled = !presetApplies(state, TWO_HEADS);
    },
  };
}

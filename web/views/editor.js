// Edit everything, one click deeper: the tokens of each context (reorder, add, remove), the
// vocabulary (every word's vector, editable cell by cell; new words), the widths D, dₖ, d_v, and a
// reset to the start (the page's defaults). W_Q, W_K, W_V are edited where they are drawn (Queries, keys and
// values); W under the first section. This file composes the editor's parts (views/editor/*.js).
import { h } from '../ui/dom.js';
import { LIMITS, resetTo } from '../lib/state.js';
import * as sentences from './editor/sentences.js';
import * as vocabulary from './editor/vocabulary.js';
import * as widths from './editor/widths.js';

const TEXT = {
  title: 'Edit the example',
  intro: `Change the sentences and the vectors, then watch every view above follow. Limits: ${LIMITS.tokens} tokens per sentence, ${LIMITS.words} words, widths up to ${LIMITS.width}, values within ±${LIMITS.absValue}.`,
  summary: 'Sentences, words, vectors and widths',
  reset: 'Reset everything to the start',
};

export function render(page, app) {
  const { doc } = app;
  // The editor's body opens from its summary, or when the contents or the overview jump here
  // (data-opens-on-jump, see app.goTo).
  const body = h(doc, 'details', { class: 'ae-details ae-editor', dataset: { opensOnJump: '' } });
  page.append(h(doc, 'h2', {}, TEXT.title), h(doc, 'p', { class: 'ae-prose' }, TEXT.intro), body);
  body.append(
    h(doc, 'summary', {}, TEXT.summary),
    h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-btn',
        onclick: () => app.edit(resetTo(app.defaults)),
      },
      TEXT.reset,
    ),
  );
  const parts = [sentences.render(body, app), vocabulary.render(body, app), widths.render(body, app)];
  return {
    update() {
      for (const part of parts) part.update(app.state);
    },
  };
}

// A phone reader gets the story without the engineering: where the explorer is narrow (a phone,
// or a figure in a narrow column) a section folds its supporting figures — the intermediate
// matrices, the tables behind a picture, the exports — behind a disclosure, keeping its prose,
// its claim and the figure that shows it. Where it is wide nothing changes, nor in a figure that
// names its views (an embed asked for those figures). Decided once, when the section is built.
import { h } from './dom.js';

/** Below this width (CSS px) the explorer counts as narrow. */
export const NARROW_PX = 600;

/** Whether the explorer `app` draws into is narrow (its container's width, else the window's). */
export function isNarrow(app) {
  const width = app.container?.getBoundingClientRect?.().width || app.win?.innerWidth || Infinity;
  return width < NARROW_PX;
}

/**
 * Where the explorer is narrow and shows the whole page (view "all"), moves `elements` (already in
 * place) into a closed disclosure labelled `summary`, put where the first of them was (or before
 * `at`); elsewhere does nothing.
 * @param {{doc, container, win, state}} app
 * @param {string} summary
 * @param {Array<Element|null>} elements
 * @param {{at?: Element}} [where]
 * @returns {HTMLDetailsElement|null}  the disclosure, or null where nothing was folded
 */
export function foldOnPhone(app, summary, elements, { at = null } = {}) {
  const els = elements.filter(Boolean);
  if (!els.length || !app.state?.view?.includes('all') || !isNarrow(app)) return null;
  const details = h(app.doc, 'details', { class: 'ae-details ae-fold' }, h(app.doc, 'summary', {}, summary));
  (at ?? els[0]).before(details);
  details.append(...els);
  return details;
}

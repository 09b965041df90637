// The real-model section's parts on screen (lib/real/gpt-parts.js says which a view shows): each
// figure is mounted in a box of its own, shown when its part is; what belongs to no part (the
// introduction, the exports) is shown with the whole section only. A column or a pair of columns
// left with nothing shown is hidden too, so a figure of one part is that part's height.
import { h } from '../../ui/dom.js';
import { gptPartsOf } from '../../lib/real/gpt-parts.js';

/**
 * @returns {{box(parent, figure): HTMLElement, show(view: string[]): ReturnType<gptPartsOf>}}
 *   box: a new box in parent for a part's figure (its key in GPT_PARTS; null: the whole section's
 *   only); show: hides what the view does not show, returns what it shows
 */
export function createParts(doc) {
  const boxes = [];
  return {
    box(parent, figure) {
      const el = h(doc, 'div', { class: 'ae-gpt-part', dataset: { gptPart: figure ?? 'whole' } });
      parent.append(el);
      boxes.push({ el, figure });
      return el;
    },
    show(view) {
      const shown = gptPartsOf(view);
      for (const { el, figure } of boxes) el.hidden = figure === null ? !shown.whole : !shown.figures.has(figure);
      // Columns, then the pairs that hold them: hidden when nothing in them is shown.
      for (const sel of ['.ae-gpt-col', '.ae-gpt-pair']) {
        const parents = new Set(boxes.map(({ el }) => el.closest(sel)).filter(Boolean));
        for (const p of parents) p.hidden = [...p.children].every((c) => c.hidden);
      }
      return shown;
    },
  };
}

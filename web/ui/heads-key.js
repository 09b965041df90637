// The key to the heads' colours where a figure tints its columns or boxes by head (the heads'
// split and merge, the step-by-step output): "colour: ▬ head 0 ▬ head 1 …" (lib/palette.js).
import { h } from './dom.js';
import { headClass } from '../lib/palette.js';

/**
 * @param {Document} doc
 * @returns {{el: HTMLElement, update(H: number)}}
 */
export function createHeadsKey(doc) {
  const el = h(doc, 'p', { class: 'ae-heads-key' });
  return {
    el,
    update(H) {
      if (el.dataset.heads === String(H)) return;
      el.dataset.heads = String(H);
      el.replaceChildren(
        'column colours: ',
        ...Array.from({ length: H }, (_, hh) =>
          h(
            doc,
            'span',
            { class: `ae-heads-key-item ${headClass(hh)}` },
            h(doc, 'span', { class: 'ae-swatch' }),
            `head ${hh} `,
          ),
        ),
      );
    },
  };
}

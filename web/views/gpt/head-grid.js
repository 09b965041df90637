// Every layer × head of a model as small multiples: one small heatmap of each head's causal
// weights over the sentence (a canvas in a button: choose it to see it enlarged), rows of layers,
// columns of heads, on the page's shared weights colour scale (legend below).
import { h } from '../../ui/dom.js';
import { colorScale, legendFor } from '../../lib/colormaps.js';

const TEXT = {
  title: 'Every layer and head',
  help: 'Each square is one head’s weights over your sentence (rows: queries, columns: keys; causal, so the upper triangle is empty). Choose one to see it enlarged with its numbers.',
  legend: 'attention weight, 0 → 1, one scale for all weights',
};

/**
 * @param {Element} parent
 * @param {{doc, onPick: (layer, head) => void}} ctx
 * @returns {{update({weights, L, H, T, chosen, theme}), canvases(), clear()}}
 */
export function render(parent, { doc, onPick }) {
  const grid = h(doc, 'div', { class: 'ae-gpt-grid', role: 'group', 'aria-label': TEXT.title });
  const legend = h(doc, 'p', { class: 'ae-legend ae-gpt-grid-legend' });
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    grid,
    legend,
  );
  let tiles = [];
  let shape = '';

  function build(L, H) {
    grid.replaceChildren();
    grid.style.setProperty('--ae-gpt-heads', String(H));
    tiles = [];
    grid.append(h(doc, 'span', { class: 'ae-gpt-corner' }));
    for (let hh = 0; hh < H; hh++) grid.append(h(doc, 'span', { class: 'ae-gpt-collabel' }, `h${hh + 1}`));
    for (let l = 0; l < L; l++) {
      grid.append(h(doc, 'span', { class: 'ae-gpt-rowlabel' }, `layer ${l + 1}`));
      for (let hh = 0; hh < H; hh++) {
        const canvas = h(doc, 'canvas', { width: 1, height: 1 });
        const button = h(
          doc,
          'button',
          {
            type: 'button',
            class: 'ae-gpt-tile',
            'aria-label': `layer ${l + 1}, head ${hh + 1}`,
            dataset: { layer: l, head: hh },
            onclick: () => onPick(l, hh),
          },
          canvas,
        );
        grid.append(button);
        tiles.push({ button, canvas });
      }
    }
  }

  return {
    update({ weights, L, H, T, chosen, theme }) {
      const key = `${L}x${H}`;
      if (key !== shape) {
        shape = key;
        build(L, H);
      }
      const color = colorScale('weights', [0, 1], theme);
      const rgb = new Map();
      const parse = (c) => {
        if (!rgb.has(c)) {
          const m = /#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(c) || /(\d+),\s*(\d+),\s*(\d+)/.exec(c);
          rgb.set(
            c,
            m[0].startsWith('#') ? [1, 2, 3].map((i) => parseInt(m[i], 16)) : [1, 2, 3].map((i) => Number(m[i])),
          );
        }
        return rgb.get(c);
      };
      tiles.forEach(({ button, canvas }, n) => {
        const l = Math.floor(n / H),
          hh = n % H;
        button.classList.toggle('ae-gpt-chosen', l === chosen.layer && hh === chosen.head);
        button.setAttribute('aria-pressed', String(l === chosen.layer && hh === chosen.head));
        canvas.width = T;
        canvas.height = T;
        const ctx = canvas.getContext('2d');
        const image = ctx.createImageData(T, T);
        const base = (l * H + hh) * T * T;
        for (let i = 0; i < T; i++)
          for (let j = 0; j < T; j++) {
            const o = 4 * (i * T + j);
            if (j > i) {
              image.data[o + 3] = 0; // the masked future: transparent, the tile's background shows
              continue;
            }
            const [r, g, b] = parse(color(weights[base + i * T + j]));
            image.data.set([r, g, b, 255], o);
          }
        ctx.putImageData(image, 0, 0);
      });
      const l = legendFor('weights', [0, 1], theme);
      legend.replaceChildren(
        h(doc, 'span', { class: 'ae-legend-end' }, '0'),
        h(doc, 'span', {
          class: 'ae-legend-bar',
          style: `background: linear-gradient(to right, ${l.stops.join(', ')})`,
        }),
        h(doc, 'span', { class: 'ae-legend-end' }, '1'),
        h(doc, 'span', { class: 'ae-legend-text' }, TEXT.legend),
      );
    },
    /** The tiles' canvases, layer-major (the export draws them into one picture). */
    canvases: () => tiles.map((t) => t.canvas),
    clear() {
      grid.replaceChildren();
      tiles = [];
      shape = '';
    },
  };
}

// The map of the whole transformer: tokens → embedding + position → N × [LayerNorm → attention →
// add → LayerNorm → MLP → add] → LayerNorm → unembedding → probabilities, each block a link to the
// section that explains it, the shapes of the model written in it (the toy example's, live, or the
// real model's where the reader is in its part: lib/map.js), and "you are here" on the blocks the
// section being read is about. Across the page at a desktop's width, down it on a phone. Every
// section's heading links back here (shell/map-links.js).
import { h } from '../ui/dom.js';
import { BLOCKS, blocksFor, mapShapes, modeFor, toySizes } from '../lib/map.js';
import { readingPositionOf } from '../ui/reading-position.js';

const TEXT = {
  title: 'The whole transformer',
  intro:
    'Self-attention is one part of a transformer. A token goes through every box, in order; the ones in the dashed frame repeat, layer after layer. Each box links to the section that explains it; “you are here” follows you as you read.',
  label: 'The blocks of a transformer',
  here: 'you are here',
  layer: 'repeated block',
};

export function render(section, app) {
  const { doc } = app;
  const position = readingPositionOf(app);
  const shown = new Set(app.sections.map((s) => s.id));
  const boxes = new Map();
  const box = (b) => {
    const shape = h(doc, 'span', { class: 'ae-map-shape' });
    const here = h(doc, 'span', { class: 'ae-map-here', hidden: true }, TEXT.here);
    const button = h(
      doc,
      'button',
      {
        type: 'button',
        class: `ae-map-box ae-map-${b.id}${b.label === '+' ? ' ae-map-add' : ''}`,
        dataset: { block: b.id, target: b.target },
        disabled: !shown.has(b.target),
        onclick: () => app.goTo(b.target),
      },
      h(doc, 'span', { class: 'ae-map-label' }, b.label),
      b.name ? h(doc, 'span', { class: 'ae-sr' }, ` ${b.name}`) : null,
      shape,
      here,
    );
    boxes.set(b.id, { button, shape, here });
    return h(doc, 'li', { class: 'ae-map-item' }, button);
  };
  const arrow = () => h(doc, 'li', { class: 'ae-map-arrow', 'aria-hidden': 'true' });
  const layerCount = h(doc, 'span', { class: 'ae-map-count' });
  const layerList = h(doc, 'ol', { class: 'ae-map-layer-flow' });
  const flow = h(doc, 'ol', { class: 'ae-map-flow', 'aria-label': TEXT.label });
  let inLayer = false;
  BLOCKS.forEach((b, n) => {
    if (b.layer && !inLayer) {
      inLayer = true;
      if (n) flow.append(arrow());
      flow.append(
        h(
          doc,
          'li',
          { class: 'ae-map-layer' },
          h(doc, 'span', { class: 'ae-map-layer-title' }, TEXT.layer, ' ', layerCount),
          layerList,
        ),
      );
    } else if (!b.layer && inLayer) {
      inLayer = false;
      flow.append(arrow());
    } else if (n) (inLayer ? layerList : flow).append(arrow());
    (b.layer ? layerList : flow).append(box(b));
  });
  const caption = h(doc, 'p', { class: 'ae-help ae-map-caption', 'aria-live': 'polite' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    h(doc, 'nav', { class: 'ae-map', 'aria-label': TEXT.label }, flow),
    caption,
  );

  let watching = null; // the real model, once it exists: its opening redraws the shapes
  function draw() {
    const id = position.current;
    const lit = new Set(blocksFor(id));
    for (const [bid, { button, here }] of boxes) {
      const on = lit.has(bid);
      button.classList.toggle('ae-map-lit', on);
      here.hidden = !on;
      if (on) button.setAttribute('aria-current', 'location');
      else button.removeAttribute('aria-current');
    }
    section.dataset.here = id || '';
    const real = app.shared('real-model');
    if (real && watching !== real) {
      watching = real;
      real.subscribe(draw);
    }
    const said = mapShapes(modeFor(id), toySizes(app.state, app.results), real?.info ?? null);
    section.dataset.mode = said.mode;
    for (const [bid, { button, shape }] of boxes) {
      button.classList.toggle('ae-map-absent', said.absent.includes(bid));
      const lines = said.shapes[bid] ?? [];
      const text = lines.join('\n');
      if (shape.dataset.text === text) continue;
      shape.dataset.text = text;
      shape.replaceChildren(...lines.map((l) => h(doc, 'span', { class: 'ae-map-shape-line' }, l)));
    }
    layerCount.textContent = said.layers;
    caption.textContent = said.caption;
  }
  const stop = position.subscribe(draw);
  return {
    update() {
      position.watch();
      draw();
    },
    destroy: stop,
  };
}

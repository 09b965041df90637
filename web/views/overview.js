// The big picture, kept at the top of the page while the reader scrolls: where self-attention sits
// in a transformer — tokens → embedding (+ position) → [attention → add → MLP → add] × layers →
// LayerNorm → logits → the next token — with "you are here" following the section on screen and
// each box a link to the section that explains it. It also holds the sentence every step follows.
import { h, uid } from '../ui/dom.js';

const TEXT = {
  label: 'Where this is in a transformer',
  here: 'you are here',
  layers: '× layers',
  sentence: 'Sentence',
};

// Each box: its label (and a longer accessible name when the label is a symbol), the section it
// links to, and the sections during which it is where the reader is.
const ATTENTION_SECTIONS = [
  'contexts',
  'averaging',
  'naive',
  'qkv',
  'plane',
  'pipeline',
  'lines',
  'scaling',
  'loops',
  'heads',
  'formula',
];
const WHOLE_MODEL = ['learn'];
export const BOXES = Object.freeze([
  { id: 'tokens', label: 'Tokens', target: 'contexts', here: [] },
  { id: 'embed', label: 'Embedding + position', target: 'naive', here: ['naive', 'order'] },
  { id: 'attention', label: 'Self-attention', target: 'pipeline', here: ATTENTION_SECTIONS, layer: true },
  { id: 'add1', label: '+', name: '+ add to the residual stream', target: 'next', here: ['next'], layer: true },
  { id: 'mlp', label: 'MLP', target: 'next', here: ['next'], layer: true },
  { id: 'add2', label: '+', name: '+ add to the residual stream', target: 'next', here: ['next'], layer: true },
  { id: 'norm', label: 'LayerNorm', target: 'next', here: ['next'] },
  { id: 'logits', label: 'Logits', target: 'next', here: ['next'] },
  { id: 'token', label: 'Next token', target: 'next', here: ['next'] },
]);

/** The boxes lit while section `id` is on screen. */
export function boxesFor(id) {
  if (WHOLE_MODEL.includes(id)) return BOXES.map((b) => b.id);
  return BOXES.filter((b) => b.here.includes(id)).map((b) => b.id);
}

export function render(section, app) {
  const { doc, win, store } = app;
  const shown = new Set(app.sections.map((s) => s.id));
  const buttons = new Map();
  const box = (b) => {
    const button = h(
      doc,
      'button',
      {
        type: 'button',
        class: `ae-ov-box ae-ov-${b.id}`,
        'aria-label': b.name,
        disabled: !shown.has(b.target),
        onclick: () => app.goTo(b.target),
      },
      b.label,
    );
    buttons.set(b.id, button);
    return button;
  };
  const arrow = () => h(doc, 'span', { class: 'ae-ov-arrow', 'aria-hidden': 'true' }, '→');
  const layer = h(doc, 'span', { class: 'ae-ov-layer' });
  const strip = h(doc, 'div', { class: 'ae-ov-strip' });
  let inLayer = false;
  BOXES.forEach((b, n) => {
    if (b.layer && !inLayer) {
      inLayer = true;
      if (n) strip.append(arrow());
      strip.append(layer);
    } else if (!b.layer && inLayer) {
      inLayer = false;
      layer.append(h(doc, 'span', { class: 'ae-ov-times' }, TEXT.layers));
      strip.append(arrow());
    } else if (n) (inLayer ? layer : strip).append(arrow());
    (b.layer ? layer : strip).append(box(b));
  });
  const sentenceId = uid('sentence');
  const sentence = h(doc, 'select', {
    id: sentenceId,
    'aria-label': TEXT.sentence,
    onchange: (e) => store.set({ focus: e.target.value, step: 0, selected: null }),
  });
  section.append(
    h(
      doc,
      'nav',
      { class: 'ae-overview', 'aria-label': TEXT.label },
      h(doc, 'span', { class: 'ae-ov-title' }, `${TEXT.label}:`),
      strip,
      h(doc, 'span', { class: 'ae-ov-sentence' }, h(doc, 'label', { for: sentenceId }, TEXT.sentence), sentence),
    ),
  );

  // "You are here": the section that crosses a line just below the strip.
  let current = null;
  const light = (id) => {
    if (id === current) return;
    current = id;
    const lit = new Set(boxesFor(id));
    for (const [bid, button] of buttons) {
      const on = lit.has(bid);
      button.classList.toggle('ae-ov-here', on);
      if (on) button.setAttribute('aria-current', 'location');
      else button.removeAttribute('aria-current');
    }
    section.dataset.here = id || '';
  };
  const onscreen = new Map();
  const io = win.IntersectionObserver
    ? new win.IntersectionObserver(
        (entries) => {
          for (const e of entries) onscreen.set(e.target.dataset.section, e.isIntersecting);
          const first = app.sections.find((s) => onscreen.get(s.id));
          light(first?.id ?? null);
        },
        { rootMargin: '-20% 0px -70% 0px' },
      )
    : null;
  const watched = new Set();
  return {
    update() {
      const state = store.get();
      const names = Object.keys(state.contexts);
      if (sentence.dataset.key !== names.join('|')) {
        sentence.dataset.key = names.join('|');
        sentence.replaceChildren(...names.map((n) => h(doc, 'option', { value: n }, n)));
      }
      sentence.value = state.focus;
      if (!io) return;
      for (const el of app.container.querySelectorAll('section[data-section]')) {
        if (watched.has(el) || !shown.has(el.dataset.section)) continue;
        watched.add(el);
        io.observe(el);
      }
    },
    destroy: () => io?.disconnect(),
  };
}

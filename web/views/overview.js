// The bar kept at the top of the page while the reader scrolls: where the section on screen sits
// in a whole transformer ("you are here: self-attention"), a link to the map that draws all of it
// (views/map.js), and the sentence every step follows.
import { h, uid } from '../ui/dom.js';
import { BLOCKS, blocksFor } from '../lib/map.js';
import { readingPositionOf } from '../ui/reading-position.js';

const TEXT = {
  label: 'Where this is in a transformer',
  here: 'You are here:',
  whole: 'the whole model',
  none: 'outside the model',
  map: 'map',
  sentence: 'Sentence',
};

/** What the bar says for section `id`: the blocks it is about, by name. */
export function whereText(id) {
  const lit = blocksFor(id);
  if (lit.length === BLOCKS.length) return TEXT.whole;
  if (!lit.length) return TEXT.none;
  const names = [...new Set(BLOCKS.filter((b) => lit.includes(b.id)).map((b) => b.name ?? b.label))];
  return names.length > 3 ? `${names.slice(0, 3).join(', ')} …` : names.join(', ');
}

export function render(section, app) {
  const { doc, store } = app;
  const position = readingPositionOf(app);
  const hasMap = app.sections.some((s) => s.id === 'map');
  const where = h(doc, 'strong', { class: 'ae-ov-where' });
  const what = h(doc, 'span', { class: 'ae-ov-section' });
  const toMap = hasMap
    ? h(doc, 'button', { type: 'button', class: 'ae-link ae-ov-map', onclick: () => app.goTo('map') }, TEXT.map)
    : null;
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
      h(doc, 'span', { class: 'ae-ov-here' }, h(doc, 'span', { class: 'ae-ov-prefix' }, `${TEXT.here} `), where, what),
      toMap,
      h(doc, 'span', { class: 'ae-ov-sentence' }, h(doc, 'label', { for: sentenceId }, TEXT.sentence), sentence),
    ),
  );
  const light = (id) => {
    section.dataset.here = id || '';
    where.textContent = whereText(id);
    const title = app.sections.find((s) => s.id === id)?.title;
    what.textContent = title ? ` · ${title}` : '';
  };
  light(position.current);
  const stop = position.subscribe(light);
  return {
    update() {
      const state = store.get();
      const names = Object.keys(state.contexts);
      if (sentence.dataset.key !== names.join('|')) {
        sentence.dataset.key = names.join('|');
        sentence.replaceChildren(...names.map((n) => h(doc, 'option', { value: n }, n)));
      }
      sentence.value = state.focus;
      position.watch();
    },
    destroy: () => {
      stop();
      position.stop();
    },
  };
}

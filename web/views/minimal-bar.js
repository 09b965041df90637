// controls="minimal" (the embeddable element's default): one bar of the toggles a reader most
// wants next to a figure in a post — which sentence, the causal mask, the temperature.
import { h } from '../ui/dom.js';
import { checkbox, select, slider } from '../ui/controls.js';

export function render(section, app) {
  const { doc, store } = app;
  const context = select(doc, {
    label: 'context ',
    className: 'ae-bar-item',
    onChange: (focus) => store.set({ focus, step: 0, selected: null }),
  });
  const causal = checkbox(doc, {
    label: 'causal mask',
    className: 'ae-bar-item',
    onChange: (on) => app.setOptions({ causal: on }),
  });
  const temperature = slider(doc, {
    label: 'temperature ',
    min: 0.1,
    max: 5,
    step: 0.1,
    digits: 1,
    className: 'ae-bar-item',
    onInput: (t) => app.setOptions({ temperature: t }),
  });
  section.append(
    h(
      doc,
      'div',
      { class: 'ae-bar-minimal', role: 'group', 'aria-label': 'Attention settings' },
      context.el,
      causal.el,
      temperature.el,
    ),
  );
  return {
    update() {
      const { state } = app;
      context.sync(
        Object.keys(state.contexts).map((n) => ({ value: n, label: n })),
        state.focus,
      );
      causal.sync(state.options.causal);
      temperature.sync(state.options.temperature);
    },
  };
}

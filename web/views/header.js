// The page header: title, a short introduction, the theme switch and "reset to the seed".
import { h, uid } from '../ui/dom.js';

export function render(parent, app) {
  const { doc, store } = app;
  const themeId = uid('theme');
  const theme = h(
    doc,
    'select',
    {
      id: themeId,
      onchange: (e) => store.set({ theme: e.target.value }),
    },
    h(doc, 'option', { value: 'auto' }, 'System'),
    h(doc, 'option', { value: 'light' }, 'Light'),
    h(doc, 'option', { value: 'dark' }, 'Dark'),
  );
  const reset = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-btn',
      onclick: () => app.edit((s) => ({ state: { ...structuredClone(app.defaults), theme: s.theme } })),
    },
    'Reset to the seed example',
  );
  const el = h(
    doc,
    'header',
    { class: 'ae-header' },
    h(
      doc,
      'div',
      { class: 'ae-title' },
      h(doc, 'h1', {}, 'Self-attention, one number at a time'),
      h(
        doc,
        'p',
        { class: 'ae-lede' },
        'Every matrix on this page is computed live, in your browser, by a C++ attention core compiled to WebAssembly. ',
        'Hover or focus any number to see where it came from; click a number in an embedding or a weight matrix to change it, or drag it sideways.',
      ),
    ),
    h(doc, 'div', { class: 'ae-header-tools' }, h(doc, 'label', { for: themeId }, 'Theme '), theme, reset),
  );
  // Jump links as buttons: the URL hash holds the state, so no #fragment links.
  const SECTIONS = [
    ['contexts', 'Two sentences'],
    ['notebook', 'Notebooks'],
    ['controls', 'Knobs'],
    ['lines', 'Lines'],
    ['plane', 'Plane'],
    ['pipeline', 'Step by step'],
    ['loops', 'Loops'],
    ['averaging', 'Averaging'],
    ['heads', 'Many heads'],
    ['formula', 'Formula'],
    ['edit', 'Edit'],
  ];
  const nav = h(
    doc,
    'nav',
    { class: 'ae-toc', 'aria-label': 'Sections' },
    h(
      doc,
      'ul',
      {},
      SECTIONS.map(([id, label]) =>
        h(
          doc,
          'li',
          {},
          h(
            doc,
            'button',
            {
              type: 'button',
              class: 'ae-link',
              onclick: () => {
                const target = app.container.querySelector(`[data-section="${id}"]`);
                const heading = target?.querySelector('h2');
                if (!heading) return;
                heading.tabIndex = -1;
                heading.scrollIntoView({ block: 'start' });
                heading.focus({ preventScroll: true });
              },
            },
            label,
          ),
        ),
      ),
    ),
  );
  parent.append(el, nav);
  return {
    update() {
      theme.value = store.get().theme;
    },
  };
}

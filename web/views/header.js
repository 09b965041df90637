// The page header: title, a short introduction, the theme switch and "reset to the seed".
import { h, uid } from '../lib/dom.js';

export function render(parent, app) {
  const { doc, store } = app;
  const themeId = uid('theme');
  const theme = h(doc, 'select', {
    id: themeId,
    onchange: (e) => store.set({ theme: e.target.value }),
  }, h(doc, 'option', { value: 'auto' }, 'System'), h(doc, 'option', { value: 'light' }, 'Light'), h(doc, 'option', { value: 'dark' }, 'Dark'));
  const reset = h(doc, 'button', {
    type: 'button', class: 'ae-btn',
    onclick: () => app.edit((s) => ({ state: { ...structuredClone(app.defaults), theme: s.theme } })),
  }, 'Reset to the seed example');
  const el = h(doc, 'header', { class: 'ae-header' },
    h(doc, 'div', { class: 'ae-title' },
      h(doc, 'h1', {}, 'Self-attention, one number at a time'),
      h(doc, 'p', { class: 'ae-lede' },
        'Every matrix on this page is computed live, in your browser, by a C++ attention core compiled to WebAssembly. ',
        'Hover or focus any number to see where it came from; click a number in an embedding or a weight matrix to change it, or drag it sideways.')),
    h(doc, 'div', { class: 'ae-header-tools' },
      h(doc, 'label', { for: themeId }, 'Theme '), theme, reset));
  parent.append(el);
  return { update() { theme.value = store.get().theme; } };
}

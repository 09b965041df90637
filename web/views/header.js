// The page header: title, a short introduction, the theme switch and "reset to the start" (the
// page's default state).
import { h, uid } from '../ui/dom.js';
import { resetTo } from '../lib/state.js';

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
      onclick: () => app.edit(resetTo(app.defaults)),
    },
    'Reset to the start',
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
        'How a transformer lets a word take its meaning from its sentence, every number computed live in your browser: hover or focus one to see where it came from.',
      ),
    ),
    h(doc, 'div', { class: 'ae-header-tools' }, h(doc, 'label', { for: themeId }, 'Theme '), theme, reset),
  );
  // The table of contents: every section this page shows, in page order. Jump links are
  // buttons: the URL hash holds the state, so no #fragment links.
  const list = h(
    doc,
    'ul',
    {},
    app.sections.map(({ id, title }) =>
      h(
        doc,
        'li',
        {},
        h(doc, 'button', { type: 'button', class: 'ae-link', 'data-target': id, onclick: () => app.goTo(id) }, title),
      ),
    ),
  );
  // Open on a wide screen; on a phone a one-line "Contents" that opens on demand.
  const wide = app.win.matchMedia?.('(min-width: 701px)');
  const details = h(
    doc,
    'details',
    { class: 'ae-toc-details', open: wide?.matches ?? true },
    h(doc, 'summary', {}, 'Contents'),
    list,
  );
  const onWidth = () => {
    if (wide.matches) details.open = true;
  };
  wide?.addEventListener?.('change', onWidth);
  const nav = h(doc, 'nav', { class: 'ae-toc', 'aria-label': 'Sections' }, details);
  parent.append(el, nav);
  return {
    update() {
      theme.value = store.get().theme;
    },
    destroy: () => wide?.removeEventListener?.('change', onWidth),
  };
}

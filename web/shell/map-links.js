// "Where this is": a small link by every section's heading to the map of the whole transformer
// (views/map.js), which shows where that section sits. Added once a section has drawn its
// heading; nothing where the explorer has no map (the element's smaller controls).

const TEXT = { link: 'where this is', label: (title) => `where this is: “${title}” in the map of a transformer` };
const NO_LINK = new Set(['map', 'overview', 'minimal-bar']);

/**
 * @param {{doc: Document, sections: {id, title}[], goTo(id)}} app
 * @returns {{add(id: string, element: HTMLElement)}}  add: after section `id` first drew into `element`
 */
export function createMapLinks(app) {
  const hasMap = app.sections.some((s) => s.id === 'map');
  return {
    add(id, element) {
      if (!hasMap || NO_LINK.has(id) || !element) return;
      const heading = element.querySelector('h2');
      if (!heading || heading.querySelector('.ae-where')) return;
      const title = app.sections.find((s) => s.id === id)?.title ?? heading.textContent;
      const link = app.doc.createElement('button');
      link.type = 'button';
      link.className = 'ae-link ae-where';
      link.textContent = TEXT.link;
      link.setAttribute('aria-label', TEXT.label(title));
      link.addEventListener('click', () => app.goTo('map'));
      heading.append(' ', link);
    },
  };
}

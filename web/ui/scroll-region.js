// A box that scrolls sideways says so: while its content is wider than it (a heatmap of many
// tokens on a phone), it is a labelled region in the tab order, so a keyboard can scroll it and a
// screen reader announces it; while everything fits it is a plain box (no extra tab stop). Sizes
// are watched with a ResizeObserver (no layout forced while a number is dragged).

/**
 * @param {HTMLElement} box  the element with overflow-x: auto
 * @param {() => string} label  its name, read when it is announced (e.g. the caption)
 * @returns {{check(): void, stop(): void}}
 */
export function announceWhenScrolling(box, label) {
  function check() {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls) {
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', `${label() || 'table'} (scrolls sideways)`);
      box.tabIndex = 0;
      box.dataset.scrolls = '';
    } else if ('scrolls' in box.dataset) {
      box.removeAttribute('role');
      box.removeAttribute('aria-label');
      box.removeAttribute('tabindex');
      delete box.dataset.scrolls;
    }
  }
  const RO = box.ownerDocument.defaultView?.ResizeObserver;
  const observer = RO ? new RO(check) : null;
  if (observer) {
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
  }
  return { check, stop: () => observer?.disconnect() };
}

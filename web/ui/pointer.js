// Did the pointer itself move, or did content scroll under a pointer at rest?
//
// When the page scrolls (keyboard focus moving to a far cell, a section opening), Chromium sends
// pointerover to whatever now lies under a pointer that has not moved. Hover explanations should
// follow the pointer, not the scrolling: otherwise the cell under a resting mouse steals the
// explanation from the cell the keyboard just moved to.

/** @type {WeakMap<object, {x: number, y: number}>} the last pointer position seen, per window */
const lastPosition = new WeakMap();

/** Starts following the pointer in `win` (idempotent). Call it when a view that hovers is built. */
export function followPointer(win) {
  if (!win || lastPosition.has(win)) return;
  lastPosition.set(win, { x: NaN, y: NaN });
  const remember = (e) => lastPosition.set(win, { x: e.clientX, y: e.clientY });
  // Capture, so the position is recorded after every pointerover of the same move has run.
  win.addEventListener('pointermove', remember, { capture: true, passive: true });
  win.addEventListener('pointerdown', remember, { capture: true, passive: true });
}

/** True when `e` (a pointerover) comes from the pointer moving, false when content moved under it. */
export function pointerMoved(e) {
  const win = e.view;
  const last = win && lastPosition.get(win);
  if (!last) return true;
  return last.x !== e.clientX || last.y !== e.clientY;
}

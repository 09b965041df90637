// The explorer's colour theme: the state's 'light' or 'dark', or the system's (prefers-color-scheme)
// for 'auto', written to the container's data-theme, which the CSS and every figure read; and the
// colours that mean something (lib/palette.js) for that theme, set on the container as the custom
// properties the stylesheet reads.
import { cssVariables } from '../lib/palette.js';

/** 'dark' or 'light' for the state's theme setting and whether the system prefers dark. */
export function themeOf(setting, systemDark) {
  return setting === 'dark' || (setting !== 'light' && systemDark) ? 'dark' : 'light';
}

/**
 * @param {Window} win
 * @param {HTMLElement} container  gets data-theme and the palette's custom properties
 * @param {() => string} setting   the state's theme: 'auto' | 'light' | 'dark'
 * @returns {{apply(), destroy()}}  apply() after every state change; the system's changes apply themselves
 */
export function createTheme(win, container, setting) {
  const media = win.matchMedia ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  const apply = () => {
    const theme = themeOf(setting(), Boolean(media?.matches));
    if (container.dataset.theme === theme) return;
    container.dataset.theme = theme;
    for (const [name, value] of Object.entries(cssVariables(theme))) container.style.setProperty(name, value);
  };
  media?.addEventListener?.('change', apply);
  return { apply, destroy: () => media?.removeEventListener?.('change', apply) };
}

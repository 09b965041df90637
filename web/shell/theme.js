// The explorer's colour theme: the state's 'light' or 'dark', or the system's (prefers-color-scheme)
// for 'auto', written to the container's data-theme, which the CSS and every figure read.

/** 'dark' or 'light' for the state's theme setting and whether the system prefers dark. */
export function themeOf(setting, systemDark) {
  return setting === 'dark' || (setting !== 'light' && systemDark) ? 'dark' : 'light';
}

/**
 * @param {Window} win
 * @param {HTMLElement} container  gets data-theme
 * @param {() => string} setting   the state's theme: 'auto' | 'light' | 'dark'
 * @returns {{apply(), destroy()}}  apply() after every state change; the system's changes apply themselves
 */
export function createTheme(win, container, setting) {
  const media = win.matchMedia ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  const apply = () => {
    container.dataset.theme = themeOf(setting(), Boolean(media?.matches));
  };
  media?.addEventListener?.('change', apply);
  return { apply, destroy: () => media?.removeEventListener?.('change', apply) };
}

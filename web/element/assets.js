// What the element needs besides code: its CSS and the engine's load options. This file is
// the unbundled (development) version: it fetches the style sheets next to the modules and
// lets loadEngine() fetch attention_engine.wasm itself. scripts/build-dist.mjs replaces this
// module with one that returns the same CSS text, the small engine's WASM bytes inlined into the
// bundle, and the whole engine imported from engine.js beside it when a view needs it.

const SHEETS = ['../styles/explorer.css', './element.css'];

let cssPromise = null;

/** The element's CSS, as one text for a constructed style sheet in each shadow root. */
export function elementCSS() {
  cssPromise ||= Promise.all(
    SHEETS.map(async (path) => {
      const url = new URL(path, import.meta.url);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`could not load the style sheet ${url} (HTTP ${response.status})`);
      return response.text();
    }),
  ).then((texts) => texts.join('\n'));
  return cssPromise;
}

/** Options for loadEngine(): none needed here (it fetches the .wasm beside engine.js). */
export async function engineOptions() {
  return {};
}

/**
 * The whole engine, for views the element's engine cannot draw (the bundle inlines a small
 * attention-only build and imports dist/engine.js from beside its file): null here, where
 * loadEngine() already loads the whole one.
 */
export async function loadFullEngine() {
  return null;
}

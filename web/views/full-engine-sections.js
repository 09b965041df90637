// What the element loads from files beside its own: the sections that need the whole engine (the
// plane's PCA, the notebooks' PyTorch generator, the Learn section's model, the real model), what
// only controls="full" shows (the overview, the map, the editor, the engineers' panel, the export menus),
// and the workers. Here (web/, plain ES modules): dynamic imports, and module workers.
// scripts/build-dist.mjs swaps this module in the bundles: the workers become the classic scripts
// dist/attention-explorer.{learn,model}-worker.js beside the bundle, and the element's file
// imports these modules from files beside it (dist/attention-explorer.<name>.js) — so none of them
// weighs on the element's own download.
export const SECTION_LOADERS = Object.freeze({
  plane: () => import('./plane.js'),
  notebook: () => import('./notebook.js'),
  learn: () => import('./learn.js'),
  gpt: () => import('./gpt.js'),
  next: () => import('./next.js'),
  // Not the whole engine's, but only for controls="full": kept out of the element's own file.
  overview: () => import('./overview.js'),
  map: () => import('./map.js'),
  editor: () => import('./editor.js'),
  engineers: () => import('./engineers.js'),
});

/**
 * The files each figure needs beside the element's file, {table: {sections: {id: files},
 * controls: {mode: files}}, url(file)}: in dist/'s element only (scripts/build-dist.mjs writes the
 * table, and dist/attention-explorer.files.json); null here, where nothing is beside.
 */
export const FILES_BESIDE = null;

/** The export menus under every heatmap (tools/export-menu.js; only controls="full" has them). */
export const loadExportMenus = () => import('../tools/export-menu.js');

/** A new training worker (the trainer falls back to the page when this throws or fails). */
export function makeLearnWorker() {
  return new Worker(new URL('../learn-worker.js', import.meta.url), { type: 'module' });
}

/** A new worker for the real model (the host falls back to the page when this throws or fails). */
export function makeModelWorker() {
  return new Worker(new URL('../model-worker.js', import.meta.url), { type: 'module' });
}

/** Where the project's own model, its tokenizer and GPT-2's encoding are served (dist/: beside the bundle). */
export const MODEL_FILES = Object.freeze({
  model: () => new URL('../models/brown-wordnet.safetensors', import.meta.url).href,
  tokenizer: () => new URL('../models/brown-wordnet.tokenizer.json', import.meta.url).href,
  gpt2Tokenizer: () => new URL('../models/gpt2-tokenizer.bin', import.meta.url).href,
});

// The sections that need the whole engine (the plane's PCA, the notebooks' PyTorch generator, the
// Learn section's model), and the Learn section's training worker. Here (web/, plain ES modules):
// dynamic imports, and a module worker running web/learn-worker.js. scripts/build-dist.mjs swaps
// this module in the bundles: the worker becomes the classic script
// dist/attention-explorer.learn-worker.js beside the bundle, and the element's file imports these
// sections from files beside it (dist/attention-explorer.<section>.js) — they arrive with the whole
// engine, so neither weighs on the element's own download.
export const SECTION_LOADERS = Object.freeze({
  plane: () => import('./plane.js'),
  notebook: () => import('./notebook.js'),
  learn: () => import('./learn.js'),
  gpt: () => import('./gpt.js'),
  next: () => import('./next.js'),
  // Not the whole engine's, but only for controls="full": kept out of the element's own file.
  overview: () => import('./overview.js'),
  editor: () => import('./editor.js'),
  engineers: () => import('./engineers.js'),
});

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

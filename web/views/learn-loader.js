// Where the Learn section's code and its training worker come from. Here (web/, plain ES
// modules): a dynamic import of the view, and a module worker running web/learn-worker.js.
// scripts/build-dist.mjs swaps this module in the bundles: the worker becomes the classic script
// dist/attention-explorer.learn-worker.js beside the bundle, and in the element's file the view
// too is imported from beside it (dist/attention-explorer.learn.js), so the training code does
// not weigh on the element's own download.
export const loadLearnView = () => import('./learn.js');

/** A new training worker (the trainer falls back to the page when this throws or fails). */
export function makeLearnWorker() {
  return new Worker(new URL('../learn-worker.js', import.meta.url), { type: 'module' });
}

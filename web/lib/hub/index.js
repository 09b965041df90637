// Downloading GPT-2-family checkpoints from the Hugging Face Hub (or a mirror) and keeping them in
// the browser: where the files are (urls.js), whether a model fits (memory.js), the download's
// state machine (download.js; its parts in download-*.js), the store (store.js; its parts in
// store-*.js), progress text (progress.js), the errors (errors.js). Pure modules, no DOM: the
// page, the element and the model worker use the same.
export * from './errors.js';
export * from './urls.js';
export * from './memory.js';
export * from './progress.js';
export * from './store.js';
export * from './download.js';

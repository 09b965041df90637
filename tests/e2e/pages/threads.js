// The page side of tests/e2e/threads.test.mjs (served from the repository root): one module
// worker (threads-worker.js) that loads the engine as the Learn and model workers do, and
// window.inWorker(op, ...args) to ask it something.
// The page's query goes to the worker (?missing=worker: the threaded build's worker file is not there).
const worker = new Worker(new URL(`./threads-worker.js${location.search}`, import.meta.url), { type: 'module' });
let next = 1;
const pending = new Map();
worker.onmessage = ({ data: { id, result, error } }) => {
  const p = pending.get(id);
  pending.delete(id);
  if (error) p.reject(new Error(error));
  else p.resolve(result);
};
worker.onerror = (event) => {
  for (const p of pending.values()) p.reject(new Error(`the worker failed: ${event.message}`));
  pending.clear();
};
window.inWorker = (op, ...args) =>
  new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });

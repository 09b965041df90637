// The threaded engine's loader, for engine.js. The threaded build (CMakeLists.txt:
// attention_engine_threads, the same core built with -pthread, its thread pool on Web Workers)
// needs memory shared between workers, which browsers give only to cross-origin isolated pages
// (COOP + COEP headers), and it runs only inside a Worker: the page's main thread may not block
// in Atomics.wait while the other threads work. loadEngine({threads: 'auto'}) starts it where
// both hold and loads the single-thread build, as always, everywhere else (Node, the page's main
// thread, file://, hosts without the headers) — quietly, saying why in singleThreadReason.
// The element's bundle, whose small engine never runs threaded, replaces this file with a stub
// (scripts/build-dist.mjs).

/** The threaded engine's default thread count: the machine's cores, at most this many. */
export const MAX_DEFAULT_THREADS = 8;
// How long the threaded engine's workers may take to start before the single-thread one loads.
const START_MS = 20000;

/** Why the threaded engine cannot run in `scope` (a sentence), or null where it can. */
export function threadsUnavailableReason(scope = globalThis) {
  if (typeof scope.WorkerGlobalScope !== 'function' || !(scope instanceof scope.WorkerGlobalScope))
    return 'it is not running in a Web Worker (only a worker may wait for other threads)';
  if (!scope.crossOriginIsolated || typeof scope.SharedArrayBuffer !== 'function')
    return 'this page is not cross-origin isolated (it is served without the COOP and COEP headers)';
  if (!(scope.navigator?.hardwareConcurrency >= 2)) return 'this device reports a single core';
  return null;
}

/** The threaded build's three files beside this one (a bundle passes its own: threadsFiles). */
export const defaultThreadsFiles = () => ({
  glue: new URL('./attention_engine_threads.mjs', import.meta.url).href,
  worker: new URL('./attention_engine_threads.worker.js', import.meta.url).href,
  wasm: new URL('./attention_engine_threads.wasm', import.meta.url).href,
});

// A shared memory that grows is a new SharedArrayBuffer, and the views made on the old one stay
// valid at the old length (a plain memory's are detached and Emscripten replaces them): the
// threaded module's HEAP* views are read through getters that remake them after any growth —
// by this thread or by a pool thread in the middle of a call.
function withFreshViews(module) {
  const memory = module.wasmMemory;
  const types = {
    HEAP8: Int8Array,
    HEAPU8: Uint8Array,
    HEAP32: Int32Array,
    HEAPU32: Uint32Array,
    HEAPF32: Float32Array,
  };
  let buffer = null;
  const views = {};
  const fresh = () => {
    if (memory.buffer !== buffer) {
      buffer = memory.buffer;
      for (const [name, View] of Object.entries(types)) views[name] = new View(buffer);
    }
    return views;
  };
  const facade = Object.create(module);
  for (const name of Object.keys(types)) Object.defineProperty(facade, name, { get: () => fresh()[name] });
  return facade;
}

/**
 * Starts the threaded module from `files` ({glue, worker, wasm} URLs). Resolves to {module,
 * maxThreads, stop()}: maxThreads is the cores (at most MAX_DEFAULT_THREADS), its pool holds one
 * worker fewer (the caller is a thread too), and stop() ends them. Rejects with what went wrong
 * (its workers ended) when a file does not load or the workers do not start in time.
 */
export async function startThreadedModule(files) {
  const maxThreads = Math.min(globalThis.navigator.hardwareConcurrency, MAX_DEFAULT_THREADS);
  let starting = true;
  let fail = () => {};
  const failed = new Promise((_, reject) => {
    fail = (message) => reject(new Error(message));
  });
  // While it starts, Emscripten's messages and a worker's load error (which Emscripten rethrows
  // on this worker, whose parent would take it for this worker failing) mean it failed; after,
  // its messages go to the console as they would have.
  const printErr = (text) => {
    if (starting) fail(String(text));
    else console.error(text);
  };
  const onError = (event) => {
    event.preventDefault();
    fail(event.message || 'a worker thread failed to load');
  };
  // The worker file is fetched too (the pool's workers then find it in the HTTP cache): a
  // browser says nothing to the page when a worker's script does not load, so without this a
  // missing file would cost the whole START_MS before the single-thread engine loads.
  const loaded = (url) =>
    fetch(url).then((response) => {
      if (!response.ok) throw new Error(`could not load ${url} (HTTP ${response.status})`);
      return response.arrayBuffer();
    });
  const [{ default: createModule }, wasmBinary] = await Promise.all([
    import(/* webpackIgnore: true */ /* @vite-ignore */ files.glue),
    loaded(files.wasm),
    loaded(files.worker),
  ]);
  const moduleArg = {
    wasmBinary,
    // The pool's workers start with the module: a thread cannot start while its caller blocks.
    threadPoolSize: maxThreads - 1,
    mainScriptUrlOrBlob: files.glue,
    locateFile: (name) => (name.endsWith('.worker.js') ? files.worker : new URL(name, files.glue).href),
    printErr,
  };
  const stop = () => moduleArg.PThread?.terminateAllThreads();
  globalThis.addEventListener('error', onError);
  const timer = setTimeout(
    () => fail(`its ${maxThreads - 1} worker threads did not start within ${START_MS / 1000} s`),
    START_MS,
  );
  try {
    const module = await Promise.race([createModule(moduleArg), failed]);
    return { module: withFreshViews(module), maxThreads, stop };
  } catch (error) {
    stop();
    throw error;
  } finally {
    starting = false;
    clearTimeout(timer);
    globalThis.removeEventListener('error', onError);
  }
}

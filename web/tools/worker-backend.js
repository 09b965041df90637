// Requests to a Web Worker and back, for the trainer (tools/trainer.js) and the model host
// (tools/model-host.js): each request is {id, op, args}, each reply {id, result} or {id, error:
// {name, message, argument}} (on a worker several figures share, both also name their channel:
// tools/worker-channels.js, answerChannels below). A worker that cannot run (a load error, a CSP refusal, a message
// that cannot be read) fails every pending and later request with {workerFailed: true}, so its
// owner can run the same requests on the page instead.

/**
 * The page's side: calls become messages to `worker`.
 * @param {Worker} worker
 * @param {string} name  how failures name it ('the training worker')
 * @returns {{mode: 'worker', call(op, ...args): Promise, dispose()}}
 */
export function workerBackend(worker, name) {
  let next = 1;
  const pending = new Map();
  let failedReason = null;
  const failed = (reason) => Object.assign(new Error(reason), { workerFailed: true });
  const backend = {
    mode: 'worker',
    call(op, ...args) {
      if (failedReason) return Promise.reject(failed(failedReason));
      return new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, op, args });
      });
    },
    dispose: () => worker.terminate(),
  };
  const fail = (reason) => {
    if (failedReason) return;
    failedReason = reason;
    for (const { reject } of pending.values()) reject(failed(reason));
    pending.clear();
  };
  worker.onmessage = (event) => {
    const { id, result, error } = event.data || {};
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (error) p.reject(Object.assign(new Error(error.message), { name: error.name, argument: error.argument }));
    else p.resolve(result);
  };
  worker.onerror = (event) => {
    event.preventDefault?.();
    fail(`${name} failed to run (${event.message || 'it could not be loaded'})`);
  };
  worker.onmessageerror = () => fail(`${name} sent a message that could not be read`);
  return backend;
}

/**
 * The worker's side: answers each message with `requests.handle(op, args)`.
 * @param {{onmessage, postMessage}} scope  the worker's global scope (self)
 * @param {{handle(op, args): Promise}} requests
 * @param {(result) => ArrayBuffer[]} transfers  the buffers of a result that move rather than copy
 */
export function answerRequests(scope, requests, transfers) {
  scope.onmessage = (event) => answer(scope, requests, event.data || {}, transfers);
}

// One request answered: {channel, id, result} or {channel, id, error: {name, message, argument}}.
async function answer(scope, requests, { channel, id, op, args }, transfers) {
  try {
    const result = await requests.handle(op, args || []);
    scope.postMessage({ channel, id, result }, transfers(result));
  } catch (err) {
    scope.postMessage({
      channel,
      id,
      error: { name: err?.name || 'Error', message: String(err?.message ?? err), argument: err?.argument },
    });
  }
}

/**
 * The worker's side of a worker shared by several figures (tools/worker-channels.js): each
 * message names its channel, each channel is answered by its own requests (made by
 * `makeRequests` on its first message), and {channel, close: true} disposes of them. Replies
 * carry the channel back.
 * @param {{onmessage, postMessage}} scope  the worker's global scope (self)
 * @param {() => {handle(op, args): Promise}} makeRequests
 * @param {(result) => ArrayBuffer[]} transfers
 */
export function answerChannels(scope, makeRequests, transfers) {
  const channels = new Map();
  scope.onmessage = (event) => {
    const message = event.data || {};
    const { channel } = message;
    if (message.close) {
      const requests = channels.get(channel);
      channels.delete(channel);
      requests?.handle('dispose', []).catch(() => {});
      return;
    }
    if (!channels.has(channel)) channels.set(channel, makeRequests());
    answer(scope, channels.get(channel), message, transfers);
  };
}

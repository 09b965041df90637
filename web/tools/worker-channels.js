// One worker for every figure of a page. A post with several real-model figures (several
// <attention-explorer> elements, or "what happens next" and "a real model" in one) would start a
// worker per figure, each loading the whole engine and its own copy of the model. Instead each
// figure gets a channel on one worker per kind: a port that looks like a Worker to
// tools/worker-backend.js (postMessage, onmessage, onerror, terminate), whose messages carry
// the channel's number; the worker answers each channel with its own requests
// (worker-backend.js answerChannels), sharing its engine and the models its channels open.
//
//   page:   figure A ─ port 1 ─┐                    ┌─ channel 1: A's requests ─┐
//           figure B ─ port 2 ─┴─► one Worker ──────┴─ channel 2: B's requests ─┴─ one engine,
//                                                                                   one copy of
//                                                                                   each model

const shared = new Map(); // makeWorker → {worker, ports: Map<channel, port>, next}

/**
 * A factory of ports on the one worker `makeWorker` makes (made on the first port's first use,
 * ended when the last port is terminated). The factory throws where the worker cannot be made,
 * as `makeWorker` would.
 * @param {() => Worker} makeWorker
 * @returns {() => {postMessage(message), onmessage, onerror, onmessageerror, terminate()}}
 */
export function sharedWorker(makeWorker) {
  return () => {
    let thread = shared.get(makeWorker);
    if (!thread) {
      thread = start(makeWorker);
      shared.set(makeWorker, thread);
    }
    return openPort(makeWorker, thread);
  };
}

const forget = (makeWorker, thread) => shared.get(makeWorker) === thread && shared.delete(makeWorker);

function start(makeWorker) {
  const worker = makeWorker();
  const thread = { worker, ports: new Map(), next: 1 };
  worker.onmessage = (event) => thread.ports.get(event.data?.channel)?.onmessage?.(event);
  // A worker that fails fails every figure on it (each then runs its requests on its page); the
  // next figure tries a new one.
  worker.onerror = (event) => {
    event.preventDefault?.();
    forget(makeWorker, thread);
    for (const port of thread.ports.values()) port.onerror?.(event);
  };
  worker.onmessageerror = (event) => {
    forget(makeWorker, thread);
    for (const port of thread.ports.values()) port.onmessageerror?.(event);
  };
  return thread;
}

function openPort(makeWorker, thread) {
  const channel = thread.next++;
  const port = {
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    postMessage(message, transfer) {
      thread.worker.postMessage({ ...message, channel }, transfer);
    },
    /** This figure is done: its channel closes (its model released); the last one ends the worker. */
    terminate() {
      if (!thread.ports.delete(channel)) return;
      thread.worker.postMessage({ channel, close: true });
      if (thread.ports.size === 0) {
        thread.worker.terminate();
        forget(makeWorker, thread);
      }
    },
  };
  thread.ports.set(channel, port);
  return port;
}

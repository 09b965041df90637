// What can go wrong between a reader's click and a model kept in the browser, each as one
// HubError with a `reason` a view can branch on and a message a reader can act on. Pure.
//
//   reason          when
//   input           a repository id, URL, endpoint or option the reader (or the page) gave is not one
//   offline         the browser says it is offline (navigator.onLine === false)
//   unreachable     the host did not answer at all (closed port, DNS, a dropped route) — or, where the
//                   browser cannot tell (a cross-origin-isolated page), it may have refused CORS
//   cors            the host answered but did not let this page read the answer (no CORS headers)
//   csp             the page's Content-Security-Policy (connect-src) blocked the host or its CDN
//   not-found       no such repository (or a private/gated one), or a file it lacks
//   no-safetensors  the repository exists but has no model.safetensors (the message lists its files)
//   not-gpt2        config.json names another architecture
//   memory          the model would not fit the engine's memory (predicted before the download)
//   quota           the browser's storage for this site is too small (predicted, or refused a write)
//   storage         the browser's storage failed otherwise (or is unavailable here)
//   dropped         the connection kept dropping: the retries were used up
//   http            another HTTP status (5xx after retries, 429, 401/403 …)
//   cancelled       the reader pressed Cancel (an AbortSignal)

export const HUB_REASONS = Object.freeze([
  'input',
  'offline',
  'unreachable',
  'cors',
  'csp',
  'not-found',
  'no-safetensors',
  'not-gpt2',
  'memory',
  'quota',
  'storage',
  'dropped',
  'http',
  'cancelled',
]);

export class HubError extends Error {
  /**
   * @param {string} message what happened and what to do, for the reader
   * @param {{reason: string, argument?: string, status?: number, files?: string[], url?: string}} details
   */
  constructor(message, { reason, argument, status, files, url } = {}) {
    super(message);
    this.name = 'HubError';
    this.reason = HUB_REASONS.includes(reason) ? reason : 'http';
    if (argument !== undefined) this.argument = argument;
    if (status !== undefined) this.status = status;
    if (files !== undefined) this.files = files;
    if (url !== undefined) this.url = url;
  }
}

/** An input error naming the argument, as the engine's AttentionError does. */
export const inputError = (argument, message) => new HubError(`${argument}: ${message}`, { reason: 'input', argument });

export const cancelledError = () => new HubError('the download was cancelled', { reason: 'cancelled' });

/** True when `error` is the AbortSignal's doing (fetch, a reader, our sleep). */
export const isAbort = (error, signal) =>
  signal?.aborted === true || error?.name === 'AbortError' || error?.reason === 'cancelled';

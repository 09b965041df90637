// What went wrong in a download, told apart and put in words a reader can act on (download.js's
// header says how a refused fetch is told apart). Each function takes the download's context
// `dl` (download.js): spec, fetch, signal, sleep, online, watcher, repoName, where, hubAnswered.
import { HubError, cancelledError, isAbort } from './errors.js';
import { WEIGHTS_FILE, listingUrl, noSafetensorsError, repoPageUrl, siblingNames } from './urls.js';
import { formatBytes } from '../format.js';

/**
 * Listens for CSP violations on the global object (the page's window or a worker's global), so
 * that a refused fetch can be told from a host that did not answer.
 */
export function cspWatcher(target = globalThis) {
  const seen = [];
  const listener = (event) =>
    seen.push({
      blockedURI: event.blockedURI ?? '',
      directive: event.effectiveDirective || event.violatedDirective || '',
      time: Date.now(),
    });
  target?.addEventListener?.('securitypolicyviolation', listener);
  return {
    /** Violations of connect-src (or default-src standing in for it) since `time` (Date.now()). */
    since(time) {
      return seen.filter((v) => v.time >= time && /^(connect-src|default-src)/.test(v.directive));
    },
    close() {
      target?.removeEventListener?.('securitypolicyviolation', listener);
    },
  };
}

const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/** Asks `url` again in no-cors mode: true when an (opaque) answer arrives, so the host is up. */
async function answersNoCors(dl, url) {
  const probe = new AbortController();
  const stop = () => probe.abort();
  dl.signal.addEventListener('abort', stop, { once: true });
  try {
    await dl.fetch(url, { mode: 'no-cors', cache: 'no-store', credentials: 'omit', signal: probe.signal });
    return true;
  } catch {
    return false;
  } finally {
    probe.abort(); // only the answer's arrival mattered, not its body
    dl.signal.removeEventListener('abort', stop);
  }
}

/**
 * Why fetch(url) of `file` rejected (`startedAt`: Date.now() before it): a HubError with reason
 * cancelled, offline, csp, cors or unreachable.
 */
export async function classifyNetworkError(dl, error, url, file, startedAt) {
  if (isAbort(error, dl.signal)) return cancelledError();
  if (!dl.online())
    return new HubError(
      'this browser is offline: connect to the internet, then try again (what arrived so far is kept)',
      { reason: 'offline', url },
    );
  const blocked = async () => {
    await dl.sleep(dl.o.violationWaitMs);
    return dl.watcher.since(startedAt)[0] ?? null;
  };
  let violation = await blocked();
  let reachable = false;
  if (!violation) {
    reachable = await answersNoCors(dl, url);
    if (dl.signal.aborted) return cancelledError();
    if (!reachable) violation = await blocked();
  }
  return refusal(dl, { url, file, violation, reachable });
}

/** The words for a refused fetch: the CSP's `violation`, else a `reachable` host without CORS, else no answer. */
function refusal(dl, { url, file, violation, reachable }) {
  // The Hub answered for an earlier file: what failed is most likely the host it redirects this
  // one to (large files come from its CDN). Chromium reports a redirect's CSP violation with the
  // URL before the redirect, so the blocked address alone does not say which host it was.
  const hub = originOf(dl.spec.endpoint);
  const redirected = dl.hubAnswered && originOf(url) === hub;
  const isolated = globalThis.crossOriginIsolated === true;
  const cannotTell = '(no CORS headers): on a cross-origin-isolated page the browser does not say which';
  if (violation) {
    const host = originOf(violation.blockedURI) || 'an address';
    const what =
      redirected && host === hub
        ? `allows ${hub} but not the host it redirects ${file} to (Hugging Face sends large files from its CDN, on other hosts)`
        : `does not allow connecting to ${host}`;
    return new HubError(
      `this page's Content-Security-Policy (connect-src) ${what}, so the download was blocked. ` +
        `A page that downloads from ${dl.where} must allow ${hub} and the hosts it redirects to (the README says which)`,
      { reason: 'csp', url: violation.blockedURI },
    );
  }
  if (reachable)
    return new HubError(
      (redirected
        ? `${file}: the host ${hub} redirects it to answered but does not let this page read it`
        : `${originOf(url)} answered but does not let this page read its files`) +
        ': it sends no CORS headers (Access-Control-Allow-Origin). Hugging Face sends them; a mirror must too',
      { reason: 'cors', url },
    );
  return new HubError(
    redirected
      ? `${file}: ${hub} answered for the other files, but this one failed before any answer: the host it redirects to ` +
          `(for large files, a CDN on another host) may be unreachable${isolated ? `, or refusing this page ${cannotTell}` : ''}`
      : `could not reach ${originOf(url)}: the address may be wrong, the host down, or the network blocking it` +
          (isolated ? `; or it refused this page ${cannotTell}` : ''),
    { reason: 'unreachable', url },
  );
}

/** The repository's file names from the listing API ({status, names}; names null when unread). */
async function listing(dl) {
  const url = listingUrl(dl.spec);
  try {
    const response = await dl.fetch(url, { signal: dl.signal, cache: 'no-store', credentials: 'omit' });
    if (!response.ok) return { status: response.status, names: null };
    return { status: response.status, names: siblingNames(await response.json()) };
  } catch (error) {
    if (isAbort(error, dl.signal)) throw cancelledError();
    return { status: 0, names: null };
  }
}

/** The HubError for a 404 of `name`: no such repository, no safetensors, or no such file (with the listing's names). */
export async function notFound(dl, name) {
  const { spec, repoName, where } = dl;
  const l = await listing(dl);
  if (l.names && name === WEIGHTS_FILE) return noSafetensorsError(spec.repo, l.names);
  if (l.names && !l.names.includes(WEIGHTS_FILE)) return noSafetensorsError(spec.repo, l.names);
  if (l.names)
    return new HubError(`${repoName} has no ${name}; its files are: ${l.names.slice(0, 30).join(', ')}`, {
      reason: 'not-found',
      files: l.names,
    });
  // 401 is the Hub's answer to an anonymous request for a missing (or private) repository; a
  // 404 too, unless a file of it was already served (then the listing API is what is missing).
  if (l.status === 401 || (l.status === 404 && dl.report.state.files.length === 0))
    return new HubError(
      `there is no public model ${spec.repo} at ${where} (check the name at ${repoPageUrl(spec)}; a private or gated one needs a login this page does not ask for)`,
      { reason: 'not-found', status: l.status },
    );
  return new HubError(
    `${repoName} has no ${name} at ${where} (a GPT-2 checkpoint needs config.json, model.safetensors and its tokenizer; the repository's file list could not be read)`,
    { reason: 'not-found', status: 404 },
  );
}

/** The HubError for a 401 or 403. */
export const notPublic = (dl, status) =>
  new HubError(
    `${dl.where} refused ${dl.repoName} (HTTP ${status}): it does not exist, or it is private or gated and needs a login this page does not ask for`,
    { reason: 'not-found', status },
  );

/** The HubError once the retries are used up on a connection that keeps dropping. */
export const dropped = (name, bytes, total, attempts) =>
  new HubError(
    `the connection kept dropping while downloading ${name}: it failed ${attempts} times in a row, ` +
      `stopped at ${formatBytes(bytes)}${total ? ` of ${formatBytes(total)}` : ''}. What arrived is kept: try again to resume from there`,
    { reason: 'dropped' },
  );

/** The HubError when keeping `bytesNeeded` more would pass the browser's `estimate` ({usage, quota}). */
export const quotaError = (bytesNeeded, free, estimate) =>
  new HubError(
    `keeping this model needs ${formatBytes(bytesNeeded)} more of the browser's storage, but it allows this site ` +
      `${formatBytes(Math.max(0, free))} more (${formatBytes(estimate.usage)} used of ${formatBytes(estimate.quota)}): ` +
      'remove kept models, or free disk space',
    { reason: 'quota' },
  );

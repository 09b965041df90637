// One file of a download: a ranged fetch into the store that resumes from the bytes kept, retries
// a dropped connection with a doubling wait, and restarts a file that changed (download.js's
// header says why each rule). Each function takes the download's context `dl` (download.js) and
// the file's own `f`: {name, url, kept, writer, answered, failures, restarts, optional,
// beforeBody, phase}.
import { HubError, cancelledError, isAbort } from './errors.js';
import { resolveUrl } from './urls.js';
import { classifyNetworkError, dropped, notFound, notPublic } from './download-failures.js';

// An attempt's outcome when the file is not done: ask again.
const AGAIN = Symbol('again');

const normalEtag = (value) => (value ? value.replace(/^W\//, '').trim() : null);

// "bytes 100-199/1000" → {start: 100, end: 199, total: 1000}; "bytes */1000" (a 416's) →
// {start: null, end: null, total: 1000}; anything else → null.
export function parseContentRange(value) {
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\s*\/\s*(\d+|\*)\s*$/i.exec(value ?? '');
  if (!m) return null;
  return {
    start: m[1] === undefined ? null : Number(m[1]),
    end: m[2] === undefined ? null : Number(m[2]),
    total: m[3] === '*' ? null : Number(m[3]),
  };
}

/** The body's length when it is the file's (no content coding), else null. */
function contentLength(response) {
  const encoding = response.headers.get('content-encoding');
  const length = response.headers.get('content-length');
  return length !== null && /^\d+$/.test(length) && (!encoding || encoding === 'identity') ? Number(length) : null;
}

/**
 * Downloads `name` into the store, resuming from what is kept. Returns false when the Hub has no
 * such file and `optional` is set. `beforeBody({total})` may throw to refuse the file (memory,
 * quota) before its body is read.
 */
export async function downloadFile(dl, name, { optional = false, beforeBody, phase = 'downloading' } = {}) {
  const { report, store, spec } = dl;
  const url = resolveUrl({ ...spec, file: name });
  const kept = await store.fileState(spec, name);
  if (kept.complete) {
    report.emit({
      reused: report.state.reused + kept.bytes,
      files: report.fileRow(name, { bytes: kept.bytes, total: kept.bytes, done: true }),
    });
    return true;
  }
  const f = { name, url, kept, writer: null, answered: false, failures: 0, restarts: 0, optional, beforeBody, phase };
  try {
    for (;;) {
      const outcome = await attempt(dl, f);
      if (outcome !== AGAIN) return outcome;
    }
  } catch (error) {
    // Keep what arrived (a later press resumes from it); a refused write keeps what was committed.
    if (f.writer) {
      if (error?.reason === 'quota' || error?.reason === 'storage') await f.writer.abort().catch(() => {});
      else await f.writer.commit().catch(() => {});
    }
    throw error;
  }
}

/** One request of `f` from the byte kept, and its answer: true/false when done, AGAIN to ask again. */
async function attempt(dl, f) {
  if (dl.signal.aborted) throw cancelledError();
  const from = f.kept.bytes;
  const response = await request(dl, f, from);
  if (!response) return AGAIN;
  const discard = () => response.body?.cancel().catch(() => {});
  const refused = await refusedStatus(dl, f, response, discard);
  if (refused !== undefined) return refused;
  const etag = normalEtag(response.headers.get('etag'));
  const commit = response.headers.get('x-repo-commit');
  if (commit && /^[0-9a-f]{40}$/i.test(commit) && !dl.report.state.commit) dl.report.emit({ commit });
  const status = response.status;
  if (status === 416) {
    discard();
    return pastTheEnd(dl, f, response, from);
  }
  if (status !== 200 && status !== 206) {
    discard();
    throw new HubError(`${dl.where} answered HTTP ${status} for ${f.name}`, { reason: 'http', status });
  }
  const range = await rangeOf(dl, f, response, from, etag);
  if (!range) {
    discard();
    await restart(dl, f);
    return AGAIN;
  }
  if (f.beforeBody) {
    try {
      await f.beforeBody({ total: range.total, from: range.start });
    } catch (error) {
      discard();
      throw error;
    }
  }
  f.writer ??= await dl.store.writer(dl.spec, f.name, { etag, total: range.total });
  return receive(dl, f, response, range);
}

/** fetch() of `f` from byte `from`: the response, or null after a wait (a retry) when it rejected. */
async function request(dl, f, from) {
  const startedAt = Date.now();
  let response;
  try {
    response = await dl.fetch(f.url, {
      signal: dl.signal,
      cache: 'no-store',
      credentials: 'omit',
      headers: from > 0 ? { Range: `bytes=${from}-` } : {},
    });
  } catch (error) {
    if (isAbort(error, dl.signal)) throw cancelledError();
    if (!f.answered) {
      // A refusal (CSP, CORS) is said at once; a host that did not answer, when the Hub did
      // for an earlier file (this one's redirect target: a CDN), is given the retries first.
      const why = await classifyNetworkError(dl, error, f.url, f.name, startedAt);
      if (why.reason !== 'unreachable' || !dl.hubAnswered) throw why;
      await retryLater(dl, f, () => why);
      return null;
    }
    await retryLater(dl, f, () => dropped(f.name, from, f.kept.total, f.failures));
    return null;
  }
  f.answered = true;
  dl.hubAnswered = true;
  return response;
}

/**
 * The statuses that end this attempt with no body: 404/410 (false for an optional file, else
 * thrown), 401/403 (thrown), 429/5xx (AGAIN after a wait). undefined for the others.
 */
async function refusedStatus(dl, f, response, discard) {
  const status = response.status;
  if (status === 404 || status === 410) {
    discard();
    if (f.optional) return false;
    throw await notFound(dl, f.name);
  }
  if (status === 401 || status === 403) {
    discard();
    throw notPublic(dl, status);
  }
  if (status === 429 || status >= 500) {
    discard();
    const after = Number(response.headers.get('retry-after'));
    await retryLater(
      dl,
      f,
      () =>
        new HubError(
          `${dl.where} answered HTTP ${status} ${f.failures} times in a row for ${f.name}; try again later`,
          {
            reason: 'http',
            status,
          },
        ),
      Number.isFinite(after) ? after * 1000 : undefined,
    );
    return AGAIN;
  }
  return undefined;
}

/** A 416 (nothing after byte `from`): complete if the file is exactly that long, else changed. */
async function pastTheEnd(dl, f, response, from) {
  const range = parseContentRange(response.headers.get('content-range'));
  if (from > 0 && range?.total === from) {
    f.writer ??= await dl.store.writer(dl.spec, f.name, { etag: f.kept.etag, total: from });
    await f.writer.finish();
    f.writer = null;
    return true;
  }
  await restart(dl, f);
  return AGAIN;
}

/**
 * Where a 200 or 206 body starts in the file and the file's total ({start, total}), or null when
 * the file changed since the kept bytes. A 200 to a ranged request is the whole file: what was
 * kept is dropped.
 */
async function rangeOf(dl, f, response, from, etag) {
  if (response.status === 206) {
    const range = parseContentRange(response.headers.get('content-range'));
    const { kept } = f;
    const changed =
      !range ||
      range.start !== from ||
      (kept.etag && etag && kept.etag !== etag) ||
      (kept.total !== null && range.total !== null && kept.total !== range.total);
    if (changed) return null;
    return { start: from, total: range.total };
  }
  const total = contentLength(response);
  if (from > 0)
    await restart(dl, f, false); // the server ignored the range: the whole file is coming
  else if (f.writer) {
    await f.writer.abort(); // nothing kept yet: start clean with this answer's ETag
    f.writer = null;
  }
  return { start: 0, total };
}

/** Reads the body into the store: true when the file is whole, AGAIN (after a wait) when it broke off. */
async function receive(dl, f, response, { start, total }) {
  const { report } = dl;
  report.emit({ phase: f.phase, ...report.progressOf(f.name, start, total) });
  const reader = response.body.getReader();
  let got = 0;
  let brokenBy = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await f.writer.write(value);
      got += value.length;
      report.chunk(value.length);
      report.emit(
        { fetched: report.state.fetched + value.length, ...report.progressOf(f.name, start + got, total) },
        { progress: true },
      );
    }
  } catch (error) {
    if (isAbort(error, dl.signal)) throw cancelledError();
    if (error instanceof HubError) {
      reader.cancel().catch(() => {}); // the store refused (quota, storage): stop the body too
      throw error;
    }
    brokenBy = error;
  }
  if (got > 0) f.failures = 0;
  if (brokenBy || (total !== null && start + got < total)) {
    reader.cancel().catch(() => {});
    await f.writer.commit();
    f.kept = await dl.store.fileState(dl.spec, f.name);
    await retryLater(dl, f, () => dropped(f.name, f.kept.bytes, total, f.failures));
    return AGAIN;
  }
  await f.writer.finish();
  f.writer = null;
  report.emit({
    ...report.progressOf(f.name, start + got, start + got),
    files: report.fileRow(f.name, { bytes: start + got, total: start + got, done: true }),
  });
  return true;
}

/** Drops the kept bytes of `f`; `changed` (the file is another version) counts towards maxRestarts. */
async function restart(dl, f, changed = true) {
  if (changed && ++f.restarts > dl.o.maxRestarts)
    throw new HubError(`${f.name} changed ${f.restarts} times while it downloaded; try again later`, {
      reason: 'http',
    });
  await f.writer?.abort();
  f.writer = null;
  await dl.store.resetFile(dl.spec, f.name);
  f.kept = await dl.store.fileState(dl.spec, f.name);
}

/** Waits before the next attempt (doubling, or the server's Retry-After); throws why() once the retries are used up. */
async function retryLater(dl, f, why, retryAfterMs) {
  const { o, report } = dl;
  f.failures++;
  if (f.failures > o.retries) throw why();
  const wait = Math.max(retryAfterMs ?? 0, Math.min(o.maxBackoffMs, o.backoffMs * 2 ** (f.failures - 1)));
  report.emit({ retry: { attempt: f.failures, of: o.retries, inMs: wait } });
  report.pause();
  await dl.sleep(wait);
  report.emit({ retry: null });
}

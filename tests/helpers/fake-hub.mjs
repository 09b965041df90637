// A fake Hugging Face Hub for the download's unit tests (tests/js/lib/hub/download.test.mjs,
// tests/js/tools/hub-models.test.mjs): a fetch that answers like the Hub's resolve URLs and
// listing API, and fails on request.

/** A GPT-2 config.json of a tiny model (2 layers, 2 heads, 32 wide, 512 tokens). */
export const TINY_GPT2_CONFIG = Object.freeze({
  model_type: 'gpt2',
  architectures: ['GPT2LMHeadModel'],
  vocab_size: 512,
  n_positions: 64,
  n_layer: 2,
  n_head: 2,
  n_embd: 32,
});

export const bytes = (n, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed) & 255);

/**
 * A fake Hub: files of one repository behind <ENDPOINT>/<repo>/resolve/main/<file> and the listing
 * API. `hub.script` changes behaviour: drops [{file, after}] (a body errors after `after` bytes),
 * status {file: code}, refuse (url) → true makes fetch reject as a refused/unreachable host would,
 * ignoreRange, listing (false: 404). Every call is logged in hub.calls.
 */
export function fakeHub(files, script = {}, REPO = 'someone/tiny-gpt2') {
  const hub = { files: { ...files }, script, calls: [], served: 0, cancelled: [] };
  const etagOf = (name) => `"${name}-v${hub.versions?.[name] ?? 1}"`;
  hub.fetch = async (url, init = {}) => {
    const signal = init.signal;
    const range = init.headers?.Range ?? null;
    hub.calls.push({ url, range, mode: init.mode ?? 'cors' });
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    if (hub.script.refuse?.(url, init)) throw new TypeError('Failed to fetch');
    const u = new URL(url);
    if (u.pathname === `/api/models/${REPO}`) {
      if (hub.script.listing === false) return new Response('Not Found', { status: 404 });
      return Response.json({ id: REPO, siblings: Object.keys(hub.files).map((rfilename) => ({ rfilename })) });
    }
    const prefix = `/${REPO}/resolve/main/`;
    if (!u.pathname.startsWith(prefix)) return new Response('Invalid username or password.', { status: 401 });
    const name = decodeURIComponent(u.pathname.slice(prefix.length));
    const forced = hub.script.status?.[name];
    if (forced) return new Response('no', { status: forced, headers: forced === 429 ? { 'retry-after': '0' } : {} });
    const data = hub.files[name];
    if (!data) return new Response('Entry not found', { status: 404, headers: { 'x-error-code': 'EntryNotFound' } });
    let start = 0,
      status = 200;
    const headers = { etag: etagOf(name), 'x-repo-commit': 'c'.repeat(40) };
    const m = /^bytes=(\d+)-$/.exec(range ?? '');
    if (m && !hub.script.ignoreRange) {
      start = Number(m[1]);
      if (start >= data.length)
        return new Response(null, { status: 416, headers: { 'content-range': `bytes */${data.length}` } });
      status = 206;
      headers['content-range'] = `bytes ${start}-${data.length - 1}/${data.length}`;
    }
    headers['content-length'] = String(data.length - start);
    const drop = hub.script.drops?.find((d) => d.file === name && !d.used);
    if (drop) drop.used = true;
    let at = start,
      sent = 0;
    const body = new ReadableStream({
      start(controller) {
        signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')), {
          once: true,
        });
      },
      pull(controller) {
        if (drop && sent >= drop.after) return controller.error(new TypeError('terminated'));
        if (at >= data.length) return controller.close();
        const n = Math.min(1000, data.length - at, drop ? drop.after - sent : Infinity);
        controller.enqueue(data.slice(at, at + n));
        at += n;
        sent += n;
        hub.served += n;
      },
      cancel() {
        hub.cancelled.push(name);
      },
    });
    return new Response(body, { status, headers });
  };
  return hub;
}

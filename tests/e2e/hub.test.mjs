// Issue 31's download path in the browsers: web/lib/hub imported by a test page
// (tests/e2e/pages/hub.html) served under the strict CSP and cross-origin isolated (COOP + COEP),
// downloading from the Hugging Face stand-in (tests/helpers/hf-standin.mjs: the Hub on one port,
// its CDN on another) into the origin private file system, in Chromium and Firefox ESR:
//   - a download stores the files with progress events, a reload opens them from the store with
//     0 bytes fetched (the stand-in's count), and the engine opens the kept Blob;
//   - a dropped connection resumes with Range and the stored file is byte-identical;
//   - Cancel stops and leaves nothing half-stored as complete;
//   - a repository without model.safetensors gives its file listing;
//   - refused CORS (isolated and not), a closed port, offline (Chromium), a non-GPT-2 config and a
//     full quota each give their message;
//   - the page's connect-src with exactly the Hub's and the CDN's origins works, and without the
//     CDN's the download fails with the CSP message;
//   - kept models are listed with their sizes and removed; a download runs in a worker too.
// Run: node --test tests/e2e/hub.test.mjs   (needs `node scripts/build.mjs` once, for the engine)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSP, launchBrowser, launchFirefox, openFirefoxPage, openPage, serveStatic } from './helpers.mjs';
import { startHfStandin, tinyGpt2, vocabAndMerges } from '../helpers/hf-standin.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGE = 'tests/e2e/pages/hub.html';
const GPT2 = 'openai-community/gpt2';
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
// Firefox's storage quota for these tests (KB): every model but the "big" one fits.
const FIREFOX_QUOTA_KB = 10240;

let hub, tiny, big, dead, servers, chromium, firefox;

/** A port nothing listens on: a host that is down. */
const closedPort = () =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });

before(async () => {
  hub = await startHfStandin();
  tiny = tinyGpt2();
  hub.addRepo(GPT2, { files: tiny.files });
  const { 'tokenizer.json': json, ...rest } = tiny.files;
  hub.addRepo('distilbert/distilgpt2', { files: { ...rest, ...vocabAndMerges(json) } });
  hub.addRepo('someone/pickled', {
    files: { 'config.json': tiny.files['config.json'], 'pytorch_model.bin': Buffer.alloc(4096) },
  });
  hub.addRepo('someone/bert', {
    files: {
      'config.json': JSON.stringify({ model_type: 'bert', architectures: ['BertForMaskedLM'] }),
      'model.safetensors': Buffer.alloc(64),
    },
  });
  big = tinyGpt2({ width: 256, layers: 4, heads: 4, seed: 5 }); // 17 MB: more than the quotas below
  hub.addRepo('someone/big-gpt2', { files: big.files });
  dead = `http://127.0.0.1:${await closedPort()}`;
  const csp = (origins) => `${CSP}; connect-src 'self' ${origins.join(' ')}`;
  servers = {
    // Exactly what a page needs: the Hub's origin and its CDN's.
    isolated: await serveStatic(ROOT, { csp: csp([hub.endpoint, hub.cdnOrigin]), isolate: true }),
    // The CDN left out.
    noCdn: await serveStatic(ROOT, { csp: csp([hub.endpoint]), isolate: true }),
    // Not cross-origin isolated (so a refused CORS request can be told from a host that is down),
    // and allowing the closed port.
    plain: await serveStatic(ROOT, { csp: csp([hub.endpoint, hub.cdnOrigin, dead]) }),
  };
});

after(async () => {
  await chromium?.close();
  await firefox?.close();
  for (const s of Object.values(servers ?? {})) await s.close();
  await hub?.close();
});

// The two browsers behind one small interface: a fresh context (fresh storage) per call.
const BROWSERS = {
  chromium: {
    async open(server) {
      chromium ??= await launchBrowser();
      const o = await openPage(chromium, server.url + PAGE);
      await o.page.waitForFunction(() => window.hubReady === true);
      return o;
    },
  },
  firefox: {
    async open(server) {
      firefox ??= await launchFirefox({
        extraPrefsFirefox: { 'dom.quotaManager.temporaryStorage.fixedLimit': FIREFOX_QUOTA_KB },
      });
      const o = await openFirefoxPage(firefox, server.url + PAGE);
      await o.page.waitForFunction(() => window.hubReady === true);
      return o;
    },
  },
};

// The page is brought to the front first: a background tab's timers (the retries' waits) are
// throttled to a second or more, in Firefox markedly.
const call = async (page, name, args) => {
  await page.bringToFront();
  return page.evaluate(([n, a]) => window.hubTest[n](a), [name, args]);
};
const download = (page, args) => call(page, 'download', { endpoint: hub.endpoint, repo: GPT2, ...args });
const failsWith = (r, reason, pattern) => {
  assert.equal(r.ok, false, `expected a failure (${reason}), got ${JSON.stringify(r.result)}`);
  assert.equal(r.error.name, 'HubError');
  assert.equal(r.error.reason, reason, r.error.message);
  assert.match(r.error.message, pattern);
  assert.equal(r.states.at(-1).phase, 'failed');
};
// Console and network messages a failure test expects (the browsers report blocked requests).
const expected = (problems, ...patterns) => problems.filter((p) => !patterns.some((re) => re.test(p)));

for (const [name, browser] of Object.entries(BROWSERS)) {
  test(`${name}: a download stores the files with progress, and a reload opens them from the store with 0 bytes fetched`, async () => {
    hub.reset();
    hub.set({ bytesPerSecond: 4e6 }); // ~0.5 s for the weights: many progress states
    hub.resetCounts();
    const { page, context, problems } = await browser.open(servers.isolated);
    try {
      assert.equal(await call(page, 'isolated'), true);
      const r = await download(page);
      assert.equal(r.ok, true, JSON.stringify(r.error));
      assert.deepEqual(r.store, { kind: 'opfs', kept: true, reason: null });
      const phases = r.states.map((s) => s.phase).filter((p, i, a) => p !== a[i - 1]);
      assert.deepEqual(phases, ['checking', 'downloading', 'stored']);
      const weights = r.states.filter((s) => s.phase === 'downloading' && s.file === 'model.safetensors');
      assert.ok(weights.length >= 5, `${weights.length} progress states for the weights`);
      for (let i = 1; i < weights.length; i++) assert.ok(weights[i].bytes >= weights[i - 1].bytes);
      const size = tiny.files['model.safetensors'].length;
      assert.deepEqual([weights.at(-1).bytes, weights.at(-1).total, weights.at(-1).percent], [size, size, 100]);
      // Speed and time left were drawn while it downloaded.
      const moving = weights.find((s) => s.bytesPerSecond > 0 && s.secondsLeft !== null);
      assert.ok(moving, 'a state with MB/s and time left');
      assert.match(moving.text, /^[\d.]+ (B|kB|MB) of 1\.62 MB \(\d+%\), [\d.]+ [kM]B\/s, \d+ s left$/);
      // What was stored is what the stand-in has, byte for byte.
      for (const [file, bytes] of Object.entries(tiny.files))
        assert.deepEqual(r.result.files[file], { size: bytes.length, sha256: sha256(bytes) }, file);
      const served = Object.values(tiny.files).reduce((a, b) => a + b.length, 0);
      assert.equal(r.result.fetched, served);
      assert.ok(hub.bytesServed >= served);
      // The engine opens the kept Blob, slice by slice.
      assert.deepEqual(await call(page, 'openKept', { endpoint: hub.endpoint, repo: GPT2, sliceBytes: 65536 }), {
        layers: 2,
        vocabSize: 4096,
        logits: 4096,
        sourceIsBlob: true,
      });
      // A reload: the same model opens from the store, not a byte fetched.
      hub.resetCounts();
      await page.reload();
      await page.waitForFunction(() => window.hubReady === true);
      const again = await download(page);
      assert.equal(again.ok, true);
      assert.equal(again.result.fromStore, true);
      assert.equal(again.result.fetched, 0);
      assert.deepEqual([hub.bytesServed, hub.requests.length], [0, 0]);
      assert.deepEqual(again.result.files, r.result.files);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`${name}: a dropped connection resumes with Range and the stored file is byte-identical`, async () => {
    hub.reset();
    // Paced, so that the bytes before each drop reach the page (a browser that gets a body and a
    // reset at once may drop its buffered part: Chromium does).
    hub.set({ dropAfter: 600 * 1024, dropTimes: 2, bytesPerSecond: 4e6 });
    hub.resetCounts();
    const { page, context, problems } = await browser.open(servers.isolated);
    try {
      const r = await download(page);
      assert.equal(r.ok, true, JSON.stringify(r.error));
      assert.equal(hub.drops, 2);
      const cdn = hub.requests.filter((q) => q.server === 'cdn');
      assert.deepEqual(
        cdn.map((q) => q.status),
        [200, 206, 206],
      );
      const from = cdn.map((q) => Number(/^bytes=(\d+)-$/.exec(q.range ?? 'bytes=0-')[1]));
      assert.ok(from[0] === 0 && from[1] > 400 * 1024 && from[2] > from[1] + 400 * 1024, `resumed from ${from}`);
      assert.equal(r.states.filter((s) => s.retry).length >= 2, true, 'the retries were reported');
      assert.equal(r.result.files['model.safetensors'].sha256, sha256(tiny.files['model.safetensors']));
      // A browser reports a dropped connection as a failed request; nothing else went wrong.
      assert.deepEqual(
        expected(
          problems,
          /requestfailed: .*xet-bridge-us/,
          /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONTENT_LENGTH_MISMATCH|NS_ERROR_NET_PARTIAL_TRANSFER|NS_ERROR_NET_INTERRUPT/,
        ),
        [],
      );
      // Dropping every time before a byte: a clear failure, what arrived kept.
      hub.set({ dropAfter: 0, dropTimes: Infinity });
      const again = await call(page, 'download', {
        endpoint: hub.endpoint,
        repo: 'distilbert/distilgpt2',
        options: { retries: 2 },
      });
      // Chromium hands the page the answer's headers and then the broken body; Firefox fails the
      // fetch itself when the body breaks at once, so there the file "failed before any answer".
      if (name === 'chromium')
        failsWith(
          again,
          'dropped',
          /the connection kept dropping while downloading model\.safetensors: it failed 3 times in a row, stopped at 0 B of 1\.62 MB\. What arrived is kept/,
        );
      else
        failsWith(
          again,
          'unreachable',
          /^model\.safetensors: http:\/\/127\.0\.0\.1:\d+ answered for the other files, but this one failed before any answer/,
        );
      assert.ok(hub.drops >= 3, `${hub.drops} drops`); // the first attempt and two retries (Firefox: and their probes)
    } finally {
      await context.close();
      hub.reset();
    }
  });

  test(`${name}: Cancel stops and leaves nothing half-stored as complete; kept models are listed and removed`, async () => {
    hub.reset();
    hub.set({ bytesPerSecond: 1e6 });
    const { page, context } = await browser.open(servers.isolated);
    try {
      const r = await download(page, { cancelAtBytes: 300 * 1024 });
      assert.equal(r.ok, false);
      assert.equal(r.error.reason, 'cancelled');
      assert.equal(r.states.at(-1).phase, 'cancelled');
      let list = await call(page, 'list');
      assert.equal(list.length, 1);
      assert.equal(list[0].complete, false);
      const partial = list[0].files.find((f) => f.name === 'model.safetensors');
      assert.equal(partial.complete, false);
      assert.ok(
        partial.bytes >= 300 * 1024 && partial.bytes < tiny.files['model.safetensors'].length,
        `${partial.bytes}`,
      );
      assert.equal(await call(page, 'openKept', { endpoint: hub.endpoint, repo: GPT2 }), null);
      // Another model, complete; then the list, with sizes.
      hub.reset();
      const distil = await call(page, 'download', { endpoint: hub.endpoint, repo: 'distilbert/distilgpt2' });
      assert.equal(distil.ok, true, JSON.stringify(distil.error));
      assert.equal(distil.result.tokenizer, 'vocab.json+merges.txt');
      list = await call(page, 'list');
      assert.deepEqual(
        list.map((m) => [m.repo, m.complete, m.bytes]),
        [
          ['distilbert/distilgpt2', true, distil.result.fetched],
          [GPT2, false, list[1].bytes],
        ],
      );
      assert.deepEqual(
        list[0].files.map((f) => f.name),
        ['config.json', 'vocab.json', 'merges.txt', 'model.safetensors'],
      );
      const estimate = await call(page, 'estimate');
      assert.ok(estimate.usage >= distil.result.fetched, JSON.stringify(estimate));
      // The cancelled one resumes from its bytes; then removing one, then all.
      hub.resetCounts();
      const resumed = await download(page);
      assert.equal(resumed.ok, true);
      assert.equal(hub.requests.find((q) => q.server === 'cdn').range, `bytes=${partial.bytes}-`);
      assert.equal(resumed.result.files['model.safetensors'].sha256, sha256(tiny.files['model.safetensors']));
      list = await call(page, 'remove', { endpoint: hub.endpoint, repo: 'distilbert/distilgpt2' });
      assert.deepEqual(
        list.map((m) => m.repo),
        [GPT2],
      );
      assert.deepEqual(await call(page, 'remove', null), []);
      hub.resetCounts();
      const after = await download(page);
      assert.equal(after.result.fromStore, false); // removed: downloaded again
    } finally {
      await context.close();
      hub.reset();
    }
  });

  test(`${name}: a 404 gives the repository's file listing; a non-GPT-2 config and a full quota give their messages`, async () => {
    hub.reset();
    const { page, context, problems } = await browser.open(servers.isolated);
    try {
      const pickled = await download(page, { repo: 'someone/pickled' });
      failsWith(
        pickled,
        'no-safetensors',
        /someone\/pickled has no model\.safetensors.*its files are: config\.json, pytorch_model\.bin \(PyTorch pickle: a web page cannot read it safely\)/,
      );
      assert.deepEqual(pickled.error.files, ['config.json', 'pytorch_model.bin']);
      const missing = await download(page, { repo: 'nobody/nothing' });
      failsWith(
        missing,
        'not-found',
        /refused nobody\/nothing \(HTTP 401\): it does not exist, or it is private or gated/,
      );
      hub.resetCounts();
      const bert = await download(page, { repo: 'someone/bert' });
      failsWith(
        bert,
        'not-gpt2',
        /someone\/bert is not a GPT-2 model \(its config\.json says model_type "bert", architectures BertForMaskedLM\)/,
      );
      assert.deepEqual(
        hub.requests.filter((q) => q.server === 'cdn'),
        [],
      ); // the weights were never asked for
      // A quota smaller than the model. Firefox reports it (navigator.storage.estimate), so the
      // download is refused before the weights' body is read; Chromium enforces an overridden
      // quota but reports a larger one to pages, so there the store's write is refused.
      hub.resetCounts();
      if (name === 'chromium') {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Storage.overrideQuotaForOrigin', {
          origin: new URL(servers.isolated.url).origin,
          quotaSize: 8e6,
        });
        failsWith(
          await download(page, { repo: 'someone/big-gpt2' }),
          'quota',
          /^the browser's storage for this site is full: it refused to keep more of the model while writing model\.safetensors; remove kept models, or allow this site more storage$/,
        );
      } else {
        const quota = await call(page, 'estimate');
        assert.ok(quota.quota < big.files['model.safetensors'].length, JSON.stringify(quota));
        failsWith(
          await download(page, { repo: 'someone/big-gpt2' }),
          'quota',
          /^keeping this model needs 17\.2 MB more of the browser's storage, but it allows this site [\d.]+ MB more \([\d.]+ [kM]B used of 10\.5 MB\): remove kept models, or free disk space$/,
        );
        assert.equal(hub.requests.filter((q) => q.server === 'cdn').length, 1); // asked once, its body left unread
      }
      const kept = (await call(page, 'list')).find((m) => m.repo === 'someone/big-gpt2');
      assert.equal(kept.complete, false);
      assert.equal(kept.files.find((f) => f.name === 'model.safetensors')?.complete ?? false, false);
      assert.deepEqual(expected(problems, /HTTP 40[14]/, /404|401/, /requestfailed: .*xet-bridge-us/), []);
    } finally {
      await context.close();
    }
  });

  test(`${name}: refused CORS, a closed port and a CSP without the CDN each give their message`, async () => {
    hub.reset();
    const isolated = await browser.open(servers.isolated);
    const plain = await browser.open(servers.plain);
    const noCdn = await browser.open(servers.noCdn);
    try {
      // The CDN sends no CORS headers: on a plain page the browser lets us tell; isolated, it does not.
      hub.set({ cors: { cdn: false } });
      failsWith(
        await download(plain.page),
        'cors',
        /^model\.safetensors: the host http:\/\/127\.0\.0\.1:\d+ redirects it to answered but does not let this page read it: it sends no CORS headers/,
      );
      failsWith(
        await download(isolated.page),
        'unreachable',
        /^model\.safetensors: http:\/\/127\.0\.0\.1:\d+ answered for the other files, but this one failed before any answer: .* or refusing this page \(no CORS headers\): on a cross-origin-isolated page the browser does not say which$/,
      );
      // The Hub itself refuses CORS.
      hub.set({ cors: { hub: false, cdn: true } });
      failsWith(
        await download(plain.page, { repo: 'distilbert/distilgpt2' }),
        'cors',
        /^http:\/\/127\.0\.0\.1:\d+ answered but does not let this page read its files/,
      );
      hub.reset();
      // Nothing listens on the port.
      failsWith(
        await call(plain.page, 'download', { endpoint: dead, repo: GPT2 }),
        'unreachable',
        /^could not reach http:\/\/127\.0\.0\.1:\d+: the address may be wrong, the host down, or the network blocking it$/,
      );
      // The page's connect-src allows the Hub but not its CDN.
      const blocked = await download(noCdn.page);
      failsWith(
        blocked,
        'csp',
        /Content-Security-Policy \(connect-src\) (allows http:\/\/127\.0\.0\.1:\d+ but not the host it redirects model\.safetensors to \(Hugging Face sends large files from its CDN, on other hosts\)|does not allow connecting to http:\/\/127\.0\.0\.1:\d+), so the download was blocked/,
      );
      if (name === 'chromium') {
        // Offline, as the browser says it.
        await isolated.context.setOffline(true);
        failsWith(await download(isolated.page, { repo: 'someone/big-gpt2' }), 'offline', /^this browser is offline/);
        await isolated.context.setOffline(false);
      }
    } finally {
      for (const o of [isolated, plain, noCdn]) await o.context.close();
      hub.reset();
    }
  });

  test(`${name}: a download runs in a dedicated worker, into the same store`, async () => {
    hub.reset();
    const { page, context, problems } = await browser.open(servers.isolated);
    try {
      const r = await call(page, 'inWorker', { endpoint: hub.endpoint, repo: GPT2 });
      assert.equal(r.ok, true, JSON.stringify(r.error));
      assert.equal(r.kind, 'opfs');
      assert.deepEqual(r.phases, ['checking', 'downloading', 'stored']);
      assert.equal(r.sizes['model.safetensors'], tiny.files['model.safetensors'].length);
      // The page sees what the worker kept.
      const again = await download(page);
      assert.equal(again.result.fromStore, true);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

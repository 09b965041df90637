// A local stand-in for the Hugging Face Hub: a tool of the tests (and of a measurement), never
// shipped and never used by the page. The machines that run the tests cannot reach Hugging Face,
// so this answers what the browser would ask it, the way it answers (as observed by others and
// recorded in public issues, 2026: huggingface_hub's file_download.py, curl -I transcripts):
//
//   hub (one port)                        cdn (another port: another origin, like *.cdn.hf.co)
//   GET /api/models/<repo>[/revision/r]   GET /xet-bridge-us/<repo key>/<sha256>?Expires=…
//     {id, sha, siblings: [{rfilename}]}    the bytes; Range → 206 + Content-Range, a range past
//     unknown repo: 401 "Invalid username     the end → 416 + "Content-Range: bytes */size";
//     or password." (as the Hub answers      If-Range honoured; ETag "<sha256>"; an expired
//     anonymous requests for a missing       signed URL → 403
//     or private repo)                      Access-Control-Allow-Origin: *, and Expose-Headers
//   GET /<repo>/resolve/<rev>/<file>          Accept-Ranges, Content-Range, Content-Type,
//     small file: 307 to the relative         Content-Disposition, ETag, X-Cache (as
//       /api/resolve-cache/models/<repo>/      cas-bridge.xethub.hf.co sends them; a preflight is
//       <commit>/<file>?etag=…, which         allowed only Content-Range, Content-Type,
//       answers 200/206 with the bytes         Content-Disposition and ETag as request headers)
//     large or binary file (LFS): 302 to the cdn, signed URL
//     missing file: 404, X-Error-Code EntryNotFound; missing revision: 404 RevisionNotFound
//     a known repository's answers: X-Repo-Commit, and for files X-Linked-Etag, X-Linked-Size;
//     CORS like the Hub's: Access-Control-Allow-Origin = the request's Origin, Vary: Origin, Expose-Headers
//     X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,
//     Accept-Ranges,Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash; preflights answered
//
// Switches: standin.set({...}) at any time (standin.reset() restores these defaults):
//   cors: {hub: true, cdn: true}   false: that server sends no Access-Control-* header at all
//   dropAfter: null                the cdn destroys the connection after sending this many
//                                  bytes of a body (its headers sent)…
//   dropTimes: Infinity            …this many times (then answers whole)
//   bytesPerSecond: null           bodies are sent at about this rate (16 kB pieces): a slow host
//   status: {}                     {'<repo>/<file>': 404 | 500 | …}: that file answers that status
//   listing: true                  false: /api/models/… answers 404 (a mirror without the API)
//   ignoreRange: false             true: the cdn answers every Range request with 200 and the whole file
//   signedUrlSeconds: 3600         how long a cdn URL from a redirect stays valid
//
// Counters: standin.bytesServed (body bytes written by both servers), standin.requests
// ([{server, method, path, range, status}]); resetCounts() zeroes them.
//
// Models: addRepo(id, {files: {name: string | Uint8Array | {path}}}) — tinyGpt2() gives a small
// GPT-2 checkpoint in Hugging Face's exact file names and layout, gpt2SmallShapedFiles() the
// GPT-2-small-shaped one of bench/gpt2_checkpoint.mjs (548 MB, written once, served from disk).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gpt2Tensors, ensureCheckpoint, GPT2_SMALL } from '../../bench/gpt2_checkpoint.mjs';
import { mulberry32 } from '../../web/lib/learn/random.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const HUB_EXPOSE =
  'X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,Accept-Ranges,Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash';
const CDN_EXPOSE = 'Accept-Ranges, Content-Range, Content-Type, Content-Disposition, ETag, X-Cache';
const CDN_ALLOW_HEADERS = 'Content-Range, Content-Type, Content-Disposition, ETag';
const LFS = /\.(safetensors|bin|h5|msgpack|onnx|gguf|pt|ckpt)$/;
const LFS_BYTES = 10 * 1024 * 1024;

const DEFAULTS = {
  cors: { hub: true, cdn: true },
  dropAfter: null,
  dropTimes: Infinity,
  bytesPerSecond: null,
  status: {},
  listing: true,
  ignoreRange: false,
  signedUrlSeconds: 3600,
};

const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
const gitSha1 = (bytes) =>
  crypto
    .createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest('hex');

// A file's bytes and identity: in memory, or on disk (hashed once, by streaming).
function fileEntry(name, value) {
  if (value && typeof value === 'object' && typeof value.path === 'string') {
    const size = fs.statSync(value.path).size;
    const hash = crypto.createHash('sha256');
    const fd = fs.openSync(value.path, 'r');
    const buffer = Buffer.alloc(8 << 20);
    for (let at = 0; at < size;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, at);
      hash.update(buffer.subarray(0, n));
      at += n;
    }
    fs.closeSync(fd);
    const sha = hash.digest('hex');
    return { name, size, path: value.path, sha256: sha, oid: sha, lfs: true };
  }
  const bytes =
    typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const lfs = LFS.test(name) || bytes.length >= LFS_BYTES;
  return { name, size: bytes.length, bytes, sha256: sha256(bytes), oid: lfs ? sha256(bytes) : gitSha1(bytes), lfs };
}

/** Parses "bytes=a-b" / "bytes=a-" (one range) against a size: {start, end} | 'unsatisfiable' | null. */
function rangeOf(header, size) {
  const m = /^bytes=(\d+)-(\d*)$/.exec(header ?? '');
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export async function startHfStandin({ host = '127.0.0.1' } = {}) {
  const repos = new Map(); // id → {id, commit, files: Map(name → entry)}
  const blobs = new Map(); // sha256 → entry
  let switches = structuredClone(DEFAULTS);
  let drops = 0;
  const standin = {
    bytesServed: 0,
    requests: [],
    endpoint: null,
    cdnOrigin: null,
  };

  const log = (server, req, status) =>
    standin.requests.push({ server, method: req.method, path: req.url, range: req.headers.range ?? null, status });

  function cors(server, req, headers) {
    if (!switches.cors[server]) return headers;
    if (server === 'hub') {
      headers['access-control-allow-origin'] = req.headers.origin ?? 'https://huggingface.co';
      headers['vary'] = 'Origin, Accept';
      headers['access-control-expose-headers'] = HUB_EXPOSE;
      headers['access-control-max-age'] = '86400';
    } else {
      headers['access-control-allow-origin'] = '*';
      headers['access-control-expose-headers'] = CDN_EXPOSE;
    }
    return headers;
  }

  function preflight(server, req, res) {
    const headers = cors(server, req, {});
    if (switches.cors[server]) {
      headers['access-control-allow-methods'] = 'GET, HEAD, OPTIONS';
      headers['access-control-allow-headers'] =
        server === 'hub' ? (req.headers['access-control-request-headers'] ?? '') : CDN_ALLOW_HEADERS;
    }
    res.writeHead(204, headers).end();
    log(server, req, 204);
  }

  const text = (server, req, res, status, body, headers = {}) => {
    const bytes = Buffer.from(body);
    res.writeHead(
      status,
      cors(server, req, { 'content-type': 'text/plain; charset=utf-8', 'content-length': bytes.length, ...headers }),
    );
    if (req.method !== 'HEAD') {
      res.end(bytes);
      standin.bytesServed += bytes.length;
    } else res.end();
    log(server, req, status);
  };

  // Sends entry's bytes [start, end] (paced and dropped as the switches say).
  function sendBody(server, res, entry, start, end) {
    const slow = switches.bytesPerSecond;
    const dropAt =
      server === 'cdn' && switches.dropAfter !== null && drops < switches.dropTimes ? switches.dropAfter : null;
    res.flushHeaders(); // the answer has begun before any drop: a drop is mid-body
    const piece = slow ? 16 * 1024 : 256 * 1024;
    let at = start,
      sent = 0;
    const fd = entry.path ? fs.openSync(entry.path, 'r') : null;
    const close = () => fd !== null && fs.closeSync(fd);
    const next = () => {
      if (res.destroyed) return close();
      if (at > end) {
        close();
        return res.end();
      }
      let n = Math.min(piece, end - at + 1);
      if (dropAt !== null && sent + n > dropAt) n = dropAt - sent;
      if (n <= 0 && dropAt !== null) {
        drops++;
        close();
        res.socket?.destroy(); // the connection drops mid-body
        return;
      }
      let chunk;
      if (fd !== null) {
        chunk = Buffer.alloc(n);
        fs.readSync(fd, chunk, 0, n, at);
      } else chunk = entry.bytes.subarray(at, at + n);
      at += n;
      sent += n;
      standin.bytesServed += n;
      const ok = res.write(chunk);
      const go = () => (slow ? setTimeout(next, (n / slow) * 1000) : setImmediate(next));
      if (ok) go();
      else res.once('drain', go);
    };
    next();
  }

  function serveBytes(server, req, res, entry, headers) {
    const size = entry.size;
    const etag = headers.etag;
    let range = switches.ignoreRange && server === 'cdn' ? null : rangeOf(req.headers.range, size);
    const ifRange = req.headers['if-range'];
    if (range && ifRange !== undefined && ifRange !== etag) range = null; // another version: the whole file
    if (range === 'unsatisfiable') {
      res.writeHead(416, cors(server, req, { ...headers, 'content-range': `bytes */${size}` })).end();
      return log(server, req, 416);
    }
    const [start, end, status] = range ? [range.start, range.end, 206] : [0, size - 1, 200];
    const h = cors(server, req, {
      ...headers,
      'accept-ranges': 'bytes',
      'content-length': end - start + 1,
      ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
    });
    res.writeHead(status, h);
    log(server, req, status);
    if (req.method === 'HEAD' || size === 0) return res.end();
    sendBody(server, res, entry, start, end);
  }

  // --- the hub ---------------------------------------------------------------------------------
  const hub = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = decodeURIComponent(url.pathname);
    if (req.method === 'OPTIONS') return preflight('hub', req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return text('hub', req, res, 405, 'method not allowed');
    // /api/models/<repo>[/revision/<rev>]
    let m = /^\/api\/models\/(.+?)(?:\/revision\/([^/]+))?$/.exec(p);
    if (m) {
      if (!switches.listing) return text('hub', req, res, 404, 'Not Found');
      const repo = repos.get(m[1]);
      if (!repo || (m[2] && m[2] !== 'main' && m[2] !== repo.commit))
        return text('hub', req, res, 401, JSON.stringify({ error: 'Invalid username or password.' }), {
          'content-type': 'application/json; charset=utf-8',
          'x-error-message': 'Invalid username or password.',
        });
      const body = JSON.stringify({
        _id: repo.commit.slice(0, 24),
        id: repo.id,
        modelId: repo.id,
        sha: repo.commit,
        private: false,
        gated: false,
        disabled: false,
        tags: ['transformers', 'safetensors', 'gpt2'],
        library_name: 'transformers',
        siblings: [...repo.files.keys()].sort().map((rfilename) => ({ rfilename })),
      });
      return text('hub', req, res, 200, body, {
        'content-type': 'application/json; charset=utf-8',
        'x-repo-commit': repo.commit,
      });
    }
    // /api/resolve-cache/models/<repo>/<commit>/<file>
    m = /^\/api\/resolve-cache\/models\/(.+)\/([0-9a-f]{40})\/(.+)$/.exec(p);
    if (m) {
      const repo = repos.get(m[1]);
      const entry = repo?.commit === m[2] ? repo.files.get(m[3]) : null;
      if (!entry) return text('hub', req, res, 404, 'Entry not found', { 'x-error-code': 'EntryNotFound' });
      return serveBytes('hub', req, res, entry, {
        'content-type': 'text/plain; charset=utf-8',
        etag: `"${entry.oid}"`,
        'x-repo-commit': repo.commit,
        'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(entry.name)}; filename="${entry.name}";`,
      });
    }
    // /<repo>/resolve/<revision>/<file>
    const at = p.indexOf('/resolve/');
    if (at > 0) {
      const repo = repos.get(p.slice(1, at));
      const [revision, ...rest] = url.pathname.slice(url.pathname.indexOf('/resolve/') + 9).split('/');
      const file = rest.map(decodeURIComponent).join('/');
      if (!repo)
        return text('hub', req, res, 401, 'Invalid username or password.', {
          'x-error-message': 'Invalid username or password.',
        });
      const rev = decodeURIComponent(revision);
      const common = { 'x-repo-commit': repo.commit };
      if (rev !== 'main' && rev !== repo.commit)
        return text('hub', req, res, 404, 'Revision not found', {
          ...common,
          'x-error-code': 'RevisionNotFound',
          'x-error-message': 'Invalid rev id: ' + rev,
        });
      const forced = switches.status[`${repo.id}/${file}`];
      const entry = repo.files.get(file);
      if (forced || !entry) {
        const status = forced ?? 404;
        return text('hub', req, res, status, status === 404 ? 'Entry not found' : 'Internal Error', {
          ...common,
          ...(status === 404 ? { 'x-error-code': 'EntryNotFound', 'x-error-message': 'Entry not found' } : {}),
        });
      }
      const linked = {
        ...common,
        'x-linked-etag': `"${entry.oid}"`,
        'x-linked-size': String(entry.size),
        'accept-ranges': 'bytes',
      };
      if (entry.lfs) {
        const expires = Math.floor(Date.now() / 1000) + switches.signedUrlSeconds;
        const key = crypto.createHash('sha1').update(repo.id).digest('hex').slice(0, 24);
        const location = `${standin.cdnOrigin}/xet-bridge-us/${key}/${entry.sha256}?X-Xet-Cas-Uid=public&Expires=${expires}&Signature=standin`;
        return text('hub', req, res, 302, `Found. Redirecting to ${location}`, {
          ...linked,
          location,
          'x-xet-hash': entry.sha256,
          'cache-control': 'no-store',
        });
      }
      const location = `/api/resolve-cache/models/${repo.id}/${repo.commit}/${encodeURIComponent(file)}?etag=${encodeURIComponent(`"${entry.oid}"`)}`;
      return text('hub', req, res, 307, `Temporary Redirect. Redirecting to ${location}`, { ...linked, location });
    }
    return text('hub', req, res, 404, 'Not Found');
  });

  // --- the cdn ---------------------------------------------------------------------------------
  const cdn = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'OPTIONS') return preflight('cdn', req, res);
    const m = /^\/xet-bridge-us\/[0-9a-f]+\/([0-9a-f]{64})$/.exec(url.pathname);
    const entry = m ? blobs.get(m[1]) : null;
    if (!entry) return text('cdn', req, res, 404, 'NoSuchKey');
    if (Number(url.searchParams.get('Expires')) < Date.now() / 1000)
      return text('cdn', req, res, 403, 'Request has expired', { 'x-cache': 'Error from cloudfront' });
    serveBytes('cdn', req, res, entry, {
      'content-type': 'application/octet-stream',
      'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(entry.name)}; filename="${entry.name}";`,
      etag: `"${entry.sha256}"`,
      'cache-control': 'public, max-age=31536000',
      'x-cache': 'Hit from cloudfront',
    });
  });

  const listen = (server) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve(server.address().port));
    });
  const hubPort = await listen(hub);
  const cdnPort = await listen(cdn);
  standin.endpoint = `http://${host}:${hubPort}`;
  standin.cdnOrigin = `http://${host}:${cdnPort}`;

  Object.assign(standin, {
    /** Adds (or replaces) a repository: files {name: string | bytes | {path}}; commit a 40-hex id. */
    addRepo(id, { files, commit } = {}) {
      const repo = {
        id,
        commit: commit ?? crypto.createHash('sha1').update(`${id}\n${Date.now()}\n${Math.random()}`).digest('hex'),
        files: new Map(),
      };
      for (const [name, value] of Object.entries(files)) {
        const entry = fileEntry(name, value);
        repo.files.set(name, entry);
        blobs.set(entry.sha256, entry);
      }
      repos.set(id, repo);
      return repo;
    },
    /** Replaces one file (a new version: a new ETag) in place. */
    replaceFile(id, name, value) {
      const repo = repos.get(id);
      const entry = fileEntry(name, value);
      repo.files.set(name, entry);
      blobs.set(entry.sha256, entry);
      return entry;
    },
    set(patch) {
      switches = { ...switches, ...patch, cors: { ...switches.cors, ...(patch.cors ?? {}) } };
      if ('dropAfter' in patch || 'dropTimes' in patch) drops = 0;
    },
    reset() {
      switches = structuredClone(DEFAULTS);
      drops = 0;
    },
    resetCounts() {
      standin.bytesServed = 0;
      standin.requests = [];
    },
    close: () =>
      Promise.all(
        [hub, cdn].map(
          (server) =>
            new Promise((resolve) => {
              server.closeAllConnections?.();
              server.close(() => resolve());
            }),
        ),
      ),
  });
  /** Drops so far under the current dropAfter switch. */
  Object.defineProperty(standin, 'drops', { get: () => drops });
  return standin;
}

// --- checkpoints ----------------------------------------------------------------------------------

/** Writes a safetensors file for `tensors` [[name, shape, kind]] with float32 values from `value(name, i)`. */
function safetensorsOf(tensors, value) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = Buffer.alloc(8 + text.length + offset);
  out.writeBigUInt64LE(BigInt(text.length), 0);
  out.write(text, 8, 'latin1');
  let at = 8 + text.length;
  for (const [name, shape, kind] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(out.buffer, out.byteOffset + at, n);
    if (kind === 'mask') {
      const P = shape[2];
      for (let i = 0; i < P; i++) data.fill(1, i * P, i * P + i + 1);
    } else for (let i = 0; i < n; i++) data[i] = value(kind, i);
    at += 4 * n;
  }
  return out;
}

/**
 * A small GPT-2 checkpoint in Hugging Face's layout and file names (gpt2's own: no "transformer."
 * prefix, Conv1D weights (in, out), attn.bias buffers), random weights from `seed`; by default 2
 * layers of 2 heads, width 64, context 128 and a 4,096-token vocabulary, its tokenizer.json the
 * shipped model's cut to that size (shippedTokenizerOfSize): 1.6 MB.
 * @returns {{config: object, files: {'config.json', 'tokenizer.json', 'model.safetensors'}}}
 */
export function tinyGpt2({ vocabSize = 4096, contextLength = 128, layers = 2, heads = 2, width = 64, seed = 31 } = {}) {
  const sizes = { vocabSize, contextLength, layers, heads, width };
  const random = mulberry32(seed).uint32;
  const weights = gpt2Tensors(sizes);
  const model = safetensorsOf(weights, (kind) => {
    const u = random() / 4294967296 - 0.5;
    return kind === 'norm' ? 1 + 0.02 * u : kind === 'bias' ? 0.01 * u : 0.04 * u;
  });
  const config = gpt2Config(sizes);
  return {
    config,
    files: {
      'config.json': JSON.stringify(config, null, 2),
      'tokenizer.json': shippedTokenizerOfSize(vocabSize),
      'model.safetensors': model,
    },
  };
}

/**
 * The shipped model's tokenizer.json (web/models/brown-wordnet.tokenizer.json) with `size` tokens:
 * the 256 bytes, its first size − 257 merges (a BPE's first merges never depend on later ones, and
 * merge i made token 256 + i) and <|endoftext|> as the last id; the whole file when it is no larger.
 */
export function shippedTokenizerOfSize(size) {
  const text = fs.readFileSync(path.join(ROOT, 'web/models/brown-wordnet.tokenizer.json'));
  const t = JSON.parse(text.toString('utf8'));
  const eot = t.added_tokens.find((a) => a.content === '<|endoftext|>');
  if (size >= eot.id + 1) return text;
  const keep = size - 1; // ids 0 … size − 2, then <|endoftext|>
  t.model.merges = t.model.merges.slice(0, keep - 256);
  t.model.vocab = Object.fromEntries(Object.entries(t.model.vocab).filter(([, id]) => id < keep));
  t.model.vocab[eot.content] = keep;
  eot.id = keep;
  return Buffer.from(JSON.stringify(t));
}

/** config.json as gpt2's own, for these sizes. */
export function gpt2Config({ vocabSize, contextLength, layers, heads, width }) {
  return {
    activation_function: 'gelu_new',
    architectures: ['GPT2LMHeadModel'],
    attn_pdrop: 0.1,
    bos_token_id: 50256,
    embd_pdrop: 0.1,
    eos_token_id: 50256,
    initializer_range: 0.02,
    layer_norm_epsilon: 1e-5,
    model_type: 'gpt2',
    n_ctx: contextLength,
    n_embd: width,
    n_head: heads,
    n_layer: layers,
    n_positions: contextLength,
    resid_pdrop: 0.1,
    vocab_size: vocabSize,
  };
}

/** The tokenizer.json's vocabulary and merges as GPT-2's vocab.json and merges.txt. */
export function vocabAndMerges(tokenizerJson) {
  const t = JSON.parse(Buffer.from(tokenizerJson).toString('utf8'));
  const merges = t.model.merges.map((m) => (Array.isArray(m) ? m.join(' ') : m));
  return { 'vocab.json': JSON.stringify(t.model.vocab), 'merges.txt': '#version: 0.2\n' + merges.join('\n') + '\n' };
}

/** GPT-2 small's shape with random weights (bench/gpt2_checkpoint.mjs, 548 MB, written once). */
export function gpt2SmallShapedFiles() {
  return {
    'config.json': JSON.stringify(gpt2Config(GPT2_SMALL), null, 2),
    'model.safetensors': { path: ensureCheckpoint('f32') },
  };
}

// Where a GPT-2 checkpoint's files are on the Hugging Face Hub (or a mirror of it), and whether a
// repository holds one. Pure: strings in, strings and plain objects out; tests/js/lib/hub/urls.test.mjs.
//
// The URL scheme is huggingface_hub's (constants.py, file_download.py hf_hub_url):
//   <endpoint>/<repo>/resolve/<revision>/<file>      a file (the Hub answers with a redirect: a
//                                                    relative 307 for small files, a 302 to its
//                                                    CDN for large ones)
//   <endpoint>/api/models/<repo>[/revision/<rev>]    the repository's metadata, `siblings` its files
// The endpoint defaults to https://huggingface.co and is configurable exactly like HF_ENDPOINT:
// any http(s) URL, a path prefix allowed (mirrors serve the hub under one), trailing "/" dropped.
// As hf_hub_url does, the revision is percent-encoded whole (refs/pr/1 → refs%2Fpr%2F1) and the
// file name per path segment; the repository id is validated, not encoded.
import { HubError, inputError } from './errors.js';

export const DEFAULT_ENDPOINT = 'https://huggingface.co';
export const DEFAULT_REVISION = 'main';

/**
 * The one-click models. Their sizes are not written here: they come from the Hub's answers (the
 * safetensors file's Content-Length / Content-Range) when the reader asks.
 */
export const PRESETS = Object.freeze([
  Object.freeze({ id: 'gpt2', repo: 'openai-community/gpt2', label: 'GPT-2 small', parameters: '124M' }),
  Object.freeze({ id: 'distilgpt2', repo: 'distilbert/distilgpt2', label: 'DistilGPT-2', parameters: '82M' }),
  Object.freeze({ id: 'gpt2-medium', repo: 'openai-community/gpt2-medium', label: 'GPT-2 medium', parameters: '355M' }),
]);

// The files a GPT-2 checkpoint is made of, in the order they are fetched (the small ones first, so
// a wrong architecture or a missing tokenizer is found before 500 MB are).
export const CONFIG_FILE = 'config.json';
export const WEIGHTS_FILE = 'model.safetensors';
export const TOKENIZER_JSON = 'tokenizer.json';
export const VOCAB_FILES = Object.freeze(['vocab.json', 'merges.txt']);

const MAX_INPUT = 2048;
const NAME_PART = /^[A-Za-z0-9_.-]+$/;
const WORD_EDGES = /^[A-Za-z0-9_](?:.*[A-Za-z0-9_])?$/;

/**
 * A Hub endpoint as HF_ENDPOINT takes it: an http(s) URL, maybe with a path prefix, without
 * query, fragment or credentials; trailing slashes dropped. undefined/'' → the default.
 */
export function endpointOf(value) {
  if (value === undefined || value === null || value === '') return DEFAULT_ENDPOINT;
  if (typeof value !== 'string') throw inputError('endpoint', `expected a URL such as ${DEFAULT_ENDPOINT}`);
  const text = value.trim();
  if (text.length > MAX_INPUT) throw inputError('endpoint', `${text.length} characters; at most ${MAX_INPUT}`);
  let url;
  try {
    url = new URL(text);
  } catch {
    throw inputError('endpoint', `${JSON.stringify(clip(text))} is not a URL; expected e.g. ${DEFAULT_ENDPOINT}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw inputError('endpoint', `expected an http(s) URL, got ${url.protocol} (${JSON.stringify(clip(text))})`);
  if (url.username || url.password) throw inputError('endpoint', 'a URL with a user name or password is not accepted');
  if (url.search || url.hash) throw inputError('endpoint', 'expected a URL without "?…" or "#…"');
  return (url.origin + url.pathname).replace(/\/+$/, '');
}

const clip = (text, n = 60) => (text.length > n ? text.slice(0, n) + '…' : text);

/**
 * A repository id as huggingface_hub's validate_repo_id accepts it: "name" or "namespace/name",
 * letters, digits, "-", "_", "." (ASCII), each part starting and ending with a letter, digit or
 * "_", the name at most 96 characters, no "--" or "..", not ending in ".git".
 */
export function repoIdOf(value, argument = 'repo') {
  if (typeof value !== 'string') throw inputError(argument, 'expected a repository id such as openai-community/gpt2');
  const text = value.trim();
  const fail = (why) => inputError(argument, `${JSON.stringify(clip(text))} is not a repository id: ${why}`);
  if (text === '') throw inputError(argument, 'type a repository id such as openai-community/gpt2, or its URL');
  const parts = text.split('/');
  if (parts.length > 2) throw fail('expected "name" or "namespace/name"');
  for (const part of parts) {
    if (part === '') throw fail('a part is empty');
    if (!NAME_PART.test(part)) throw fail('only letters, digits, "-", "_" and "." are allowed');
    if (!WORD_EDGES.test(part)) throw fail('a part cannot start or end with "-" or "."');
  }
  if (parts[parts.length - 1].length > 96) throw fail('the name is longer than 96 characters');
  if (text.includes('--') || text.includes('..')) throw fail('"--" and ".." are not allowed');
  if (text.endsWith('.git')) throw fail('it cannot end in ".git"');
  return text;
}

/** A revision: a branch, tag or commit (e.g. main, v1.0, refs/pr/3, a 40-hex sha). */
export function revisionOf(value, argument = 'revision') {
  if (value === undefined || value === null || value === '') return DEFAULT_REVISION;
  if (typeof value !== 'string' || value.trim() === '' || /[\s\u0000-\u001f]/.test(value) || value.length > 256)
    throw inputError(argument, `expected a branch, tag or commit such as main, got ${JSON.stringify(String(value))}`);
  return value;
}

const quoteSegment = (s) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/** <endpoint>/<repo>/resolve/<revision>/<file>, as hf_hub_url writes it. */
export function resolveUrl({ endpoint, repo, revision = DEFAULT_REVISION, file }) {
  const e = endpointOf(endpoint);
  if (typeof file !== 'string' || file === '' || file.split('/').some((s) => s === '' || s === '.' || s === '..'))
    throw inputError('file', `expected a file name such as ${CONFIG_FILE}, got ${JSON.stringify(String(file))}`);
  return `${e}/${repoIdOf(repo)}/resolve/${quoteSegment(revisionOf(revision))}/${file.split('/').map(quoteSegment).join('/')}`;
}

/** The repository's metadata: <endpoint>/api/models/<repo> (/revision/<rev> unless main). */
export function listingUrl({ endpoint, repo, revision = DEFAULT_REVISION }) {
  const r = revisionOf(revision);
  const base = `${endpointOf(endpoint)}/api/models/${repoIdOf(repo)}`;
  return r === DEFAULT_REVISION ? base : `${base}/revision/${quoteSegment(r)}`;
}

/** The page a reader can open to see the repository. */
export function repoPageUrl({ endpoint, repo }) {
  return `${endpointOf(endpoint)}/${repoIdOf(repo)}`;
}

const HF_HOSTS = new Set(['huggingface.co', 'www.huggingface.co', 'hf.co']);
const PAGE_MARKERS = new Set(['tree', 'blob', 'resolve', 'raw', 'commit', 'discussions', 'files']);

/**
 * What the reader typed in the "any repository" field: a repository id ("openai-community/gpt2",
 * "gpt2"), a preset's id, or a URL of the repository or of one of its files
 * (…/openai-community/gpt2, …/tree/main, …/blob/main/config.json, …/resolve/<rev>/model.safetensors;
 * the scheme may be left out). A URL under the configured endpoint keeps it; another Hugging Face
 * address uses https://huggingface.co; any other host becomes the endpoint (a mirror).
 * @returns {{endpoint: string, repo: string, revision: string}}
 */
export function parseModelInput(value, { endpoint } = {}) {
  const base = endpointOf(endpoint);
  if (typeof value !== 'string') throw inputError('model', 'expected a repository id such as openai-community/gpt2');
  const text = value.trim();
  if (text.length > MAX_INPUT) throw inputError('model', `${text.length} characters; at most ${MAX_INPUT}`);
  if (text === '') throw inputError('model', 'type a repository id such as openai-community/gpt2, or its URL');
  const preset = PRESETS.find((p) => p.id === text);
  if (preset) return { endpoint: base, repo: preset.repo, revision: DEFAULT_REVISION };
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(www\.)?(huggingface\.co|hf\.co)\//i.test(text);
  if (!looksLikeUrl) return { endpoint: base, repo: repoIdOf(text, 'model'), revision: DEFAULT_REVISION };

  let url;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : 'https://' + text);
  } catch {
    throw inputError('model', `${JSON.stringify(clip(text))} is not a URL or a repository id`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw inputError('model', `expected an http(s) URL or a repository id, got ${url.protocol}`);
  let found = null;
  const href = url.origin + url.pathname;
  if (href.startsWith(base + '/')) found = { endpoint: base, path: href.slice(base.length + 1) };
  else if (HF_HOSTS.has(url.hostname)) found = { endpoint: DEFAULT_ENDPOINT, path: url.pathname.slice(1) };
  else found = { endpoint: url.origin, path: url.pathname.slice(1) };
  const segments = found.path.split('/').filter((s) => s !== '');
  if (segments[0] === 'datasets' || segments[0] === 'spaces')
    throw inputError('model', `${JSON.stringify(clip(text))} is a ${segments[0].slice(0, -1)}, not a model repository`);
  if (segments[0] === 'api') segments.splice(0, segments[1] === 'models' ? 2 : 1);
  if (segments.length === 0) throw inputError('model', `${JSON.stringify(clip(text))} names no repository`);
  // "namespace/name/…" or a bare legacy "name/…" (then a page marker follows the name).
  const bare = segments.length === 1 || PAGE_MARKERS.has(segments[1]);
  const repo = repoIdOf(bare ? segments[0] : `${segments[0]}/${segments[1]}`, 'model');
  const rest = segments.slice(bare ? 1 : 2);
  let revision = DEFAULT_REVISION;
  if (['tree', 'blob', 'resolve', 'raw', 'commit'].includes(rest[0]) && rest[1]) {
    try {
      revision = revisionOf(decodeURIComponent(rest[1]), 'model');
    } catch (error) {
      if (error instanceof HubError) throw error;
      throw inputError('model', `the revision in ${JSON.stringify(clip(text))} is not valid percent-encoding`);
    }
  }
  return { endpoint: found.endpoint, repo, revision };
}

/** The file names of a listing: {siblings: [{rfilename}]} (the Hub's answer) or an array of names. */
export function siblingNames(listing) {
  const list = Array.isArray(listing) ? listing : listing?.siblings;
  if (!Array.isArray(list)) return [];
  return list
    .map((s) => (typeof s === 'string' ? s : s?.rfilename))
    .filter((s) => typeof s === 'string')
    .slice(0, 10000);
}

// Why a file that is there cannot be used instead, said beside it.
const ALTERNATIVES = [
  [/^pytorch_model\.bin$/, 'PyTorch pickle: a web page cannot read it safely'],
  [/^model\.safetensors\.index\.json$/, 'split into shards, which this page does not read'],
  [/^model-\d+-of-\d+\.safetensors$/, 'a shard'],
  [/^tf_model\.h5$/, 'TensorFlow'],
  [/^flax_model\.msgpack$/, 'Flax'],
  [/\.onnx$/, 'ONNX'],
  [/\.gguf$/, 'GGUF'],
];

export function noSafetensorsError(repo, names) {
  const shown = names.slice(0, 30).map((n) => {
    const why = ALTERNATIVES.find(([re]) => re.test(n));
    return why ? `${n} (${why[1]})` : n;
  });
  const list =
    names.length === 0
      ? 'the listing shows no files'
      : `its files are: ${shown.join(', ')}${names.length > 30 ? `, and ${names.length - 30} more` : ''}`;
  return new HubError(
    `${repo} has no ${WEIGHTS_FILE}, which this page needs (one file, Hugging Face's safetensors format); ${list}`,
    { reason: 'no-safetensors', files: names },
  );
}

const GPT2_ARCHITECTURES = new Set(['GPT2LMHeadModel', 'GPT2Model']);

/**
 * config.json's text (or parsed object) checked to be a GPT-2: model_type "gpt2" or an
 * architecture GPT2LMHeadModel / GPT2Model. Returns the parsed object and the sizes the memory
 * prediction needs ({vocabSize, contextLength, layers, heads, width, parameters}, null when the
 * config leaves one out: the engine then reads them from the tensors).
 */
export function checkGpt2Config(config, { repo = 'this repository' } = {}) {
  let c = config;
  if (typeof config === 'string') {
    try {
      c = JSON.parse(config);
    } catch (error) {
      throw new HubError(`${repo}: config.json is not JSON (${error.message})`, { reason: 'not-gpt2' });
    }
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c))
    throw new HubError(`${repo}: config.json is not a JSON object`, { reason: 'not-gpt2' });
  const architectures = Array.isArray(c.architectures) ? c.architectures.filter((a) => typeof a === 'string') : [];
  const isGpt2 = c.model_type === 'gpt2' || architectures.some((a) => GPT2_ARCHITECTURES.has(a));
  if (!isGpt2) {
    const said = [
      typeof c.model_type === 'string' ? `model_type "${clip(c.model_type, 40)}"` : 'no model_type',
      architectures.length ? `architectures ${architectures.slice(0, 3).join(', ')}` : null,
    ]
      .filter(Boolean)
      .join(', ');
    throw new HubError(
      `${repo} is not a GPT-2 model (its config.json says ${said}); this page runs GPT-2-family checkpoints (model_type "gpt2", GPT2LMHeadModel)`,
      { reason: 'not-gpt2' },
    );
  }
  const int = (...keys) => {
    for (const k of keys) if (Number.isSafeInteger(c[k]) && c[k] > 0) return c[k];
    return null;
  };
  const sizes = {
    vocabSize: int('vocab_size'),
    contextLength: int('n_positions', 'n_ctx'),
    layers: int('n_layer'),
    heads: int('n_head'),
    width: int('n_embd'),
  };
  sizes.parameters = gpt2Parameters(sizes);
  return { config: c, sizes };
}

/**
 * GPT-2's parameter count from its sizes: the token and position embeddings, per layer two
 * LayerNorms, c_attn, c_proj, c_fc, mlp.c_proj (12·C² + 13·C), and the final LayerNorm; the head
 * shares the token embedding. 124,439,808 for GPT-2 small. null if a size is unknown.
 */
export function gpt2Parameters({ vocabSize: V, contextLength: P, layers: L, width: C }) {
  if (![V, P, L, C].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  return V * C + P * C + L * (12 * C * C + 13 * C) + 2 * C;
}

// A real language model off the page's thread. The "A real language model" section (and "What
// happens next") ask one asynchronous host for everything: open a model and its tokenizer, read a
// sentence into tokens, run it with the attention captured, the next-token distribution,
// generation one token at a time with a KV cache, the shared word's vector across layers, and
// what each head does. The host runs the requests in a Web Worker (model-worker.js, a file beside
// the bundle: no blob: workers under a strict CSP) where one can start, else on the page itself
// (a GPT-2 forward then holds the page for its duration; the project's own small model takes a
// few milliseconds). Both run the same requests (modelRequests below), so the numbers agree.
//
//   open(spec) → info        encode(text) → tokens        trace(ids, {layer, head}) → picture
//   next(logits, options)    generate(ids, options) / step() / stopGenerating()
//   bank({a, b, word}) → cosines per layer      roles() → head scores      dispose()
//   threads(count) → {threads, maxThreads, singleThreadReason}   (tools/threads.js)
import {
  fromTokenizerJson,
  fromVocabAndMerges,
  loadGpt2Tokenizer,
  TokenizerError,
  TOKENIZER_LIMITS,
} from '../lib/tokenizer/index.js';
import { headScores, strongestHeads, HEAD_SCORE_KINDS } from '../lib/head-scores.js';
import { attentionRollout, bankCosines, meanOverHeads, parameterCount, traceLimits } from '../lib/real/view.js';
import { applyThreads } from './threads.js';
import { workerBackend } from './worker-backend.js';

/** A request's bad argument: the section shows its message; `argument` names what was wrong. */
export class ModelError extends Error {
  constructor(message, argument) {
    super(message);
    this.name = 'ModelError';
    this.argument = argument;
  }
}

const textOf = async (value) => {
  if (typeof value === 'string') return value;
  if (value && typeof value.url === 'string') {
    const response = await fetch(value.url);
    if (!response.ok) throw new ModelError(`config: ${value.url} answered HTTP ${response.status}`, 'config');
    return response.text();
  }
  if (value && typeof value.text === 'function') return value.text();
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return new TextDecoder().decode(value);
  return null;
};

/** The requests a model thread answers (ModelRequests's methods). */
const REQUESTS = new Set([
  'open',
  'info',
  'encode',
  'decode',
  'trace',
  'next',
  'generate',
  'step',
  'stopGenerating',
  'bank',
  'roles',
  'threads',
  'dispose',
]);

/**
 * The requests a model thread answers, over an engine (or a promise of one). Used by the worker
 * and, on the page, by the fallback. `models`: the models several figures share (sharedModels();
 * the model worker's channels share one), else each open loads its own copy.
 * @returns {{handle(op, args): Promise}}
 */
export function modelRequests(enginePromise, { models = null } = {}) {
  const requests = new ModelRequests(enginePromise, models);
  return {
    async handle(op, args) {
      if (!REQUESTS.has(op)) throw new ModelError(`unknown request "${op}"`, 'op');
      return requests[op](...args);
    },
  };
}

/**
 * One copy of each model for every figure that opens it: a model named by URLs (its source,
 * config and tokenizer; the shipped model, a model-url) is loaded once, kept while a figure has
 * it open, and freed when the last one lets it go. A model from the reader's files is each
 * figure's own.
 * @returns {{open(key: string|null, load: () => Promise<{model, tokenizer}>): Promise<{model, tokenizer, release()}>}}
 */
export function sharedModels() {
  const open = new Map(); // key → {loading: Promise<{model, tokenizer}>, users}
  return {
    async open(key, load) {
      if (key === null) {
        const own = await load();
        return { ...own, release: () => own.model.dispose() };
      }
      let entry = open.get(key);
      if (!entry) {
        entry = { loading: load(), users: 0 };
        open.set(key, entry);
        entry.loading.catch(() => open.get(key) === entry && open.delete(key));
      }
      entry.users += 1;
      let loaded;
      try {
        loaded = await entry.loading;
      } catch (error) {
        entry.users -= 1;
        throw error;
      }
      let released = false;
      return {
        ...loaded,
        release() {
          if (released) return;
          released = true;
          entry.users -= 1;
          if (entry.users === 0 && open.get(key) === entry) {
            open.delete(key);
            loaded.model.dispose();
          }
        },
      };
    },
  };
}

/** A spec's key among shared models: its URLs and shape (null: files, not shared). */
export function modelKey(spec) {
  const url = (v) =>
    v === undefined ||
    v === null ||
    typeof v === 'string' ||
    (v && Object.keys(v).every((k) => k === 'url') && typeof v.url === 'string');
  const t = spec.tokenizer || {};
  const tokenizerByUrl = Object.entries(t).every(
    ([k, v]) => (k === 'jsonUrl' || k === 'gpt2Url' || k === 'name') && typeof v === 'string',
  );
  if (typeof spec.source !== 'string' || !url(spec.config) || !tokenizerByUrl) return null;
  return JSON.stringify({
    source: spec.source,
    config: spec.config ?? null,
    heads: spec.heads ?? null,
    weights: spec.weights ?? null,
    tokenizer: t,
  });
}

/** The tokenizer a spec names: a tokenizer.json, vocab.json + merges.txt, a URL, or GPT-2's own. */
async function tokenizerOf(spec, config) {
  const t = spec.tokenizer || {};
  if (t.json !== undefined) return fromTokenizerJson(await textOf(t.json), { file: t.name || 'tokenizer.json' });
  if (t.vocab !== undefined || t.merges !== undefined) {
    if (t.vocab === undefined || t.merges === undefined)
      throw new ModelError(
        'tokenizer: vocab.json and merges.txt go together; give both, or tokenizer.json',
        'tokenizer',
      );
    return fromVocabAndMerges(await textOf(t.vocab), await textOf(t.merges), { file: 'vocab.json + merges.txt' });
  }
  if (t.jsonUrl) {
    const response = await fetch(t.jsonUrl);
    if (!response.ok) throw new ModelError(`tokenizer: ${t.jsonUrl} answered HTTP ${response.status}`, 'tokenizer');
    return fromTokenizerJson(await response.text(), { file: String(t.jsonUrl).split('/').pop() });
  }
  // No tokenizer given: GPT-2's own encoding (a checkpoint of GPT-2's 50,257-token vocabulary).
  if (config.vocabSize < 50257) {
    throw new ModelError(
      `tokenizer: this model has a vocabulary of ${config.vocabSize} tokens, not GPT-2's 50,257; give its tokenizer.json (or vocab.json and merges.txt)`,
      'tokenizer',
    );
  }
  return loadGpt2Tokenizer(t.gpt2Url ? { url: t.gpt2Url } : {});
}

class ModelRequests {
  #engine;
  #models;
  #lease = null; // the open model: {model, tokenizer, release()}
  #model = null;
  #tokenizer = null;
  #info = null;
  #session = null;
  #roles = null;

  constructor(enginePromise, models) {
    this.#engine = enginePromise;
    this.#models = models ?? sharedModels();
  }
  #need() {
    if (!this.#model) throw new ModelError('no model is open yet', 'model');
    return this.#model;
  }

  /**
   * spec: {name, source (bytes, Blob/File, URL string), config? (config.json text or Blob),
   *        heads?, tokenizer?: {json | vocab + merges | jsonUrl | gpt2Url, name}, about?,
   *        weights?: 'f32' | 'f16' | 'auto' (engine.openModel's; the info's `weights` says
   *        which precision was kept and its bytes)}
   * The model and tokenizer on screen stay until the new ones are both ready.
   */
  async open(spec) {
    const engine = await this.#engine;
    if (typeof engine.openModel !== 'function')
      throw new ModelError('this engine cannot open models; the section needs the whole engine', 'engine');
    const lease = await this.#models.open(modelKey(spec), () => loadModel(engine, spec));
    this.#session = null;
    this.#lease?.release();
    this.#lease = lease;
    this.#model = lease.model;
    this.#tokenizer = lease.tokenizer;
    this.#roles = null;
    const c = this.#model.config;
    this.#info = {
      name: spec.name || 'a model',
      about: spec.about || '',
      config: c,
      parameters: parameterCount(c),
      weights: this.#model.weights,
      tokenizer: { name: this.#tokenizer.name, size: this.#tokenizer.vocabSize },
    };
    return this.#info;
  }

  info() {
    return this.#info;
  }
  /** text → {ids, pieces: [{id, display, text}]}; a TokenizerError names what is wrong. */
  encode(text) {
    this.#need();
    if (typeof text !== 'string') throw new ModelError('sentence: expected text', 'sentence');
    const ids = this.#tokenizer.encode(text);
    if (ids.length === 0) throw new ModelError('sentence: type at least one character', 'sentence');
    const limit = traceLimits(this.#model.config).tokens;
    if (ids.length > limit)
      throw new ModelError(
        `sentence: ${ids.length} tokens; this model shows at most ${limit} (its context is ${this.#model.config.contextLength})`,
        'sentence',
      );
    return {
      ids: Int32Array.from(ids),
      pieces: this.#tokenizer.describe(ids).map((p) => ({ id: p.id, display: p.display, special: p.special })),
    };
  }

  /** ids → text. */
  decode(ids) {
    this.#need();
    return this.#tokenizer.decode(Array.from(ids));
  }

  /**
   * Everything the section draws for a sentence: every layer's and head's weights (L, H, T, T),
   * the chosen head's scores (T, T) and head size, the mean over the chosen layer's heads, the
   * rollout, the residual stream and the stream after each attention (for "what happens next"),
   * and the last position's logits.
   */
  trace(ids, { layer = 0, head = 0 } = {}) {
    const m = this.#need();
    const c = m.config;
    const all = m.trace(ids, { qkv: false, scores: false, residual: true, afterAttention: true, logits: 'last' });
    const chosen = m.trace(ids, {
      layers: [layer],
      heads: [head],
      qkv: true,
      scores: true,
      weights: false,
      residual: false,
      logits: 'none',
    }).attention[0];
    const T = ids.length;
    const weights = new Float32Array(c.layers * c.heads * T * T);
    all.attention.forEach((a, l) => weights.set(a.weights.data, l * c.heads * T * T));
    return {
      T,
      L: c.layers,
      H: c.heads,
      weights,
      chosen: { layer, head, scores: chosen.scores.data, q: chosen.q.data, hs: chosen.q.shape[2] },
      mean: meanOverHeads(weights, c.layers, c.heads, T),
      rollout: attentionRollout(weights, c.layers, c.heads, T),
      residual: all.residual.data,
      afterAttention: all.afterAttention.data,
      width: c.width,
      logits: all.logits.data,
    };
  }

  /** The next-token distribution of `logits` (V) with its options; the top tokens' text. */
  async next(logits, options) {
    this.#need();
    const out = (await this.#engine).nextToken(logits, options);
    return { ...out, topText: Array.from(out.topTokens, (id) => this.#tokenizer.describe([id])[0].display) };
  }

  /** Starts generating after `ids` (a KV cache): options as generate's. */
  generate(ids, options) {
    this.#session = this.#need().session(ids, options);
    return { ok: true };
  }

  /** One more token: the session's step with the token's text. */
  step() {
    if (!this.#session) throw new ModelError('press Generate first', 'session');
    const s = this.#session.step();
    return {
      token: s.token,
      text: this.#tokenizer.describe([s.token])[0].display,
      position: s.position,
      keys: s.keys,
      recomputed: s.recomputed,
      topTokens: s.topTokens,
      topProbs: s.topProbs,
      topText: Array.from(s.topTokens, (id) => this.#tokenizer.describe([id])[0].display),
      attention: { shape: s.attention.shape, data: s.attention.data },
      macs: s.macs,
    };
  }

  stopGenerating() {
    this.#session = null;
  }

  /**
   * The shared word across two sentences: its vector after the embedding and after every layer
   * (the residual stream at its last token) compared by cosine. word must occur in both.
   */
  async bank({ a, b, word }) {
    const m = this.#need();
    try {
      return bankCosines(await this.#engine, m, this.#tokenizer, { a, b, word });
    } catch (error) {
      throw new ModelError(error.message, error.argument ?? 'word');
    }
  }

  /** What each head does: previous-token, first-token, self and induction scores (L, H). */
  roles(text) {
    const m = this.#need();
    if (this.#roles) return this.#roles;
    const ids = this.#tokenizer.encode(text).slice(0, Math.min(traceLimits(m.config).tokens, 96));
    const endOfText = this.#tokenizer.specials?.['<|endoftext|>'];
    const weightsOf = (tokens) =>
      m.trace(tokens, { qkv: false, scores: false, residual: false, logits: 'none' }).attention;
    const R = Math.max(4, Math.min(50, Math.floor((traceLimits(m.config).tokens - 1) / 2)));
    const scores = headScores(weightsOf, {
      tokens: ids,
      vocabSize: m.config.vocabSize,
      R,
      samples: 2,
      prefix: Number.isInteger(endOfText) ? [endOfText] : [],
      exclude: Number.isInteger(endOfText) ? [endOfText] : [],
    });
    this.#roles = {
      scores,
      strongest: Object.fromEntries(HEAD_SCORE_KINDS.map((k) => [k, strongestHeads(scores[k], 3)])),
    };
    return this.#roles;
  }

  /** The engine's threads after the reader's setting `count` (tools/threads.js). */
  async threads(count) {
    return applyThreads(await this.#engine, count);
  }

  dispose() {
    this.#session = null;
    this.#lease?.release();
    this.#lease = null;
    this.#model = null;
  }
}

/** A spec's model and its tokenizer, checked against each other (ModelRequests.open). */
async function loadModel(engine, spec) {
  const options = {};
  if (spec.config !== undefined && spec.config !== null) options.config = await textOf(spec.config);
  if (spec.heads) options.heads = spec.heads;
  if (spec.weights !== undefined) options.weights = spec.weights;
  const model = await engine.openModel(spec.source, options);
  let tokenizer;
  try {
    tokenizer = await tokenizerOf(spec, model.config);
  } catch (error) {
    model.dispose();
    throw error;
  }
  if (tokenizer.vocabSize > model.config.vocabSize) {
    model.dispose();
    throw new ModelError(
      `tokenizer: it has ${tokenizer.vocabSize} tokens, more than the model's vocabulary of ${model.config.vocabSize}`,
      'tokenizer',
    );
  }
  return { model, tokenizer };
}

export { TokenizerError, TOKENIZER_LIMITS };

// A failed worker (a CSP refusal, a load error) makes the host run the requests on the page
// instead, replaying the last open; the figures of a page that run there share their models too.
const pageModels = sharedModels();
function pageBackend(engine) {
  const requests = modelRequests(engine, { models: pageModels });
  return {
    mode: 'page',
    call: (op, ...args) => requests.handle(op, args),
    dispose: () => requests.handle('dispose', []).catch(() => {}),
  };
}

/**
 * @param {{engine: () => Promise<object>, makeWorker?: () => Worker|null}} options
 * @returns {{mode, call(op, ...args): Promise, dispose()}}
 */
export function createModelHost({ engine, makeWorker }) {
  let backend = null;
  let lastOpen = null;
  try {
    const worker = makeWorker?.();
    backend = worker ? workerBackend(worker, 'the model worker') : null;
  } catch {
    backend = null; // e.g. a CSP that forbids workers: run on the page
  }
  backend ||= pageBackend(engine());
  return {
    get mode() {
      return backend.mode;
    },
    async call(op, ...args) {
      if (op === 'open') lastOpen = args;
      try {
        return await backend.call(op, ...args);
      } catch (error) {
        if (!error.workerFailed) throw error;
        backend.dispose();
        backend = pageBackend(engine());
        if (lastOpen && op !== 'open') await backend.call('open', ...lastOpen);
        return backend.call(op, ...args);
      }
    },
    dispose() {
      backend?.dispose();
    },
  };
}

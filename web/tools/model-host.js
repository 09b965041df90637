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
//   ablate(ids, options)     sweep(ids, {layer, …}) → one block's row     attribute(ids, options)
//   lens(ids, options)       what a head does, not only where it looks (engine.d.ts's model.ablate,
//                            ablationSweep, attribute, logitLens), with the tokens' text
import {
  fromTokenizerJson,
  fromVocabAndMerges,
  loadGpt2Tokenizer,
  TokenizerError,
  TOKENIZER_LIMITS,
} from '../lib/tokenizer/index.js';
import { headScores, strongestHeads, HEAD_SCORE_KINDS } from '../lib/head-scores.js';
import {
  attentionRollout,
  bankCosines,
  meanOverHeads,
  parameterCount,
  traceLimits,
  wordPosition,
} from '../lib/real/view.js';
import { comparisonRows } from '../lib/real/interpret.js';
import { senseSeparation } from '../lib/real/sense-separation.js';
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
  'ablate',
  'sweep',
  'attribute',
  'lens',
  'predictions',
  'senses',
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
    async handle(op, args, { progress } = {}) {
      if (!REQUESTS.has(op)) throw new ModelError(`unknown request "${op}"`, 'op');
      if (op === 'open') return requests.open(args[0], { progress });
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
   *        weights?: 'f32' | 'f16' | 'bf16' | 'auto' (engine.openModel's; the info's `weights` says
   *        which precision was kept and its bytes)}
   * The model and tokenizer on screen stay until the new ones are both ready.
   */
  async open(spec, { progress } = {}) {
    const engine = await this.#engine;
    if (typeof engine.openModel !== 'function')
      throw new ModelError('this engine cannot open models; the section needs the whole engine', 'engine');
    const lease = await this.#models.open(modelKey(spec), () => loadModel(engine, spec, progress));
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

  /**
   * The bank example measured right (lib/real/sense-separation.js): a word used in several
   * sentences of each sense, {word, senses: [{name, sentences}]}; each sentence's stream after
   * the embedding and every block, at the word's last token, compared per layer against the
   * baseline of unrelated tokens. A sentence without the word is refused naming it.
   */
  senses({ word, senses }) {
    const m = this.#need();
    const limit = traceLimits(m.config).tokens;
    const uses = [];
    senses.forEach(({ name, sentences }, i) =>
      sentences.forEach((text, j) => {
        const at = `senses[${i}].sentences[${j}]`;
        const pos = wordPosition(this.#tokenizer, text, word);
        if (!pos) throw new ModelError(`${at}: “${word}” is not a whole word in “${text}”`, 'senses');
        if (pos.ids.length > limit) throw new ModelError(`${at}: ${pos.ids.length} tokens; at most ${limit}`, 'senses');
        const residual = m.trace(pos.ids, {
          qkv: false,
          scores: false,
          weights: false,
          residual: true,
          logits: 'none',
        }).residual;
        uses.push({ sense: name, position: pos.index, residual });
      }),
    );
    try {
      return senseSeparation(uses, { word });
    } catch (error) {
      throw new ModelError(error.message, 'senses');
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
      tokens: ids.length, // the held text's length (spread evenly, a head's previous-token score is the mean of 1/(i + 1))
      scores,
      strongest: Object.fromEntries(HEAD_SCORE_KINDS.map((k) => [k, strongestHeads(scores[k], 3)])),
    };
    return this.#roles;
  }

  // ---------------------------------------------------------------------------------------------
  // What a head does (issue 32): each request one engine call on the sentence's ids, with the text
  // of every token it names. A request's bad argument is the engine's AttentionError, named.

  #text(id) {
    return this.#tokenizer.describe([id])[0].display;
  }
  // A mean ablation's reference text as ids: its first tokens, at most the context.
  #reference(options) {
    if (options.mode !== 'mean') return undefined;
    const text = options.reference;
    if (typeof text !== 'string' || !text.trim())
      throw new ModelError('reference: mean ablation needs a reference text', 'reference');
    return this.#tokenizer.encode(text).slice(0, Math.min(this.#model.config.contextLength, 128));
  }

  /**
   * One head knocked out: model.ablate's {layer, head, position, mode, probs, ablatedProbs (V),
   * losses, ablatedLosses, loss, ablatedLoss}, and rows: the ten most likely tokens before and
   * after and the candidate `token`, each {id, text, clean, ablated}. The reference is text.
   */
  ablate(ids, { layer, head, position, token = -1, mode = 'zero', reference } = {}) {
    const m = this.#need();
    // eslint-disable-next-line no-unused-vars
    const { logits, ablatedLogits, value, ...r } = m.ablate(ids, {
      layer,
      head,
      position,
      mode,
      reference: this.#reference({ mode, reference }),
    });
    const rows = comparisonRows(r.probs, r.ablatedProbs, 10, token).map((row) => ({
      ...row,
      text: this.#text(row.id),
    }));
    return { ...r, rows, token, text: token >= 0 ? this.#text(token) : null };
  }

  /**
   * One block's heads knocked out in turn (the page sweeps block by block, drawing each row as it
   * comes, and stops between blocks to cancel): {layer, logProb, row: log p(token) per head (H)}.
   */
  sweep(ids, { layer, position, token, mode = 'zero', reference } = {}) {
    const m = this.#need();
    const { heads: H, layers: L } = m.config;
    if (!Number.isInteger(layer) || layer < 0 || layer >= L)
      throw new ModelError(`layer: expected a block in [0, ${L - 1}], got ${layer}`, 'layer');
    const s = m.ablationSweep(ids, {
      layers: [layer],
      position,
      token,
      mode,
      reference: this.#reference({ mode, reference }),
    });
    return {
      layer,
      position: s.position,
      token: s.token,
      logProb: s.logProb,
      row: s.ablatedLogProb.data.slice(layer * H, (layer + 1) * H),
    };
  }

  /**
   * The model's own prediction at every position of the sentence: actual (T − 1), the
   * probability of the token that comes next in it; top (T), the most likely token's id.
   */
  async predictions(ids) {
    const m = this.#need();
    const engine = await this.#engine;
    const { vocabSize: V } = m.config;
    const logits = m.logits(ids).data;
    const T = ids.length;
    const actual = new Float32Array(Math.max(0, T - 1)),
      top = new Int32Array(T);
    for (let t = 0; t < T; t++) {
      const next = engine.nextToken(logits.subarray(t * V, (t + 1) * V), { top: 1 });
      top[t] = next.topTokens[0];
      if (t + 1 < T) actual[t] = next.probs[ids[t + 1]];
    }
    return { actual, top };
  }

  /** Direct logit attribution (model.attribute's answer) with the token's text. */
  attribute(ids, { position, token, other } = {}) {
    const r = this.#need().attribute(ids, { position, token, other });
    return { ...r, heads: { shape: r.heads.shape, data: r.heads.data }, text: this.#text(r.token) };
  }

  /** The logit lens (model.logitLens's answer) with every top token's text (L + 1, P, k). */
  lens(ids, { positions, k, position, token } = {}) {
    const r = this.#need().logitLens(ids, { positions, k, position, token });
    const texts = new Map();
    const text = (id) => texts.get(id) ?? texts.set(id, this.#text(id)).get(id);
    return {
      positions: r.positions,
      k: r.k,
      topTokens: r.topTokens,
      topProbs: { shape: r.topProbs.shape, data: r.topProbs.data },
      topText: Array.from(r.topTokens.data, text),
      token: r.token && { ...r.token, text: text(r.token.token) },
    };
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
// progress({loaded, total}): the weights' bytes read (downloaded, for a URL), at most every 100 ms.
async function loadModel(engine, spec, progress) {
  const options = {};
  if (spec.config !== undefined && spec.config !== null) options.config = await textOf(spec.config);
  if (spec.heads) options.heads = spec.heads;
  if (progress) {
    let last = 0;
    options.onProgress = ({ loaded, total }) => {
      const now = Date.now();
      if (now - last < 100 && loaded < total) return;
      last = now;
      progress({ loaded, total });
    };
  }
  if (spec.weights !== undefined) options.weights = spec.weights;
  // The host only runs its models (REQUESTS has no training): float32 weights kept in the
  // products' panels, the same numbers with one token's products about twice as fast.
  options.inferenceOnly = true;
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
  const backend = {
    mode: 'page',
    onProgress: null,
    call: (op, ...args) => requests.handle(op, args, { progress: (p) => backend.onProgress?.(p) }),
    dispose: () => requests.handle('dispose', []).catch(() => {}),
  };
  return backend;
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
  let onProgress = null;
  backend.onProgress = (p) => onProgress?.(p);
  return {
    get mode() {
      return backend.mode;
    },
    /** Hears an open's progress: {loaded, total} bytes of the weights read (downloaded, for a URL). */
    set onProgress(f) {
      onProgress = f;
    },
    async call(op, ...args) {
      if (op === 'open') lastOpen = args;
      try {
        return await backend.call(op, ...args);
      } catch (error) {
        if (!error.workerFailed) throw error;
        backend.dispose();
        backend = pageBackend(engine());
        backend.onProgress = (p) => onProgress?.(p);
        if (lastOpen && op !== 'open') await backend.call('open', ...lastOpen);
        return backend.call(op, ...args);
      }
    },
    dispose() {
      backend?.dispose();
    },
  };
}

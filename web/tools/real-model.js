// The one real language model of an explorer, shared by the sections that show it ("What happens
// next" and "A real language model"): a model host (tools/model-host.js, in a worker) and which
// model it has open. The project's own model opens the first time a section asks; another one
// opens from files the reader picks, or from URLs (the element's model-url attribute, a link).
import { createModelHost } from './model-host.js';
import { threadSettingOf } from './threads.js';
import { defaultGpt } from '../lib/real/gpt-state.js';
import { createHubModels, hubLabel } from './hub-models.js';
import { progressNumbers, speedMeter } from '../lib/hub/progress.js';

const ABOUT_SHIPPED =
  'trained here (npm run pretrain) on the Brown corpus and WordNet’s glosses, some passages repeated so that copying pays; small, without GPT-2’s knowledge';

/** The explorer's shared real model (made on first use). */
export function realModelOf(app) {
  return app.shared('real-model', () => createRealModel(app));
}

/** The reader's thread count reaches the model's worker, which says what it runs on; returns stop. */
function followThreads(app, host) {
  const threads = threadSettingOf(app);
  const applyThreads = () =>
    host.call('threads', threads.chosen).then(
      (info) => threads.report('model', info),
      () => {},
    );
  applyThreads();
  return threads.subscribe((kind) => kind === 'chosen' && applyThreads());
}

/**
 * The host's opens with their progress: `open(spec)` calls the host; `loading` is the progress of
 * the open reading weights, {name, url (when downloaded from one), loaded, total, bytesPerSecond,
 * percent, secondsLeft}, or null when no open is reading weights. `notify()` on each step.
 */
function trackLoading(host, notify) {
  let loading = null;
  let meter = null;
  let loadingOf = null; // the spec being opened
  host.onProgress = ({ loaded, total }) => {
    if (!loadingOf) return;
    meter.add(loaded - (loading?.loaded ?? 0), performance.now());
    const bytesPerSecond = meter.rate();
    loading = {
      ...loadingOf,
      loaded,
      total,
      bytesPerSecond,
      ...progressNumbers({ bytes: loaded, total, bytesPerSecond }),
    };
    notify();
  };
  return {
    get loading() {
      return loading;
    },
    open(s) {
      loadingOf = { name: s.name, url: typeof s.source === 'string' ? s.source : null };
      loading = null;
      meter = speedMeter();
      return host.call('open', s).finally(() => {
        loadingOf = null;
        loading = null;
      });
    },
  };
}

/** What the host opens for the state's model {kind: 'url', url, config?, heads?, tokenizer?}. */
function urlSpec(app, m, weights) {
  return {
    weights,
    name: m.url.split('/').pop() || m.url,
    about: `opened from ${m.url}`,
    source: new URL(m.url, app.doc.baseURI).href,
    config: m.config ? { url: new URL(m.config, app.doc.baseURI).href } : undefined,
    heads: m.heads,
    tokenizer: m.tokenizer
      ? { jsonUrl: new URL(m.tokenizer, app.doc.baseURI).href }
      : { gpt2Url: app.modelFiles.gpt2Tokenizer() },
  };
}

/** What the host opens for the project's own model. */
function shippedSpec(app, weights) {
  return {
    weights,
    name: 'brown-wordnet',
    about: ABOUT_SHIPPED,
    source: app.modelFiles.model(),
    tokenizer: { jsonUrl: app.modelFiles.tokenizer() },
  };
}

/** What the host opens for files the reader picked (see openFiles). */
function filesSpec(app, files, heads, weights) {
  const tokenizer = files.tokenizerJson
    ? { json: files.tokenizerJson, name: files.tokenizerJson.name }
    : files.vocab || files.merges
      ? { vocab: files.vocab, merges: files.merges }
      : { gpt2Url: app.modelFiles.gpt2Tokenizer() };
  return {
    weights,
    name: files.model.name,
    about: `opened from ${files.model.name} on this computer`,
    source: files.model,
    config: files.config,
    heads,
    tokenizer,
  };
}

/**
 * Opens a model as `st`'s (the real model's {key, opening, info, error}) model `specKey`: spec is
 * what the host opens, or a function giving a promise of it (a download first).
 */
function openAs(st, spec, specKey, { hostOpen, notify }) {
  st.key = specKey;
  st.error = null;
  notify();
  const run = (typeof spec === 'function' ? spec() : Promise.resolve(spec)).then(hostOpen).then(
    (opened) => {
      if (st.key === specKey) st.info = opened;
      return opened;
    },
    (err) => {
      if (st.key === specKey) st.error = err;
      throw err;
    },
  );
  st.opening = run;
  run
    .catch(() => {})
    .finally(() => {
      if (st.opening === run) st.opening = null;
      notify();
    });
  return run;
}

/**
 * What the host opens for a model of the Hub the state names, read from the browser's store; a
 * consent error when it is not kept (its weights are downloaded only on the reader's click).
 * held(): the bytes of the model on screen.
 */
/**
 * A model of the Hub's open spec, its tokenizer completed: a repository without tokenizer.json or
 * vocab.json + merges.txt is read with GPT-2's own encoding, from the file beside the page's
 * (app.modelFiles), as a checkpoint opened from a URL or from disk is.
 */
function withTokenizer(app, spec) {
  const t = spec.tokenizer ?? {};
  const given = t.json !== undefined || t.vocab !== undefined || t.merges !== undefined || t.jsonUrl;
  return given ? spec : { ...spec, tokenizer: { ...t, gpt2Url: app.modelFiles.gpt2Tokenizer() } };
}

async function keptHubSpec(hub, m, held, weights) {
  const where = { endpoint: m.endpoint, repo: m.repo, revision: m.revision };
  if (!(await hub.isKept(where)))
    throw Object.assign(new Error(`${hubLabel(where)} is not kept in this browser yet`), {
      name: 'HubError',
      reason: 'consent',
      model: m,
    });
  return (await hub.fetch(where, { alsoHeld: held(), weights })).spec;
}

// What identifies an open: the model and how its weights are kept (another choice opens it again).
const openKey = (m, weights) => JSON.stringify({ ...m, weights });

function createRealModel(app) {
  const host = createModelHost({ engine: async () => app.engine, makeWorker: app.modelWorker });
  const stopThreads = followThreads(app, host);
  const listeners = new Set();
  // key: the spec of the model open (or opening); opening: the promise of an open under way.
  // files: the reader's files last opened ({files, heads, weights}).
  const st = { key: null, opening: null, info: null, error: null, files: null };
  let hub = null; // the Hub's downloads and the kept models (made on first use)
  let fetching = false; // a model of the Hub downloads (or opens) while the one on screen stays
  const notify = () => listeners.forEach((f) => f());
  const hubOf = () => (hub ??= createHubModels(app.hubOptions ?? {}));
  // The model on screen's weights as F32: held beside the next one while it opens.
  const held = () => (st.info?.parameters ?? 0) * 4;
  const load = trackLoading(host, notify);
  const hostOpen = load.open;

  const open = (spec, specKey) => openAs(st, spec, specKey, { hostOpen, notify });
  const again = () => st.opening || (st.info ? Promise.resolve(st.info) : Promise.reject(st.error));
  const openFiles = (files, heads, weights = 'auto') => {
    st.files = { files, heads, weights };
    return open(filesSpec(app, files, heads, weights), `file:${files.model.name}:${files.model.size}:${Math.random()}`);
  };

  return {
    host,
    get info() {
      return st.info;
    },
    get error() {
      return st.error;
    },
    get opening() {
      return Boolean(st.opening);
    },
    /** An open's progress reading the weights (downloading them, for a model-url), or null. */
    get loading() {
      return load.loading;
    },
    /** True while openHub downloads or opens a model (the one on screen stays meanwhile). */
    get fetching() {
      return fetching;
    },
    /** The Hub's downloads and kept models (tools/hub-models.js). */
    get hub() {
      return hubOf();
    },
    subscribe(f) {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    /**
     * Opens the model the state names (the project's own by default), its weights kept as
     * state.gpt.precision says, unless it is open so.
     */
    ensure(state) {
      const { model: m, precision: weights = 'auto' } = state.gpt || defaultGpt();
      // A file the reader opened stays open (read again for another choice of weights); a link
      // cannot carry it (the project's model opens).
      if (m.kind === 'file' && st.key?.startsWith('file:')) {
        const f = st.files; // the files open, opened again when the weights are to be kept otherwise
        return f && f.weights !== weights ? openFiles(f.files, f.heads, weights) : again();
      }
      const specKey = openKey(m.kind === 'file' ? { kind: 'shipped' } : m, weights);
      if (specKey === st.key) return again();
      // A model of the Hub named by the state (a link, the element's model attribute) opens from
      // the browser's store; its weights are downloaded only on the reader's click (openHub): a
      // consent error says so, and the view offers the button.
      if (m.kind === 'hub')
        return open(async () => withTokenizer(app, await keptHubSpec(hubOf(), m, held, weights)), specKey);
      return open(m.kind === 'url' ? urlSpec(app, m, weights) : shippedSpec(app, weights), specKey);
    },
    /**
     * Downloads a model of the Hub ({kind: 'hub', endpoint, repo, revision}, as sanitizeGpt
     * gives it) and opens it; the model on screen stays, and its figures keep working, until the
     * new one is open. `onOpen()` is called as the new one becomes the open model (the view puts
     * it in the state then); `weights` how its weights are kept (state.gpt.precision). A failure
     * (or Cancel) rejects and leaves the model on screen.
     */
    async openHub(m, { onOpen, weights = 'auto' } = {}) {
      const specKey = openKey(m, weights);
      if (specKey === st.key && st.info && !st.opening) {
        onOpen?.();
        return st.info;
      }
      fetching = true;
      st.error = null;
      notify();
      try {
        const got = await hubOf().fetch(
          { endpoint: m.endpoint, repo: m.repo, revision: m.revision },
          { alsoHeld: held(), weights },
        );
        let opened;
        try {
          opened = await hostOpen(withTokenizer(app, got.spec));
        } catch (err) {
          st.error = err; // the host kept the model on screen
          throw err;
        }
        st.key = specKey;
        st.info = opened;
        onOpen?.();
        return opened;
      } finally {
        fetching = false;
        notify();
      }
    },
    /**
     * Opens a checkpoint the reader picked: files {model, config?, tokenizerJson?, vocab?, merges?}
     * (File objects), with `heads` when there is no config, its weights kept as `weights` says.
     * The model on screen stays if this fails.
     */
    openFiles,
    call: (op, ...args) => host.call(op, ...args),
    dispose: () => {
      stopThreads();
      host.dispose();
    },
  };
}

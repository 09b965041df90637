// The one real language model of an explorer, shared by the sections that show it ("What happens
// next" and "A real language model"): a model host (tools/model-host.js, in a worker) and which
// model it has open. The project's own model opens the first time a section asks; another one
// opens from files the reader picks, or from URLs (the element's model-url attribute, a link).
import { createModelHost } from './model-host.js';
import { threadSettingOf } from './threads.js';
import { defaultGpt } from '../lib/real/gpt-state.js';

const ABOUT_SHIPPED =
  'trained by this project on the Brown corpus and WordNet’s glosses (npm run pretrain); a 2-core model that learns which words follow which, not GPT-2’s knowledge';

/** The explorer's shared real model (made on first use). */
export function realModelOf(app) {
  return app.shared('real-model', () => createRealModel(app));
}

function createRealModel(app) {
  const host = createModelHost({ engine: async () => app.engine, makeWorker: app.modelWorker });
  // The reader's thread count reaches the model's worker, which says what it runs on.
  const threads = threadSettingOf(app);
  const applyThreads = () =>
    host.call('threads', threads.chosen).then(
      (info) => threads.report('model', info),
      () => {},
    );
  applyThreads();
  const stopThreads = threads.subscribe((kind) => kind === 'chosen' && applyThreads());
  const listeners = new Set();
  let key = null; // the spec of the model open (or opening)
  let opening = null;
  let info = null;
  let error = null;
  const notify = () => listeners.forEach((f) => f());

  async function open(spec, specKey) {
    key = specKey;
    error = null;
    notify();
    const run = host.call('open', spec).then(
      (opened) => {
        if (key === specKey) info = opened;
        return opened;
      },
      (err) => {
        if (key === specKey) error = err;
        throw err;
      },
    );
    opening = run;
    run
      .catch(() => {})
      .finally(() => {
        if (opening === run) opening = null;
        notify();
      });
    return run;
  }

  return {
    host,
    get info() {
      return info;
    },
    get error() {
      return error;
    },
    get opening() {
      return Boolean(opening);
    },
    subscribe(f) {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    /** Opens the model the state names (the project's own by default), unless it is open. */
    ensure(state) {
      const m = (state.gpt || defaultGpt()).model;
      // A file the reader opened stays open; a link cannot carry it (the project's model opens).
      if (m.kind === 'file' && key?.startsWith('file:'))
        return opening || (info ? Promise.resolve(info) : Promise.reject(error));
      const specKey = JSON.stringify(m.kind === 'file' ? { kind: 'shipped' } : m);
      if (specKey === key) return opening || (info ? Promise.resolve(info) : Promise.reject(error));
      if (m.kind === 'url')
        return open(
          {
            name: m.url.split('/').pop() || m.url,
            about: `opened from ${m.url}`,
            source: new URL(m.url, app.doc.baseURI).href,
            config: m.config ? { url: new URL(m.config, app.doc.baseURI).href } : undefined,
            heads: m.heads,
            tokenizer: m.tokenizer
              ? { jsonUrl: new URL(m.tokenizer, app.doc.baseURI).href }
              : { gpt2Url: app.modelFiles.gpt2Tokenizer() },
          },
          specKey,
        );
      return open(
        {
          name: 'brown-wordnet',
          about: ABOUT_SHIPPED,
          source: app.modelFiles.model(),
          tokenizer: { jsonUrl: app.modelFiles.tokenizer() },
        },
        specKey,
      );
    },
    /**
     * Opens a checkpoint the reader picked: files {model, config?, tokenizerJson?, vocab?, merges?}
     * (File objects), with `heads` when there is no config. The model on screen stays if this fails.
     */
    openFiles(files, heads) {
      const tokenizer = files.tokenizerJson
        ? { json: files.tokenizerJson, name: files.tokenizerJson.name }
        : files.vocab || files.merges
          ? { vocab: files.vocab, merges: files.merges }
          : { gpt2Url: app.modelFiles.gpt2Tokenizer() };
      return open(
        {
          name: files.model.name,
          about: `opened from ${files.model.name} on this computer`,
          source: files.model,
          config: files.config,
          heads,
          tokenizer,
        },
        `file:${files.model.name}:${files.model.size}:${Math.random()}`,
      );
    },
    call: (op, ...args) => host.call(op, ...args),
    dispose: () => {
      stopThreads();
      host.dispose();
    },
  };
}

// Which model: the project's own (shipped, opens with the section), a GPT-2 of the Hugging Face
// Hub in one click (GPT-2 small, DistilGPT-2, GPT-2 medium, or any repository id or URL; the
// download's progress with Cancel, the models kept in this browser with their sizes, each
// removable: tools/hub-models.js), or a GPT-2-family checkpoint from this computer
// (model.safetensors, with config.json and the tokenizer's files when there are). What is open is
// said in a line: its name, size and where it came from.
import { h, uid } from '../../ui/dom.js';
import { fmt } from '../../lib/format.js';
import { PRESETS, describeProgress, formatBytes, formatSeconds, parseModelInput } from '../../lib/hub/index.js';
import { hubLabel, hubPlace } from '../../tools/hub-models.js';
import { PRECISION_NAMES } from '../../lib/real/gpt-state.js';

const TEXT = {
  open: 'Open a GPT-2 checkpoint from this computer',
  files:
    'model.safetensors of a GPT2LMHeadModel (gpt2, distilgpt2, gpt2-medium…; Hugging Face’s layout, F32, F16 or BF16), and if you have them config.json and tokenizer.json (or vocab.json and merges.txt). Without a tokenizer file GPT-2’s own is used; without config.json give the head count.',
  heads: 'Heads, when neither config.json nor the file says (GPT-2 small: 12)',
  load: 'Open these files',
  shipped: 'Back to the project’s own model',
  weights: 'Weights as',
  weightChoices: {
    auto: 'float32 if it fits, else F16',
    f32: 'float32 (PyTorch’s numbers)',
    f16: 'F16 (half the memory)',
    bf16: 'BF16 (half the memory, fastest)',
  },
  weightsWhy:
    'How the model keeps its weights. float32: the numbers PyTorch gives. F16: each weight rounded to the nearest half, half the memory, and with two threads GPT-2 writes up to 1.5× as fast. BF16: each weight rounded to a bfloat16 (8 times F16’s rounding error), half the memory, and GPT-2 writes 1.2–2× as fast, with one thread or two.',
  keptAs: (w) => `now ${PRECISION_NAMES[w.precision] ?? w.precision}, ${formatBytes(w.bytes)}`,
  opening: 'Opening the model…',
  consent: (m) =>
    `${hubLabel(m)} from ${hubPlace(m.endpoint)} is not kept in this browser yet: opening it downloads its weights (their size is shown as the download starts).`,
  loadingUrl: (l) => `Downloading ${l.name} (${l.url}) and opening it`,
  loadingFile: (l) => `Reading ${l.name}’s weights`,
  hub: (place) =>
    `Download a GPT-2 from ${place} and open it here; it is kept in this browser, so the next visit opens it without the network.`,
  repo: 'Any GPT-2 repository (its id or URL)',
  repoGo: 'Download and open',
  cancel: 'Cancel',
  kept: (n, bytes) => `Kept in this browser: ${n === 0 ? 'nothing yet' : `${n} (${formatBytes(bytes)})`}`,
  remove: 'Remove',
  open2: 'Open',
  partial: (f) =>
    `partly downloaded: ${formatBytes(f.bytes)}${f.total ? ` of ${formatBytes(f.total)}` : ''}; its download resumes from there`,
  checking: (file) => (file ? `checking ${file}…` : 'looking in this browser’s store…'),
  retry: (r) =>
    `the connection dropped; trying again in ${formatSeconds(r.inMs / 1000)} (attempt ${r.attempt} of ${r.of})`,
  what: (a) => `Opening ${a.label} from ${a.place}`,
  stored: 'downloaded; opening it (the model on screen stays until it is open)…',
  failed: (e) => `Could not open ${e.label}: ${e.message}. The model on screen stays.`,
  storage: (e) => `This site uses ${formatBytes(e.usage)} of the ${formatBytes(e.quota)} the browser allows it.`,
  persist: {
    granted: 'The browser agreed to keep them (persistent storage).',
    persisted: 'The browser keeps them (persistent storage).',
    denied: 'The browser may remove them when it runs short of space (persistent storage was not granted).',
    undecided: 'Persistent storage was asked for; the browser has not answered.',
    unsupported: 'This browser does not offer persistent storage; it may remove them when short of space.',
  },
};

/**
 * @param {Element} parent
 * @param {{doc, onFiles(files, heads), onShipped(), hub?: object, endpoint?: () => string,
 *          onHub?(model), files?: boolean, choose?: boolean, precision?: () => string,
 *          onPrecision?(choice)}} ctx  hub: tools/hub-models.js
 *   (omitted: no Hub part); onHub({kind: 'hub', endpoint, repo, revision}); files: show the file
 *   picker; choose: show the Hub's presets, field and kept list (else only a download's progress
 *   and failure) — both default true; precision: the choice of how weights are kept (state.gpt's
 *   PRECISION_CHOICES), onPrecision: called with a new one (omitted: no choice shown)
 * @returns {{update({info, error, opening}), say(text)}}
 */
export function render(
  parent,
  { doc, onFiles, onShipped, hub, endpoint, onHub, files: showFiles = true, choose = true, precision, onPrecision },
) {
  const about = h(doc, 'p', { class: 'ae-gpt-about', 'aria-live': 'polite' });
  const weightChoice = onPrecision && choose ? renderWeightChoice(doc, onPrecision) : null;
  const message = h(doc, 'p', { class: 'ae-learn-message ae-gpt-model-message', role: 'alert', hidden: true });
  const say = (text) => {
    message.hidden = !text;
    message.textContent = text || '';
  };
  const filePicker = renderFilePicker(doc, { onFiles, onShipped, say });
  // the choice of weights sits beside the Hub's presets when they are shown, else under the line
  const hubPart = hub ? renderHub(doc, { hub, endpoint, onHub, say, choose, beside: weightChoice?.el }) : null;
  const loading = renderLoading(doc);
  const consent = renderConsent(doc, { onHub });
  parent.append(about, message, loading.el, consent.el);
  if (weightChoice && !hubPart) parent.append(weightChoice.el);
  if (hubPart) parent.append(hubPart.el);
  if (showFiles) parent.append(filePicker.el);
  function updateAbout({ info, error, opening, loading: l }) {
    loading.update(l);
    weightChoice?.update(precision?.() ?? 'auto', info?.weights);
    if (opening && !info) about.textContent = TEXT.opening;
    else if (info) about.textContent = describeModel(info);
    consent.update(error);
    // A download's failure (a HubError) is said by the Hub's part, once.
    const shown = error && !(hub && error.name === 'HubError') ? error : null;
    say(shown ? `Could not open the model: ${shown.message}${info ? ' (the model on screen stays).' : ''}` : null);
  }
  return { say, update: updateAbout };
}

/** The line saying what is open: its name, shape, size and where it came from. */
function describeModel(info) {
  const c = info.config;
  return `${info.name}: ${c.layers} layers × ${c.heads} heads, width ${c.width}, context ${c.contextLength} tokens, vocabulary ${c.vocabSize}, ${fmt(info.parameters / 1e6, 2)} million parameters — ${info.about}.`;
}

// How whichever model opens keeps its weights (state.gpt.precision): a choice that opens the model
// on screen again with the other (from this browser's store for a model of the Hub), and how the
// model on screen keeps them now, with their bytes.
function renderWeightChoice(doc, onPrecision) {
  const id = uid('gpt');
  const select = h(
    doc,
    'select',
    { id, class: 'ae-gpt-weights', title: TEXT.weightsWhy, onchange: () => onPrecision(select.value) },
    ...Object.entries(TEXT.weightChoices).map(([value, label]) => h(doc, 'option', { value }, label)),
  );
  const now = h(doc, 'span', { class: 'ae-help ae-gpt-weights-now', 'aria-live': 'polite', hidden: true });
  const el = h(
    doc,
    'div',
    { class: 'ae-ctl ae-gpt-weights-choice' },
    h(doc, 'label', { for: id }, TEXT.weights),
    ' ',
    select,
    ' ',
    now,
  );
  return {
    el,
    update(choice, kept) {
      if (select.value !== choice) select.value = choice;
      now.textContent = kept ? TEXT.keptAs(kept) : '';
      now.hidden = !kept; // nothing to say takes no room (a phone's row ends at the select)
    },
  };
}

// The checkpoint from this computer: model.safetensors, config.json, the tokenizer's files, the
// head count, and the way back to the project's own model. Calls onFiles(files, heads).
function renderFilePicker(doc, { onFiles, onShipped, say }) {
  const input = (label, accept, key) => {
    const id = uid('gpt');
    const el = h(doc, 'input', { type: 'file', id, accept, class: `ae-gpt-file-${key}` });
    return { el, field: h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', el) };
  };
  const model = input('model.safetensors', '.safetensors,application/octet-stream', 'model');
  const config = input('config.json (optional)', '.json,application/json', 'config');
  const tokenizer = input('tokenizer.json or vocab.json + merges.txt (optional)', '.json,.txt', 'tokenizer');
  tokenizer.el.multiple = true;
  const headsId = uid('gpt');
  const heads = h(doc, 'input', {
    type: 'number',
    id: headsId,
    min: 1,
    max: 256,
    step: 1,
    placeholder: 'e.g. 12',
    class: 'ae-gpt-heads',
  });
  const load = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-btn ae-gpt-load',
      onclick: () => {
        const f = model.el.files?.[0];
        if (!f) {
          say('Choose a model.safetensors file first.');
          return;
        }
        const files = { model: f, config: config.el.files?.[0] };
        for (const t of tokenizer.el.files ?? []) {
          if (/merges/i.test(t.name)) files.merges = t;
          else if (/vocab/i.test(t.name)) files.vocab = t;
          else files.tokenizerJson = t;
        }
        say(null);
        onFiles(files, Number(heads.value) || undefined);
      },
    },
    TEXT.load,
  );
  const back = h(doc, 'button', { type: 'button', class: 'ae-btn', onclick: () => onShipped() }, TEXT.shipped);
  const el = h(
    doc,
    'details',
    { class: 'ae-details ae-gpt-open' },
    h(doc, 'summary', {}, TEXT.open),
    h(doc, 'p', { class: 'ae-help' }, TEXT.files),
    model.field,
    config.field,
    tokenizer.field,
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headsId }, TEXT.heads), ' ', heads),
    h(doc, 'div', { class: 'ae-row' }, load, back),
  );
  return { el };
}

// An open reading its weights (a model-url downloading, a kept model read from the disk).
function renderLoading(doc) {
  const loadWhat = h(doc, 'p', { class: 'ae-gpt-loading-what' });
  const loadBar = h(doc, 'progress', {
    class: 'ae-gpt-progress-bar ae-gpt-loading-bar',
    max: 100,
    'aria-label': 'Read',
  });
  const loadLine = h(doc, 'p', { class: 'ae-gpt-loading-text', 'aria-live': 'polite' });
  const el = h(
    doc,
    'div',
    { class: 'ae-gpt-loading', role: 'group', 'aria-label': 'Opening the model', hidden: true },
    loadWhat,
    loadBar,
    loadLine,
  );
  const update = (loading) => {
    el.hidden = !loading;
    if (!loading) return;
    loadWhat.textContent = loading.url ? TEXT.loadingUrl(loading) : TEXT.loadingFile(loading);
    if (loading.percent !== null) loadBar.value = loading.percent;
    loadLine.textContent = describeProgress({
      bytes: loading.loaded,
      total: loading.total,
      bytesPerSecond: loading.bytesPerSecond,
    });
  };
  return { el, update };
}

// A model of the Hub the state names but this browser does not keep: downloaded on a click.
function renderConsent(doc, { onHub }) {
  const consentText = h(doc, 'span', {});
  let consentModel = null;
  const consentGo = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn ae-gpt-consent-go', onclick: () => consentModel && onHub?.(consentModel) },
    'Download and open it',
  );
  const el = h(doc, 'p', { class: 'ae-gpt-consent', hidden: true }, consentText, ' ', consentGo);
  const update = (error) => {
    consentModel = error?.reason === 'consent' ? error.model : null;
    el.hidden = !consentModel;
    if (consentModel) consentText.textContent = TEXT.consent(consentModel);
  };
  return { el, update };
}

// The Hub's part: the presets, the repository field, the progress bar with Cancel, the failure,
// and the models kept in this browser with the storage they take. Redrawn from hub.state.
function renderHub(doc, { hub, endpoint, onHub, say, choose, beside }) {
  const base = () => endpoint?.() ?? undefined;
  const ask = (model) => {
    say(null);
    onHub?.({ kind: 'hub', ...model });
  };
  const chooser = renderChooser(doc, { base, ask, say, beside });
  const progress = renderProgress(doc, hub);
  const failure = h(doc, 'p', { class: 'ae-learn-message ae-gpt-hub-error', role: 'alert', hidden: true });
  const kept = renderKept(doc, { hub, base, ask, say });
  // Without `choose` (a figure), only the download's progress and its failure are shown.
  const el = h(
    doc,
    'div',
    { class: 'ae-gpt-hub' },
    ...(choose ? chooser.els : []),
    progress.el,
    failure,
    ...(choose ? [kept.el] : []),
  );

  const draw = (s) => {
    chooser.update(s.active);
    progress.update(s.active);
    failure.hidden = !s.error;
    failure.textContent = s.error ? TEXT.failed(s.error) : '';
    kept.update(s);
  };
  hub.subscribe(draw);
  draw(hub.state);
  if (choose) hub.refresh();
  return { el };
}

// The Hub's presets (and `beside` them, the choice of weights) and the repository field;
// disabled while a download is under way.
function renderChooser(doc, { base, ask, say, beside }) {
  const intro = h(doc, 'p', { class: 'ae-help ae-gpt-hub-intro' });
  const presets = PRESETS.map((p) =>
    h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-btn ae-gpt-preset',
        'data-preset': p.id,
        onclick: () => ask({ endpoint: base(), repo: p.repo, revision: 'main' }),
      },
      `${p.label} (${p.parameters})`,
    ),
  );
  const repoId = uid('gpt');
  const repoInput = h(doc, 'input', {
    type: 'text',
    id: repoId,
    class: 'ae-gpt-repo-input',
    placeholder: 'openai-community/gpt2',
    spellcheck: 'false',
    autocomplete: 'off',
    maxlength: 2048,
  });
  const form = h(
    doc,
    'form',
    {
      class: 'ae-row ae-gpt-repo',
      onsubmit: (event) => {
        event.preventDefault();
        try {
          ask(parseModelInput(repoInput.value, { endpoint: base() }));
        } catch (error) {
          say(error.message);
        }
      },
    },
    h(doc, 'label', { for: repoId }, TEXT.repo),
    repoInput,
    h(doc, 'button', { type: 'submit', class: 'ae-btn ae-gpt-repo-go' }, TEXT.repoGo),
  );
  const update = (active) => {
    intro.textContent = TEXT.hub(hubPlace(base()));
    for (const b of [...presets, form.querySelector('button')]) b.disabled = Boolean(active);
  };
  return { els: [intro, h(doc, 'div', { class: 'ae-row ae-gpt-presets' }, ...presets, beside), form], update };
}

// The download under way: what, a progress bar, a line of numbers, Cancel.
function renderProgress(doc, hub) {
  const what = h(doc, 'p', { class: 'ae-gpt-progress-what' });
  const bar = h(doc, 'progress', { class: 'ae-gpt-progress-bar', max: 100, 'aria-label': 'Downloaded' });
  const line = h(doc, 'p', { class: 'ae-gpt-progress-text', 'aria-live': 'polite' });
  const cancel = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn ae-gpt-cancel', onclick: () => hub.cancel() },
    TEXT.cancel,
  );
  const el = h(
    doc,
    'div',
    { class: 'ae-gpt-progress', role: 'group', 'aria-label': 'Download', hidden: true },
    what,
    bar,
    h(doc, 'div', { class: 'ae-row' }, line, cancel),
  );
  const update = (a) => {
    el.hidden = !a;
    if (!a) return;
    const sizes = a.phase === 'downloading' && a.total ? `: ${a.file}, ${formatBytes(a.total)}` : '';
    what.textContent = `${TEXT.what(a)}${sizes}`;
    if (a.phase === 'downloading' && a.percent !== null) bar.value = a.percent;
    else bar.removeAttribute('value'); // indeterminate while checking
    line.textContent = a.retry
      ? TEXT.retry(a.retry)
      : a.phase === 'downloading'
        ? describeProgress(a)
        : a.phase === 'stored'
          ? TEXT.stored
          : TEXT.checking(a.file);
    cancel.disabled = a.phase === 'stored';
  };
  return { el, update };
}

// The models kept in this browser (each with Open and Remove) and the storage they take.
function renderKept(doc, { hub, base, ask, say }) {
  const keptSummary = h(doc, 'summary', {});
  const keptList = h(doc, 'ul', { class: 'ae-gpt-kept-list' });
  const storage = h(doc, 'p', { class: 'ae-help ae-gpt-storage' });
  const el = h(doc, 'details', { class: 'ae-details ae-gpt-kept' }, keptSummary, keptList, storage);
  const update = (s) => {
    const list = s.kept ?? [];
    keptSummary.textContent = TEXT.kept(
      list.length,
      list.reduce((n, k) => n + k.bytes, 0),
    );
    keptList.replaceChildren(...list.map((k) => keptItem(doc, k, { hub, base: base(), active: s.active, ask, say })));
    const parts = storageParts(s);
    storage.textContent = parts.join(' ');
    storage.hidden = parts.length === 0;
  };
  return { el, update };
}

// One kept model: what it is and its size (or how much arrived), Open (or resume), Remove.
function keptItem(doc, k, { hub, base, active: a, ask, say }) {
  const spec = { endpoint: k.endpoint, repo: k.repo, revision: k.revision };
  const weights = k.files.find((f) => f.name === 'model.safetensors');
  const where = k.endpoint === base ? '' : `, from ${hubPlace(k.endpoint)}`;
  const text = k.complete
    ? `${hubLabel(k)}: ${formatBytes(k.bytes)}${where}`
    : `${hubLabel(k)}${where}: ${TEXT.partial(weights ?? { bytes: k.bytes })}`;
  return h(
    doc,
    'li',
    { class: 'ae-gpt-kept-item', 'data-repo': k.repo, 'data-complete': String(k.complete) },
    h(doc, 'span', {}, text),
    ' ',
    h(
      doc,
      'button',
      { type: 'button', class: 'ae-btn ae-gpt-kept-open', disabled: Boolean(a), onclick: () => ask(spec) },
      k.complete ? TEXT.open2 : TEXT.repoGo,
    ),
    ' ',
    h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-btn ae-gpt-kept-remove',
        disabled: Boolean(a) && a.spec?.repo === k.repo,
        'aria-label': `${TEXT.remove} ${hubLabel(k)}`,
        onclick: () => hub.remove(spec).catch((error) => say(error.message)),
      },
      TEXT.remove,
    ),
  );
}

// The sentences about the storage: why models are not kept, the estimate, persistence.
function storageParts(s) {
  const parts = [];
  if (s.reason) parts.push(s.reason.charAt(0).toUpperCase() + s.reason.slice(1) + '.');
  if (s.estimate) parts.push(TEXT.storage(s.estimate));
  if (s.persist && TEXT.persist[s.persist]) parts.push(TEXT.persist[s.persist]);
  return parts;
}

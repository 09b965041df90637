// A real language model on the reader's own sentence: the project's own small model (trained here
// on public-domain English, shipped with the package) or a GPT-2 checkpoint from the reader's
// computer or a URL. The sentence as tokens, every layer × head as small multiples, one head
// enlarged with its numbers (or the mean over a layer's heads, or the rollout across layers),
// what each head does, measured, the next token with temperature, top-k and top-p, generation one
// token at a time with the KV cache drawn, and the bank example on real weights. The model runs
// in a worker (tools/real-model.js), driven by lib/real/gpt-run.js; this file composes the
// figures (views/gpt/*.js) and draws what the run holds.
import { h } from '../ui/dom.js';
import { narrowChooser } from '../ui/controls.js';
import { whenNear } from '../ui/on-screen.js';
import { defaultGpt, GPT_LIMITS, patchGpt, predictionForANewSentence, PRECISION_NAMES } from '../lib/real/gpt-state.js';
import { createGptRun } from '../lib/real/gpt-run.js';
import { realModelOf } from '../tools/real-model.js';
import * as picker from './gpt/model-picker.js';
import * as tokensView from './gpt/tokens.js';
import * as headGrid from './gpt/head-grid.js';
import * as enlarged from './gpt/enlarged.js';
import * as roles from './gpt/roles.js';
import * as nextToken from './gpt/next-token.js';
import * as kvCache from './gpt/kv-cache.js';
import * as bankChart from './gpt/bank-chart.js';
import * as exportsView from './gpt/exports.js';
import * as knockout from './gpt/knockout.js';
import * as attributionView from './gpt/attribution.js';
import * as lensView from './gpt/lens.js';
import * as senseChart from './gpt/sense-chart.js';
import * as openingView from './gpt/opening.js';
import { defaultLearn } from '../lib/learn/learn-state.js';
import { choosePrediction, openingClaims } from '../lib/real/interpret.js';
import { createInterpretRun } from '../lib/real/interpret-run.js';
import { DEFAULT_SENSES } from '../lib/real/sense-separation.js';
import { foldOnPhone } from '../ui/fold.js';
import { createParts } from './gpt/parts.js';
import { endpointOf, DEFAULT_ENDPOINT, PRESETS } from '../lib/hub/index.js';

const TEXT = {
  title: 'A real language model',
  tools: 'What a head does: knock one out, see what each part writes toward the prediction, read the layers',
  toolPick: 'Tool',
  toolNames: { knockout: 'knock out a head', attribution: 'what each part writes', lens: 'layer by layer' },
  senses: 'Does the model tell the two “bank”s apart? Measured against the baseline, layer by layer',
  intro:
    'Everything so far ran on hand-set numbers and tiny models. Here is a real language model running on a sentence you type: the same attention, every number computed in your browser. The line below says which model it is and where it came from.',
  roles: 'What each head does, measured (runs the model on a text and on random sequences)',
  loading: 'This section needs the model; it opens when the section comes on screen.',
  opening: 'Opening the model…',
  tooLong: (n) => `sentence: ${n} characters; type 1 to ${GPT_LIMITS.sentenceChars} (the sentence on screen stays)`,
  status: {
    running: () => 'Running the model…',
    ran: (s) =>
      `${s.tokens} tokens through ${s.layers} layers (${s.mode === 'worker' ? 'in a worker' : 'on the page'}${precisionSaid(s.precision)}).`,
    failed: (s) => `The model could not run on this sentence: ${s.message}`,
    waiting: () => 'The model opens once you ask for its download (above).',
    'generation-stopped': (s) => `Generation stopped: ${s.message}`,
    'roles-failed': (s) => `The head scores could not be measured: ${s.message}`,
    compared: (s) =>
      `The two sentences through ${s.layers} layers (${s.mode === 'worker' ? 'in a worker' : 'on the page'}${precisionSaid(s.precision)}).`,
  },
};
// How the model on screen keeps its weights, said with what ran (the picker's choice sets it).
const precisionSaid = (p) => (PRECISION_NAMES[p] ? `, weights as ${PRECISION_NAMES[p]}` : '');

export function render(section, app) {
  const { doc, store } = app;
  const real = realModelOf(app);
  const gptOf = () => store.get().gpt || defaultGpt();
  const setGpt = (patch) => store.set({ gpt: patchGpt(gptOf(), patch) });
  const status = h(doc, 'p', { class: 'ae-help ae-gpt-status', 'aria-live': 'polite' }, TEXT.loading);
  const fig = {};
  // The parts the view names (lib/real/gpt-parts.js): each figure in a box of its own (part()).
  const parts = createParts(doc);
  const part = (parent, figure) => parts.box(parent, figure);
  let shown = parts.show(app.state.view);
  const redraw = () => draw(app, real, run, fig, shown);
  const run = createGptRun({
    real,
    state: () => store.get(),
    gpt: gptOf,
    wants: () => shown,
    onChange: () => redraw(),
    // A new sentence opens on its own prediction (the head chosen stays): setGpt says so when the
    // sentence or the model changes; other tokens under the same state (a file opened again)
    // are heard here, and the state follows.
    onOtherTokens: () => {
      const p = gptOf().prediction ?? {};
      if (p.position !== undefined || p.token !== undefined) setGpt({ prediction: predictionForANewSentence(p) });
    },
    onStatus: (s) => {
      // A model of the Hub waiting for the reader's click: the picker says so, with the button.
      if (s.kind === 'failed' && real.error?.reason === 'consent') s = { kind: 'waiting' };
      status.textContent = TEXT.status[s.kind](s);
      if (s.kind === 'failed')
        fig.pick.update({ info: real.info, error: real.error, opening: real.opening, loading: real.loading });
    },
  });
  // What the parts below share: `folds.big`, on a phone, the enlarged head's fold (a pick opens it).
  // A model of the Hub opens (and goes in the state once open): from the picker's presets and
  // field, or the opening's "Open GPT-2" (one click). The Hub's endpoint: the model's own when the
  // state names one of the Hub (the element's hf-endpoint, a link), else the page's (?hf-endpoint=…).
  const pageEndpoint = hubEndpointOf(app);
  const endpoint = () => {
    const m = gptOf().model;
    return m.kind === 'hub' ? m.endpoint : pageEndpoint;
  };
  const openHub = (model) =>
    real.openHub(model, { weights: gptOf().precision, onOpen: () => setGpt({ model }) }).then(
      () => {},
      () => redraw(),
    );
  const v = {
    ...{ doc, app, real, run, fig, part, gptOf, setGpt, redraw, endpoint, openHub },
    ctx: { doc, app },
    folds: { big: null },
  };

  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title));
  part(section, null).append(h(doc, 'p', { class: 'ae-prose' }, TEXT.intro));
  fig.pick = mountPicker(part(section, 'pick'), v);
  section.append(status);
  fig.tokens = tokensView.render(part(section, 'tokens'), {
    ...v.ctx,
    onSentence: (sentence) => {
      // The box stops typing at its limit; pasted-in-by-script text is refused here, by name.
      if (sentence.length < 1 || sentence.length > GPT_LIMITS.sentenceChars) {
        status.textContent = TEXT.tooLong(sentence.length);
        redraw();
        return;
      }
      setGpt({ sentence });
    },
  });
  const [gridColumn, enlargedColumn] = mountPictures(section, v);
  const rolesPart = mountRoles(section, v, () => shown);
  mountInterpret(section, v);
  fig.syncTools(shown);
  const [, kvColumn] = mountWriting(section, v);
  mountSenses(section, v);
  fig.bank = bankChart.render(part(section, 'bank'), { ...v.ctx, onBank: (b) => setGpt({ bank: b }) });
  // On a phone: the sentence, every head, the next token and the bank example; the exports, the
  // enlarged head's numbers (wider than a phone) and the KV cache one tap deeper.
  foldOnPhone(app, 'Save the pictures (PNG, SVG)', [gridColumn.querySelector('.ae-gpt-export')]);
  v.folds.big = foldOnPhone(app, 'One head enlarged, with its numbers', [enlargedColumn]);
  foldOnPhone(app, 'Generating one token at a time, with a KV cache', [kvColumn]);

  // The model opens once the section comes near the screen (the whole engine is loaded by then).
  const near = whenNear(app.win, section, () => run.run().then(rolesPart), { margin: '300px 0px' });
  const unsubscribe = real.subscribe(() => {
    // Once the section is on screen and its model opening, the status says so.
    if (real.opening && status.textContent === TEXT.loading) status.textContent = TEXT.opening;
    redraw();
  });
  return {
    update() {
      shown = parts.show(app.state.view);
      fig.syncTools(shown);
      if (!near.started) return redraw();
      run.run().then(() => (run.compareBank(), rolesPart()));
    },
    destroy() {
      near.stop();
      unsubscribe();
    },
  };
}

// The model picker, wired to the real model: a model of the Hub opens (and goes in the state once
// open), files open, or the project's own model comes back.
function mountPicker(parent, { app, real, run, gptOf, setGpt, redraw, endpoint, openHub, ctx }) {
  return picker.render(parent, {
    ...ctx,
    hub: real.hub,
    endpoint,
    // In an element the pickers are shown with controls="full", or where the view names the
    // picker part (view="gpt-picker"); elsewhere a figure shows its model.
    files: !app.embedded || app.controls === 'full' || app.state.view.includes('gpt-picker'),
    choose: !app.embedded || app.controls === 'full' || app.state.view.includes('gpt-picker'),
    onHub: openHub,
    precision: () => gptOf().precision,
    onPrecision: (precision) => setGpt({ precision }),
    onFiles: (files, heads) => {
      real.openFiles(files, heads, gptOf().precision).then(
        () => (gptOf().model.kind === 'file' ? run.run(true) : setGpt({ model: { kind: 'file' } })),
        () => redraw(),
      );
    },
    onShipped: () => setGpt({ model: { kind: 'shipped' } }),
  });
}

// Side by side where there is room (one column on a phone): returns the two columns.
function pairIn(doc, section, cls) {
  const left = h(doc, 'div', { class: 'ae-gpt-col' });
  const right = h(doc, 'div', { class: 'ae-gpt-col' });
  section.append(h(doc, 'div', { class: `ae-gpt-pair ${cls}` }, left, right));
  return [left, right];
}

// Every head (with the exports below it) beside the one enlarged; returns the two columns.
function mountPictures(section, { doc, real, fig, part, setGpt, ctx, folds }) {
  const [gridColumn, enlargedColumn] = pairIn(doc, section, 'ae-gpt-pictures');
  fig.grid = headGrid.render(part(gridColumn, 'grid'), {
    ...ctx,
    onPick: (layer, head) => {
      if (folds.big) folds.big.open = true;
      setGpt({ layer, head, picture: 'head' });
    },
  });
  fig.saving = exportsView.render(part(gridColumn, null), { doc, stem: () => real.info?.name || 'model' });
  fig.big = enlarged.render(part(enlargedColumn, 'big'), { doc, onPicture: (picture) => setGpt({ picture }) });
  return [gridColumn, enlargedColumn];
}

// What each head does, measured when its box opens. Returns rolesPart(): a figure of the roles
// part measures them at once, once (the whole section: when the box opens). shown(): the parts.
function mountRoles(section, { doc, run, part, ctx }, shown) {
  const rolesBox = h(doc, 'details', { class: 'ae-details ae-gpt-roles' }, h(doc, 'summary', {}, TEXT.roles));
  const roleView = roles.render(rolesBox, ctx);
  rolesBox.addEventListener(
    'toggle',
    () => rolesBox.open && run.measureRoles().then((r) => r && roleView.update({ roles: r })),
  );
  part(section, 'roles').append(rolesBox);
  let rolesOpened = false;
  return () => {
    if (!rolesOpened && !shown().whole && shown().figures.has('roles')) rolesOpened = rolesBox.open = true;
  };
}

// What a head does (issue 32): the chosen prediction and head, knocked out, attributed, read
// layer by layer. The choice is the state's (state.gpt.prediction, in the link), apart from the
// head the grid shows; their answers redraw only these figures.
function mountInterpret(section, { doc, app, real, run, fig, part, gptOf, setGpt, endpoint, openHub, ctx, folds }) {
  const { store } = app;
  const interpret = createInterpretRun({
    call: (op, ...args) => real.call(op, ...args),
    config: () => real.info.config,
    model: () => real.info, // a new object for each model opened
    onChange: () => drawInterpret(app, run, interpret, fig),
  });
  // The prediction and the head knocked out are the state's (state.gpt.prediction: a link carries
  // them); a field left out is the opening prediction and the head that changes it most
  // (interpret-run.js).
  fig.prediction = () => gptOf().prediction ?? {};
  const choose = (patch) => {
    const next = choosePrediction(fig.prediction(), patch, interpret.choice);
    setGpt({ prediction: Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)) });
    drawInterpret(app, run, interpret, fig, true);
  };
  // The opening's findings with the whole section; the tools, a part of their own (gpt-tools).
  const interpretBox = h(doc, 'div', { class: 'ae-gpt-interpret' });
  section.append(interpretBox);
  fig.interpretBox = interpretBox;
  fig.opening = openingView.render(part(interpretBox, null), {
    doc,
    // The head named, chosen and enlarged as a pick in the grid chooses it (on a phone, its fold
    // opens); the pictures scroll into view.
    onShow: (layer, head) => {
      if (folds.big) folds.big.open = true;
      setGpt({ layer, head, picture: 'head' });
      section.querySelector('.ae-gpt-pictures')?.scrollIntoView({ block: 'start' });
    },
    onLearn: app.sections?.some((s) => s.id === 'learn')
      ? () => {
          store.set({ learn: defaultLearn('repeat') });
          app.goTo('learn');
        }
      : null,
    // GPT-2 small from the Hub, as its preset in the picker opens it; the picker (its progress and
    // Cancel, or the size to agree to first) scrolls into view.
    gpt2: PRESETS[0],
    onGpt2: () => {
      openHub({ kind: 'hub', endpoint: endpoint(), repo: PRESETS[0].repo, revision: 'main' });
      section.querySelector('.ae-gpt-about')?.scrollIntoView({ block: 'center' });
    },
  });
  fig.rolesText = () => gptOf().sentence + ' ' + gptOf().bank.a + ' ' + gptOf().bank.b;
  // The tools one click deeper (the opening above says what they found): the page stays within
  // its height (issue 30) and a post's whole-section figure stays readable.
  const tools = h(doc, 'details', { class: 'ae-details ae-gpt-tools' }, h(doc, 'summary', {}, TEXT.tools));
  part(interpretBox, 'tools').append(tools);
  fig.toolsBox = tools;
  tools.addEventListener('toggle', () => tools.open && drawInterpret(app, run, interpret, fig, true));
  // Each tool a part of its own (view="gpt-knockout", "gpt-attribution", "gpt-lens"; all three:
  // "gpt-tools"). Where the section is narrow (a phone) and shows more than one, one at a time, the
  // one chosen above them (explorer.css), as the roles' tables do.
  const toolBox = (kind) => {
    const box = part(tools, kind);
    box.classList.add('ae-gpt-tool');
    return box;
  };
  const boxes = Object.fromEntries(Object.keys(TEXT.toolNames).map((kind) => [kind, toolBox(kind)]));
  const pick = narrowChooser(doc, {
    legend: TEXT.toolPick,
    choices: Object.entries(TEXT.toolNames),
    value: 'knockout',
    boxes,
    className: 'ae-gpt-tool-pick',
  });
  boxes.knockout.before(pick.el);
  fig.knockout = knockout.render(boxes.knockout, {
    ...ctx,
    onChoose: choose,
    onSweep: () => interpret.startSweep(),
    onCancel: () => interpret.cancelSweep(),
  });
  fig.attribution = attributionView.render(boxes.attribution, ctx);
  fig.lens = lensView.render(boxes.lens, ctx);
  // The chooser offers the tools shown (none when one is).
  fig.syncTools = (shown) => pick.offer(Object.keys(TEXT.toolNames).filter((k) => shown.whole || shown.figures.has(k)));
  fig.interpret = interpret;
}

// The next token beside the generation that appends it (with its KV cache); returns the columns.
function mountWriting(section, { doc, real, run, fig, part, gptOf, setGpt, ctx }) {
  const [nextColumn, kvColumn] = pairIn(doc, section, 'ae-gpt-writing');
  fig.next = nextToken.render(part(nextColumn, 'next'), {
    ...ctx,
    onOptions: (patch) => setGpt(patch),
    onAppend: async (token) => {
      const text = await real.call('decode', [token]);
      setGpt({ sentence: gptOf().sentence + text });
    },
  });
  fig.kv = kvCache.render(part(kvColumn, 'kv'), {
    ...ctx,
    onStep: (count) => run.generate(count),
    onReset: () => run.resetGeneration(),
  });
  return [nextColumn, kvColumn];
}

// The bank example measured right (lib/real/sense-separation.js), its sentences editable; then
// (the bank chart, after it) the raw cosine of two uses, which the measure corrects.
function mountSenses(section, { doc, app, run, fig, part, ctx }) {
  fig.sensesSpec = {
    word: DEFAULT_SENSES.word,
    senses: DEFAULT_SENSES.senses.map((s) => ({ name: s.name, sentences: [...s.sentences] })),
  };
  const senseBox = h(doc, 'details', { class: 'ae-details ae-gpt-senses' }, h(doc, 'summary', {}, TEXT.senses));
  part(section, 'senses').append(senseBox);
  fig.senseBox = senseBox;
  senseBox.addEventListener('toggle', () => senseBox.open && drawInterpret(app, run, fig.interpret, fig));
  fig.senseChart = senseChart.render(senseBox, {
    ...ctx,
    onMeasure: (spec) => {
      fig.sensesSpec = spec;
      fig.interpret.measureSenses(spec);
    },
  });
}

// The page's Hub endpoint: ?hf-endpoint=<url> (as huggingface_hub's HF_ENDPOINT), else Hugging
// Face. A bad value is said in a notice, naming it, and the default is kept. Not in an element
// (its hf-endpoint attribute goes with its model attribute).
function hubEndpointOf(app) {
  if (app.embedded) return DEFAULT_ENDPOINT;
  const text = new URLSearchParams(app.win?.location?.search ?? '').get('hf-endpoint');
  if (text === null) return DEFAULT_ENDPOINT;
  try {
    return endpointOf(text);
  } catch (error) {
    app.notify(
      `hf-endpoint=${text.slice(0, 60)}: ${error.message.replace(/^endpoint: /, '')}; using ${DEFAULT_ENDPOINT}`,
    );
    return DEFAULT_ENDPOINT;
  }
}

// What the run holds, drawn into the figures (fig) the view shows (shown: lib/real/gpt-parts.js):
// the model's name, the sentence's tokens, the options, the bank chart, then — once the model has
// run — every head, the enlarged picture, the exports and the generation.
function draw(app, real, run, fig, shown) {
  const g = app.state.gpt || defaultGpt();
  const { picture, generation } = run;
  const on = (figure) => shown.figures.has(figure);
  if (on('pick')) fig.pick.update({ info: real.info, error: real.error, opening: real.opening, loading: real.loading });
  if (on('tokens')) fig.tokens.update({ sentence: g.sentence, pieces: picture?.pieces });
  fig.big.sync(g.picture);
  // The options show their values before the model has run.
  if (on('next')) fig.next.update({ options: g, next: picture?.next ?? null });
  if (on('bank')) fig.bank.update({ bank: g.bank, ...run.bank });
  if (!picture) return;
  const { trace: t, pieces } = picture;
  const theme = app.container.dataset.theme === 'dark' ? 'dark' : 'light';
  const chosen = { layer: picture.layer, head: picture.head };
  if (on('grid')) fig.grid.update({ weights: t.weights, L: t.L, H: t.H, T: t.T, chosen, theme });
  const labels = pieces.map((p, i) => `${i}:${p.display.replace(/ /g, '␣')}`);
  if (shown.whole)
    fig.saving.update({ labels, weights: t.weights, L: t.L, H: t.H, T: t.T, chosen, tiles: fig.grid.canvases() });
  if (on('big')) fig.big.update({ picture: g.picture, trace: t, labels, chosen });
  if (on('kv'))
    fig.kv.update({
      sentence: g.sentence,
      generated: generation.tokens,
      step: generation.step,
      chosen,
      totals: generation.totals,
    });
  // A figure of the tools or the bank measure alone shows them open (the whole section: a click).
  if (!shown.whole) {
    if (on('tools')) fig.toolsBox.open = true;
    if (on('senses')) fig.senseBox.open = true;
  }
  if (shown.whole || on('tools') || on('senses')) drawInterpret(app, run, fig.interpret, fig, true);
}

// A mean ablation's reference text: the bank measure's default sentences, both senses.
const REFERENCE = DEFAULT_SENSES.senses.flatMap((s) => s.sentences).join(' ');

// The "what a head does" figures, from the interpretability run's answers; `ask`: the choice may
// have changed (the run asks only for what did), and a small model sweeps unasked.
function drawInterpret(app, run, interpret, fig, ask = false) {
  const picture = run.picture;
  if (!picture) return;
  // What is folded is not computed: the bank measure and the tools run once their box is open.
  if (fig.senseBox.open) {
    interpret.measureSenses(fig.sensesSpec);
    fig.senseChart.update({ spec: fig.sensesSpec, senses: interpret.senses });
  }
  interpret.measureRoles(fig.rolesText());
  const roles = interpret.roles;
  fig.opening.update({ claims: roles && openingClaims(roles, roles.tokens) });
  if (!fig.toolsBox.open) {
    fig.interpretBox.setAttribute('aria-busy', String(!roles));
    return;
  }
  const asked = () => {
    interpret.choose(picture.ids, { ...fig.prediction(), reference: REFERENCE });
  };
  if (ask) asked();
  else if (interpret.sweepsUnasked && interpret.sweep.phase !== 'running') interpret.startSweep();
  else if (interpret.sweep.phase === 'finished' && fig.prediction().head === undefined) asked();
  const choice = interpret.choice;
  // Drawn only for the sentence on screen (a new one's choice is still being made).
  if (!choice || choice.ids.length !== picture.ids.length || choice.ids.some((id, i) => id !== picture.ids[i])) {
    fig.interpretBox.setAttribute('aria-busy', 'true');
    return;
  }
  // Busy while an answer for the choice on screen (or the sweep) is still coming.
  const { ablation, attribution, lens, error } = interpret.answers;
  const busy = !error && (!ablation || !attribution || !lens || interpret.sweep.phase === 'running');
  fig.interpretBox.setAttribute('aria-busy', String(busy));
  const theme = app.container.dataset.theme === 'dark' ? 'dark' : 'light';
  const config = { layers: picture.trace.L, heads: picture.trace.H };
  const { answers } = interpret;
  fig.knockout.update({
    pieces: picture.pieces,
    choice,
    answers,
    sweep: interpret.sweep,
    sweepKey: interpret.sweepKey,
    config,
    reference: REFERENCE,
    theme,
  });
  fig.attribution.update({ attribution: answers.attribution, config, theme });
  fig.lens.update({ lens: answers.lens, pieces: picture.pieces, config, theme });
}

// A real language model on the reader's own sentence: the project's own small model (trained here
// on public-domain English, shipped with the package) or a GPT-2 checkpoint from the reader's
// computer or a URL. The sentence as tokens, every layer × head as small multiples, one head
// enlarged with its numbers (or the mean over a layer's heads, or the rollout across layers),
// what each head does, measured, the next token with temperature, top-k and top-p, generation one
// token at a time with the KV cache drawn, and the bank example on real weights. The model runs
// in a worker (tools/model-host.js); this file composes the figures (views/gpt/*.js).
import { h } from '../ui/dom.js';
import { createHeatmap } from '../ui/heatmap.js';
import { defaultGpt, GPT_LIMITS } from '../lib/real/gpt-state.js';
import { realModelOf } from '../tools/real-model.js';
import * as picker from './gpt/model-picker.js';
import * as tokensView from './gpt/tokens.js';
import * as headGrid from './gpt/head-grid.js';
import * as headHeatmap from './learn/head-heatmap.js';
import * as roles from './gpt/roles.js';
import * as nextToken from './gpt/next-token.js';
import * as kvCache from './gpt/kv-cache.js';
import * as bankChart from './gpt/bank-chart.js';
import * as exportsView from './gpt/exports.js';

const TEXT = {
  title: 'A real language model',
  intro:
    'Everything so far ran on hand-set numbers and tiny models. Here is a language model trained on real English, running on a sentence you type: the same attention, every number computed in your browser.',
  pictures: { head: 'one head', mean: 'mean of the layer’s heads', rollout: 'rollout across layers' },
  picture: 'Enlarged:',
  reading:
    'Rows are queries, columns are keys: row i is where token i looks (its weights sum to 1); each label is position:token.',
  rollout:
    'Attention rollout multiplies each layer’s mean attention (mixed half and half with the identity, for the residual connection) from the first layer up: a rough map of which input tokens each position’s final vector draws on. It leaves out the MLPs, the values’ sizes and the output projections, so it is not an explanation of the prediction.',
  mean: 'The mean over the heads of the layer: where the layer as a whole looks.',
  roles: 'What each head does, measured (runs the model on a text and on random sequences)',
  loading: 'This section needs the model; it opens when the section comes on screen.',
};

export function render(section, app) {
  const { doc, store } = app;
  const real = realModelOf(app);
  const gptOf = () => store.get().gpt || defaultGpt();
  const setGpt = (patch) => store.set({ gpt: { ...gptOf(), ...patch } });
  const ctx = { doc, app };
  const status = h(doc, 'p', { class: 'ae-help ae-gpt-status', 'aria-live': 'polite' }, TEXT.loading);
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), h(doc, 'p', { class: 'ae-prose' }, TEXT.intro));
  const pick = picker.render(section, {
    ...ctx,
    onFiles: (files, heads) => {
      real.openFiles(files, heads).then(
        () => (gptOf().model.kind === 'file' ? run(true) : setGpt({ model: { kind: 'file' } })),
        () => draw(),
      );
    },
    onShipped: () => setGpt({ model: { kind: 'shipped' } }),
  });
  section.append(status);
  const tokens = tokensView.render(section, {
    ...ctx,
    onSentence: (sentence) => {
      // The box stops typing at its limit; pasted-in-by-script text is refused here, by name.
      if (sentence.length < 1 || sentence.length > GPT_LIMITS.sentenceChars) {
        say(
          `sentence: ${sentence.length} characters; type 1 to ${GPT_LIMITS.sentenceChars} (the sentence on screen stays)`,
        );
        draw();
        return;
      }
      setGpt({ sentence });
    },
  });
  // Side by side where there is room: every head beside the one enlarged, the next token beside
  // the generation that appends it (one column on a phone).
  const pair = (cls) => {
    const left = h(doc, 'div', { class: 'ae-gpt-col' });
    const right = h(doc, 'div', { class: 'ae-gpt-col' });
    section.append(h(doc, 'div', { class: `ae-gpt-pair ${cls}` }, left, right));
    return [left, right];
  };
  const [gridColumn, enlargedColumn] = pair('ae-gpt-pictures');
  const grid = headGrid.render(gridColumn, {
    ...ctx,
    onPick: (layer, head) => setGpt({ layer, head, picture: 'head' }),
  });
  const saving = exportsView.render(gridColumn, { doc, stem: () => real.info?.name || 'model' });
  // The enlarged picture: one head (with its softmax explained), the layer's mean, or the rollout.
  const modeName = `gpt-picture-${Math.random().toString(36).slice(2, 7)}`;
  const modes = h(
    doc,
    'fieldset',
    { class: 'ae-radio ae-gpt-modes' },
    h(doc, 'legend', {}, TEXT.picture),
    ...Object.entries(TEXT.pictures).map(([value, label]) =>
      h(
        doc,
        'span',
        {},
        h(doc, 'input', {
          type: 'radio',
          name: modeName,
          id: `${modeName}-${value}`,
          value,
          onchange: () => setGpt({ picture: value }),
        }),
        h(doc, 'label', { for: `${modeName}-${value}` }, label),
      ),
    ),
  );
  const enlarged = h(doc, 'div', { class: 'ae-gpt-enlarged' });
  enlargedColumn.append(modes, h(doc, 'p', { class: 'ae-help' }, TEXT.reading), enlarged);
  const head = headHeatmap.render(enlarged, { doc, id: 'gpt-head' });
  const summary = createHeatmap(doc, {
    id: 'gpt-summary',
    caption: '',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    kind: 'weights',
    digits: 2,
  });
  const summaryNote = h(doc, 'p', { class: 'ae-help' });
  summary.el.hidden = summaryNote.hidden = true; // until the reader picks the mean or the rollout
  enlarged.append(summary.el, summaryNote);
  const rolesBox = h(doc, 'details', { class: 'ae-details ae-gpt-roles' }, h(doc, 'summary', {}, TEXT.roles));
  const roleView = roles.render(rolesBox, ctx);
  rolesBox.addEventListener('toggle', () => rolesBox.open && showRoles());
  section.append(rolesBox);
  const [nextColumn, kvColumn] = pair('ae-gpt-writing');
  const next = nextToken.render(nextColumn, {
    ...ctx,
    onOptions: (patch) => setGpt(patch),
    onAppend: async (token) => {
      const text = await real.call('decode', [token]);
      setGpt({ sentence: gptOf().sentence + text });
    },
  });
  const kv = kvCache.render(kvColumn, {
    ...ctx,
    onStep: (count) => generate(count),
    onReset: () => resetGeneration(),
  });
  const bank = bankChart.render(section, { ...ctx, onBank: (b) => setGpt({ bank: b }) });

  // --- running the model ------------------------------------------------------------------------
  let seen = null; // the picture's inputs last drawn
  let picture = null; // {ids, pieces, trace}
  let version = 0;
  const say = (text) => (status.textContent = text);
  async function run(force = false) {
    const g = gptOf();
    const key = JSON.stringify([
      g.model,
      g.sentence,
      g.layer,
      g.head,
      g.temperature,
      g.topK,
      g.topP,
      g.seed,
      real.info?.name,
    ]);
    if (!force && key === seen) return draw();
    seen = key;
    const mine = ++version;
    try {
      await real.ensure(store.get());
      const c = real.info.config;
      const layer = Math.min(g.layer, c.layers - 1),
        headIndex = Math.min(g.head, c.heads - 1);
      say('Running the model…');
      const encoded = await real.call('encode', g.sentence);
      const trace = await real.call('trace', encoded.ids, { layer, head: headIndex });
      const dist = await real.call('next', trace.logits, {
        temperature: g.temperature,
        topK: g.topK,
        topP: g.topP,
        seed: g.seed,
        top: 10,
      });
      if (mine !== version) return;
      picture = { ...encoded, trace, next: dist, layer, head: headIndex };
      say(
        `${encoded.ids.length} tokens through ${c.layers} layers (${real.host.mode === 'worker' ? 'in a worker' : 'on the page'}).`,
      );
      resetGeneration(false);
      draw();
      if (!bankResult && !bankError) compareBank();
    } catch (error) {
      if (mine !== version) return;
      say(`The model could not run on this sentence: ${error.message}`);
      pick.update({ info: real.info, error: real.error, opening: real.opening });
    }
  }

  function draw() {
    const g = gptOf();
    pick.update({ info: real.info, error: real.error, opening: real.opening });
    tokens.update({ sentence: g.sentence, pieces: picture?.pieces });
    for (const input of modes.querySelectorAll('input')) input.checked = input.value === g.picture;
    // The options show their values before the model has run.
    next.update({ options: g, next: picture?.next ?? null });
    bank.update({ bank: g.bank, result: bankResult, error: bankError });
    if (!picture) return;
    const { trace: t, pieces } = picture;
    const theme = app.container.dataset.theme === 'dark' ? 'dark' : 'light';
    const chosen = { layer: picture.layer, head: picture.head };
    grid.update({ weights: t.weights, L: t.L, H: t.H, T: t.T, chosen, theme });
    const labels = pieces.map((p, i) => `${i}:${p.display.replace(/ /g, '␣')}`);
    saving.update({ labels, weights: t.weights, L: t.L, H: t.H, T: t.T, chosen, tiles: grid.canvases() });
    const T = t.T;
    const rows = (flat, offset = 0) =>
      Array.from({ length: T }, (_, i) => Array.from(flat.subarray(offset + i * T, offset + (i + 1) * T)));
    head.el.hidden = g.picture !== 'head';
    summary.el.hidden = g.picture === 'head';
    summaryNote.hidden = g.picture === 'head';
    if (g.picture === 'head') {
      const base = (chosen.layer * t.H + chosen.head) * T * T;
      head.update({
        layer: { weights: [rows(t.weights, base)], scores: [rows(t.chosen.scores)] },
        chosen: { layer: chosen.layer, head: 0 },
        hs: t.chosen.hs,
        labels,
        caption: `Layer ${chosen.layer + 1}, head ${chosen.head + 1}`,
      });
    } else {
      const mean = g.picture === 'mean';
      summary.update({
        values: mean ? rows(t.mean, chosen.layer * T * T) : rows(t.rollout),
        rowLabels: labels,
        colLabels: labels,
        masked: (i, j) => j > i,
        cornerLabel: 'query \\ key',
        caption: mean ? `Layer ${chosen.layer + 1}, mean of ${t.H} heads` : `Rollout over ${t.L} layers`,
      });
      summaryNote.textContent = mean ? TEXT.mean : TEXT.rollout;
    }
    kv.update({ sentence: g.sentence, generated, step: lastStep, chosen, totals });
  }

  // --- generation with a KV cache ---------------------------------------------------------------
  let generated = [];
  let lastStep = null;
  let totals = { cached: 0, full: 0 };
  let generating = false;
  function resetGeneration(redraw = true) {
    generated = [];
    lastStep = null;
    totals = { cached: 0, full: 0 };
    real.call('stopGenerating').catch(() => {});
    if (redraw) draw();
  }
  async function generate(count) {
    if (!picture || generating) return;
    generating = true;
    try {
      const g = gptOf();
      if (!generated.length)
        await real.call('generate', picture.ids, {
          temperature: g.temperature,
          topK: g.topK,
          topP: g.topP,
          seed: g.seed,
        });
      for (let n = 0; n < count; n++) {
        const s = await real.call('step');
        generated.push({ token: s.token, text: s.text });
        totals = { cached: totals.cached + s.macs.cached, full: totals.full + s.macs.full };
        const labels = [...picture.pieces.map((p) => p.display), ...generated.map((x) => x.text)].map((t) =>
          t.replace(/ /g, '␣'),
        );
        lastStep = { ...s, keyLabels: labels.slice(-s.keys) };
        draw();
      }
    } catch (error) {
      say(`Generation stopped: ${error.message}`);
    } finally {
      generating = false;
    }
  }

  // --- what each head does; the bank example ---------------------------------------------------
  let rolesShown = null;
  async function showRoles() {
    if (!real.info || rolesShown === real.info) return;
    rolesShown = real.info;
    try {
      roleView.update({
        roles: await real.call('roles', gptOf().sentence + ' ' + gptOf().bank.a + ' ' + gptOf().bank.b),
      });
    } catch (error) {
      rolesShown = null;
      say(`The head scores could not be measured: ${error.message}`);
    }
  }
  let bankResult = null;
  let bankError = null;
  let bankKey = null;
  async function compareBank() {
    const b = gptOf().bank;
    const key = JSON.stringify([b, real.info?.name]);
    if (key === bankKey) return;
    bankKey = key;
    try {
      bankResult = await real.call('bank', b);
      bankError = null;
    } catch (error) {
      bankResult = null;
      bankError = error.message;
    }
    draw();
  }

  // The model opens once the section comes near the screen (the whole engine is loaded by then).
  let started = false;
  const io = app.win.IntersectionObserver
    ? new app.win.IntersectionObserver(
        (entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            started = true;
            io.disconnect();
            run();
          }
        },
        { rootMargin: '300px 0px' },
      )
    : null;
  if (io) io.observe(section);
  else started = true;
  const unsubscribe = real.subscribe(() => draw());
  return {
    update() {
      if (!started) return draw();
      run().then(() => compareBank());
    },
    destroy() {
      io?.disconnect();
      unsubscribe();
    },
  };
}

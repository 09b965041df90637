// A real language model on the reader's own sentence: the project's own small model (trained here
// on public-domain English, shipped with the package) or a GPT-2 checkpoint from the reader's
// computer or a URL. The sentence as tokens, every layer × head as small multiples, one head
// enlarged with its numbers (or the mean over a layer's heads, or the rollout across layers),
// what each head does, measured, the next token with temperature, top-k and top-p, generation one
// token at a time with the KV cache drawn, and the bank example on real weights. The model runs
// in a worker (tools/real-model.js), driven by lib/real/gpt-run.js; this file composes the
// figures (views/gpt/*.js) and draws what the run holds.
import { h } from '../ui/dom.js';
import { whenNear } from '../ui/on-screen.js';
import { defaultGpt, GPT_LIMITS } from '../lib/real/gpt-state.js';
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
import { foldOnPhone } from '../ui/fold.js';

const TEXT = {
  title: 'A real language model',
  intro:
    'Everything so far ran on hand-set numbers and tiny models. Here is a language model trained on real English, running on a sentence you type: the same attention, every number computed in your browser.',
  roles: 'What each head does, measured (runs the model on a text and on random sequences)',
  loading: 'This section needs the model; it opens when the section comes on screen.',
  tooLong: (n) => `sentence: ${n} characters; type 1 to ${GPT_LIMITS.sentenceChars} (the sentence on screen stays)`,
  status: {
    running: () => 'Running the model…',
    ran: (s) =>
      `${s.tokens} tokens through ${s.layers} layers (${s.mode === 'worker' ? 'in a worker' : 'on the page'}).`,
    failed: (s) => `The model could not run on this sentence: ${s.message}`,
    'generation-stopped': (s) => `Generation stopped: ${s.message}`,
    'roles-failed': (s) => `The head scores could not be measured: ${s.message}`,
  },
};

export function render(section, app) {
  const { doc, store } = app;
  const real = realModelOf(app);
  const gptOf = () => store.get().gpt || defaultGpt();
  const setGpt = (patch) => store.set({ gpt: { ...gptOf(), ...patch } });
  const status = h(doc, 'p', { class: 'ae-help ae-gpt-status', 'aria-live': 'polite' }, TEXT.loading);
  const fig = {};
  const redraw = () => draw(app, real, run, fig);
  const run = createGptRun({
    real,
    state: () => store.get(),
    gpt: gptOf,
    onChange: () => redraw(),
    onStatus: (s) => {
      status.textContent = TEXT.status[s.kind](s);
      if (s.kind === 'failed') fig.pick.update({ info: real.info, error: real.error, opening: real.opening });
    },
  });

  const ctx = { doc, app };
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), h(doc, 'p', { class: 'ae-prose' }, TEXT.intro));
  fig.pick = picker.render(section, {
    ...ctx,
    onFiles: (files, heads) => {
      real.openFiles(files, heads).then(
        () => (gptOf().model.kind === 'file' ? run.run(true) : setGpt({ model: { kind: 'file' } })),
        () => redraw(),
      );
    },
    onShipped: () => setGpt({ model: { kind: 'shipped' } }),
  });
  section.append(status);
  fig.tokens = tokensView.render(section, {
    ...ctx,
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
  // Side by side where there is room: every head beside the one enlarged, the next token beside
  // the generation that appends it (one column on a phone).
  const pair = (cls) => {
    const left = h(doc, 'div', { class: 'ae-gpt-col' });
    const right = h(doc, 'div', { class: 'ae-gpt-col' });
    section.append(h(doc, 'div', { class: `ae-gpt-pair ${cls}` }, left, right));
    return [left, right];
  };
  const [gridColumn, enlargedColumn] = pair('ae-gpt-pictures');
  let bigFold = null; // on a phone, the enlarged head folds: a pick opens it
  fig.grid = headGrid.render(gridColumn, {
    ...ctx,
    onPick: (layer, head) => {
      if (bigFold) bigFold.open = true;
      setGpt({ layer, head, picture: 'head' });
    },
  });
  fig.saving = exportsView.render(gridColumn, { doc, stem: () => real.info?.name || 'model' });
  fig.big = enlarged.render(enlargedColumn, { doc, onPicture: (picture) => setGpt({ picture }) });
  const rolesBox = h(doc, 'details', { class: 'ae-details ae-gpt-roles' }, h(doc, 'summary', {}, TEXT.roles));
  const roleView = roles.render(rolesBox, ctx);
  rolesBox.addEventListener(
    'toggle',
    () => rolesBox.open && run.measureRoles().then((r) => r && roleView.update({ roles: r })),
  );
  section.append(rolesBox);
  const [nextColumn, kvColumn] = pair('ae-gpt-writing');
  fig.next = nextToken.render(nextColumn, {
    ...ctx,
    onOptions: (patch) => setGpt(patch),
    onAppend: async (token) => {
      const text = await real.call('decode', [token]);
      setGpt({ sentence: gptOf().sentence + text });
    },
  });
  fig.kv = kvCache.render(kvColumn, {
    ...ctx,
    onStep: (count) => run.generate(count),
    onReset: () => run.resetGeneration(),
  });
  fig.bank = bankChart.render(section, { ...ctx, onBank: (b) => setGpt({ bank: b }) });
  // On a phone: the sentence, every head, the next token and the bank example; the exports, the
  // enlarged head's numbers (wider than a phone) and the KV cache one tap deeper.
  foldOnPhone(app, 'Save the pictures (PNG, SVG)', [gridColumn.querySelector('.ae-gpt-export')]);
  bigFold = foldOnPhone(app, 'One head enlarged, with its numbers', [enlargedColumn]);
  foldOnPhone(app, 'Generating one token at a time, with a KV cache', [kvColumn]);

  // The model opens once the section comes near the screen (the whole engine is loaded by then).
  const near = whenNear(app.win, section, () => run.run(), { margin: '300px 0px' });
  const unsubscribe = real.subscribe(() => redraw());
  return {
    update() {
      if (!near.started) return redraw();
      run.run().then(() => run.compareBank());
    },
    destroy() {
      near.stop();
      unsubscribe();
    },
  };
}

// What the run holds, drawn into the figures (fig): the model's name, the sentence's tokens, the
// options, the bank chart, then — once the model has run — every head, the enlarged picture, the
// exports and the generation.
function draw(app, real, run, fig) {
  const g = app.state.gpt || defaultGpt();
  const { picture, generation } = run;
  fig.pick.update({ info: real.info, error: real.error, opening: real.opening });
  fig.tokens.update({ sentence: g.sentence, pieces: picture?.pieces });
  fig.big.sync(g.picture);
  // The options show their values before the model has run.
  fig.next.update({ options: g, next: picture?.next ?? null });
  fig.bank.update({ bank: g.bank, ...run.bank });
  if (!picture) return;
  const { trace: t, pieces } = picture;
  const theme = app.container.dataset.theme === 'dark' ? 'dark' : 'light';
  const chosen = { layer: picture.layer, head: picture.head };
  fig.grid.update({ weights: t.weights, L: t.L, H: t.H, T: t.T, chosen, theme });
  const labels = pieces.map((p, i) => `${i}:${p.display.replace(/ /g, '␣')}`);
  fig.saving.update({ labels, weights: t.weights, L: t.L, H: t.H, T: t.T, chosen, tiles: fig.grid.canvases() });
  fig.big.update({ picture: g.picture, trace: t, labels, chosen });
  fig.kv.update({
    sentence: g.sentence,
    generated: generation.tokens,
    step: generation.step,
    chosen,
    totals: generation.totals,
  });
}

// Learn: the reader trains a small transformer (the engine's nanoGPT-compatible model) and
// watches its attention form: a task (copy, reverse, sort, repeat, the bank sentences, your own
// text), its settings, train / pause / step / new model at a pace (watch, fast, slow motion), a loss
// curve with a held-out evaluation every few steps, every layer's and head's attention on one
// example, the chosen head enlarged, the bank probe, samples and prompts for the text model,
// checkpoints.
//
// The run is lib/learn/run.js (a state machine over tools/trainer.js: a worker, or time slices on
// the page); this file composes the section's figures (views/learn/*.js) and draws what the run
// reports. Settings live in state.learn, so a link carries them and the step count, and a page
// opened from a link retrains to that step.
import { h, uid } from '../ui/dom.js';
import { whenNear } from '../ui/on-screen.js';
import * as headHeatmap from '../ui/head-heatmap.js';
import { createTrainer } from '../tools/trainer.js';
import { threadSettingOf } from '../tools/threads.js';
import { download } from '../tools/download.js';
import { defaultLearn } from '../lib/learn/learn-state.js';
import { createLearnRun, safeTask } from '../lib/learn/run.js';
import * as controls from './learn/controls.js';
import * as loss from './learn/loss.js';
import { createStatus } from './learn/status.js';
import * as headGrid from './learn/head-grid.js';
import * as bankProbe from './learn/bank-probe.js';
import * as textBox from './learn/text-box.js';
import * as files from './learn/files.js';
import { foldOnPhone } from '../ui/fold.js';

const TEXT = {
  title: 'Learn: watch attention being learned',
  intro:
    'Everything above used weights set by hand. Here a small transformer (the same layers as nanoGPT: embeddings, attention, an MLP, LayerNorm) starts from random weights and learns them from examples, one batch at a time, in this page. Pick a task, press Train, and watch the loss fall and the attention pattern appear: at the task’s own pace until the pattern has formed, or fast, or one step at a time.',
  introAlone:
    'A small transformer (nanoGPT’s layers) starts from random weights and learns them from examples, in this page. Press Train and watch the loss fall and the attention pattern appear.',
  empty: 'No model yet.',
  heatmapOf: (c, step) =>
    `Attention weights, layer ${c.layer + 1}, head ${c.head + 1}, step ${step} (rows: queries, columns: keys; labels read position:token)`,
};

export function render(section, app) {
  // The section's figures (built below) and the run that drives them.
  const f = { section, cost: { drawnAt: -Infinity, ms: 0 } };
  const run = createRun(app, f);
  build(section, app, run, f);
  sync(app, run, f);
  // The first model is made once the section comes on screen (a link's step count is retrained
  // then), so a page that never scrolls here — or a post with several training figures the
  // reader has not reached — starts no worker.
  const near = whenNear(app.win, section, () => run.start());
  const start = () => {
    near.stop();
    run.start();
  };
  section.addEventListener('pointerdown', start, { once: true });
  section.addEventListener('focusin', start, { once: true });
  return {
    update: () => sync(app, run, f),
    destroy() {
      near.stop();
      run.dispose();
    },
  };
}

// The run (lib/learn/run.js) over a trainer (a worker, or time slices on the page), drawing into f.
function createRun(app, f) {
  const { win, store } = app;
  const frame = win.requestAnimationFrame?.bind(win) || ((fn) => win.setTimeout(fn, 16));
  let progress = null; // slices arrive faster than frames: the latest, drawn once per frame
  const run = createLearnRun({
    store,
    makeTrainer: (handlers) =>
      createTrainer({ engine: async () => app.engine, makeWorker: app.learnWorker, win, ...handlers }),
    threads: threadSettingOf(app),
    now: () => win.performance.now(),
    field: {
      until: () => f.ui.until.value,
      setUntil: (text) => (f.ui.until.value = text),
    },
    view: {
      sync: () => sync(app, run, f),
      clear: () => clearPictures(app, f),
      progress(p) {
        if (!progress)
          frame(() => {
            const { steps, stepsPerSecond, mode } = progress;
            progress = null;
            f.chart.draw(run.history, run.untilStep());
            f.status.show(steps, stepsPerSecond, mode);
          });
        progress = p;
      },
      report: (force) => drawReport(app, run, f, force),
      say: (text) => f.ui.say(text),
      sample: (sampled) => f.text.showSample(sampled),
      retraining: (steps) => f.status.retraining(steps),
      threads: () => f.status.again(),
    },
  });
  return run;
}

function build(section, app, run, f) {
  const { doc, win } = app;
  const learnOf = () => app.state.learn || defaultLearn();
  const field = (label, input) => {
    const id = uid('learn');
    input.id = id;
    return h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', input);
  };
  const button = (label, onclick, cls = '') =>
    h(doc, 'button', { type: 'button', class: `ae-btn ${cls}`, onclick }, label);
  const ctx = { doc, app, field, button };
  f.intro = h(doc, 'p', { class: 'ae-prose' }, TEXT.intro);
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), f.intro);
  f.ui = controls.render(section, {
    ...ctx,
    onTask: (task) => run.switchTask(task),
    onSetting: (key, value) => run.setting(key, value),
    onPlay: () => run.togglePlay(),
    onStep: () => run.stepOnce(),
    onReset: () => run.restart(),
    onSpeed: (choice) => run.speed(choice),
  });
  f.status = createStatus(f.ui.status, { doc, win, run, embedded: app.embedded });
  const pictures = h(doc, 'div', { class: 'ae-row' });
  section.append(pictures);
  f.chart = loss.render(pictures, ctx);
  f.heatmap = headHeatmap.render(pictures, ctx);
  f.emptyNote = h(doc, 'p', { class: 'ae-help ae-learn-empty' }, TEXT.empty);
  section.append(f.emptyNote);
  f.grid = headGrid.render(section, {
    ...ctx,
    onPick: (layer, head) => run.pick(layer, head),
    title: () => `${run.live?.task?.title ?? 'Learn'}, step ${run.report?.step ?? 0}`,
    stem: () => `learn ${learnOf().task}`,
  });
  foldOnPhone(app, 'Save the attention pictures (PNG, SVG)', [section.querySelector('.ae-learn-lines-export')]);
  f.bank = bankProbe.render(section, {
    ...ctx,
    onFromSeed: (on) => run.setFromSeed(on),
    onSentences: (value) => run.sentences(value),
  });
  f.text = textBox.render(section, { ...ctx, onText: (t) => run.text(t), onPrompt: (t) => run.prompt(t) });
  files.render(section, {
    ...ctx,
    onExport: async () => {
      const saved = await run.checkpoint();
      if (saved) download(doc, saved.name, saved.bytes);
    },
    onImport: (file) => run.importCheckpoint(file),
  });
}

function sync(app, run, f) {
  const learn = app.state.learn || defaultLearn();
  const view = app.state.view;
  // Alone in a figure (the element's learn:<task>), the section drops what refers to the page;
  // view="model" without "learn" shows the model's pictures and how to train it, no more.
  f.intro.textContent = view.includes('all') ? TEXT.intro : TEXT.introAlone;
  f.section.classList.toggle(
    'ae-learn-model-only',
    view.includes('model') && !view.includes('learn') && !view.includes('all'),
  );
  f.ui.update({ learn, task: safeTask(learn), needsRestart: run.needsRestart, running: run.running });
  f.bank.update({ learn, bank: null });
  f.text.update({ learn });
  if (!run.live) f.chart.empty({ until: Number(f.ui.until.value) || learn.until, task: safeTask(learn) });
}

function clearPictures(app, f) {
  f.grid.clear();
  f.heatmap.clear();
  f.bank.clear();
  f.text.clear();
  f.emptyNote.hidden = false;
  const learn = app.state.learn || defaultLearn();
  f.chart.empty({ until: Number(f.ui.until.value) || learn.until, task: safeTask(learn) });
}

// The pictures cost more with more layers, heads and tokens (the text model draws thousands of
// lines): while training they are redrawn at most once per 10× their own drawing time, so the
// page keeps its frames; a paused run, one watched at 20 steps a second or slower, a prompt or a
// pick draws them at once.
function drawReport(app, run, f, force) {
  const { report, live } = run;
  if (!report || !live) return;
  const now = () => app.win.performance.now();
  f.emptyNote.hidden = true;
  f.status.show(report.step, 0, live.trainer.mode);
  f.chart.draw(run.history, run.untilStep());
  const t = now();
  const slow = run.pace <= 20;
  if (force || slow || !live.trainer.running || t - f.cost.drawnAt >= 10 * f.cost.ms) {
    const { attention, labels, chosen, step } = run.picture();
    f.grid.update({ attention, labels, chosen });
    f.heatmap.update({ layer: attention[chosen.layer], chosen, labels, caption: TEXT.heatmapOf(chosen, step) });
    f.cost.drawnAt = now();
    f.cost.ms = f.cost.drawnAt - t;
  }
  f.bank.update({
    learn: app.state.learn || defaultLearn(),
    bank: report.bank,
    first: run.firstReport?.bank,
    step: report.step,
    vocab: live.task.vocab,
    history: run.history.cosine,
    until: run.untilStep() ?? 0,
  });
}

// Learn: the reader trains a small transformer (the engine's nanoGPT-compatible model) and
// watches its attention form: a task (copy, reverse, sort, repeat, the bank sentences, your own
// text), its settings, train / pause / step / new model at a speed down to slow motion, a loss
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

const TEXT = {
  title: 'Learn: watch attention being learned',
  intro:
    'Everything above used weights set by hand. Here a small transformer (the same layers as nanoGPT: embeddings, attention, an MLP, LayerNorm) starts from random weights and learns them from examples, one batch at a time, in this page. Pick a task, press Train, and watch the loss fall and the attention patterns appear — at full speed, or in slow motion one step at a time.',
  introAlone:
    'A small transformer (nanoGPT’s layers) starts from random weights and learns them from examples, in this page. Press Train and watch the loss fall and the attention pattern appear.',
  empty: 'No model yet.',
  heatmapOf: (c, step) => `Attention weights, layer ${c.layer + 1}, head ${c.head + 1} (step ${step})`,
};

export function render(section, app) {
  const { doc, store, win } = app;
  const learnOf = () => store.get().learn || defaultLearn();
  const frame = win.requestAnimationFrame?.bind(win) || ((f) => win.setTimeout(f, 16));
  const now = () => win.performance.now();
  const field = (label, input) => {
    const id = uid('learn');
    input.id = id;
    return h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', input);
  };
  const button = (label, onclick, cls = '') =>
    h(doc, 'button', { type: 'button', class: `ae-btn ${cls}`, onclick }, label);
  const ctx = { doc, app, field, button };

  // --- the run -------------------------------------------------------------------------------
  let progress = null; // slices arrive faster than frames: the latest, drawn once per frame
  const run = createLearnRun({
    store,
    makeTrainer: (handlers) =>
      createTrainer({ engine: async () => app.engine, makeWorker: app.learnWorker, win, ...handlers }),
    threads: threadSettingOf(app),
    now,
    field: {
      until: () => ui.until.value,
      setUntil: (text) => (ui.until.value = text),
      speed: () => ui.speedValue(),
    },
    view: {
      sync: () => sync(),
      clear: () => clearPictures(),
      progress(p) {
        if (!progress) frame(() => progressDrawn());
        progress = p;
      },
      report: (force) => drawReport(force),
      say: (text) => ui.say(text),
      sample: (sampled) => text.showSample(sampled),
      retraining: (steps) => status.retraining(steps),
      threads: () => status.again(),
    },
  });
  function progressDrawn() {
    const p = progress;
    progress = null;
    chart.draw(run.history, run.untilStep());
    status.show(p.steps, p.stepsPerSecond, p.mode);
  }

  // --- the figures ---------------------------------------------------------------------------
  const intro = h(doc, 'p', { class: 'ae-prose' }, TEXT.intro);
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), intro);
  const ui = controls.render(section, {
    ...ctx,
    onTask: (task) => run.switchTask(task),
    onSetting: (key, value) => run.setting(key, value),
    onPlay: () => run.togglePlay(),
    onStep: () => run.stepOnce(),
    onReset: () => run.restart(),
    onSpeed: (stepsPerSecond) => run.speed(stepsPerSecond),
  });
  const status = createStatus(ui.status, { doc, win, run });
  const pictures = h(doc, 'div', { class: 'ae-row' });
  section.append(pictures);
  const chart = loss.render(pictures, ctx);
  const heatmap = headHeatmap.render(pictures, ctx);
  const emptyNote = h(doc, 'p', { class: 'ae-help ae-learn-empty' }, TEXT.empty);
  section.append(emptyNote);
  const grid = headGrid.render(section, {
    ...ctx,
    onPick: (layer, head) => run.pick(layer, head),
    title: () => `${run.live?.task?.title ?? 'Learn'}, step ${run.report?.step ?? 0}`,
    stem: () => `learn ${learnOf().task}`,
  });
  const bank = bankProbe.render(section, {
    ...ctx,
    onFromSeed: (on) => run.setFromSeed(on),
    onSentences: (value) => run.sentences(value),
  });
  const text = textBox.render(section, { ...ctx, onText: (t) => run.text(t), onPrompt: (t) => run.prompt(t) });
  files.render(section, {
    ...ctx,
    onExport: async () => {
      const saved = await run.checkpoint();
      if (saved) download(doc, saved.name, saved.bytes);
    },
    onImport: (file) => run.importCheckpoint(file),
  });

  function sync() {
    const learn = learnOf();
    const view = store.get().view;
    // Alone in a figure (the element's learn:<task>), the section drops what refers to the page;
    // view="model" without "learn" shows the model's pictures and how to train it, no more.
    intro.textContent = view.includes('all') ? TEXT.intro : TEXT.introAlone;
    section.classList.toggle(
      'ae-learn-model-only',
      view.includes('model') && !view.includes('learn') && !view.includes('all'),
    );
    ui.update({ learn, task: safeTask(learn), needsRestart: run.needsRestart, running: run.running });
    bank.update({ learn, bank: null });
    text.update({ learn });
    if (!run.live) chart.empty({ until: Number(ui.until.value) || learn.until, task: safeTask(learn) });
  }
  function clearPictures() {
    grid.clear();
    heatmap.clear();
    bank.clear();
    text.clear();
    emptyNote.hidden = false;
    const learn = learnOf();
    chart.empty({ until: Number(ui.until.value) || learn.until, task: safeTask(learn) });
  }

  // The pictures cost more with more layers, heads and tokens (the text model draws thousands of
  // lines): while training they are redrawn at most once per 10× their own drawing time, so the
  // page keeps its frames; a paused run, a slow-motion one, a prompt or a pick draws them at once.
  const cost = { drawnAt: -Infinity, ms: 0 };
  function drawReport(force) {
    const { report, live } = run;
    if (!report || !live) return;
    emptyNote.hidden = true;
    status.show(report.step, 0, live.trainer.mode);
    chart.draw(run.history, run.untilStep());
    const t = now();
    const slow = Number.isFinite(ui.speedValue());
    if (force || slow || !live.trainer.running || t - cost.drawnAt >= 10 * cost.ms) {
      const { attention, labels, chosen, step } = run.picture();
      grid.update({ attention, labels, chosen });
      heatmap.update({ layer: attention[chosen.layer], chosen, labels, caption: TEXT.heatmapOf(chosen, step) });
      cost.drawnAt = now();
      cost.ms = cost.drawnAt - t;
    }
    bank.update({
      learn: learnOf(),
      bank: report.bank,
      first: run.firstReport?.bank,
      step: report.step,
      vocab: live.task.vocab,
      history: run.history.cosine,
      until: run.untilStep() ?? 0,
    });
  }

  // The first model is made once the section comes on screen (a link's step count is retrained
  // then), so a page that never scrolls here — or a post with several training figures the
  // reader has not reached — starts no worker.
  sync();
  const near = whenNear(win, section, () => run.start());
  const start = () => {
    near.stop();
    run.start();
  };
  section.addEventListener('pointerdown', start, { once: true });
  section.addEventListener('focusin', start, { once: true });
  return {
    update: () => sync(),
    destroy() {
      near.stop();
      run.dispose();
    },
  };
}

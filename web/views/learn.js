// Learn: the reader trains a small transformer (the engine's nanoGPT-compatible model) and
// watches its attention form. This file composes the section's figures (views/learn/*.js) and
// owns the run: a task (copy, reverse, sort, repeat, the bank sentences, your own text), its
// settings, train / pause / step / new model at a speed down to slow motion, a loss curve with a
// held-out evaluation every few steps, every layer's and head's attention on one example, the
// chosen head enlarged, the bank probe, samples and prompts for the text model, checkpoints.
//
// Training runs in tools/trainer.js (a worker, or time slices on the page); this view draws what
// it reports. Settings live in state.learn (lib/learn/learn-state.js), so a link carries them and
// the step count, and a page opened from a link retrains to that step.
import { h, uid } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { createLossChart } from '../ui/loss-chart.js';
import { createTrainer } from '../tools/trainer.js';
import { threadSettingOf, THREADS_HELP_URL } from '../tools/threads.js';
import { download } from '../tools/download.js';
import { LEARN_LIMITS } from '../lib/limits.js';
import { taskFor } from '../lib/learn/session.js';
import { defaultLearn, sessionSpec, sanitizeLearn, checkSentences } from '../lib/learn/learn-state.js';
import { bestBankHead, evalInterval, positionLabels } from '../lib/learn/view.js';
import * as controls from './learn/controls.js';
import * as headGrid from './learn/head-grid.js';
import * as headHeatmap from './learn/head-heatmap.js';
import * as bankProbe from './learn/bank-probe.js';
import * as textBox from './learn/text-box.js';
import * as files from './learn/files.js';

const TEXT = {
  title: 'Learn: watch attention being learned',
  intro:
    'Everything above used weights set by hand. Here a small transformer (the same layers as nanoGPT: embeddings, attention, an MLP, LayerNorm) starts from random weights and learns them from examples, one batch at a time, in this page. Pick a task, press Train, and watch the loss fall and the attention patterns appear — at full speed, or in slow motion one step at a time.',
  introAlone:
    'A small transformer (nanoGPT’s layers) starts from random weights and learns them from examples, in this page. Press Train and watch the loss fall and the attention pattern appear.',
  chart: 'Loss, step by step (dots: held-out evaluations)',
  empty: 'No model yet.',
  heatmapOf: 'Attention weights',
  fromLink: (n) => `Retraining to step ${n}, as the link says (same seed, same batches: the same weights).`,
  onPage: 'training on the page, 1 thread',
  inWorker: 'training in a worker',
  onThreads: (n) => `training on ${n} thread${n === 1 ? '' : 's'}`,
  notIsolated: 'training on 1 thread: this page is not cross-origin isolated',
  notIsolatedLink: 'why',
  oneThread: (why) => `training on 1 thread: ${why}`,
};

export function render(section, app) {
  const { doc, store } = app;
  const learnOf = () => store.get().learn || defaultLearn();
  let live = null; // the run: {key, task, trainer, imported}
  let report = null;
  let firstReport = null;
  let chosen = { layer: 0, head: 0 };
  let pickedByReader = false; // the bank task opens on its best head until the reader picks one
  let promptTokens = null;
  const history = { train: [], held: [], cosine: [] };

  // --- the shared little builders -------------------------------------------------------------
  const field = (label, input) => {
    const id = uid('learn');
    input.id = id;
    return h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', input);
  };
  const button = (label, onclick, cls = '') =>
    h(doc, 'button', { type: 'button', class: `ae-btn ${cls}`, onclick }, label);
  const ctx = { doc, app, field, button };

  // --- the figures ----------------------------------------------------------------------------
  const intro = h(doc, 'p', { class: 'ae-prose' }, TEXT.intro);
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), intro);
  const ui = controls.render(section, {
    ...ctx,
    onTask: (task) => switchTask(task),
    onSetting: (key, value) => setLearn({ ...learnOf(), [key]: value }),
    onPlay: () => togglePlay(),
    onStep: () => stepOnce(),
    onReset: () => restart(),
    onSpeed: (stepsPerSecond) => live?.trainer.watch({ stepsPerSecond }),
  });
  const chart = createLossChart(doc, {
    series: [
      { id: 'train', label: 'training batches' },
      { id: 'held', label: 'held-out examples', markers: true },
    ],
    caption: TEXT.chart,
  });
  const emptyNote = h(doc, 'p', { class: 'ae-help ae-learn-empty' }, TEXT.empty);
  chart.el.classList.add('ae-learn-chart');
  const pictures = h(doc, 'div', { class: 'ae-row' }, chart.el);
  section.append(pictures);
  const heatmap = headHeatmap.render(pictures, ctx);
  section.append(emptyNote);
  const grid = headGrid.render(section, {
    ...ctx,
    onPick: (layer, head) => {
      chosen = { layer, head };
      pickedByReader = true;
      drawReport(true);
    },
    title: () => `${live?.task?.title ?? 'Learn'}, step ${report?.step ?? 0}`,
    stem: () => `learn ${learnOf().task}`,
  });
  const bank = bankProbe.render(section, {
    ...ctx,
    onFromSeed: (on) => setLearn({ ...learnOf(), fromSeed: on }),
    onSentences: (text) => applySentences(text),
  });
  const text = textBox.render(section, {
    ...ctx,
    onText: (t) => applyText(t),
    onPrompt: (t) => showPrompt(t),
  });
  files.render(section, {
    ...ctx,
    onExport: () => exportCheckpoint(),
    onImport: (file) => importCheckpoint(file),
  });

  // --- state ---------------------------------------------------------------------------------
  const specKey = (learn) => JSON.stringify(sessionSpec(learn));
  function setLearn(next) {
    const out = sanitizeLearn(next);
    if (out.problems.length) {
      ui.say(out.problems.join('; '));
      sync();
      return false;
    }
    ui.say(null);
    store.set({ learn: { ...out.learn, steps: live?.key === specKey(out.learn) ? out.learn.steps : 0 } });
    return true;
  }
  // Another task: its pictures replace the old task's at once (a new model at step 0).
  function switchTask(task) {
    if (!setLearn(defaultLearn(task))) return;
    clearPictures();
    restart();
  }
  function safeTask(learn) {
    try {
      return taskFor(sessionSpec(learn).task);
    } catch {
      return null;
    }
  }
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
    ui.update({
      learn,
      task: safeTask(learn),
      needsRestart: Boolean(live) && live.key !== specKey(learn),
      running: Boolean(live?.trainer.running),
    });
    bank.update({ learn, bank: null });
    text.update({ learn });
    if (!live) drawEmptyChart(learn);
  }
  function drawEmptyChart(learn) {
    const task = safeTask(learn);
    // Axes before any point: the run's length across, the loss of a uniform guess (ln V) up.
    chart.update(
      {},
      {
        x: Number(ui.until.value) || learn.until || task?.train.steps || 500,
        y: task ? Math.log(task.vocab.length) : 1,
      },
    );
  }
  function clearPictures() {
    report = firstReport = null;
    history.train = [];
    history.held = [];
    history.cosine = [];
    promptTokens = null;
    chosen = { layer: 0, head: 0 };
    pickedByReader = false;
    grid.clear();
    heatmap.clear();
    bank.clear();
    text.clear();
    emptyNote.hidden = false;
    drawEmptyChart(learnOf());
  }

  // --- training -----------------------------------------------------------------------------
  let progress = null;
  let progressFrame = 0;
  function newTrainer() {
    const trainer = createTrainer({
      engine: async () => app.engine,
      makeWorker: app.learnWorker,
      win: app.win,
      onProgress: ({ losses, steps, stepsPerSecond, mode }) => {
        if (live?.trainer !== trainer) return;
        for (const l of losses) history.train.push([l.step, l.loss]);
        thin(history.train);
        // Slices arrive faster than frames: draw at most once per frame.
        progress = { steps, stepsPerSecond, mode };
        if (!progressFrame) {
          progressFrame = (app.win.requestAnimationFrame || ((f) => app.win.setTimeout(f, 16)))(() => {
            progressFrame = 0;
            drawChart();
            showStatus(progress.steps, progress.stepsPerSecond, progress.mode);
          });
        }
      },
      onReport: (r) => applyReport(trainer, r),
      onStop: ({ reason, message: why }) => {
        if (live?.trainer !== trainer) return;
        sync();
        if (reason === 'diverged')
          ui.say(
            `Training stopped at step ${trainer.steps}: ${why}. The weights of the last good step are kept; lower the learning rate and press Train again.`,
          );
        else if (reason === 'failed') ui.say(`Training failed: ${why}`);
        saveSteps();
        sampleText();
      },
    });
    return trainer;
  }
  let sampledAt = -Infinity;
  function applyReport(trainer, r) {
    if (live?.trainer !== trainer || !r) return;
    // The text model writes a new sample every few seconds while it trains.
    if (trainer.running && app.win.performance.now() - sampledAt > 3000) {
      sampledAt = app.win.performance.now();
      sampleText();
    }
    report = r;
    firstReport ||= r;
    history.held.push([r.step, r.loss]);
    thin(history.held);
    if (r.bank) history.cosine.push([r.step, r.bank.cosine]);
    drawReport();
  }
  // Long runs keep at most ~1500 points per line: every other point of the older half goes.
  function thin(points) {
    if (points.length <= 1500) return;
    const half = points.length >> 1;
    const kept = points.slice(0, half).filter((_, n) => n % 2 === 0);
    points.splice(0, points.length, ...kept, ...points.slice(half));
  }
  function saveSteps() {
    if (!live) return;
    const learn = learnOf();
    if (live.key === specKey(learn) && learn.steps !== live.trainer.steps) {
      store.set({ learn: { ...learn, steps: live.trainer.steps } });
    }
  }
  const untilStep = () => {
    const n = Number(ui.until.value);
    return Number.isInteger(n) && n >= 1 && n <= LEARN_LIMITS.steps ? n : null;
  };
  const watchRun = (trainer) =>
    trainer.watch({ evalEvery: evalInterval(untilStep() ?? 500), stepsPerSecond: ui.speedValue() });

  // A new model (from the settings, or from checkpoint bytes). The run on screen is kept until
  // the new one has started, so a refused checkpoint or setting loses nothing.
  async function restart(checkpoint = null, retrainTo = 0) {
    const learn = learnOf();
    ui.say(null);
    const trainer = newTrainer();
    let first;
    try {
      live?.trainer.pause();
      first = await trainer.start(sessionSpec(learn), checkpoint);
    } catch (err) {
      trainer.dispose();
      ui.say(`${checkpoint ? 'Could not load the checkpoint' : 'Could not start a model'}: ${err.message}`);
      return false;
    }
    live?.trainer.dispose();
    live = { key: specKey(learn), task: safeTask(learn), trainer, imported: Boolean(checkpoint) };
    applyThreads(trainer);
    clearPictures();
    ui.until.value = String(retrainTo || learn.until || live.task?.train.steps || 500);
    watchRun(trainer);
    sync();
    applyReport(trainer, first);
    if (first.loadNote) ui.say(first.loadNote);
    if (learn.steps !== 0 && !retrainTo) store.set({ learn: { ...learn, steps: 0 } });
    if (retrainTo) {
      ui.status.textContent = TEXT.fromLink(retrainTo);
      // A link retrains at full speed, whatever the speed control says.
      trainer.watch({ stepsPerSecond: Infinity });
      await trainer.step(retrainTo);
      watchRun(trainer);
    }
    sampleText();
    return true;
  }

  async function togglePlay() {
    if ((!live || live.key !== specKey(learnOf())) && !(await restart())) return;
    const { trainer } = live;
    if (trainer.running) {
      trainer.pause();
      return;
    }
    let until = untilStep();
    if (until === null) {
      ui.say(`Train to step: expected a whole number in [1, ${LEARN_LIMITS.steps}], got ${ui.until.value}`);
      return;
    }
    if (until <= trainer.steps) {
      until = Math.min(LEARN_LIMITS.steps, trainer.steps + (live.task?.train.steps || 500));
      ui.until.value = String(until);
    }
    ui.say(null);
    watchRun(trainer);
    trainer.play(until);
    sync();
  }
  async function stepOnce() {
    if ((!live || live.key !== specKey(learnOf())) && !(await restart())) return;
    if (live.trainer.running) return;
    await live.trainer.step(1);
  }

  // Where the run trains and on how many threads (tools/threads.js): the worker says once it has
  // its engine, and again after every change of the engineers' setting.
  const threadSetting = threadSettingOf(app);
  let threadInfo = null;
  let lastStatus = null;
  function applyThreads(trainer) {
    trainer.threads(threadSetting.chosen).then(
      (info) => {
        if (live?.trainer !== trainer) return;
        threadInfo = info;
        threadSetting.report('learn', { ...info, mode: trainer.mode });
        if (lastStatus) showStatus(...lastStatus);
      },
      () => {},
    );
  }
  const stopThreads = threadSetting.subscribe((kind) => kind === 'chosen' && live && applyThreads(live.trainer));
  function whereItTrains(mode) {
    if (mode === 'page') return [TEXT.onPage];
    if (!threadInfo) return [TEXT.inWorker];
    if (threadInfo.maxThreads > 1) return [TEXT.onThreads(threadInfo.threads)];
    if (!app.win.crossOriginIsolated)
      return [
        TEXT.notIsolated,
        ' (',
        h(doc, 'a', { href: THREADS_HELP_URL, target: '_blank', rel: 'noopener' }, TEXT.notIsolatedLink),
        ')',
      ];
    return [TEXT.oneThread(threadInfo.singleThreadReason)];
  }

  function showStatus(steps, stepsPerSecond, mode) {
    lastStatus = [steps, stepsPerSecond, mode];
    const parts = [`step ${steps}`];
    if (stepsPerSecond) parts.push(`${fmt(stepsPerSecond, 0)} steps/s`);
    if (report) {
      parts.push(`held-out loss ${fmt(report.loss)}`);
      if (live?.task?.goal) parts.push(`accuracy ${fmt(report.accuracy * 100, 1)}% (goal ${live.task.goal * 100}%)`);
    }
    ui.status.replaceChildren(parts.join(' · '), ...(mode ? [' · ', ...whereItTrains(mode)] : []));
    // The numbers behind the sentence, for tests and for readers of the DOM.
    Object.assign(ui.status.dataset, { step: steps, mode: mode || '' });
    if (mode === 'page') ui.status.dataset.threads = 1;
    else if (threadInfo) ui.status.dataset.threads = threadInfo.threads;
    if (report)
      Object.assign(ui.status.dataset, { reportStep: report.step, loss: report.loss, accuracy: report.accuracy });
  }

  // --- drawing the report --------------------------------------------------------------------
  const drawChart = () =>
    chart.update({ train: history.train, held: history.held }, { x: untilStep() ?? 0, y: history.train[0]?.[1] });
  const cost = { drawnAt: -Infinity, ms: 0 };
  function drawReport(force = false) {
    if (!report || !live) return;
    emptyNote.hidden = true;
    showStatus(report.step, 0, live.trainer.mode);
    drawChart();
    if (report.bank && !pickedByReader) chosen = { layer: 0, head: bestBankHead(report.bank) };
    const attention = promptTokens && report.prompt ? report.prompt : report.attention;
    const tokens = promptTokens && report.prompt ? promptTokens : report.example.tokens;
    const labels = positionLabels(tokens, live.task?.vocab);
    // The pictures cost more with more layers, heads and tokens (the text model draws thousands of
    // lines): while training they are redrawn at most once per 10× their own drawing time, so the
    // page keeps its frames; a paused run, a slow-motion one, a prompt or a pick draws them at once.
    const now = app.win.performance.now();
    const slow = Number.isFinite(ui.speedValue());
    if (force || slow || !live.trainer.running || now - cost.drawnAt >= 10 * cost.ms) {
      chosen = {
        layer: Math.min(chosen.layer, attention.length - 1),
        head: Math.min(chosen.head, attention[0].weights.length - 1),
      };
      grid.update({ attention, labels, chosen });
      heatmap.update({
        layer: attention[chosen.layer],
        chosen,
        labels,
        caption: `${TEXT.heatmapOf}, layer ${chosen.layer + 1}, head ${chosen.head + 1} (step ${report.step})`,
      });
      cost.drawnAt = app.win.performance.now();
      cost.ms = cost.drawnAt - now;
    }
    bank.update({
      learn: learnOf(),
      bank: report.bank,
      first: firstReport?.bank,
      step: report.step,
      vocab: live.task.vocab,
      history: history.cosine,
      until: untilStep() ?? 0,
    });
  }

  // --- text: samples and prompts -------------------------------------------------------------
  let sampling = false;
  async function sampleText() {
    if (!live || learnOf().task !== 'text' || sampling) return;
    sampling = true;
    try {
      const start = live.task.vocab.indexOf('T') >= 0 ? [live.task.vocab.indexOf('T')] : [0];
      const ids = await live.trainer.generate(start, 120, { temperature: 0.8, seed: 1 });
      text.showSample(Array.from(ids, (t) => live.task.vocab[t] ?? '?').join(''));
    } catch (err) {
      text.showSample(`(no sample: ${err.message})`);
    } finally {
      sampling = false;
    }
  }
  async function showPrompt(value) {
    if (!live) return;
    if (!value) {
      promptTokens = null;
      drawReport(true);
      return;
    }
    const missing = [...value].filter((c) => !live.task.vocab.includes(c));
    if (missing.length) {
      ui.say(
        `Prompt: “${[...new Set(missing)].join('')}” is not in the text's characters; use characters the model has seen.`,
      );
      return;
    }
    const ids = [...value].slice(-live.task.context).map((c) => live.task.vocab.indexOf(c));
    try {
      report = { ...report, prompt: await live.trainer.attention(ids) };
      promptTokens = ids;
      ui.say(null);
      drawReport(true);
    } catch (err) {
      ui.say(`Prompt: ${err.message}`);
    }
  }
  function applyText(value) {
    if (value.length > LEARN_LIMITS.textChars) {
      ui.say(`Text: ${value.length} characters; at most ${LEARN_LIMITS.textChars}.`);
      return;
    }
    setLearn({ ...learnOf(), text: value });
  }
  function applySentences(value) {
    const sentences = value
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    const problem = checkSentences(sentences);
    if (problem) {
      ui.say(`Sentences: ${problem}`);
      return;
    }
    setLearn({ ...learnOf(), sentences });
  }

  // --- checkpoints ---------------------------------------------------------------------------
  async function exportCheckpoint() {
    if (!live && !(await restart())) return;
    try {
      const bytes = await live.trainer.checkpoint();
      download(doc, `attention-explorer-${learnOf().task}-step${live.trainer.steps}.safetensors`, bytes);
    } catch (err) {
      ui.say(`Export failed: ${err.message}`);
    }
  }
  async function importCheckpoint(file) {
    if (file.size > LEARN_LIMITS.checkpointBytes) {
      ui.say(`Checkpoint: ${file.name} is ${file.size} bytes; at most ${LEARN_LIMITS.checkpointBytes}.`);
      return;
    }
    await restart(new Uint8Array(await file.arrayBuffer()));
  }

  // --- lifecycle -----------------------------------------------------------------------------
  // The first model is made once the section comes on screen (a link's step count is retrained
  // then), so a page that never scrolls here — or a post with several training figures the
  // reader has not reached — starts no worker.
  sync();
  let started = false;
  const startOnce = () => {
    if (started) return;
    started = true;
    io?.disconnect();
    const learn = learnOf();
    restart(null, learn.steps).then(() => {
      if (learn.autoplay && live && live.trainer.steps < (learn.until ?? Infinity)) togglePlay();
    });
  };
  const io = app.win.IntersectionObserver
    ? new app.win.IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && startOnce())
    : null;
  if (io) io.observe(section);
  else startOnce();
  section.addEventListener('pointerdown', startOnce, { once: true });
  section.addEventListener('focusin', startOnce, { once: true });
  return {
    update() {
      sync();
    },
    destroy() {
      io?.disconnect();
      stopThreads();
      live?.trainer.dispose();
    },
  };
}

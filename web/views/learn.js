// Learn: the reader trains a small transformer (the engine's nanoGPT-compatible model) and
// watches its attention form. A task (copy, reverse, sort, repeat, the bank sentences, your own
// text), the model and training settings, train / pause / step / reset, a live loss curve (train
// and held-out), every layer's and head's attention on one example as lines, the chosen head as
// a heatmap whose cells explain themselves, the bank probe (where each "bank" looks, and how far
// apart the two end up), samples and prompts for the text model, checkpoints in and out.
//
// Training runs in tools/trainer.js (a worker, or time slices on the page); this view draws what
// it reports. Settings live in state.learn (lib/learn/learn-state.js), so a link carries them and
// the step count, and a page opened from a link retrains to that step.
import { h, uid } from '../ui/dom.js';
import { fmt } from '../lib/format.js';
import { createLossChart } from '../ui/loss-chart.js';
import { createAttentionLines } from '../ui/attention-lines.js';
import { createHeatmap } from '../ui/heatmap.js';
import { createTrainer } from '../tools/trainer.js';
import { download } from '../tools/download.js';
import { saveLines, saveGrid } from '../tools/lines-export.js';
import { linesLayout, gridLayout } from '../lib/lines-image.js';
import { fileStem } from '../lib/text.js';
import { LEARN_LIMITS } from '../lib/limits.js';
import { taskFor } from '../lib/learn/session.js';
import { LEARN_TASKS, defaultLearn, sessionSpec, sanitizeLearn, checkSentences } from '../lib/learn/learn-state.js';
import { BANK_SENTENCES, SAMPLE_TEXT } from '../lib/learn/corpus.js';

const TEXT = {
  title: 'Learn: watch attention being learned',
  intro:
    'Everything above used weights set by hand. Here a small transformer (the same layers as nanoGPT: embeddings, attention, an MLP, LayerNorm) starts from random weights and learns them from examples, one batch at a time, in this page. Pick a task, press Train, and watch the loss fall and the attention patterns appear.',
  task: 'Task',
  tasks: {
    copy: 'Copy the previous token',
    reverse: 'Reverse a sequence',
    sort: 'Sort digits',
    repeat: 'Repeat a sequence (induction, two layers)',
    bank: 'Bank, learned (next word)',
    text: 'Your own text (characters)',
  },
  expected: 'What to expect: ',
  train: 'Train',
  pause: 'Pause',
  step: 'Step',
  reset: 'New model',
  restartNeeded: 'These settings need a new model: press “New model” (the current one is kept until you do).',
  model: 'Model',
  layers: 'Layers',
  heads: 'Heads',
  width: 'Width',
  mlp: 'MLP',
  layerNorm: 'LayerNorm',
  lr: 'Learning rate',
  batch: 'Batch',
  seed: 'Seed',
  context: 'Context',
  untilStep: 'Train to step',
  chart: 'Loss, step by step',
  heatmapOf: 'Attention weights',
  grid: 'Every layer and head on one held-out example (rows: queries, lines to the keys they attend to)',
  exportLines: 'Save the chosen head’s lines',
  exportGrid: 'Every layer and head as one picture',
  bankTitle: 'Where does “bank” look?',
  bankIntro:
    'The seed’s two contexts, stream bank mud and money bank loan, through the learned model: the share of attention “bank” gives the word before it (the one that says which bank), and how alike the two “bank” outputs are (cosine similarity, as in the first section). At step 0 the model knows nothing (unless it starts from the seed’s weights, below); watch both move as it learns.',
  fromSeed: 'Start from the seed’s weights',
  seedTitle: 'Where the seed’s hand-set weights go',
  seedIntro:
    'This model started from seed 003’s numbers where the shapes allow: the five seed words’ embeddings begin with the seed’s four numbers, and head 1’s first query and key columns and first three value columns read them through the seed’s W_query, W_key and W_value (the rest starts at random, as usual). Each cell: the seed’s number → the learned one now. Training keeps what helps predict the next word and moves the rest.',
  sentences: 'Sentences (one per line)',
  apply: 'Use these sentences',
  textLabel: 'Text to learn from',
  useSample: 'Use the sample text',
  sample: 'A sample from the model',
  prompt: 'Prompt (see every head’s attention over it)',
  export: 'Export checkpoint (.safetensors)',
  import: 'Import checkpoint',
  importHelp:
    'A nanoGPT-compatible checkpoint (safetensors, the names of nanoGPT’s state_dict) whose vocabulary fits this task. A file saved by PyTorch records no config: its tensors give the sizes, and the Heads setting gives the head count. Exported files load in PyTorch with load_state_dict.',
  fromLink: (n) => `Retraining to step ${n}, as the link says (same seed, same batches: the same weights).`,
};

export function render(section, app) {
  const { doc, store } = app;
  const learnOf = () => store.get().learn || defaultLearn();
  let live = null; // the run: {spec key, task, trainer, history}
  let report = null;
  let firstReport = null;
  let chosen = { layer: 0, head: 0 };
  let promptTokens = null;
  const history = { train: [], held: [], cosine: [] };

  // --- controls -----------------------------------------------------------------------------
  const field = (label, input) => {
    const id = uid('learn');
    input.id = id;
    return h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: id }, label), ' ', input);
  };
  const taskSelect = h(
    doc,
    'select',
    { onchange: (e) => setLearn(defaultLearn(e.target.value)) },
    LEARN_TASKS.map((id) => h(doc, 'option', { value: id }, TEXT.tasks[id])),
  );
  const pattern = h(doc, 'p', { class: 'ae-help ae-learn-pattern' });
  const num = (key, attrs) =>
    h(doc, 'input', {
      type: 'number',
      ...attrs,
      onchange: (e) => setLearn({ ...learnOf(), [key]: Number(e.target.value) }),
    });
  const check = (key) =>
    h(doc, 'input', { type: 'checkbox', onchange: (e) => setLearn({ ...learnOf(), [key]: e.target.checked }) });
  const inputs = {
    layers: num('layers', { min: 1, max: LEARN_LIMITS.layers, step: 1 }),
    heads: num('heads', { min: 1, max: LEARN_LIMITS.heads, step: 1 }),
    width: num('width', { min: 1, max: LEARN_LIMITS.width, step: 1 }),
    mlp: check('mlp'),
    layerNorm: check('layerNorm'),
    lr: num('lr', { min: LEARN_LIMITS.lrMin, max: LEARN_LIMITS.lrMax, step: 'any' }),
    batch: num('batch', { min: 1, max: LEARN_LIMITS.batch, step: 1 }),
    seed: num('seed', { min: 0, max: 2 ** 31 - 1, step: 1 }),
    context: num('context', { min: 4, max: LEARN_LIMITS.context, step: 1 }),
  };
  const untilInput = h(doc, 'input', { type: 'number', min: 1, max: LEARN_LIMITS.steps, step: 1 });
  const contextField = field(TEXT.context, inputs.context);
  const settingsBox = h(
    doc,
    'div',
    { class: 'ae-learn-settings' },
    field(TEXT.layers, inputs.layers),
    field(TEXT.heads, inputs.heads),
    field(TEXT.width, inputs.width),
    field(TEXT.mlp, inputs.mlp),
    field(TEXT.layerNorm, inputs.layerNorm),
    field(TEXT.lr, inputs.lr),
    field(TEXT.batch, inputs.batch),
    field(TEXT.seed, inputs.seed),
    contextField,
    field(TEXT.untilStep, untilInput),
  );
  const button = (label, onclick, cls = '') =>
    h(doc, 'button', { type: 'button', class: `ae-btn ${cls}`, onclick }, label);
  const trainBtn = button(TEXT.train, () => togglePlay(), 'ae-learn-train');
  const stepBtn = button(TEXT.step, () => stepOnce(), 'ae-learn-step');
  const resetBtn = button(TEXT.reset, () => restart(), 'ae-learn-reset');
  const exportBtn = button(TEXT.export, () => exportCheckpoint(), 'ae-learn-export');
  const fileInput = h(doc, 'input', {
    type: 'file',
    accept: '.safetensors,application/octet-stream',
    class: 'ae-learn-import',
    onchange: (e) => importCheckpoint(e.target.files?.[0]),
  });
  const status = h(doc, 'p', { class: 'ae-learn-status', 'aria-live': 'polite' });
  const message = h(doc, 'p', { class: 'ae-learn-message', role: 'alert', hidden: true });
  const restartNote = h(doc, 'p', { class: 'ae-help ae-learn-restart', hidden: true }, TEXT.restartNeeded);

  const chart = createLossChart(doc, {
    series: [
      { id: 'train', label: 'training batches' },
      { id: 'held', label: 'held-out examples' },
    ],
    caption: TEXT.chart,
  });

  // --- the model view: lines per layer × head, and the chosen head as a heatmap ------------------
  const gridBox = h(doc, 'div', { class: 'ae-learn-grid ae-hm-scroll' });
  let gridCells = [];
  const explainLine = h(doc, 'p', { class: 'ae-help ae-learn-explain', 'aria-live': 'polite' });
  const heatmap = createHeatmap(doc, {
    id: 'learn-weights',
    caption: '',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    kind: 'weights',
    onExplain: (i, j) => explainWeight(i, j),
  });
  heatmap.el.hidden = true; // until the first report fills it

  // The chosen head's lines, or the whole grid of layers × heads, as a file (PNG 2× with the
  // weights inside, or SVG): what the grid shows, over the prompt when there is one.
  const exportStatus = h(doc, 'span', { class: 'ae-export-status', role: 'status', 'aria-live': 'polite' });
  const shown = () =>
    promptTokens && report.prompt
      ? { attention: report.prompt, tokens: promptTokens }
      : { attention: report.attention, tokens: report.example.tokens };
  const causal = (_, i, j) => j > i;
  const saveHead = async (kind) => {
    if (!report || !live) return;
    try {
      const { attention, tokens } = shown();
      const { layer, head } = chosen;
      const L = linesLayout({
        tokens: labelsOf(tokens),
        weights: [attention[layer].weights[head]],
        masked: causal,
        title: `${live.task.title}: layer ${layer + 1}, head ${head + 1}, step ${report.step}`,
      });
      await saveLines(doc, kind, L, fileStem(`learn ${learnOf().task} layer ${layer + 1} head ${head + 1}`));
      exportStatus.textContent = `${kind.toUpperCase()} saved`;
    } catch (error) {
      exportStatus.textContent = `Export failed: ${error.message}`;
    }
  };
  const saveAll = async (kind) => {
    if (!report || !live) return;
    try {
      const { attention, tokens } = shown();
      const G = gridLayout({
        tokens: labelsOf(tokens),
        attention: attention.map((layer) => layer.weights),
        masked: causal,
        title: `${live.task.title}: every layer and head, step ${report.step}`,
      });
      await saveGrid(doc, kind, G, fileStem(`learn ${learnOf().task} every head`));
      exportStatus.textContent = `${kind.toUpperCase()} of every head saved`;
    } catch (error) {
      exportStatus.textContent = `Export failed: ${error.message}`;
    }
  };
  const exportButton = (kind, save, what) =>
    h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-btn',
        'data-export': kind,
        'aria-label': `${what}: ${kind.toUpperCase()}`,
        onclick: () => save(kind),
      },
      kind.toUpperCase(),
    );
  const linesExport = h(
    doc,
    'div',
    { class: 'ae-export-actions ae-learn-lines-export', role: 'group', 'aria-label': TEXT.exportLines },
    h(doc, 'span', {}, `${TEXT.exportLines}: `),
    exportButton('png', saveHead, TEXT.exportLines),
    exportButton('svg', saveHead, TEXT.exportLines),
    h(
      doc,
      'span',
      { class: 'ae-learn-grid-export', role: 'group', 'aria-label': TEXT.exportGrid },
      ` ${TEXT.exportGrid}: `,
      exportButton('png', saveAll, TEXT.exportGrid),
      exportButton('svg', saveAll, TEXT.exportGrid),
    ),
    exportStatus,
  );

  // --- the bank probe ----------------------------------------------------------------------
  const bankTable = h(doc, 'table', { class: 'ae-learn-bank' });
  const bankChart = createLossChart(doc, {
    series: [{ id: 'cosine', label: 'cosine similarity of the two “bank” outputs' }],
    caption: 'How alike the two “bank”s are, by step',
    yLabel: 'cosine',
  });
  const fromSeedInput = h(doc, 'input', {
    type: 'checkbox',
    class: 'ae-learn-fromseed',
    onchange: (e) => setLearn({ ...learnOf(), fromSeed: e.target.checked }),
  });
  const seedTable = h(doc, 'table', { class: 'ae-learn-bank ae-learn-seed' });
  const seedBox = h(
    doc,
    'div',
    { class: 'ae-learn-seedbox', hidden: true },
    h(doc, 'h3', {}, TEXT.seedTitle),
    h(doc, 'p', {}, TEXT.seedIntro),
    h(doc, 'div', { class: 'ae-hm-scroll', tabindex: 0, role: 'region', 'aria-label': TEXT.seedTitle }, seedTable),
  );
  const sentencesArea = h(doc, 'textarea', { rows: 6, cols: 48, class: 'ae-learn-sentences', spellcheck: 'false' });
  const bankBox = h(
    doc,
    'div',
    { class: 'ae-learn-bankbox' },
    h(doc, 'h3', {}, TEXT.bankTitle),
    h(doc, 'p', {}, TEXT.bankIntro),
    h(doc, 'div', { class: 'ae-hm-scroll', tabindex: 0, role: 'region', 'aria-label': TEXT.bankTitle }, bankTable),
    bankChart.el,
    field(TEXT.fromSeed, fromSeedInput),
    seedBox,
    field(TEXT.sentences, sentencesArea),
    button(TEXT.apply, () => applySentences()),
  );

  // --- your own text -------------------------------------------------------------------------
  const textArea = h(doc, 'textarea', { rows: 6, cols: 48, class: 'ae-learn-text', spellcheck: 'false' });
  const sampleOut = h(doc, 'pre', { class: 'ae-learn-sample', 'aria-live': 'off' });
  const promptInput = h(doc, 'input', { type: 'text', class: 'ae-learn-prompt', maxlength: 64 });
  promptInput.addEventListener('change', () => showPrompt());
  const textBox = h(
    doc,
    'div',
    { class: 'ae-learn-textbox' },
    field(TEXT.textLabel, textArea),
    h(
      doc,
      'div',
      { class: 'ae-row' },
      button('Use this text', () => applyText()),
      button(TEXT.useSample, () => {
        textArea.value = SAMPLE_TEXT;
        applyText();
      }),
    ),
    h(doc, 'h3', {}, TEXT.sample),
    sampleOut,
    field(TEXT.prompt, promptInput),
  );

  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    h(doc, 'div', { class: 'ae-learn-task' }, field(TEXT.task, taskSelect), pattern),
    h(doc, 'details', { class: 'ae-learn-model' }, h(doc, 'summary', {}, TEXT.model), settingsBox),
    restartNote,
    h(doc, 'div', { class: 'ae-learn-buttons' }, trainBtn, stepBtn, resetBtn),
    status,
    message,
    h(doc, 'div', { class: 'ae-row' }, chart.el, h(doc, 'figure', { class: 'ae-learn-head' }, heatmap.el, explainLine)),
    h(doc, 'h3', {}, TEXT.grid),
    gridBox,
    linesExport,
    bankBox,
    textBox,
    h(
      doc,
      'div',
      { class: 'ae-learn-files' },
      exportBtn,
      h(doc, 'label', {}, `${TEXT.import} `, fileInput),
      h(doc, 'p', { class: 'ae-help' }, TEXT.importHelp),
    ),
  );

  // --- state ---------------------------------------------------------------------------------
  function setLearn(next) {
    const out = sanitizeLearn(next);
    if (out.problems.length) {
      say(out.problems.join('; '));
      syncInputs();
      return;
    }
    say(null);
    store.set({ learn: { ...out.learn, steps: live?.key === specKey(out.learn) ? out.learn.steps : 0 } });
  }
  const specKey = (learn) => JSON.stringify(sessionSpec(learn));
  function say(text) {
    message.hidden = !text;
    message.textContent = text || '';
  }

  function syncInputs() {
    const learn = learnOf();
    if (taskSelect.value !== learn.task) taskSelect.value = learn.task;
    const task = safeTask(learn);
    pattern.textContent = task ? TEXT.expected + task.pattern : '';
    for (const [k, input] of Object.entries(inputs)) {
      if (input === doc.activeElement) continue;
      if (input.type === 'checkbox') input.checked = Boolean(learn[k]);
      else if (learn[k] !== undefined) input.value = String(learn[k]);
    }
    contextField.hidden = learn.task !== 'text';
    if (untilInput !== doc.activeElement && !untilInput.value)
      untilInput.value = String(learn.until ?? task?.train.steps ?? 500);
    bankBox.hidden = learn.task !== 'bank';
    if (fromSeedInput !== doc.activeElement) fromSeedInput.checked = Boolean(learn.fromSeed);
    textBox.hidden = learn.task !== 'text';
    if (learn.task === 'bank' && sentencesArea !== doc.activeElement && !sentencesArea.value) {
      sentencesArea.value = (learn.sentences || BANK_SENTENCES).join('\n');
    }
    if (learn.task === 'text' && textArea !== doc.activeElement && !textArea.value) {
      textArea.value = learn.text || SAMPLE_TEXT;
    }
    restartNote.hidden = !live || live.key === specKey(learn);
  }
  function safeTask(learn) {
    try {
      return taskFor(sessionSpec(learn).task);
    } catch {
      return null;
    }
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
            chart.update({ train: history.train, held: history.held });
            showStatus(progress.steps, progress.stepsPerSecond, progress.mode);
          });
        }
      },
      onReport: (r) => applyReport(trainer, r),
      onStop: ({ reason, message: why }) => {
        if (live?.trainer !== trainer) return;
        trainBtn.textContent = TEXT.train;
        if (reason === 'diverged')
          say(
            `Training stopped at step ${trainer.steps}: ${why}. The weights of the last good step are kept; lower the learning rate and press Train again.`,
          );
        else if (reason === 'failed') say(`Training failed: ${why}`);
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

  // A new model (from the settings, or from checkpoint bytes). The run on screen is kept until
  // the new one has started, so a refused checkpoint or setting loses nothing.
  async function restart(checkpoint = null, retrainTo = 0) {
    const learn = learnOf();
    say(null);
    const trainer = newTrainer();
    let first;
    try {
      live?.trainer.pause();
      first = await trainer.start(sessionSpec(learn), checkpoint);
    } catch (err) {
      trainer.dispose();
      say(`${checkpoint ? 'Could not load the checkpoint' : 'Could not start a model'}: ${err.message}`);
      return false;
    }
    live?.trainer.dispose();
    live = { key: specKey(learn), task: safeTask(learn), trainer, imported: Boolean(checkpoint) };
    report = firstReport = null;
    history.train = [];
    history.held = [];
    history.cosine = [];
    chart.update({});
    gridCells = [];
    promptTokens = null;
    untilInput.value = String(retrainTo || learn.until || live.task?.train.steps || 500);
    syncInputs();
    applyReport(trainer, first);
    if (first.loadNote) say(first.loadNote);
    if (learn.steps !== 0 && !retrainTo) store.set({ learn: { ...learn, steps: 0 } });
    if (retrainTo) {
      status.textContent = TEXT.fromLink(retrainTo);
      await trainer.step(retrainTo);
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
    let until = Number(untilInput.value);
    if (!Number.isInteger(until) || until < 1 || until > LEARN_LIMITS.steps) {
      say(`Train to step: expected a whole number in [1, ${LEARN_LIMITS.steps}], got ${untilInput.value}`);
      return;
    }
    if (until <= trainer.steps) {
      until = Math.min(LEARN_LIMITS.steps, trainer.steps + (live.task?.train.steps || 500));
      untilInput.value = String(until);
    }
    say(null);
    trainBtn.textContent = TEXT.pause;
    trainer.play(until);
  }
  async function stepOnce() {
    if ((!live || live.key !== specKey(learnOf())) && !(await restart())) return;
    if (live.trainer.running) return;
    await live.trainer.step(1);
  }

  function showStatus(steps, stepsPerSecond, mode) {
    const parts = [`step ${steps}`];
    if (stepsPerSecond) parts.push(`${fmt(stepsPerSecond, 0)} steps/s`);
    if (report) {
      parts.push(`held-out loss ${fmt(report.loss)}`);
      if (live?.task?.goal) parts.push(`accuracy ${fmt(report.accuracy * 100, 1)}% (goal ${live.task.goal * 100}%)`);
    }
    if (mode) parts.push(mode === 'worker' ? 'training in a worker' : 'training on the page');
    status.textContent = parts.join(' · ');
    // The numbers behind the sentence, for tests and for readers of the DOM.
    Object.assign(status.dataset, { step: steps, mode: mode || '' });
    if (report)
      Object.assign(status.dataset, { reportStep: report.step, loss: report.loss, accuracy: report.accuracy });
  }

  // --- drawing the report --------------------------------------------------------------------
  const labelsOf = (tokens) => tokens.map((t, n) => `${n}:${live?.task?.vocab[t] ?? t}`);
  function drawReport() {
    if (!report || !live) return;
    showStatus(report.step, 0, live.trainer.mode);
    chart.update({ train: history.train, held: history.held });
    const attention = promptTokens && report.prompt ? report.prompt : report.attention;
    const tokens = promptTokens && report.prompt ? promptTokens : report.example.tokens;
    // The pictures cost more with more layers, heads and tokens (the text model draws thousands of
    // lines): while training they are redrawn at most once per 10× their own drawing time, so the
    // page keeps its frames; a paused run or a prompt draws them at once.
    const now = app.win.performance.now();
    if (!live.trainer.running || now - pictures.drawnAt >= 10 * pictures.cost) {
      drawGrid(attention, labelsOf(tokens));
      drawHead(attention, labelsOf(tokens));
      pictures.drawnAt = app.win.performance.now();
      pictures.cost = pictures.drawnAt - now;
    }
    if (report.bank) drawBank(report.bank);
  }
  const pictures = { drawnAt: -Infinity, cost: 0 };

  function drawGrid(attention, labels) {
    const L = attention.length;
    const H = attention[0]?.weights.length ?? 0;
    if (gridCells.length !== L * H) {
      gridBox.replaceChildren();
      gridBox.style.setProperty('--ae-learn-heads', String(H));
      gridCells = [];
      for (let l = 0; l < L; l++) {
        for (let hh = 0; hh < H; hh++) {
          const lines = createAttentionLines(doc, {
            compact: true,
            caption: `layer ${l + 1} · head ${hh + 1}`,
            label: `attention lines of layer ${l + 1}, head ${hh + 1}`,
          });
          const pick = h(
            doc,
            'button',
            {
              type: 'button',
              class: 'ae-btn ae-learn-pick',
              onclick: () => {
                chosen = { layer: l, head: hh };
                drawReport();
              },
            },
            'Show as heatmap',
          );
          const cell = h(doc, 'div', { class: 'ae-learn-cell', dataset: { layer: l, head: hh } }, lines.el, pick);
          gridBox.append(cell);
          gridCells.push({ lines, cell });
        }
      }
    }
    const theme = section.closest('.ae-root')?.dataset.theme === 'dark' ? 'dark' : 'light';
    gridCells.forEach(({ lines, cell }, n) => {
      const l = Math.floor(n / H),
        hh = n % H;
      cell.classList.toggle('ae-learn-chosen', l === chosen.layer && hh === chosen.head);
      lines.update({
        tokens: labels,
        weights: [attention[l].weights[hh]],
        theme,
        masked: (_, i, j) => j > i,
      });
    });
  }

  function drawHead(attention, labels) {
    const layer = attention[Math.min(chosen.layer, attention.length - 1)];
    const w = layer.weights[Math.min(chosen.head, layer.weights.length - 1)];
    heatmap.el.hidden = false;
    heatmap.update({
      caption: `${TEXT.heatmapOf}, layer ${chosen.layer + 1}, head ${chosen.head + 1} (step ${report.step})`,
      rowLabels: labels,
      colLabels: labels,
      values: w,
      kind: 'weights',
      masked: (i, j) => j > i,
      digits: 2,
      cornerLabel: 'query \\ key',
    });
  }

  function explainWeight(i, j) {
    if (i === null || i === undefined || !report) {
      explainLine.textContent = '';
      return;
    }
    const attention = promptTokens && report.prompt ? report.prompt : report.attention;
    const layer = attention[chosen.layer];
    const s = layer.scores[chosen.head][i];
    const w = layer.weights[chosen.head][i][j];
    if (j > i) {
      explainLine.textContent = `Position ${i} cannot look ahead at ${j}: the causal mask sets its score to −∞, its weight to 0.`;
      return;
    }
    const row = s.slice(0, i + 1);
    const max = Math.max(...row);
    const sum = row.reduce((a, x) => a + Math.exp(x - max), 0);
    explainLine.textContent = `weight[${i}][${j}] = exp(score ${fmt(s[j])} − max ${fmt(max)}) / Σ over the ${i + 1} visible keys (${fmt(sum)}) = ${fmt(Math.exp(s[j] - max) / sum)} (the engine: ${fmt(w)}); score = q·k/√d of the learned query and key.`;
  }

  function drawBank(bank) {
    const first = firstReport?.bank;
    const H = bank.contexts.river.onContext.length;
    const row = (name, key, word) =>
      h(
        doc,
        'tr',
        {},
        h(
          doc,
          'th',
          { scope: 'row' },
          `${bank.contexts[key].tokens.map((t) => live.task.vocab[t]).join(' ')} → “bank” on “${word}”`,
        ),
        ...Array.from({ length: H }, (_, hh) =>
          h(
            doc,
            'td',
            {
              dataset: {
                context: key,
                head: hh,
                first: first?.contexts[key].onContext[hh] ?? '',
                now: bank.contexts[key].onContext[hh],
              },
            },
            `${fmt(first?.contexts[key].onContext[hh] ?? NaN, 2)} → ${fmt(bank.contexts[key].onContext[hh], 2)}`,
          ),
        ),
      );
    bankTable.replaceChildren(
      h(doc, 'caption', {}, `Layer 1, step 0 → step ${report.step}`),
      h(
        doc,
        'thead',
        {},
        h(
          doc,
          'tr',
          {},
          h(doc, 'th', { scope: 'col' }, 'context'),
          ...Array.from({ length: H }, (_, hh) => h(doc, 'th', { scope: 'col' }, `head ${hh + 1}`)),
        ),
      ),
      h(
        doc,
        'tbody',
        {},
        row('river', 'river', 'stream'),
        row('finance', 'finance', 'money'),
        h(
          doc,
          'tr',
          {},
          h(doc, 'th', { scope: 'row' }, 'cosine similarity of the two “bank” outputs'),
          h(
            doc,
            'td',
            { class: 'ae-learn-cosine', colspan: H, dataset: { first: first?.cosine ?? '', now: bank.cosine } },
            `${fmt(first?.cosine ?? NaN)} → ${fmt(bank.cosine)}`,
          ),
        ),
      ),
    );
    bankChart.update({ cosine: history.cosine });
    drawSeedWeights(bank.seedWeights);
  }

  /** The seed's W_query, W_key, W_value block of head 1: the seed's number → the learned one. */
  function drawSeedWeights(seedWeights) {
    seedBox.hidden = !seedWeights;
    if (!seedWeights) return;
    const { start, now } = seedWeights;
    const parts = [
      ['W_query', 'wq'],
      ['W_key', 'wk'],
      ['W_value', 'wv'],
    ];
    seedTable.replaceChildren(
      h(doc, 'caption', {}, `Head 1, layer 1: the seed → step ${report.step}`),
      h(
        doc,
        'thead',
        {},
        h(
          doc,
          'tr',
          {},
          h(doc, 'td'),
          ...parts.map(([name, key]) => h(doc, 'th', { scope: 'colgroup', colspan: start[key][0].length }, name)),
        ),
        h(
          doc,
          'tr',
          {},
          h(doc, 'th', { scope: 'col' }, 'embedding number'),
          ...parts.flatMap(([, key]) => start[key][0].map((_, o) => h(doc, 'th', { scope: 'col' }, `column ${o + 1}`))),
        ),
      ),
      h(
        doc,
        'tbody',
        {},
        ...start.wq.map((_, i) =>
          h(
            doc,
            'tr',
            {},
            h(doc, 'th', { scope: 'row' }, String(i + 1)),
            ...parts.flatMap(([, key]) =>
              start[key][i].map((v, o) =>
                h(
                  doc,
                  'td',
                  { dataset: { matrix: key, row: i, col: o, first: v, now: now[key][i][o] } },
                  `${fmt(v, 2)} → ${fmt(now[key][i][o], 2)}`,
                ),
              ),
            ),
          ),
        ),
      ),
    );
  }

  // --- text: samples and prompts -------------------------------------------------------------
  let sampling = false;
  async function sampleText() {
    if (!live || learnOf().task !== 'text' || sampling) return;
    sampling = true;
    try {
      const start = live.task.vocab.indexOf('T') >= 0 ? [live.task.vocab.indexOf('T')] : [0];
      const ids = await live.trainer.generate(start, 120, { temperature: 0.8, seed: 1 });
      sampleOut.textContent = Array.from(ids, (t) => live.task.vocab[t] ?? '?').join('');
    } catch (err) {
      sampleOut.textContent = `(no sample: ${err.message})`;
    } finally {
      sampling = false;
    }
  }
  async function showPrompt() {
    if (!live) return;
    const text = promptInput.value;
    if (!text) {
      promptTokens = null;
      drawReport();
      return;
    }
    const missing = [...text].filter((c) => !live.task.vocab.includes(c));
    if (missing.length) {
      say(
        `Prompt: “${[...new Set(missing)].join('')}” is not in the text's characters; use characters the model has seen.`,
      );
      return;
    }
    const ids = [...text].slice(-live.task.context).map((c) => live.task.vocab.indexOf(c));
    try {
      report = { ...report, prompt: await live.trainer.attention(ids) };
      promptTokens = ids;
      say(null);
      drawReport();
    } catch (err) {
      say(`Prompt: ${err.message}`);
    }
  }
  function applyText() {
    const text = textArea.value;
    if (text.length > LEARN_LIMITS.textChars) {
      say(`Text: ${text.length} characters; at most ${LEARN_LIMITS.textChars}.`);
      return;
    }
    setLearn({ ...learnOf(), text });
  }
  function applySentences() {
    const sentences = sentencesArea.value
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    const problem = checkSentences(sentences);
    if (problem) {
      say(`Sentences: ${problem}`);
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
      say(`Export failed: ${err.message}`);
    }
  }
  async function importCheckpoint(file) {
    if (!file) return;
    if (file.size > LEARN_LIMITS.checkpointBytes) {
      say(`Checkpoint: ${file.name} is ${file.size} bytes; at most ${LEARN_LIMITS.checkpointBytes}.`);
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    fileInput.value = '';
    await restart(bytes);
  }

  // --- lifecycle -----------------------------------------------------------------------------
  // The first model is made once the section comes near the screen (a link's step count is
  // retrained then), so a page that never scrolls here starts no worker.
  syncInputs();
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
    ? new app.win.IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && startOnce(), {
        rootMargin: '200px 0px',
      })
    : null;
  if (io) io.observe(section);
  else startOnce();
  section.addEventListener('pointerdown', startOnce, { once: true });
  section.addEventListener('focusin', startOnce, { once: true });
  return {
    update() {
      syncInputs();
    },
    destroy() {
      io?.disconnect();
      live?.trainer.dispose();
    },
  };
}

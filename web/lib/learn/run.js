// The Learn section's training run, as a state machine its view subscribes to. The run's settings
// live in state.learn (lib/learn/learn-state.js), so a link carries them and the step count; this
// holds the run itself — the model on screen (live), its reports, the loss history, the head shown,
// a prompt — and turns the reader's actions into trainer requests (tools/trainer.js: a worker, or
// time slices on the page). Pure: no DOM; what it needs from the page comes in `deps`.
//
//   none ──start()/restart()──► ready (paused, step n) ──togglePlay()──► running ──► ready
//                                  ▲      └─stepOnce()─► one step ─┘       │ pause, reached
//                                  └────── a new model (settings, task, checkpoint) ◄─┘ diverged, failed
//
// A new model replaces the one on screen only once it has started, so a refused checkpoint or
// setting loses nothing. Unit-tested in tests/js/lib/learn/run.test.mjs with a fake trainer.
import { LEARN_LIMITS } from '../limits.js';
import { taskFor } from './session.js';
import { defaultLearn, sessionSpec, sanitizeLearn, checkSentences } from './learn-state.js';
import { bestBankHead, evalInterval, paceOf, positionLabels, thinPoints } from './view.js';
import { patternFormed } from './tasks.js';

/** Whether the run's task is learn's: the same settings need no new model. */
const specKey = (learn) => JSON.stringify(sessionSpec(learn));

/** learn's task, or null when its settings name none (the view shows no pattern then). */
export function safeTask(learn) {
  try {
    return taskFor(sessionSpec(learn).task);
  } catch {
    return null;
  }
}

/**
 * @param {{store: {get(), set(patch)}, makeTrainer(handlers): object, threads: object, now(): number,
 *          field: {until(): string, setUntil(text)},
 *          view: {sync(), clear(), progress({steps, stepsPerSecond, mode}), report(force), say(text|null),
 *                 sample(text), retraining(steps), threads()}}} deps
 *   makeTrainer: tools/trainer.js createTrainer with its engine and worker, given the handlers;
 *   threads: tools/threads.js's setting ({chosen, report(who, info), subscribe(fn)});
 *   field: the "Train to step" value as typed (the pace is state.learn.speed: lib/learn/view.js paceOf);
 *   view: what to redraw — report(force): the pictures (force: now, whatever they cost)
 * @returns {LearnRun}
 */
export function createLearnRun(deps) {
  return new LearnRun(deps);
}

class LearnRun {
  #deps;
  #live = null; // the run on screen: {key, task, trainer, imported}
  #report = null;
  #firstReport = null;
  #chosen = { layer: 0, head: 0 };
  #pickedByReader = false; // the bank task opens on its best head until the reader picks one
  #promptTokens = null;
  #history = { train: [], held: [], cosine: [] };
  #threadInfo = null;
  #sampledAt = -Infinity;
  #sampling = false;
  #started = false;
  #formedAt = null; // the step whose report first showed the task's pattern (tasks.js patternFormed)
  #stopThreads;

  constructor(deps) {
    this.#deps = deps;
    this.#stopThreads = deps.threads.subscribe(
      (kind) => kind === 'chosen' && this.#live && this.#applyThreads(this.#live.trainer),
    );
  }

  get live() {
    return this.#live;
  }
  get report() {
    return this.#report;
  }
  get firstReport() {
    return this.#firstReport;
  }
  get history() {
    return this.#history;
  }
  get threadInfo() {
    return this.#threadInfo;
  }
  /** The settings changed since the model on screen was made: it needs a new one. */
  get needsRestart() {
    return Boolean(this.#live) && this.#live.key !== specKey(this.#learn());
  }
  get running() {
    return Boolean(this.#live?.trainer.running);
  }
  /** The step at which the pattern formed on the model on screen, or null (not yet). */
  get formedAt() {
    return this.#formedAt;
  }
  /** The pace in effect (steps per second; Infinity: as fast as it goes): watch's ends once the
   * pattern has formed. */
  get pace() {
    const { stepsPerSecond, untilFormed } = paceOf(this.#learn().speed ?? 'watch', this.#live?.task);
    return untilFormed && this.#formedAt !== null ? Infinity : stepsPerSecond;
  }

  /** The "Train to step" field as a step, or null when it holds no valid one. */
  untilStep() {
    const n = Number(this.#deps.field.until());
    return Number.isInteger(n) && n >= 1 && n <= LEARN_LIMITS.steps ? n : null;
  }

  /**
   * What the pictures show now: the attention of the held-out example (or of the prompt), its
   * position:token labels, and the head enlarged (the bank task's best one until the reader
   * picks), clamped to the model's layers and heads. null before the first report.
   */
  picture() {
    const report = this.#report;
    if (!report || !this.#live) return null;
    if (report.bank && !this.#pickedByReader) this.#chosen = { layer: 0, head: bestBankHead(report.bank) };
    const prompted = this.#promptTokens && report.prompt;
    const attention = prompted ? report.prompt : report.attention;
    const tokens = prompted ? this.#promptTokens : report.example.tokens;
    this.#chosen = {
      layer: Math.min(this.#chosen.layer, attention.length - 1),
      head: Math.min(this.#chosen.head, attention[0].weights.length - 1),
    };
    return {
      attention,
      labels: positionLabels(tokens, this.#live.task?.vocab),
      chosen: this.#chosen,
      step: report.step,
    };
  }

  /** The first model, once the section is near: a link's step count is retrained then. */
  start() {
    if (this.#started) return;
    this.#started = true;
    const learn = this.#learn();
    this.#restart(null, learn.steps).then(() => {
      if (learn.autoplay && this.#live && this.#live.trainer.steps < (learn.until ?? Infinity)) this.togglePlay();
    });
  }

  /** Another task: its pictures replace the old task's at once (a new model at step 0). */
  switchTask(task) {
    if (!this.#setLearn(defaultLearn(task))) return;
    this.#clear();
    this.#restart();
  }
  setting(key, value) {
    this.#setLearn({ ...this.#learn(), [key]: value });
  }
  setFromSeed(on) {
    this.#setLearn({ ...this.#learn(), fromSeed: on });
  }
  /** A new model from the settings (the one on screen stays until it has started). */
  restart() {
    return this.#restart();
  }

  async togglePlay() {
    if (!(await this.#current())) return;
    const { trainer } = this.#live;
    if (trainer.running) {
      trainer.pause();
      return;
    }
    const { field, view } = this.#deps;
    let until = this.untilStep();
    if (until === null) {
      view.say(`Train to step: expected a whole number in [1, ${LEARN_LIMITS.steps}], got ${field.until()}`);
      return;
    }
    if (until <= trainer.steps) {
      until = Math.min(LEARN_LIMITS.steps, trainer.steps + (this.#live.task?.train.steps || 500));
      field.setUntil(String(until));
    }
    view.say(null);
    this.#watch(trainer);
    trainer.play(until);
    view.sync();
  }

  async stepOnce() {
    if (!(await this.#current())) return;
    if (this.#live.trainer.running) return;
    await this.#live.trainer.step(1);
  }

  /** The pace chosen: 'watch', 'fast' or steps per second (kept in state.learn.speed; it
   * changes when steps are taken, never which, so the model on screen stays). */
  speed(choice) {
    const { speed, ...learn } = this.#learn();
    if (!this.#setLearn(choice === 'watch' ? learn : { ...learn, speed: choice })) return;
    if (this.#live) this.#watch(this.#live.trainer);
  }

  /** The reader chose a head to enlarge. */
  pick(layer, head) {
    this.#chosen = { layer, head };
    this.#pickedByReader = true;
    this.#deps.view.report(true);
  }

  /** The text task's text. */
  text(value) {
    if (value.length > LEARN_LIMITS.textChars) {
      this.#deps.view.say(`Text: ${value.length} characters; at most ${LEARN_LIMITS.textChars}.`);
      return;
    }
    this.#setLearn({ ...this.#learn(), text: value });
  }

  /** The bank task's sentences, one per line. */
  sentences(value) {
    const sentences = value
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    const problem = checkSentences(sentences);
    if (problem) {
      this.#deps.view.say(`Sentences: ${problem}`);
      return;
    }
    this.#setLearn({ ...this.#learn(), sentences });
  }

  /** Every head's attention over the reader's prompt (characters the text model has seen). */
  async prompt(value) {
    const live = this.#live;
    const { view } = this.#deps;
    if (!live) return;
    if (!value) {
      this.#promptTokens = null;
      view.report(true);
      return;
    }
    const missing = [...value].filter((c) => !live.task.vocab.includes(c));
    if (missing.length) {
      view.say(
        `Prompt: “${[...new Set(missing)].join('')}” is not in the text's characters; use characters the model has seen.`,
      );
      return;
    }
    const ids = [...value].slice(-live.task.context).map((c) => live.task.vocab.indexOf(c));
    try {
      this.#report = { ...this.#report, prompt: await live.trainer.attention(ids) };
      this.#promptTokens = ids;
      view.say(null);
      view.report(true);
    } catch (err) {
      view.say(`Prompt: ${err.message}`);
    }
  }

  /** The model as safetensors: {name, bytes}, or null (said why). */
  async checkpoint() {
    if (!this.#live && !(await this.#restart())) return null;
    try {
      const bytes = await this.#live.trainer.checkpoint();
      return { name: `attention-explorer-${this.#learn().task}-step${this.#live.trainer.steps}.safetensors`, bytes };
    } catch (err) {
      this.#deps.view.say(`Export failed: ${err.message}`);
      return null;
    }
  }

  /** A checkpoint file ({name, size, arrayBuffer()}) as the new model. */
  async importCheckpoint(file) {
    if (file.size > LEARN_LIMITS.checkpointBytes) {
      this.#deps.view.say(`Checkpoint: ${file.name} is ${file.size} bytes; at most ${LEARN_LIMITS.checkpointBytes}.`);
      return;
    }
    await this.#restart(new Uint8Array(await file.arrayBuffer()));
  }

  dispose() {
    this.#stopThreads();
    this.#live?.trainer.dispose();
  }

  // --- inside ------------------------------------------------------------------------------
  #learn() {
    return this.#deps.store.get().learn || defaultLearn();
  }
  #isLive(trainer) {
    return this.#live?.trainer === trainer;
  }
  #watch(trainer) {
    trainer.watch({ evalEvery: evalInterval(this.untilStep() ?? 500), stepsPerSecond: this.pace });
  }
  /** The model on screen fits the settings, or a new one has started (false: it could not). */
  async #current() {
    return (this.#live && this.#live.key === specKey(this.#learn())) || this.#restart();
  }

  #setLearn(next) {
    const { store, view } = this.#deps;
    const out = sanitizeLearn(next);
    if (out.problems.length) {
      view.say(out.problems.join('; '));
      view.sync();
      return false;
    }
    view.say(null);
    store.set({ learn: { ...out.learn, steps: this.#live?.key === specKey(out.learn) ? out.learn.steps : 0 } });
    return true;
  }

  #clear() {
    this.#report = this.#firstReport = null;
    this.#history.train = [];
    this.#history.held = [];
    this.#history.cosine = [];
    this.#promptTokens = null;
    this.#chosen = { layer: 0, head: 0 };
    this.#pickedByReader = false;
    this.#formedAt = null;
    this.#deps.view.clear();
  }

  #newTrainer() {
    const { view } = this.#deps;
    const trainer = this.#deps.makeTrainer({
      onProgress: ({ losses, steps, stepsPerSecond, mode }) => {
        if (!this.#isLive(trainer)) return;
        for (const l of losses) this.#history.train.push([l.step, l.loss]);
        thinPoints(this.#history.train);
        view.progress({ steps, stepsPerSecond, mode });
      },
      onReport: (r) => this.#applyReport(trainer, r),
      onStop: ({ reason, message }) => {
        if (!this.#isLive(trainer)) return;
        view.sync();
        if (reason === 'diverged')
          view.say(
            `Training stopped at step ${trainer.steps}: ${message}. The weights of the last good step are kept; lower the learning rate and press Train again.`,
          );
        else if (reason === 'failed') view.say(`Training failed: ${message}`);
        this.#saveSteps();
        this.#sample();
      },
    });
    return trainer;
  }

  #applyReport(trainer, r) {
    if (!this.#isLive(trainer) || !r) return;
    const { now } = this.#deps;
    // The text model writes a new sample every few seconds while it trains.
    if (trainer.running && now() - this.#sampledAt > 3000) {
      this.#sampledAt = now();
      this.#sample();
    }
    this.#report = r;
    this.#firstReport ||= r;
    // Watching: the task's pace until its pattern has formed, then as fast as it goes.
    if (this.#formedAt === null && patternFormed(this.#live.task, r)) {
      this.#formedAt = r.step;
      if (trainer.running) this.#watch(trainer);
    }
    this.#history.held.push([r.step, r.loss]);
    thinPoints(this.#history.held);
    if (r.bank) this.#history.cosine.push([r.step, r.bank.cosine]);
    this.#deps.view.report(false);
  }

  #saveSteps() {
    if (!this.#live) return;
    const learn = this.#learn();
    if (this.#live.key === specKey(learn) && learn.steps !== this.#live.trainer.steps) {
      this.#deps.store.set({ learn: { ...learn, steps: this.#live.trainer.steps } });
    }
  }

  // Where the run trains and on how many threads: the worker says once it has its engine, and
  // again after every change of the engineers' setting.
  #applyThreads(trainer) {
    const { threads, view } = this.#deps;
    trainer.threads(threads.chosen).then(
      (info) => {
        if (!this.#isLive(trainer)) return;
        this.#threadInfo = info;
        threads.report('learn', { ...info, mode: trainer.mode });
        view.threads();
      },
      () => {},
    );
  }

  /** A new model (from the settings, or from checkpoint bytes), retrained to `retrainTo` steps. */
  async #restart(checkpoint = null, retrainTo = 0) {
    const { store, field, view } = this.#deps;
    const learn = this.#learn();
    view.say(null);
    const trainer = this.#newTrainer();
    let first;
    try {
      this.#live?.trainer.pause();
      first = await trainer.start(sessionSpec(learn), checkpoint);
    } catch (err) {
      trainer.dispose();
      view.say(`${checkpoint ? 'Could not load the checkpoint' : 'Could not start a model'}: ${err.message}`);
      return false;
    }
    this.#live?.trainer.dispose();
    this.#live = { key: specKey(learn), task: safeTask(learn), trainer, imported: Boolean(checkpoint) };
    this.#applyThreads(trainer);
    this.#clear();
    field.setUntil(String(retrainTo || learn.until || this.#live.task?.train.steps || 500));
    this.#watch(trainer);
    view.sync();
    this.#applyReport(trainer, first);
    if (first.loadNote) view.say(first.loadNote);
    if (learn.steps !== 0 && !retrainTo) store.set({ learn: { ...learn, steps: 0 } });
    if (retrainTo) {
      view.retraining(retrainTo);
      // A link retrains at full speed, whatever the speed control says.
      trainer.watch({ stepsPerSecond: Infinity });
      await trainer.step(retrainTo);
      this.#watch(trainer);
    }
    this.#sample();
    return true;
  }

  // The text model's sample: 120 characters from its start character, seeded.
  async #sample() {
    const live = this.#live;
    if (!live || this.#learn().task !== 'text' || this.#sampling) return;
    this.#sampling = true;
    try {
      const vocab = live.task.vocab;
      const start = vocab.indexOf('T') >= 0 ? [vocab.indexOf('T')] : [0];
      const ids = await live.trainer.generate(start, 120, { temperature: 0.8, seed: 1 });
      this.#deps.view.sample(Array.from(ids, (t) => vocab[t] ?? '?').join(''));
    } catch (err) {
      this.#deps.view.sample(`(no sample: ${err.message})`);
    } finally {
      this.#sampling = false;
    }
  }
}

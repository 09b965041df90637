// The Learn section's controls: the task (and what to expect of it), the model and training
// settings behind a disclosure, Train / Pause, Step, New model, the pace (watch — the task's own,
// until its pattern forms — fast, or slow motion; one click each) and the step to train to, the
// status line and a message line for what could not be done.
import { h, uid } from '../../ui/dom.js';
import { LEARN_LIMITS } from '../../lib/limits.js';
import { LEARN_TASKS } from '../../lib/learn/learn-state.js';
import { SPEEDS } from '../../lib/learn/view.js';

export const TEXT = {
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
  pace: 'Pace',
  watch: 'watch',
  paceHelp: (task) =>
    task
      ? ` Watch trains ${task.watch.stepsPerSecond} step${task.watch.stepsPerSecond === 1 ? '' : 's'} a second until it has formed, then as fast as it goes; any pace trains the same model.`
      : '',
  restartNeeded: 'These settings need a new model: press “New model” (the current one is kept until you do).',
  model: 'Model',
  layers: 'Layers',
  heads: 'Heads',
  width: 'Width',
  mlp: 'MLP',
  layerNorm: 'LayerNorm',
  lr: 'Learning rate',
  batch: 'Batch',
  seed: 'Random seed',
  context: 'Context',
  untilStep: 'Train to step',
};

/**
 * @param {Element} parent
 * @param {{doc, field, button, onTask(task), onSetting(key, value), onPlay(), onStep(), onReset(),
 *          onSpeed(choice)}} ctx  choice: 'watch', 'fast' or steps per second
 * @returns {{status, message, until: HTMLInputElement, update({learn, task, needsRestart, running}),
 *            say(text|null)}}
 */
export function render(parent, ctx) {
  const { doc, field, button } = ctx;
  const taskSelect = h(
    doc,
    'select',
    { onchange: (e) => ctx.onTask(e.target.value) },
    LEARN_TASKS.map((id) => h(doc, 'option', { value: id }, TEXT.tasks[id])),
  );
  const pattern = h(doc, 'span', {});
  const num = (key, attrs) =>
    h(doc, 'input', { type: 'number', ...attrs, onchange: (e) => ctx.onSetting(key, Number(e.target.value)) });
  const check = (key) => h(doc, 'input', { type: 'checkbox', onchange: (e) => ctx.onSetting(key, e.target.checked) });
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
  const until = h(doc, 'input', { type: 'number', min: 1, max: LEARN_LIMITS.steps, step: 1 });
  const contextField = field(TEXT.context, inputs.context);
  const settings = h(
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
  );
  const trainBtn = button(TEXT.train, () => ctx.onPlay(), 'ae-learn-train');
  const stepBtn = button(TEXT.step, () => ctx.onStep(), 'ae-learn-step');
  const resetBtn = button(TEXT.reset, () => ctx.onReset(), 'ae-learn-reset');
  // The pace: radio buttons, every choice in sight (watch, fast, 4 and 1 steps a second).
  const paceName = uid('learn-pace');
  const choices = [
    { value: 'watch', label: TEXT.watch },
    ...SPEEDS.map((s) => ({ value: s.value === Infinity ? 'fast' : String(s.value), label: s.label })),
  ];
  const radios = choices.map(({ value }) =>
    h(doc, 'input', {
      type: 'radio',
      name: paceName,
      value,
      onchange: (e) => e.target.checked && ctx.onSpeed(value === 'watch' || value === 'fast' ? value : Number(value)),
    }),
  );
  const speed = h(
    doc,
    'fieldset',
    { class: 'ae-learn-speed' },
    h(doc, 'legend', {}, TEXT.pace),
    ...choices.map(({ label }, n) => h(doc, 'label', { class: 'ae-learn-pace' }, radios[n], ` ${label}`)),
  );
  const paceHelp = h(doc, 'span', { class: 'ae-learn-pace-help' });
  const status = h(doc, 'p', { class: 'ae-learn-status', 'aria-live': 'polite' });
  const message = h(doc, 'p', { class: 'ae-learn-message', role: 'alert', hidden: true });
  const restartNote = h(doc, 'p', { class: 'ae-help ae-learn-restart', hidden: true }, TEXT.restartNeeded);
  parent.append(
    h(
      doc,
      'div',
      { class: 'ae-learn-task' },
      field(TEXT.task, taskSelect),
      h(doc, 'p', { class: 'ae-help ae-learn-pattern' }, pattern, paceHelp),
    ),
    h(doc, 'details', { class: 'ae-learn-model' }, h(doc, 'summary', {}, TEXT.model), settings),
    restartNote,
    h(doc, 'div', { class: 'ae-learn-buttons' }, trainBtn, stepBtn, resetBtn, field(TEXT.untilStep, until), speed),
    status,
    message,
  );
  const active = (el) => el.getRootNode?.().activeElement === el;

  return {
    status,
    until,
    /** learn: the Learn state; task: its task (or null); needsRestart: the settings changed. */
    update({ learn, task, needsRestart, running }) {
      if (taskSelect.value !== learn.task) taskSelect.value = learn.task;
      pattern.textContent = task ? TEXT.expected + task.pattern : '';
      for (const [k, input] of Object.entries(inputs)) {
        if (active(input)) continue;
        if (input.type === 'checkbox') input.checked = Boolean(learn[k]);
        else if (learn[k] !== undefined) input.value = String(learn[k]);
      }
      contextField.hidden = learn.task !== 'text';
      if (!active(until) && !until.value) until.value = String(learn.until ?? task?.train.steps ?? 500);
      restartNote.hidden = !needsRestart;
      trainBtn.textContent = running ? TEXT.pause : TEXT.train;
      const chosen = typeof learn.speed === 'number' ? String(learn.speed) : (learn.speed ?? 'watch');
      for (const r of radios) r.checked = r.value === chosen;
      // A pace no radio names (a link's or an attribute's own number): none is checked.
      paceHelp.textContent = TEXT.paceHelp(task);
    },
    say(text) {
      message.hidden = !text;
      message.textContent = text || '';
    },
  };
}

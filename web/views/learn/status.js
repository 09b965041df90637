// The Learn section's status line: the step, the speed, the held-out loss and accuracy (with the
// task's goal), and where the run trains — on the page, in a worker, on how many threads, or why
// on one — with the numbers behind the sentence as data attributes (for tests and DOM readers).
import { fmt } from '../../lib/format.js';
import { THREADS_HELP } from '../../tools/threads.js';

const TEXT = {
  fromLink: (n) => `Retraining to step ${n}, as the link says (same seed, same batches: the same weights).`,
  onPage: 'training on the page, 1 thread',
  inWorker: 'training in a worker',
  onThreads: (n) => `training on ${n} thread${n === 1 ? '' : 's'}`,
  notIsolated: `training on 1 thread: this page is not cross-origin isolated (${THREADS_HELP})`,
  oneThreadHere: 'training on 1 thread',
  oneThread: (why) => `training on 1 thread: ${why}`,
  formed: (step) => `the pattern formed at step ${step}`,
};

/**
 * @param {HTMLElement} el  the status line (views/learn/controls.js)
 * @param {{doc, win, run, embedded?: boolean}} ctx  run: lib/learn/run.js (its report, task,
 *   threads); embedded: a figure in someone else's page, whose reader cannot change its headers
 *   (the line says the thread count alone)
 * @returns {{show(steps, stepsPerSecond, mode), again(), retraining(steps)}}
 */
export function createStatus(el, { doc, win, run, embedded = false }) {
  let last = null;
  function whereItTrains(mode) {
    const info = run.threadInfo;
    if (mode === 'page') return [TEXT.onPage];
    if (!info) return [TEXT.inWorker];
    if (info.maxThreads > 1) return [TEXT.onThreads(info.threads)];
    if (!win.crossOriginIsolated) return [embedded ? TEXT.oneThreadHere : TEXT.notIsolated];
    return [TEXT.oneThread(info.singleThreadReason)];
  }
  function show(steps, stepsPerSecond, mode) {
    last = [steps, stepsPerSecond, mode];
    const { report } = run;
    const task = run.live?.task;
    const parts = [`step ${steps}`];
    if (stepsPerSecond) parts.push(`${fmt(stepsPerSecond, 0)} steps/s`);
    if (report) {
      parts.push(`held-out loss ${fmt(report.loss)}`);
      if (task?.goal) parts.push(`accuracy ${fmt(report.accuracy * 100, 1)}% (goal ${task.goal * 100}%)`);
    }
    if (run.formedAt !== null) parts.push(TEXT.formed(run.formedAt));
    el.replaceChildren(parts.join(' · '), ...(mode ? [' · ', ...whereItTrains(mode)] : []));
    Object.assign(el.dataset, { step: steps, mode: mode || '' });
    if (mode === 'page') el.dataset.threads = 1;
    else if (run.threadInfo) el.dataset.threads = run.threadInfo.threads;
    if (report) Object.assign(el.dataset, { reportStep: report.step, loss: report.loss, accuracy: report.accuracy });
    el.dataset.formedAt = run.formedAt ?? '';
  }
  return {
    show,
    /** The last line again (the thread count came in). */
    again: () => last && show(...last),
    retraining(steps) {
      el.textContent = TEXT.fromLink(steps);
    },
  };
}

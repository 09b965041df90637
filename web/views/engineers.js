// For engineers, one click deeper: which kernel computes the page and how long a call takes,
// how many threads the workers' engine uses (Learn, the real model), and the checks that the
// different ways of computing agree (the loops against the vectorised form, the three forms of
// causal averaging, the order experiment) — float32 rounding, stated.
import { h, uid, setOptions } from '../ui/dom.js';
import { fmt, fmtMicros } from '../lib/format.js';
import { attendArgs, averagingNested, maxAbsDiff, timeAttention } from '../lib/compute.js';
import { KERNELS } from '../lib/state.js';
import { expectedThreads, threadSettingOf, THREADS_HELP } from '../tools/threads.js';

const TEXT = {
  title: 'For engineers',
  summary: 'Kernels, timings and float32 checks',
  kernelHelp:
    'Three ways to compute the same numbers: the reference kernel runs notebook 0’s loops one number at a time; vectorized multiplies whole matrices (with the Eigen library); SIMD uses hand-written kernels that do four multiplications per instruction. They agree to float32 rounding.',
  kernels: {
    reference: 'reference (the loops)',
    vectorized: 'vectorized (whole matrices)',
    simd: 'SIMD (4 numbers at a time)',
  },
  threads: 'Threads ',
  threadsHelp:
    'Learn trains, and the real model runs, in a Web Worker. Where this page is cross-origin isolated (its host sends the COOP and COEP headers), the engine there splits the linear layers and the attention heads over several threads, with the same numbers on every count. The default is this computer’s cores, at most 8.',
  threadOption: (n, max) => `${n} thread${n === 1 ? '' : 's'}${n === max ? ' (default)' : ''}`,
  workers: { learn: 'Learn', model: 'the real model' },
  runsOn: (who, info) =>
    `${who}: ${info.mode === 'page' ? 'on the page, 1 thread' : info.maxThreads === 1 ? '1 thread' : `${info.threads} of ${info.maxThreads} threads`}`,
  noWorkerYet: 'No worker has started yet: Learn’s starts when it comes on screen.',
  notIsolated: `One thread: this page is not cross-origin isolated (${THREADS_HELP}).`,
};

export function render(section, app) {
  const { doc } = app;
  const kernelId = uid('opt');
  const kernelSel = h(doc, 'select', { id: kernelId, onchange: (e) => app.setOptions({ kernel: e.target.value }) });
  setOptions(
    doc,
    kernelSel,
    KERNELS.map((k) => ({ value: k, label: TEXT.kernels[k] })),
    'simd',
  );
  const threadsPanel = renderThreads(app);
  const timing = h(doc, 'p', { class: 'ae-help ae-timing', 'aria-live': 'off' });
  const agree = h(doc, 'ul', { class: 'ae-checks' });
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(
      doc,
      'details',
      { class: 'ae-details ae-engineers' },
      h(doc, 'summary', {}, TEXT.summary),
      h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: kernelId }, 'Kernel '), kernelSel),
      h(doc, 'p', { class: 'ae-help' }, TEXT.kernelHelp),
      timing,
      ...threadsPanel.els,
      agree,
    ),
  );

  // The kernel's time per call, measured over repeated calls once the page is idle (one call of
  // the bank example takes ~10 µs, below the browser clock's resolution), never during a drag.
  let timer = 0;
  let measuredKey = '';
  function scheduleTiming(state) {
    const key = JSON.stringify([state.vocab, state.contexts[state.focus], state.weights, state.options]);
    if (key === measuredKey) return;
    app.win.clearTimeout(timer);
    timing.textContent = `Measuring the ${state.options.kernel} kernel…`;
    timer = app.win.setTimeout(() => {
      if (app.dragging) return scheduleTiming(app.state);
      measuredKey = key;
      const s = app.state;
      const m = timeAttention(app.engine, attendArgs(s, s.contexts[s.focus]), () => app.win.performance.now());
      timing.textContent = m
        ? `One call for “${s.focus}” with the ${m.kernel} kernel: ${fmtMicros(m.microseconds)} (the average of ${m.calls} calls; every intermediate kept).`
        : 'No successful computation yet.';
    }, 250);
  }

  const line = (text) => h(doc, 'li', {}, text);
  return {
    destroy: () => {
      app.win.clearTimeout(timer);
      threadsPanel.destroy();
    },
    update() {
      const { state, results } = app;
      kernelSel.value = state.options.kernel;
      scheduleTiming(state);
      const checks = [];
      const entry = results.contexts[state.focus];
      if (entry?.trace && entry.naive && !state.options.projections && !state.options.scale) {
        // Raw attention two ways: the page's kernel and the naive path's.
        const d = maxAbsDiff(entry.trace.output, entry.naive.output);
        checks.push(
          `Raw attention through the ${state.options.kernel} kernel and the naive path: largest difference ${d.toExponential(1)}.`,
        );
      }
      if (results.averaging) {
        const a = averagingNested(results.averaging);
        const d1 = maxAbsDiff(a.loop, a.matmul),
          d2 = maxAbsDiff(a.loop, a.softmax),
          d3 = maxAbsDiff(a.trilWeights, a.softmaxWeights);
        checks.push(
          `Causal averaging of “${state.focus}”: the loop and the matrix product differ by at most ${d1.toExponential(1)}, the loop and softmax(masked zeros)·X by ${d2.toExponential(1)}, the two weight matrices by ${d3.toExponential(1)} (float32 rounding; ${Math.max(d1, d2, d3) < 1e-5 ? 'the three forms agree' : 'more than rounding: something is wrong'}).`,
        );
      }
      if (entry?.trace) {
        const sums = entry.trace.weights.flat().map((r) => r.reduce((s, v) => s + v, 0));
        const worst = Math.max(...sums.map((s) => Math.abs(s - 1)));
        checks.push(`Every weights row sums to 1 within ${worst.toExponential(1)} (${fmt(1)} as shown).`);
      }
      agree.replaceChildren(...checks.map(line));
    },
  };
}

// The thread count the workers' engines use (Learn, the real model): 1 … the most any of them
// offers (the page's guess until one says), and what each runs on now, or why on one thread.
function renderThreads(app) {
  const { doc } = app;
  const threads = threadSettingOf(app);
  const threadsId = uid('opt');
  const threadsSel = h(doc, 'select', {
    id: threadsId,
    class: 'ae-threads',
    onchange: (e) => threads.choose(Number(e.target.value)),
  });
  const threadsNow = h(doc, 'p', { class: 'ae-help ae-threads-now', 'aria-live': 'polite' });
  function showThreads() {
    const reports = threads.reports;
    const max = Math.max(expectedThreads(app.win).maxThreads, ...[...reports.values()].map((r) => r.maxThreads));
    const current = threads.chosen ?? reports.get('learn')?.threads ?? reports.get('model')?.threads ?? max;
    setOptions(
      doc,
      threadsSel,
      Array.from({ length: max }, (_, i) => ({ value: i + 1, label: TEXT.threadOption(i + 1, max) })),
      Math.min(current, max),
    );
    threadsSel.disabled = max === 1;
    const lines = Object.keys(TEXT.workers)
      .filter((who) => reports.has(who))
      .map((who) => TEXT.runsOn(TEXT.workers[who], reports.get(who)));
    const parts = [lines.length ? `${lines.join('; ')}.` : TEXT.noWorkerYet];
    if (max === 1 && !app.win.crossOriginIsolated) parts.push(' ', TEXT.notIsolated);
    else if (max === 1) {
      const why = [...reports.values()].find((r) => r.singleThreadReason)?.singleThreadReason;
      if (why) parts.push(` One thread: ${why}.`);
    }
    threadsNow.replaceChildren(...parts);
    threadsNow.dataset.max = max;
    threadsNow.dataset.learn = reports.get('learn')?.threads ?? '';
    threadsNow.dataset.model = reports.get('model')?.threads ?? '';
  }
  const stopThreads = threads.subscribe(showThreads);
  showThreads();

  return {
    els: [
      h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: threadsId }, TEXT.threads), threadsSel),
      h(doc, 'p', { class: 'ae-help' }, TEXT.threadsHelp),
      threadsNow,
    ],
    destroy: stopThreads,
  };
}

// Item 4: step through the loops (seed 000). Query i meets every key j (a dot product fills one
// score cell), then row i goes through the softmax, then the value rows are summed with those
// weights into output row i. Play / pause / back / step / speed; keyboard; reduced motion.
import { h, uid } from '../ui/dom.js';
import { fmt, fmtVector } from '../lib/format.js';
import { loopSteps, progress, stepCount } from '../lib/steps.js';
import { focusView } from '../lib/focus.js';

const SPEEDS = [0.5, 1, 2, 4];

export function render(section, app) {
  const { doc, win, store } = app;
  const reduced = win.matchMedia?.('(prefers-reduced-motion: reduce)');
  let timer = 0;
  let speed = 1;

  // A button's name is its visible word; the arrows beside it are decoration (WCAG 2.5.3).
  const arrow = (text) => h(doc, 'span', { 'aria-hidden': 'true' }, text);
  const btn = (before, text, after, onclick) =>
    h(
      doc,
      'button',
      { type: 'button', class: 'ae-btn', onclick },
      before && arrow(`${before} `),
      text,
      after && arrow(` ${after}`),
    );
  const go = (n) => store.set({ step: Math.max(0, Math.min(stepCount(store.get()), n)) });
  const first = btn('«', 'Start', '', () => {
    stop();
    go(0);
  });
  const back = btn('◀', 'Back', '', () => {
    stop();
    go(store.get().step - 1);
  });
  const play = btn('', 'Play', '', () => (timer ? stop() : start()));
  const fwd = btn('', 'Step', '▶', () => {
    stop();
    go(store.get().step + 1);
  });
  const last = btn('', 'End', '»', () => {
    stop();
    go(Infinity);
  });
  const speedId = uid('speed');
  const speedSel = h(
    doc,
    'select',
    {
      id: speedId,
      onchange: (e) => {
        speed = Number(e.target.value);
        if (timer) {
          stop();
          start();
        }
      },
    },
    ...SPEEDS.map((s) => h(doc, 'option', { value: String(s), selected: s === 1 }, `${s}×`)),
  );
  const position = h(doc, 'p', { class: 'ae-help ae-position' });
  const narration = h(doc, 'p', { class: 'ae-narration', 'aria-live': 'polite' });
  const bar = h(
    doc,
    'div',
    { class: 'ae-stepper-bar', role: 'group', 'aria-label': 'Stepper controls' },
    first,
    back,
    play,
    fwd,
    last,
    h(doc, 'label', { for: speedId }, 'Speed '),
    speedSel,
  );

  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, 'The same thing, as loops'),
    h(
      doc,
      'p',
      { class: 'ae-prose' },
      'Matrix notation hides three plain loops. For each query token i: compare it with every key j (one dot product each), turn that row of scores into weights, then add up the value rows with those weights. Step through them; arrow keys work here too.',
    ),
    bar,
    position,
    narration,
  );
  const grid = h(doc, 'div', { class: 'ae-row ae-stepper-grid' });
  section.append(grid);
  const scores = app.heatmap({
    id: 'loop-scores',
    caption: 'scores (filled in one dot product at a time)',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
  });
  const weights = app.heatmap({
    id: 'loop-weights',
    caption: 'weights (one row per softmax)',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    kind: 'weights',
  });
  const output = app.heatmap({
    id: 'loop-output',
    caption: 'output (one row per weighted sum)',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
  });
  grid.append(scores.el, weights.el, output.el);

  section.addEventListener('keydown', (e) => {
    if (e.target.closest('td, input, select')) return;
    if (e.key === 'ArrowRight') {
      e.preventDefault();
      stop();
      go(store.get().step + 1);
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      stop();
      go(store.get().step - 1);
    }
  });

  function start() {
    const s = store.get();
    if (s.step >= stepCount(s)) go(0);
    // Reduced motion: still steps (the learner asked for it) but slower and without transitions (CSS).
    const ms = (reduced?.matches ? 1200 : 600) / speed;
    timer = win.setInterval(() => {
      const st = store.get();
      if (st.step >= stepCount(st)) {
        stop();
        return;
      }
      go(st.step + 1);
    }, ms);
    play.textContent = 'Pause';
  }
  function stop() {
    if (timer) win.clearInterval(timer);
    timer = 0;
    play.textContent = 'Play';
  }

  return {
    destroy: stop,
    update() {
      const { state, results } = app;
      const f = focusView(state, results);
      if (!f) return;
      const { trace: t, head: hd, tokens: tok, highlightRows: hl, weightsUsed: W, isMasked } = f;
      const T = tok.length;
      const steps = loopSteps(T, state.options.causal);
      const done = Math.min(state.step, steps.length);
      const p = progress(T, done);
      const ctx = state.focus;
      const cur = done > 0 ? steps[done - 1] : null;
      const on = (kind, i, j) =>
        cur !== null &&
        (kind === 'score'
          ? (cur.kind === 'score' || cur.kind === 'mask') && cur.i === i && cur.j === j
          : cur.kind === kind && cur.i === i);
      // The loops fill in head hd's masked scores, weights (after dropout, when it acts) and outputs.
      scores.update({
        shows: { matrix: 'masked', head: hd },
        current: (i, j) => on('score', i, j),
        context: ctx,
        values: t.masked[hd],
        rowLabels: tok,
        colLabels: tok,
        highlightRows: hl,
        pending: (i, j) => !p.score(i, j),
      });
      weights.update({
        shows: { matrix: f.dropping ? 'dropped' : 'weights', head: hd },
        current: (i) => on('softmax', i),
        context: ctx,
        values: W,
        rowLabels: tok,
        colLabels: tok,
        highlightRows: hl,
        masked: isMasked,
        pending: (i) => !p.weights(i),
      });
      output.update({
        shows: { matrix: 'out', head: hd },
        current: (i) => on('sum', i),
        context: ctx,
        values: t.headOutputs[hd],
        rowLabels: tok,
        highlightRows: hl,
        colLabels: t.headOutputs[hd][0].map((_, j) => `v${j}`),
        pending: (i) => !p.output(i),
      });
      position.textContent = `Step ${done} of ${steps.length}`;
      back.disabled = done === 0;
      first.disabled = done === 0;
      fwd.disabled = done === steps.length;
      last.disabled = done === steps.length;
      if (done === 0) {
        narration.textContent = 'Press “Step” or “Play” to start with the first query.';
        return;
      }
      const s = steps[done - 1];
      const q = t.q[hd],
        k = t.k[hd],
        v = t.v[hd];
      if (s.kind === 'score') {
        narration.textContent =
          `Query “${tok[s.i]}” · key “${tok[s.j]}”: ${q[s.i].map((a, c) => `${fmt(a)}×${fmt(k[s.j][c])}`).join(' + ')} = ${fmt(t.scores[hd][s.i][s.j])}` +
          (t.scale !== 1 || state.options.temperature !== 1 ? `, scaled to ${fmt(t.scaled[hd][s.i][s.j])}` : '') +
          '.';
      } else if (s.kind === 'mask') {
        narration.textContent = `“${tok[s.j]}” comes after “${tok[s.i]}”: skipped, its score is −∞.`;
      } else if (s.kind === 'softmax') {
        narration.textContent = `Softmax of row “${tok[s.i]}”: weights ${fmtVector(W[s.i])}, summing to ${fmt(W[s.i].reduce((a, b) => a + b, 0))}.`;
      } else {
        narration.textContent =
          `Output row “${tok[s.i]}” = ${W[s.i].map((w, j) => `${fmt(w)}·v(${tok[j]})`).join(' + ')} = ${fmtVector(t.headOutputs[hd][s.i])}` +
          (s.i === T - 1 ? '. That was the last row: the loops are done.' : '.');
      }
    },
  };
}

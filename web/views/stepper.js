// Item 4: step through the loops (seed 000). Query i meets every key j (a dot product fills one
// score cell), then row i goes through the softmax, then the value rows are summed with those
// weights into output row i. Play / pause / back / step / speed; keyboard; reduced motion.
import { h, uid } from '../ui/dom.js';
import { indexLabels } from '../lib/format.js';
import { loopSteps, progress, stepCount } from '../lib/steps.js';
import { focusView } from '../lib/focus.js';
import { narrate } from '../lib/claims/loops.js';

const SPEEDS = [0.5, 1, 2, 4];
const TEXT = {
  title: 'The same thing, as loops',
  intro:
    'Matrix notation hides three plain loops. For each query token i: compare it with every key j (one dot product each), turn that row of scores into weights, then add up the value rows with those weights. Step through them; arrow keys work here too.',
};

export function render(section, app) {
  const { doc, store } = app;
  const position = h(doc, 'p', { class: 'ae-help ae-position' });
  const narration = h(doc, 'p', { class: 'ae-narration', 'aria-live': 'polite' });
  const player = createPlayer(app);
  section.append(
    h(doc, 'h2', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-prose' }, TEXT.intro),
    player.bar,
    position,
    narration,
  );
  const grid = h(doc, 'div', { class: 'ae-row ae-stepper-grid' });
  section.append(grid);
  const blank = { rowLabels: [], colLabels: [], values: [[0]] };
  const scores = app.heatmap({ ...blank, id: 'loop-scores', caption: 'scores (filled in one dot product at a time)' });
  const weights = app.heatmap({
    ...blank,
    id: 'loop-weights',
    caption: 'weights (one row per softmax)',
    kind: 'weights',
  });
  const output = app.heatmap({ ...blank, id: 'loop-output', caption: 'output (one row per weighted sum)' });
  grid.append(scores.el, weights.el, output.el);

  section.addEventListener('keydown', (e) => {
    if (e.target.closest('td, input, select')) return;
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    e.preventDefault();
    player.stop();
    player.go(store.get().step + (e.key === 'ArrowRight' ? 1 : -1));
  });

  return {
    destroy: player.stop,
    update() {
      const { state, results } = app;
      const f = focusView(state, results);
      if (!f) return;
      const { trace: t, head: hd, tokens: tok, highlightRows: hl, weightsUsed: W, isMasked } = f;
      const steps = loopSteps(tok.length, state.options.causal);
      const done = Math.min(state.step, steps.length);
      const p = progress(tok.length, done);
      const cur = done > 0 ? steps[done - 1] : null;
      const on = (kind, i, j) =>
        cur !== null &&
        (kind === 'score'
          ? (cur.kind === 'score' || cur.kind === 'mask') && cur.i === i && cur.j === j
          : cur.kind === kind && cur.i === i);
      // The loops fill in head hd's masked scores, weights (after dropout, when it acts) and outputs.
      const common = { context: state.focus, rowLabels: tok, highlightRows: hl };
      scores.update({
        ...common,
        shows: { matrix: 'masked', head: hd },
        current: (i, j) => on('score', i, j),
        values: t.masked[hd],
        colLabels: tok,
        pending: (i, j) => !p.score(i, j),
      });
      weights.update({
        ...common,
        shows: { matrix: f.dropping ? 'dropped' : 'weights', head: hd },
        current: (i) => on('softmax', i),
        values: W,
        colLabels: tok,
        masked: isMasked,
        pending: (i) => !p.weights(i),
      });
      output.update({
        ...common,
        shows: { matrix: 'out', head: hd },
        current: (i) => on('sum', i),
        values: t.headOutputs[hd],
        colLabels: indexLabels(t.headOutputs[hd][0].length, 'v'),
        pending: (i) => !p.output(i),
      });
      position.textContent = `Step ${done} of ${steps.length}`;
      player.at(done, steps.length);
      narration.textContent = narrate(cur, f, state.options);
    },
  };
}

// The player: Start, Back, Play/Pause, Step, End and the speed; playing steps on a timer (slower,
// without transitions, under reduced motion: the learner asked for it, so it still steps).
function createPlayer(app) {
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
  const stopThen = (n) => () => {
    stop();
    go(typeof n === 'function' ? n() : n);
  };
  const first = btn('«', 'Start', '', stopThen(0));
  const back = btn(
    '◀',
    'Back',
    '',
    stopThen(() => store.get().step - 1),
  );
  const play = btn('', 'Play', '', () => (timer ? stop() : start()));
  const fwd = btn(
    '',
    'Step',
    '▶',
    stopThen(() => store.get().step + 1),
  );
  const last = btn('', 'End', '»', stopThen(Infinity));
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
  function start() {
    const s = store.get();
    if (s.step >= stepCount(s)) go(0);
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
  return {
    bar,
    go,
    stop,
    /** The buttons that cannot move at step `done` of `count` are disabled. */
    at(done, count) {
      back.disabled = first.disabled = done === 0;
      fwd.disabled = last.disabled = done === count;
    },
  };
}

// The Learn section's loss chart: the loss on training batches and on held-out examples, step by
// step; before any point, axes for the run's length across and a uniform guess's loss (ln V) up.
import { createLossChart } from '../../ui/loss-chart.js';

const TEXT = { chart: 'Loss, step by step (dots: held-out evaluations)' };

/**
 * @param {Element} parent
 * @param {{doc}} ctx
 * @returns {{el, draw(history, until), empty({until, task})}}
 */
export function render(parent, { doc }) {
  const chart = createLossChart(doc, {
    series: [
      { id: 'train', label: 'training batches' },
      { id: 'held', label: 'held-out examples', markers: true },
    ],
    caption: TEXT.chart,
  });
  chart.el.classList.add('ae-learn-chart');
  parent.append(chart.el);
  return {
    el: chart.el,
    /** history: lib/learn/run.js's; until: the step trained to (the x axis), or null. */
    draw(history, until) {
      chart.update({ train: history.train, held: history.held }, { x: until ?? 0, y: history.train[0]?.[1] });
    },
    /** No run yet: until — the step the reader will train to; task — its task, or null. */
    empty({ until, task }) {
      chart.update({}, { x: until || task?.train.steps || 500, y: task ? Math.log(task.vocab.length) : 1 });
    },
  };
}

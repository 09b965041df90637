// What each head does, measured on this model: previous-token, first-token, self (diagonal) and
// induction scores per head (lib/head-scores.js), as four layer × head tables on the weights'
// colour scale, and the strongest heads of each kind. Where the section is narrow (a phone, a
// narrow column) one table shows at a time, the kind chosen above it (explorer.css).
import { h } from '../../ui/dom.js';
import { narrowChooser } from '../../ui/controls.js';
import { createHeatmap } from '../../ui/heatmap.js';
import { fmt } from '../../lib/format.js';

const TEXT = {
  title: 'What each head does, measured',
  help: 'Over a held text, the mean weight each head gives the token just before (previous), the first token (first), itself (self); and on a random sequence repeated twice, the weight from each token of the second copy to the token after its first occurrence (induction: the head copies what came next last time). Uniform attention would score about 1/(position + 1).',
  kinds: { previous: 'previous token', first: 'first token', self: 'itself', induction: 'induction' },
  show: 'Table',
};

export function render(parent, { doc }) {
  const maps = {};
  const strongest = h(doc, 'ul', { class: 'ae-gpt-strongest' });
  const row = h(doc, 'div', { class: 'ae-row ae-gpt-role-maps' });
  for (const [k, label] of Object.entries(TEXT.kinds)) {
    maps[k] = createHeatmap(doc, {
      id: `gpt-role-${k}`,
      caption: label,
      rowLabels: [],
      colLabels: [],
      values: [[0]],
      kind: 'weights',
      digits: 2,
    });
    maps[k].el.hidden = true; // until measured
    maps[k].el.dataset.roleKind = k;
    row.append(maps[k].el);
  }
  // Which table a narrow section shows (CSS hides the chooser where all four fit side by side).
  const pick = narrowChooser(doc, {
    legend: TEXT.show,
    choices: Object.entries(TEXT.kinds),
    value: 'previous',
    boxes: Object.fromEntries(Object.entries(maps).map(([k, map]) => [k, map.el])),
    className: 'ae-gpt-role-pick',
  }).el;
  pick.hidden = true; // until measured
  parent.append(
    h(doc, 'h3', { class: 'ae-prose' }, TEXT.title),
    h(doc, 'p', { class: 'ae-help ae-prose' }, TEXT.help),
    pick,
    row,
    strongest,
  );
  return {
    update({ roles }) {
      if (!roles) return;
      pick.hidden = false;
      for (const [k, map] of Object.entries(maps)) {
        const s = roles.scores[k];
        map.el.hidden = false;
        map.update({
          values: s,
          rowLabels: s.map((_, l) => `layer ${l + 1}`),
          colLabels: s[0].map((_, hh) => `h${hh + 1}`),
          caption: `${TEXT.kinds[k]}: score per head`,
          cornerLabel: 'layer \\ head',
        });
      }
      strongest.replaceChildren(
        ...Object.entries(roles.strongest).map(([k, list]) =>
          h(
            doc,
            'li',
            {},
            `${TEXT.kinds[k]}: ${list.map((x) => `layer ${x.layer + 1} head ${x.head + 1} (${fmt(x.score, 2)})`).join(', ')}`,
          ),
        ),
      );
    },
  };
}

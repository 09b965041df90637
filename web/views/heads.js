// Many heads (seed 001): the query/key/value columns are split into H groups, each group runs
// attention on its own, and the H outputs are concatenated back, head h owning columns
// [h·hv, (h+1)·hv). Column headers are tinted per head so the split and the merge line up.
import { h } from '../ui/dom.js';
import { dims, resize } from '../lib/state.js';
import { focusView } from '../lib/focus.js';
import { fmt } from '../lib/format.js';
import { attendArgs } from '../lib/compute.js';
import { seededRandom } from '../lib/learn/random.js';

const labels = (n, p, offset = 0) => Array.from({ length: n }, (_, i) => `${p}${i + offset}`);
const range = (from, n) => (n === 1 ? `column ${from}` : `columns ${from}–${from + n - 1}`);
const concat = (perHead) => perHead[0].map((_, i) => perHead.flatMap((m) => m[i]));

export function render(section, app) {
  const { doc } = app;
  const intro = h(doc, 'p', {});
  const tryBtn = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-btn',
      onclick: () =>
        app.edit((s) => {
          let st = s;
          const { dk, dv } = dims(st);
          for (const [which, n] of [
            ['dk', dk],
            ['dv', dv],
          ]) {
            if (n % 2) {
              const r = resize(st, which, n + 1);
              if (r.error) return r;
              st = r.state;
            }
          }
          return { state: { ...st, options: { ...st.options, projections: true, heads: 2, head: 0 } } };
        }),
    },
    'Split into 2 heads',
  );
  section.append(h(doc, 'h2', { class: 'ae-prose' }, 'Many heads'), intro, tryBtn);
  const qBox = h(doc, 'div', { class: 'ae-row' });
  const perHead = h(doc, 'div', { class: 'ae-row ae-heads' });
  const mergedBox = h(doc, 'div', { class: 'ae-row' });
  const woBox = h(doc, 'div', { class: 'ae-row' });
  const woNote = h(doc, 'p', { class: 'ae-help' });
  section.append(
    h(doc, 'h3', {}, 'Split: each head takes its own columns of Q, K and V'),
    qBox,
    h(doc, 'h3', {}, 'Each head: its own weights and output'),
    perHead,
    h(doc, 'h3', {}, 'Concatenate: the heads’ outputs side by side'),
    mergedBox,
    h(doc, 'h3', {}, 'Mix the heads: the output projection W_O'),
    h(
      doc,
      'p',
      {},
      'Side by side, each head still owns its own columns. One more matrix, W_O (nanoGPT’s attn.c_proj), multiplies the merged rows so every output column can draw on every head: output = merged · W_O. A model learns W_O with the rest; here it is drawn at random (seeded) to show the step, and the engine applies it.',
    ),
    woBox,
    woNote,
  );
  const split = {};
  for (const m of ['q', 'k', 'v']) {
    split[m] = app.heatmap({ id: `heads-${m}`, caption: '', rowLabels: [], colLabels: [], values: [[0]] });
    qBox.append(split[m].el);
  }
  const merged = app.heatmap({ id: 'merged', caption: 'merged', rowLabels: [], colLabels: [], values: [[0]] });
  mergedBox.append(merged.el);
  const wo = app.heatmap({ id: 'heads-wo', caption: 'W_O', rowLabels: [], colLabels: [], values: [[0]] });
  const projected = app.heatmap({ id: 'heads-projected', caption: '', rowLabels: [], colLabels: [], values: [[0]] });
  woBox.append(wo.el, projected.el);
  let headMaps = [];

  return {
    update() {
      const { state, results } = app;
      const f = focusView(state, results);
      if (!f) return;
      const { trace: t, heads: H, tokens: tok, highlightRows: hl } = f;
      const hk = t.q[0][0].length,
        hv = t.v[0][0].length;
      const shared = results.cosines.find((c) => c.attention !== null);
      const cosine = shared
        ? ` The cosine of the two “${shared.word}” outputs in the first section is now ${fmt(shared.attention)}.`
        : '';
      intro.textContent =
        H === 1
          ? `One head now: it sees all ${hk} query/key columns and all ${hv} value columns at once. With H heads, the columns are split into H groups of equal size, so H must divide the widths of Q, K and V. The button makes them even (adding a zero column where needed) and uses 2 heads. That changes the model: each head sees only its half of the columns, so every output changes, the first section’s included.${cosine}`
          : `${H} heads over “${state.focus}”. ${Array.from({ length: H }, (_, hh) => `Head ${hh} uses query/key ${range(hh * hk, hk)} and value ${range(hh * hv, hv)}`).join('. ')}. ` +
            `Each head scales its scores by 1/√${hk}, one over the square root of its own head size dₖ, runs softmax on its own, and the outputs are put side by side. This is a different model from the one-head one: every output differs, the first section’s included.${cosine} Pick the head the step-by-step view shows in the knobs.`;
      tryBtn.hidden = H > 1;
      for (const m of ['q', 'k', 'v']) {
        const n = m === 'v' ? hv : hk;
        split[m].update({
          context: state.focus,
          values: concat(t[m]),
          rowLabels: tok,
          highlightRows: hl,
          colLabels: labels(n * H, m),
          colClass: (j) => `ae-head-${Math.floor(j / n) % 4}`,
          caption: `${m.toUpperCase()}: ${H} head${H > 1 ? 's' : ''} × ${n} column${n > 1 ? 's' : ''}`,
        });
      }
      if (headMaps.length !== H) {
        perHead.replaceChildren();
        headMaps = Array.from({ length: H }, (_, hh) => {
          const box = h(doc, 'div', { class: `ae-headbox ae-head-${hh % 4}` });
          const w = app.heatmap({
            id: `head-${hh}-weights`,
            caption: '',
            rowLabels: [],
            colLabels: [],
            values: [[0]],
            kind: 'weights',
          });
          const o = app.heatmap({ id: `head-${hh}-out`, caption: '', rowLabels: [], colLabels: [], values: [[0]] });
          box.append(w.el, o.el);
          perHead.append(box);
          return { w, o };
        });
      }
      headMaps.forEach(({ w, o }, hh) => {
        w.update({
          context: state.focus,
          masked: (i, j) => t.masked[hh][i][j] === -Infinity,
          values: t.weights[hh],
          rowLabels: tok,
          highlightRows: hl,
          colLabels: tok,
          caption: `head ${hh}: weights`,
        });
        o.update({
          context: state.focus,
          values: t.headOutputs[hh],
          rowLabels: tok,
          highlightRows: hl,
          colLabels: labels(hv, 'v', hh * hv),
          colClass: () => `ae-head-${hh % 4}`,
          caption: `head ${hh}: weights · V`,
        });
      });
      merged.update({
        context: state.focus,
        values: t.merged,
        rowLabels: tok,
        highlightRows: hl,
        colLabels: labels(t.merged[0].length, 'v'),
        colClass: (j) => `ae-head-${Math.floor(j / hv) % 4}`,
        caption: `merged: ${H} × ${hv} = ${t.merged[0].length} columns`,
      });
      // W_O: (H·hv, H·hv), N(0, 1/(H·hv)) from a fixed seed, through the engine's output projection.
      const n = t.merged[0].length;
      const rng = seededRandom(4242 + n);
      const woMatrix = Array.from({ length: n }, () => Array.from({ length: n }, () => rng.normal() / Math.sqrt(n)));
      try {
        const out = app.engine.attend({ ...attendArgs(state, tok), wo: woMatrix }).get('output');
        wo.update({
          values: woMatrix,
          rowLabels: labels(n, 'v'),
          colLabels: labels(n, 'o'),
          caption: `W_O (${n} × ${n})`,
        });
        projected.update({
          context: state.focus,
          values: out,
          rowLabels: tok,
          highlightRows: hl,
          colLabels: labels(n, 'o'),
          caption: 'output = merged · W_O',
        });
        woNote.textContent = `Each output number mixes all ${n} merged columns, so all ${H} head${H === 1 ? '' : 's'} reach it.`;
      } catch (err) {
        woNote.textContent = `The output projection could not be computed: ${err.message}`;
      }
    },
  };
}

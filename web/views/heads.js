// Many heads (seed 001): the query/key/value columns are split into H groups, each group runs
// attention on its own, and the H outputs are concatenated back, head h owning columns
// [h·hv, (h+1)·hv). Column headers are tinted per head so the split and the merge line up.
import { h, uid, setOptions } from '../ui/dom.js';
import { LIMITS } from '../lib/state.js';
import { TWO_HEADS, headChoices, presetApplies, withHeads, withPreset } from '../lib/presets.js';
import { focusView } from '../lib/focus.js';
import { fmt } from '../lib/format.js';
import { attendArgs } from '../lib/compute.js';
import { seededRandom } from '../lib/learn/random.js';

const labels = (n, p, offset = 0) => Array.from({ length: n }, (_, i) => `${p}${i + offset}`);
const range = (from, n) => (n === 1 ? `column ${from}` : `columns ${from}–${from + n - 1}`);
const concat = (perHead) => perHead[0].map((_, i) => perHead.flatMap((m) => m[i]));

const TEXT = {
  title: 'Many heads',
  why: 'One head gives each token one softmax row: one way to share out its attention. Several heads split the query, key and value columns into groups that run attention side by side, each with its own small queries and keys — so one head can look for the word that says which bank while another compares words of the same kind — and the model combines what they found. It costs no more: the columns are split, not multiplied.',
  heads: 'Heads',
  head: 'Show head',
  headHelp: 'the head the step-by-step figures show',
  preset: 'Two heads that look at different things',
  presetHelp:
    'Head 0 gets the query and key of “Queries, keys and values” (bank’s query looks for the context word); head 1 compares d0 and d1, river-ness and money-ness, so each token looks at words of its own kind.',
};
const MAX_HEADS = 8;

export function render(section, app) {
  const { doc } = app;
  const intro = h(doc, 'p', {});
  const claim = h(doc, 'p', { class: 'ae-claim', 'aria-live': 'polite' });
  const headsId = uid('opt');
  const headsSel = h(doc, 'select', {
    id: headsId,
    onchange: (e) => app.edit((s) => withHeads(s, Number(e.target.value))),
  });
  const headId = uid('opt');
  const headSel = h(doc, 'select', { id: headId, onchange: (e) => app.setOptions({ head: Number(e.target.value) }) });
  const presetBtn = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => withPreset(s, TWO_HEADS)) },
    TEXT.preset,
  );
  const knobs = h(
    doc,
    'div',
    { class: 'ae-knobs ae-row' },
    h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: headsId }, `${TEXT.heads} `), headsSel),
    h(
      doc,
      'div',
      { class: 'ae-ctl' },
      h(doc, 'label', { for: headId }, `${TEXT.head} `),
      headSel,
      h(doc, 'span', { class: 'ae-help' }, ` ${TEXT.headHelp}`),
    ),
    presetBtn,
    h(doc, 'p', { class: 'ae-help' }, TEXT.presetHelp),
  );
  section.append(h(doc, 'h2', { class: 'ae-prose' }, TEXT.title), h(doc, 'p', { class: 'ae-prose' }, TEXT.why));
  if (app.controls === 'full') section.append(knobs);
  section.append(intro, claim);
  const qBox = h(doc, 'div', { class: 'ae-row' });
  const perHead = h(doc, 'div', { class: 'ae-row ae-heads' });
  const mergedBox = h(doc, 'div', { class: 'ae-row' });
  const woBox = h(doc, 'div', { class: 'ae-row' });
  const woNote = h(doc, 'p', { class: 'ae-help' });
  section.append(
    h(doc, 'h3', { class: 'ae-prose' }, 'Each head: its own weights and output'),
    perHead,
    h(
      doc,
      'details',
      { class: 'ae-details ae-heads-details' },
      h(doc, 'summary', {}, 'How the columns are split, put side by side and mixed (W_O)'),
      h(doc, 'h3', {}, 'Split: each head takes its own columns of Q, K and V'),
      qBox,
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
    ),
  );
  const split = {};
  for (const m of ['q', 'k', 'v']) {
    split[m] = app.heatmap({ id: `heads-${m}`, caption: '', rowLabels: [], colLabels: [], values: [[0]] });
    qBox.append(split[m].el);
  }
  const merged = app.heatmap({
    id: 'merged',
    caption: 'merged',
    rowLabels: [],
    colLabels: [],
    values: [[0]],
    shows: { matrix: 'merged', tokenRows: true },
  });
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
      intro.className = 'ae-prose';
      intro.textContent =
        H === 1
          ? `One head now: it sees all ${hk} query/key columns and all ${hv} value columns at once. With H heads the columns are split into H groups of equal size, so H must divide the widths of Q, K and V; the Heads menu adds zero columns where needed. That changes the model: each head sees only its share of the columns, so every output changes, the first section’s included.${cosine}`
          : `${H} heads over “${state.focus}”. ${Array.from({ length: H }, (_, hh) => `Head ${hh} uses query/key ${range(hh * hk, hk)} and value ${range(hh * hv, hv)}`).join('. ')}. ` +
            `Each head scales its scores by 1/√${hk}, one over the square root of its own head size dₖ, runs softmax on its own, and the outputs are put side by side. This is a different model from the one-head one: every output differs, the first section’s included.${cosine}`;
      // The knobs: every head count the widths allow (padding with zero columns where needed).
      const choices = headChoices(state, LIMITS.width, Math.min(MAX_HEADS, LIMITS.heads));
      setOptions(
        doc,
        headsSel,
        choices.map((c) => ({
          value: c.heads,
          label: c.padded ? `${c.heads} (widths padded to ${c.dk} and ${c.dv})` : String(c.heads),
        })),
        state.options.heads,
      );
      setOptions(
        doc,
        headSel,
        Array.from({ length: H }, (_, i) => ({ value: i, label: `head ${i}` })),
        Math.min(state.options.head, H - 1),
      );
      headSel.disabled = H === 1;
      presetBtn.disabled = !presetApplies(state, TWO_HEADS);
      // Where the shared word looks, per head: do the heads attend differently?
      const row = hl.length ? hl[0] : Math.min(1, tok.length - 1);
      const tops = t.weights.map((w) => {
        const r = w[row];
        const j = r.reduce((b, v, k) => (v > r[b] ? k : b), 0);
        return { j, w: r[j] };
      });
      claim.textContent =
        H === 1
          ? ''
          : `In “${state.focus}”, “${tok[row]}” ${tops.map((x, hh) => `puts ${fmt(x.w, 2)} on “${tok[x.j]}” in head ${hh}`).join(', ')}${new Set(tops.map((x) => x.j)).size > 1 ? ': the heads look at different words.' : ': here the heads agree on where to look.'}`;
      claim.hidden = H === 1;
      for (const m of ['q', 'k', 'v']) {
        const n = m === 'v' ? hv : hk;
        split[m].update({
          context: state.focus,
          shows: { matrix: m, columnsPerHead: n },
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
            shows: { matrix: 'weights', head: hh },
          });
          const o = app.heatmap({
            id: `head-${hh}-out`,
            caption: '',
            rowLabels: [],
            colLabels: [],
            values: [[0]],
            shows: { matrix: 'out', head: hh },
          });
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

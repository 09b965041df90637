// The first section's words come from its numbers (web/lib/claims/contexts.js): at the page's
// default weights, at the notebook's, at the extremes of the temperature, with one, two and four
// heads, with the causal mask, an added word, an edited weight and with no shared word, every
// sentence says what the numbers on screen show.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../../web/engine/engine.js';
import { notebookState } from '../../../../web/lib/state.js';
import { computeAll } from '../../../../web/lib/compute.js';
import { fmt } from '../../../../web/lib/format.js';
import { contextClaims } from '../../../../web/lib/claims/contexts.js';
import { CONTEXT_SEEKING, withPreset } from '../../../../web/lib/presets.js';
import { storyStates, numbersIn } from '../../../helpers/story-states.mjs';

let engine, examples, seed, states;
before(async () => {
  engine = await loadEngine();
  examples = engine.examples();
  seed = notebookState(examples);
  states = storyStates(examples);
});
const at = (patch, base = seed) => {
  const state = { ...base, ...patch, options: { ...base.options, ...(patch.options || {}) } };
  return { state, results: computeAll(engine, state) };
};
const claimsOf = ({ state, results }) => contextClaims(state, results, examples);

test('Contrast_TheNotebooksWeightsSpreadBanksAttentionAndSayingSoIsTrue', () => {
  const { state, results } = at({});
  const row = results.cosines[0];
  assert.equal(row.word, 'bank');
  assert.ok(Math.abs(row.attention - 0.565) < 5e-4, `attention cosine ${row.attention}`);
  // The plain average of each sentence: the mean of its value rows (equal weights).
  assert.ok(Math.abs(row.average - 0.504) < 5e-4, `equal weights ${row.average}`);
  const { claim, honest, kind } = contextClaims(state, results, examples);
  assert.equal(kind, 'notebook');
  assert.match(claim, /cosine 1\.000.*\(1\.000\).*cosine 0\.565/);
  assert.match(
    claim,
    /\(stream 0\.32, bank 0\.39, mud 0\.29\) in “river”.*\(money 0\.33, bank 0\.37, loan 0\.30\) in “finance”/,
  );
  assert.match(honest, /spreads its attention almost evenly/);
  assert.match(honest, /more alike than plain averages of the two sentences \(cosine 0\.565, against 0\.504/);
  assert.match(honest, /notebook’s own hand-set weights/);
});

test('Contrast_SharperAttentionMakesTheBanksMoreAlikeAndTheSentenceSaysSelf', () => {
  const sharp = at({ options: { temperature: 0.1 } });
  assert.ok(Math.abs(sharp.results.cosines[0].attention - 0.932) < 5e-4);
  const said = claimsOf(sharp);
  assert.match(said.claim, /0\.85 of its attention on itself in “river” and 0\.69 on itself in “finance”/);
  // Not spread any more: the notebook's "why" (its attention spread evenly) is not said.
  assert.doesNotMatch(said.honest, /evenly/);
  const flat = at({ options: { temperature: 5 } });
  assert.match(claimsOf(flat).honest, /about as alike as plain averages/);
});

test('Contrast_WeightsThatLookForContextPullTheBanksApart', () => {
  const state = withPreset(seed, CONTEXT_SEEKING).state;
  const results = computeAll(engine, state);
  const row = results.cosines[0];
  assert.ok(row.attention < row.average - 0.2, `${row.attention} vs ${row.average}`);
  assert.ok(Math.abs(row.attention - 0.178) < 5e-4, `${row.attention}`);
  const said = contextClaims(state, results, examples);
  assert.match(said.claim, /0\.86 of its attention on “mud” in “river” and 0\.77 on “loan” in “finance”/);
  assert.match(said.claim, /each a word only its own sentence has/);
  assert.match(said.claim, /cosine 0\.178, further apart than a plain average of each sentence leaves them \(0\.504\)/);
  assert.match(said.honest, /set by hand to show the idea/);
  assert.match(said.honest, /Learn/);
});

test('Contrast_NoSharedWordAsksForOne', () => {
  const { state, results } = at({ contexts: { river: ['stream', 'mud'], finance: ['money', 'loan'] } });
  const said = claimsOf({ state, results });
  assert.match(said.claim, /Add the same word to two sentences/);
  assert.equal(said.honest, '');
});

test('Claims_WhereTheWordLooksIsWhatEachHeadsWeightsSayInEveryState', () => {
  for (const [name, state] of Object.entries(states)) {
    const results = computeAll(engine, state);
    const said = contextClaims(state, results, examples);
    const row = results.cosines[0];
    const H = results.contexts.river.trace.weights.length;
    const shown = state.example === 'river' ? ['river'] : ['river', 'finance'];
    for (let h = 0; h < H; h++) {
      const headsOf = (s) => (/^In heads? ((?:\d+(?:, | and )?)+), /.exec(s)?.[1].match(/\d+/g) ?? []).map(Number);
      const sentence = H > 1 ? said.looks.find((s) => headsOf(s).includes(h)) : said.looks[0];
      assert.ok(sentence, `${name}: a sentence for head ${h}: ${said.looks}`);
      for (const ctx of shown) {
        const entry = results.contexts[ctx];
        const i = ctx === 'river' ? row.i : row.j;
        const weights = entry.trace.weights[h][i];
        const top = weights.indexOf(Math.max(...weights));
        const w = fmt(weights[top], 2);
        if (weights[top] < 0.5)
          assert.match(sentence, new RegExp(`at most ${w} on any one word`), `${name} h${h} ${ctx}`);
        else if (top === i) assert.match(sentence, new RegExp(`${w}( of its attention)? on itself in “${ctx}”`), name);
        else assert.match(sentence, new RegExp(`${w}( of its attention)? on “${entry.tokens[top]}” in “${ctx}”`), name);
        // The words the mask hides are named, and only then.
        const hidden = entry.tokens.filter((_, k) => entry.trace.masked[h][i][k] === -Infinity);
        for (const t of hidden) assert.match(sentence, new RegExp(`hides [^)]*“${t}”`), `${name}: ${t} hidden`);
        if (!hidden.length) assert.doesNotMatch(sentence, /causal mask/, name);
      }
      if (state.example === 'river') assert.doesNotMatch(sentence, /finance/, `${name}: one sentence shown`);
    }
  }
});

test('Claims_EveryNumberSaidIsOneOnScreen', () => {
  for (const [name, state] of Object.entries(states)) {
    const results = computeAll(engine, state);
    const said = contextClaims(state, results, examples);
    const row = results.cosines[0];
    // On screen: the lines' weights (2 decimals) of the shared word, per head; the cosine table.
    const onScreen = new Set(
      ['embedding', 'linear', 'average', 'attention'].filter((k) => row[k] !== null).map((k) => fmt(row[k])),
    );
    for (const [ctx, i] of [
      ['river', row.i],
      ['finance', row.j],
    ])
      for (const w of results.contexts[ctx].trace.weights) w[i].forEach((v) => onScreen.add(fmt(v, 2)));
    for (const n of numbersIn(`${said.claim} ${said.honest}`))
      assert.ok(onScreen.has(n), `${name}: ${n} is not on screen (${[...onScreen].join(' ')}): ${said.claim}`);
  }
});

test('Claims_TwoHeadsSayWhatEachHeadDoesAndHeadsThatAgreeAreSaidOnce', () => {
  const two = contextClaims(states['two heads'], computeAll(engine, states['two heads']), examples);
  assert.equal(two.kind, 'two-heads');
  assert.match(two.claim, /In head 0, “bank” puts 0\.86 of its attention on “mud” in “river” and 0\.77 on “loan”/);
  assert.match(two.claim, /In head 1, “bank” puts 0\.86 of its attention on itself in “river” and 0\.69 on itself/);
  assert.doesNotMatch(two.claim, /at most|evenly/, 'no head spreads its attention');
  assert.equal(two.outputCaption('river'), 'self-attention output of “river”: 2 heads side by side');
  const four = contextClaims(states['heads 4'], computeAll(engine, states['heads 4']), examples);
  assert.match(four.claim, /In head 0, “bank” puts 0\.94 .*In heads 1, 2 and 3, “bank” puts at most 0\.33/);
  assert.equal(four.kind, 'context-seeking', 'padded with zero columns, still the same hand-set weights');
});

test('Claims_TheMaskHidesTheWordAfterBankAndSaysSo', () => {
  const said = contextClaims(states.causal, computeAll(engine, states.causal), examples);
  assert.match(said.claim, /0\.74 of its attention on “stream” in “river” \(the causal mask hides “mud”, after it\)/);
  assert.match(said.claim, /0\.59 on “money” in “finance” \(the causal mask hides “loan”, after it\)/);
});

test('Claims_SayWhatTheWeightsAre', () => {
  const kinds = Object.fromEntries(
    Object.entries(states).map(([n, s]) => [n, contextClaims(s, computeAll(engine, s), examples).kind]),
  );
  assert.equal(kinds.default, 'context-seeking');
  assert.equal(kinds.notebook, 'notebook');
  assert.equal(kinds['two heads'], 'two-heads');
  assert.equal(kinds['an edited weight'], 'own');
  assert.equal(kinds['projections off'], 'raw');
  const own = contextClaims(states['an edited weight'], computeAll(engine, states['an edited weight']), examples);
  assert.match(own.honest, /no longer a hand-set example/);
});

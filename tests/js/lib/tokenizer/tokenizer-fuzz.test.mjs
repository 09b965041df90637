// A short seeded run of the tokenizer fuzzer (tests/fuzz/js/tokenizer_fuzz.mjs): round trips,
// ids in range, GPT-2 against js-tiktoken and gpt-tokenizer, hostile tokenizer files. The long
// runs and their counts are in tests/fuzz/README.md; this keeps the oracles honest in npm test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Finding, checkLoad, fuzzTokenizers, loadTargets } from '../../../fuzz/js/tokenizer_fuzz.mjs';
import { TokenizerError } from '../../../../web/lib/tokenizer/index.js';

const targets = await loadTargets();

test('TokenizerFuzz_SeededRunFindsNothing', async () => {
  const stats = await fuzzTokenizers({ seed: 22, executions: 200, targets });
  assert.deepEqual(stats.findings, [], JSON.stringify(stats.findings));
  assert.equal(stats.executions, 200);
  assert.ok(stats.texts > 100 && stats.files > 10 && stats.compared > 50, JSON.stringify(stats));
});

test('TokenizerFuzz_OraclesCatchALossyRoundTripAndErrorsThatDoNotNameTheFile', async () => {
  // A GPT-2 tokenizer whose decode loses the last character of any text longer than 3.
  const { gpt2 } = targets;
  const lossy = {
    name: 'lossy',
    vocabSize: gpt2.vocabSize,
    addPrefixSpace: false,
    isSpecial: (id) => gpt2.isSpecial(id),
    encode: (text, options) => gpt2.encode(text, options),
    decode: (ids) => {
      const text = gpt2.decode(ids);
      return text.length > 3 ? text.slice(0, -1) : text;
    },
  };
  const lost = await fuzzTokenizers({ seed: 22, executions: 50, targets: { ...targets, gpt2: lossy } });
  assert.match(lost.findings[0]?.message ?? '', /lossy: decode\(encode\(text\)\) differs/);
  // The loaders' oracle: only a TokenizerError whose file and message name one of the files.
  const wrong = [
    () => {
      throw new TypeError('boom');
    },
    () => {
      throw new TokenizerError('model.vocab: bad', 'model.vocab', 'model.vocab');
    },
    () => {
      throw new TokenizerError('bad', 'tokenizer.json', 'tokenizer.json');
    },
  ];
  for (const load of wrong) assert.throws(() => checkLoad('test', ['tokenizer.json'], load), Finding);
  checkLoad('test', ['tokenizer.json'], () => {
    throw new TokenizerError(
      'tokenizer.json model.vocab: bad',
      'tokenizer.json model.vocab',
      'tokenizer.json model.vocab',
    );
  });
});

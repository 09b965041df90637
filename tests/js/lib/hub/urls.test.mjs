// Unit tests of web/lib/hub/urls.js: the Hub's URL scheme as huggingface_hub writes it, what a
// reader may type, and whether a repository holds a GPT-2 checkpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_ENDPOINT,
  PRESETS,
  checkGpt2Config,
  endpointOf,
  gpt2Parameters,
  listingUrl,
  noSafetensorsError,
  parseModelInput,
  repoIdOf,
  resolveUrl,
  siblingNames,
} from '../../../../web/lib/hub/urls.js';
import { HubError } from '../../../../web/lib/hub/errors.js';

const inputError = (argument, pattern) => (error) =>
  error instanceof HubError && error.reason === 'input' && error.argument === argument && pattern.test(error.message);

test('Urls_ResolveUrlIsHfHubUrlsTemplate', () => {
  assert.equal(
    resolveUrl({ repo: 'openai-community/gpt2', file: 'model.safetensors' }),
    'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors',
  );
  // The revision is quoted whole (safe=""), the file name per segment (safe="/"), as hf_hub_url does.
  assert.equal(
    resolveUrl({
      endpoint: 'https://hf-mirror.com/',
      repo: 'gpt2',
      revision: 'refs/pr/21',
      file: 'onnx/decoder model.onnx',
    }),
    'https://hf-mirror.com/gpt2/resolve/refs%2Fpr%2F21/onnx/decoder%20model.onnx',
  );
  assert.throws(() => resolveUrl({ repo: 'gpt2', file: '../secret' }), inputError('file', /expected a file name/));
  assert.throws(() => resolveUrl({ repo: 'gpt2', file: '' }), inputError('file', /expected a file name/));
});

test('Urls_EndpointIsConfigurableLikeHfEndpoint', () => {
  assert.equal(endpointOf(undefined), DEFAULT_ENDPOINT);
  assert.equal(endpointOf(''), DEFAULT_ENDPOINT);
  assert.equal(endpointOf('https://hf-mirror.com///'), 'https://hf-mirror.com'); // rstrip("/")
  assert.equal(endpointOf(' http://10.0.0.5:8080/huggingface/ '), 'http://10.0.0.5:8080/huggingface'); // a path prefix
  assert.throws(() => endpointOf('ftp://x.org'), inputError('endpoint', /expected an http\(s\) URL, got ftp:/));
  assert.throws(() => endpointOf('not a url'), inputError('endpoint', /is not a URL/));
  assert.throws(() => endpointOf('https://u:p@x.org'), inputError('endpoint', /user name or password/));
  assert.throws(() => endpointOf('https://x.org/?a=1'), inputError('endpoint', /without "\?…" or "#…"/));
  assert.throws(() => endpointOf(42), inputError('endpoint', /expected a URL/));
  assert.equal(
    listingUrl({ endpoint: 'http://127.0.0.1:9/hf', repo: 'distilbert/distilgpt2' }),
    'http://127.0.0.1:9/hf/api/models/distilbert/distilgpt2',
  );
  assert.equal(listingUrl({ repo: 'gpt2', revision: 'v1.0' }), 'https://huggingface.co/api/models/gpt2/revision/v1.0');
});

test('Urls_RepoIdFollowsValidateRepoId', () => {
  for (const ok of ['gpt2', 'openai-community/gpt2', 'Foo-BAR_foo.bar123', 'a/b', '123', 'x'.repeat(96)])
    assert.equal(repoIdOf(ok), ok);
  assert.equal(repoIdOf('  openai-community/gpt2 '), 'openai-community/gpt2');
  const bad = [
    ['datasets/foo/bar', /"name" or "namespace\/name"/],
    ['.repo_id', /cannot start or end with "-" or "."/],
    ['repo-', /cannot start or end/],
    ['foo--bar', /"--" and ".." are not allowed/],
    ['other..repo', /"--" and ".."/],
    ['foo.git', /cannot end in ".git"/],
    ['a/' + 'x'.repeat(97), /longer than 96/],
    ['gpt 2', /only letters, digits/],
    ['ümlaut/x', /only letters, digits/],
    ['/gpt2', /a part is empty/],
    ['', /type a repository id/],
  ];
  for (const [text, why] of bad) assert.throws(() => repoIdOf(text), inputError('repo', why), text);
  assert.throws(() => repoIdOf(null), inputError('repo', /expected a repository id/));
});

test('Urls_ParseModelInputTakesIdsPresetsAndUrls', () => {
  const hf = (repo, revision = 'main') => ({ endpoint: DEFAULT_ENDPOINT, repo, revision });
  assert.deepEqual(parseModelInput('openai-community/gpt2'), hf('openai-community/gpt2'));
  assert.deepEqual(parseModelInput('distilgpt2'), hf('distilbert/distilgpt2')); // a preset's id
  assert.deepEqual(
    parseModelInput('https://huggingface.co/openai-community/gpt2-medium'),
    hf('openai-community/gpt2-medium'),
  );
  assert.deepEqual(parseModelInput('huggingface.co/openai-community/gpt2/tree/main'), hf('openai-community/gpt2'));
  assert.deepEqual(
    parseModelInput('https://huggingface.co/openai-community/gpt2/blob/11c5a3d/config.json'),
    hf('openai-community/gpt2', '11c5a3d'),
  );
  assert.deepEqual(
    parseModelInput('https://hf.co/sshleifer/tiny-gpt2/resolve/refs%2Fpr%2F3/model.safetensors'),
    hf('sshleifer/tiny-gpt2', 'refs/pr/3'),
  );
  assert.deepEqual(parseModelInput('https://huggingface.co/gpt2/tree/main'), hf('gpt2')); // a bare legacy name
  // A URL under the configured endpoint keeps it (with its path prefix); another host becomes the endpoint.
  assert.deepEqual(parseModelInput('http://10.0.0.5/hf/openai-community/gpt2', { endpoint: 'http://10.0.0.5/hf' }), {
    endpoint: 'http://10.0.0.5/hf',
    repo: 'openai-community/gpt2',
    revision: 'main',
  });
  assert.deepEqual(parseModelInput('https://hf-mirror.com/openai-community/gpt2'), {
    endpoint: 'https://hf-mirror.com',
    repo: 'openai-community/gpt2',
    revision: 'main',
  });
  // A repository id keeps the configured endpoint.
  assert.deepEqual(parseModelInput('openai-community/gpt2', { endpoint: 'https://hf-mirror.com' }), {
    endpoint: 'https://hf-mirror.com',
    repo: 'openai-community/gpt2',
    revision: 'main',
  });
  assert.throws(
    () => parseModelInput('https://huggingface.co/datasets/wikitext'),
    inputError('model', /is a dataset, not a model/),
  );
  assert.throws(() => parseModelInput('https://huggingface.co/spaces/a/b'), inputError('model', /is a space/));
  assert.throws(() => parseModelInput('https://huggingface.co/'), inputError('model', /names no repository/));
  assert.throws(() => parseModelInput('javascript://alert(1)'), inputError('model', /expected an http\(s\) URL/));
  assert.throws(() => parseModelInput('gpt2; rm -rf'), inputError('model', /only letters, digits/));
  assert.throws(() => parseModelInput('  '), inputError('model', /type a repository id/));
  assert.throws(() => parseModelInput('x'.repeat(3000)), inputError('model', /at most 2048/));
  assert.throws(() => parseModelInput(undefined), inputError('model', /expected a repository id/));
});

test('Urls_PresetsAreTheThreeModelsWithoutSizes', () => {
  assert.deepEqual(
    PRESETS.map((p) => p.repo),
    ['openai-community/gpt2', 'distilbert/distilgpt2', 'openai-community/gpt2-medium'],
  );
  for (const p of PRESETS)
    assert.equal(
      Object.keys(p).some((k) => /size|bytes/i.test(k)),
      false,
    );
});

test('Urls_NoSafetensorsListsTheRepositorysFiles', () => {
  const names = siblingNames({
    siblings: [{ rfilename: 'config.json' }, { rfilename: 'pytorch_model.bin' }, { x: 1 }],
  });
  assert.deepEqual(names, ['config.json', 'pytorch_model.bin']);
  assert.deepEqual(siblingNames(null), []);
  const e = noSafetensorsError('someone/old-gpt2', names);
  assert.equal(e.reason, 'no-safetensors');
  assert.deepEqual(e.files, names);
  assert.match(e.message, /someone\/old-gpt2 has no model\.safetensors/);
  assert.match(e.message, /its files are: config\.json, pytorch_model\.bin \(PyTorch pickle/);
  assert.match(noSafetensorsError('r', []).message, /the listing shows no files/);
  const many = Array.from({ length: 40 }, (_, i) => `f${i}.txt`);
  assert.match(noSafetensorsError('r', many).message, /f29\.txt, and 10 more$/);
});

test('Urls_CheckGpt2ConfigAcceptsGpt2AndNamesOtherArchitectures', () => {
  const gpt2 = {
    model_type: 'gpt2',
    architectures: ['GPT2LMHeadModel'],
    vocab_size: 50257,
    n_positions: 1024,
    n_layer: 12,
    n_head: 12,
    n_embd: 768,
  };
  const { sizes } = checkGpt2Config(JSON.stringify(gpt2));
  assert.deepEqual(sizes, {
    vocabSize: 50257,
    contextLength: 1024,
    layers: 12,
    heads: 12,
    width: 768,
    parameters: 124439808,
  });
  assert.equal(checkGpt2Config({ architectures: ['GPT2LMHeadModel'] }).sizes.parameters, null); // sizes unknown
  const llama = { model_type: 'llama', architectures: ['LlamaForCausalLM'] };
  assert.throws(
    () => checkGpt2Config(llama, { repo: 'meta/llama' }),
    (e) =>
      e.reason === 'not-gpt2' &&
      /meta\/llama is not a GPT-2 model \(its config\.json says model_type "llama", architectures LlamaForCausalLM\)/.test(
        e.message,
      ),
  );
  assert.throws(
    () => checkGpt2Config('{oops'),
    (e) => e.reason === 'not-gpt2' && /config\.json is not JSON/.test(e.message),
  );
  assert.throws(
    () => checkGpt2Config('[1]'),
    (e) => e.reason === 'not-gpt2' && /not a JSON object/.test(e.message),
  );
  assert.throws(
    () => checkGpt2Config({}),
    (e) => /says no model_type/.test(e.message),
  );
});

test('Urls_Gpt2ParametersMatchTheKnownCounts', () => {
  // GPT-2 small as bench/gpt2_checkpoint.mjs counts it; medium and DistilGPT-2 as their model cards say.
  assert.equal(gpt2Parameters({ vocabSize: 50257, contextLength: 1024, layers: 12, width: 768 }), 124439808);
  assert.equal(gpt2Parameters({ vocabSize: 50257, contextLength: 1024, layers: 24, width: 1024 }), 354823168);
  assert.equal(gpt2Parameters({ vocabSize: 50257, contextLength: 1024, layers: 6, width: 768 }), 81912576);
  assert.equal(gpt2Parameters({ vocabSize: 50257, contextLength: 1024, layers: null, width: 768 }), null);
});

// web/tools/embed-dialog.js: the Embed dialog's snippets — the element's tag and attributes (and
// inline JSON when attributes cannot say it), the iframe's — carry the state and stay inert for
// hostile names. The browser round-trip is in tests/e2e/embed.test.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decodeState, sanitizeState } from '../../../web/lib/share.js';
import { elementSnippet, iframeSnippet, elementConfig } from '../../../web/tools/embed-dialog.js';
import { defaults, edited } from '../../helpers/seed-state.mjs';

test('ElementSnippet_TheExamplesOwnFigureIsJustTheTag', () => {
  // Without a view attribute the element shows its example's compact figure (the bank contrast);
  // the page's whole-explorer default needs view="all".
  assert.equal(
    elementSnippet({ ...defaults(), view: ['contexts'] }, defaults(), { src: 'x.js' }),
    '<script type="module" src="x.js"></script>\n<attention-explorer controls="minimal"></attention-explorer>\n',
  );
  assert.equal(
    elementSnippet(defaults(), defaults(), { src: 'x.js' }),
    '<script type="module" src="x.js"></script>\n<attention-explorer view="all" controls="minimal"></attention-explorer>\n',
  );
});

test('ElementSnippet_SimpleEditsBecomeAttributes', () => {
  const s = defaults();
  s.example = 'finance';
  s.focus = 'finance';
  s.options.causal = true;
  s.options.temperature = 2;
  s.view = ['weights', 'output'];
  s.contexts.finance = ['loan', 'bank'];
  const { attributes, json } = elementConfig(s, defaults());
  assert.equal(json, null);
  assert.deepEqual(Object.fromEntries(attributes), {
    example: 'finance',
    view: 'weights,output',
    tokens: 'finance: loan bank',
    causal: 'true',
    temperature: '2',
  });
});

test('ElementSnippet_HostileNamesCannotCloseTheScriptOrTheAttribute', () => {
  const s = defaults();
  const evil = '</script><img src=x onerror=f()>';
  s.vocab[evil] = [1, 2, 3, 4];
  s.contexts.river = ['stream', evil];
  s.options.dropout = 0.1;
  s.options.training = true;
  const snippet = elementSnippet(s, defaults(), { src: 'a.js?"><script>' });
  assert.equal(snippet.match(/<\/script>/g).length, 2, snippet); // only our own two closers
  assert.ok(!snippet.includes('<img'));
  assert.ok(snippet.includes('src="a.js?&quot;&gt;&lt;script&gt;"'));
  const json = JSON.parse(/<script type="application\/json">([\s\S]*?)<\/script>/.exec(snippet)[1]);
  assert.deepEqual(json.contexts.river, ['stream', evil]);
  assert.deepEqual(json.options, { dropout: 0.1, training: true });
  const { state, problems } = sanitizeState(json, defaults());
  assert.deepEqual(problems, []);
  assert.deepEqual(state.vocab[evil], [1, 2, 3, 4]);
});

test('IframeSnippet_CarriesTheHashAndSizesTheFrame', () => {
  const s = edited();
  const snippet = iframeSnippet(s, defaults(), { embedUrl: 'https://example.org/embed.html' });
  const src = /<iframe src="([^"]+)"/.exec(snippet)[1].replace(/&amp;/g, '&');
  const hash = src.slice(src.indexOf('#'));
  assert.equal(src.slice(0, src.indexOf('#')), 'https://example.org/embed.html');
  assert.deepEqual(sanitizeState(decodeState(hash), defaults()).state, s);
  // No inline script (the strict CSP blocks it): the sizing script is a file beside embed.html.
  assert.match(snippet, /<script src="https:\/\/example\.org\/embed-host\.js" defer><\/script>/);
  assert.doesNotMatch(snippet, /<script>/);
});

// scripts/serve.mjs: the policy `npm start` serves the page with is the page's own (the meta of
// web/index.html and of dist/index.html, the built page it serves), so the Hub's download (connect-src) is allowed by both, as on a host that copies them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CSP, PAGE_CSP } from '../../scripts/serve.mjs';

test('Serve_ThePagesPolicyIsIndexHtmlsAndAllowsTheHubOnTopOfTheStrictOne', () => {
  for (const page of ['../../web/index.html', '../../dist/index.html']) {
    const html = fs.readFileSync(new URL(page, import.meta.url), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    assert.equal(PAGE_CSP, meta, page);
  }
  assert.ok(PAGE_CSP.startsWith(CSP));
  assert.match(PAGE_CSP, /connect-src 'self' https:\/\/huggingface\.co https:\/\/\*\.hf\.co$/);
});

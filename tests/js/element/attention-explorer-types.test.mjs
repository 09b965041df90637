// web/element/attention-explorer.d.ts against what the README documents and what the element
// reads (lib/attributes.js): every attribute, every value the README lists for view, example,
// controls and theme, every custom property and ::part() name is in the types (issue 33: figure,
// caption, sentence, model-url and the views gpt, next, naive were missing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ATTRIBUTES } from '../../../web/lib/attributes.js';

const read = (rel) => fs.readFileSync(new URL(`../../../${rel}`, import.meta.url), 'utf8');
const types = read('web/element/attention-explorer.d.ts');
const readme = read('README.md');

/** The body of `export interface name {…}` or `export type name = …;`. */
function declaration(name) {
  const m = new RegExp(`export (?:interface ${name} \\{([\\s\\S]*?)\\n\\}|type ${name} =([\\s\\S]*?);)`).exec(types);
  assert.ok(m, `the .d.ts declares ${name}`);
  return m[1] ?? m[2];
}
const literals = (text) => [...text.matchAll(/'([^']*)'/g)].map((m) => m[1]);
const ticked = (text) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
/** A README table after `heading` (text up to the first line that is not a row), as cells. */
function table(heading) {
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `the README has ${heading}`);
  const lines = readme.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows = lines.slice(first, first + lines.slice(first).findIndex((l) => !l.startsWith('|')));
  return rows.slice(2).map((l) => l.split('|').slice(1, -1));
}

const attributesType = declaration('AttentionExplorerAttributes');
const typedAttributes = [...attributesType.matchAll(/^\s*'?([\w-]+)'?\?:/gm)].map((m) => m[1]);
const attributeRows = table('**Attributes.**');
const valuesOf = (name) => attributeRows.find(([names]) => ticked(names).includes(name))?.[1] ?? '';
/** The literal values a property of AttentionExplorerAttributes is typed with. */
const typedValues = (name) => {
  const m = new RegExp(`^\\s*'?${name}'?\\?:([^;]*);`, 'm').exec(attributesType);
  assert.ok(m, `${name} is typed`);
  return literals(m[1]);
};

test('Types_EveryAttributeTheElementReadsAndTheReadmeDocumentsIsTyped', () => {
  for (const name of ATTRIBUTES)
    assert.ok(typedAttributes.includes(name), `${name} (lib/attributes.js) is in the .d.ts`);
  const documented = attributeRows.flatMap(([names]) => ticked(names));
  assert.ok(documented.length >= ATTRIBUTES.length, `${documented.length} attributes in the README's table`);
  for (const name of documented) assert.ok(typedAttributes.includes(name), `${name} (README) is in the .d.ts`);
  for (const name of ATTRIBUTES) assert.ok(documented.includes(name), `${name} is in the README's table`);
});

test('Types_EveryValueTheReadmeListsIsTyped', () => {
  const views = literals(declaration('ExplorerView'));
  const documentedViews = ticked(valuesOf('view'));
  for (const view of ['gpt', 'next', 'naive', 'all']) assert.ok(documentedViews.includes(view), `README lists ${view}`);
  for (const view of documentedViews) assert.ok(views.includes(view), `view "${view}" is an ExplorerView`);
  assert.equal(new Set(views).size, views.length, 'each view once');
  const tasks = literals(/task: ([^;]*);/.exec(declaration('LearnState'))[1]);
  for (const value of ticked(valuesOf('example'))) {
    if (value.startsWith('learn:'))
      assert.ok(tasks.includes(value.slice(6)), `example "${value}": learn:\${LearnTask}`);
    else assert.ok(typedValues('example').includes(value), `example "${value}" is typed`);
  }
  assert.match(types, /`learn:\$\{LearnTask\}`/);
  for (const name of ['controls', 'theme'])
    for (const value of ticked(valuesOf(name)))
      assert.ok(typedValues(name).includes(value), `${name}="${value}" is typed`);
  for (const name of ['causal', 'scale', 'projections', 'figure', 'autoplay'])
    for (const value of ['', 'true', 'false', name]) assert.ok(typedValues(name).includes(value), `${name}="${value}"`);
});

test('Types_EveryCustomPropertyAndPartTheReadmeNamesIsTyped', () => {
  const properties = literals(declaration('AttentionExplorerCustomProperty'));
  const documented = table('<!-- theming-table -->').map(([name]) => ticked(name)[0]);
  assert.ok(documented.length >= 10, `${documented.length} properties in the README`);
  assert.deepEqual([...documented].sort(), [...properties].sort());
  // And the element's styles read each one (the palette's meanings — the accent, the focus ring,
  // the shared word's tint — are set on the root by lib/palette.js, which reads the host's).
  const css = read('web/styles/explorer.css') + read('web/element/element.css') + read('web/lib/palette.js');
  for (const p of properties) assert.ok(css.includes(`var(${p}`), `${p} is read by the styles`);
  const parts = declaration('AttentionExplorerPart');
  const partsText = /`::part\(\)` reaches inside:([\s\S]*?)\n\n/.exec(readme)?.[1];
  assert.ok(partsText, 'the README lists the parts');
  for (const name of ticked(partsText).filter((n) => /^[a-z][a-z<>-]*$/.test(n))) {
    const typed = name.startsWith('section-') ? parts.includes('`section-${string}`') : literals(parts).includes(name);
    assert.ok(typed, `part ${name}`);
  }
});

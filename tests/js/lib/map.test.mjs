// The map of the whole transformer (web/lib/map.js): its blocks in a token's order, every
// section's blocks, and the shapes it writes — the toy example's from the state (heads 1, 2 and
// 4, another sentence), the real model's from its config.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from '../../../web/engine/engine.js';
import { computeAll } from '../../../web/lib/compute.js';
import { BLOCKS, blocksFor, mapShapes, modeFor, toySizes } from '../../../web/lib/map.js';
import { SECTIONS } from '../../../web/views/sections.js';
import { storyStates } from '../../helpers/story-states.mjs';

let engine, states;
before(async () => {
  engine = await loadEngine();
  states = storyStates(engine.examples());
});
const plain = (s) => s.replace(/\u202f/g, ' ');

test('Map_TheBlocksAreATokensPathThroughATransformer', () => {
  assert.deepEqual(
    BLOCKS.map((b) => `${b.layer ? '[' : ''}${b.label}`),
    [
      'Tokens',
      'Embedding + position',
      '[LayerNorm',
      '[Self-attention',
      '[+',
      '[LayerNorm',
      '[MLP',
      '[+',
      'LayerNorm',
      'Unembedding',
      'Probabilities',
    ],
  );
  // Every block links to a section of the page.
  const ids = SECTIONS.map((s) => s.id);
  for (const b of BLOCKS) assert.ok(ids.includes(b.target), `${b.id} → ${b.target}`);
});

test('Map_EachSectionIsAboutTheBlocksItExplains', () => {
  for (const id of [
    'contexts',
    'averaging',
    'qkv',
    'plane',
    'pipeline',
    'lines',
    'scaling',
    'loops',
    'heads',
    'formula',
  ])
    assert.deepEqual(blocksFor(id), ['attention'], id);
  assert.deepEqual(blocksFor('order'), ['embed']);
  assert.ok(blocksFor('next').includes('mlp') && blocksFor('next').includes('unembed'));
  assert.equal(blocksFor('learn').length, BLOCKS.length, 'Learn trains every block');
  assert.deepEqual(blocksFor('edit'), []);
  assert.equal(modeFor('gpt'), 'real');
  assert.equal(modeFor('pipeline'), 'toy');
});

test('Map_TheToyShapesFollowTheState', () => {
  for (const [name, heads, dk, out, T] of [
    ['default', 1, 2, 3, 3],
    ['heads 2', 2, 1, 4, 3],
    ['heads 4', 4, 1, 4, 3],
    ['an added word', 1, 2, 3, 4],
  ]) {
    const s = states[name];
    const toy = toySizes(s, computeAll(engine, s));
    const said = mapShapes('toy', toy, null);
    assert.equal(plain(said.shapes.tokens[0]), `T = ${T}`, name);
    assert.equal(plain(said.shapes.embed[0]), `${T} × 4`, name);
    assert.deepEqual(said.shapes.attention.map(plain), [
      `${heads} head${heads === 1 ? '' : 's'} · dₖ ${dk}`,
      `weights ${heads} × ${T} × ${T}`,
      `out ${T} × ${out}`,
    ]);
    assert.deepEqual(said.absent, ['ln1', 'add1', 'ln2', 'mlp', 'add2', 'lnf', 'unembed', 'probs']);
    assert.match(said.caption, new RegExp(`T = ${T} tokens .* H = ${heads} head`), name);
  }
});

test('Map_TheRealModelsShapesComeFromItsConfigOnceItIsOpen', () => {
  const config = { width: 128, heads: 4, layers: 4, vocabSize: 4096, contextLength: 128, mlp: true, layerNorm: true };
  const said = mapShapes('real', null, { name: 'brown-wordnet', config });
  assert.equal(said.layers, '× 4');
  assert.deepEqual(said.shapes.attention.map(plain), ['4 heads · dₖ 32', 'weights 4 × T × T', 'out T × 128']);
  assert.deepEqual(said.shapes.mlp.map(plain), ['T × 128 → 512 → 128']);
  assert.deepEqual(said.shapes.unembed.map(plain), ['T × 4096']);
  assert.deepEqual(said.absent, []);
  assert.match(said.caption, /brown-wordnet: 4 layers, D = 128, H = 4 heads, a vocabulary of V = 4096/);
  const bare = mapShapes('real', null, { name: 'm', config: { ...config, mlp: false, layerNorm: false } });
  assert.deepEqual(bare.absent, ['ln1', 'ln2', 'lnf', 'mlp', 'add2']);
  assert.match(mapShapes('real', null, null).caption, /once it has opened/);
});

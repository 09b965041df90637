// The registry of sections: the explorer (web/shell/) mounts these, in this order, and knows
// nothing else about them. A new section is a view file (render(section, app) → {update}) and
// one entry here.
//
// Teaching order, one idea each. First attention doing its job: the bank contrast (seed 003,
// with weights whose "bank" looks for the context word), then the map of the whole transformer
// it sits in. Then the mechanics of one attention layer: averaging — the dullest rule (002),
// naive scores X·Xᵀ and why queries and keys are needed, the plane of queries and keys, attention
// step by step with each knob at the step it changes (001), the weights as lines, why √dₖ, the
// loops (000), many heads and W_O (001), order and positions, the formula (004). Then the rest of
// the block (what happens next: output projection, residual, MLP, logits), then the model
// (learning, a real model). The notebooks cell by cell come after, as a companion for a reader
// arriving from one of them; the editor and the engineers' panel last.
//
// Each entry:
//   id        its name: section[data-section=id], the table of contents' and overview's targets
//   title     its name in the table of contents and the overview strip (none: not listed)
//   views     the state.view names that show it ('all' shows every section)
//   load      () => import of its module; or `mod`, the module itself (imported statically: the
//             first section makes the first paint, the others load right after it)
//   needs     an engine feature (engine.features) it draws with; where the engine lacks it (the
//             element's small build), the whole engine is swapped in (web/shell/section-loader.js)
//   controls  mounted only in that controls mode ('full' | 'minimal'), with views: [] (its knobs);
//   notFor    …and then shown unless every view shown is one of these
// SECTION_LOADERS are the modules scripts/build-dist.mjs puts in files beside the element's.
import * as contexts from './contexts.js';
import { SECTION_LOADERS } from './full-engine-sections.js';
import { VIEWS } from '../lib/state.js';

export const SECTIONS = Object.freeze([
  // The bar's context, mask and temperature act on the bank example: not drawn above figures
  // that have nothing of it (Learn, the real model, the notebooks, the √dₖ experiment).
  {
    id: 'minimal-bar',
    load: () => import('./minimal-bar.js'),
    views: [],
    controls: 'minimal',
    notFor: ['learn', 'model', 'gpt', 'next', 'notebook', 'scaling'],
  },
  { id: 'overview', load: SECTION_LOADERS.overview, views: [], controls: 'full' },
  { id: 'contexts', mod: contexts, views: ['contexts'], title: 'Two sentences, one word' },
  // The map of the whole page's subject: with the whole page only (a link to some views has no
  // use for it).
  { id: 'map', load: SECTION_LOADERS.map, views: [], controls: 'full', notFor: VIEWS, title: 'The whole transformer' },
  { id: 'averaging', load: () => import('./averaging.js'), views: ['averaging'], title: 'Averaging the past' },
  { id: 'naive', load: () => import('./naive.js'), views: ['naive', 'x'], title: 'Naive scores X·Xᵀ' },
  { id: 'qkv', load: () => import('./qkv.js'), views: ['qkv'], title: 'Queries, keys, values' },
  { id: 'plane', load: SECTION_LOADERS.plane, views: ['plane'], needs: 'pca', title: 'The plane' },
  {
    id: 'pipeline',
    load: () => import('./pipeline.js'),
    views: ['scores', 'scaled', 'masked', 'weights', 'output'],
    title: 'Step by step',
  },
  { id: 'lines', load: () => import('./lines.js'), views: ['lines'], title: 'Lines' },
  { id: 'scaling', load: () => import('./scaling.js'), views: ['scaling'], title: 'Why ÷√dₖ' },
  { id: 'loops', load: () => import('./stepper.js'), views: ['loops'], title: 'Loops' },
  { id: 'heads', load: () => import('./heads.js'), views: ['heads'], title: 'Many heads' },
  { id: 'order', load: () => import('./order.js'), views: ['order'], title: 'Order' },
  { id: 'formula', load: () => import('./formula.js'), views: ['formula'], title: 'Formula' },
  { id: 'next', load: SECTION_LOADERS.next, views: ['next'], needs: 'openModel', title: 'What happens next' },
  { id: 'learn', load: SECTION_LOADERS.learn, views: ['learn', 'model'], needs: 'createModel', title: 'Learn' },
  { id: 'gpt', load: SECTION_LOADERS.gpt, views: ['gpt'], needs: 'openModel', title: 'A real model' },
  { id: 'notebook', load: SECTION_LOADERS.notebook, views: ['notebook'], needs: 'torchGenerator', title: 'Notebooks' },
  { id: 'edit', load: SECTION_LOADERS.editor, views: [], controls: 'full', title: 'Edit' },
  { id: 'engineers', load: SECTION_LOADERS.engineers, views: [], controls: 'full', title: 'For engineers' },
]);

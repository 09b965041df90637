// Types for <attention-explorer> (attention-explorer.js). Importing the module registers the
// element; these declarations describe what a host page can use: the attributes, the
// properties and methods, and the 'change' and 'step' events. Shipped as
// dist/attention-explorer.d.ts next to the bundled element and dist/engine.d.ts (a copy of
// web/lib/engine.d.ts), so the import below names the engine's types as shipped.
import type { Engine } from './engine.js';

/**
 * The names `view` accepts: page sections, pipeline steps and the real model's parts ('gpt-…';
 * 'gpt' is the whole real-model section, 'all' shows everything). An unknown
 * name is named in the element's notice; a view of none it knows shows the default figure.
 */
export type ExplorerView =
  | 'all'
  | 'contexts'
  | 'controls'
  | 'edit'
  | 'averaging'
  | 'x'
  | 'naive'
  | 'qkv'
  | 'plane'
  | 'scores'
  | 'scaled'
  | 'masked'
  | 'weights'
  | 'output'
  | 'lines'
  | 'next'
  | 'scaling'
  | 'loops'
  | 'heads'
  | 'order'
  | 'formula'
  | 'learn'
  | 'model'
  | 'gpt'
  | 'gpt-tokens'
  | 'gpt-heads'
  | 'gpt-head'
  | 'gpt-roles'
  | 'gpt-next'
  | 'gpt-kv'
  | 'gpt-bank'
  | 'gpt-tools'
  | 'gpt-knockout'
  | 'gpt-attribution'
  | 'gpt-lens'
  | 'gpt-senses'
  | 'gpt-picker'
  | 'notebook';

/** The explorer's whole state: what the share link (URL hash) and the inline JSON hold. */
export interface ExplorerState {
  /**
   * Format version: 2 (since 0.4.0). A state of format 1 is still read: what it leaves out comes
   * from that format's defaults (seed 003's W_Q and W_K).
   */
  v: 2;
  /** 'river', 'finance', 'both', 'averaging' or the name of one of `contexts`. */
  example: string;
  /** Word → embedding (all of one width D). */
  vocab: Record<string, number[]>;
  /** Context name → its words (each in `vocab`). */
  contexts: Record<string, string[]>;
  /** Projections (D, dk), (D, dk), (D, dv) and the plain linear layer `w` (D, D). */
  weights: { wq: number[][]; wk: number[][]; wv: number[][]; w?: number[][] };
  options: {
    projections: boolean;
    scale: boolean;
    causal: boolean;
    temperature: number;
    dropout: number;
    seed: number;
    training: boolean;
    heads: number;
    head: number;
    kernel: 'reference' | 'vectorized' | 'simd';
  };
  /** The context the single-sentence views show. */
  focus: string;
  view: ExplorerView[];
  /** The loops stepper's position. */
  step: number;
  /** The explained cell, if any. */
  selected: { matrix: string; row: number; col: number } | null;
  theme: 'auto' | 'light' | 'dark';
  /** The notebook the "From the notebooks" section shows. */
  notebook?: '000' | '001' | '002' | '003' | '004';
  /** The Learn section's run (null until the reader changes it). */
  learn?: LearnState | null;
  /** The real model's figure: which model, the sentence, what it shows (null: the defaults). */
  gpt?: RealModelState | null;
}

/** The real model's figure (the `gpt` and `next` views): everything a link carries of it. */
export interface RealModelState {
  /** The project's own model, one a page names by URL, or a file the reader opened (not in links). */
  model:
    | { kind: 'shipped' }
    | { kind: 'url'; url: string; config?: string; tokenizer?: string; heads?: number }
    | { kind: 'file' };
  /** 1 to 2,000 characters. */
  sentence: string;
  layer: number;
  head: number;
  picture: 'head' | 'mean' | 'rollout';
  temperature: number;
  topK: number;
  topP: number;
  seed: number;
  /** The shared word across two sentences, layer by layer. */
  bank: { a: string; b: string; word: string };
}

/** The Learn section's run: everything a link needs to retrain to the same weights. */
export interface LearnState {
  task: 'copy' | 'reverse' | 'sort' | 'repeat' | 'bank' | 'text';
  layers: number;
  heads: number;
  width: number;
  mlp: boolean;
  layerNorm: boolean;
  lr: number;
  batch: number;
  seed: number;
  /** Steps trained: a page opened from the link retrains to this step. */
  steps: number;
  /** The step a press of Train (or autoplay) trains to. */
  until?: number;
  /** Train as soon as the section is on screen. */
  autoplay?: boolean;
  /** The pace a run is watched at: 'watch' (the default when absent: the task's own pace until its
   * pattern has formed, then fast), 'fast', or steps per second (0 < n ≤ 1000). The run is the
   * same at any pace. */
  speed?: 'watch' | 'fast' | number;
  /** The character model's context (task 'text'). */
  context?: number;
  /** The text to learn (task 'text'; in links only up to 2000 characters). */
  text?: string;
  /** The bank corpus (task 'bank'; in links only up to 40 sentences). */
  sentences?: string[];
  /** Start the bank task from notebook 3's hand-set weights (task 'bank'). */
  fromSeed?: boolean;
}

/** A partial state for setState(): `options` is merged key by key. */
export type ExplorerStatePatch = Partial<Omit<ExplorerState, 'options' | 'v'>> & {
  v?: 1 | 2;
  options?: Partial<ExplorerState['options']>;
};

/** The Learn tasks `example="learn:<task>"` names. */
export type LearnTask = LearnState['task'];

/** The element's attributes (all strings, as in HTML). */
export interface AttentionExplorerAttributes {
  /**
   * 'river', 'finance', 'both', 'averaging', the name of a context of the inline JSON, or
   * 'learn:<task>' (copy, reverse, sort, repeat, bank, text) for the Learn section alone.
   */
  example?: 'river' | 'finance' | 'both' | 'averaging' | `learn:${LearnTask}` | (string & {});
  /** Steps to show, comma or space separated: "scores,weights,output", or "all". */
  view?: string;
  /** "stream bank mud" (the focused context) or "river: stream bank mud; finance: money bank loan". */
  tokens?: string;
  causal?: '' | 'true' | 'false' | 'causal';
  scale?: '' | 'true' | 'false' | 'scale';
  temperature?: string;
  heads?: string;
  projections?: '' | 'true' | 'false' | 'projections';
  theme?: 'light' | 'dark' | 'auto';
  controls?: 'none' | 'minimal' | 'full';
  step?: string;
  /** A CSS length: "480", "480px", "30rem", "70vh". The element scrolls inside it. */
  height?: string;
  /** With example="learn:…": the step a run trains to. */
  steps?: string;
  /** With example="learn:…": train as soon as the figure is on screen. */
  autoplay?: '' | 'true' | 'false' | 'autoplay';
  /** With example="learn:…": the pace it is watched at — "watch" (default), "fast", or steps per second. */
  speed?: 'watch' | 'fast' | string;
  /** The figures alone: no headings, paragraphs, step numbers or sentence pickers. */
  figure?: '' | 'true' | 'false' | 'figure';
  /** A line of text under the figures (up to 300 characters). */
  caption?: string;
  /** The real model's sentence (1 to 2,000 characters); without a view, the figure is the real model. */
  sentence?: string;
  /** A GPT-2-family or nanoGPT model.safetensors (http(s) or relative) for the real model's figure. */
  'model-url'?: string;
  /** With model-url: its config.json. */
  'config-url'?: string;
  /** With model-url: its tokenizer.json (else GPT-2's own). */
  'tokenizer-url'?: string;
  /** With model-url and no config-url: its number of heads. */
  'model-heads'?: string;
  /**
   * A GPT-2 of the Hugging Face Hub for the real model's figure, downloaded with a progress bar and
   * kept in the reader's browser: a preset ("gpt2", "distilgpt2", "gpt2-medium"), a repository id
   * ("openai-community/gpt2") or its URL. The page's connect-src must allow the Hub and its CDN.
   */
  model?: 'gpt2' | 'distilgpt2' | 'gpt2-medium' | string;
  /** With model: the Hub's endpoint, as huggingface_hub's HF_ENDPOINT (default https://huggingface.co). */
  'hf-endpoint'?: string;
  /**
   * How the real model keeps its weights: "f32" (float32, the numbers PyTorch gives), "f16" (half
   * the memory, faster generation, each weight rounded to the nearest half), "bf16" (half the
   * memory, the fastest generation with one thread too, each weight rounded to a bfloat16: 8 times
   * F16's rounding error) or "auto" (the default: float32 where it fits the memory, else F16).
   */
  'model-precision'?: 'auto' | 'f32' | 'f16' | 'bf16';
}

/**
 * The custom properties a page themes the figures with (set on the element or an ancestor). Those
 * not set follow --ae-bg, --ae-fg and --ae-accent where the page sets them, else the light or dark
 * theme's own colours.
 */
export type AttentionExplorerCustomProperty =
  | '--ae-font'
  | '--ae-bg'
  | '--ae-fg'
  | '--ae-accent'
  | '--ae-card'
  | '--ae-cell'
  | '--ae-border'
  | '--ae-muted'
  | '--ae-highlight'
  | '--ae-focus';

/** The names ::part() reaches inside the element (and `section-<id>` for each section). */
export type AttentionExplorerPart =
  'explorer' | 'section' | `section-${string}` | 'card' | 'heatmap' | 'legend' | 'caption' | 'notice';

export interface AttentionExplorerEventMap extends HTMLElementEventMap {
  /** After every state change; `detail.state` is a copy. */
  change: CustomEvent<{ state: ExplorerState }>;
  /** When the stepper moves. */
  step: CustomEvent<{ step: number }>;
}

export class AttentionExplorerElement extends HTMLElement {
  static readonly observedAttributes: readonly string[];
  /**
   * Resolves to the element once it has rendered what is near the viewport (a figure far down the
   * page fetches its files and draws as it nears the screen); rejects if the engine could not load.
   */
  readonly ready: Promise<AttentionExplorerElement>;
  /** A copy of the current state (null until ready). Assigning replaces the state. */
  get state(): ExplorerState | null;
  set state(value: ExplorerState);
  /** The engine all elements on the page share. */
  readonly engine: Promise<Engine>;
  /** The controls attribute, parsed. */
  readonly controls: 'none' | 'minimal' | 'full';
  /**
   * Merges `patch` into the state (or replaces it with {replace: true}). Returns the problems
   * found (also shown in the element); bad fields keep their current values. Before ready the
   * patch is queued and null is returned.
   */
  setState(patch: ExplorerStatePatch, options?: { replace?: boolean }): string[] | null;
  /** Moves the stepper by `delta` (default 1), clamped; returns the new step (null before ready). */
  step(delta?: number): number | null;

  addEventListener<K extends keyof AttentionExplorerEventMap>(
    type: K,
    listener: (this: AttentionExplorerElement, event: AttentionExplorerEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof AttentionExplorerEventMap>(
    type: K,
    listener: (this: AttentionExplorerElement, event: AttentionExplorerEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** The engine all elements on the page share (loaded on first use). */
export function sharedEngine(): Promise<Engine>;

/** The attribute names the element observes. */
export const ATTRIBUTES: readonly (keyof AttentionExplorerAttributes)[];

declare global {
  interface HTMLElementTagNameMap {
    'attention-explorer': AttentionExplorerElement;
  }
}

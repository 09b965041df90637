// The <attention-explorer> element's configuration as data: its attributes and its inline
// <script type="application/json"> state, turned into an untrusted state that sanitizeState()
// then checks. Pure (strings in, objects and problem texts out); unit-tested in
// tests/js/lib/attributes.test.mjs. Problems name the attribute and what it expected.
import { LIMITS } from './limits.js';
import { clip } from './text.js';
import { knownViews } from './share.js';
import { endpointOf, parseModelInput } from './hub/urls.js';
import { PRECISION_CHOICES } from './real/gpt-state.js';

export const ATTRIBUTES = Object.freeze([
  'example',
  'view',
  'tokens',
  'causal',
  'scale',
  'temperature',
  'heads',
  'projections',
  'theme',
  'controls',
  'step',
  'height',
  'steps',
  'autoplay',
  'speed',
  'figure',
  'caption',
  'sentence',
  'model-url',
  'config-url',
  'tokenizer-url',
  'model-heads',
  'model',
  'hf-endpoint',
  'model-precision',
]);
// The real-model attributes: any of them makes the element's default figure the real model.
const GPT_ATTRIBUTES = Object.freeze([
  'sentence',
  'model-url',
  'config-url',
  'tokenizer-url',
  'model-heads',
  'model',
  'hf-endpoint',
  'model-precision',
]);
export const CONTROLS = Object.freeze(['none', 'minimal', 'full']);

// What a removed attribute returns to (null: removing it keeps what is shown).
const REMOVED = Object.freeze({
  causal: 'false',
  projections: 'true',
  scale: 'true',
  temperature: '1',
  heads: '1',
  step: '0',
  theme: 'auto',
});

/** The text an attribute is treated as once removed, or null when removal changes nothing. */
export function removedAttributeText(name) {
  return REMOVED[name] ?? null;
}

function parseBool(name, text, problems) {
  const t = text.trim().toLowerCase();
  if (t === '' || t === 'true' || t === name) return true;
  if (t === 'false') return false;
  problems.push(`${name}="${clip(text)}": expected true or false (or the bare attribute)`);
  return undefined;
}

function parseNumber(name, text, problems, { integer = false } = {}) {
  const t = text.trim();
  const ok = integer ? /^[+]?\d+$/.test(t) : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t);
  if (!ok) {
    problems.push(`${name}="${clip(text)}": expected ${integer ? 'a whole number' : 'a number'}`);
    return undefined;
  }
  return Number(t);
}

/** A CSS length for the height attribute ("480", "480px", "30rem", "70vh"), or null. */
export function parseHeight(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(px|em|rem|vh|svh|dvh|lvh)?\s*$/.exec(text);
  if (!m) return null;
  return `${m[1]}${m[2] || 'px'}`;
}

/** The controls attribute as one of CONTROLS (minimal when absent or unknown). */
export function parseControls(text) {
  const c = (text ?? 'minimal').trim();
  return CONTROLS.includes(c) ? c : 'minimal';
}

/**
 * The element's figure when it names no view (its compact default): the Learn section for
 * example="learn:<task>", the averaging figure for "averaging", and for the bank examples (or a
 * context of the blogger's own) the contrast of the two sentences; with a real-model attribute
 * (sentence, model-url…) the real model. view="all" shows everything.
 */
export function defaultViewFor(example, { real = false } = {}) {
  if (real) return ['gpt'];
  const ex = typeof example === 'string' ? example.trim() : '';
  if (ex.startsWith('learn:')) return ['learn'];
  if (ex === 'averaging') return ['averaging'];
  return ['contexts'];
}

/** The figure-only presentation from the figure and caption attributes (not part of the state). */
export function parsePresentation(figureText, captionText, problems = []) {
  const figure = figureText === null || figureText === undefined ? false : parseBool('figure', figureText, problems);
  const caption = typeof captionText === 'string' ? clip(captionText.trim(), LIMITS.captionChars) : '';
  return { figure: Boolean(figure), caption };
}

/**
 * Applies attribute values ({name: text}; absent attributes are left out) to an untrusted state
 * object. Returns {state, problems}; the result still goes through sanitizeState().
 * @param {object} base  untrusted partial state (from JSON) or the current state
 * @param {object} defaults  the default state (for context names when `base` has none)
 * @param {{defaultView?: boolean}} how  defaultView: with no view attribute, show the example's
 *   compact figure (defaultViewFor) — the element asks for it when it starts or its example
 *   changes, unless its JSON names a view.
 */
export function applyAttributes(base, attrs, defaults, { defaultView = false } = {}) {
  const problems = [];
  const out = { ...base };
  const options = { ...(base.options && typeof base.options === 'object' ? base.options : {}) };
  const has = (n) => attrs[n] !== undefined && attrs[n] !== null;
  const contextsOf = () => (out.contexts && typeof out.contexts === 'object' ? out.contexts : defaults.contexts);
  const learn = () => (out.learn = { ...(out.learn && typeof out.learn === 'object' ? out.learn : {}) });
  const example = has('example') ? attrs.example.trim() : null;
  if (example?.startsWith('learn:')) {
    // example="learn:reverse": the Learn section, on that task.
    learn().task = example.slice('learn:'.length);
  } else if (example) {
    out.example = example;
    if (Object.prototype.hasOwnProperty.call(contextsOf(), example)) out.focus = example;
  }
  const real = GPT_ATTRIBUTES.some(has);
  const defaultFigure = () => defaultViewFor(example ?? (typeof out.example === 'string' ? out.example : ''), { real });
  if (has('view')) out.view = attrs.view.split(/[\s,]+/).filter(Boolean);
  else if (defaultView) out.view = defaultFigure();
  // Unknown names are named with the accepted ones; a view of none the explorer knows (a typo,
  // view="weigths") shows the element's default figure, not the whole explorer.
  if (Array.isArray(out.view) && out.view.length) {
    const { known, unknown } = knownViews(out.view);
    if (unknown.length) {
      problems.push(...unknown);
      out.view = known.length ? known : defaultFigure();
      if (!known.length) problems.push(`view: showing the default figure (${out.view.join(', ')}) instead`);
    }
  }
  if (real) applyModelAttributes(out, attrs, has, problems);
  if (has('tokens')) {
    // "stream bank mud" sets the focused context; "river: stream bank; finance: money bank" names them.
    const text = attrs.tokens;
    const contexts = { ...contextsOf() };
    if (text.includes(':')) {
      for (const part of text.split(';')) {
        if (!part.trim()) continue;
        const at = part.indexOf(':');
        const name = part.slice(0, at).trim();
        if (at < 0 || !name) {
          problems.push(`tokens: "${clip(part)}" should read "context: word word …"`);
          continue;
        }
        contexts[name] = part
          .slice(at + 1)
          .split(/[\s,]+/)
          .filter(Boolean);
      }
    } else {
      const target = typeof out.focus === 'string' ? out.focus : defaults.focus || Object.keys(contexts)[0];
      contexts[target] = text.split(/[\s,]+/).filter(Boolean);
    }
    out.contexts = contexts;
  }
  for (const name of ['causal', 'projections']) {
    if (!has(name)) continue;
    const v = parseBool(name, attrs[name], problems);
    if (v !== undefined) options[name] = v;
  }
  if (has('scale')) {
    const t = attrs.scale.trim().toLowerCase();
    if (t === '' || t === 'true' || t === 'scale') options.scale = true;
    else if (t === 'false') options.scale = false;
    else {
      const v = parseNumber('scale', attrs.scale, problems);
      if (v !== undefined) options.scale = v;
    }
  }
  if (has('temperature')) {
    const v = parseNumber('temperature', attrs.temperature, problems);
    if (v !== undefined) options.temperature = v;
  }
  if (has('heads')) {
    const v = parseNumber('heads', attrs.heads, problems, { integer: true });
    if (v !== undefined) options.heads = v;
  }
  if (has('step')) {
    const v = parseNumber('step', attrs.step, problems, { integer: true });
    if (v !== undefined) out.step = v;
  }
  if (has('steps')) {
    const v = parseNumber('steps', attrs.steps, problems, { integer: true });
    if (v !== undefined) learn().until = v;
  }
  if (has('autoplay')) {
    const v = parseBool('autoplay', attrs.autoplay, problems);
    if (v !== undefined) learn().autoplay = v;
  }
  if (has('speed')) {
    // speed="watch" (the default), "fast" or steps per second; lib/learn/learn-state.js checks it.
    const t = attrs.speed.trim().toLowerCase();
    if (t === 'watch' || t === 'fast') learn().speed = t;
    else if (/^[+]?(\d+\.?\d*|\.\d+)$/.test(t)) learn().speed = Number(t);
    else problems.push(`speed="${clip(attrs.speed)}": expected watch, fast or a number of steps per second`);
  }
  if (has('theme')) out.theme = attrs.theme.trim();
  if (has('controls') && !CONTROLS.includes(attrs.controls.trim())) {
    problems.push(`controls="${clip(attrs.controls)}": expected one of ${CONTROLS.join(', ')}; using minimal`);
  }
  if (has('height') && !parseHeight(attrs.height)) {
    problems.push(`height="${clip(attrs.height)}": expected a length such as 480, 480px, 30rem or 70vh`);
  }
  if (Object.keys(options).length) out.options = options;
  return { state: out, problems };
}

// sentence="…", model-url (with config-url, tokenizer-url, model-heads) or model (a preset of the
// Hugging Face Hub — gpt2, distilgpt2, gpt2-medium — or a repository id or URL, with hf-endpoint)
// → state.gpt; the URLs and the sentence are checked by sanitizeGpt with the rest of the state
// (problems name gpt.model.url…, said here by attribute).
function applyModelAttributes(out, attrs, has, problems) {
  const gpt = { ...(out.gpt && typeof out.gpt === 'object' ? out.gpt : {}) };
  if (has('sentence')) gpt.sentence = attrs.sentence;
  let endpoint;
  if (has('hf-endpoint')) {
    try {
      endpoint = endpointOf(attrs['hf-endpoint']);
    } catch (error) {
      problems.push(
        `hf-endpoint="${clip(attrs['hf-endpoint'])}": ${error.message.replace(/^endpoint: /, '')}; using https://huggingface.co`,
      );
    }
    if (!has('model')) problems.push('hf-endpoint: it goes with model, which is missing; ignored');
  }
  if (has('model-precision')) {
    const w = attrs['model-precision'].trim().toLowerCase();
    if (PRECISION_CHOICES.includes(w)) gpt.precision = w;
    else
      problems.push(
        `model-precision="${clip(attrs['model-precision'])}": expected f32, f16, bf16 or auto; using auto (float32 where it fits)`,
      );
  }
  if (has('model') && has('model-url')) problems.push('model: model-url is given too; model-url is used');
  else if (has('model')) {
    try {
      const { endpoint: e, repo, revision } = parseModelInput(attrs.model, { endpoint });
      gpt.model = { kind: 'hub', endpoint: e, repo, revision };
    } catch (error) {
      problems.push(
        `model="${clip(attrs.model)}": ${error.message.replace(/^model: /, '')} (or one of gpt2, distilgpt2, gpt2-medium); the model shown stays`,
      );
    }
  }
  if (has('model-url')) {
    const model = { kind: 'url', url: attrs['model-url'].trim() };
    if (has('config-url')) model.config = attrs['config-url'].trim();
    if (has('tokenizer-url')) model.tokenizer = attrs['tokenizer-url'].trim();
    if (has('model-heads')) {
      const v = parseNumber('model-heads', attrs['model-heads'], problems, { integer: true });
      if (v !== undefined) model.heads = v;
    }
    gpt.model = model;
  } else {
    for (const name of ['config-url', 'tokenizer-url', 'model-heads'])
      if (has(name)) problems.push(`${name}: it goes with model-url, which is missing; ignored`);
  }
  out.gpt = gpt;
}

// The state's field a sanitizeState problem names → the attribute that set it, so the element's
// notice speaks of its attributes (`temperature="-5": expected a number in [0.01, 100], got -5`).
// Longest fields first; `contexts` is what `tokens` sets.
const FIELD_ATTRIBUTES = Object.freeze([
  ['options.temperature', 'temperature'],
  ['options.projections', 'projections'],
  ['options.causal', 'causal'],
  ['options.scale', 'scale'],
  ['options.heads', 'heads'],
  ['gpt.model.tokenizer', 'tokenizer-url'],
  ['gpt.model.config', 'config-url'],
  ['gpt.model.heads', 'model-heads'],
  ['gpt.model.url', 'model-url'],
  ['gpt.model.repo', 'model'],
  ['gpt.model.revision', 'model'],
  ['gpt.model.endpoint', 'hf-endpoint'],
  ['gpt.sentence', 'sentence'],
  ['gpt.precision', 'model-precision'],
  ['learn.task', 'example'],
  ['learn.until', 'steps'],
  ['learn.autoplay', 'autoplay'],
  ['example', 'example'],
  ['theme', 'theme'],
  ['step', 'step'],
  ['contexts', 'tokens'],
]);

/**
 * sanitizeState's problems said by the attribute that caused them, where one was given:
 * "options.temperature: expected …" → 'temperature="-5": expected …'. Others (the inline JSON's)
 * stay as they are.
 * @param {string[]} problems
 * @param {Record<string, string>} attrs  the attributes given ({name: text})
 */
export function attributeProblems(problems, attrs) {
  return problems.map((p) => {
    for (const [field, name] of FIELD_ATTRIBUTES) {
      if (typeof attrs[name] !== 'string' || !p.startsWith(field)) continue;
      const rest = p.slice(field.length);
      if (field === 'contexts' || !rest.startsWith(': ')) return `${name}="${clip(attrs[name])}": ${p}`;
      return `${name}="${clip(attrs[name])}"${rest}`;
    }
    return p;
  });
}

/**
 * The element's inline JSON text (or null when it has none) → {base, problems}: the parsed
 * object, or {} with a problem for text that is too long, not JSON or not an object.
 */
export function parseInlineJSON(text) {
  if (text === null || text === undefined) return { base: {}, problems: [] };
  if (text.length > LIMITS.jsonChars) {
    return {
      base: {},
      problems: [
        `inline JSON: ${text.length} characters, more than the limit of ${LIMITS.jsonChars}; using the defaults`,
      ],
    };
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { base: {}, problems: [`inline JSON: not valid JSON (${error.message}); using the defaults`] };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { base: {}, problems: ['inline JSON: expected an object holding a state; using the defaults'] };
  }
  return { base: parsed, problems: [] };
}

// The real-model section's part of the explorer state (state.gpt): which model (the project's
// own, or one the page or a blogger names by URL — never the weights), the sentence, the head and
// picture on screen, the next-token options, the two sentences of the shared-word chart, and the
// knock-out's chosen prediction and head (what a head does). A link carries it. Pure;
// sanitizeGpt checks an untrusted value the way lib/share.js checks the rest
// (tests/js/lib/real/gpt-state.test.mjs).
import { describe, clip } from '../text.js';
import { endpointOf, repoIdOf, revisionOf } from '../hub/urls.js';

export const GPT_LIMITS = Object.freeze({
  sentenceChars: 2000, // longer text is refused before it is tokenized
  urlChars: 2048,
  wordChars: 32,
  topK: 50257,
  temperatureMax: 5,
  tokenId: 2 ** 20, // a token id a link may name (the model refuses one beyond its vocabulary)
  position: 4096, // a sentence's position a link may name (clamped to the sentence's tokens)
});
export const KNOCKOUT_MODES = Object.freeze(['zero', 'mean']);
export const PICTURES = Object.freeze(['head', 'mean', 'rollout']);
// How the model's weights are kept (engine.openModel's `weights`): 'auto' float32 where it fits
// the memory, else F16; 'f32' always float32 (the numbers PyTorch gives); 'f16' half the memory
// and faster generation, each weight rounded to the nearest half; 'bf16' half the memory and the
// fastest generation with one thread, each weight rounded to a bfloat16 (8 times F16's error).
export const PRECISION_CHOICES = Object.freeze(['auto', 'f32', 'f16', 'bf16']);
// How each precision a model keeps (model.weights.precision) is said on the page.
export const PRECISION_NAMES = Object.freeze({ f32: 'float32', f16: 'F16', bf16: 'BF16' });

export function defaultGpt() {
  return {
    // {kind: 'shipped'}, {kind: 'url', url, config?, tokenizer?, heads?}, {kind: 'hub', endpoint,
    // repo, revision}: a repository of the Hugging Face Hub (or a mirror), or {kind: 'file'}: a file
    // the reader opened on this page (a link cannot carry it; opened elsewhere it is the shipped one)
    model: { kind: 'shipped' },
    precision: 'auto', // PRECISION_CHOICES: how whichever model opens keeps its weights
    sentence: 'She sat on the bank of the river and watched the water go by.',
    layer: 0,
    head: 0,
    picture: 'head',
    temperature: 1,
    topK: 0,
    topP: 1,
    seed: 0,
    bank: { a: 'He sat on the river bank.', b: 'She took the money to the bank.', word: 'bank' },
    // What a head does: the prediction (the token after `position`, the candidate `token`; −1 the
    // top one) and the head knocked out (`layer`, `head`, `mode`). A field left out is chosen
    // from the numbers: the model's own best guess, the head that changes it most.
    prediction: { mode: 'zero' },
  };
}

/** The prediction kept for another sentence: its head and mode; the position and token chosen again. */
export const predictionForANewSentence = ({ position, token, ...kept }) => kept;

/**
 * state.gpt after `patch`: another sentence or another model (other tokens) opens on its own
 * prediction (the head knocked out and the mode stay).
 */
export function patchGpt(gpt, patch) {
  const next = { ...gpt, ...patch };
  const otherTokens =
    ('sentence' in patch && patch.sentence !== gpt.sentence) ||
    ('model' in patch && JSON.stringify(patch.model) !== JSON.stringify(gpt.model));
  if (otherTokens && !('prediction' in patch)) next.prediction = predictionForANewSentence(gpt.prediction ?? {});
  return next;
}

// state.gpt.prediction from a link: each field checked on its own (one bad field is named and
// left to be chosen from the numbers, the others kept).
function sanitizePrediction(p, problems) {
  const out = { mode: 'zero' };
  if (!p || typeof p !== 'object' || Array.isArray(p)) {
    problems.push(`gpt.prediction: expected {position?, token?, layer?, head?, mode?}, got ${describe(p)}`);
    return out;
  }
  for (const k of Object.keys(p))
    if (!['position', 'token', 'layer', 'head', 'mode'].includes(k))
      problems.push(`gpt.prediction.${clip(k, 24)}: unknown field, ignored`);
  for (const [k, lo, hi] of [
    ['position', 0, GPT_LIMITS.position],
    ['token', -1, GPT_LIMITS.tokenId],
    ['layer', 0, 255],
    ['head', 0, 255],
  ]) {
    if (p[k] === undefined) continue;
    if (Number.isInteger(p[k]) && p[k] >= lo && p[k] <= hi) out[k] = p[k];
    else problems.push(`gpt.prediction.${k}: expected a whole number in [${lo}, ${hi}], got ${describe(p[k])}`);
  }
  if (p.mode !== undefined) {
    if (KNOCKOUT_MODES.includes(p.mode)) out.mode = p.mode;
    else problems.push(`gpt.prediction.mode: expected one of ${KNOCKOUT_MODES.join(', ')}, got ${describe(p.mode)}`);
  }
  return out;
}

// A URL a blogger hosts: http(s), or relative to the page; no javascript:, data: or blob:.
function checkUrl(value, name, problems) {
  if (typeof value !== 'string' || value.length < 1 || value.length > GPT_LIMITS.urlChars) {
    problems.push(`gpt.${name}: expected a URL of 1 to ${GPT_LIMITS.urlChars} characters, got ${describe(value)}`);
    return undefined;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme && scheme !== 'http' && scheme !== 'https') {
    problems.push(`gpt.${name}: expected an http(s) or relative URL, got "${clip(value, 40)}"`);
    return undefined;
  }
  return value;
}

/**
 * A model of the Hub in its one form ({kind: 'hub', endpoint, repo, revision}, every field given:
 * the form the real model compares), or undefined with the problems named (gpt.model.repo…).
 */
export function hubModelOf(m, problems = []) {
  const out = { kind: 'hub' };
  for (const [k, check] of [
    ['endpoint', endpointOf],
    ['repo', repoIdOf],
    ['revision', revisionOf],
  ]) {
    try {
      out[k] = check(m[k]);
    } catch (error) {
      problems.push(`gpt.model.${k}: ${error.message.replace(/^[a-z]+: /, '')}`);
      return undefined;
    }
  }
  return out;
}

/**
 * @param {unknown} untrusted  state.gpt from a link or the element (null: the defaults)
 * @returns {{gpt: object|null, problems: string[]}}  every problem names the field
 */
export function sanitizeGpt(untrusted) {
  const problems = [];
  if (untrusted === null || untrusted === undefined) return { gpt: null, problems };
  if (typeof untrusted !== 'object' || Array.isArray(untrusted)) {
    return { gpt: null, problems: [`gpt: expected an object, got ${describe(untrusted)}`] };
  }
  const out = defaultGpt();
  const has = (k) => Object.prototype.hasOwnProperty.call(untrusted, k);
  for (const k of Object.keys(untrusted))
    if (!Object.hasOwn(out, k)) problems.push(`gpt.${clip(k, 24)}: unknown field, ignored`);
  if (has('model')) {
    const m = untrusted.model;
    if (m && typeof m === 'object' && (m.kind === 'shipped' || m.kind === 'file')) out.model = { kind: m.kind };
    else if (m && typeof m === 'object' && m.kind === 'url') {
      const url = checkUrl(m.url, 'model.url', problems);
      if (url) {
        out.model = { kind: 'url', url };
        for (const k of ['config', 'tokenizer']) {
          if (m[k] === undefined) continue;
          const u = checkUrl(m[k], `model.${k}`, problems);
          if (u) out.model[k] = u;
        }
        if (m.heads !== undefined) {
          if (Number.isInteger(m.heads) && m.heads >= 1 && m.heads <= 256) out.model.heads = m.heads;
          else problems.push(`gpt.model.heads: expected a whole number in [1, 256], got ${describe(m.heads)}`);
        }
      }
    } else if (m && typeof m === 'object' && m.kind === 'hub') {
      const hub = hubModelOf(m, problems);
      if (hub) out.model = hub;
    } else
      problems.push(
        `gpt.model: expected {kind: 'shipped'}, {kind: 'url', url} or {kind: 'hub', repo}, got ${describe(m)}`,
      );
  }
  if (has('precision')) {
    if (PRECISION_CHOICES.includes(untrusted.precision)) out.precision = untrusted.precision;
    else problems.push(`gpt.precision: expected 'auto', 'f32', 'f16' or 'bf16', got ${describe(untrusted.precision)}`);
  }
  if (has('sentence')) {
    const s = untrusted.sentence;
    if (typeof s === 'string' && s.length >= 1 && s.length <= GPT_LIMITS.sentenceChars) out.sentence = s;
    else
      problems.push(`gpt.sentence: expected text of 1 to ${GPT_LIMITS.sentenceChars} characters, got ${describe(s)}`);
  }
  const int = (k, lo, hi) => {
    if (!has(k)) return;
    const v = untrusted[k];
    if (Number.isInteger(v) && v >= lo && v <= hi) out[k] = v;
    else problems.push(`gpt.${k}: expected a whole number in [${lo}, ${hi}], got ${describe(v)}`);
  };
  const num = (k, lo, hi, open = false) => {
    if (!has(k)) return;
    const v = untrusted[k];
    if (typeof v === 'number' && Number.isFinite(v) && (open ? v > lo : v >= lo) && v <= hi) out[k] = v;
    else problems.push(`gpt.${k}: expected a number in ${open ? '(' : '['}${lo}, ${hi}], got ${describe(v)}`);
  };
  int('layer', 0, 255);
  int('head', 0, 255);
  int('topK', 0, GPT_LIMITS.topK);
  int('seed', 0, 2 ** 31 - 1);
  num('temperature', 0, GPT_LIMITS.temperatureMax);
  num('topP', 0, 1, true);
  if (has('picture')) {
    if (PICTURES.includes(untrusted.picture)) out.picture = untrusted.picture;
    else problems.push(`gpt.picture: expected one of ${PICTURES.join(', ')}, got ${describe(untrusted.picture)}`);
  }
  if (has('prediction')) out.prediction = sanitizePrediction(untrusted.prediction, problems);
  if (has('bank')) {
    const b = untrusted.bank;
    if (!b || typeof b !== 'object' || Array.isArray(b))
      problems.push(`gpt.bank: expected {a, b, word}, got ${describe(b)}`);
    else
      for (const [k, max] of [
        ['a', GPT_LIMITS.sentenceChars],
        ['b', GPT_LIMITS.sentenceChars],
        ['word', GPT_LIMITS.wordChars],
      ]) {
        if (b[k] === undefined) continue;
        if (typeof b[k] === 'string' && b[k].trim().length >= 1 && b[k].length <= max) out.bank[k] = b[k];
        else problems.push(`gpt.bank.${k}: expected text of 1 to ${max} characters, got ${describe(b[k])}`);
      }
  }
  return { gpt: out, problems };
}

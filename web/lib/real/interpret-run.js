// What a head does, for the sentence on screen: the chosen prediction (a position and a candidate
// token) and the chosen head, and what the model host answers for them — the head knocked out,
// the direct logit attribution, the logit lens, and every head knocked out in turn (the sweep,
// block by block: sweep-run.js). A small state machine the figures subscribe to; a newer choice
// overtakes an older one's late answers. Pure (no DOM); unit-tested in
// tests/js/lib/real/interpret-run.test.mjs with a fake host.
//
//   choose(sentence, prediction, head) ──► answers arrive one by one (onChange after each)
//                                          startSweep() ──► rows arrive block by block; cancelSweep()

import { lensPositions, openingPrediction, strongestEffect, sweepsUnasked } from './interpret.js';
import { createSweepRun } from './sweep-run.js';

/**
 * @param {{call(op, ...args): Promise, config(): object, onChange(): void}} deps
 *   call: the model host's; config(): the open model's config
 */
export function createInterpretRun(deps) {
  return new InterpretRun(deps);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

class InterpretRun {
  #deps;
  #version = 0;
  #opening = null; // {key (the ids), position, token} of the sentence's opening prediction
  #asked = null; // the last choice asked for, its token as asked (−1: the top prediction)
  #choice = null; // {ids, position, token, layer, head, mode, reference}, the token resolved
  #answers = { ablation: null, attribution: null, lens: null, error: null };
  #sweep;
  #senses = { key: null, result: null, error: null };
  #roles = { asked: false, result: null };
  #model; // the open model the answers above belong to (deps.model())

  constructor(deps) {
    this.#deps = deps;
    this.#sweep = createSweepRun({ call: deps.call, onChange: () => deps.onChange() });
    this.#model = deps.model?.();
  }

  // Every answer belongs to the model open when it was asked: another one (another checkpoint, or
  // the same one with its weights kept otherwise, whose tokens may be the same) forgets them all.
  #forgetAnotherModels() {
    const model = this.#deps.model?.();
    if (model === this.#model) return;
    this.#model = model;
    ++this.#version;
    this.#opening = this.#asked = this.#choice = null;
    this.#answers = { ablation: null, attribution: null, lens: null, error: null };
    this.#senses = { key: null, result: null, error: null };
    this.#roles = { asked: false, result: null };
    this.#sweep.reset();
  }

  get choice() {
    return this.#choice;
  }
  /** {ablation, attribution, lens, error}: the host's answers for the choice on screen (null until they come). */
  get answers() {
    return this.#answers;
  }
  /** The sweep's state (sweep-run.js), for the choice it was started on (state.key). */
  get sweep() {
    return this.#sweep.state;
  }

  /**
   * The sentence's ids and the choice: {position, token (−1: the clean top prediction), layer,
   * head, mode, reference}. Asks again only for what changed: the head's knock-out when the head
   * or mode changed, everything when the sentence or prediction did. Left out (undefined), the
   * position and token are the opening prediction (openingPrediction: the model's own best guess
   * of the sentence's next token), and the head is the one whose knock-out changes that
   * prediction most once the sweep has measured it (until then head 0 of layer 0); a small model
   * sweeps unasked (sweepsUnasked).
   */
  async choose(ids, choice) {
    this.#forgetAnotherModels();
    const { call, config, onChange } = this.#deps;
    const c = config();
    const T = ids.length;
    if (choice.position === undefined && T > 1) {
      const key = Array.from(ids).join();
      if (this.#opening?.key !== key) {
        const mine = this.#version;
        const opening = openingPrediction(await call('predictions', ids), ids);
        if (mine !== this.#version && this.#opening?.key === key) return;
        this.#opening = { key, ...opening };
      }
      choice = { ...choice, position: this.#opening.position, token: this.#opening.token };
    }
    const position = Math.max(0, Math.min(choice.position ?? T - 1, T - 1));
    const automatic = choice.layer === undefined || choice.head === undefined;
    const strongest = automatic ? this.#strongest(ids, position, choice) : null;
    const layer = Math.min(choice.layer ?? strongest?.layer ?? 0, c.layers - 1),
      head = Math.min(choice.head ?? strongest?.head ?? 0, c.heads - 1);
    const mode = choice.mode === 'mean' ? 'mean' : 'zero';
    const previous = this.#asked;
    const prediction = { ids: Array.from(ids), position, token: choice.token ?? -1 };
    const next = { ...prediction, layer, head, mode, reference: choice.reference };
    if (same(previous, next) && !this.#answers.error) return; // asked already (the view redraws often)
    const predictionChanged =
      !previous || !same({ ids: previous.ids, position: previous.position, token: previous.token }, prediction);
    const mine = ++this.#version;
    this.#asked = next;
    this.#choice = next;
    if (predictionChanged) {
      this.#answers = { ablation: null, attribution: null, lens: null, error: null };
      if (this.sweep.phase === 'running') this.#sweep.cancel();
    } else this.#answers = { ...this.#answers, ablation: null, error: null };
    onChange();
    const fresh = () => mine === this.#version;
    try {
      // The candidate: the one chosen, else the clean top prediction at the position (the first of
      // the knock-out's rows, which are sorted by the clean probability).
      const a = await call('ablate', ids, {
        layer,
        head,
        position,
        token: next.token,
        mode,
        reference: next.reference,
      });
      if (!fresh()) return;
      const token = next.token >= 0 ? next.token : a.rows[0].id;
      this.#choice = { ...next, token };
      this.#answers = { ...this.#answers, ablation: { ...a, token, text: textOf(a, token) } };
      onChange();
      if (!predictionChanged && this.#answers.attribution) return;
      const attribution = await call('attribute', ids, { position, token });
      if (!fresh()) return;
      this.#answers = { ...this.#answers, attribution };
      onChange();
      const positions = lensPositions(c, T, position);
      const lens = await call('lens', ids, { positions, k: 5, position, token });
      if (!fresh()) return;
      this.#answers = { ...this.#answers, lens };
      onChange();
    } catch (error) {
      if (!fresh()) return;
      this.#answers = { ...this.#answers, error: error.message };
      onChange();
    }
  }

  /** Every head knocked out in turn for the chosen prediction, block by block. */
  startSweep() {
    this.#forgetAnotherModels();
    const ch = this.#choice;
    if (!ch || ch.token < 0) return Promise.resolve();
    const { layers: L, heads: H } = this.#deps.config();
    const key = JSON.stringify([ch.ids, ch.position, ch.token, ch.mode]);
    return this.#sweep.start({
      ids: Int32Array.from(ch.ids),
      L,
      H,
      position: ch.position,
      token: ch.token,
      mode: ch.mode,
      reference: ch.reference,
      key,
    });
  }

  // The finished sweep's strongest head, when it measured this prediction.
  #strongest(ids, position, choice) {
    const s = this.sweep;
    if (s.phase !== 'finished' || !s.key) return null;
    const [swept, at, token, mode] = JSON.parse(s.key);
    const wanted = choice.token ?? -1;
    const match =
      same(swept, Array.from(ids)) &&
      at === position &&
      mode === (choice.mode === 'mean' ? 'mean' : 'zero') &&
      (wanted < 0 || wanted === token);
    return match ? strongestEffect(s.effect, s.H) : null;
  }

  /** Whether the choice on screen should sweep unasked: a small model, not swept for it yet. */
  get sweepsUnasked() {
    const ch = this.#choice;
    return !!ch && ch.token >= 0 && sweepsUnasked(this.#deps.config()) && this.sweep.key !== this.sweepKey;
  }

  /**
   * The bank measure (the host's senses request) for {word, senses: [{name, sentences}]}: once per
   * spec; a newer spec overtakes an older one's late answer. State in `senses`.
   */
  async measureSenses(spec) {
    this.#forgetAnotherModels();
    const key = JSON.stringify(spec);
    if (this.#senses.key === key) return;
    this.#senses = { key, result: null, error: null };
    this.#deps.onChange();
    const model = this.#model;
    const current = () => this.#senses.key === key && this.#model === model; // not overtaken
    try {
      const result = await this.#deps.call('senses', spec);
      if (current()) this.#senses = { key, result, error: null };
    } catch (error) {
      if (current()) this.#senses = { key, result: null, error: error.message };
    }
    this.#deps.onChange();
  }

  /** The page's head scores (the host's roles request, measured once per model there). */
  async measureRoles(text) {
    this.#forgetAnotherModels();
    if (this.#roles.asked) return;
    this.#roles = { asked: true, result: null };
    const model = this.#model; // a late answer for a model no longer open is dropped
    try {
      const result = await this.#deps.call('roles', text);
      if (this.#model === model) this.#roles = { asked: true, result };
    } catch {
      if (this.#model === model) this.#roles = { asked: false, result: null }; // asked again on the next redraw
    }
    this.#deps.onChange();
  }

  /** The head scores, or null until measured. */
  get roles() {
    return this.#roles.result;
  }

  /** {key, result, error} of the bank measure on screen. */
  get senses() {
    return this.#senses;
  }

  cancelSweep() {
    this.#sweep.cancel();
  }

  /** The key of the choice a sweep would be for: the view shows a sweep only when it matches. */
  get sweepKey() {
    const ch = this.#choice;
    return ch ? JSON.stringify([ch.ids, ch.position, ch.token, ch.mode]) : null;
  }
}

// A token's text from the knock-out's rows (the candidate is always one of them).
const textOf = (a, id) => a.rows.find((r) => r.id === id)?.text ?? String(id);

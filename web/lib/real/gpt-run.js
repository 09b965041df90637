// The real-model section's run, as a small state machine its view subscribes to: the sentence
// through the model (its tokens, every head's weights, the next token), generation one token at a
// time with the KV cache, what each head does, and the shared word across two sentences. The
// model itself runs behind `real` (tools/real-model.js: a worker, or the page); this keeps what is
// on screen and drops an answer a newer request has overtaken. Pure (no DOM); unit-tested in
// tests/js/lib/real/gpt-run.test.mjs with a fake model.
//
//   idle ──run()──► running ──► shown (picture) ──generate(n)──► generating ──► shown
//                          └──► failed (the reason said; the last picture stays)

/**
 * @param {{real: {ensure(state), call(op, ...args), info, host: {mode}}, state(): object,
 *          gpt(): object, onChange(): void, onStatus(status): void, wants?(): {run, bank}}} deps
 *   onChange: what is shown changed (redraw); onStatus: {kind: 'running'} | {kind: 'ran', tokens,
 *   layers, mode} | {kind: 'compared', layers, mode} | {kind: 'failed', message} |
 *   {kind: 'generation-stopped', message} | {kind: 'roles-failed', message}; wants: what the
 *   figures shown draw (lib/real/gpt-parts.js): the sentence's run, the bank comparison (both
 *   when absent)
 * @returns {GptRun}
 */
export function createGptRun(deps) {
  return new GptRun(deps);
}

const noGeneration = () => ({ tokens: [], step: null, totals: { cached: 0, full: 0 } });

class GptRun {
  #deps;
  #seen = null; // the inputs of the picture last asked for
  #version = 0;
  #picture = null; // {ids, pieces, trace, next, layer, head}
  #generation = noGeneration();
  #generating = false;
  #bank = { key: null, result: null, error: null };
  #rolesOf = null; // the model whose roles are measured (or being measured)

  constructor(deps) {
    this.#deps = deps;
  }
  get picture() {
    return this.#picture;
  }
  /** {tokens: [{token, text}], step (the last, with its key labels), totals: {cached, full} multiply-adds} */
  get generation() {
    return this.#generation;
  }
  get bank() {
    return { result: this.#bank.result, error: this.#bank.error };
  }

  /** What the figures shown draw: the sentence's run, the bank comparison. */
  #wants() {
    return this.#deps.wants?.() ?? { run: true, bank: true };
  }

  /**
   * The state's sentence through the model, unless what it shows is what was asked for last;
   * where no figure shown draws it, only the model opened and the bank comparison (if shown).
   */
  async run(force = false) {
    const { real, state, gpt, onChange, onStatus } = this.#deps;
    if (!this.#wants().run) return this.#bankOnly();
    const g = gpt();
    const key = JSON.stringify([
      g.model,
      g.precision,
      g.sentence,
      g.layer,
      g.head,
      g.temperature,
      g.topK,
      g.topP,
      g.seed,
      real.info?.name,
    ]);
    if (!force && key === this.#seen) return onChange();
    this.#seen = key;
    const mine = ++this.#version;
    try {
      await real.ensure(state());
      const c = real.info.config;
      const layer = Math.min(g.layer, c.layers - 1),
        head = Math.min(g.head, c.heads - 1);
      onStatus({ kind: 'running' });
      const encoded = await real.call('encode', g.sentence);
      const trace = await real.call('trace', encoded.ids, { layer, head });
      const options = { temperature: g.temperature, topK: g.topK, topP: g.topP, seed: g.seed, top: 10 };
      const next = await real.call('next', trace.logits, options);
      if (mine !== this.#version) return;
      const before = this.#picture?.ids;
      this.#picture = { ...encoded, trace, next, layer, head };
      // Other tokens under the same state (a file opened again with another tokenizer): the deps
      // hear it before the figures draw (a new sentence or model says so itself: gpt-state.js).
      if (before && Array.from(before).join() !== Array.from(encoded.ids).join()) this.#deps.onOtherTokens?.();
      onStatus({
        kind: 'ran',
        tokens: encoded.ids.length,
        layers: c.layers,
        mode: real.host.mode,
        precision: real.info.weights?.precision,
      });
      this.#resetGeneration();
      onChange();
      if (!this.#bank.result && !this.#bank.error && this.#wants().bank) this.compareBank();
    } catch (error) {
      if (mine !== this.#version) return;
      onStatus({ kind: 'failed', message: error.message });
    }
  }

  /** The shared word across the state's two sentences, layer by layer (once per sentences and model). */
  async compareBank() {
    const { real, gpt, onChange } = this.#deps;
    if (!this.#wants().bank) return;
    const b = gpt().bank;
    const key = JSON.stringify([b, real.info?.name, real.info?.weights?.precision]);
    if (key === this.#bank.key) return;
    this.#bank.key = key;
    try {
      this.#bank = { key, result: await real.call('bank', b), error: null };
    } catch (error) {
      this.#bank = { key, result: null, error: error.message };
    }
    onChange();
  }

  // The model opened and the two sentences compared, nothing else run (a figure of the bank chart).
  async #bankOnly() {
    const { real, state, onStatus } = this.#deps;
    if (!this.#wants().bank) return;
    try {
      await real.ensure(state());
      onStatus({ kind: 'running' });
      await this.compareBank();
      onStatus({
        kind: 'compared',
        layers: real.info.config.layers,
        mode: real.host.mode,
        precision: real.info.weights?.precision,
      });
    } catch (error) {
      onStatus({ kind: 'failed', message: error.message });
    }
  }

  /** Forget the tokens generated so far (the next generate() starts from the sentence). */
  resetGeneration() {
    this.#resetGeneration();
    this.#deps.onChange();
  }

  /** `count` more tokens, one step at a time, each drawn as it comes. */
  async generate(count) {
    const { real, gpt, onChange, onStatus } = this.#deps;
    const picture = this.#picture;
    if (!picture || this.#generating) return;
    this.#generating = true;
    try {
      const g = gpt();
      if (!this.#generation.tokens.length)
        await real.call('generate', picture.ids, {
          temperature: g.temperature,
          topK: g.topK,
          topP: g.topP,
          seed: g.seed,
        });
      for (let n = 0; n < count; n++) {
        const s = await real.call('step');
        // Into what is shown now (a new sentence's picture may have reset it meanwhile).
        const shown = this.#generation;
        shown.tokens.push({ token: s.token, text: s.text });
        shown.totals = { cached: shown.totals.cached + s.macs.cached, full: shown.totals.full + s.macs.full };
        const labels = [...this.#picture.pieces.map((p) => p.display), ...shown.tokens.map((x) => x.text)].map((t) =>
          t.replace(/ /g, '␣'),
        );
        shown.step = { ...s, keyLabels: labels.slice(-s.keys) };
        onChange();
      }
    } catch (error) {
      onStatus({ kind: 'generation-stopped', message: error.message });
    } finally {
      this.#generating = false;
    }
  }

  /**
   * What each head does, measured once per model on the sentence and the bank sentences.
   * @returns {Promise<object|null>}  the scores, or null (measured already, no model, or failed)
   */
  async measureRoles() {
    const { real, gpt, onStatus } = this.#deps;
    if (!real.info || this.#rolesOf === real.info) return null;
    this.#rolesOf = real.info;
    const g = gpt();
    try {
      return await real.call('roles', g.sentence + ' ' + g.bank.a + ' ' + g.bank.b);
    } catch (error) {
      this.#rolesOf = null;
      onStatus({ kind: 'roles-failed', message: error.message });
      return null;
    }
  }

  #resetGeneration() {
    this.#generation = noGeneration();
    this.#deps.real.call('stopGenerating').catch(() => {});
  }
}

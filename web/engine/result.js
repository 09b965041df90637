// A call's result tensors as JavaScript objects (engine.js's Trace, Averaging, Pca and the rest;
// model.js's traces, logits and session steps): each tensor {shape, data}, a JS-owned copy.

import { AttentionError, toNested } from './args.js';

/**
 * A call's tensors as own enumerable properties {shape, data}, read from bindAbi's answer
 * `raw`; get() lives on the prototype, so a result costs no defineProperty. #names are the
 * tensors this kind of result can hold. dropBatch(name): the tensor's leading batch dimension
 * goes (an unbatched input's).
 */
export class Result {
  #names;

  constructor(raw, dropBatch = () => false) {
    this.#names = raw.names;
    for (const t of raw.tensors) {
      this[t.name] = { shape: dropBatch(t.name) ? t.shape.slice(1) : t.shape, data: t.copy() };
    }
  }

  /** A tensor as nested arrays; throws AttentionError for a name this result does not hold. */
  get(name) {
    const t = this.#names.includes(name) && Object.prototype.hasOwnProperty.call(this, name) ? this[name] : undefined;
    if (!t) {
      const held = this.#names.filter((n) => Object.prototype.hasOwnProperty.call(this, n));
      throw new AttentionError(`get: unknown tensor '${name}'; available: ${held.join(', ')}`, 'get');
    }
    return toNested(t);
  }
}

/**
 * One tensor as {shape, data} and get() for nested arrays: engine.project's y, a model's logits,
 * a session step's attention.
 */
export class Projection {
  constructor({ shape, data }) {
    this.shape = shape;
    this.data = data;
  }

  /** The tensor as nested arrays. */
  get() {
    return toNested(this);
  }
}

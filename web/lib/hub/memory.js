// Will a model fit? Predicted before a byte of its weights is downloaded, from its parameter
// count (config.json's sizes, else the safetensors file's size) and the bytes each weight takes
// in the engine's memory (4 as F32; 2 as F16 or BF16). Pure;
// tests/js/lib/hub/memory.test.mjs.
//
// The numbers, measured in Node on 2026-11-27 (engine.heapBytes() after engine.openModel and a
// 64-token trace, F32, GPT-2-shaped checkpoints):
//   GPT-2 small  (124M parameters, 498 MB of weights)   604 MB of WebAssembly memory
//   6 layers     ( 82M, 328 MB, DistilGPT-2's shape)     400 MB
//   GPT-2 medium (355M, 1419 MB)                       1534 MB
// so the engine needs the weights plus 72–115 MB (its own 16 MiB, working buffers, and the slack
// of a memory that grows in steps): RUNTIME_BYTES below bounds that. Two models are held at once
// while a new one opens (the old one stays on screen until the new is ready): pass the old one's
// bytes as `alsoHeld`.
import { formatBytes } from '../format.js';

/** wasm32's whole address space: the engine is built with MAXIMUM_MEMORY=4GB. */
export const WASM_LIMIT_BYTES = 4 * 1024 ** 3;
/** The engine's cap on a model's parameters (2^29: 2 GiB of float32), checked by its loader. */
export const MAX_PARAMETERS = 2 ** 29;
/** The engine's own memory beyond the weights: measured 72–115 MB above (see the table above). */
export const RUNTIME_BYTES = 128e6;
/**
 * navigator.deviceMemory (GB, rounded down to a power of two, at most 8; Chromium only) is the
 * device's RAM; the browser, the page and the system need their share (the tab peaked 0.3–0.6 GB
 * above the engine's memory with GPT-2 small), so a model may take at most this fraction of it.
 */
export const DEVICE_SHARE = 0.5;

/** The precisions a weight can be held in, bytes per weight. */
export const PRECISIONS = Object.freeze([
  Object.freeze({ name: 'F32', bytesPerWeight: 4 }),
  Object.freeze({ name: 'F16', bytesPerWeight: 2 }),
]);

/**
 * Parameters from what is known: config.json's sizes (exact), else the safetensors file's size
 * over its bytes per stored weight (GPT-2's own files are F32; their attn.bias buffers, about 4%
 * of GPT-2 small's file, make this an overestimate).
 */
export function parametersOf({ parameters, fileBytes, fileBytesPerWeight = 4 } = {}) {
  if (Number.isSafeInteger(parameters) && parameters > 0) return parameters;
  if (Number.isFinite(fileBytes) && fileBytes > 0) return Math.ceil(fileBytes / fileBytesPerWeight);
  return null;
}

/** WebAssembly memory a model needs: parameters × bytes per weight + the engine's own. */
export function memoryNeed(parameters, bytesPerWeight = 4) {
  return parameters * bytesPerWeight + RUNTIME_BYTES;
}

/**
 * Whether a model fits, in every precision the engine offers and in the others, with the reason.
 * @param {{parameters?: number, fileBytes?: number, fileBytesPerWeight?: number,
 *          precisions?: number[]  bytes per weight the engine can hold weights in (default [4]),
 *          chosen?: boolean  precisions is the reader's choice, not all the engine can do (the
 *            message then says to choose the one that would fit),
 *          sixteenBit?: string  the name of the 2-byte precision in messages: 'F16' (the default,
 *            what 'auto' chooses) or 'BF16' (the reader's choice),
 *          deviceMemoryGB?: number  navigator.deviceMemory where present,
 *          alsoHeld?: number  bytes of another model held while this one opens}} options
 * @returns {{parameters, fits: boolean, choice: {name, bytesPerWeight, need}|null,
 *            options: [{name, bytesPerWeight, need, fits, offered, why}], message: string|null}}
 */
export function predictFit({
  parameters,
  fileBytes,
  fileBytesPerWeight,
  precisions = [4],
  chosen = false,
  sixteenBit = 'F16',
  deviceMemoryGB,
  alsoHeld = 0,
} = {}) {
  const n = parametersOf({ parameters, fileBytes, fileBytesPerWeight });
  if (n === null) return { parameters: null, fits: true, choice: null, options: [], message: null };
  const device =
    Number.isFinite(deviceMemoryGB) && deviceMemoryGB > 0 ? deviceMemoryGB * 1024 ** 3 * DEVICE_SHARE : null;
  const options = PRECISIONS.map(({ bytesPerWeight, ...p }) => {
    const name = bytesPerWeight === 2 ? sixteenBit : p.name;
    const need = memoryNeed(n, bytesPerWeight);
    let why = null;
    if (n > MAX_PARAMETERS) why = `more than the engine's ${MAX_PARAMETERS.toLocaleString('en-US')} parameters`;
    else if (need + alsoHeld > WASM_LIMIT_BYTES)
      why = `more than the 4 GB a WebAssembly engine can address${alsoHeld ? ` beside the model on screen (${formatBytes(alsoHeld)})` : ''}`;
    else if (device !== null && need + alsoHeld > device)
      why = `more than half of this device's memory (the browser reports ${deviceMemoryGB} GB)`;
    return { name, bytesPerWeight, need, fits: why === null, offered: precisions.includes(bytesPerWeight), why };
  });
  const choice = options.find((o) => o.offered && o.fits) ?? null;
  let message = null;
  if (!choice) {
    const first = options.find((o) => o.offered) ?? options[0];
    const count = `${(n / 1e6).toFixed(0)}M parameters`;
    message = `this model (${count}) needs ${formatBytes(first.need)} of memory as ${first.name}: ${first.why}`;
    const other = options.find((o) => !o.offered && o.fits);
    if (other && chosen)
      message += `; as ${other.name} it would need ${formatBytes(other.need)}, which would fit: choose ${other.name} under “Weights as”`;
    else if (other)
      message += `; as ${other.name} it would need ${formatBytes(other.need)}, which would fit, but this engine holds weights as ${options
        .filter((o) => o.offered)
        .map((o) => o.name)
        .join(' or ')} only`;
    else if (!options.some((o) => o.fits)) message += '; no precision this page offers would fit';
  }
  return { parameters: n, fits: choice !== null, choice, options, message };
}

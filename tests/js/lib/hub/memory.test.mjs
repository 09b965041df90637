// Unit tests of web/lib/hub/memory.js: whether a model fits the engine's memory, predicted from its
// parameters and the bytes a weight takes, before anything is downloaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_PARAMETERS,
  RUNTIME_BYTES,
  WASM_LIMIT_BYTES,
  memoryNeed,
  parametersOf,
  predictFit,
} from '../../../../web/lib/hub/memory.js';

const SMALL = 124439808;
const MEDIUM = 354823168;

test('Memory_NeedIsWeightsPlusTheMeasuredRuntime', () => {
  // Measured (see memory.js): GPT-2 small F32 604 MB, medium 1534 MB of WebAssembly memory; the
  // prediction must not fall below what was measured, nor exceed it by more than the bound.
  for (const [parameters, measured] of [
    [SMALL, 603914240],
    [MEDIUM, 1534066688],
    [81912576, 399704064],
  ]) {
    const need = memoryNeed(parameters, 4);
    assert.ok(need >= measured, `${parameters}: ${need} < measured ${measured}`);
    assert.ok(need - measured < 60e6, `${parameters}: ${need} is far above measured ${measured}`);
  }
  assert.equal(memoryNeed(MEDIUM, 2), MEDIUM * 2 + RUNTIME_BYTES);
  assert.equal(parametersOf({ parameters: 7 }), 7);
  assert.equal(parametersOf({ fileBytes: 548105171 }), 137026293); // the F32 file's size over 4 (an overestimate)
  assert.equal(parametersOf({ fileBytes: 100, fileBytesPerWeight: 2 }), 50);
  assert.equal(parametersOf({}), null);
});

test('Memory_MediumAsF32DoesNotFitASmallDeviceAndF16WouldBeSaid', () => {
  // A 2 GB device (navigator.deviceMemory = 2): half of it is 1.07 GB; medium in F32 needs 1.55 GB.
  const f32only = predictFit({ parameters: MEDIUM, deviceMemoryGB: 2 });
  assert.equal(f32only.fits, false);
  assert.equal(f32only.choice, null);
  assert.match(
    f32only.message,
    /this model \(355M parameters\) needs 1\.55 GB of memory as F32: more than half of this device's memory \(the browser reports 2 GB\)/,
  );
  assert.match(
    f32only.message,
    /as F16 it would need 838 MB, which would fit, but this engine holds weights as F32 only/,
  );
  // The reader chose float32 (the page's "Weights as"): F16 is named as the choice that would fit.
  const chosen = predictFit({ parameters: MEDIUM, deviceMemoryGB: 2, precisions: [4], chosen: true });
  assert.equal(chosen.fits, false);
  assert.match(chosen.message, /as F16 it would need 838 MB, which would fit: choose F16 under “Weights as”$/);
  // Once the engine offers F16 it is chosen automatically.
  const both = predictFit({ parameters: MEDIUM, deviceMemoryGB: 2, precisions: [4, 2] });
  assert.equal(both.fits, true);
  assert.equal(both.choice.name, 'F16');
  assert.equal(both.message, null);
  // BF16 chosen: the same 2 bytes a weight, named as the reader chose them
  const bf16 = predictFit({ parameters: MEDIUM, deviceMemoryGB: 2, precisions: [2], chosen: true, sixteenBit: 'BF16' });
  assert.equal(bf16.choice.name, 'BF16');
  const bf16Short = predictFit({
    parameters: MEDIUM,
    deviceMemoryGB: 1,
    precisions: [2],
    chosen: true,
    sixteenBit: 'BF16',
  });
  assert.match(bf16Short.message, /needs 838 MB of memory as BF16: more than half of this device's memory/);
  // Where the device is large, or unknown (Firefox has no deviceMemory), F32 fits.
  assert.equal(predictFit({ parameters: MEDIUM, deviceMemoryGB: 8 }).choice.name, 'F32');
  assert.equal(predictFit({ parameters: MEDIUM }).choice.name, 'F32');
  assert.equal(predictFit({ parameters: SMALL, deviceMemoryGB: 2 }).choice.name, 'F32');
});

test('Memory_TheFourGigabyteLimitAndTheParameterCapAreHard', () => {
  // 900M parameters: 3.73 GB as F32 fits 4 GiB alone, not beside a 604 MB model on screen.
  const big = 900e6;
  assert.equal(predictFit({ parameters: MAX_PARAMETERS - 1 }).fits, true);
  const beside = predictFit({ parameters: 500e6, alsoHeld: 603914240 });
  assert.equal(beside.fits, true); // 2.13 GB + 0.6 GB
  const tooBig = predictFit({ parameters: big });
  assert.equal(tooBig.fits, false);
  assert.match(tooBig.message, /more than the engine's 536,870,912 parameters/);
  const limit = predictFit({ parameters: 500e6, alsoHeld: WASM_LIMIT_BYTES - 2e9 });
  assert.equal(limit.fits, false);
  assert.match(limit.message, /more than the 4 GB a WebAssembly engine can address beside the model on screen/);
  assert.match(limit.message, /as F16 it would need 1\.13 GB, which would fit/);
  // Unknown size: nothing to say.
  assert.deepEqual(predictFit({}), { parameters: null, fits: true, choice: null, options: [], message: null });
});

// lib/scaling.js: the spread of random q·k grows like √dₖ and dividing by √dₖ brings it back to
// about 1; unscaled softmax saturates as dₖ grows, the scaled one does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCALING_WIDTHS, scalingExample } from '../../../web/lib/scaling.js';

test('Scaling_SpreadGrowsLikeTheSquareRootOfTheWidthAndScalingUndoesIt', () => {
  for (const dk of SCALING_WIDTHS) {
    const r = scalingExample(dk);
    // 400 samples: the standard deviation is within ~15% of √dk with overwhelming probability.
    assert.ok(Math.abs(r.spread / Math.sqrt(dk) - 1) < 0.15, `dk ${dk}: spread ${r.spread}`);
    assert.ok(Math.abs(r.spreadScaled - 1) < 0.15, `dk ${dk}: scaled spread ${r.spreadScaled}`);
    assert.ok(Math.abs(r.weights.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.ok(Math.abs(r.weightsScaled.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  }
  const wide = scalingExample(1024);
  assert.ok(wide.largest > 0.95, `unscaled softmax at dk 1024 saturates: ${wide.largest}`);
  assert.ok(wide.largestScaled < 0.5, `scaled softmax at dk 1024 still mixes: ${wide.largestScaled}`);
  assert.deepEqual(scalingExample(64), scalingExample(64), 'seeded: the same draws every time');
});

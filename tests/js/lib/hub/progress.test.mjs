// Unit tests of web/lib/hub/progress.js: bytes, speed and time left as a reader reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeProgress,
  formatBytes,
  formatSeconds,
  progressNumbers,
  speedMeter,
} from '../../../../web/lib/hub/progress.js';

test('Progress_BytesAreDecimalWithThreeDigits', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(4096), '4.10 kB');
  assert.equal(formatBytes(548105171), '548 MB');
  assert.equal(formatBytes(352833716), '353 MB');
  assert.equal(formatBytes(1520013706), '1.52 GB');
  assert.equal(formatBytes(999.6e6), '1.00 GB'); // never "1000 MB"
  assert.equal(formatBytes(12.34e6), '12.3 MB');
  assert.equal(formatBytes(-1), '—');
  assert.equal(formatBytes(NaN), '—');
});

test('Progress_SecondsReadAsMinutesAndHours', () => {
  assert.equal(formatSeconds(8.4), '8 s');
  assert.equal(formatSeconds(125), '2 min 5 s');
  assert.equal(formatSeconds(120), '2 min');
  assert.equal(formatSeconds(3780), '1 h 3 min');
  assert.equal(formatSeconds(Infinity), '—');
});

test('Progress_SpeedIsOverTheLastSecondsAndForgetsPauses', () => {
  const m = speedMeter({ windowMs: 3000, minSpanMs: 200 });
  assert.equal(m.rate(), null);
  m.add(1e6, 0);
  m.add(1e6, 100);
  assert.equal(m.rate(), null); // 100 ms is too short to say
  for (let t = 200; t <= 5000; t += 100) m.add(1e6, t); // 10 MB/s
  assert.ok(Math.abs(m.rate() - 10e6) < 1, `rate ${m.rate()}`);
  for (let t = 5100; t <= 9000; t += 100) m.add(0.1e6, t); // slows to 1 MB/s: the window forgets the fast part
  assert.ok(Math.abs(m.rate() - 1e6) < 1, `rate ${m.rate()}`);
  m.reset(); // a retry's wait is not slowness
  assert.equal(m.rate(), null);
  m.add(2e6, 20000);
  assert.equal(m.rate(), null); // the first sample after the pause starts a new window
  m.add(2e6, 21000);
  assert.ok(Math.abs(m.rate() - 2e6) < 1, `rate ${m.rate()}`);
});

test('Progress_OneLineSaysBytesPercentSpeedAndTimeLeft', () => {
  assert.deepEqual(progressNumbers({ bytes: 50, total: 200, bytesPerSecond: 10 }), { percent: 25, secondsLeft: 15 });
  assert.deepEqual(progressNumbers({ bytes: 50, total: null, bytesPerSecond: 10 }), {
    percent: null,
    secondsLeft: null,
  });
  assert.equal(
    describeProgress({ bytes: 123.4e6, total: 548105171, bytesPerSecond: 12.3e6 }),
    '123 MB of 548 MB (22%), 12.3 MB/s, 35 s left',
  );
  assert.equal(
    describeProgress({ bytes: 0, total: 548105171, bytesPerSecond: null }),
    '0 B of 548 MB (0%), waiting for the server…',
  );
  assert.equal(describeProgress({ bytes: 5e6, total: null, bytesPerSecond: 1e6 }), '5.00 MB so far, 1.00 MB/s');
});

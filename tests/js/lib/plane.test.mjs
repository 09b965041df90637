// The plane view's geometry (web/lib/plane.js): two-wide vectors drawn as they are, wider ones
// through the engine's principal components; the scale keeps every point in view; a key's
// projection on the query line is q·k / |q| along it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toPlane, planeScale, projection, distance, clipSegment, tokenPoints } from '../../../web/lib/plane.js';

const noEngine = { pca: () => assert.fail('two-wide vectors need no projection') };

test('ToPlane_TwoWideVectorsAreDrawnAsTheyAre', () => {
  const out = toPlane(noEngine, [
    [1, 2],
    [-0.5, 0.25],
  ]);
  assert.deepEqual(out, {
    xy: [
      [1, 2],
      [-0.5, 0.25],
    ],
    explained: null,
    projected: false,
  });
  assert.deepEqual(toPlane(noEngine, [[3], [-1]]).xy, [
    [3, 0],
    [-1, 0],
  ]);
});

test('ToPlane_WiderVectorsGoThroughTheEnginesPca', () => {
  const calls = [];
  const engine = {
    pca(args) {
      calls.push(args);
      return {
        explained: { shape: [2], data: Float32Array.of(0.75, 0.25) },
        get: (name) =>
          name === 'projected'
            ? [
                [1, 0],
                [-1, 0],
              ]
            : null,
      };
    },
  };
  const out = toPlane(engine, [
    [1, 2, 3],
    [3, 2, 1],
  ]);
  assert.deepEqual(calls, [
    {
      x: [
        [1, 2, 3],
        [3, 2, 1],
      ],
    },
  ]);
  assert.deepEqual(out, {
    xy: [
      [1, 0],
      [-1, 0],
    ],
    explained: [0.75, 0.25],
    projected: true,
  });
});

test('PlaneScale_KeepsEveryPointAndTheOriginInsideWithYUp', () => {
  for (const points of [
    [
      [2, -1],
      [-0.5, 4],
    ],
    [
      [1, 1],
      [2, 0.5],
    ],
  ]) {
    const S = planeScale(points, 300, 30);
    for (const p of [...points, [0, 0]]) {
      const [x, y] = S.at(p);
      assert.ok(x >= 30 && x <= 270 && y >= 30 && y <= 270, `${p} → ${x}, ${y}`);
    }
    const [x0, y0] = S.at([0, 0]);
    const [x1, y1] = S.at([1, 1]);
    assert.ok(Math.abs(x1 - x0 - (y0 - y1)) < 1e-9, 'one scale on both axes, up is up');
  }
  assert.ok(planeScale([[0, 0]]).unit > 0, 'all points at the origin still give a finite scale');
});

test('Projection_IsTheFootOfThePerpendicular', () => {
  const { foot, dot } = projection([2, 0], [3, 4]);
  assert.deepEqual(foot, [3, 0]);
  assert.equal(dot, 6);
  const p = projection([1, 1], [2, 0]);
  assert.deepEqual(p.foot, [1, 1]);
  assert.deepEqual(projection([0, 0], [1, 1]).foot, [0, 0]);
  assert.equal(distance([0, 0, 0], [1, 2, 2]), 3);
});

test('ClipSegment_KeepsThePartInsideTheSquare', () => {
  assert.deepEqual(clipSegment([-10, 5], [20, 5], 10), [
    [0, 5],
    [10, 5],
  ]);
  assert.deepEqual(clipSegment([2, 2], [3, 3], 10), [
    [2, 2],
    [3, 3],
  ]);
  assert.equal(clipSegment([-5, -5], [-1, -1], 10), null);
});

test('PlaceLabels_NoTwoOverlapNoneCoversAPointAllInside', async () => {
  const { placeLabels } = await import('../../../web/lib/plane.js');
  const boxOverlap = (a, b) =>
    Math.min(a.x + a.w, b.x + b.w) > Math.max(a.x, b.x) + 1e-9 &&
    Math.min(a.y + a.h, b.y + b.h) > Math.max(a.y, b.y) + 1e-9;
  // The seed's queries and keys nearly coincide in pairs; six labels around four spots, one
  // near the right edge (the "q strea…" that used to clip on a phone).
  const pts = [
    [150, 100],
    [152, 103],
    [270, 60],
    [268, 64],
    [40, 240],
    [44, 238],
  ].map(([x, y], i) => ({ x, y, w: 56 + 4 * i, h: 14 }));
  const boxes = placeLabels(pts, 280);
  boxes.forEach((b, i) => {
    assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= 280 && b.y + b.h <= 280, `label ${i} inside: ${JSON.stringify(b)}`);
    boxes.forEach((c, j) => j > i && assert.ok(!boxOverlap(b, c), `labels ${i} and ${j} overlap`));
    pts.forEach((p, j) => {
      if (j === i) return;
      const dot = { x: p.x - 4, y: p.y - 4, w: 8, h: 8 };
      assert.ok(!boxOverlap(b, dot), `label ${i} covers point ${j}`);
    });
  });
});

test('PlaceLabels_KeepClearOfLinesAndBoxesWithALeaderWhenAwayFromThePoint', async () => {
  const { placeLabels, segmentHitsBox } = await import('../../../web/lib/plane.js');
  // The context-seeking preset's picture: every arrow on the x axis, three points at the origin.
  const axisY = 140;
  const pts = [
    [40, axisY],
    [40, axisY],
    [40, axisY],
    [90, axisY],
    [120, axisY],
    [250, axisY],
  ].map(([x, y], i) => ({ x, y, w: 50 + 3 * i, h: 14 }));
  const segments = [
    { x1: 0, y1: axisY, x2: 280, y2: axisY }, // the x axis (and the arrows along it)
    { x1: 40, y1: 0, x2: 40, y2: 280 }, // the y axis
    { x1: 40, y1: axisY, x2: 250, y2: 60 }, // a shadow
  ];
  const title = { x: 180, y: 262, w: 96, h: 12 };
  const boxes = placeLabels(pts, 280, { segments, boxes: [title] });
  const overlap = (a, b) =>
    Math.min(a.x + a.w, b.x + b.w) > Math.max(a.x, b.x) && Math.min(a.y + a.h, b.y + b.h) > Math.max(a.y, b.y);
  boxes.forEach((b, i) => {
    assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= 280 && b.y + b.h <= 280, `label ${i} inside`);
    for (const s of segments) assert.ok(!segmentHitsBox(s, b), `label ${i} crosses a line: ${JSON.stringify(b)}`);
    assert.ok(!overlap(b, title), `label ${i} covers the axis title`);
    boxes.forEach((c, j) => j > i && assert.ok(!overlap(b, c), `labels ${i} and ${j} overlap`));
    // Away from its point, a label has a leader that starts near the point and crosses no other label.
    const dx = Math.max(b.x - pts[i].x, 0, pts[i].x - (b.x + b.w));
    const dy = Math.max(b.y - pts[i].y, 0, pts[i].y - (b.y + b.h));
    if (Math.hypot(dx, dy) > 20) {
      assert.ok(b.leader, `label ${i} is ${Math.hypot(dx, dy).toFixed(0)} px from its point: a leader`);
      assert.ok(Math.hypot(b.leader.x1 - pts[i].x, b.leader.y1 - pts[i].y) < 10, 'the leader starts at the point');
      boxes.forEach((c, j) => j !== i && assert.ok(!segmentHitsBox(b.leader, c), `leader ${i} crosses label ${j}`));
    }
  });
  assert.ok(
    boxes.filter((b) => b.leader).length >= 1,
    'three labels at one point: at least one moved out, with a leader',
  );
  assert.equal(segmentHitsBox({ x1: 0, y1: 0, x2: 10, y2: 10 }, { x: 4, y: 4, w: 1, h: 1 }), true);
  assert.equal(segmentHitsBox({ x1: 0, y1: 0, x2: 10, y2: 0 }, { x: 4, y: 1, w: 1, h: 1 }), false);
});

test('TokenPoints_EveryTokenOfEverySentenceComputedAndTheSharedWordMarked', () => {
  const results = {
    contexts: {
      river: { tokens: ['stream', 'bank'], trace: { output: [[1], [2]] }, linear: [[3], [4]] },
      finance: { tokens: ['bank', 'loan'], trace: { output: [[5], [6]] }, linear: [[7], [8]] },
      broken: { tokens: ['x'], trace: null, linear: [[9]] },
    },
    cosines: [{ word: 'bank' }],
  };
  const attention = tokenPoints(results, 'attention');
  assert.deepEqual(attention.names, ['river', 'finance'], 'a context without a trace has no points');
  assert.deepEqual(
    attention.rows.map((r) => [r.name, r.word, r.i, r.v[0], r.shared]),
    [
      ['river', 'stream', 0, 1, false],
      ['river', 'bank', 1, 2, true],
      ['finance', 'bank', 0, 5, true],
      ['finance', 'loan', 1, 6, false],
    ],
  );
  assert.deepEqual(
    tokenPoints(results, 'linear').rows.map((r) => r.v[0]),
    [3, 4, 7, 8],
  );
});

// web/shell/notices.js: what the explorer's notice lists, in which order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noticeLines } from '../../../web/shell/notices.js';

test('Notices_ProblemsThenEngineErrorsThenFailedViewsThenTheRefusedEdit', () => {
  assert.deepEqual(noticeLines({ problems: [], engine: [], views: [], edit: null }), []);
  assert.deepEqual(
    noticeLines({
      problems: ['The link held values…', '• view: unknown'],
      engine: ['river: x: ragged'],
      views: ['the plane view failed: no PCA'],
      edit: 'W_Q: a number, please',
    }),
    [
      'The link held values…',
      '• view: unknown',
      'The engine could not compute this: river: x: ragged',
      'the plane view failed: no PCA',
      'W_Q: a number, please',
    ],
  );
});

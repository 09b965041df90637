// web/shell/theme.js: the theme setting against the system's preference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { themeOf } from '../../../web/shell/theme.js';

test('Theme_AutoFollowsTheSystemAndAChoiceOverridesIt', () => {
  assert.equal(themeOf('auto', true), 'dark');
  assert.equal(themeOf('auto', false), 'light');
  assert.equal(themeOf('light', true), 'light');
  assert.equal(themeOf('dark', false), 'dark');
});
